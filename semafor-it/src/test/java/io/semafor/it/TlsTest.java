package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.semafor.ErrorCode;
import io.semafor.client.Permit;
import io.semafor.client.SemaforClient;
import io.semafor.client.SemaforException;
import io.semafor.client.SnapshotDownload;
import io.semafor.client.TlsConfig;
import io.semafor.server.SemaforServer;
import io.semafor.server.ServerConfig;
import io.semafor.server.ServerTls;
import io.semafor.server.testing.TestPki;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import org.assertj.core.api.ThrowableAssert;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS on a single node's client and admin ports: a TLS client works; a plaintext client, a client
 * that trusts another CA, a server certificate that does not name the host, and (under mTLS) a
 * client without a certificate or with one from another CA are each refused in the handshake, with
 * nothing changed and the server serving others.
 */
class TlsTest {
  @TempDir Path dir = Path.of("set-by-junit");

  private TestPki pki = null;
  private TestPki otherPki = null;
  private TestPki.Issued serverCert = null;
  private @Nullable SemaforServer server;

  @BeforeEach
  void issue() throws IOException {
    pki = TestPki.create(dir, "semafor");
    otherPki = TestPki.create(dir, "other");
    serverCert = pki.issue("node");
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private SemaforServer start(ServerTls.@Nullable ClientAuth clientAuth, @Nullable Path clientCa)
      throws InterruptedException {
    server =
        SemaforServer.start(
            ServerConfig.builder()
                .port(0)
                .adminPort(0)
                .tls(ServerTls.load(serverCert.cert(), serverCert.key(), clientCa, clientAuth))
                .build());
    return server;
  }

  private String address() {
    return "127.0.0.1:" + Objects.requireNonNull(server).address().getPort();
  }

  private SemaforClient connect(@Nullable TlsConfig tls) {
    SemaforClient.Builder builder =
        SemaforClient.builder()
            .addresses(address())
            .connectTimeout(Duration.ofSeconds(2))
            .giveUpAfter(Duration.ofSeconds(2));
    if (tls != null) {
      builder.tls(tls);
    }
    return builder.connect();
  }

  private TlsConfig trusting(TestPki ca) {
    return TlsConfig.builder().trustedCa(ca.caFile()).build();
  }

  private TlsConfig withClientCertificate(TestPki.Issued client) {
    return TlsConfig.builder()
        .trustedCa(pki.caFile())
        .clientCertificate(client.cert(), client.key())
        .build();
  }

  /** Whether a TLS client can still create a semaphore and find nothing else there. */
  private void assertServesTlsClientsAndNothingChanged(TlsConfig good) {
    try (SemaforClient client = connect(good)) {
      assertThat(client.list("")).as("nothing was created by the refused client").isEmpty();
      assertThat(client.semaphore("after").create(1)).isTrue();
    }
  }

  @Test
  void aTlsClientAcquiresAndReleasesOverTls() throws Exception {
    start(null, null);
    try (SemaforClient client = connect(trusting(pki))) {
      client.create("printers", 2);
      Permit permit = client.semaphore("printers").acquirePermit(1);
      assertThat(client.semaphore("printers").value()).isEqualTo(1);
      permit.close();
      assertThat(client.semaphore("printers").value()).isEqualTo(2);
    }
  }

  /** {@code plaintext} fails UNAVAILABLE, saying the server speaks TLS and it did not. */
  private void assertToldTheServerSpeaksTls(ThrowableAssert.ThrowingCallable plaintext) {
    assertThatThrownBy(plaintext)
        .isInstanceOfSatisfying(
            SemaforException.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE);
              assertThat(e)
                  .hasMessageContaining(
                      "the server at "
                          + address()
                          + " speaks TLS and this client connected in plain text");
            });
  }

  @Test
  void aPlaintextClientToTheTlsPortIsRefusedAndTheServerServesOthers() throws Exception {
    start(null, null);
    assertToldTheServerSpeaksTls(() -> connect(null));
    assertServesTlsClientsAndNothingChanged(trusting(pki));
  }

  @Test
  void aSnapshotDownloadInPlainTextFromTheTlsPortSaysTheServerSpeaksTls() throws Exception {
    start(null, null);
    java.io.ByteArrayOutputStream file = new java.io.ByteArrayOutputStream();

    assertToldTheServerSpeaksTls(
        () -> SnapshotDownload.save(address(), file, Duration.ofSeconds(5)));
    assertThat(file.size()).isZero();
  }

  @Test
  void aClientTrustingAnotherCaRefusesTheServer() throws Exception {
    start(null, null);
    assertThatThrownBy(() -> connect(trusting(otherPki)))
        .isInstanceOfSatisfying(
            SemaforException.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE);
              assertThat(e).hasStackTraceContaining("PKIX");
            });
    assertServesTlsClientsAndNothingChanged(trusting(pki));
  }

  @Test
  void aServerCertificateThatDoesNotNameTheHostIsRefusedUnlessVerificationIsOff() throws Exception {
    serverCert = pki.issueFor("elsewhere", "elsewhere.example");
    start(null, null);
    assertThatThrownBy(() -> connect(trusting(pki)))
        .isInstanceOfSatisfying(
            SemaforException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE));
    TlsConfig unverified =
        TlsConfig.builder().trustedCa(pki.caFile()).hostnameVerification(false).build();
    assertServesTlsClientsAndNothingChanged(unverified);
  }

  @Test
  void underRequiredClientCertificatesAClientWithoutOneIsRefused() throws Exception {
    start(ServerTls.ClientAuth.REQUIRE, pki.caFile());
    assertThatThrownBy(() -> connect(trusting(pki)))
        .isInstanceOfSatisfying(
            SemaforException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE));
    assertServesTlsClientsAndNothingChanged(withClientCertificate(pki.issue("alice")));
  }

  @Test
  void underRequiredClientCertificatesOneFromAnotherCaIsRefused() throws Exception {
    start(ServerTls.ClientAuth.REQUIRE, pki.caFile());
    TlsConfig impostor = withClientCertificate(otherPki.issue("mallory"));
    assertThatThrownBy(() -> connect(impostor))
        .isInstanceOfSatisfying(
            SemaforException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE));
    assertServesTlsClientsAndNothingChanged(withClientCertificate(pki.issue("alice")));
  }

  @Test
  void underOptionalClientCertificatesAClientWithoutOneIsLetIn() throws Exception {
    start(ServerTls.ClientAuth.OPTIONAL, pki.caFile());
    assertServesTlsClientsAndNothingChanged(trusting(pki));
  }

  private HttpResponse<String> health(@Nullable TlsConfig tls, String scheme)
      throws IOException, InterruptedException {
    HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2));
    if (tls != null) {
      builder.sslContext(tls.sslContext());
    }
    int port = Objects.requireNonNull(Objects.requireNonNull(server).adminAddress()).getPort();
    return builder
        .build()
        .send(
            HttpRequest.newBuilder(URI.create(scheme + "://127.0.0.1:" + port + "/health"))
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void theAdminPortAnswersHttpsWithTheSameCertificateAndRefusesPlainHttp() throws Exception {
    start(null, null);
    assertThat(health(trusting(pki), "https").statusCode()).isEqualTo(200);
    assertThatThrownBy(() -> health(null, "http")).isInstanceOf(IOException.class);
  }

  @Test
  void underRequiredClientCertificatesTheAdminPortRefusesAClientWithoutOne() throws Exception {
    start(ServerTls.ClientAuth.REQUIRE, pki.caFile());
    assertThatThrownBy(() -> health(trusting(pki), "https")).isInstanceOf(IOException.class);
    assertThat(health(withClientCertificate(pki.issue("ops")), "https").statusCode())
        .isEqualTo(200);
  }
}
