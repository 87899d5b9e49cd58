package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.semafor.SemaphoreOptions;
import io.semafor.client.Lease;
import io.semafor.client.NamedSemaphore;
import io.semafor.client.Permit;
import io.semafor.client.SemaforClient;
import io.semafor.client.SemaphoreInfo;
import io.semafor.client.Semop;
import io.semafor.replication.Replicator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The same operations through a 3-node Raft cluster in this JVM, and what survives a leader. */
@Timeout(value = 180, unit = TimeUnit.SECONDS) // a hung cluster must fail, not stall CI
class ClusterTest {
  @TempDir Path dir;

  @Test
  void everyKindOfOperationWorksThroughTheCluster() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, dir, 100_000);
        SemaforClient client = cluster.client(Duration.ofSeconds(10))) {
      NamedSemaphore printers = client.create("printers", 2, SemaphoreOptions.DEFAULT.capacity(3));
      assertThat(printers.increment(1)).isEqualTo(3);
      Permit permit = printers.acquirePermit(1);
      assertThat(permit.slots()).containsExactly(1L);
      Lease lease = printers.acquireLease(1, Duration.ofSeconds(30), Duration.ZERO);
      assertThat(lease).isNotNull();
      assertThat(printers.decrement(5, Duration.ZERO)).isEqualTo(1);
      CompletableFuture<Boolean> waiting = printers.acquireAsync(1, Duration.ofSeconds(30));
      await().until(() -> printers.info().waiters() == 1);
      permit.release();
      assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
      client.create("cpu", 4);
      Semop.Result done = client.semop().take("cpu", 2).owned().execute(Duration.ofSeconds(5));
      assertThat(done.done()).isTrue();
      assertThat(client.list("")).containsExactly("cpu", "printers");
      SemaphoreInfo info = printers.inspect();
      assertThat(info.leases()).hasSize(1);
      assertThat(lease.release()).isTrue();
    }
  }

  @Test
  void aClientFollowsTheNewLeaderWithItsPermitsAndWaitersIntact() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, dir, 100_000);
        SemaforClient holder = cluster.client(Duration.ofSeconds(10));
        SemaforClient waiter = cluster.client(Duration.ofSeconds(10))) {
      NamedSemaphore x = holder.create("x", 1);
      Permit held = x.acquirePermit(1);
      CompletableFuture<Optional<Permit>> waiting =
          waiter.semaphore("x").acquirePermitAsync(1, Duration.ofSeconds(60));
      await().until(() -> x.info().waiters() == 1);

      int oldLeader = cluster.awaitLeader();
      cluster.stopNode(oldLeader);
      int newLeader = cluster.awaitLeader();
      assertThat(newLeader).isNotEqualTo(oldLeader);

      SemaphoreInfo info = x.info(); // the holder's client reconnects and resumes
      assertThat(info.value()).isZero();
      assertThat(info.waiters()).isEqualTo(1);
      held.release();
      Permit handed = waiting.get(20, TimeUnit.SECONDS).orElseThrow();
      assertThat(handed.token()).isGreaterThan(held.token());
      handed.release();
      assertThat(x.value()).isEqualTo(1);
    }
  }

  /** Reads take Ratis's read-index path, queued behind the writes sent before them. */
  @Test
  void aReadSeesEveryWriteItsClientSentBeforeIt() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, dir, 100_000);
        SemaforClient client = cluster.client(Duration.ofSeconds(10))) {
      NamedSemaphore x = client.create("x", 0);
      for (int round = 1; round <= 20; round++) {
        List<CompletableFuture<Long>> writes = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
          writes.add(x.incrementAsync(1)); // not waited for: still queued or in flight
        }
        assertThat(x.valueAsync().get(10, TimeUnit.SECONDS)).isEqualTo(round * 10L);
        for (CompletableFuture<Long> w : writes) {
          w.get(10, TimeUnit.SECONDS);
        }
      }
    }
  }

  /**
   * Entries complete on Ratis threads while clients keep submitting: the leader must go on serving
   * (a completion and a submission once deadlocked on Ratis's window lock and the send lock).
   */
  @Test
  void manyClientsKeepBeingServedWhileEntriesCompleteUnderThem() throws Exception {
    int clients = 8;
    Duration run = Duration.ofSeconds(4);
    try (TestCluster cluster = TestCluster.start(3, dir, 100_000)) {
      try (SemaforClient setup = cluster.client(Duration.ofSeconds(10))) {
        setup.create("busy", 2);
      }
      List<CompletableFuture<Integer>> loops = new ArrayList<>();
      ExecutorService pool = Executors.newFixedThreadPool(clients);
      try {
        for (int c = 0; c < clients; c++) {
          loops.add(CompletableFuture.supplyAsync(() -> acquireAndReleaseFor(cluster, run), pool));
        }
        for (CompletableFuture<Integer> loop : loops) {
          assertThat(loop.get(60, TimeUnit.SECONDS)).isPositive();
        }
      } finally {
        pool.shutdownNow();
      }
      try (SemaforClient check = cluster.client(Duration.ofSeconds(10))) {
        assertThat(check.semaphore("busy").value()).isEqualTo(2);
      }
    }
  }

  private static int acquireAndReleaseFor(TestCluster cluster, Duration run) {
    try (SemaforClient client = cluster.client(Duration.ofSeconds(10))) {
      NamedSemaphore busy = client.semaphore("busy");
      long end = System.nanoTime() + run.toNanos();
      int pairs = 0;
      while (System.nanoTime() < end) {
        busy.acquirePermit(1).release();
        pairs++;
      }
      return pairs;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aFollowerBehindTheCompactedLogIsSentASnapshotAndCatchesUp() throws Exception {
    try (TestCluster cluster =
            TestCluster.start(3, dir, 40, TestCluster.SMALL_LOG_SEGMENTS); // snapshot, then compact
        SemaforClient client = cluster.client(Duration.ofSeconds(10))) {
      NamedSemaphore x = client.create("x", 0);
      int leader = cluster.awaitLeader();
      int lagging = (leader + 1) % 3;
      cluster.stopNode(lagging);
      long stoppedAt = cluster.statusNumber(leader, "commitIndex");
      for (int i = 0; i < 300; i++) {
        x.increment(1);
      }
      // the entries the stopped follower lacks are gone from the leader's log
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> cluster.statusNumber(leader, "logStartIndex") > stoppedAt + 1);

      cluster.startNode(lagging);
      long commit = cluster.statusNumber(leader, "commitIndex");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> cluster.statusNumber(lagging, "appliedIndex") >= commit);
      assertThat(cluster.statusNumber(lagging, "snapshotIndex")).isGreaterThan(stoppedAt);

      // its state is whole: once it leads, it answers from it
      cluster.transferLeadership(leader, lagging);
      assertThat(x.value()).isEqualTo(300);
      assertThat(x.increment(1)).isEqualTo(301);
    }
  }

  @Test
  void theLeadersStatusSaysWhereEachFollowerStands() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, dir, 100_000);
        SemaforClient client = cluster.client(Duration.ofSeconds(10))) {
      NamedSemaphore x = client.create("x", 0);
      int leader = cluster.awaitLeader();
      int stopped = (leader + 1) % 3;
      int running = (leader + 2) % 3;
      cluster.stopNode(stopped);
      long stoppedAt = cluster.statusNumber(leader, "commitIndex");
      for (int i = 0; i < 20; i++) {
        x.increment(1);
      }
      long commit = cluster.statusNumber(leader, "commitIndex");

      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(followers(cluster, leader))
                      .hasEntrySatisfying(
                          cluster.id(running),
                          match -> assertThat(match).isGreaterThanOrEqualTo(commit))
                      .hasEntrySatisfying(
                          cluster.id(stopped), match -> assertThat(match).isLessThan(commit)));
      assertThat(followers(cluster, leader).get(cluster.id(stopped)))
          .isLessThanOrEqualTo(stoppedAt);
      assertThat(cluster.replicator(running).status()).doesNotContainKey("followers");
    }
  }

  /** The leader's status: each follower's id and match index. */
  private static java.util.Map<String, Long> followers(TestCluster cluster, int leader) {
    java.util.Map<String, Long> out = new java.util.TreeMap<>();
    Object listed = cluster.replicator(leader).status().get("followers");
    for (Object o : (java.util.List<?>) java.util.Objects.requireNonNull(listed)) {
      java.util.Map<?, ?> f = (java.util.Map<?, ?>) o;
      out.put(String.valueOf(f.get("id")), ((Number) f.get("matchIndex")).longValue());
    }
    return out;
  }

  @Test
  void aNodeAddedToTheClusterGetsTheStateAndCanLead() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, dir, 40, TestCluster.SMALL_LOG_SEGMENTS);
        SemaforClient client = cluster.client(Duration.ofSeconds(10))) {
      NamedSemaphore x = client.create("x", 0);
      for (int i = 0; i < 200; i++) {
        x.increment(1);
      }
      int added = cluster.startJoiningNode();
      int any = (cluster.awaitLeader() + 1) % 3; // a follower can make the change too
      assertThat(cluster.replicator(any).addMember(cluster.memberText(added)))
          .containsExactly("n1", "n2", "n3", "n4");

      int leader = cluster.awaitLeader();
      cluster.transferLeadership(leader, added);
      assertThat(x.value()).isEqualTo(200);
      assertThat(cluster.replicator(added).status().get("members")).isEqualTo("n1,n2,n3,n4");
    }
  }

  @Test
  void removingTheLeaderMovesLeadershipAndTheRestServe() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, dir, 100_000);
        SemaforClient client = cluster.client(Duration.ofSeconds(10))) {
      NamedSemaphore x = client.create("x", 1);
      int leader = cluster.awaitLeader();
      assertThat(cluster.replicator(leader).removeMember(cluster.id(leader))).hasSize(2);

      int next =
          await().atMost(Duration.ofSeconds(20)).until(cluster::awaitLeader, i -> i != leader);
      assertThat(cluster.replicator(next).status().get("members"))
          .asString()
          .doesNotContain(cluster.id(leader));
      assertThat(x.increment(1)).isEqualTo(2); // the client follows to the new leader
    }
  }

  @Test
  void aMembershipChangeNamingNoMemberIsRefusedAndChangesNothing() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, dir, 100_000)) {
      Replicator<?, ?, ?> any = cluster.replicator(cluster.awaitLeader());
      assertThatThrownBy(() -> any.removeMember("n9"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("member: n9");
      assertThatThrownBy(() -> any.addMember("n2=127.0.0.1:1:2"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("already a member");
      assertThatThrownBy(() -> any.addMember("n5"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("id=host:clientPort:raftPort");
      assertThat(any.status().get("members")).isEqualTo("n1,n2,n3");
    }
  }

  @Test
  void allNodesRestartFromDiskWithTheStateIntact() throws Exception {
    TestCluster cluster = TestCluster.start(3, dir, 50); // snapshots along the way
    try (SemaforClient client = cluster.client(Duration.ofSeconds(10))) {
      NamedSemaphore x = client.create("x", 0);
      for (int i = 0; i < 120; i++) {
        x.increment(1);
      }
      client.create("y", 7);
    }
    cluster.close();
    for (int i = 0; i < cluster.size(); i++) {
      cluster.startNode(i);
    }
    cluster.awaitLeader();
    try (SemaforClient client = cluster.client(Duration.ofSeconds(10))) {
      assertThat(client.semaphore("x").value()).isEqualTo(120);
      assertThat(client.semaphore("y").value()).isEqualTo(7);
      assertThat(client.semaphore("x").increment(1)).isEqualTo(121);
    } finally {
      cluster.close();
    }
  }
}
