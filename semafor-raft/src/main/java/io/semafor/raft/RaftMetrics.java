package io.semafor.raft;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.semafor.replication.group.GroupMetrics;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.ratis.metrics.Timekeeper;
import org.apache.ratis.metrics.impl.DefaultTimekeeperImpl;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.metrics.RaftLogMetrics;
import org.apache.ratis.server.metrics.SegmentedRaftLogMetrics;
import org.apache.ratis.thirdparty.com.codahale.metrics.Snapshot;
import org.apache.ratis.thirdparty.com.codahale.metrics.Timer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Ratis member's series on the server's registry: the ones every replicator exports ({@link
 * GroupMetrics}: the leader, the term, leader changes, the commit and applied index, the log's
 * syncs), then Ratis's own: stuck log appenders restarted and the appenders' repairs.
 *
 * <p>Every value is read at scrape time from fields Ratis keeps in atomics or volatiles (the
 * division's term and leader, the log's commit index, the state machine's applied index), so a
 * scrape never waits for the apply thread or the log worker, nor they for it.
 *
 * <p>The sync time comes from Ratis's own log metrics (decision 0023): its log worker times every
 * sync of the open segment into a Dropwizard timer of the default metrics implementation
 * (ratis-metrics-default). The timer's count is exported as a counter and its decaying sample
 * (about the last five minutes) as quantile gauges. If Ratis runs another metrics implementation,
 * those series are absent and the rest stay.
 */
final class RaftMetrics {
  private static final Logger log = LoggerFactory.getLogger(RaftMetrics.class);

  /** How long one snapshot of the sync timer's sample serves: the gauges of one scrape share it. */
  private static final long SNAPSHOT_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final RaftServer.Division division;
  private final BooleanSupplier isLeader;
  private final AtomicLong leaderChanges;
  private final AppenderWatch appenderWatch;
  private final AppenderRepairs repairs;
  private @Nullable Snapshot snapshot;
  private long snapshotAt;

  RaftMetrics(
      RaftServer.Division division,
      BooleanSupplier isLeader,
      AtomicLong leaderChanges,
      AppenderWatch appenderWatch,
      AppenderRepairs repairs) {
    this.division = division;
    this.isLeader = isLeader;
    this.leaderChanges = leaderChanges;
    this.appenderWatch = appenderWatch;
    this.repairs = repairs;
  }

  void bindTo(MeterRegistry registry) {
    GroupMetrics.bind(registry, new Group(division, isLeader, leaderChanges));
    FunctionCounter.builder(
            "semafor_raft_appender_restarts", appenderWatch, AppenderWatch::restarts)
        .description(
            "Log appenders this leader restarted because they had sent their follower nothing for"
                + " 30 s (stuck on a dead connection; AppenderWatch)")
        .register(registry);
    FunctionCounter.builder(
            "semafor_raft_match_corrections", repairs.matchCorrections(), AtomicLong::get)
        .description(
            "Times this leader brought a follower's match index down because the follower asked"
                + " for entries it was recorded as having (RepairingLogAppender)")
        .register(registry);
    FunctionCounter.builder(
            "semafor_raft_stranded_resends", repairs.strandedResends(), AtomicLong::get)
        .description(
            "Times this leader sent entries again that a follower had not acknowledged and no"
                + " request in flight carried (StrandedEntries)")
        .register(registry);
    FunctionCounter.builder(
            "semafor_raft_appender_entries_gone", repairs.goneEntries(), AtomicLong::get)
        .description(
            "Times a log appender of this leader found an entry it was reading compacted away"
                + " (a snapshot meanwhile) and went on instead of ending (RepairingLogAppender)")
        .register(registry);
    Timer sync = syncTimer();
    if (sync == null) {
      log.debug("Ratis's log sync timer is not readable here; no semafor_raft_log_sync series");
      return;
    }
    GroupMetrics.bindSyncs(
        registry,
        new GroupMetrics.Syncs() {
          @Override
          public double count() {
            return sync.getCount(); // Ratis's registry holds the timer
          }

          @Override
          public double quantileSeconds(double quantile) {
            return syncQuantile(sync, quantile);
          }
        },
        "about the last five minutes (Ratis's decaying sample)");
  }

  /** The member's view of its group, for the shared series: read from Ratis's volatiles. */
  private record Group(RaftServer.Division division, BooleanSupplier leads, AtomicLong changes)
      implements GroupMetrics.Group {
    @Override
    public boolean knowsALeader() {
      return division.getInfo().getLeaderId() != null;
    }

    @Override
    public boolean isLeader() {
      return leads.getAsBoolean();
    }

    @Override
    public long term() {
      return division.getInfo().getCurrentTerm();
    }

    @Override
    public long leaderChanges() {
      return changes.get();
    }

    @Override
    public long commitIndex() {
      return division.getRaftLog().getLastCommittedIndex();
    }

    @Override
    public long appliedIndex() {
      return division.getInfo().getLastAppliedIndex();
    }
  }

  /**
   * The Dropwizard timer Ratis's log worker records each sync in, or null if this Ratis keeps its
   * metrics some other way.
   */
  private @Nullable Timer syncTimer() {
    try {
      RaftLogMetrics metrics = division.getRaftLog().getRaftLogMetrics();
      if (metrics instanceof SegmentedRaftLogMetrics segmented) {
        Timekeeper keeper = segmented.getSyncTimer();
        if (keeper instanceof DefaultTimekeeperImpl dropwizard) {
          return dropwizard.getTimer();
        }
      }
    } catch (RuntimeException | LinkageError e) {
      log.debug("cannot read Ratis's log metrics", e);
    }
    return null;
  }

  /** The quantile in seconds, from a snapshot of the sample taken at most a second ago. */
  private synchronized double syncQuantile(Timer sync, double quantile) {
    long now = System.nanoTime();
    Snapshot s = snapshot;
    if (s == null || now - snapshotAt > SNAPSHOT_NANOS) {
      s = sync.getSnapshot();
      snapshot = s;
      snapshotAt = now;
    }
    double nanos = quantile >= 1 ? s.getMax() : s.getValue(quantile);
    return nanos / 1e9;
  }
}
