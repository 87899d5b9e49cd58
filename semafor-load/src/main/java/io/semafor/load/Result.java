package io.semafor.load;

import java.time.Duration;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * One run's figures: pairs per second, the acquire latency percentiles in microseconds, the fewest
 * and most pairs any client did, and Jain's fairness index over the clients' counts ({@code (Σx)² /
 * (n·Σx²)}: 1 when all did the same).
 */
record Result(
    String workload,
    int clients,
    double pairsPerSecond,
    double p50Micros,
    double p99Micros,
    double p999Micros,
    long minPerClient,
    long maxPerClient,
    double jain,
    long pairs) {

  static Result of(String workload, int clients, Duration duration, long[] counts, Histogram h) {
    long total = 0;
    long min = Long.MAX_VALUE;
    long max = 0;
    double sumSquares = 0;
    for (long c : counts) {
      total += c;
      min = Math.min(min, c);
      max = Math.max(max, c);
      sumSquares += (double) c * c;
    }
    double jain = sumSquares == 0 ? 0 : (double) total * total / (counts.length * sumSquares);
    return new Result(
        workload,
        clients,
        total / (duration.toNanos() / 1e9),
        h.getValueAtPercentile(50) / 1e3,
        h.getValueAtPercentile(99) / 1e3,
        h.getValueAtPercentile(99.9) / 1e3,
        min,
        max,
        jain,
        total);
  }

  static String header() {
    return String.format(
        Locale.ROOT,
        "%-9s %7s %12s %10s %10s %10s %10s %10s %7s",
        "workload",
        "clients",
        "pairs/s",
        "p50 µs",
        "p99 µs",
        "p99.9 µs",
        "min/cli",
        "max/cli",
        "Jain");
  }

  String row() {
    return String.format(
        Locale.ROOT,
        "%-9s %7d %,12.0f %10.1f %10.1f %10.1f %,10d %,10d %7.4f",
        workload,
        clients,
        pairsPerSecond,
        p50Micros,
        p99Micros,
        p999Micros,
        minPerClient,
        maxPerClient,
        jain);
  }

  String json() {
    return String.format(
        Locale.ROOT,
        "{\"workload\":\"%s\",\"clients\":%d,\"pairsPerSecond\":%.1f,\"p50Micros\":%.2f,"
            + "\"p99Micros\":%.2f,\"p999Micros\":%.2f,\"minPerClient\":%d,\"maxPerClient\":%d,"
            + "\"jain\":%.5f,\"pairs\":%d}",
        workload,
        clients,
        pairsPerSecond,
        p50Micros,
        p99Micros,
        p999Micros,
        minPerClient,
        maxPerClient,
        jain,
        pairs);
  }
}
