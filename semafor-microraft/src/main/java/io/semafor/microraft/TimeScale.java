package io.semafor.microraft;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The time MicroRaft runs on, in which one of its seconds lasts one heartbeat period (decision
 * 0044).
 *
 * <p>MicroRaft 0.7 counts its heartbeat period and timeout in whole seconds, at least one each, so
 * a follower gives a dead leader up one to two seconds after its last heartbeat at best: too slow
 * for a failover within 1.5 s. Every other duration it uses is in milliseconds, and it reads time
 * only through the {@link Clock} and the executor it is given (checked against its source at tag
 * v0.7: no {@code System.currentTimeMillis}, {@code nanoTime} or sleep of its own). So this class
 * gives it a clock that runs faster by the factor {@code 1 s / period}, and {@link NodeLoop}
 * shrinks every delay it schedules by the same factor. MicroRaft then behaves exactly as with
 * whole-second settings, only faster: a heartbeat every period, a leader given up after a whole
 * number of periods, its own election timeouts and back-offs shortened alike. Its rules are
 * untouched.
 *
 * <p>The clock reads a monotonic source ({@link System#nanoTime} by default), so a jump of the wall
 * clock moves no MicroRaft timer (MicroRaft's default clock is the wall clock).
 *
 * <p>Immutable and thread-safe.
 */
public final class TimeScale {
  private static final long NANOS_PER_SECOND = TimeUnit.SECONDS.toNanos(1);

  /** Real time of one MicroRaft second. */
  private final long periodNanos;

  /**
   * @param period the real time one MicroRaft second lasts: the heartbeat period
   * @throws IllegalArgumentException if {@code period} is under 1 ms or over 1 s
   */
  public TimeScale(Duration period) {
    if (period.compareTo(Duration.ofMillis(1)) < 0 || period.compareTo(Duration.ofSeconds(1)) > 0) {
      throw new IllegalArgumentException(
          "microraft.heartbeat-period: " + period.toMillis() + "ms must be 1ms to 1s");
    }
    this.periodNanos = period.toNanos();
  }

  /** No scaling: MicroRaft's seconds are seconds (for tests and benchmarks of MicroRaft as is). */
  public static TimeScale real() {
    return new TimeScale(Duration.ofSeconds(1));
  }

  /** The real time one MicroRaft second lasts. */
  public Duration period() {
    return Duration.ofNanos(periodNanos);
  }

  /** The real delay, in nanoseconds, of a delay MicroRaft asks for in its own time. */
  public long realNanos(long delay, TimeUnit unit) {
    long raftNanos = unit.toNanos(delay);
    // split so that a delay of days cannot overflow the product
    return raftNanos / NANOS_PER_SECOND * periodNanos
        + raftNanos % NANOS_PER_SECOND * periodNanos / NANOS_PER_SECOND;
  }

  /**
   * How many MicroRaft seconds (heartbeat periods) cover {@code real}: rounded up, at least one.
   */
  public int wholePeriods(Duration real) {
    long n = (real.toNanos() + periodNanos - 1) / periodNanos;
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, n));
  }

  /** {@code real} in MicroRaft's milliseconds, at least one. */
  public long raftMillis(Duration real) {
    long raftNanos =
        real.toNanos() / periodNanos * NANOS_PER_SECOND
            + real.toNanos() % periodNanos * NANOS_PER_SECOND / periodNanos;
    return Math.max(1, TimeUnit.NANOSECONDS.toMillis(raftNanos));
  }

  /** What the clock reads when made: MicroRaft takes a heartbeat time of 0 for "never heard". */
  static final long CLOCK_START_MILLIS = 1_000;

  /** A clock for MicroRaft on {@link System#nanoTime}, starting at {@link #CLOCK_START_MILLIS}. */
  public Clock clock() {
    return clock(System::nanoTime);
  }

  /** A clock for MicroRaft on {@code nanoTime}, reading {@link #CLOCK_START_MILLIS} when made. */
  public Clock clock(LongSupplier nanoTime) {
    return new ScaledClock(nanoTime, nanoTime.getAsLong());
  }

  /** MicroRaft reads only {@link #millis}; the instant is the same reading, for completeness. */
  private final class ScaledClock extends Clock {
    private final LongSupplier nanoTime;
    private final long origin;

    ScaledClock(LongSupplier nanoTime, long origin) {
      this.nanoTime = nanoTime;
      this.origin = origin;
    }

    @Override
    public long millis() {
      long elapsed = nanoTime.getAsLong() - origin;
      // in MicroRaft's milliseconds directly: through its nanoseconds would overflow after 107
      // days at a 1 ms period
      return CLOCK_START_MILLIS
          + elapsed / periodNanos * 1_000
          + elapsed % periodNanos * 1_000 / periodNanos;
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis());
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException("MicroRaft's scaled clock has no zone");
    }
  }
}
