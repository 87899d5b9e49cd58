package io.semafor.microraft;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * How long this member's snapshots held its thread (encoding the state, writing and flushing it,
 * compacting the log behind it), and what to tell the operator when one held it long enough to cost
 * the group its leader. MicroRaft takes a snapshot on the member's only thread: meanwhile a leader
 * sends no heartbeat, and a snapshot longer than the followers' election timeout makes them elect
 * another (a million semaphores, three members on two cores: docs/cluster.md, "Snapshots",
 * semafor-bench/snapshot-pause.sh).
 *
 * <p>Thread-safe: written on the member's thread, read by metrics on any.
 */
final class SnapshotPauses {
  private final Duration electionTimeout;
  private final AtomicLong count = new AtomicLong();
  private volatile long lastNanos;
  private volatile long longestNanos;
  private volatile boolean warned;

  /** For a member whose followers give its leader up after {@code electionTimeout}. */
  SnapshotPauses(Duration electionTimeout) {
    this.electionTimeout = electionTimeout;
  }

  /**
   * A snapshot held the thread {@code nanos}: returns the warning to log, once per member, when it
   * held it for more than a third of the election timeout (a leader's heartbeat already waits up to
   * one period, and followers time out at the timeout: past a third, a busy machine's snapshot is
   * one scheduling hiccup away from an election); null otherwise.
   */
  @Nullable String taken(long nanos) {
    count.incrementAndGet();
    lastNanos = nanos;
    if (nanos > longestNanos) {
      longestNanos = nanos;
    }
    if (warned || nanos * 3 <= electionTimeout.toNanos()) {
      return null;
    }
    warned = true;
    long millis = nanos / 1_000_000;
    return "a snapshot held this member's thread "
        + millis
        + " ms, more than a third of the election timeout ("
        + electionTimeout.toMillis()
        + " ms): while a leader snapshots it sends no heartbeat, and its followers may elect"
        + " another. Raise --election-timeout on every member to at least three times the longest"
        + " snapshot (about "
        + Math.max(1, (millis * 3 + 999) / 1000)
        + "s), or snapshot less often (microraft.snapshot-every); docs/cluster.md, \"Snapshots\"";
  }

  /** Snapshots taken since the member started. */
  long count() {
    return count.get();
  }

  /** How long the last snapshot held the thread, in seconds; 0 before the first. */
  double lastSeconds() {
    return lastNanos / 1e9;
  }

  /** The longest any snapshot held it, in seconds. */
  double longestSeconds() {
    return longestNanos / 1e9;
  }
}
