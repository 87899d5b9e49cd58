package io.semafor.it.faults;

import java.util.List;
import java.util.Map;

/**
 * What {@link FaultRun#check} says of a hand-written history, for tests of how clients record what
 * they saw: every violation as {@code "check: violation"}, the pools back at capacity and the
 * counter and tickets at 0 at quiescence.
 */
final class HistoryVerdicts {
  private HistoryVerdicts() {}

  /**
   * Pools back at capacity, the counter and the tickets at 0: what quiescence reads after such
   * histories.
   */
  static Map<String, Long> quiet() {
    return Map.of(
        FaultRun.POOLS.get(0),
        2L,
        FaultRun.POOLS.get(1),
        2L,
        FaultRun.COUNTER,
        0L,
        FaultRun.TICKETS.get(0),
        0L,
        FaultRun.TICKETS.get(1),
        0L);
  }

  /** Every violation the run's checks find in {@code ops}; empty if none. */
  static List<String> violations(List<Op> ops) {
    return FaultRun.check(ops, quiet()).entrySet().stream()
        .filter(e -> !e.getKey().startsWith(FaultRun.NOT_A_VIOLATION))
        .flatMap(e -> e.getValue().stream().map(v -> e.getKey() + ": " + v))
        .toList();
  }
}
