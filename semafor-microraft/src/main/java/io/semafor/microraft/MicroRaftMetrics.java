package io.semafor.microraft;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.ToDoubleFunction;

/**
 * A MicroRaft member's series on the server's registry, under the names the Ratis replicator uses
 * (docs/operations.md's dashboards and alerts read either): whether a leader is known and whether
 * it is this node, the term, leader changes seen, the commit and applied index and their
 * difference, and the log's syncs to disk and how long they take. Then what only this replicator
 * has: the pre-votes its watch on MicroRaft's failure detection started, and the messages to other
 * members its transport dropped, by reason.
 *
 * <p>Every value is read at scrape time from volatiles and atomics (MicroRaft's term, the last
 * report, the applied index, the transport's and the store's counters), so a scrape never waits for
 * the node's thread, nor it for a scrape (the sync quantiles copy at most {@link SyncTimes#KEPT}
 * longs).
 */
final class MicroRaftMetrics {
  /** The quantiles of the sync time exported, as the label says them. */
  private static final String[] QUANTILES = {"0.5", "0.99", "1"};

  private final MicroRaftReplicator<?, ?, ?> replicator;
  private final PeerTransport transport;
  private final SyncTimes syncs;
  private final SnapshotPauses pauses;

  MicroRaftMetrics(
      MicroRaftReplicator<?, ?, ?> replicator,
      PeerTransport transport,
      SyncTimes syncs,
      SnapshotPauses pauses) {
    this.replicator = replicator;
    this.transport = transport;
    this.syncs = syncs;
    this.pauses = pauses;
  }

  void bindTo(MeterRegistry registry) {
    gauge(
        registry,
        "semafor_raft_has_leader",
        "1 while this node knows a leader (itself or another), 0 during an election",
        m -> m.replicator.knowsALeader() ? 1 : 0);
    gauge(
        registry,
        "semafor_raft_is_leader",
        "1 while this node leads and serves clients",
        m -> m.replicator.isLeader() ? 1 : 0);
    gauge(registry, "semafor_raft_term", "The Raft term this node is in", m -> m.replicator.term());
    FunctionCounter.builder(
            "semafor_raft_leader_changes",
            replicator.leaderChanges(),
            java.util.concurrent.atomic.AtomicLong::get)
        .description("Times this node saw the leader change (itself taking or losing it included)")
        .register(registry);
    gauge(
        registry,
        "semafor_raft_commit_index",
        "The last log index this node knows committed",
        m -> m.replicator.commitIndex());
    gauge(
        registry,
        "semafor_raft_applied_index",
        "The last log index applied to this node's state machine",
        m -> m.replicator.appliedIndex());
    gauge(
        registry,
        "semafor_raft_apply_lag",
        "Entries committed and not yet applied here (commit index minus applied index)",
        m -> Math.max(0, m.replicator.commitIndex() - m.replicator.appliedIndex()));
    FunctionCounter.builder("semafor_raft_log_syncs", syncs, SyncTimes::count)
        .description(
            "Syncs of the Raft log to disk (the term and vote always; entries in fsync durability)")
        .register(registry);
    for (String q : QUANTILES) {
      double quantile = Double.parseDouble(q);
      Gauge.builder("semafor_raft_log_sync_seconds", syncs, s -> s.quantileSeconds(quantile))
          .description(
              "Time a sync of the Raft log to disk took, by quantile over the last "
                  + SyncTimes.KEPT
                  + " syncs")
          .tag("quantile", q)
          .baseUnit("seconds")
          .strongReference(true)
          .register(registry);
    }
    FunctionCounter.builder(
            "semafor_raft_silent_leader_prevotes",
            replicator,
            MicroRaftReplicator::silentLeaderPreVotes)
        .description(
            "Pre-votes started because MicroRaft still followed a leader silent past its timeout"
                + " (decision 0044)")
        .register(registry);
    dropped(registry, "unconnected", PeerTransport::droppedUnconnected);
    dropped(registry, "unwritable", PeerTransport::droppedUnwritable);
    dropped(registry, "oversized", PeerTransport::droppedOversized);
    FunctionCounter.builder(
            "semafor_raft_malformed_frames", transport, PeerTransport::malformedFrames)
        .description("Connections from members closed for a frame that was not a message")
        .register(registry);
    FunctionCounter.builder("semafor_raft_snapshots", pauses, SnapshotPauses::count)
        .description("Snapshots this member took")
        .register(registry);
    Gauge.builder("semafor_raft_snapshot_last_seconds", pauses, SnapshotPauses::lastSeconds)
        .description(
            "How long this member's last snapshot held its thread (no heartbeat, no apply"
                + " meanwhile; docs/cluster.md)")
        .register(registry);
    Gauge.builder("semafor_raft_snapshot_longest_seconds", pauses, SnapshotPauses::longestSeconds)
        .description("The longest any of this member's snapshots held its thread")
        .register(registry);
  }

  private void dropped(
      MeterRegistry registry, String reason, ToDoubleFunction<PeerTransport> count) {
    FunctionCounter.builder("semafor_raft_peer_messages_dropped", transport, count)
        .description(
            "Messages to other members dropped (Raft sends them again): unconnected, the member"
                + " could not be reached; unwritable, its connection held 8 MiB unwritten;"
                + " oversized, over the frame limit")
        .tag("reason", reason)
        .register(registry);
  }

  private void gauge(
      MeterRegistry registry,
      String name,
      String description,
      ToDoubleFunction<MicroRaftMetrics> f) {
    Gauge.builder(name, this, f).description(description).strongReference(true).register(registry);
  }
}
