package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaforClient;
import io.semafor.it.faults.SnapshotFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a node does with its snapshots on disk. A snapshot whose bytes were damaged (a bad disk, a
 * flipped bit) used to be loaded as if whole: the digest check compared the {@code .md5} file with
 * itself (Ratis's {@code MD5FileUtil.verifySavedMD5}), so the node could serve a state different
 * from the other members' without anyone knowing. Now it refuses to start and says what to do; the
 * remedy it names (replace the member) brings it back with the cluster's state. And a node keeps
 * only its newest snapshots: Ratis kept every one, each the whole state, without end.
 */
@Timeout(120)
class CorruptSnapshotTest {
  @TempDir Path dir;

  @Test
  void aNodeWhoseLatestSnapshotIsCorruptRefusesToStartAndSaysWhatToDo() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, dir, 50, TestCluster.SMALL_LOG_SEGMENTS);
        SemaforClient client = cluster.client(Duration.ofSeconds(30))) {
      NamedSemaphore counter = client.create("counter", 0);
      for (int i = 0; i < 300; i++) {
        counter.increment(1);
      }
      int follower = (cluster.awaitLeader() + 1) % 3;
      cluster.stopNode(follower);
      SnapshotFiles.flipOneByte(newestSnapshot(cluster.dataDir(follower)));

      assertThatThrownBy(() -> cluster.startNode(follower))
          .rootCause()
          .hasMessageContaining("is corrupt")
          .hasMessageContaining("semafor cluster remove");
      counter.increment(1); // the other two serve on
      assertThat(counter.value()).isEqualTo(301);
    }
  }

  @Test
  void aMemberReplacedAfterItsSnapshotWasCorruptedServesTheClustersState() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, dir, 50, TestCluster.SMALL_LOG_SEGMENTS);
        SemaforClient client = cluster.client(Duration.ofSeconds(30))) {
      NamedSemaphore counter = client.create("counter", 0);
      for (int i = 0; i < 300; i++) {
        counter.increment(1);
      }
      int broken = (cluster.awaitLeader() + 1) % 3;
      cluster.stopNode(broken);
      SnapshotFiles.flipOneByte(newestSnapshot(cluster.dataDir(broken)));

      // the remedy the error names: remove the member, and add a new one with an empty directory
      int leader = cluster.awaitLeader();
      assertThat(cluster.replicator(leader).removeMember(cluster.id(broken))).hasSize(2);
      int added = cluster.startJoiningNode();
      cluster.replicator(cluster.awaitLeader()).addMember(cluster.memberText(added));
      for (int i = 0; i < 100; i++) {
        counter.increment(1);
      }

      long commit = cluster.statusNumber(cluster.awaitLeader(), "commitIndex");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> cluster.statusNumber(added, "appliedIndex") >= commit);
      int newLeader = cluster.awaitLeader();
      cluster.transferLeadership(newLeader, added);
      assertThat(counter.value()).isEqualTo(400);
    }
  }

  @Test
  void aNodeKeepsOnlyItsTwoNewestSnapshots() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, dir, 50, TestCluster.SMALL_LOG_SEGMENTS);
        SemaforClient client = cluster.client(Duration.ofSeconds(30))) {
      NamedSemaphore counter = client.create("counter", 0);
      for (int i = 0; i < 500; i++) { // ten snapshots' worth
        counter.increment(1);
      }
      for (int n = 0; n < 3; n++) {
        Path data = cluster.dataDir(n);
        await()
            .atMost(Duration.ofSeconds(20))
            .untilAsserted(() -> assertThat(snapshots(data)).hasSizeBetween(1, 2));
      }
    }
  }

  private static List<Path> snapshots(Path dataDir) throws IOException {
    return SnapshotFiles.all(dataDir);
  }

  private static Path newestSnapshot(Path dataDir) throws IOException {
    return SnapshotFiles.newestFinished(dataDir)
        .orElseThrow(() -> new AssertionError("no snapshot in " + dataDir));
  }
}
