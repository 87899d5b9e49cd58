package io.semafor.client.internal.session;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The acknowledgements of one session (docs/protocol.md §3): which answers still need acknowledging
 * and when, and which acknowledgements a server has confirmed. Pure; times are monotonic
 * nanoseconds passed in. Not thread-safe.
 *
 * <p>Every {@code Response} read is acknowledged by its wire id on the next request, or within the
 * delay in a {@code KeepAlive} (one for a burst). The frame that carried acknowledgements is their
 * <em>carrier</em>: a request (applied with them) or a keep-alive (whose {@code Pong} comes only
 * once they are applied). Acknowledgements whose keep-alive's {@code Pong} was not seen go again
 * after a resume: a leader that died before committing them lost them.
 */
final class Acks {

  /** A frame that carried acknowledgements: a request or a keep-alive, by its id. */
  record Carrier(boolean keepAlive, long id) {
    static Carrier request(long wireId) {
      return new Carrier(false, wireId);
    }

    static Carrier keepAlive(long keepAliveId) {
      return new Carrier(true, keepAliveId);
    }
  }

  private final long delayNanos;
  private List<Long> toAck = new ArrayList<>();
  private boolean due;
  private long dueAt;
  private final Map<Carrier, List<Long>> carriers = new HashMap<>();

  Acks(long delayNanos) {
    this.delayNanos = delayNanos;
  }

  /** Whether a keep-alive must carry acknowledgements by {@link #dueAt()}. */
  boolean due() {
    return due;
  }

  long dueAt() {
    return dueAt;
  }

  /** An answer to acknowledge. */
  void add(long wireId, long now) {
    toAck.add(wireId);
    if (!due) {
      due = true;
      dueAt = now + delayNanos;
    }
  }

  /** An answer not to acknowledge after all (not carried yet: its caller is gone). */
  void withdraw(long wireId) {
    if (toAck.remove(Long.valueOf(wireId)) && toAck.isEmpty()) {
      due = false;
    }
  }

  /**
   * Everything to acknowledge, now carried by {@code carrier}. With {@code keep}, the carrier is
   * remembered even when it carries nothing (its {@code Pong} is still awaited).
   */
  List<Long> take(Carrier carrier, boolean keep) {
    List<Long> acks = toAck;
    toAck = new ArrayList<>();
    due = false;
    if (!acks.isEmpty() || keep) {
      carriers.put(carrier, acks);
    }
    return acks;
  }

  /**
   * The carrier's acknowledgements are applied (its request was answered, or its keep-alive's
   * {@code Pong} came); returns them, or null if it was not a carrier.
   */
  @Nullable List<Long> applied(Carrier carrier) {
    return carriers.remove(carrier);
  }

  /** The carrier was refused unapplied (its acks were applied all the same). */
  void forget(Carrier carrier) {
    carriers.remove(carrier);
  }

  /** A keep-alive's {@code Pong} is awaited (something outstanding for silence detection). */
  boolean awaitingPong() {
    for (Carrier c : carriers.keySet()) {
      if (c.keepAlive()) {
        return true;
      }
    }
    return false;
  }

  /** After a resume: acknowledgements whose confirmation was not seen go again. */
  void resumed(long now) {
    TreeSet<Long> again = new TreeSet<>(toAck);
    carriers.values().forEach(again::addAll);
    carriers.clear();
    toAck = new ArrayList<>(again);
    if (!toAck.isEmpty() && !due) {
      due = true;
      dueAt = now + delayNanos;
    }
  }

  /** A new session: nothing of the old one is acknowledged. */
  void clear() {
    toAck.clear();
    carriers.clear();
    due = false;
  }
}
