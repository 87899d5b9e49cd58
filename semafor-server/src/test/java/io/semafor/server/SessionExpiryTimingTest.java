package io.semafor.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.core.Command;
import io.semafor.core.Query;
import io.semafor.core.SessionOwner;
import io.semafor.replication.Replicator;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * When the edge proposes a session's expiry, and when it proposes again. The machine refuses an
 * expiry sooner than a TTL after the session's last logged command, which is stamped a little after
 * the edge heard it, so a proposal made exactly on time can be refused; the next must follow within
 * milliseconds, not a TTL later.
 */
class SessionExpiryTimingTest {
  private static final long TTL = Duration.ofMillis(400).toNanos();

  private final Timers timers = new Timers(key -> {});
  private final ListeningClock clock = new ListeningClock();
  private final Sessions sessions =
      new Sessions(timers, clock, new SessionQuota(Integer.MAX_VALUE));
  private final RecordingReplicator replicator = new RecordingReplicator();

  @AfterEach
  void stop() {
    timers.close();
  }

  /** Records each proposed expiry with when it came; refuses the first {@code refusals}. */
  private static final class RecordingReplicator
      implements Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> {
    final List<Long> proposedAt = new CopyOnWriteArrayList<>();

    @Override
    public void submit(Command command, @Nullable CommandOrigin context) {
      if (command instanceof Command.ExpireSession) {
        proposedAt.add(System.nanoTime());
      }
    }

    @Override
    public void read(Query query, @Nullable ReadOrigin context) {}

    @Override
    public void snapshot(@Nullable PendingSnapshot context) {}

    @Override
    public long logTime() {
      return System.nanoTime();
    }

    @Override
    public void close() {}
  }

  @Test
  void aSilentSessionsExpiryIsProposedOnceItsTtlHasPassed() {
    sessions.replicator(replicator);
    long started = System.nanoTime();
    sessions.started(1, TTL, SessionOwner.NONE);
    await().atMost(Duration.ofSeconds(5)).until(() -> !replicator.proposedAt.isEmpty());
    assertThat(replicator.proposedAt.get(0) - started).isGreaterThanOrEqualTo(TTL);
  }

  @Test
  void anExpiryTheMachineRefusedIsProposedAgainWithinMillisecondsNotATtlLater() {
    sessions.replicator(replicator);
    sessions.started(1, TTL, SessionOwner.NONE);
    // the session is still live after the first proposal: the machine refused it as early
    await().atMost(Duration.ofSeconds(5)).until(() -> replicator.proposedAt.size() >= 2);
    long gap = replicator.proposedAt.get(1) - replicator.proposedAt.get(0);
    assertThat(Duration.ofNanos(gap)).isLessThan(Duration.ofMillis(100));
  }

  @Test
  void aSessionHeardFromIsNotProposedForExpiry() throws Exception {
    sessions.replicator(replicator);
    sessions.started(1, TTL, SessionOwner.NONE);
    Sessions.Live live = sessions.get(1);
    assertThat(live).isNotNull();
    long until = System.nanoTime() + 3 * TTL;
    while (System.nanoTime() < until) {
      live.heard();
      Thread.sleep(TTL / 4_000_000);
    }
    assertThat(replicator.proposedAt).isEmpty();
  }

  @Test
  void retriesAreSpacedOutSoARefusedExpiryCostsFewProposals() {
    sessions.replicator(replicator);
    sessions.started(1, TTL, SessionOwner.NONE);
    await().atMost(Duration.ofSeconds(5)).until(() -> !replicator.proposedAt.isEmpty());
    long first = replicator.proposedAt.get(0);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> System.nanoTime() - first > Duration.ofMillis(200).toNanos());
    // 1, 2, 4, ... 128 ms: about eight proposals in 200 ms, not two hundred
    assertThat(replicator.proposedAt).hasSizeBetween(2, 12);
  }
}
