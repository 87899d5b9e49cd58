package io.semafor.server.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.semafor.protocol.tls.NamedPeerTrustManager;
import io.semafor.protocol.tls.PemFiles;
import io.semafor.protocol.tls.TlsMaterial;
import io.semafor.server.testing.TestPki;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.X509ExtendedTrustManager;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The peer-name check of TLS between cluster members ({@code --tls-peer-names}). */
class NamedPeerTrustManagerTest {
  private TestPki pki;
  private X509ExtendedTrustManager chainCheck;

  @BeforeEach
  void makeCa(@TempDir Path dir) throws Exception {
    pki = TestPki.create(dir, "peers");
    chainCheck =
        (X509ExtendedTrustManager)
            Objects.requireNonNull(TlsMaterial.read(null, null, pki.caFile()).trustManagers())[0];
  }

  private X509Certificate[] chainOf(TestPki.Issued issued) {
    return PemFiles.certificates(issued.cert()).toArray(X509Certificate[]::new);
  }

  @Test
  void aPeerWhoseCommonNameIsAllowedIsTrustedBothWays() throws Exception {
    NamedPeerTrustManager check = new NamedPeerTrustManager(chainCheck, List.of("n1", "n2"));
    X509Certificate[] n2 = chainOf(pki.issue("n2"));
    check.checkClientTrusted(n2, "UNKNOWN");
    check.checkServerTrusted(n2, "ECDHE_ECDSA");
  }

  @Test
  void aPeerNamedByADnsAlternativeNameIsTrustedWhateverItsCase() throws Exception {
    NamedPeerTrustManager check =
        new NamedPeerTrustManager(chainCheck, List.of("Semafor-Peer.example"));
    check.checkClientTrusted(chainOf(pki.issueFor("node-7", "semafor-peer.EXAMPLE")), "UNKNOWN");
  }

  @Test
  void onlyAsciiLettersAreFoldedSoAKelvinSignIsNotAK() throws Exception {
    NamedPeerTrustManager check = new NamedPeerTrustManager(chainCheck, List.of("kafka-peer"));
    X509Certificate[] lookalike = chainOf(pki.issue("\u212Aafka-peer"));
    assertThatThrownBy(() -> check.checkClientTrusted(lookalike, "UNKNOWN"))
        .isInstanceOf(CertificateException.class);
  }

  @Test
  void aPeerFromTheRightCaNamingNoAllowedNameIsRefusedWithWhatItNames() throws Exception {
    NamedPeerTrustManager check = new NamedPeerTrustManager(chainCheck, List.of("n1", "n2"));
    X509Certificate[] intruder = chainOf(pki.issue("intruder"));
    assertThatThrownBy(() -> check.checkClientTrusted(intruder, "UNKNOWN"))
        .isInstanceOf(CertificateException.class)
        .hasMessageContaining("names intruder, localhost")
        .hasMessageContaining("none of the allowed peers n1, n2");
    assertThatThrownBy(() -> check.checkServerTrusted(intruder, "ECDHE_ECDSA"))
        .isInstanceOf(CertificateException.class);
  }

  @Test
  void aPeerWithAnAllowedNameFromAnotherCaIsRefusedByTheChainCheck(@TempDir Path other)
      throws Exception {
    NamedPeerTrustManager check = new NamedPeerTrustManager(chainCheck, List.of("n1"));
    X509Certificate[] forged = chainOf(TestPki.create(other, "forger").issue("n1"));
    assertThatThrownBy(() -> check.checkClientTrusted(forged, "UNKNOWN"))
        .isInstanceOf(CertificateException.class);
  }

  @Test
  void theNamesOfACertificateAreItsCommonNameThenItsDnsAlternativeNames() throws Exception {
    assertThat(NamedPeerTrustManager.namesOf(chainOf(pki.issue("n3"))[0]))
        .containsExactly("n3", "localhost");
  }

  @Test
  void noAllowedNamesIsRefusedRatherThanRefusingEveryPeer() {
    assertThatThrownBy(() -> new NamedPeerTrustManager(chainCheck, List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
