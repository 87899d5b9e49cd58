package io.semafor.server.session;

import java.time.Instant;

/**
 * A point in time as the session machine reads it: {@code nanos} on a monotonic clock (what its
 * timeouts count on) and {@code wall}, the wall clock that tokens' expiry is written in.
 *
 * @param nanos monotonic nanoseconds ({@link System#nanoTime()} in the server)
 * @param wall the wall clock at the same moment
 */
public record Moment(long nanos, Instant wall) {
  /** Now, on the system's clocks. */
  public static Moment now() {
    return new Moment(System.nanoTime(), Instant.now());
  }
}
