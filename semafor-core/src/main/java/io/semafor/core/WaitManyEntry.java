package io.semafor.core;

import org.jspecify.annotations.Nullable;

/**
 * One semaphore in a WaitMany list: what was granted and not yet reported, and the request still
 * pending, if any. Counts as undelivered until reported and acknowledged.
 */
final class WaitManyEntry {
  final WaitList list;
  final Semaphore semaphore;

  /** Position in the list, for the round robin of reports. */
  final long ordinal;

  long granted;
  long token;
  @Nullable SingleWaiter pending;

  /** The semaphore was deleted: report 0. */
  boolean deleted;

  WaitManyEntry(WaitList list, Semaphore semaphore, long ordinal) {
    this.list = list;
    this.semaphore = semaphore;
    this.ordinal = ordinal;
  }

  /** Whether the next {@code waitMany} reports it. */
  boolean ready() {
    return granted > 0 || deleted;
  }
}
