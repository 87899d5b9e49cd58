package io.semafor.server;

import java.util.function.LongSupplier;

/**
 * The server's monotonic time with the time it did not run taken out: what session liveness is
 * judged on (docs/semantics.md#pauses).
 *
 * <p>Why: when the whole process stops (a long GC, a VM suspended, SIGSTOP), the monotonic clock
 * keeps going while keep-alives pile up unread in the socket buffers. On resume the liveness timers
 * are overdue and would fire before the event loops read those keep-alives, expiring sessions whose
 * clients never stopped talking. Measured on this clock a client that kept sending is never silent
 * for long, whatever the pause.
 *
 * <p>How: {@link #tick} is called every {@code tickNanos} (by the timer thread). A gap between
 * ticks longer than {@code stallNanos} means the process (or at least its scheduling) stopped, and
 * everything past {@code stallNanos} is left out. {@link #now} applies the same rule to the gap
 * since the last tick, so a reader that runs before the first tick after a pause already sees the
 * pause left out; the clock is continuous and never runs backwards. A server so overloaded that its
 * ticks come late is treated the same way: its clients are not blamed for it either.
 *
 * <p>Pure apart from the clock it is given. Thread-safe: {@link #now} may be called from any thread
 * (the event loops call it for every frame, so it takes no lock); {@link #tick} from one thread at
 * a time.
 */
final class ListeningClock {
  /** How often the timer thread ticks. */
  static final long TICK_NANOS = 10_000_000L;

  /** A gap between ticks longer than this counts as a pause beyond it. */
  static final long STALL_NANOS = 50_000_000L;

  private final LongSupplier nanoTime;
  private final long stallNanos;

  /** When the last tick ran, and how much time was left out before it; replaced whole. */
  private record Ticked(long at, long paused) {}

  private volatile Ticked last;

  /** The clock the server uses: {@link System#nanoTime()}, pauses past 50 ms left out. */
  ListeningClock() {
    this(System::nanoTime, STALL_NANOS);
  }

  /** A clock over {@code nanoTime} that leaves out every gap between ticks past {@code stall}. */
  ListeningClock(LongSupplier nanoTime, long stallNanos) {
    if (stallNanos <= 0) {
      throw new IllegalArgumentException("stallNanos <= 0: " + stallNanos);
    }
    this.nanoTime = nanoTime;
    this.stallNanos = stallNanos;
    this.last = new Ticked(nanoTime.getAsLong(), 0);
  }

  /** The time now, in nanoseconds, with pauses left out. */
  long now() {
    Ticked l = last;
    long t = nanoTime.getAsLong();
    return t - l.paused - overdue(l, t);
  }

  /** Marks that the process ran now; a long gap since the last tick is recorded as a pause. */
  void tick() {
    Ticked l = last;
    long t = nanoTime.getAsLong();
    last = new Ticked(t, l.paused + overdue(l, t));
  }

  /** How much of the time left out so far; for metrics and logs. */
  long pausedNanos() {
    return last.paused;
  }

  private long overdue(Ticked l, long t) {
    return Math.max(0, t - l.at - stallNanos);
  }
}
