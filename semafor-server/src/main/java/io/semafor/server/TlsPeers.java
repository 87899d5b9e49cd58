package io.semafor.server;

import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.jspecify.annotations.Nullable;

/**
 * The principal a verified client certificate names (docs/security.md#principals): the common name
 * (CN) of its subject. Only a certificate the TLS handshake verified against the configured CA
 * counts. Stateless and thread-safe.
 */
final class TlsPeers {
  private TlsPeers() {}

  /** The CN of {@code channel}'s verified client certificate; null without TLS or a certificate. */
  static @Nullable String principal(Channel channel) {
    SslHandler tls = channel.pipeline().get(SslHandler.class);
    return tls == null ? null : principal(tls.engine().getSession());
  }

  /** The CN of the verified peer certificate of {@code session}; null if it has none. */
  static @Nullable String principal(@Nullable SSLSession session) {
    if (session == null) {
      return null;
    }
    Certificate[] chain;
    try {
      chain = session.getPeerCertificates();
    } catch (SSLPeerUnverifiedException none) {
      return null;
    }
    if (chain.length == 0 || !(chain[0] instanceof X509Certificate leaf)) {
      return null;
    }
    return commonName(leaf.getSubjectX500Principal().getName());
  }

  /** The CN of an RFC 2253 distinguished name; null if it has none. */
  static @Nullable String commonName(String distinguishedName) {
    try {
      for (Rdn rdn : new LdapName(distinguishedName).getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN")) {
          return String.valueOf(rdn.getValue());
        }
      }
    } catch (InvalidNameException e) {
      return null;
    }
    return null;
  }
}
