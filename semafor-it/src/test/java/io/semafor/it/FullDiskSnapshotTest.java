package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaforClient;
import io.semafor.it.faults.NodeDisk;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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

  private final List<NodeDisk> disks = new ArrayList<>();

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
        disks.get(follower).fill();
        long added = 0;
        for (int i = 0; i < 300; i++) { // several snapshots' worth: each fails on the follower
          counter.increment(1);
          added++;
        }
        cluster.stopNode(follower);
        disks.get(follower).unfill();

        cluster.startNode(follower);

        long commit = cluster.statusNumber(cluster.awaitLeader(), "commitIndex");
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> cluster.statusNumber(follower, "appliedIndex") >= commit);
        assertThat(counter.value()).isEqualTo(added);
      }
    } finally {
      for (NodeDisk d : disks) {
        d.close();
      }
    }
  }

  private void mountSmallDisk(Path p) {
    NodeDisk disk = new NodeDisk(p);
    disk.mount();
    disks.add(disk);
  }
}
