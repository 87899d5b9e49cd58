package io.semafor.load;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The medians over several rounds of the same cells, each with its range, and each workload's
 * pairs/s as a ratio to the echo floor measured in the same round at the same client count (the
 * issue's targets are ratios to figures measured on the same machine, which moves a lot from run to
 * run; a ratio within one round cancels most of that).
 */
final class Summary {
  private final Map<String, List<Result>> cells = new LinkedHashMap<>();
  private final Map<String, List<Double>> echoRatios = new LinkedHashMap<>();
  private final Map<String, Double> echoOfRound = new LinkedHashMap<>();

  void add(int round, Result r) {
    String cell = r.workload() + " " + r.clients();
    cells.computeIfAbsent(cell, k -> new ArrayList<>()).add(r);
    if (r.workload().equals("echo")) {
      echoOfRound.put(round + " " + r.clients(), r.pairsPerSecond());
    } else if (r.workload().startsWith("W")) {
      Double echo = echoOfRound.get(round + " " + r.clients());
      if (echo != null && echo > 0) {
        echoRatios.computeIfAbsent(cell, k -> new ArrayList<>()).add(r.pairsPerSecond() / echo);
      }
    }
  }

  String render(boolean json) {
    StringBuilder out = new StringBuilder();
    if (!json) {
      out.append(
          String.format(
              Locale.ROOT,
              "%-9s %7s %6s %12s %21s %10s %10s %10s %7s %9s%n",
              "median",
              "clients",
              "rounds",
              "pairs/s",
              "range",
              "p50 µs",
              "p99 µs",
              "p99.9 µs",
              "Jain",
              "vs echo"));
    }
    cells.forEach(
        (cell, runs) -> {
          Result first = runs.get(0);
          List<Double> ratios = echoRatios.getOrDefault(cell, List.of());
          double ratio = ratios.isEmpty() ? Double.NaN : median(ratios, d -> d);
          double low = runs.stream().mapToDouble(Result::pairsPerSecond).min().orElse(0);
          double high = runs.stream().mapToDouble(Result::pairsPerSecond).max().orElse(0);
          if (json) {
            out.append(
                String.format(
                    Locale.ROOT,
                    "{\"summary\":true,\"workload\":\"%s\",\"clients\":%d,\"rounds\":%d,"
                        + "\"pairsPerSecond\":%.0f,\"min\":%.0f,\"max\":%.0f,\"p50Micros\":%.1f,"
                        + "\"p99Micros\":%.1f,\"p999Micros\":%.1f,\"jain\":%.4f,\"vsEcho\":%s}%n",
                    first.workload(),
                    first.clients(),
                    runs.size(),
                    median(runs, Result::pairsPerSecond),
                    low,
                    high,
                    median(runs, Result::p50Micros),
                    median(runs, Result::p99Micros),
                    median(runs, Result::p999Micros),
                    median(runs, Result::jain),
                    Double.isNaN(ratio) ? "null" : String.format(Locale.ROOT, "%.3f", ratio)));
          } else {
            out.append(
                String.format(
                    Locale.ROOT,
                    "%-9s %7d %6d %,12.0f %,10.0f–%,-10.0f %10.1f %10.1f %10.1f %7.4f %9s%n",
                    first.workload(),
                    first.clients(),
                    runs.size(),
                    median(runs, Result::pairsPerSecond),
                    low,
                    high,
                    median(runs, Result::p50Micros),
                    median(runs, Result::p99Micros),
                    median(runs, Result::p999Micros),
                    median(runs, Result::jain),
                    Double.isNaN(ratio) ? "" : String.format(Locale.ROOT, "%.2f", ratio)));
          }
        });
    return out.toString().stripTrailing();
  }

  private static <T> double median(List<T> values, ToDoubleFunction<T> metric) {
    double[] sorted =
        values.stream().sorted(Comparator.comparingDouble(metric)).mapToDouble(metric).toArray();
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
