package io.semafor.server.testing;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throw-away certificate authority for TLS tests: a CA and the certificates it issues, written as
 * the PEM files a server, client or CLI is given ({@code NAME.pem} chain, {@code NAME.key}
 * unencrypted PKCS#8, {@code ca.pem}). Leaves name 127.0.0.1, ::1 and localhost in their subject
 * alternative names and allow both TLS server and client use, so one certificate serves a node's
 * client port, its admin port and its Raft peers. EC P-256 keys: fast to make.
 *
 * <p>In semafor-server's test-jar so that every module whose tests start TLS servers (semafor-it,
 * semafor-cli) uses the same one; BouncyCastle only builds the certificates, the PEM armour is the
 * JDK's Base64. Not thread-safe.
 */
public final class TestPki {
  private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

  private final Path dir;
  private final String caName;
  private final KeyPair caKeys;
  private final X509Certificate caCert;

  private TestPki(Path dir, String caName) throws IOException {
    this.dir = dir;
    this.caName = caName;
    this.caKeys = keys();
    X500Name subject = new X500Name("CN=" + caName + ",O=Semafor tests");
    X509v3CertificateBuilder builder =
        new JcaX509v3CertificateBuilder(
            subject, serial(), notBefore(), notAfter(), subject, caKeys.getPublic());
    try {
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      builder.addExtension(
          Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    this.caCert = sign(builder);
    Files.createDirectories(dir);
    write(caFile(), pem("CERTIFICATE", der(caCert)));
  }

  /** A new CA named {@code caName}, its certificate written to {@code dir/caName-ca.pem}. */
  public static TestPki create(Path dir, String caName) throws IOException {
    return new TestPki(dir, caName);
  }

  /** The CA's certificate (PEM). */
  public Path caFile() {
    return dir.resolve(caName + "-ca.pem");
  }

  /** A certificate file (PEM chain: the leaf, then the CA) and its key (PEM PKCS#8). */
  public record Issued(Path cert, Path key, String subject) {}

  /**
   * Issues a certificate with subject {@code CN=commonName,O=Semafor tests}, valid for 127.0.0.1,
   * ::1 and localhost, for TLS servers and clients alike.
   */
  public Issued issue(String commonName) throws IOException {
    return issue(
        commonName,
        List.of(
            new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
            new GeneralName(GeneralName.iPAddress, "::1"),
            new GeneralName(GeneralName.dNSName, "localhost")));
  }

  /** Issues a certificate naming only {@code dnsName} (to test hostname verification). */
  public Issued issueFor(String commonName, String dnsName) throws IOException {
    return issue(commonName, List.of(new GeneralName(GeneralName.dNSName, dnsName)));
  }

  private Issued issue(String commonName, List<GeneralName> names) throws IOException {
    KeyPair keys = keys();
    X500Name subject = new X500Name("CN=" + commonName + ",O=Semafor tests");
    X509v3CertificateBuilder builder =
        new JcaX509v3CertificateBuilder(
            caCert, serial(), notBefore(), notAfter(), subject, keys.getPublic());
    builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
    builder.addExtension(
        Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement));
    builder.addExtension(
        Extension.extendedKeyUsage,
        false,
        new ExtendedKeyUsage(
            new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
    builder.addExtension(
        Extension.subjectAlternativeName,
        false,
        new GeneralNames(names.toArray(GeneralName[]::new)));
    X509Certificate cert = sign(builder);
    String name = caName + "-" + commonName;
    Path certFile = dir.resolve(name + ".pem");
    Path keyFile = dir.resolve(name + ".key");
    write(certFile, pem("CERTIFICATE", der(cert)) + pem("CERTIFICATE", der(caCert)));
    write(keyFile, pem("PRIVATE KEY", keys.getPrivate().getEncoded()));
    return new Issued(certFile, keyFile, cert.getSubjectX500Principal().getName());
  }

  private X509Certificate sign(X509v3CertificateBuilder builder) {
    try {
      return new JcaX509CertificateConverter()
          .getCertificate(
              builder.build(
                  new JcaContentSignerBuilder("SHA256withECDSA").build(caKeys.getPrivate())));
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException(e);
    }
  }

  private static KeyPair keys() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"));
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] der(X509Certificate cert) {
    try {
      return cert.getEncoded();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String pem(String type, byte[] der) {
    List<String> lines = new ArrayList<>();
    lines.add("-----BEGIN " + type + "-----");
    String body = Base64.getEncoder().encodeToString(der);
    for (int i = 0; i < body.length(); i += 64) {
      lines.add(body.substring(i, Math.min(body.length(), i + 64)));
    }
    lines.add("-----END " + type + "-----");
    return String.join("\n", lines) + "\n";
  }

  private static void write(Path file, String text) throws IOException {
    Files.writeString(file, text, StandardCharsets.US_ASCII);
  }

  private static BigInteger serial() {
    return BigInteger.valueOf(SERIAL.incrementAndGet());
  }

  private static Date notBefore() {
    return Date.from(Instant.now().minus(Duration.ofHours(1)));
  }

  private static Date notAfter() {
    return Date.from(Instant.now().plus(Duration.ofDays(2)));
  }
}
