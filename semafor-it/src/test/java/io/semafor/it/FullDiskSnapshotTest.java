package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaforClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower whose disk fills while it takes snapshots starts again once the disk has room. Its
 * snapshot used to be written in place, so a write that failed left a truncated file under the
 * snapshot's name, which the next start took for the latest snapshot and could not read
 * (EOFException: the node never started again; found by the fault harness's DISK_FULL).
 */
@Timeout(120)
class FullDiskSnapshotTest {
  @TempDir Path dir;

  private final List<Path> mounted = new ArrayList<>();

  @Test
  void aFollowerWhoseSnapshotsFailedOnAFullDiskStartsAgainAndCatchesUp() throws Exception {
    Assumptions.assumeTrue(
        "root".equals(System.getProperty("user.name"))
            && Files.isExecutable(Path.of("/usr/bin/fallocate")),
        "needs root (tmpfs) and fallocate to fill a disk");
    try (TestCluster cluster = TestCluster.create(3, dir, 50)) {
      for (int i = 0; i < 3; i++) {
        mountSmallDisk(cluster.dataDir(i)); // a disk of its own for each node, to fill one
      }
      cluster.startAll();
      try (SemaforClient client = cluster.client(Duration.ofSeconds(30))) {
        NamedSemaphore counter = client.semaphore("counter");
        counter.create(0);
        int follower = (cluster.awaitLeader() + 1) % 3;
        Path filler = cluster.dataDir(follower).resolve("filler");
        run("sh", "-c", "fallocate -l 16m " + filler + " 2>/dev/null; true");
        run("sh", "-c", "dd if=/dev/zero of=" + filler + ".tail bs=4k 2>/dev/null; true");
        long added = 0;
        for (int i = 0; i < 300; i++) { // several snapshots' worth: each fails on the follower
          counter.increment(1);
          added++;
        }
        cluster.stopNode(follower);
        Files.delete(filler);
        Files.delete(Path.of(filler + ".tail"));

        cluster.startNode(follower);

        long commit = cluster.statusNumber(cluster.awaitLeader(), "commitIndex");
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> cluster.statusNumber(follower, "appliedIndex") >= commit);
        assertThat(counter.value()).isEqualTo(added);
      }
    } finally {
      for (Path p : mounted) {
        run("umount", "-l", p.toString());
      }
    }
  }

  private void mountSmallDisk(Path p) throws IOException, InterruptedException {
    Files.createDirectories(p);
    run("mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", p.toString());
    mounted.add(p);
  }

  private static void run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).as(String.join(" ", command)).isTrue();
    assertThat(p.exitValue()).as(String.join(" ", command)).isZero();
  }
}
