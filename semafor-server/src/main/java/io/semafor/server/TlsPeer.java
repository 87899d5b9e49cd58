package io.semafor.server;

import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Optional;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * Who the other end of a TLS connection proved to be: the subject of the client certificate the
 * handshake verified against the client CA. Stateless; call it on any thread once the handshake is
 * done (a {@code Hello} arrives only after it, since the TLS handler passes no data on before).
 */
final class TlsPeer {
  private TlsPeer() {}

  /**
   * The verified client certificate's subject as an X.500 name in RFC 2253 form ({@code
   * CN=alice,O=Acme}: the JDK's {@code getName()}, most specific attribute first); empty when the
   * connection is not TLS, the handshake is not done, or the client presented no certificate (a
   * certificate that did not verify never gets this far: the handshake failed).
   */
  static Optional<String> subject(Channel channel) {
    SslHandler tls = channel.pipeline().get(SslHandler.class);
    if (tls == null || !tls.handshakeFuture().isSuccess()) {
      return Optional.empty();
    }
    try {
      Certificate[] chain = tls.engine().getSession().getPeerCertificates();
      if (chain.length > 0 && chain[0] instanceof X509Certificate leaf) {
        return Optional.of(leaf.getSubjectX500Principal().getName());
      }
      return Optional.empty();
    } catch (SSLPeerUnverifiedException noCertificate) {
      return Optional.empty();
    }
  }
}
