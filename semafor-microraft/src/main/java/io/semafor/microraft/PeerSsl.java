package io.semafor.microraft;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.semafor.protocol.tls.NamedPeerTrustManager;
import io.semafor.protocol.tls.TlsMaterial;
import io.semafor.replication.PeerTls;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Objects;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Mutual TLS on the members' connections, as {@link PeerTls} describes it and as the Ratis
 * replicator does it: each member presents its certificate on both ends of a connection and accepts
 * only a peer whose chain leads to the CA and, when names are given, that carries one of them; the
 * member that dials also checks that the certificate names the host it dialled, as HTTPS does.
 * Immutable and thread-safe.
 */
final class PeerSsl {
  private final SslContext server;
  private final SslContext client;

  private PeerSsl(SslContext server, SslContext client) {
    this.server = server;
    this.client = client;
  }

  /**
   * Reads the files.
   *
   * @throws IllegalArgumentException if a file cannot be read or the key does not fit the
   *     certificate (the command line checks them first)
   */
  static PeerSsl of(PeerTls tls) {
    TlsMaterial material = TlsMaterial.read(tls.cert(), tls.key(), tls.ca());
    PrivateKey key = Objects.requireNonNull(material.key());
    X509Certificate[] chain = material.chain().toArray(X509Certificate[]::new);
    TrustManager trust = Objects.requireNonNull(material.trustManagers())[0];
    if (!tls.names().isEmpty()) {
      trust = new NamedPeerTrustManager((X509ExtendedTrustManager) trust, tls.names());
    }
    try {
      return new PeerSsl(
          SslContextBuilder.forServer(key, chain)
              .sslProvider(SslProvider.JDK)
              .clientAuth(ClientAuth.REQUIRE)
              .trustManager(trust)
              .build(),
          SslContextBuilder.forClient()
              .sslProvider(SslProvider.JDK)
              .keyManager(key, chain)
              .trustManager(trust)
              .build());
    } catch (SSLException e) {
      throw new IllegalArgumentException(
          "cert: " + tls.cert() + ": cannot serve TLS with it: " + e.getMessage(), e);
    }
  }

  /** The handler of a connection a peer opened to this member. */
  SslHandler accepting(ByteBufAllocator alloc) {
    return server.newHandler(alloc);
  }

  /** The handler of a connection this member opens to {@code peer}, checking its host name. */
  SslHandler dialling(ByteBufAllocator alloc, MemberEndpoint peer) {
    SslHandler handler = client.newHandler(alloc, peer.host(), peer.port());
    SSLEngine engine = handler.engine();
    SSLParameters parameters = engine.getSSLParameters();
    parameters.setEndpointIdentificationAlgorithm("HTTPS");
    engine.setSSLParameters(parameters);
    return handler;
  }
}
