package io.semafor.protocol.tls;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Reads PEM files: X.509 certificates (one or more, as {@code openssl} writes them) and unencrypted
 * PKCS#8 private keys ({@code -----BEGIN PRIVATE KEY-----}, RSA, EC or Ed25519). Certificates are
 * parsed by the JDK's own {@link CertificateFactory}, which reads PEM; only the key's Base64 armour
 * is taken off here, since the JDK 17 has no PEM key reader.
 *
 * <p>Every failure is an {@link IllegalArgumentException} whose message starts with the file and
 * says what is wrong in one line (no such file, no certificate in it, a PKCS#1 key to convert), so
 * that a command line can print it after the option's name. Stateless and thread-safe.
 */
public final class PemFiles {
  private static final String BEGIN_KEY = "-----BEGIN PRIVATE KEY-----";
  private static final String END_KEY = "-----END PRIVATE KEY-----";

  private PemFiles() {}

  /**
   * The certificates in {@code file}, in order (a chain: the leaf first).
   *
   * @throws IllegalArgumentException if the file cannot be read or holds no certificate
   */
  public static List<X509Certificate> certificates(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      List<X509Certificate> certificates = new ArrayList<>();
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        certificates.add((X509Certificate) c);
      }
      if (certificates.isEmpty()) {
        throw new IllegalArgumentException(file + ": no PEM certificate in it");
      }
      return List.copyOf(certificates);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(file + ": no such file", e);
    } catch (IOException e) {
      throw new IllegalArgumentException(file + ": cannot read it: " + e.getMessage(), e);
    } catch (CertificateException e) {
      throw new IllegalArgumentException(
          file + ": not a PEM certificate (" + firstLine(e.getMessage()) + ")", e);
    }
  }

  /**
   * The unencrypted PKCS#8 private key in {@code file}.
   *
   * @throws IllegalArgumentException if the file cannot be read, holds no PKCS#8 key (a PKCS#1 or
   *     SEC1 key is named, with the {@code openssl} command that converts it), or the key is
   *     encrypted
   */
  public static PrivateKey privateKey(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.US_ASCII);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(file + ": no such file", e);
    } catch (IOException e) {
      throw new IllegalArgumentException(file + ": cannot read it: " + e.getMessage(), e);
    }
    int begin = text.indexOf(BEGIN_KEY);
    int end = text.indexOf(END_KEY);
    if (begin < 0 || end < begin) {
      if (text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----")) {
        throw new IllegalArgumentException(
            file
                + ": an encrypted key; give an unencrypted PKCS#8 key (openssl pkcs8 -topk8"
                + " -nocrypt)");
      }
      if (text.contains("-----BEGIN RSA PRIVATE KEY-----")
          || text.contains("-----BEGIN EC PRIVATE KEY-----")) {
        throw new IllegalArgumentException(
            file + ": a PKCS#1/SEC1 key; convert it with openssl pkcs8 -topk8 -nocrypt -in KEY");
      }
      throw new IllegalArgumentException(file + ": no '" + BEGIN_KEY + "' block in it");
    }
    byte[] der;
    try {
      der = Base64.getMimeDecoder().decode(text.substring(begin + BEGIN_KEY.length(), end));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + ": the key is not valid Base64", e);
    }
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
    for (String algorithm : new String[] {"RSA", "EC", "Ed25519", "Ed448"}) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (GeneralSecurityException notThisOne) {
        // the encoding names its algorithm; trying each is simpler than reading the DER here
      }
    }
    throw new IllegalArgumentException(file + ": not an RSA, EC or Ed25519 PKCS#8 key");
  }

  /**
   * Checks that {@code key} is the private half of {@code certificate}'s public key, by signing a
   * random message and verifying it: a server given the wrong key would otherwise start and fail
   * every handshake.
   *
   * @throws IllegalArgumentException if it is not, or the pair cannot sign
   */
  public static void checkPair(PrivateKey key, X509Certificate certificate) {
    String algorithm =
        switch (key.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          default -> key.getAlgorithm(); // Ed25519 and Ed448 sign under their own names
        };
    byte[] message = new byte[32];
    new SecureRandom().nextBytes(message);
    boolean matches;
    try {
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(message);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(certificate.getPublicKey());
      verifier.update(message);
      matches = verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      matches = false;
    }
    if (!matches) {
      throw new IllegalArgumentException(
          "the key does not belong to the certificate "
              + certificate.getSubjectX500Principal().getName());
    }
  }

  private static String firstLine(@org.jspecify.annotations.Nullable String message) {
    String m = String.valueOf(message);
    int newline = m.indexOf('\n');
    return newline < 0 ? m : m.substring(0, newline);
  }
}
