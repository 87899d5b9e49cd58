package io.semafor.raft;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches a member for the ways it was seen to stop serving without failing, every {@link
 * AppenderWatch#CHECK_EVERY}: a log appender stuck on a dead connection (restarted, {@link
 * AppenderWatch}), an entry Ratis has held too long (logged), and a state machine that can never
 * apply again ({@link ApplyGap}: the node is stopped, fail-stop). One daemon thread; never throws.
 */
final class RaftHealthWatch implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RaftHealthWatch.class);

  /** How long an entry may stay in flight before {@link #checkEntryInFlight} says so. */
  static final Duration ENTRY_IN_FLIGHT_WARNING = Duration.ofSeconds(30);

  private final String nodeId;
  private final RaftServer.Division division;
  private final AppenderWatch appenderWatch;
  private final EntrySender<?, ?, ?> sender;
  private final BooleanSupplier leader;

  /** Told why, once, when the state machine can never apply again. */
  private final Consumer<String> cannotApply;

  private final ApplyGap applyGap = new ApplyGap();
  private final ScheduledExecutorService timer;

  /** The batch {@link #checkEntryInFlight} last warned about, so that it warns once per entry. */
  private long warnedBatch;

  RaftHealthWatch(
      String nodeId,
      RaftServer.Division division,
      AppenderWatch appenderWatch,
      EntrySender<?, ?, ?> sender,
      BooleanSupplier leader,
      Consumer<String> cannotApply) {
    this.nodeId = nodeId;
    this.division = division;
    this.appenderWatch = appenderWatch;
    this.sender = sender;
    this.leader = leader;
    this.cannotApply = cannotApply;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            RaftReplicator.daemon("semafor-raft-watch-" + nodeId));
  }

  /** Starts the checks; they run until {@link #close}. */
  @SuppressWarnings("FutureReturnValueIgnored") // runs until close; no check throws
  void start() {
    timer.scheduleWithFixedDelay(
        () -> {
          appenderWatch.check();
          checkEntryInFlight();
          checkApplyGap();
        },
        AppenderWatch.CHECK_EVERY.toMillis(),
        AppenderWatch.CHECK_EVERY.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }

  /**
   * Warns, once per entry, when the entry in flight has waited for Ratis's answer longer than
   * {@link #ENTRY_IN_FLIGHT_WARNING}: with one entry in flight at a time, every command queued
   * behind it waits too, so this is the moment a leader stops serving. The log line says whether
   * Ratis has the entry uncommitted (its last index above the commit index: replication stalled) or
   * does not seem to have it at all.
   */
  private void checkEntryInFlight() {
    try {
      EntrySender.InFlight entry = sender.entryInFlight();
      if (entry == null
          || entry.batch() == warnedBatch
          || entry.waitedNanos() < ENTRY_IN_FLIGHT_WARNING.toNanos()) {
        return;
      }
      warnedBatch = entry.batch();
      TermIndex last = division.getRaftLog().getLastEntryTermIndex();
      log.warn(
          "entry {} of {} has waited {} ms for Ratis (leader: {}; {} commands queued behind it;"
              + " log last {} commit {} applied {})",
          entry.batch(),
          nodeId,
          TimeUnit.NANOSECONDS.toMillis(entry.waitedNanos()),
          leader.getAsBoolean(),
          entry.queued(),
          last,
          division.getRaftLog().getLastCommittedIndex(),
          division.getInfo().getLastAppliedIndex());
    } catch (RuntimeException e) {
      log.debug("checking the entry in flight", e);
    }
  }

  /**
   * Tells {@link #cannotApply} when the state machine can never apply again ({@link ApplyGap}):
   * started again, the node loads the newest snapshot on its disk.
   */
  private void checkApplyGap() {
    try {
      long applied = division.getInfo().getLastAppliedIndex();
      long start = division.getRaftLog().getStartIndex();
      long committed = division.getRaftLog().getLastCommittedIndex();
      if (applyGap.stuck(applied, start, committed, System.nanoTime())) {
        cannotApply.accept(
            "the state machine of "
                + nodeId
                + " is at index "
                + applied
                + " but its log starts at "
                + start
                + ", with entries up to "
                + committed
                + " committed: it can never apply them (a snapshot installed while another was"
                + " being loaded; decision 0037)");
      }
    } catch (RuntimeException e) {
      log.debug("checking the applied index", e);
    }
  }
}
