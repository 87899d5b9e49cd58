package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.semafor.client.SemaforClient;
import io.semafor.client.SessionInfo;
import io.semafor.server.SemaforServer;
import io.semafor.server.ServerConfig;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 31, item 9: a healthy session whose client sends only keep-alives shows, apart from the
 * time since its last request (which passes its TTL), the time since the server last heard from it,
 * which stays under its TTL: in the client API's session list ({@code semafor session list}'s
 * HEARD) and in the admin API's {@code /sessions} (which the console's session view shows).
 */
@Timeout(60)
class SessionLastHeardTest {
  private static final Duration TTL = Duration.ofSeconds(3);

  private SemaforServer server;
  private SemaforClient idle;
  private SemaforClient observer;

  @BeforeEach
  void start() throws InterruptedException {
    server = SemaforServer.start(ServerConfig.builder().port(0).adminPort(0).build());
    String address = "127.0.0.1:" + server.address().getPort();
    idle = SemaforClient.builder().addresses(address).sessionTtl(TTL).connect();
    observer = SemaforClient.builder().addresses(address).connect();
  }

  @AfterEach
  void stop() {
    idle.close();
    observer.close();
    server.close();
  }

  @Test
  void anIdleSessionKeptAliveShowsItWasHeardFromWithinItsTtl() {
    idle.create("x", 1); // its last request; from now on only keep-alives (every TTL / 3)

    SessionInfo shown =
        await()
            .atMost(Duration.ofSeconds(20))
            .until(this::idleSession, s -> s.sinceLastRequest().compareTo(TTL) > 0);

    assertThat(shown.sinceHeard()).isNotNull().isLessThan(TTL);
  }

  @Test
  void theAdminSessionsListShowsWhenEachSessionWasLastHeardFrom() throws Exception {
    idle.create("x", 1);
    long ttlMillis = TTL.toMillis();

    JsonNode shown =
        await()
            .atMost(Duration.ofSeconds(20))
            .until(
                this::idleSessionFromAdmin,
                s -> s.get("sinceLastRequestMillis").asLong() > ttlMillis);

    assertThat(shown.get("sinceHeardMillis")).isNotNull();
    assertThat(shown.get("sinceHeardMillis").isNumber()).isTrue();
    assertThat(shown.get("sinceHeardMillis").asLong()).isLessThan(ttlMillis);
  }

  private SessionInfo idleSession() {
    return observer.sessions().stream()
        .filter(s -> s.sessionId() == idle.sessionId())
        .findFirst()
        .orElseThrow();
  }

  private JsonNode idleSessionFromAdmin() throws Exception {
    InetSocketAddress admin = Objects.requireNonNull(server.adminAddress());
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + admin.getPort() + "/sessions"))
                    .timeout(Duration.ofSeconds(10))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    for (JsonNode s : new ObjectMapper().readTree(response.body()).get("sessions")) {
      if (s.get("sessionId").asLong() == idle.sessionId()) {
        return s;
      }
    }
    throw new AssertionError("no session " + idle.sessionId() + " in " + response.body());
  }
}
