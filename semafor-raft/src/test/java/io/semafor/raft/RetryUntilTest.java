package io.semafor.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.Test;

/** A Ratis client's tries end at a deadline, however many there were (run 67). */
class RetryUntilTest {
  private final AtomicLong now = new AtomicLong(1_000);
  private final TimeDuration pause = TimeDuration.valueOf(500, TimeUnit.MILLISECONDS);
  private final RetryUntil policy =
      new RetryUntil(now::get, 1_000 + TimeUnit.SECONDS.toNanos(60), pause);

  @Test
  void aFailedTryWellBeforeTheDeadlineIsTriedAgainAfterThePause() {
    RetryPolicy.Action action = policy.handleAttemptFailure(() -> 500);

    assertThat(action.shouldRetry()).isTrue();
    assertThat(action.getSleepTime()).isEqualTo(pause);
  }

  @Test
  void noTryStartsOnceThePauseWouldReachTheDeadline() {
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(59_600));

    assertThat(policy.handleAttemptFailure(() -> 1).shouldRetry()).isFalse();
  }

  @Test
  void aTryThatReturnsAfterTheDeadlineIsNotRepeated() {
    now.addAndGet(TimeUnit.SECONDS.toNanos(90)); // one try waited the whole request timeout

    assertThat(policy.handleAttemptFailure(() -> 1).shouldRetry()).isFalse();
  }
}
