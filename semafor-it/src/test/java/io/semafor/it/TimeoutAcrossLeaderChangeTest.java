package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaforClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A waiter's timeout that falls due while no node can commit still ends the wait, once a leader can
 * (found by the fault campaign, run 9 at f0fba5b: a WaitMany await with a 1 s timeout was never
 * answered). The timer fired on a leader that then lost its followers; the expiry it proposed was
 * never committed, and every other node's timer had fired while it followed, so the new leader
 * proposed nothing: the waiter waited for ever.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TimeoutAcrossLeaderChangeTest {
  @TempDir Path dir;

  @Test
  void aTimeoutThatFellDueWhileNoLeaderCouldCommitEndsTheWaitUnderTheNextLeader() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, dir, 100_000);
        SemaforClient client = cluster.client(Duration.ofSeconds(60))) {
      NamedSemaphore empty = client.create("empty", 0);
      int leader = cluster.awaitLeader();
      // a timeout shorter than any election (0.5 s at least after the last heartbeat): it falls
      // due on the followers, which drop the expiry they propose, before either can lead
      CompletableFuture<Boolean> waiting = empty.acquireAsync(1, Duration.ofMillis(700));
      await().atMost(Duration.ofSeconds(5)).until(() -> empty.info().waiters() == 1);
      cluster.stopNode(leader);
      cluster.awaitLeader();

      assertThat(waiting.get(60, TimeUnit.SECONDS)).as("timed out, not granted").isFalse();
      assertThat(empty.info().waiters()).isZero();
    }
  }
}
