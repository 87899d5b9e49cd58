package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.Permit;
import io.semafor.client.SemaforClient;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server process itself stopped (SIGSTOP, as a long GC or a suspended VM stops it) for longer
 * than a client's session TTL while the client kept sending keep-alives: on resume the session is
 * still there, with what it owns (docs/semantics.md#pauses). Several clients, since on resume the
 * timer thread and the event loops race: each client is one more chance to lose it.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ServerPauseTest {
  private static final Duration TTL = Duration.ofSeconds(2);
  private static final int HOLDERS = 8;

  private Process server;
  private String address = "";

  @BeforeEach
  void startServer() throws Exception {
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    server =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-cp",
                classpath,
                ServerProcess.class.getName(),
                "100")
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine();
    assertThat(line).as("server process started").startsWith("LISTENING ");
    address = "127.0.0.1:" + line.substring("LISTENING ".length()).trim();
  }

  @AfterEach
  void stopServer() throws Exception {
    if (server.isAlive()) {
      signal("CONT");
      server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  private void signal(String name) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(server.pid())).start();
    assertThat(kill.waitFor(5, TimeUnit.SECONDS)).isTrue();
    assertThat(kill.exitValue()).isZero();
  }

  private SemaforClient client() {
    return SemaforClient.builder()
        .addresses(address)
        .sessionTtl(TTL)
        .answerTimeout(Duration.ofSeconds(30))
        .giveUpAfter(Duration.ofSeconds(30))
        .connect();
  }

  @Test
  void aServerPausedPastTheTtlKeepsTheSessionsOfClientsThatKeptSending() throws Exception {
    List<SemaforClient> holders = new ArrayList<>();
    try (SemaforClient watcher = client()) {
      NamedSemaphore watched = watcher.create("pool", HOLDERS);
      AtomicInteger lost = new AtomicInteger();
      List<Permit> permits = new ArrayList<>();
      List<Long> sessions = new ArrayList<>();
      for (int i = 0; i < HOLDERS; i++) {
        SemaforClient holder = client();
        holders.add(holder);
        holder.onSessionLost(lost::incrementAndGet);
        permits.add(holder.semaphore("pool").acquirePermit(1));
        sessions.add(holder.sessionId());
      }

      signal("STOP");
      Thread.sleep(TTL.plusSeconds(1).toMillis()); // the pause itself: the fault being injected
      signal("CONT");

      await()
          .during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(50))
          .until(watched::value, v -> v == 0);
      assertThat(lost).as("session-lost reports").hasValue(0);
      for (int i = 0; i < HOLDERS; i++) {
        assertThat(holders.get(i).sessionId()).isEqualTo(sessions.get(i));
        permits.get(i).release(); // still owned: releasing what a session does not own fails
      }
      assertThat(watched.value()).isEqualTo(HOLDERS);
    } finally {
      for (SemaforClient holder : holders) {
        holder.close();
      }
    }
  }
}
