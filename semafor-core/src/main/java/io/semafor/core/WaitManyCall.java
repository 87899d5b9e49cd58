package io.semafor.core;

import java.util.List;

/** A {@code waitMany} call waiting for an entry of its list to be granted. */
final class WaitManyCall extends Waiter {
  final WaitList list;

  WaitManyCall(Session session, long requestId, long seq, long deadline, WaitList list) {
    super(session, requestId, seq, deadline);
    this.list = list;
  }

  @Override
  byte role() {
    throw new IllegalStateException("a waitMany call waits on its list, not in a queue");
  }

  @Override
  Result notDone() {
    return new Result.WaitManyReported(List.of());
  }

  @Override
  String kind() {
    return "wait-many-call";
  }

  @Override
  long amount() {
    return 0;
  }
}
