package io.semafor.client;

import io.semafor.protocol.tls.TlsMaterial;
import java.nio.file.Path;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * How a client speaks TLS to the servers: which CA their certificates must lead to, whether to
 * present a client certificate (for servers that verify them, mTLS), and whether to check the
 * server's name. Given to {@link SemaforClient.Builder#tls}.
 *
 * <p>Files are PEM: the CA and the certificate one or more {@code -----BEGIN CERTIFICATE-----}
 * blocks (the certificate's chain leaf first), the key unencrypted PKCS#8 ({@code -----BEGIN
 * PRIVATE KEY-----}). {@link Builder#build()} reads and checks them at once, so a wrong file fails
 * there and not on the first connection.
 *
 * <p>Hostname verification is on by default, as in HTTPS: the address the client connects to (the
 * host of {@code host:port}, a name or an IP address) must be among the server certificate's
 * subject alternative names ({@code DNS:} or {@code IP:} entries). A redirect to the leader is
 * checked against the leader's address in the same way.
 *
 * <p>Immutable and thread-safe; one config may serve many clients.
 */
public final class TlsConfig {
  private final TlsMaterial material;
  private final SSLContext context;
  private final boolean hostnameVerification;

  private TlsConfig(TlsMaterial material, boolean hostnameVerification) {
    this.material = material;
    this.context = material.sslContext();
    this.hostnameVerification = hostnameVerification;
  }

  /** A builder: no CA (the JDK's default CAs), no client certificate, hostnames verified. */
  public static Builder builder() {
    return new Builder();
  }

  /** The CA and client material read from the files. */
  TlsMaterial material() {
    return material;
  }

  /**
   * The JDK context the client's sockets are made with; also usable for HTTPS to a server's admin
   * port (as {@code semafor cluster} does), whose certificate is the same.
   */
  public SSLContext sslContext() {
    return context;
  }

  /** Whether the server's certificate must name the address connected to. */
  public boolean hostnameVerification() {
    return hostnameVerification;
  }

  /** Collects the settings; not thread-safe. */
  public static final class Builder {
    private @Nullable Path ca;
    private @Nullable Path cert;
    private @Nullable Path key;
    private boolean hostnameVerification = true;

    private Builder() {}

    /**
     * Trust servers whose certificate leads to a CA in {@code caFile} (PEM), instead of the JDK's
     * default CAs.
     */
    public Builder trustedCa(Path caFile) {
      ca = caFile;
      return this;
    }

    /**
     * Present this certificate (PEM chain, leaf first) with its key (PEM, unencrypted PKCS#8) to
     * servers that ask for one.
     */
    public Builder clientCertificate(Path certFile, Path keyFile) {
      cert = certFile;
      key = keyFile;
      return this;
    }

    /**
     * Whether the server's certificate must name the host connected to; default true. Turning it
     * off lets any server with a certificate from the trusted CA pose as any other: only for tests
     * or a private CA that issues nothing else.
     */
    public Builder hostnameVerification(boolean value) {
      hostnameVerification = value;
      return this;
    }

    /**
     * Reads and checks the files.
     *
     * @throws IllegalArgumentException starting with {@code ca:}, {@code cert:} or {@code key:},
     *     then the file and what is wrong with it (missing, not PEM, a key that is not the
     *     certificate's)
     */
    public TlsConfig build() {
      return new TlsConfig(TlsMaterial.read(cert, key, ca), hostnameVerification);
    }
  }
}
