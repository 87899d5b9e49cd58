package io.semafor.core;

import java.util.List;

/** A waiting {@code semop}: its resolved plan and one queue node per semaphore it names. */
final class SemopWaiter extends Waiter {
  final SemopPlan plan;
  final SemopNode[] nodes;

  SemopWaiter(Session session, long requestId, long seq, long deadline, SemopPlan plan) {
    super(session, requestId, seq, deadline);
    this.plan = plan;
    this.nodes = new SemopNode[plan.distinct.length];
    for (int d = 0; d < nodes.length; d++) {
      nodes[d] = new SemopNode(this, plan.distinct[d], plan.takes(d) ? TAKE_ALL : WATCH);
    }
  }

  @Override
  byte role() {
    throw new IllegalStateException("a semop waits through its nodes");
  }

  @Override
  Result notDone() {
    return new Result.SemopDone(false, 0, seq, List.of());
  }

  @Override
  String kind() {
    return "semop";
  }

  @Override
  long amount() {
    return plan.size();
  }
}
