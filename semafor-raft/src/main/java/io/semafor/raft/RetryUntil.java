package io.semafor.raft;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.util.TimeDuration;

/**
 * A Ratis client's retry policy bounded in time, not in count: tries again after {@code pause}
 * while the next try would still start before {@code deadlineNanos}. Ratis's own policies count
 * tries, and a count is no bound in time when each try may wait the whole request timeout (a
 * membership change asked for during a partition was still being tried 90 s later and went through
 * after its caller had been told it failed: fault harness, fifth campaign, run 67). Thread-safe.
 *
 * @param nanoClock a monotonic clock ({@code System::nanoTime}; tests give a fake)
 * @param deadlineNanos the reading of {@code nanoClock} after which no try starts
 * @param pause the wait before each new try
 */
record RetryUntil(LongSupplier nanoClock, long deadlineNanos, TimeDuration pause)
    implements RetryPolicy {
  @Override
  public Action handleAttemptFailure(Event event) {
    long remaining = deadlineNanos - nanoClock.getAsLong();
    return remaining > pause.toLong(TimeUnit.NANOSECONDS) ? () -> pause : NO_RETRY_ACTION;
  }
}
