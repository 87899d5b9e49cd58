package io.semafor.server;

import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * How many live sessions each owner has on this node, and the most one may have, so that one client
 * cannot take every session of {@code maxSessions} and lock everyone else out. The owner key is the
 * client's source address today ({@link io.semafor.server.session.ServerSession#ownerKey}); with
 * authentication it can be the principal, and nothing here changes.
 *
 * <p>A session is taken when its {@code Hello} is accepted and given back when the session ends
 * (closed, expired or ended by an operator), not when its connection closes: sessions left behind
 * by closed connections still count until they expire, which is the point. Thread-safe: taken on
 * event loops, given back on the applying thread.
 */
final class SessionQuota {
  private final int maxPerOwner;
  private final ConcurrentHashMap<String, Integer> counts = new ConcurrentHashMap<>();

  SessionQuota(int maxPerOwner) {
    this.maxPerOwner = maxPerOwner;
  }

  /**
   * Takes one session for {@code owner}.
   *
   * @return null if taken; else why not, naming the limit (for a RESOURCE_EXHAUSTED failure)
   */
  @Nullable String tryTake(String owner) {
    boolean[] taken = {false};
    counts.compute(
        owner,
        (k, n) -> {
          int now = n == null ? 0 : n;
          if (now >= maxPerOwner) {
            return n;
          }
          taken[0] = true;
          return now + 1;
        });
    if (taken[0]) {
      return null;
    }
    return "maxSessionsPerClient ("
        + maxPerOwner
        + ") reached for "
        + owner
        + ": its sessions count until they end or expire";
  }

  /** Gives back one session of {@code owner}'s. */
  void release(String owner) {
    counts.computeIfPresent(owner, (k, n) -> n <= 1 ? null : n - 1);
  }

  /** The sessions {@code owner} holds now. */
  int count(String owner) {
    Integer n = counts.get(owner);
    return n == null ? 0 : n;
  }
}
