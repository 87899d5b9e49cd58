package io.semafor.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.cli.CliProcess.Finished;
import io.semafor.client.Permit;
import io.semafor.client.SemaforClient;
import io.semafor.embedded.EmbeddedSemafor;
import io.semafor.embedded.FreePorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code semafor snapshot save|status|restore} and {@code semafor server --restore} as a user runs
 * them: separate processes, a real server on 127.0.0.1.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SnapshotCliTest {
  @TempDir Path dir = Path.of("unset"); // JUnit sets it before each test

  private final EmbeddedSemafor semafor = EmbeddedSemafor.start();
  private final List<Process> started = new ArrayList<>();

  @AfterEach
  void stop() throws InterruptedException {
    for (Process p : started) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
    semafor.close();
  }

  @Test
  void saveWritesAVerifiedFileThatSeedsANodeAndASingleServer() throws Exception {
    SemaforClient client = semafor.client();
    client.create("printers", 3);
    client.create("gpus", 8);
    Permit held = client.semaphore("printers").acquirePermit(2);
    assertThat(held.amount()).isEqualTo(2);
    Path file = dir.resolve("backup.snap");

    Finished save =
        CliProcess.runRaw("snapshot", "save", file.toString(), "--server", semafor.address());
    assertThat(save.status()).as(save.err()).isZero();
    assertThat(save.out()).startsWith("saved 2 semaphores, ").contains("single node");
    assertThat(file).exists();
    assertThat(dir.resolve("backup.snap.part")).doesNotExist();

    Finished status = CliProcess.runRaw("snapshot", "status", file.toString(), "--json");
    assertThat(status.status()).isZero();
    assertThat(status.out()).contains("\"semaphores\":2").contains("\"index\":-1");

    // a Ratis cluster node seeded from it (a cluster of one, as processes) serves the saved state
    int clientPort = freePort();
    String peers = "n1=127.0.0.1:" + clientPort + ":" + freePort();
    Path data = dir.resolve("n1");
    Finished restore =
        CliProcess.runRaw(
            "snapshot",
            "restore",
            file.toString(),
            "--data-dir",
            data.toString(),
            "--node-id",
            "n1",
            "--peers",
            peers,
            "--replicator",
            "ratis");
    assertThat(restore.status()).as(restore.err()).isZero();
    // contains: without the jar's logback.xml, the test classpath logs Ratis on stdout too
    assertThat(restore.out()).contains("restored 2 semaphores, 1 session (single node)");
    Finished again =
        CliProcess.runRaw(
            "snapshot",
            "restore",
            file.toString(),
            "--data-dir",
            data.toString(),
            "--replicator",
            "ratis");
    assertThat(again.status()).isEqualTo(1);
    assertThat(again.err().strip()).contains("is not empty").doesNotContain("\n");

    start(
        "server",
        "--replicator",
        "ratis",
        "--node-id",
        "n1",
        "--peers",
        peers,
        "--data-dir",
        data.toString(),
        "--http-port",
        "-1",
        "--admin-port",
        "-1");
    assertValues("127.0.0.1:" + clientPort);

    int port = freePort();
    start(
        "server",
        "--restore",
        file.toString(),
        "--port",
        String.valueOf(port),
        "--http-port",
        "-1",
        "--admin-port",
        "-1");
    assertValues("127.0.0.1:" + port);
  }

  @Test
  void aBackupSeedsAClusterOnTheDefaultMicroRaftReplicator() throws Exception {
    SemaforClient client = semafor.client();
    client.create("printers", 3);
    client.create("gpus", 8);
    assertThat(client.semaphore("printers").acquirePermit(2).amount()).isEqualTo(2);
    Path file = dir.resolve("backup.snap");
    Finished save =
        CliProcess.runRaw("snapshot", "save", file.toString(), "--server", semafor.address());
    assertThat(save.status()).as(save.err()).isZero();
    int[] clientPorts = {freePort(), freePort(), freePort()};
    String peers =
        "n1=127.0.0.1:"
            + clientPorts[0]
            + ":"
            + freePort()
            + ",n2=127.0.0.1:"
            + clientPorts[1]
            + ":"
            + freePort()
            + ",n3=127.0.0.1:"
            + clientPorts[2]
            + ":"
            + freePort();
    Finished withoutPeers =
        CliProcess.runRaw(
            "snapshot", "restore", file.toString(), "--data-dir", dir.resolve("x").toString());
    assertThat(withoutPeers.status()).isEqualTo(2);
    assertThat(withoutPeers.err()).contains("--node-id and --peers: the microraft replicator");

    for (String id : List.of("n1", "n2", "n3")) {
      Finished restore =
          CliProcess.runRaw(
              "snapshot",
              "restore",
              file.toString(),
              "--data-dir",
              dir.resolve(id).toString(),
              "--node-id",
              id,
              "--peers",
              peers);
      assertThat(restore.status()).as(restore.err()).isZero();
      assertThat(restore.out())
          .contains("restored 2 semaphores, 1 session (single node)")
          .contains("start it with: semafor server --node-id " + id);
    }
    for (String id : List.of("n1", "n2", "n3")) {
      start(
          "server",
          "--node-id",
          id,
          "--peers",
          peers,
          "--data-dir",
          dir.resolve(id).toString(),
          "--http-port",
          "-1",
          "--admin-port",
          "-1");
    }
    assertValues(
        "127.0.0.1:"
            + clientPorts[0]
            + ",127.0.0.1:"
            + clientPorts[1]
            + ",127.0.0.1:"
            + clientPorts[2]);
  }

  @Test
  void aTruncatedOrDamagedFileIsRefusedInOneLine() throws Exception {
    semafor.client().create("x", 1);
    Path file = dir.resolve("good.snap");
    assertThat(
            CliProcess.runRaw("snapshot", "save", file.toString(), "--server", semafor.address())
                .status())
        .isZero();
    byte[] whole = Files.readAllBytes(file);
    Path truncated = dir.resolve("truncated.snap");
    Files.write(truncated, Arrays.copyOf(whole, whole.length - 10));
    Path damaged = dir.resolve("damaged.snap");
    byte[] changed = whole.clone();
    changed[changed.length - 3] ^= 1;
    Files.write(damaged, changed);

    for (String[] args :
        List.of(
            new String[] {"snapshot", "status", truncated.toString()},
            new String[] {
              "snapshot",
              "restore",
              truncated.toString(),
              "--data-dir",
              dir.resolve("d1").toString(),
              "--replicator",
              "ratis"
            },
            new String[] {
              "snapshot",
              "restore",
              damaged.toString(),
              "--data-dir",
              dir.resolve("d2").toString(),
              "--replicator",
              "ratis"
            },
            new String[] {"server", "--restore", damaged.toString(), "--port", "0"},
            new String[] {"snapshot", "status", dir.resolve("missing.snap").toString()})) {
      Finished f = CliProcess.runRaw(args);
      assertThat(f.status()).as(String.join(" ", args)).isEqualTo(1);
      assertThat(f.err().strip())
          .as(String.join(" ", args))
          .startsWith("semafor: ")
          .containsPattern("truncated|damaged|no such file")
          .doesNotContain("\n")
          .doesNotContain("Exception");
    }
    assertThat(dir.resolve("d1")).doesNotExist();
    assertThat(dir.resolve("d2")).doesNotExist();
  }

  @Test
  void saveWithNoServerExitsThree() throws Exception {
    Finished f =
        CliProcess.runRaw(
            "snapshot",
            "save",
            dir.resolve("x.snap").toString(),
            "--server",
            "127.0.0.1:" + freePort());
    assertThat(f.status()).isEqualTo(3);
    assertThat(dir.resolve("x.snap")).doesNotExist();
    assertThat(dir.resolve("x.snap.part")).doesNotExist();
  }

  private void start(String... args) throws IOException {
    started.add(CliProcess.startRaw(dir.resolve("server-" + started.size() + ".log"), args));
  }

  /** The restored server answers with the saved values: 2 of 3 printers held by the old session. */
  private static void assertValues(String address) {
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(
            () -> {
              try (SemaforClient c =
                  SemaforClient.builder()
                      .addresses(address)
                      .connectTimeout(Duration.ofSeconds(2))
                      .giveUpAfter(Duration.ofSeconds(5))
                      .connect()) {
                return c.semaphore("printers").value() == 1 && c.semaphore("gpus").value() == 8;
              }
            });
  }

  private static int freePort() {
    return FreePorts.next();
  }
}
