package io.semafor.raft;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.grpc.server.GrpcLogAppender;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.leader.FollowerInfo;
import org.apache.ratis.server.leader.LeaderState;
import org.apache.ratis.server.leader.LogAppenderBase;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.raftlog.RaftLogIOException;
import org.apache.ratis.util.DataQueue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ratis's gRPC log appender with two repairs of the leader's record of its follower (decision
 * 0036): it believes a follower that says it lacks entries the leader has recorded as on it, and it
 * sends again entries whose request was lost ({@link StrandedEntries}). And it keeps running when
 * an entry it reads leaves the log under it ({@link #run}, decision 0039).
 *
 * <p>When a follower answers an append {@code INCONSISTENCY} ("send me from index n"), Ratis never
 * sets the next index below the follower's match index plus one, assuming a follower never loses
 * what it acknowledged. When that record is ahead of the follower's log anyway, and the answer
 * cannot be paired with its request (Ratis drops its pending requests at every such answer, and a
 * heartbeat carries no entries), every retry starts above the follower's last entry and draws the
 * same answer: the follower is never sent the entries it lacks, and serves no one until new entries
 * happen to come (found by the fault harness: a follower killed and restarted stayed one entry
 * short for the rest of a run). Here the match index comes down to what the follower has, so the
 * next append starts where the follower asked. Lowering a match index is always safe: the leader's
 * commit index never goes back, and a lower record only waits for the follower's next success to
 * raise it again.
 */
final class RepairingLogAppender extends GrpcLogAppender {
  private static final Logger log = LoggerFactory.getLogger(RepairingLogAppender.class);

  private static final long NO_CORRECTION = Long.MIN_VALUE;

  private final AppenderRepairs repairs;
  private final StrandedEntries stranded;

  /**
   * The match index a follower's answer showed it has, to be set before the next request: the
   * answer is read on a gRPC thread, outside the appender's lock, while the request is built under
   * it, so the follower's record is changed only there.
   */
  private final AtomicLong correctedMatch = new AtomicLong(NO_CORRECTION);

  /**
   * @param repairs where the repairs of the member's appenders are counted
   */
  RepairingLogAppender(
      RaftServer.Division server, LeaderState state, FollowerInfo f, AppenderRepairs repairs) {
    super(server, state, f);
    this.repairs = repairs;
    this.stranded = new StrandedEntries(f.getMatchIndex(), f.getNextIndex());
  }

  /** The pause before an appender whose entry left the log under it tries again. */
  static final long ENTRY_GONE_PAUSE_MILLIS = 20;

  /**
   * Ratis's buffer of entries being gathered for a request ({@code LogAppenderBase.buffer}): it
   * fills it entry by entry and clears it only when the request is built, so a read that fails
   * half-way leaves it full and the next request fails its "buffer is empty" check. Null if this
   * Ratis has no such field: then a failed read ends the appender, as Ratis does.
   */
  static final java.lang.reflect.@Nullable Field BUFFER = bufferField();

  private static java.lang.reflect.@Nullable Field bufferField() {
    try {
      java.lang.reflect.Field f = LogAppenderBase.class.getDeclaredField("buffer");
      if (!DataQueue.class.isAssignableFrom(f.getType())) {
        return null;
      }
      f.setAccessible(true);
      return f;
    } catch (NoSuchFieldException | RuntimeException e) {
      log.warn("Ratis's log appender has no entry buffer to clear: {}", e.toString());
      return null;
    }
  }

  /**
   * Runs Ratis's appender, and keeps it running when an entry it is reading for the follower was
   * compacted away meanwhile (a snapshot purged the log under it: "Log entry not found"). Ratis
   * lets the exception end the appender and then starts a new one only for a member of the current
   * configuration, so the appender of a member being added (still staging) was gone for good, and
   * the leader, seeing no appender left behind, committed the new configuration with that member
   * never caught up and never sent anything again (found by the fault harness: a replacement added
   * under load stayed at applied -1). The next pass finds the follower's next entry below the log's
   * start and sends the snapshot. Any other failure ends the appender as before.
   */
  @Override
  public void run() throws IOException {
    runThroughGoneEntries(
        super::run,
        e ->
            BUFFER != null
                && isRunning()
                && getRaftLog().getStartIndex() > getFollower().getNextIndex(),
        e -> {
          repairs.goneEntries().incrementAndGet();
          long now = System.nanoTime();
          if (now - lastGoneWarning > GONE_WARNING_EVERY_NANOS) {
            lastGoneWarning = now;
            log.warn(
                "{}: {} while reading entries for {} from {}: the log was compacted to {} under it;"
                    + " sending the snapshot instead",
                this,
                e.getMessage(),
                getFollower().getName(),
                getFollower().getNextIndex(),
                getRaftLog().getStartIndex());
          }
        });
  }

  /** At most one warning about compacted entries per appender per this many nanoseconds. */
  private static final long GONE_WARNING_EVERY_NANOS = TimeUnit.SECONDS.toNanos(5);

  /** When this appender last warned about compacted entries (its own thread only). */
  private long lastGoneWarning = System.nanoTime() - GONE_WARNING_EVERY_NANOS - 1;

  /** The body of an appender's run: Ratis's own. */
  interface Body {
    void run() throws IOException;
  }

  /**
   * Runs {@code body} until it returns; when it throws a {@link RaftLogIOException} that {@code
   * compacted} says came from entries compacted away, tells {@code gone} and runs it again after
   * {@link #ENTRY_GONE_PAUSE_MILLIS}. Any other failure ends it, as before.
   *
   * @throws IOException what {@code body} threw, when it was not compacted entries
   * @throws java.io.InterruptedIOException if interrupted during the pause
   */
  static void runThroughGoneEntries(
      Body body,
      java.util.function.Predicate<RaftLogIOException> compacted,
      java.util.function.Consumer<RaftLogIOException> gone)
      throws IOException {
    while (true) {
      try {
        body.run();
        return;
      } catch (RaftLogIOException e) {
        if (!compacted.test(e)) {
          throw e;
        }
        gone.accept(e);
        try {
          TimeUnit.MILLISECONDS.sleep(ENTRY_GONE_PAUSE_MILLIS);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw new java.io.InterruptedIOException("interrupted after " + e.getMessage());
        }
      }
    }
  }

  /** Called by Ratis under the appender's lock before every request it sends, heartbeats too. */
  @Override
  public AppendEntriesRequestProto newAppendEntriesRequest(long callId, boolean heartbeat)
      throws RaftLogIOException {
    FollowerInfo follower = getFollower();
    long corrected = correctedMatch.getAndSet(NO_CORRECTION);
    if (corrected != NO_CORRECTION && follower.getMatchIndex() > corrected) {
      long next = follower.getNextIndex();
      // the only way Ratis offers to lower a match index: it sets the snapshot index and the next
      // index with it. The snapshot index matters only when the entry before the next one is no
      // longer in the leader's log, and then the follower is sent a snapshot, which sets all three
      follower.setSnapshotIndex(corrected);
      follower.setNextIndex(Math.min(next, corrected + 1));
    }
    long now = System.nanoTime();
    long answered =
        now - follower.getLastRpcResponseTime().elapsedTime().toLong(TimeUnit.NANOSECONDS);
    long from =
        stranded.resendFrom(
            hasPendingDataRequests(),
            follower.getMatchIndex(),
            follower.getNextIndex(),
            answered,
            now);
    if (from >= 0) {
      log.warn(
          "{} has not acknowledged entries {} to {} and none is in flight to it: sending them"
              + " again",
          follower.getName(),
          from,
          follower.getNextIndex() - 1);
      follower.setNextIndex(from);
      repairs.strandedResends().incrementAndGet();
    }
    try {
      return super.newAppendEntriesRequest(callId, heartbeat);
    } catch (RaftLogIOException e) {
      clearBuffer(); // so that the next request, after run() goes on, starts from an empty buffer
      throw e;
    }
  }

  /** Empties Ratis's entry buffer ({@link #BUFFER}) left full by a read that failed half-way. */
  private void clearBuffer() {
    if (BUFFER == null) {
      return;
    }
    try {
      Object buffer = BUFFER.get(this);
      if (buffer instanceof DataQueue<?> queue) {
        queue.clear();
      }
    } catch (IllegalAccessException e) {
      log.warn("cannot clear Ratis's entry buffer: {}", e.toString());
    }
  }

  /** Called by Ratis on the gRPC thread that reads the follower's answer. */
  @Override
  protected long getNextIndexForInconsistency(long requestFirstIndex, long replyNextIndex) {
    long recorded = getFollower().getMatchIndex();
    if (replyNextIndex < RaftLog.LEAST_VALID_LOG_INDEX || replyNextIndex > recorded) {
      return super.getNextIndexForInconsistency(requestFirstIndex, replyNextIndex);
    }
    log.warn(
        "{} asks for entries from {} although it was recorded as having up to {}: taking its"
            + " word, sending from {}",
        getFollower().getName(),
        replyNextIndex,
        recorded,
        replyNextIndex);
    correctedMatch.set(replyNextIndex - 1);
    repairs.matchCorrections().incrementAndGet();
    // what Ratis would choose were the match index already down: where the follower asked, but
    // never the same first entry again
    return replyNextIndex == requestFirstIndex && replyNextIndex > RaftLog.LEAST_VALID_LOG_INDEX
        ? replyNextIndex - 1
        : replyNextIndex;
  }
}
