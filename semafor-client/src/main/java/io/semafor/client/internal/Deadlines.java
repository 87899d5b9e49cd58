package io.semafor.client.internal;

/**
 * Deadlines on {@link System#nanoTime()}, whose readings may be negative (its origin is arbitrary):
 * compared by difference, with {@link #NONE} for a call that waits as long as its session lives,
 * which no difference may be taken against. Stateless.
 */
final class Deadlines {
  private Deadlines() {}

  /** No deadline. */
  static final long NONE = Long.MAX_VALUE;

  /** Whether {@code deadline} has come at {@code now}; never for {@link #NONE}. */
  static boolean passed(long now, long deadline) {
    return deadline != NONE && now - deadline >= 0;
  }

  /** How long from {@code now} to {@code deadline}, at most {@code cap}; {@code cap} for none. */
  static long remaining(long now, long deadline, long cap) {
    return deadline == NONE ? cap : Math.min(cap, deadline - now);
  }
}
