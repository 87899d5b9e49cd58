package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaforClient;
import io.semafor.it.faults.SnapshotFiles;
import io.semafor.it.faults.TornTail;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node whose log ends in a torn record, as a power cut leaves it, starts again: the part record
 * is cut off (it was never acknowledged: a record is synced, or replicated, before it counts), and
 * the node catches up from the leader. With Ratis's default corruption policy it never started
 * again ("Failed to initRaftLog": found by the fault harness, decision 0031).
 */
@Timeout(120)
class TornLogTailTest {
  @TempDir Path dir;

  @Test
  void aNodeWhoseLogEndsInATornRecordRestartsAndCatchesUp() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, dir, 100_000);
        SemaforClient client = cluster.client(Duration.ofSeconds(30))) {
      NamedSemaphore counter = fiftyIncrements(client);
      int leader = cluster.awaitLeader();
      int victim = (leader + 1) % 3;
      stopOnceCaughtUp(cluster, leader, victim);
      Optional<Path> torn = TornTail.tear(cluster.dataDir(victim), new Random(31), 64);
      assertThat(torn).as("the victim's open log segment").isPresent();
      for (int i = 0; i < 50; i++) {
        counter.increment(1);
      }

      cluster.startNode(victim);

      long commit = cluster.statusNumber(cluster.awaitLeader(), "commitIndex");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> cluster.statusNumber(victim, "appliedIndex") >= commit);
      assertThat(counter.value()).isEqualTo(100);
    }
  }

  /**
   * The records lost here were acknowledged, as a machine crash takes them from a follower in
   * {@code REPLICATED} mode: the leader has them recorded as on the follower. With no new writes to
   * carry the follower forward, Ratis kept sending from past its last entry and the follower stayed
   * behind for good (found by the fault harness; decision 0036).
   */
  @Test
  void aFollowerThatLostEntriesItAcknowledgedIsSentThemAgainWithoutNewWrites() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, dir, 100_000);
        SemaforClient client = cluster.client(Duration.ofSeconds(30))) {
      NamedSemaphore counter = fiftyIncrements(client);
      int leader = cluster.awaitLeader();
      int victim = (leader + 1) % 3;
      long commit = stopOnceCaughtUp(cluster, leader, victim);
      // as after a crash: no snapshot taken at the stop (Ratis takes one when a node stops)
      for (Path snapshot : SnapshotFiles.all(cluster.dataDir(victim))) {
        Files.delete(snapshot);
        Files.deleteIfExists(snapshot.resolveSibling(snapshot.getFileName() + ".md5"));
      }
      assertThat(TornTail.loseLastRecords(cluster.dataDir(victim), 3)).isEqualTo(3);

      cluster.startNode(victim);

      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> cluster.statusNumber(victim, "appliedIndex") >= commit);
      // a new leader would have started with no record of the follower, and no bug to show
      assertThat(cluster.awaitLeader()).as("the leader all along").isEqualTo(leader);
      assertThat(counter.value()).isEqualTo(50);
    }
  }

  /**
   * A follower whose log, once cut at a bad record, ends below its own snapshot (the snapshot Ratis
   * takes when a node stops covers entries the cut removed): Ratis started it with a gap between
   * its last entry and the snapshot and refused every later entry ("gap between entries 56 and
   * 52"), so it never applied another write (found by the CI smoke's `TORN_TAIL`; decision 0038).
   */
  @Test
  void aFollowerWhoseLogEndsBelowItsSnapshotTakesNewEntriesAgain() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, dir, 100_000);
        SemaforClient client = cluster.client(Duration.ofSeconds(30))) {
      NamedSemaphore counter = fiftyIncrements(client);
      int leader = cluster.awaitLeader();
      int victim = (leader + 1) % 3;
      stopOnceCaughtUp(cluster, leader, victim); // it writes a snapshot as it stops
      assertThat(TornTail.loseLastRecords(cluster.dataDir(victim), 3)).isEqualTo(3);

      cluster.startNode(victim);
      for (int i = 0; i < 10; i++) {
        counter.increment(1);
      }

      long commit = cluster.statusNumber(cluster.awaitLeader(), "commitIndex");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> cluster.statusNumber(victim, "appliedIndex") >= commit);
      assertThat(counter.value()).isEqualTo(60);
    }
  }

  private static NamedSemaphore fiftyIncrements(SemaforClient client) {
    NamedSemaphore counter = client.semaphore("counter");
    counter.create(0);
    for (int i = 0; i < 50; i++) {
      counter.increment(1);
    }
    return counter;
  }

  /** Stops {@code victim} once it has applied all the leader committed; returns that index. */
  private static long stopOnceCaughtUp(TestCluster cluster, int leader, int victim) {
    long commit = cluster.statusNumber(leader, "commitIndex");
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> cluster.statusNumber(victim, "appliedIndex") >= commit);
    cluster.stopNode(victim);
    return commit;
  }
}
