package io.semafor.it.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The fault campaign: {@code faults.runs} runs of {@code faults.seconds} seconds each on a {@code
 * faults.nodes}-node cluster, every fault kind mixed at random, each run's history checked. The
 * default build runs the smoke (semafor-it/pom.xml); {@code mvn -Pfaults} the long campaign
 * (docs/reliability.md). Writes the table of what it found to {@code
 * target/faults/summary-Nnodes.md} and fails listing every violation.
 */
class FaultCampaignTest {
  private static final int RUNS = Integer.getInteger("faults.runs", 6);
  private static final int SECONDS = Integer.getInteger("faults.seconds", 30);
  private static final int NODES = Integer.getInteger("faults.nodes", 3);

  /**
   * {@code -Dfaults.kinds=KILL_LEADER,PAUSE_LEADER}: only these; by default every kind, in the
   * default build's smoke as in the campaign.
   */
  private static final List<Fault> KINDS = kinds(System.getProperty("faults.kinds", ""));

  private static final int PARALLEL = Integer.getInteger("faults.parallel", 2);
  private static final long SEED = Long.getLong("faults.seed", System.currentTimeMillis());

  @Test
  void mixedFaultsBreakNoPromise() throws Exception {
    String unavailable = TestNetwork.unavailableBecause();
    Assumptions.assumeTrue(
        unavailable == null || "true".equals(System.getenv("CI")), String.valueOf(unavailable));
    Path dir =
        Path.of(
            "target",
            "faults",
            NODES
                + "nodes"
                + (FaultNode.REPLICATOR.equals("ratis") ? "" : "-" + FaultNode.REPLICATOR));
    // Runs are independent (a network and a cluster each), so a few go at once: the clients and
    // the checks only compare times one process recorded, so sharing the CPU slows a run without
    // making its history wrong.
    ExecutorService pool = Executors.newFixedThreadPool(PARALLEL);
    List<Future<FaultRun.Outcome>> futures = new ArrayList<>();
    for (int run = 1; run <= RUNS; run++) {
      long seed = SEED + run;
      FaultRun.Settings s =
          new FaultRun.Settings(
              NODES,
              3,
              Duration.ofSeconds(SECONDS),
              Duration.ofSeconds(4),
              Duration.ofSeconds(2),
              FaultRun.durability(run, KINDS),
              KINDS,
              seed,
              Duration.ofMillis(50),
              dir.resolve("run-" + run));
      futures.add(pool.submit(() -> FaultRun.run(s)));
    }
    List<FaultRun.Outcome> outcomes = new ArrayList<>();
    Map<String, List<String>> failures = new LinkedHashMap<>();
    try {
      for (int i = 0; i < futures.size(); i++) {
        FaultRun.Outcome o = futures.get(i).get(SECONDS + 600L, TimeUnit.SECONDS);
        outcomes.add(o);
        long seed = o.settings().seed();
        System.out.printf(
            "fault run %d/%d seed %d (%s): %d operations, faults %s, %s%n",
            i + 1,
            RUNS,
            seed,
            o.settings().durability(),
            o.totalOperations(),
            o.applied(),
            o.passed() ? "passed" : o.violations());
        if (!o.passed()) {
          failures.put("run " + (i + 1) + " (seed " + seed + ")", flatten(o));
        }
      }
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(120, TimeUnit.SECONDS)).as("runs stopped").isTrue();
    }
    String table = FaultReport.table(outcomes);
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("summary.md"), table);
    System.out.println(table);
    assertThat(failures).as("violations by run (logs under %s)", dir).isEmpty();
  }

  private static List<Fault> kinds(String given) {
    if (given.isBlank()) {
      return List.of(Fault.values());
    }
    List<Fault> out = new ArrayList<>();
    for (String k : given.split(",", -1)) {
      out.add(Fault.valueOf(k.strip().toUpperCase(java.util.Locale.ROOT)));
    }
    return out;
  }

  private static List<String> flatten(FaultRun.Outcome o) {
    List<String> out = new ArrayList<>();
    o.violations()
        .forEach(
            (check, found) -> {
              if (!check.startsWith(FaultRun.NOT_A_VIOLATION)) {
                found.stream().limit(5).forEach(v -> out.add(check + ": " + v));
              }
            });
    return out;
  }
}
