package io.semafor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.cli.CliProcess.Finished;
import io.semafor.embedded.FreePorts;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code semafor server} as a cluster node refusing to start, as a process: options that do not fit
 * (an election range, a Raft property, a replicator nobody provides) are usage errors naming the
 * option, exit 2, with nothing started; damaged data (a Ratis snapshot, a MicroRaft log) is one
 * line and exit 65. No server runs beside these tests.
 */
class ClusterNodeStartupTest {
  @Test
  void aClusterNodeWhoseSnapshotIsDamagedSaysSoInOneLineAndExitsWith65(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path data) throws Exception {
    java.nio.file.Path sm = data.resolve("5e3af0a0-0000-4000-8000-5e3af0a00001").resolve("sm");
    java.nio.file.Files.createDirectories(sm);
    java.nio.file.Path snapshot = sm.resolve("snapshot.1_5");
    java.nio.file.Files.writeString(snapshot, "the state as it was written");
    org.apache.ratis.util.MD5FileUtil.computeAndSaveMd5ForFile(snapshot.toFile());
    java.nio.file.Files.writeString(snapshot, "the state as the disk gives it back");

    Finished f =
        CliProcess.runRaw(
            "server",
            "--replicator",
            "ratis",
            "--node-id",
            "n1",
            "--peers",
            "n1=127.0.0.1:1:2",
            "--data-dir",
            data.toString(),
            "--http-port",
            "-1",
            "--admin-port",
            "-1");

    assertThat(f.status()).isEqualTo(65);
    assertThat(f.err().strip().lines())
        .singleElement()
        .asString()
        .startsWith("semafor server: the snapshot " + snapshot + " is corrupt")
        .contains("semafor cluster remove");
  }

  @Test
  void aClusterNodeWithABadElectionTimeoutIsAUsageErrorNamingTheOption(@TempDir Path dir)
      throws Exception {
    Finished bad =
        CliProcess.runRaw(
            "server",
            "--node-id",
            "n1",
            "--peers",
            "n1=127.0.0.1:1:2",
            "--data-dir",
            dir.resolve("n1").toString(),
            "--election-timeout",
            "1s");
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err()).contains("--election-timeout");
    assertThat(dir.resolve("n1")).doesNotExist(); // nothing was started
  }

  @Test
  void aClusterNodeWithAMistypedRaftPropertyIsAUsageErrorNamingTheKey(@TempDir Path dir)
      throws Exception {
    Finished bad =
        CliProcess.runRaw(
            "server",
            "--replicator",
            "ratis",
            "--node-id",
            "n1",
            "--peers",
            "n1=127.0.0.1:1:2",
            "--data-dir",
            dir.resolve("n1").toString(),
            "--raft-property",
            "raft.server.log.appender.wait-time.mn=0ms");
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err())
        .contains(
            "--raft-property raft.server.log.appender.wait-time.mn is not a property of Ratis")
        .doesNotContain("Exception");
    assertThat(dir.resolve("n1")).doesNotExist();
  }

  @Test
  void aRaftPropertyThatAnotherOptionSetsIsRefusedNamingThatOption(@TempDir Path dir)
      throws Exception {
    Finished bad =
        CliProcess.runRaw(
            "server",
            "--replicator",
            "ratis",
            "--node-id",
            "n1",
            "--peers",
            "n1=127.0.0.1:1:2",
            "--data-dir",
            dir.resolve("n1").toString(),
            "--raft-property",
            "raft.server.storage.dir=" + dir.resolve("elsewhere"));
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err())
        .contains("raft.server.storage.dir cannot be set here: --data-dir sets it");
    assertThat(dir.resolve("n1")).doesNotExist();
    assertThat(dir.resolve("elsewhere")).doesNotExist();
  }

  @Test
  void aClusterNodeWithAnUnknownMicroRaftPropertyIsAUsageErrorNamingTheKey(@TempDir Path dir)
      throws Exception {
    Finished bad =
        CliProcess.runRaw(
            "server",
            "--node-id",
            "n1",
            "--peers",
            "n1=127.0.0.1:1:2",
            "--data-dir",
            dir.resolve("n1").toString(),
            "--raft-property",
            "microraft.entries-in-flite=2");
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err())
        .contains(
            "--raft-property microraft.entries-in-flite is not a MicroRaft replicator property")
        .doesNotContain("Exception");
    assertThat(dir.resolve("n1")).doesNotExist();
  }

  @Test
  void aReplicatorNobodyProvidesIsAUsageErrorNamingTheOnesThereAre(@TempDir Path dir)
      throws Exception {
    Finished bad =
        CliProcess.runRaw(
            "server",
            "--replicator",
            "zab",
            "--node-id",
            "n1",
            "--peers",
            "n1=127.0.0.1:1:2",
            "--data-dir",
            dir.resolve("n1").toString());
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err())
        .contains("--replicator: 'zab' is none of microraft, ratis")
        .doesNotContain("Exception");
    assertThat(dir.resolve("n1")).doesNotExist();
  }

  @Test
  void aReplicatorIsNamedInAnyCase(@TempDir Path dir) throws Exception {
    Finished bad =
        CliProcess.runRaw(
            "server",
            "--replicator",
            "RATIS",
            "--node-id",
            "n1",
            "--peers",
            "n1=127.0.0.1:1:2",
            "--data-dir",
            dir.resolve("n1").toString(),
            "--raft-property",
            "microraft.snapshot-every=10");
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err()).contains("--raft-property microraft.snapshot-every is not a property of");
  }

  @Test
  void aClusterNodeWhoseMicroRaftLogIsDamagedSaysSoInOneLineAndExitsWith65(@TempDir Path dir)
      throws Exception {
    Path data = dir.resolve("n1");
    String peers = "n1=127.0.0.1:" + freePort() + ":" + freePort();
    Path backup = dir.resolve("empty.snap");
    io.semafor.replication.SnapshotFile.Image empty =
        io.semafor.replication.SnapshotFile.take(
            new io.semafor.core.SemaphoreMachine(), -1, -1, System.currentTimeMillis());
    java.nio.file.Files.write(backup, java.util.Arrays.copyOf(empty.bytes(), empty.length()));
    Finished seeded =
        CliProcess.runRaw(
            "snapshot",
            "restore",
            backup.toString(),
            "--data-dir",
            data.toString(),
            "--node-id",
            "n1",
            "--peers",
            peers);
    assertThat(seeded.status()).as(seeded.err()).isZero();
    Path segment;
    try (var files = java.nio.file.Files.list(data.resolve("microraft"))) {
      segment = files.filter(p -> p.toString().endsWith(".seg")).findFirst().orElseThrow();
    }
    byte[] bytes = java.nio.file.Files.readAllBytes(segment);
    bytes[10] ^= 0x10; // inside the first record: whole records follow it, so not a torn write
    java.nio.file.Files.write(segment, bytes);

    Finished f =
        CliProcess.runRaw(
            "server",
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

    assertThat(f.status()).isEqualTo(65);
    assertThat(f.err().strip().lines())
        .singleElement()
        .asString()
        .startsWith("semafor server: the MicroRaft log ")
        .contains("is damaged")
        .contains("semafor cluster remove");
  }

  @Test
  void aRaftPropertyOnASingleNodeIsAUsageError() throws Exception {
    Finished bad =
        CliProcess.runRaw(
            "server",
            "--port",
            "1",
            "--raft-property",
            "raft.server.log.appender.wait-time.min=0ms");
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err()).contains("--raft-property: only a cluster node");
  }

  private static int freePort() {
    return FreePorts.next();
  }
}
