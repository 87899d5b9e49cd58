package io.semafor.microraft;

import io.microraft.RaftConfig;
import io.microraft.RaftEndpoint;
import io.microraft.RaftNode;
import io.microraft.RaftRole;
import io.microraft.report.RaftNodeReport;
import io.semafor.core.Command;
import io.semafor.core.Query;
import io.semafor.core.SemaphoreMachine;
import io.semafor.replication.ApplyListener;
import io.semafor.replication.Replicator;
import io.semafor.replication.group.Leadership;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Replicator} that is one member of a Raft group on MicroRaft (decision 0043): the node,
 * its peer connections and its timers run on one thread ({@link NodeLoop}, {@link PeerTransport});
 * on the leader {@link EntryBatcher} batches the commands that arrive while entries are in flight
 * into the next entry; {@link EntryMachine} applies entries to the core. Followers refuse commands
 * and reads: their clients are sent to the leader.
 *
 * <p>The log is {@link FileLogStore} in the member's data directory: a member that stops comes back
 * from it. MicroRaft runs on {@link TimeScale}'s time, so its whole-second heartbeat settings
 * become heartbeat periods of 100 ms (decision 0044).
 *
 * <p>Reads and snapshots travel in the log with the commands, and are answered where they fall. The
 * leader stamps each entry with its log time as {@link Leadership} keeps it.
 *
 * <p>Thread-safe. {@link ApplyListener#refused} may be called on any thread.
 */
public final class MicroRaftReplicator implements Replicator, EntryMachine.Owner {
  private static final Logger log = LoggerFactory.getLogger(MicroRaftReplicator.class);
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

  /** The directory of the log in the member's data directory. */
  static final String LOG_DIR = "microraft";

  /** The group every Semafor cluster forms. */
  private static final String GROUP = "semafor";

  private final MicroRaftConfig config;
  private final ApplyListener listener;
  private final MemberEndpoint self;
  private final NodeLoop loop;
  private final PeerTransport transport;
  private final EntryMachine machine;
  private final RaftNode node;
  private final EntryBatcher batcher;
  private final Leadership leadership;
  private final FileLogStore store;
  private final SilentLeaderWatch silentLeader;

  /** The last report MicroRaft published, for {@link #status}. */
  private volatile @Nullable RaftNodeReport report;

  private volatile boolean closed;

  private MicroRaftReplicator(
      MicroRaftConfig config,
      SemaphoreMachine initial,
      ApplyListener listener,
      FileLogStore store) {
    this.config = config;
    this.store = store;
    this.listener = listener;
    this.self = config.self().endpoint();
    this.leadership = new Leadership(config.nodeId());
    List<RaftEndpoint> endpoints = new ArrayList<>();
    config.members().forEach(m -> endpoints.add(m.endpoint()));
    this.machine = new EntryMachine(initial, listener, this);
    TimeScale scale = config.timeScale();
    Clock clock = scale.clock();
    this.loop = new NodeLoop("semafor-microraft-" + config.nodeId(), scale);
    try {
      this.transport = new PeerTransport(self, loop);
    } catch (RuntimeException e) {
      loop.close();
      throw new UncheckedIOException(
          new IOException(
              "cannot listen for members on " + self.host() + ":" + self.port() + ": " + e, e));
    }
    // MicroRaft's seconds last one heartbeat period (decision 0044): a heartbeat every period, the
    // leader given up after the election timeout in whole periods
    RaftConfig raft =
        RaftConfig.newBuilder()
            .setLeaderElectionTimeoutMillis(scale.raftMillis(config.electionTimeout()))
            .setLeaderHeartbeatPeriodSecs(1)
            .setLeaderHeartbeatTimeoutSecs(config.heartbeatTimeoutPeriods())
            .setAppendEntriesRequestBatchSize(EntryBatcher.ENTRIES_PER_APPEND)
            .setCommitCountToTakeSnapshot(config.snapshotEvery())
            .setRaftNodeReportPublishPeriodSecs(1)
            .build();
    var builder =
        RaftNode.newBuilder()
            .setGroupId(GROUP)
            .setConfig(raft)
            .setExecutor(loop)
            .setClock(clock)
            .setTransport(transport)
            .setStateMachine(machine)
            .setStore(store)
            .setRaftNodeReportListener(this::reported);
    var restored = store.restored();
    if (restored.isPresent()) {
      // the log's members win over --peers, as with Ratis: they may have changed since
      builder.setRestoredState(restored.get());
    } else {
      builder.setLocalEndpoint(self).setInitialGroupMembers(endpoints);
    }
    this.node = builder.build();
    this.silentLeader = new SilentLeaderWatch(node, loop, clock, config.heartbeatTimeoutPeriods());
    this.batcher =
        new EntryBatcher(
            config.nodeId(),
            node,
            config.entriesInFlight(),
            listener,
            this::logTime,
            this::leaderHint);
    transport.deliverTo(node::handle);
    store.onFailure(
        e -> {
          if (!closed) {
            log.error(
                "the MicroRaft log of {} could not be written; it must stop", config.nodeId(), e);
            listener.failed(
                "the MicroRaft log of "
                    + config.nodeId()
                    + " could not be written: "
                    + e.getMessage(),
                e);
          }
        });
  }

  /**
   * Starts this member on its log (where a previous run left it, or a new one) and returns at once;
   * it serves once a leader is elected ({@link #isLeader}).
   *
   * @throws UncheckedIOException if the log cannot be read or written, belongs to another member,
   *     or the Raft port cannot be bound
   * @throws IllegalStateException if the node did not start within 5 s
   */
  public static MicroRaftReplicator start(
      MicroRaftConfig config, SemaphoreMachine machine, ApplyListener listener) {
    FileLogStore store = openLog(config);
    MicroRaftReplicator replicator;
    try {
      replicator = new MicroRaftReplicator(config, machine, listener, store);
    } catch (RuntimeException e) {
      closeQuietly(store);
      throw e;
    }
    try {
      replicator.node.start().get(CLOSE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      replicator.silentLeader.start();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      replicator.close();
      throw new IllegalStateException("interrupted while starting " + config.nodeId(), e);
    } catch (ExecutionException | TimeoutException e) {
      replicator.close();
      throw new IllegalStateException("MicroRaft member " + config.nodeId() + " did not start", e);
    }
    log.info(
        "{} started on MicroRaft (experimental) with members {}", config.nodeId(), config.ids());
    return replicator;
  }

  /** Opens the member's log, refusing one that another member wrote. */
  private static FileLogStore openLog(MicroRaftConfig config) {
    Path dir = config.dataDir().resolve(LOG_DIR);
    FileLogStore store;
    try {
      store = FileLogStore.open(dir, config.fsync());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    var restored = store.restored();
    if (restored.isPresent()) {
      RaftEndpoint was = restored.get().getLocalEndpointPersistentState().getLocalEndpoint();
      if (!config.nodeId().equals(String.valueOf(was.getId()))) {
        closeQuietly(store);
        throw new UncheckedIOException(
            new IOException(
                dir + " holds the log of member " + was.getId() + ", not " + config.nodeId()));
      }
    }
    return store;
  }

  private static void closeQuietly(FileLogStore store) {
    try {
      store.close();
    } catch (IOException e) {
      log.warn("closing the MicroRaft log", e);
    }
  }

  // ------------------------------------------------------------------ Replicator

  /**
   * On the leader, queues the command for the next entry (never waits for an entry in flight);
   * elsewhere refuses it to the listener with the leader's address.
   *
   * @throws ReplicatorClosedException after {@link #close}
   */
  @Override
  public void submit(Command command, @Nullable Object context) {
    if (closed) {
      throw new ReplicatorClosedException();
    }
    if (!leadership.isLeader()) {
      listener.refused(command, context, leaderHint());
      return;
    }
    batcher.submit(command, context);
  }

  /**
   * On the leader, queues the read with the commands: it travels in the log and is answered where
   * it falls, after every command submitted before it. Elsewhere refuses it.
   *
   * @throws ReplicatorClosedException after {@link #close}
   */
  @Override
  public void read(Query query, @Nullable Object context) {
    if (closed) {
      throw new ReplicatorClosedException();
    }
    if (!leadership.isLeader()) {
      listener.readRefused(query, context, leaderHint());
      return;
    }
    batcher.read(query, context);
  }

  /**
   * On the leader, queues the snapshot with the commands; this member serialises its state where
   * the entry falls. Elsewhere refuses it.
   *
   * @throws ReplicatorClosedException after {@link #close}
   */
  @Override
  public void snapshot(@Nullable Object context) {
    if (closed) {
      throw new ReplicatorClosedException();
    }
    if (!leadership.isLeader()) {
      listener.snapshotRefused(context, leaderHint());
      return;
    }
    batcher.snapshot(context);
  }

  @Override
  public long logTime() {
    return leadership.logTime(machine::lastLogTime);
  }

  @Override
  public boolean isLeader() {
    return leadership.isLeader() && !closed;
  }

  @Override
  public String leaderHint() {
    String id = leadership.leaderId();
    for (MicroRaftConfig.Member m : config.members()) {
      if (m.id().equals(id)) {
        return m.clientAddress();
      }
    }
    return "";
  }

  /**
   * Refused: this replicator cannot change its members yet (decision 0043).
   *
   * @throws UnsupportedOperationException always
   */
  @Override
  public List<String> addMember(String member) {
    throw new UnsupportedOperationException(MEMBERS_FIXED);
  }

  /**
   * Refused: this replicator cannot change its members yet (decision 0043).
   *
   * @throws UnsupportedOperationException always
   */
  @Override
  public List<String> removeMember(String id) {
    throw new UnsupportedOperationException(MEMBERS_FIXED);
  }

  private static final String MEMBERS_FIXED =
      "the microraft replicator cannot change its members yet (docs/decisions/0043); the members"
          + " are those it started with";

  /** The id of the leader as this member knows it, or "" if none is known. Never blocks. */
  public String leaderId() {
    return leadership.leaderId();
  }

  /**
   * This member's view of the group from MicroRaft's last report (at most a second old): role,
   * leader, members, term and indexes, and on the leader where each follower stands. Never blocks.
   */
  @Override
  public Map<String, Object> status() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("mode", "raft");
    out.put("replicator", "microraft");
    out.put("node", config.nodeId());
    out.put("role", isLeader() ? "leader" : "follower");
    out.put("leader", leadership.leaderId());
    out.put("members", config.ids());
    out.put("durability", config.fsync() ? "fsync" : "replicated");
    out.put("tuning", config.tuning());
    RaftNodeReport r = report;
    if (r != null) {
      out.put("term", r.getTerm().getTerm());
      out.put("commitIndex", r.getLog().getCommitIndex());
      out.put("appliedIndex", machine.appliedIndex());
      out.put("lastLogIndex", r.getLog().getLastLogOrSnapshotIndex());
      out.put("snapshotIndex", r.getLog().getLastSnapshotIndex());
      if (r.getRole() == RaftRole.LEADER) {
        List<Map<String, Object>> followers = new ArrayList<>();
        r.getLog()
            .getFollowerMatchIndices()
            .forEach(
                (endpoint, match) -> {
                  Map<String, Object> one = new LinkedHashMap<>();
                  one.put("id", String.valueOf(endpoint.getId()));
                  one.put("matchIndex", match);
                  followers.add(one);
                });
        out.put("followers", followers);
      }
    }
    out.put("entriesInFlight", batcher.inFlight());
    out.put("droppedUnwritable", transport.droppedUnwritable());
    out.put("malformedFrames", transport.malformedFrames());
    out.put("silentLeaderElections", silentLeader.elections());
    return out;
  }

  /**
   * Stops serving, refuses what was queued, and terminates the member: within {@link
   * #CLOSE_TIMEOUT}, else leaves it to the process's exit. Idempotent.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    leadership.stop();
    silentLeader.stop();
    try {
      node.terminate().get(CLOSE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      log.warn("MicroRaft member {} did not terminate cleanly: {}", config.nodeId(), e.toString());
    }
    batcher.refuseAll();
    transport.close();
    loop.close();
    closeQuietly(store);
  }

  // ------------------------------------------------------------------ from the node's thread

  /** Who leads, as MicroRaft reports it: a leader that is not this member takes leadership away. */
  private void reported(RaftNodeReport r) {
    report = r;
    if (r.getRole() == RaftRole.LEADER) {
      return; // it serves once its new-term entry applies (leaderReady)
    }
    RaftEndpoint leader = r.getTerm().getLeaderEndpoint();
    String leaderId = leader == null ? "" : String.valueOf(leader.getId());
    if (!leaderId.equals(leadership.leaderId()) || leadership.isLeader()) {
      if (leadership.changedTo(leaderId)) {
        log.info("{} no longer leads; the leader is {}", config.nodeId(), leaderId);
        batcher.refuseAll();
        listener.lostLeadership(leaderHint());
      }
    }
  }

  /** The MicroRaft node, for tests that reach into it. */
  RaftNode raftNode() {
    return node;
  }

  /** The loop the node runs on, for tests that run on it. */
  NodeLoop nodeLoop() {
    return loop;
  }

  @Override
  public @Nullable List<@Nullable Object> contextsOf(String origin, long batch) {
    return batcher.contextsOf(origin, batch);
  }

  /** The current term if MicroRaft says this member leads it, else -1. */
  @Override
  public int termLed() {
    var term = node.getTerm();
    return self.equals(term.getLeaderEndpoint()) ? term.getTerm() : -1;
  }

  @Override
  public int term() {
    return node.getTerm().getTerm();
  }

  @Override
  public void leaderReady(SemaphoreMachine applied) {
    if (closed || leadership.isLeader()) {
      return;
    }
    leadership.becameLeader(applied.now());
    log.info("{} leads the group", config.nodeId());
    listener.becameLeader();
  }
}
