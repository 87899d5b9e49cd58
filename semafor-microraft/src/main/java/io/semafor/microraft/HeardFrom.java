package io.semafor.microraft;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * When this member last heard from each other member, by node id: the time of the last frame a
 * member sent it (a response to a heartbeat or an append, a vote, a control message). A leader's
 * followers answer every heartbeat, so a member silent for longer than the election timeout is one
 * the leader cannot reach (killed, cut off, frozen), which MicroRaft's own report cannot tell from
 * a healthy follower that is up to date. Times are {@link System#nanoTime} values given by the
 * caller; thread-safe (written on the loop, read by the status endpoint).
 */
final class HeardFrom {
  private final Map<String, Long> lastNanos = new ConcurrentHashMap<>();

  /** Records that member {@code id} was heard from at {@code nowNanos}. */
  void heard(String id, long nowNanos) {
    lastNanos.put(id, nowNanos);
  }

  /**
   * Milliseconds since member {@code id} was last heard from at {@code nowNanos}, or null if it
   * never was (since this member started).
   */
  @Nullable Long millisSince(String id, long nowNanos) {
    Long last = lastNanos.get(id);
    return last == null ? null : Duration.ofNanos(Math.max(0, nowNanos - last)).toMillis();
  }
}
