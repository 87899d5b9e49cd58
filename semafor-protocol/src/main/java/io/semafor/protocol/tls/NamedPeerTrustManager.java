package io.semafor.protocol.tls;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Trusts a peer's certificate when {@code delegate} does (the chain leads to a trusted CA, and, as
 * a TLS client, the host name matches) <em>and</em> the leaf certificate names one of {@code
 * names}: its subject's CN, or a DNS name among its subject alternative names (compared without
 * regard to ASCII case, as DNS does). A CA's signature says a certificate is genuine; this says it
 * was issued to one of the parties allowed here — the check etcd makes with {@code
 * --peer-cert-allowed-cn}. Immutable and thread-safe; both directions (the side that accepts a
 * connection and the side that makes it) are checked alike.
 */
public final class NamedPeerTrustManager extends X509ExtendedTrustManager {
  private final X509ExtendedTrustManager delegate;
  private final Set<String> names;

  /**
   * @param delegate the chain check (the JDK's PKIX trust manager over the peers' CA)
   * @param names the names a peer may carry; not empty
   * @throws IllegalArgumentException if {@code names} is empty
   */
  public NamedPeerTrustManager(X509ExtendedTrustManager delegate, Collection<String> names) {
    if (names.isEmpty()) {
      throw new IllegalArgumentException("no names: every peer would be refused");
    }
    this.delegate = delegate;
    Set<String> lower = new TreeSet<>();
    for (String n : names) {
      lower.add(n.toLowerCase(Locale.ROOT));
    }
    this.names = Set.copyOf(lower);
  }

  /**
   * The names {@code certificate} carries that this check looks at: its subject's CN values, then
   * its DNS subject alternative names, as written.
   */
  public static List<String> namesOf(X509Certificate certificate) {
    List<String> out = new ArrayList<>();
    try {
      for (Rdn rdn : new LdapName(certificate.getSubjectX500Principal().getName()).getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN")) {
          out.add(String.valueOf(rdn.getValue()));
        }
      }
    } catch (InvalidNameException e) {
      // an unparsable subject names nothing; its alternative names may still
    }
    try {
      Collection<List<?>> alternatives = certificate.getSubjectAlternativeNames();
      if (alternatives != null) {
        for (List<?> entry : alternatives) {
          if (entry.size() >= 2
              && entry.get(0) instanceof Integer type
              && type == 2 // dNSName
              && entry.get(1) instanceof String dns) {
            out.add(dns);
          }
        }
      }
    } catch (CertificateParsingException e) {
      // a malformed extension names nothing
    }
    return out;
  }

  private void checkNamed(X509Certificate[] chain) throws CertificateException {
    if (chain.length == 0) {
      throw new CertificateException("no certificate");
    }
    List<String> carried = namesOf(chain[0]);
    for (String n : carried) {
      if (names.contains(n.toLowerCase(Locale.ROOT))) {
        return;
      }
    }
    throw new CertificateException(
        "the peer's certificate "
            + chain[0].getSubjectX500Principal().getName()
            + " names "
            + (carried.isEmpty() ? "nothing" : String.join(", ", carried))
            + ", none of the allowed peers "
            + String.join(", ", names));
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    delegate.checkClientTrusted(chain, authType, socket);
    checkNamed(chain);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    delegate.checkServerTrusted(chain, authType, socket);
    checkNamed(chain);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    delegate.checkClientTrusted(chain, authType, engine);
    checkNamed(chain);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    delegate.checkServerTrusted(chain, authType, engine);
    checkNamed(chain);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    delegate.checkClientTrusted(chain, authType);
    checkNamed(chain);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    delegate.checkServerTrusted(chain, authType);
    checkNamed(chain);
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return delegate.getAcceptedIssuers();
  }
}
