package io.semafor.protocol.tls;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.SortedSet;
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
 * regard to ASCII case, as DNS does; no other letters are folded). A CA's signature says a
 * certificate is genuine; this says it was issued to one of the parties allowed here — the check
 * etcd makes with {@code --peer-cert-allowed-cn}. Immutable and thread-safe; both directions (the
 * side that accepts a connection and the side that makes it) are checked alike.
 */
public final class NamedPeerTrustManager extends X509ExtendedTrustManager {
  private final X509ExtendedTrustManager delegate;

  /** The allowed names, folded and sorted (so the refusal lists them in a stable order). */
  private final SortedSet<String> names;

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
    SortedSet<String> lower = new TreeSet<>();
    for (String n : names) {
      lower.add(asciiLower(n));
    }
    this.names = Collections.unmodifiableSortedSet(lower);
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

  /**
   * {@code s} with A–Z folded to a–z and nothing else: DNS compares names without regard to ASCII
   * case only. {@link String#toLowerCase} would fold other letters too (U+212A KELVIN SIGN to
   * {@code k}), letting a certificate whose CN its requester chose pass for an allowed name.
   */
  static String asciiLower(String s) {
    StringBuilder out = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      out.append(c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c);
    }
    return out.toString();
  }

  private void checkNamed(X509Certificate[] chain) throws CertificateException {
    if (chain.length == 0) {
      throw new CertificateException("no certificate");
    }
    List<String> carried = namesOf(chain[0]);
    for (String n : carried) {
      if (names.contains(asciiLower(n))) {
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
