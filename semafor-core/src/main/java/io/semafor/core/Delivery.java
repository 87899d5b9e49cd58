package io.semafor.core;

import org.jspecify.annotations.Nullable;

/**
 * A kept reply that hands something over: non-owned amounts taken from semaphores, or a lease.
 * Until the client acknowledges it, it answers a retried request without applying it again, and if
 * the session ends first, what it hands over goes back (docs/semantics.md#session-end: nothing is
 * lost). A reply that hands nothing over is kept as the bare {@link Reply}.
 *
 * <p>The first transfer is held in fields, since almost every grant takes from one semaphore.
 */
final class Delivery {
  final Reply reply;
  private final @Nullable Semaphore first;
  private final long firstAmount;
  private final Semaphore @Nullable [] rest;
  private final long @Nullable [] restAmounts;
  final @Nullable Lease lease;

  private Delivery(
      Reply reply,
      @Nullable Semaphore first,
      long firstAmount,
      Semaphore @Nullable [] rest,
      long @Nullable [] restAmounts,
      @Nullable Lease lease) {
    this.reply = reply;
    this.first = first;
    this.firstAmount = firstAmount;
    this.rest = rest;
    this.restAmounts = restAmounts;
    this.lease = lease;
  }

  /** A reply handing over {@code amount} taken from {@code semaphore}. */
  static Delivery of(Reply reply, Semaphore semaphore, long amount) {
    return new Delivery(reply, semaphore, amount, null, null, null);
  }

  /** A reply handing over a lease. */
  static Delivery of(Reply reply, Lease lease) {
    return new Delivery(reply, null, 0, null, null, lease);
  }

  /** A reply handing over amounts from several semaphores (at least one). */
  static Delivery of(Reply reply, Semaphore[] semaphores, long[] amounts) {
    if (semaphores.length == 1) {
      return of(reply, semaphores[0], amounts[0]);
    }
    Semaphore[] rest = new Semaphore[semaphores.length - 1];
    long[] restAmounts = new long[amounts.length - 1];
    System.arraycopy(semaphores, 1, rest, 0, rest.length);
    System.arraycopy(amounts, 1, restAmounts, 0, restAmounts.length);
    return new Delivery(reply, semaphores[0], amounts[0], rest, restAmounts, null);
  }

  /** How many semaphores have amounts in transit in this reply. */
  int transfers() {
    Semaphore[] r = rest;
    return first == null ? 0 : 1 + (r == null ? 0 : r.length);
  }

  Semaphore semaphore(int i) {
    Semaphore s = i == 0 ? first : nonNull(rest)[i - 1];
    if (s == null) {
      throw new IndexOutOfBoundsException(i);
    }
    return s;
  }

  long amount(int i) {
    return i == 0 ? firstAmount : nonNull(restAmounts)[i - 1];
  }

  private static <T> T nonNull(@Nullable T value) {
    if (value == null) {
      throw new IndexOutOfBoundsException("no more transfers");
    }
    return value;
  }

  /** The reply kept for a request, whether bare or a delivery; null for anything else. */
  static @Nullable Reply replyOf(@Nullable Object kept) {
    if (kept instanceof Reply reply) {
      return reply;
    }
    return kept instanceof Delivery delivery ? delivery.reply : null;
  }
}
