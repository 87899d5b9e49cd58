package io.semafor.microraft;

import io.microraft.RaftEndpoint;
import io.microraft.RaftNode;
import io.microraft.RaftNodeStatus;
import io.microraft.RaftRole;
import io.microraft.impl.RaftNodeImpl;
import io.microraft.impl.state.RaftState;
import io.microraft.report.RaftNodeReport;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts an election on a follower that MicroRaft left following a leader silent for longer than it
 * should have been given up (decision 0044).
 *
 * <p>MicroRaft 0.7 gives a silent leader up in its heartbeat task only while the follower has no
 * pre-vote of its own under way, and a pre-vote begun in the moment between voting for a candidate
 * and hearing from it as leader is never cleared while the term stays the same. Such a follower
 * then follows a dead leader forever; if the only other survivor's log is behind, whose pre-votes
 * it rightly refuses, the group never elects again (seen in FailoverBench's fifth trial, decision
 * 0044). Upstream (0.8 and master) has the same code.
 *
 * <p>Once every heartbeat period this checks MicroRaft's own report: on a follower whose leader has
 * been silent for the heartbeat timeout plus two periods (MicroRaft, which checks every period,
 * would have acted by then), it does on the node's thread what MicroRaft's heartbeat task does for
 * a timed-out leader: forgets the leader and runs a pre-vote ({@code RaftNodeImpl.leader(null)},
 * {@code runPreVote()}; or {@code toSingletonLeader()} if this member is the last voter, as
 * MicroRaft does), public methods of MicroRaft's node, pinned at 0.7 and covered by
 * MicroRaftReplicatorTest. A pre-vote changes no term and wins only if a majority has also lost its
 * leader and finds this member's log up to date, so a member that is wrong to stand (one removed
 * from the group without knowing it, say) disturbs no one.
 *
 * <p>Runs on the node's loop only.
 */
final class SilentLeaderWatch {
  private static final Logger log = LoggerFactory.getLogger(SilentLeaderWatch.class);

  private final RaftNode node;
  private final NodeLoop loop;
  private final Clock clock;
  private final long graceMillis;
  private final AtomicLong elections = new AtomicLong();
  private volatile boolean stopped;

  /**
   * @param clock the clock MicroRaft runs on (its milliseconds)
   * @param heartbeatTimeoutPeriods MicroRaft's heartbeat timeout, in its seconds
   */
  SilentLeaderWatch(RaftNode node, NodeLoop loop, Clock clock, int heartbeatTimeoutPeriods) {
    this.node = node;
    this.loop = loop;
    this.clock = clock;
    this.graceMillis = TimeUnit.SECONDS.toMillis(heartbeatTimeoutPeriods + 2L);
  }

  /**
   * Whether a member in {@code role} following {@code leader}, last heard from at {@code
   * lastHeartbeat}, should have given the leader up by {@code now}: a follower (not a learner,
   * which never stands) with a leader silent for at least {@code graceMillis}. All times in
   * MicroRaft's milliseconds.
   */
  static boolean missed(
      RaftRole role,
      @Nullable RaftEndpoint leader,
      Optional<Long> lastHeartbeat,
      long now,
      long graceMillis) {
    return role == RaftRole.FOLLOWER
        && leader != null
        && lastHeartbeat.isPresent()
        && now - lastHeartbeat.get() >= graceMillis;
  }

  /** Checks now and then once every heartbeat period until {@link #stop}. */
  void start() {
    loop.schedule(this::check, 1, TimeUnit.SECONDS);
  }

  /** Stops checking. */
  void stop() {
    stopped = true;
  }

  /** Pre-votes this watch started. */
  long elections() {
    return elections.get();
  }

  @SuppressWarnings("FutureReturnValueIgnored") // the report's stage does everything
  private void check() {
    if (stopped) {
      return;
    }
    if (node.getStatus() == RaftNodeStatus.TERMINATED) {
      return; // removed or stopped: nothing to watch any more
    }
    node.getReport()
        .thenAccept(ordered -> electIfMissed(ordered.getResult()))
        .whenComplete((done, e) -> loop.schedule(this::check, 1, TimeUnit.SECONDS));
  }

  private void electIfMissed(RaftNodeReport report) {
    RaftEndpoint leader = report.getTerm().getLeaderEndpoint();
    if (stopped
        || !missed(
            report.getRole(),
            leader,
            report.getLeaderHeartbeatTimestamp(),
            clock.millis(),
            graceMillis)) {
      return;
    }
    log.warn(
        "{} still follows {}, silent past its timeout: giving it up and running a pre-vote"
            + " (decision 0044)",
        report.getEndpoint().getId(),
        leader.getId());
    elections.incrementAndGet();
    // as MicroRaft's HeartbeatTask.resetLeaderAndTryTriggerPreVote(true) does
    RaftNodeImpl impl = (RaftNodeImpl) node;
    impl.leader(null);
    RaftState state = impl.state();
    if (state.leaderElectionQuorumSize() > 1) {
      impl.runPreVote();
    } else if (state.effectiveGroupMembers().getVotingMembers().contains(impl.getLocalEndpoint())) {
      impl.toSingletonLeader(); // the last voting member left: the leader died while leaving
    }
  }
}
