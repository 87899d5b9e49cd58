package io.semafor.it;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Checks a {@link History} against what a semaphore promises, trusting nothing the server says
 * about itself:
 *
 * <ul>
 *   <li><b>never over capacity</b>: counting only intervals in which a client certainly held its
 *       permits (from the acquisition's return to the release's invocation), the permits held at
 *       any instant never exceed the capacity (so it can only fail if clients hold their permits
 *       for a while: {@link History}'s recorders do);
 *   <li><b>fencing tokens follow real time</b>: if one acquisition returned before another was
 *       invoked, its token is smaller;
 *   <li><b>FIFO</b>: if one acquisition returned before another was invoked, its arrival sequence
 *       number is smaller (grants in arrival order, docs/semantics.md#grant-order, checkable
 *       because grants carry it).
 * </ul>
 *
 * Each check returns the violations it found, empty if none, so a failing test shows them. Public
 * so that multi-process histories ({@code io.semafor.it.faults}) are held to the same checks.
 */
public final class HistoryChecker {
  private HistoryChecker() {}

  /** Instants at which certainly-held permits exceeded {@code capacity}. */
  public static List<String> overCapacity(List<History.Hold> holds, long capacity) {
    record Edge(long at, long delta) {}
    List<Edge> edges = new ArrayList<>();
    for (History.Hold h : holds) {
      if (h.releaseInvoked() > h.acquireReturned()) {
        edges.add(new Edge(h.acquireReturned(), h.amount()));
        edges.add(new Edge(h.releaseInvoked(), -h.amount()));
      }
    }
    // At equal instants, let go before taking: such a pair did not certainly overlap.
    edges.sort(Comparator.comparingLong(Edge::at).thenComparingLong(Edge::delta));
    List<String> violations = new ArrayList<>();
    long held = 0;
    for (Edge e : edges) {
      held += e.delta();
      if (held > capacity) {
        violations.add(
            held + " permits certainly held at " + e.at() + " (capacity " + capacity + ")");
      }
    }
    return violations;
  }

  /** Pairs where an acquisition that came after another in real time has a token not larger. */
  public static List<String> tokensOutOfOrder(List<History.Hold> holds) {
    return realTimeOrderViolations(holds, History.Hold::token, "token");
  }

  /** Pairs where an acquisition that came after another in real time arrived earlier. */
  public static List<String> sequencesOutOfOrder(List<History.Hold> holds) {
    return realTimeOrderViolations(holds, History.Hold::sequence, "sequence");
  }

  private static List<String> realTimeOrderViolations(
      List<History.Hold> holds, java.util.function.ToLongFunction<History.Hold> key, String what) {
    List<History.Hold> byInvoke = new ArrayList<>(holds);
    byInvoke.sort(Comparator.comparingLong(History.Hold::acquireInvoked));
    List<History.Hold> byReturn = new ArrayList<>(holds);
    byReturn.sort(Comparator.comparingLong(History.Hold::acquireReturned));
    // Sweep: for each acquisition in invocation order, every one that returned before it was
    // invoked must have a smaller key; keep the largest such key seen so far.
    List<String> violations = new ArrayList<>();
    long largestBefore = Long.MIN_VALUE;
    History.Hold largestHold = null;
    int r = 0;
    for (History.Hold h : byInvoke) {
      while (r < byReturn.size() && byReturn.get(r).acquireReturned() < h.acquireInvoked()) {
        History.Hold done = byReturn.get(r++);
        if (key.applyAsLong(done) > largestBefore) {
          largestBefore = key.applyAsLong(done);
          largestHold = done;
        }
      }
      if (largestHold != null && key.applyAsLong(h) <= largestBefore) {
        violations.add(what + " " + key.applyAsLong(h) + " of " + h + " after " + largestHold);
      }
    }
    return violations;
  }
}
