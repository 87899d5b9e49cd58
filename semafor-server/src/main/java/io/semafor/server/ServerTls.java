package io.semafor.server;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.semafor.protocol.tls.TlsMaterial;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import org.jspecify.annotations.Nullable;

/**
 * A server's TLS: its certificate chain and key, and, if clients are to present certificates, the
 * CA those must lead to and whether they must. Read and checked once by {@link #load} (a missing
 * file, a key that is not the certificate's, a file that is not PEM are refused there, naming the
 * setting), then immutable and thread-safe.
 *
 * <p>The same material serves the client port (a Netty {@link SslHandler} first in each
 * connection's pipeline) and the admin HTTP port (a JDK {@link SSLContext}). Both use the JDK's TLS
 * implementation (decision 0028).
 */
public final class ServerTls {
  /** Whether clients must present a certificate that leads to {@link #clientCaFile()}. */
  public enum ClientAuth {
    /** No certificate is asked for. */
    NONE,
    /** A certificate is asked for; a client without one is let in, one with a bad one is not. */
    OPTIONAL,
    /** A client without a certificate that leads to the client CA is refused in the handshake. */
    REQUIRE
  }

  private final Path certFile;
  private final Path keyFile;
  private final @Nullable Path clientCaFile;
  private final ClientAuth clientAuth;
  private final TlsMaterial material;
  private final SslContext netty;
  private final SSLContext jdk;

  private ServerTls(
      Path certFile,
      Path keyFile,
      @Nullable Path clientCaFile,
      ClientAuth clientAuth,
      TlsMaterial material,
      SslContext netty) {
    this.certFile = certFile;
    this.keyFile = keyFile;
    this.clientCaFile = clientCaFile;
    this.clientAuth = clientAuth;
    this.material = material;
    this.netty = netty;
    this.jdk = material.sslContext();
  }

  /**
   * Reads and checks the files.
   *
   * @param clientAuth null for the default: {@link ClientAuth#REQUIRE} when {@code clientCa} is
   *     given, else {@link ClientAuth#NONE}
   * @throws IllegalArgumentException whose message starts with the setting that is wrong ({@code
   *     tlsCert}, {@code tlsKey}, {@code tlsClientCa}, {@code tlsClientAuth}), then the file and
   *     the problem
   */
  public static ServerTls load(
      Path cert, Path key, @Nullable Path clientCa, @Nullable ClientAuth clientAuth) {
    ClientAuth auth =
        clientAuth != null ? clientAuth : clientCa != null ? ClientAuth.REQUIRE : ClientAuth.NONE;
    if (auth != ClientAuth.NONE && clientCa == null) {
      throw new IllegalArgumentException(
          "tlsClientAuth: "
              + auth.name().toLowerCase(java.util.Locale.ROOT)
              + " needs the CA of the clients' certificates (--tls-client-ca)");
    }
    TlsMaterial material;
    try {
      material = TlsMaterial.read(cert, key, clientCa);
    } catch (IllegalArgumentException e) {
      String message = String.valueOf(e.getMessage());
      String setting =
          message.startsWith("cert:")
              ? "tlsCert"
              : message.startsWith("key:") ? "tlsKey" : "tlsClientCa";
      throw new IllegalArgumentException(
          setting + ":" + message.substring(message.indexOf(':') + 1), e);
    }
    PrivateKey privateKey = material.key();
    if (privateKey == null) {
      throw new IllegalArgumentException("tlsKey: none given");
    }
    try {
      SslContextBuilder builder =
          SslContextBuilder.forServer(privateKey, material.chain().toArray(X509Certificate[]::new))
              .sslProvider(SslProvider.JDK)
              .clientAuth(
                  switch (auth) {
                    case NONE -> io.netty.handler.ssl.ClientAuth.NONE;
                    case OPTIONAL -> io.netty.handler.ssl.ClientAuth.OPTIONAL;
                    case REQUIRE -> io.netty.handler.ssl.ClientAuth.REQUIRE;
                  });
      if (!material.trusted().isEmpty()) {
        builder.trustManager(material.trusted().toArray(X509Certificate[]::new));
      }
      return new ServerTls(cert, key, clientCa, auth, material, builder.build());
    } catch (SSLException e) {
      throw new IllegalArgumentException(
          "tlsCert: " + cert + ": cannot serve TLS with it: " + e.getMessage(), e);
    }
  }

  /** The certificate chain file (PEM, the leaf first). */
  public Path certFile() {
    return certFile;
  }

  /** The private key file (PEM, unencrypted PKCS#8). */
  public Path keyFile() {
    return keyFile;
  }

  /** The CA file clients' certificates must lead to, or null if none is asked for. */
  public @Nullable Path clientCaFile() {
    return clientCaFile;
  }

  /** Whether clients must present a certificate. */
  public ClientAuth clientAuth() {
    return clientAuth;
  }

  /** The material read from the files. */
  public TlsMaterial material() {
    return material;
  }

  /**
   * A handler for one new connection, to go first in its pipeline (the client port's, and the HTTP
   * API's in semafor-http).
   */
  public SslHandler newHandler(ByteBufAllocator allocator) {
    return netty.newHandler(allocator);
  }

  /** The JDK context for the admin HTTP port. */
  SSLContext jdkContext() {
    return jdk;
  }

  /** The admin port's handshake parameters: client certificates as {@link #clientAuth()} says. */
  SSLParameters adminParameters() {
    SSLParameters parameters = jdk.getDefaultSSLParameters();
    parameters.setNeedClientAuth(clientAuth == ClientAuth.REQUIRE);
    if (clientAuth == ClientAuth.OPTIONAL) {
      parameters.setWantClientAuth(true);
    }
    return parameters;
  }
}
