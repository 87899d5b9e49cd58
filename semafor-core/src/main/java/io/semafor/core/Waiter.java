package io.semafor.core;

/**
 * A request that could not be served at once and waits, with its arrival sequence number, which
 * alone decides its place in the grant order.
 */
abstract class Waiter extends Node {
  /** {@link #deadline} of a waiter that waits forever. */
  static final long NO_DEADLINE = Long.MAX_VALUE;

  final Session session;

  /** The client's request id; 0 for the internal request of a WaitMany entry. */
  final long requestId;

  final long seq;

  /** When it times out, in log time. */
  final long deadline;

  Waiter(Session session, long requestId, long seq, long deadline) {
    this.session = session;
    this.requestId = requestId;
    this.seq = seq;
    this.deadline = deadline;
  }

  @Override
  final Waiter waiter() {
    return this;
  }

  /** The result this request completes with when it times out or is cancelled. */
  abstract Result notDone();

  /** What {@code inspect} calls it. */
  abstract String kind();

  /** The amount {@code inspect} shows for it. */
  abstract long amount();
}
