package io.semafor.protocol.tls;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import org.jspecify.annotations.Nullable;

/**
 * One end's TLS material, read from PEM files and checked: its own certificate chain and key (if it
 * has one) and the CA certificates it trusts. Immutable and thread-safe.
 *
 * @param key this end's private key, or null if it presents no certificate
 * @param chain this end's certificate chain, leaf first; empty when {@code key} is null
 * @param trusted the CA certificates the other end's chain must lead to; empty to trust the JDK's
 *     default CAs
 */
public record TlsMaterial(
    @Nullable PrivateKey key, List<X509Certificate> chain, List<X509Certificate> trusted) {
  /** Copies the lists. */
  public TlsMaterial {
    chain = List.copyOf(chain);
    trusted = List.copyOf(trusted);
  }

  /**
   * Reads and checks the files: the chain and the key must both be given or both be absent, and the
   * key must belong to the chain's leaf.
   *
   * @throws IllegalArgumentException naming the file (and so the option) that is wrong: its message
   *     starts with {@code cert}, {@code key} or {@code ca}, then the file and the problem
   */
  public static TlsMaterial read(@Nullable Path cert, @Nullable Path key, @Nullable Path ca) {
    if ((cert == null) != (key == null)) {
      throw new IllegalArgumentException(
          (cert == null ? "cert" : "key") + ": needed with " + (cert == null ? "key" : "cert"));
    }
    List<X509Certificate> chain = List.of();
    PrivateKey privateKey = null;
    if (cert != null && key != null) {
      chain = named("cert", () -> PemFiles.certificates(cert));
      privateKey = named("key", () -> PemFiles.privateKey(key));
      PrivateKey k = privateKey;
      List<X509Certificate> c = chain;
      named(
          "key",
          () -> {
            PemFiles.checkPair(k, c.get(0));
            return c;
          });
    }
    List<X509Certificate> trusted =
        ca == null ? List.of() : named("ca", () -> PemFiles.certificates(ca));
    return new TlsMaterial(privateKey, chain, trusted);
  }

  private interface Reading<T> {
    T read();
  }

  private static <T> T named(String what, Reading<T> reading) {
    try {
      return reading.read();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(what + ": " + e.getMessage(), e);
    }
  }

  /** This end's key managers (none if it has no key). */
  public KeyManager @Nullable [] keyManagers() {
    PrivateKey k = key;
    if (k == null) {
      return null;
    }
    try {
      KeyStore store = emptyStore();
      store.setKeyEntry("semafor", k, new char[0], chain.toArray(X509Certificate[]::new));
      KeyManagerFactory factory =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      factory.init(store, new char[0]);
      return factory.getKeyManagers();
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot hold the key in a key store: " + e, e);
    }
  }

  /** The trust managers of {@link #trusted} (null: the JDK's default CAs). */
  public TrustManager @Nullable [] trustManagers() {
    if (trusted.isEmpty()) {
      return null;
    }
    try {
      KeyStore store = emptyStore();
      int i = 0;
      for (X509Certificate ca : trusted) {
        store.setCertificateEntry("ca-" + i++, ca);
      }
      TrustManagerFactory factory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(store);
      return factory.getTrustManagers();
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot hold the CAs in a trust store: " + e, e);
    }
  }

  /** A JDK TLS context (TLS 1.2 and 1.3) with this material. */
  public SSLContext sslContext() {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keyManagers(), trustManagers(), null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot make a TLS context: " + e, e);
    }
  }

  private static KeyStore emptyStore() throws GeneralSecurityException, IOException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    return store;
  }
}
