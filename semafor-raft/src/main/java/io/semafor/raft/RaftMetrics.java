package io.semafor.raft;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.ToDoubleFunction;
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
 * A Raft member's series on the server's registry: whether a leader is known and whether it is this
 * node, the term, leader changes seen, stuck log appenders restarted, the commit and applied index
 * and their difference, and how long the log's sync to disk takes.
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

  /** The quantiles of the sync time exported, as the label says them. */
  private static final String[] QUANTILES = {"0.5", "0.99", "1"};

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
    gauge(
        registry,
        "semafor_raft_has_leader",
        "1 while this node knows a leader (itself or another), 0 during an election",
        m -> m.division.getInfo().getLeaderId() == null ? 0 : 1);
    gauge(
        registry,
        "semafor_raft_is_leader",
        "1 on the node that leads and serves clients, 0 on the others",
        m -> m.isLeader.getAsBoolean() ? 1 : 0);
    gauge(
        registry,
        "semafor_raft_term",
        "The Raft term this node is in",
        m -> m.division.getInfo().getCurrentTerm());
    // the replicator holds the count (Micrometer holds a function counter's object weakly)
    FunctionCounter.builder("semafor_raft_leader_changes", leaderChanges, AtomicLong::get)
        .description("Times this node saw a leader other than the one it knew last (or none)")
        .register(registry);
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
    gauge(
        registry,
        "semafor_raft_commit_index",
        "The last log index this node knows committed",
        m -> m.division.getRaftLog().getLastCommittedIndex());
    gauge(
        registry,
        "semafor_raft_applied_index",
        "The last log index applied to this node's state machine",
        m -> m.division.getInfo().getLastAppliedIndex());
    gauge(
        registry,
        "semafor_raft_apply_lag",
        "Entries committed and not yet applied here (commit index minus applied index)",
        m ->
            Math.max(
                0,
                m.division.getRaftLog().getLastCommittedIndex()
                    - m.division.getInfo().getLastAppliedIndex()));
    Timer sync = syncTimer();
    if (sync == null) {
      log.debug("Ratis's log sync timer is not readable here; no semafor_raft_log_sync series");
      return;
    }
    // Ratis's registry holds the timer (Micrometer holds a function counter's object weakly)
    FunctionCounter.builder("semafor_raft_log_syncs", sync, Timer::getCount)
        .description("Syncs of the Raft log to disk (each makes every entry before it durable)")
        .register(registry);
    for (String q : QUANTILES) {
      double quantile = Double.parseDouble(q);
      Gauge.builder("semafor_raft_log_sync_seconds", this, m -> m.syncQuantile(sync, quantile))
          .description(
              "Time a sync of the Raft log to disk took, by quantile over about the last five"
                  + " minutes (Ratis's decaying sample)")
          .tag("quantile", q)
          .baseUnit("seconds")
          .strongReference(true)
          .register(registry);
    }
  }

  private void gauge(
      MeterRegistry registry, String name, String description, ToDoubleFunction<RaftMetrics> f) {
    Gauge.builder(name, this, f).description(description).strongReference(true).register(registry);
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
