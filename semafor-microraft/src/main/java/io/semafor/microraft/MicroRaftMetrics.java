package io.semafor.microraft;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.semafor.replication.group.GroupMetrics;
import java.util.function.ToDoubleFunction;

/**
 * A MicroRaft member's series on the server's registry: the ones every replicator exports ({@link
 * GroupMetrics}: the leader, the term, leader changes, the commit and applied index, the log's
 * syncs), then what only this replicator has: the pre-votes its watch on MicroRaft's failure
 * detection started, the messages to other members its transport dropped, by reason, and how long
 * its snapshots held its thread.
 *
 * <p>Every value is read at scrape time from volatiles and atomics (MicroRaft's term, the last
 * report, the applied index, the transport's and the store's counters), so a scrape never waits for
 * the node's thread, nor it for a scrape (the sync quantiles copy at most {@link SyncTimes#KEPT}
 * longs).
 */
final class MicroRaftMetrics {
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
    GroupMetrics.bind(registry, new Group(replicator));
    GroupMetrics.bindSyncs(
        registry,
        new GroupMetrics.Syncs() {
          @Override
          public double count() {
            return syncs.count();
          }

          @Override
          public double quantileSeconds(double quantile) {
            return syncs.quantileSeconds(quantile);
          }
        },
        "the last "
            + SyncTimes.KEPT
            + " syncs (the term and vote always; entries in fsync"
            + " durability)");
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

  /** The member's view of its group, for the shared series. */
  private record Group(MicroRaftReplicator<?, ?, ?> replicator) implements GroupMetrics.Group {
    @Override
    public boolean knowsALeader() {
      return replicator.knowsALeader();
    }

    @Override
    public boolean isLeader() {
      return replicator.isLeader();
    }

    @Override
    public long term() {
      return replicator.term();
    }

    @Override
    public long leaderChanges() {
      return replicator.leaderChanges().get();
    }

    @Override
    public long commitIndex() {
      return replicator.commitIndex();
    }

    @Override
    public long appliedIndex() {
      return replicator.appliedIndex();
    }
  }
}
