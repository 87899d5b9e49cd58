package io.semafor.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.semafor.cli.CliProcess.Finished;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code semafor server --data-dir DIR} alone, as a user runs it: a durable single node (a
 * one-member MicroRaft cluster at {@code --port}, its Raft port {@code --port + 100}) that comes
 * back from DIR after SIGKILL with its state, and refuses a start that implies another member.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS) // a hung server must fail, not stall CI
class DurableSingleNodeCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private @Nullable Process server;

  @AfterEach
  void stopServer() throws InterruptedException {
    kill();
  }

  private void kill() throws InterruptedException {
    Process p = server;
    if (p != null) {
      p.destroyForcibly(); // SIGKILL: nothing flushed on the way out
      assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
      server = null;
    }
  }

  private void start(Path dir, int port) throws IOException {
    start(dir, port, -1);
  }

  private void start(Path dir, int port, int adminPort) throws IOException {
    server =
        CliProcess.startRaw(
            dir.resolve("server-" + System.nanoTime() + ".log"),
            "server",
            "--data-dir",
            dir.resolve("data").toString(),
            "--port",
            Integer.toString(port),
            "--http-port=-1",
            "--admin-port=" + adminPort);
  }

  /**
   * Runs a client command until the server answers it (60 s), then returns how it ended; fails at
   * once if the server exited.
   */
  private Finished whenServing(int port, String... args) {
    return await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(300))
        .until(
            () -> {
              Process p = server;
              if (p != null && !p.isAlive()) {
                throw new AssertionError("the server exited with status " + p.exitValue());
              }
              return CliProcess.run("127.0.0.1:" + port, args);
            },
            f -> f.status() != ExitCodes.UNREACHABLE);
  }

  @Test
  void aDataDirAloneKeepsTheStateAcrossAKillAndARestart(@TempDir Path dir) throws Exception {
    int port = portWithRaftPortFree();
    start(dir, port);
    Finished created = whenServing(port, "create", "jobs", "3");
    assertThat(created.status()).as(created.err()).isZero();
    assertThat(CliProcess.run("127.0.0.1:" + port, "inc", "jobs", "4").out()).isEqualTo("7");
    kill();

    start(dir, port);
    Finished read = whenServing(port, "get", "jobs");
    assertThat(read.status()).as(read.err()).isZero();
    assertThat(read.out()).isEqualTo("7");
  }

  @Test
  void aDurableSingleNodeIsAOneMemberClusterWithFsyncDurability(@TempDir Path dir)
      throws Exception {
    int port = portWithRaftPortFree();
    int admin = port + 1;
    start(dir, port, admin);
    whenServing(port, "get", "x");
    Finished status =
        CliProcess.runRaw("cluster", "status", "--admin", "127.0.0.1:" + admin, "--json");
    JsonNode member = JSON.readTree(status.out()).get("members").get(0);
    assertThat(member.path("node").asText()).isEqualTo("n1");
    assertThat(member.path("role").asText()).isEqualTo("leader");
    assertThat(member.path("replicator").asText()).isEqualTo("microraft");
    assertThat(member.path("durability").asText()).isEqualTo("fsync");
    assertThat(member.path("members").asText()).isEqualTo("n1");
  }

  @Test
  void aStartThatImpliesAnotherAddressIsRefusedAndTheStateIsKept(@TempDir Path dir)
      throws Exception {
    int port = portWithRaftPortFree();
    start(dir, port);
    assertThat(whenServing(port, "create", "jobs", "3").status()).isZero();
    kill();

    int other = portWithRaftPortFree();
    Finished refused =
        CliProcess.runRaw(
            "server",
            "--data-dir",
            dir.resolve("data").toString(),
            "--port",
            Integer.toString(other),
            "--http-port=-1",
            "--admin-port=-1");
    assertThat(refused.status()).isEqualTo(ExitCodes.FAILED);
    assertThat(refused.err())
        .contains("holds the log of member n1=127.0.0.1:" + port + ":" + (port + 100))
        .contains("not n1=127.0.0.1:" + other + ":" + (other + 100))
        .contains("--port")
        .doesNotContain("Exception");

    start(dir, port);
    assertThat(whenServing(port, "get", "jobs").out()).isEqualTo("3");
  }

  @Test
  void aDataDirWithPortZeroIsRefusedNamingThePort(@TempDir Path dir) throws Exception {
    Finished refused =
        CliProcess.runRaw("server", "--data-dir", dir.resolve("data").toString(), "--port", "0");
    assertThat(refused.status()).isEqualTo(ExitCodes.USAGE);
    assertThat(refused.err()).contains("--port 0: ").contains("fixed --port");
    assertThat(dir.resolve("data")).doesNotExist();
  }

  /** A free port whose Raft port (+100) and admin port (+1) are free too (50 tries). */
  private static int portWithRaftPortFree() throws IOException {
    for (int i = 0; i < 50; i++) {
      int port;
      try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        port = s.getLocalPort();
      }
      if (port + 100 <= 65535 && free(port + 100) && free(port + 1)) {
        return port;
      }
    }
    throw new IllegalStateException("no free port with its +1 and +100 free in 50 tries");
  }

  private static boolean free(int port) {
    try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return s.isBound();
    } catch (IOException e) {
      return false;
    }
  }
}
