package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.SemaphoreOptions;
import io.semafor.client.NamedSemaphore;
import io.semafor.client.Permit;
import io.semafor.client.SemaforClient;
import io.semafor.client.SemaphoreInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A 3-node cluster's leader frozen with SIGSTOP (a long GC pause, a stalled VM) under Java clients
 * that hold permits idly, wait for a grant, or wait for the answer to an increment: each leaves the
 * silent node for the new leader on its own (protocol.md §2, "a silent server"), keeps its session
 * and its permits, and nothing is applied twice. The target is 2 s from the freeze (issue 33); the
 * assertion allows twice that for a loaded CI machine, and the test prints what it measured.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FrozenLeaderTest {
  /**
   * The waiting clients' session TTL, the default: before a silent server was probed, a client
   * waiting for an answer left it only after this long without a frame.
   */
  private static final Duration WAITING_TTL = Duration.ofSeconds(10);

  /** The idle holder's: its keep-alives (every TTL/3) are what find the server silent. */
  private static final Duration IDLE_TTL = Duration.ofSeconds(3);

  private static final long SERVED_WITHIN_MILLIS = 4_000;

  @TempDir Path dir;

  @ParameterizedTest(name = "frozen for {0} s")
  @ValueSource(ints = {5, 30})
  void idleAndWaitingClientsLeaveAFrozenLeaderKeepTheirSessionsAndNothingIsAppliedTwice(int seconds)
      throws Exception {
    Assumptions.assumeTrue(
        seconds < 30 || Boolean.getBoolean("faults.long"),
        "a freeze past the TTL takes 30 s: -Dfaults.long=true (-Pfaults)");
    try (ProcessCluster cluster = ProcessCluster.start(dir);
        SemaforClient holder = cluster.client("holder", IDLE_TTL);
        SemaforClient waiter = cluster.client("waiter", WAITING_TTL);
        SemaforClient giver = cluster.client("giver", WAITING_TTL)) {
      NamedSemaphore held = giver.semaphore("held");
      held.create(2, SemaphoreOptions.DEFAULT.capacity(2));
      NamedSemaphore gate = giver.semaphore("gate");
      gate.create(0, SemaphoreOptions.DEFAULT.capacity(1));
      Permit permit = holder.semaphore("held").acquirePermit(1);
      List<Long> sessions = List.of(holder.sessionId(), waiter.sessionId(), giver.sessionId());
      CompletableFuture<Long> granted = new CompletableFuture<>();
      CompletableFuture<Permit> gatePermit = new CompletableFuture<>();
      Thread waiting =
          new Thread(
              () -> {
                try {
                  gatePermit.complete(waiter.semaphore("gate").acquirePermit(1)); // owned
                  granted.complete(System.nanoTime());
                } catch (Throwable e) {
                  granted.completeExceptionally(e);
                }
              },
              "waiter");
      waiting.start();
      await().atMost(Duration.ofSeconds(10)).until(() -> gate.inspect().waiters() == 1);

      Process leader = cluster.node(cluster.leader());
      long frozenAt = System.nanoTime();
      ProcessCluster.signal("STOP", leader.pid());
      long given;
      long grantedAfter;
      long movedAfter;
      try {
        gate.increment(1); // sent to the frozen leader: the giver waits for this answer
        given = System.nanoTime() - frozenAt;
        grantedAfter = granted.get(20, TimeUnit.SECONDS) - frozenAt;
        // the idle holder hears from a live server again: it moved to the new leader
        await()
            .atMost(Duration.ofSeconds(20))
            .pollInterval(Duration.ofMillis(10))
            .until(() -> holder.sinceLastHeardFromServer().toMillis() < 300);
        movedAfter = System.nanoTime() - frozenAt;
        long left = TimeUnit.SECONDS.toNanos(seconds) - (System.nanoTime() - frozenAt);
        if (left > 0) {
          TimeUnit.NANOSECONDS.sleep(left);
        }
      } finally {
        ProcessCluster.signal("CONT", leader.pid());
      }
      System.out.printf(
          "leader frozen %d s: increment answered after %d ms, waiter granted after %d ms, idle"
              + " holder hearing from the new leader after %d ms%n",
          seconds, millis(given), millis(grantedAfter), millis(movedAfter));
      assertThat(List.of(millis(given), millis(grantedAfter), millis(movedAfter)))
          .allSatisfy(ms -> assertThat(ms).isLessThan(SERVED_WITHIN_MILLIS));
      assertThat(List.of(holder.sessionId(), waiter.sessionId(), giver.sessionId()))
          .as("every client kept its session")
          .isEqualTo(sessions);
      SemaphoreInfo g = gate.inspect();
      assertThat(g.value()).as("the increment applied once, granted once").isZero();
      assertThat(g.waiters()).isZero();
      assertThat(g.holderList())
          .extracting(SemaphoreInfo.Holder::sessionId, SemaphoreInfo.Holder::owned)
          .containsExactly(org.assertj.core.groups.Tuple.tuple(waiter.sessionId(), 1L));
      SemaphoreInfo h = held.inspect();
      assertThat(h.value()).as("the idle holder still holds its permit").isEqualTo(1);
      assertThat(h.holderList())
          .extracting(SemaphoreInfo.Holder::sessionId, SemaphoreInfo.Holder::owned)
          .containsExactly(org.assertj.core.groups.Tuple.tuple(holder.sessionId(), 1L));
      permit.release();
      gatePermit.get(1, TimeUnit.SECONDS).release();
      assertThat(held.value()).isEqualTo(2);
      assertThat(gate.value()).isEqualTo(1);
    }
  }

  private static long millis(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }
}
