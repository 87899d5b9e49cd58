package io.semafor.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.semafor.client.SemaforClient;
import io.semafor.embedded.EmbeddedSemafor;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code semafor session list|end} as an operator runs them: see which process holds what, and free
 * a dead holder's permits without waiting out its TTL (the hazelcast #16810 situation).
 */
class SessionCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final EmbeddedSemafor semafor = EmbeddedSemafor.start();
  private final SemaforClient client = semafor.client();
  private final String server = semafor.address();
  private Process holder = new ProcessBuilder("true").inheritIO().start();

  SessionCommandTest() throws java.io.IOException {}

  @AfterEach
  void stop() throws InterruptedException {
    holder.destroyForcibly();
    holder.waitFor(10, TimeUnit.SECONDS);
    semafor.close();
  }

  /** Starts {@code semafor acquire NAME --hold} with a long TTL; returns once it holds. */
  private Process holdWithLongTtl(String name) throws Exception {
    return hold(name, "300s");
  }

  /** Starts {@code semafor acquire NAME --hold --session-ttl TTL}; returns once it holds. */
  private Process hold(String name, String ttl) throws Exception {
    Process p = CliProcess.start(server, "acquire", name, "--hold", "--session-ttl", ttl);
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine();
    assertThat(line).startsWith("holding 1 of " + name);
    return p;
  }

  private JsonNode sessionOf(long pid) throws Exception {
    JsonNode sessions =
        JSON.readTree(CliProcess.runRaw("session", "list", "--json", "--server", server).out());
    for (JsonNode s : sessions.get("sessions")) {
      if (s.get("client").get("pid").asLong() == pid) {
        return s;
      }
    }
    throw new AssertionError("no session of pid " + pid + " in " + sessions);
  }

  @Test
  void sessionListShowsEachSessionsClientNameHostPidAndHoldings() throws Exception {
    client.create("printers", 1);
    holder = holdWithLongTtl("printers");

    JsonNode session = sessionOf(holder.pid());

    assertThat(session.get("client").get("name").asText()).isEqualTo("semafor-cli");
    assertThat(session.get("client").get("host").asText())
        .isEqualTo(io.semafor.client.internal.LocalHost.name());
    assertThat(session.get("ttlMillis").asLong()).isEqualTo(300_000);
    assertThat(session.get("holdings").asInt()).isEqualTo(1);
    CliProcess.Finished table = CliProcess.runRaw("session", "list", "--server", server);
    assertThat(table.out().lines().findFirst().orElseThrow().split(" +"))
        .containsExactly(
            "SESSION", "CLIENT", "HOST", "PID", "TTL", "AGE", "IDLE", "HEARD", "HOLDS", "WAITING");
    assertThat(table.out())
        .containsPattern(
            "(?m)^ *"
                + session.get("sessionId").asLong()
                + "  semafor-cli .* "
                + holder.pid()
                + " ");
  }

  @Test
  void sessionListShowsAnIdleHolderKeptAliveAsHeardFromWithinItsTtl() throws Exception {
    client.create("printers", 1);
    holder = hold("printers", "3s"); // from now on only keep-alives, one a second

    JsonNode session =
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> sessionOf(holder.pid()),
                s -> s.get("sinceLastRequestMillis").asLong() > 3_000);

    assertThat(session.has("sinceHeardMillis")).as("%s", session).isTrue();
    assertThat(session.get("sinceHeardMillis").asLong()).isLessThan(3_000);
  }

  @Test
  void sessionEndGivesADeadHoldersPermitsBackAtOnce() throws Exception {
    client.create("printers", 1);
    holder = holdWithLongTtl("printers");
    long sessionId = sessionOf(holder.pid()).get("sessionId").asLong();
    holder.destroyForcibly(); // kill -9: its session would keep the permit for 300 s
    assertThat(holder.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(client.semaphore("printers").value()).isZero();

    CliProcess.Finished end =
        CliProcess.runRaw("session", "end", Long.toString(sessionId), "--server", server);

    assertThat(end.status()).isZero();
    assertThat(end.out()).isEqualTo("ended session " + sessionId);
    assertThat(client.semaphore("printers").value()).isEqualTo(1);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> client.sessions().stream().noneMatch(s -> s.sessionId() == sessionId));
  }

  @Test
  void endingASessionThatDoesNotExistExitsOneNamingNotFound() throws Exception {
    CliProcess.Finished end = CliProcess.runRaw("session", "end", "987654", "--server", server);
    assertThat(end.status()).isEqualTo(1);
    assertThat(end.err())
        .isEqualTo("semafor: NOT_FOUND: sessionId: session 987654 does not exist or has ended");
  }
}
