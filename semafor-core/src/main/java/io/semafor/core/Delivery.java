package io.semafor.core;

import org.jspecify.annotations.Nullable;

/**
 * A reply the client has not acknowledged yet. It answers a retried request without applying it
 * again, and holds what the reply hands over: non-owned amounts taken, or a lease. If the session
 * ends before the acknowledgement, they go back (SPEC §5: nothing is lost).
 */
final class Delivery {
  static final Semaphore[] NO_SEMAPHORES = new Semaphore[0];
  static final long[] NO_AMOUNTS = new long[0];

  final Reply reply;
  final Semaphore[] semaphores;
  final long[] amounts;
  final @Nullable Lease lease;

  Delivery(Reply reply, Semaphore[] semaphores, long[] amounts, @Nullable Lease lease) {
    this.reply = reply;
    this.semaphores = semaphores;
    this.amounts = amounts;
    this.lease = lease;
  }

  Delivery(Reply reply) {
    this(reply, NO_SEMAPHORES, NO_AMOUNTS, null);
  }
}
