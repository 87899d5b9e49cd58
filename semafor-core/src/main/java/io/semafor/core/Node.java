package io.semafor.core;

import org.jspecify.annotations.Nullable;

/**
 * A waiter's place in one semaphore's {@link WaiterQueue}. A single-semaphore waiter is its own
 * node; a {@code semop} waiter has one node per semaphore it names. Links are intrusive so that
 * queueing and removal allocate nothing and cost O(1).
 */
abstract class Node {
  /** Takes all-or-nothing from the semaphore: holds back later takers under FIFO. */
  static final byte TAKE_ALL = 1;

  /** Takes whatever is there (a partial decrement): never holds anyone back. */
  static final byte TAKE_PARTIAL = 2;

  /** A {@code semop} that only adds to or waits for zero on this semaphore. */
  static final byte WATCH = 3;

  /** A plain {@code awaitZero}: released with the others when the value reaches 0. */
  static final byte ZERO = 4;

  @Nullable Node prev;
  @Nullable Node next;
  @Nullable Node prevTakeAll;
  @Nullable Node nextTakeAll;

  abstract Waiter waiter();

  abstract byte role();
}
