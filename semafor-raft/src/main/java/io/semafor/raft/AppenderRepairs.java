package io.semafor.raft;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The counts of what a member's {@link RepairingLogAppender}s repaired, across all of them, for the
 * metrics ({@link RaftMetrics}). Thread-safe.
 *
 * @param matchCorrections follower match indexes brought down (decision 0036)
 * @param strandedResends entries sent again that no request in flight carried ({@link
 *     StrandedEntries})
 * @param goneEntries appender passes that found an entry compacted away while reading it (decision
 *     0039)
 */
record AppenderRepairs(
    AtomicLong matchCorrections, AtomicLong strandedResends, AtomicLong goneEntries) {
  /** All counts at zero. */
  AppenderRepairs() {
    this(new AtomicLong(), new AtomicLong(), new AtomicLong());
  }
}
