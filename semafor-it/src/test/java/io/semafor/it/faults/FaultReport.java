package io.semafor.it.faults;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The campaign's table for docs/reliability.md: per fault kind, how many times it was applied, in
 * how many runs, and the violations of the runs it was in; then every check's violations over all
 * runs, and failover times over every fault that took the leader away.
 */
final class FaultReport {
  private FaultReport() {}

  static String table(List<FaultRun.Outcome> outcomes) {
    StringBuilder out = new StringBuilder();
    int operations = 0;
    Map<String, Integer> byCheck = new TreeMap<>();
    Map<Fault, int[]> byFault = new TreeMap<>(); // applied, runs, violations in those runs
    List<Long> failovers = new ArrayList<>();
    Map<String, Integer> notes = new TreeMap<>(); // what breaks no promise, by kind
    for (FaultRun.Outcome o : outcomes) {
      operations += o.totalOperations();
      int violations = 0;
      for (Map.Entry<String, List<String>> e : o.violations().entrySet()) {
        if (e.getKey().startsWith(FaultRun.NOT_A_VIOLATION)) {
          notes.merge(
              e.getKey().substring(FaultRun.NOT_A_VIOLATION.length()),
              e.getValue().size(),
              Integer::sum);
        } else {
          byCheck.merge(e.getKey(), e.getValue().size(), Integer::sum);
          violations += e.getValue().size();
        }
      }
      java.util.Set<Fault> inRun = java.util.EnumSet.noneOf(Fault.class);
      for (FaultRun.Applied a : o.applied()) {
        byFault.computeIfAbsent(a.fault(), f -> new int[3])[0]++;
        inRun.add(a.fault());
        if (a.failoverMillis() >= 0) {
          failovers.add(a.failoverMillis());
        }
      }
      for (Fault f : inRun) {
        int[] n = byFault.computeIfAbsent(f, k -> new int[3]);
        n[1]++;
        n[2] += violations;
      }
    }
    out.append(
        String.format(
            Locale.ROOT,
            "%d runs, %d operations recorded; not violations: %s%n%n",
            outcomes.size(),
            operations,
            notes));
    out.append(
        "| fault | applied | runs with it | violations in those runs |\n|---|---|---|---|\n");
    byFault.forEach(
        (f, n) ->
            out.append(
                String.format(Locale.ROOT, "| %s | %d | %d | %d |%n", f.name(), n[0], n[1], n[2])));
    out.append("\n| check | violations |\n|---|---|\n");
    byCheck.forEach((c, n) -> out.append("| ").append(c).append(" | ").append(n).append(" |\n"));
    Collections.sort(failovers);
    out.append(
        String.format(
            Locale.ROOT,
            "%nfailover (a node other than the lost leader says it leads), over %d leader losses:"
                + " p50 %s ms, p95 %s ms, max %s ms%n",
            failovers.size(),
            percentile(failovers, 50),
            percentile(failovers, 95),
            failovers.isEmpty() ? "-" : failovers.get(failovers.size() - 1)));
    return out.toString();
  }

  private static String percentile(List<Long> sorted, int p) {
    if (sorted.isEmpty()) {
      return "-";
    }
    int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
    return Long.toString(sorted.get(Math.max(0, i)));
  }
}
