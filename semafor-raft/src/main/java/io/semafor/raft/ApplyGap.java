package io.semafor.raft;

import java.time.Duration;

/**
 * Notices a state machine that can never apply again: committed entries wait, but the next one to
 * apply is no longer in the log (it starts after it), and this has not changed for {@link #LIMIT}
 * (decision 0037). Pure: the node's indexes and the time come in as arguments. Not thread-safe: one
 * watch thread asks.
 *
 * <p>Ratis purges a follower's log up to a snapshot the leader installed as soon as the snapshot is
 * in place, and loads it into the state machine afterwards, on its apply thread. If a second
 * snapshot is installed while the first is being loaded, the first load's end marks the apply
 * thread running again and the second load never happens: the state machine stays at the first
 * snapshot, the log starts after the second, and the apply thread spins on an entry that is not
 * there (found by the fault harness: a new member stayed at applied 1599 of 2664, its apply thread
 * at 100% of a core). Only a restart, which loads the newest snapshot on disk, brings it back.
 */
final class ApplyGap {
  /**
   * How long the gap may last: far above the time a snapshot takes to load, during which the log
   * already starts after the state machine's index.
   */
  static final Duration LIMIT = Duration.ofSeconds(15);

  private static final long NONE = Long.MIN_VALUE;

  private long since = NONE;
  private long appliedSince;

  /**
   * Whether the state machine has been stuck behind its log for {@link #LIMIT}.
   *
   * @param applied the index last applied to the state machine
   * @param logStart the first index still in the log
   * @param committed the commit index
   * @param nowNanos a monotonic clock reading
   */
  boolean stuck(long applied, long logStart, long committed, long nowNanos) {
    if (committed <= applied || applied + 1 >= logStart) {
      since = NONE;
      return false;
    }
    if (since == NONE || applied != appliedSince) {
      since = nowNanos;
      appliedSince = applied;
      return false;
    }
    return nowNanos - since >= LIMIT.toNanos();
  }
}
