package io.semafor.core;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A waiter on one semaphore: {@code decrement}, {@code acquire}, {@code acquireLease}, {@code
 * awaitZero}, or the pending decrement of a WaitMany entry.
 */
final class SingleWaiter extends Waiter {
  static final byte DECREMENT = 1;
  static final byte ACQUIRE = 2;
  static final byte LEASE = 3;
  static final byte AWAIT_ZERO = 4;
  static final byte WAIT_MANY_ENTRY = 5;

  final Semaphore semaphore;
  final byte kind;
  final boolean owned;
  final long leaseTtl;

  /**
   * Mutable only for WaitMany entries, whose repeated requests merge (docs/semantics.md#waitmany,
   * rule a).
   */
  long requested;

  /** The entry whose pending request this is; set for {@link #WAIT_MANY_ENTRY} only. */
  final @Nullable WaitManyEntry entry;

  SingleWaiter(
      Session session,
      long requestId,
      long seq,
      long deadline,
      Semaphore semaphore,
      byte kind,
      long requested,
      boolean owned,
      long leaseTtl,
      @Nullable WaitManyEntry entry) {
    super(session, requestId, seq, deadline);
    this.semaphore = semaphore;
    this.kind = kind;
    this.requested = requested;
    this.owned = owned;
    this.leaseTtl = leaseTtl;
    this.entry = entry;
  }

  @Override
  byte role() {
    return switch (kind) {
      case ACQUIRE, LEASE -> TAKE_ALL;
      case DECREMENT, WAIT_MANY_ENTRY -> TAKE_PARTIAL;
      case AWAIT_ZERO -> ZERO;
      default -> throw new IllegalStateException("unknown waiter kind " + kind);
    };
  }

  boolean partial() {
    return kind == DECREMENT || kind == WAIT_MANY_ENTRY;
  }

  @Override
  Result notDone() {
    return notDone(kind, seq);
  }

  /** What a request of this kind answers when it is not served: timed out or cancelled. */
  static Result notDone(byte kind, long seq) {
    return switch (kind) {
      case DECREMENT, ACQUIRE -> new Result.Granted(0, 0, seq, List.of());
      case LEASE -> new Result.LeaseGranted(0, 0, 0, seq, List.of(), 0);
      case AWAIT_ZERO -> new Result.ZeroReached(false, seq);
      default -> throw new IllegalStateException("a WaitMany entry has no request to answer");
    };
  }

  @Override
  String kind() {
    return switch (kind) {
      case DECREMENT -> owned ? "decrement-owned" : "decrement";
      case ACQUIRE -> owned ? "acquire-owned" : "acquire";
      case LEASE -> "lease";
      case AWAIT_ZERO -> "await-zero";
      case WAIT_MANY_ENTRY -> "wait-many";
      default -> throw new IllegalStateException("unknown waiter kind " + kind);
    };
  }

  @Override
  long amount() {
    return requested;
  }
}
