package io.semafor.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.client.TlsConfig;
import io.semafor.server.SemaforServer;
import io.semafor.server.ServerConfig;
import io.semafor.server.ServerTls;
import io.semafor.server.testing.TestPki;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under TLS the API is HTTPS with the node's certificate, and its gateway speaks TLS to the node's
 * own client port, trusting that certificate; a server that requires client certificates runs no
 * API (the gateway has none).
 */
class HttpsTest {
  @Test
  void theApiIsHttpsAndItsGatewayReachesTheTlsClientPort(@TempDir Path dir) throws Exception {
    TestPki pki = TestPki.create(dir, "ca");
    TestPki.Issued cert = pki.issue("node");
    try (SemaforServer server =
            SemaforServer.start(
                ServerConfig.builder()
                    .port(0)
                    .tls(ServerTls.load(cert.cert(), cert.key(), null, null))
                    .build());
        HttpGateway gateway =
            new HttpOptions().start(server, null, HttpConfig.DEFAULTS.withPort(0))) {
      assertThat(gateway).isNotNull();
      assertThat(gateway.baseUrl()).startsWith("https://127.0.0.1:");
      HttpClient https =
          HttpClient.newBuilder()
              .sslContext(TlsConfig.builder().trustedCa(pki.caFile()).build().sslContext())
              .build();
      HttpResponse<String> created =
          https.send(
              HttpRequest.newBuilder(URI.create(gateway.baseUrl() + "/v1/semaphores/tls-a"))
                  .PUT(HttpRequest.BodyPublishers.ofString("{\"initial\": 1}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    }
  }

  @Test
  void aServerThatRequiresClientCertificatesRunsNoApi(@TempDir Path dir) throws Exception {
    TestPki pki = TestPki.create(dir, "ca");
    TestPki clients = TestPki.create(dir.resolve("clients"), "clients");
    TestPki.Issued cert = pki.issue("node");
    try (SemaforServer server =
        SemaforServer.start(
            ServerConfig.builder()
                .port(0)
                .tls(ServerTls.load(cert.cert(), cert.key(), clients.caFile(), null))
                .build())) {
      assertThat(new HttpOptions().start(server, null, HttpConfig.DEFAULTS.withPort(0))).isNull();
    }
  }
}
