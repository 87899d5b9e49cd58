package io.semafor.raft;

import java.time.Duration;

/**
 * Decides when entries a leader sent to one follower, and never heard back about, are to be sent
 * again (decision 0036). Pure: the appender's state and the time come in as arguments. Not
 * thread-safe: one appender's thread asks.
 *
 * <p>Ratis moves a follower's next index past the entries of a request when it sends the request.
 * If the stream then breaks and the error cannot be matched to the request, Ratis keeps that next
 * index and forgets the request. Should the follower have taken the entries, its answers to
 * heartbeats are successes — which carry no match index — so the leader never learns it has them;
 * should it not have, nothing sends them again. Either way the entries are committed only when a
 * later entry's success moves the match index past them, and Semafor sends no later entry while one
 * waits (decision 0015): the leader served no one (found by the fault harness under packet delay
 * and cut connections). Entries are <em>stranded</em> when the next index is past the match index
 * plus one and no request with entries is in flight; stranded for {@link #LIMIT}, they are sent
 * again from the match index plus one. The follower skips what it already has.
 */
final class StrandedEntries {
  /**
   * How long entries may stay stranded, with the follower answering meanwhile, before they are sent
   * again: so that a success being processed (its request already removed, the match index not yet
   * moved) is never taken for a lost one.
   */
  static final Duration LIMIT = Duration.ofSeconds(1);

  private static final long NOT_STRANDED = Long.MIN_VALUE;

  private final long matchAtStart;
  private final long nextAtStart;
  private long strandedSince = NOT_STRANDED;

  /**
   * @param matchAtStart the follower's match index when the appender started (-1 in a new term)
   * @param nextAtStart its next index then (the leader's end in a new term): until the follower has
   *     acknowledged something, only entries sent past this are known to have been sent, and
   *     sending from the unknown match index would resend a whole log, or a snapshot
   */
  StrandedEntries(long matchAtStart, long nextAtStart) {
    this.matchAtStart = matchAtStart;
    this.nextAtStart = nextAtStart;
  }

  /**
   * The index to send from again, or -1 to leave the next index as it is.
   *
   * @param entriesInFlight whether a request with entries awaits its answer
   * @param matchIndex the follower's match index
   * @param nextIndex the follower's next index
   * @param lastAnswerNanos when the follower last answered anything (the clock of {@code
   *     nowNanos}): entries are sent again only once it answered after they were found stranded, so
   *     a follower that is down is left to Ratis's retries
   * @param nowNanos a monotonic clock reading
   */
  long resendFrom(
      boolean entriesInFlight,
      long matchIndex,
      long nextIndex,
      long lastAnswerNanos,
      long nowNanos) {
    long from = matchIndex > matchAtStart ? matchIndex + 1 : nextAtStart;
    if (entriesInFlight || nextIndex <= from) {
      strandedSince = NOT_STRANDED;
      return -1;
    }
    if (strandedSince == NOT_STRANDED) {
      strandedSince = nowNanos;
      return -1;
    }
    if (nowNanos - strandedSince < LIMIT.toNanos() || lastAnswerNanos - strandedSince <= 0) {
      return -1;
    }
    strandedSince = NOT_STRANDED;
    return from;
  }
}
