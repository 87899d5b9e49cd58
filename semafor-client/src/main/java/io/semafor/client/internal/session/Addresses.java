package io.semafor.client.internal.session;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the session machine dials next (docs/protocol.md §2, {@code NOT_LEADER}): the leader a
 * server named, else the next address in turn; after every address failed in turn, a backoff that
 * doubles from the shortest to the longest. An address left because it went silent (a frozen
 * leader) is avoided for a while: a follower that has not heard of the election yet names it as the
 * leader, and going back costs another answer deadline. Pure; times are monotonic nanoseconds
 * passed in. Not thread-safe.
 */
final class Addresses {
  private final List<String> addresses;
  private final long minBackoff;
  private final long maxBackoff;
  private final long avoidNanos;
  private final long stableAfterNanos;
  private final Map<String, Long> silentUntil = new HashMap<>();
  private long backoff;
  private int next;
  private int failedInRound;
  private String leaderHint = "";
  private String current = "";
  private boolean ready;
  private long readyAt;

  Addresses(
      List<String> addresses,
      long minBackoff,
      long maxBackoff,
      long avoidNanos,
      long stableAfterNanos) {
    this.stableAfterNanos = stableAfterNanos;
    this.addresses = List.copyOf(addresses);
    this.minBackoff = minBackoff;
    this.maxBackoff = maxBackoff;
    this.avoidNanos = avoidNanos;
    this.backoff = minBackoff;
  }

  /** The address of the current (or last) connection; empty before the first. */
  String current() {
    return current;
  }

  /** The current address stopped answering: avoid it for a while. */
  void wentSilent(long now) {
    if (!current.isEmpty()) {
      silentUntil.put(current, now + avoidNanos);
    }
  }

  private boolean avoided(String address, long now) {
    Long until = silentUntil.get(address);
    return until != null && until - now > 0;
  }

  /**
   * The address to dial now: the leader a server named, unless it went silent lately; else the next
   * in turn, skipping those that went silent lately until every other one failed in this round.
   */
  String next(long now) {
    String hint = leaderHint;
    leaderHint = "";
    if (!hint.isEmpty() && !avoided(hint, now)) {
      current = hint;
      return hint;
    }
    int n = addresses.size();
    int others = 0;
    for (String a : addresses) {
      others += avoided(a, now) ? 0 : 1;
    }
    boolean skip = failedInRound < others;
    for (int i = 0; i < n; i++) {
      String candidate = addresses.get((next + i) % n);
      if (!(skip && avoided(candidate, now))) {
        next += i + 1;
        current = candidate;
        return candidate;
      }
    }
    current = addresses.get(next % n);
    next++;
    return current;
  }

  /**
   * Whether another address than the current one exists: only then is a {@code Hello} that goes
   * unanswered given up for it. With one address, leaving would only redial the same server (a slow
   * one, under load) and leave a session it opens late to expire unused.
   */
  boolean hasAlternative() {
    for (String a : addresses) {
      if (!a.equals(current)) {
        return true;
      }
    }
    return false;
  }

  /** A server said it does not lead and named {@code leader} (empty: it does not know). */
  void follow(String leader) {
    leaderHint = leader;
  }

  /** The connection failed ({@code wasReady}: it had a session): when to dial again. */
  long failed(long now, boolean wasReady) {
    boolean worked = wasReady && ready && now - readyAt >= stableAfterNanos;
    ready = false;
    if (worked) { // a working connection lost: a new round, from the shortest backoff
      failedInRound = 0;
      backoff = minBackoff;
      return now;
    }
    failedInRound++;
    if (!leaderHint.isEmpty() || failedInRound < addresses.size()) {
      return now;
    }
    failedInRound = 0; // every address failed in turn: wait before the next round
    long wait = backoff;
    backoff = Math.min(backoff * 2, maxBackoff);
    return now + wait;
  }

  /**
   * A session is open on the current connection: once it has lived {@code stableAfterNanos}, its
   * loss starts a new round from the shortest backoff.
   */
  void succeeded(long now) {
    ready = true;
    readyAt = now;
  }
}
