package io.semafor.microraft;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How long the log's syncs to disk took: the count of every sync, and the last {@link #KEPT}
 * durations for quantiles. Recorded by the node's thread, read by a metrics scrape on any other.
 *
 * <p>Thread-safe: one writer; a reader copies the kept durations under the same lock, so a scrape
 * holds the writer up for a copy of {@link #KEPT} longs at most.
 */
final class SyncTimes {
  /** Durations kept for quantiles: the most recent syncs. */
  static final int KEPT = 1024;

  private final long[] nanos = new long[KEPT];
  private final AtomicLong count = new AtomicLong();

  /** One sync that took {@code tookNanos}. */
  synchronized void record(long tookNanos) {
    long n = count.getAndIncrement();
    nanos[(int) (n % KEPT)] = tookNanos;
  }

  /** Syncs recorded since the store opened. */
  long count() {
    return count.get();
  }

  /**
   * The {@code quantile} (0 to 1) of the kept durations, in seconds, by the nearest-rank method; 0
   * if none was recorded.
   */
  double quantileSeconds(double quantile) {
    long[] kept;
    synchronized (this) {
      int n = (int) Math.min(count.get(), KEPT);
      kept = Arrays.copyOf(nanos, n);
    }
    if (kept.length == 0) {
      return 0;
    }
    Arrays.sort(kept);
    int rank = (int) Math.ceil(quantile * kept.length);
    return kept[Math.max(0, Math.min(kept.length - 1, rank - 1))] / 1e9;
  }
}
