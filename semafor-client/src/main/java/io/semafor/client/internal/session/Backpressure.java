package io.semafor.client.internal.session;

import java.util.HashSet;
import java.util.Set;

/**
 * The session machine's answer to {@code RESOURCE_EXHAUSTED} for unacknowledged replies
 * (docs/protocol.md §3): the refused request was not applied and is sent again once the
 * acknowledgements are in. Pure; not thread-safe.
 *
 * <p>Requests of a session take effect in id order, and the server refuses an id lower than one it
 * applied ({@code INVALID_ARGUMENT}, {@code requestId}). Requests sent behind a refused one before
 * its refusal was read may be applied all the same (the acknowledgements they carry bring the count
 * below the limit). So, from the refusal on, nothing new goes out; a keep-alive carries the
 * acknowledgements; at its {@code Pong} every request sent before it has been applied or refused.
 * If a request behind a refused one was applied, the refused ones are sent under new ids, after
 * every id used; else under their own, in id order.
 */
final class Backpressure {
  /** The keep-alive whose {@code Pong} ends the hold; 0: no hold. */
  private long heldBy;

  private final Set<Long> refused = new HashSet<>();

  /** Sent after a refused request, before its refusal was read. */
  private final Set<Long> behind = new HashSet<>();

  /** The highest wire id answered with something else than the refusal. */
  private long highestApplied;

  /** Nothing may be sent until the hold ends. */
  boolean holding() {
    return heldBy != 0;
  }

  long heldBy() {
    return heldBy;
  }

  void holdUntilPongOf(long keepAliveId) {
    heldBy = keepAliveId;
  }

  /** The hold ends without settling (the connection broke: the resume settles it). */
  void release() {
    heldBy = 0;
  }

  /** {@code wireId} was refused; {@code inFlight}: the wire ids sent and unanswered now. */
  void refused(long wireId, Iterable<Long> inFlight) {
    refused.add(wireId);
    for (long id : inFlight) {
      if (id > wireId) {
        behind.add(id);
      }
    }
  }

  /** A request was answered other than with the refusal: the server applied it. */
  void answered(long wireId) {
    highestApplied = Math.max(highestApplied, wireId);
  }

  /**
   * The hold ends (its {@code Pong} came: every request sent before it was applied or refused, and
   * those refused are known). True: a request sent behind a refused one was applied, so the refused
   * ones need new ids.
   */
  boolean settle() {
    boolean passed = false;
    if (!refused.isEmpty()) {
      long lowest = refused.stream().mapToLong(Long::longValue).min().orElseThrow();
      long highest = highestApplied;
      for (long id : behind) {
        if (!refused.contains(id)) {
          highest = Math.max(highest, id);
        }
      }
      passed = highest > lowest;
    }
    heldBy = 0;
    refused.clear();
    behind.clear();
    return passed;
  }

  /**
   * The session was resumed on a new connection: the hold ends and its refusals are forgotten
   * (every request goes again under its own id, in id order).
   */
  void forgetRefusals() {
    heldBy = 0;
    refused.clear();
    behind.clear();
  }

  /** Refused and not sent again yet: known not applied. */
  boolean isRefused(long wireId) {
    return refused.contains(wireId);
  }

  /** A new session: nothing of the old one matters. */
  void reset() {
    heldBy = 0;
    refused.clear();
    behind.clear();
    highestApplied = 0;
  }
}
