package io.semafor.server.session;

/**
 * Deadlines on the monotonic clock, whose readings may be negative ({@link System#nanoTime()} has
 * an arbitrary origin): compared by difference, which is right for any two readings within 292
 * years of each other, with {@link #NEVER} for none, which no difference may be taken against.
 * Stateless.
 */
final class Deadlines {
  private Deadlines() {}

  /** No deadline. */
  static final long NEVER = Long.MAX_VALUE;

  /** Whether {@code deadline} has come at {@code now}; never for {@link #NEVER}. */
  static boolean passed(long now, long deadline) {
    return deadline != NEVER && now - deadline >= 0;
  }

  /** The earlier of two deadlines, either of which may be {@link #NEVER}. */
  static long earlier(long a, long b) {
    if (a == NEVER) {
      return b;
    }
    if (b == NEVER) {
      return a;
    }
    return a - b <= 0 ? a : b;
  }
}
