package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.client.Lease;
import io.semafor.client.NamedSemaphore;
import io.semafor.client.Permit;
import io.semafor.client.SemaforClient;
import io.semafor.client.SemaphoreInfo;
import io.semafor.client.SemaphoreOptions;
import io.semafor.client.Semop;
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
