package io.semafor.microraft;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.microraft.RaftConfig;
import io.microraft.RaftEndpoint;
import io.microraft.RaftNode;
import io.microraft.RaftNode.RaftNodeBuilder;
import io.microraft.RaftNodeStatus;
import io.microraft.RaftRole;
import io.microraft.report.RaftNodeReport;
import io.semafor.core.Command;
import io.semafor.core.Query;
import io.semafor.core.SemaphoreMachine;
import io.semafor.replication.ApplyListener;
import io.semafor.replication.ForeignDataDirException;
import io.semafor.replication.PeerTls;
import io.semafor.replication.Replicator;
import io.semafor.replication.ReplicatorFactory;
import io.semafor.replication.group.Asked;
import io.semafor.replication.group.Leadership;
import io.semafor.replication.group.Silence;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
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
 * <p>Members change one at a time ({@link MicroRaftMembership}). A member started with {@code join}
 * and no log runs no Raft member until the leader welcomes it into the group.
 *
 * <p>Thread-safe. {@link ApplyListener#refused} may be called on any thread.
 *
 * @param <C> what a command's asker gives ({@link Replicator})
 * @param <R> what a read's asker gives
 * @param <S> what a snapshot's asker gives
 */
public final class MicroRaftReplicator<C, R, S>
    implements Replicator<C, R, S>, EntryMachine.Owner<C, R, S>, MeterBinder {
  private static final Logger log = LoggerFactory.getLogger(MicroRaftReplicator.class);
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

  /** The directory of the log in the member's data directory. */
  static final String LOG_DIR = "microraft";

  /** The group every Semafor cluster forms. */
  private static final String GROUP = "semafor";

  private final MicroRaftConfig config;
  private final ApplyListener<C, R, S> listener;
  private final MemberEndpoint self;
  private final NodeLoop loop;
  private final PeerTransport transport;
  private final EntryMachine<C, R, S> machine;
  private final Leadership leadership;
  private final FileLogStore store;
  private final Clock clock;
  private final RaftConfig raftConfig;
  private final MicroRaftMembership membership;

  /** The Raft member and what runs beside it; null while a joining node waits to be welcomed. */
  private volatile @Nullable Running<C, R, S> running;

  /** A started Raft member, its sender on the leader, and the watch on its failure detection. */
  private record Running<C, R, S>(
      RaftNode node, EntryBatcher<C, R, S> batcher, SilentLeaderWatch silentLeader) {}

  /**
   * Whether this member started with {@code join} and no log, and has not been welcomed yet: only
   * then does a welcome build its node. Guarded by {@code this}.
   */
  private boolean waitsToJoin;

  /** The leader as MicroRaft last reported it, for redirecting clients; null if none. */
  private volatile @Nullable MemberEndpoint leaderEndpoint;

  /** When this member was made ({@link System#nanoTime}): how long a never-heard peer is silent. */
  private final long madeNanos = System.nanoTime();

  /** Says each change of the leader once (the node's thread). */
  private final LeaderChanges leaderChanges;

  /** The last report MicroRaft published, for {@link #status}. */
  private volatile @Nullable RaftNodeReport report;

  private volatile boolean closed;

  private MicroRaftReplicator(
      MicroRaftConfig config,
      SemaphoreMachine initial,
      ApplyListener<C, R, S> listener,
      FileLogStore store) {
    this.config = config;
    this.store = store;
    this.listener = listener;
    this.self = MemberEndpoint.of(config.self());
    this.leadership = new Leadership(config.nodeId());
    this.machine = new EntryMachine<>(initial, listener, this, config.electionTimeout());
    store.afterCompaction(machine::compacted); // a snapshot's hold on the thread ends there
    TimeScale scale = config.timeScale();
    this.clock = scale.clock();
    PeerTls tls = config.tls();
    PeerSsl ssl = tls == null ? null : PeerSsl.of(tls);
    this.loop = new NodeLoop("semafor-microraft-" + config.nodeId(), scale);
    try {
      this.transport = new PeerTransport(self, loop, ssl);
      this.leaderChanges = new LeaderChanges(config.nodeId());
    } catch (RuntimeException e) {
      loop.close();
      throw new UncheckedIOException(
          new IOException(
              "cannot listen for members on " + self.host() + ":" + self.port() + ": " + e, e));
    }
    // MicroRaft's seconds last one heartbeat period (decision 0044): a heartbeat every period, the
    // leader given up after the election timeout in whole periods
    this.raftConfig =
        RaftConfig.newBuilder()
            .setLeaderElectionTimeoutMillis(scale.raftMillis(config.electionTimeout()))
            .setLeaderHeartbeatPeriodSecs(1)
            .setLeaderHeartbeatTimeoutSecs(config.heartbeatTimeoutPeriods())
            .setAppendEntriesRequestBatchSize(EntryBatcher.ENTRIES_PER_APPEND)
            .setCommitCountToTakeSnapshot(config.snapshotEvery())
            .setRaftNodeReportPublishPeriodSecs(1)
            .build();
    this.waitsToJoin = config.join() && store.restored().isEmpty();
    this.membership = new MicroRaftMembership(self, this::nodeOrNull, transport);
    transport.deliverTo(
        message -> {
          Running<C, R, S> r = running;
          if (r != null) {
            r.node().handle(message);
          }
        });
    transport.deliverControlTo(this::control);
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
   * A factory that starts this node's member from {@code config} ({@link #start}) for a server
   * ({@code SemaforServer.start}, {@code Main.run}).
   */
  public static ReplicatorFactory factory(MicroRaftConfig config) {
    return new ReplicatorFactory() {
      @Override
      public <C, R, S> Replicator<C, R, S> create(
          SemaphoreMachine machine, ApplyListener<C, R, S> listener) {
        return start(config, machine, listener);
      }
    };
  }

  /**
   * Starts this member on its log (where a previous run left it, or a new one) and returns at once;
   * it serves once a leader is elected ({@link #isLeader}).
   *
   * @throws UncheckedIOException if the log cannot be read or written, belongs to another member,
   *     or the Raft port cannot be bound
   * @throws IllegalStateException if the node failed to start, or did not within {@link
   *     #START_LIMIT}
   */
  public static <C, R, S> MicroRaftReplicator<C, R, S> start(
      MicroRaftConfig config, SemaphoreMachine machine, ApplyListener<C, R, S> listener) {
    FileLogStore store = openLog(config);
    MicroRaftReplicator<C, R, S> replicator;
    try {
      replicator = new MicroRaftReplicator<>(config, machine, listener, store);
    } catch (RuntimeException e) {
      closeQuietly(store);
      throw e;
    }
    var restored = store.restored();
    synchronized (replicator) {
      if (replicator.waitsToJoin) {
        log.info("{} waits to be added to a cluster (--join)", config.nodeId());
        return replicator;
      }
    }
    RaftNodeBuilder builder = replicator.builder();
    if (restored.isPresent()) {
      // the log's members win over --peers, as with Ratis: they may have changed since
      builder.setRestoredState(restored.get());
    } else {
      List<RaftEndpoint> endpoints = new ArrayList<>();
      config.members().forEach(m -> endpoints.add(MemberEndpoint.of(m)));
      builder.setLocalEndpoint(replicator.self).setInitialGroupMembers(endpoints);
    }
    Running<C, R, S> r;
    synchronized (replicator) {
      r = replicator.run(builder);
    }
    try {
      awaitStart(config.nodeId(), r.node().start(), restored.isPresent());
      r.silentLeader().start();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      replicator.close();
      throw new IllegalStateException("interrupted while starting " + config.nodeId(), e);
    } catch (ExecutionException | TimeoutException e) {
      replicator.close();
      throw new IllegalStateException("MicroRaft member " + config.nodeId() + " did not start", e);
    }
    log.info(
        "{} started on MicroRaft with members {}",
        config.nodeId(),
        idsOf(r.node().getCommittedMembers().getMembers()));
    return replicator;
  }

  /** How long a member may take to start at most: installing a restored state is part of it. */
  static final Duration START_LIMIT = Duration.ofMinutes(10);

  /** How often a member that is still starting says so. */
  private static final Duration START_PROGRESS = Duration.ofSeconds(5);

  /**
   * Waits until the member started. Starting installs the state the log restored, on the member's
   * thread: a million semaphores took 2 s alone and more than 5 s with three members starting on
   * two cores (a fixed 5 s limit failed them all: issue 34, {@code snapshot-pause.sh}). So it waits
   * as long as that takes, saying every {@link #START_PROGRESS} that it is still starting, up to
   * {@link #START_LIMIT}.
   */
  private static void awaitStart(String nodeId, CompletableFuture<?> started, boolean restoring)
      throws InterruptedException, ExecutionException, TimeoutException {
    long deadline = System.nanoTime() + START_LIMIT.toNanos();
    while (true) {
      try {
        started.get(START_PROGRESS.toMillis(), TimeUnit.MILLISECONDS);
        return;
      } catch (TimeoutException e) {
        if (System.nanoTime() - deadline >= 0) {
          throw e;
        }
        log.info(
            "{} is still starting{}",
            nodeId,
            restoring ? ": installing the state its log restored" : "");
      }
    }
  }

  /** A builder of this member's Raft node, everything set but who the members are. */
  private RaftNodeBuilder builder() {
    return RaftNode.newBuilder()
        .setGroupId(GROUP)
        .setConfig(raftConfig)
        .setExecutor(loop)
        .setClock(clock)
        .setRandom(new ElectionSpread(config.timeScale().raftMillis(config.electionSpread())))
        .setTransport(transport)
        .setStateMachine(machine)
        .setStore(store)
        .setRaftNodeReportListener(this::reported);
  }

  /** Builds the node and what runs beside it, and makes it this member's. */
  private Running<C, R, S> run(RaftNodeBuilder builder) {
    RaftNode node = builder.build();
    Running<C, R, S> r =
        new Running<>(
            node,
            new EntryBatcher<>(
                config.nodeId(),
                node,
                config.entriesInFlight(),
                listener,
                this::logTime,
                this::leaderHint),
            new SilentLeaderWatch(node, loop, clock, config.heartbeatTimeoutPeriods()));
    running = r;
    return r;
  }

  /**
   * A welcome from the leader, on the loop: a joining node starts its member in the welcome's group
   * and says so once it has started (a member already running in that group says so at once).
   */
  @SuppressWarnings("FutureReturnValueIgnored") // the stage answers either way
  private void control(GroupControl message) {
    if (!(message instanceof GroupControl.Welcome welcome)) {
      membership.received(message);
      return;
    }
    Running<C, R, S> r;
    synchronized (this) {
      if (closed) {
        return;
      }
      r = running;
      if (r == null && !waitsToJoin) {
        // a member starting from its log or its --peers builds its own node (start()): it never
        // takes one from a welcome, or two nodes would share one log and one vote
        answer(welcome, "it is starting from its own log or --peers, not waiting to join");
        return;
      }
      if (r == null) {
        r =
            run(
                builder()
                    .setLocalEndpoint(self)
                    .setInitialGroupMembers(new ArrayList<RaftEndpoint>(welcome.initialMembers())));
        waitsToJoin = false;
      } else {
        answer(welcome, refusalOf(r, welcome));
        return;
      }
    }
    Running<C, R, S> started = r;
    log.info(
        "{} welcomed by {} into the group of {}",
        config.nodeId(),
        welcome.sender().id(),
        idsOf(new ArrayList<RaftEndpoint>(welcome.initialMembers())));
    started
        .node()
        .start()
        .whenComplete(
            (done, failure) -> {
              if (failure == null) {
                started.silentLeader().start();
              }
              answer(welcome, failure == null ? null : "its member did not start: " + failure);
            });
  }

  /**
   * Why a member already running cannot take {@code welcome} (null: it runs in that group, an
   * answer to a welcome sent again).
   */
  private static @Nullable String refusalOf(Running<?, ?, ?> r, GroupControl.Welcome welcome) {
    if (r.node().getStatus() == RaftNodeStatus.TERMINATED) {
      return "it was removed from its group or stopped; empty its data directory and start it"
          + " with --join to add it again";
    }
    Set<RaftEndpoint> first = new HashSet<>(r.node().getInitialMembers().getMembers());
    if (first.equals(new HashSet<RaftEndpoint>(welcome.initialMembers()))) {
      return null;
    }
    return "it already runs in a group whose first members are "
        + idsOf(r.node().getInitialMembers().getMembers());
  }

  private void answer(GroupControl.Welcome welcome, @Nullable String refusal) {
    transport.send(
        welcome.sender(),
        new GroupControl.Welcomed(
            welcome.id(), self, refusal == null, refusal == null ? "" : refusal));
  }

  private @Nullable RaftNode nodeOrNull() {
    Running<C, R, S> r = running;
    return r == null ? null : r.node();
  }

  private static List<String> idsOf(java.util.Collection<RaftEndpoint> endpoints) {
    List<String> ids = new ArrayList<>();
    endpoints.forEach(e -> ids.add(String.valueOf(e.getId())));
    return ids;
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
            new ForeignDataDirException(
                dir + " holds the log of member " + was.getId() + ", not " + config.nodeId()));
      }
      MemberEndpoint now = MemberEndpoint.of(config.self());
      if (!now.equals(was)) {
        // the log's endpoint would win, and the node would listen where nobody looks for it: it
        // never leads a group of one, and its peers reach for it at the old address
        closeQuietly(store);
        throw new UncheckedIOException(
            new ForeignDataDirException(
                dir
                    + " holds the log of member "
                    + describe(was)
                    + ", not "
                    + now.member()
                    + ": start it at the address it has (a durable single node: the same --host"
                    + " and --port); a member moves by `semafor cluster remove` and `add`"));
      }
    }
    return store;
  }

  /** {@code id=host:clientPort:raftPort} for a Semafor endpoint, else its id. */
  private static String describe(RaftEndpoint endpoint) {
    return endpoint instanceof MemberEndpoint m
        ? m.member().toString()
        : String.valueOf(endpoint.getId());
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
  public void submit(Command command, @Nullable C context) {
    if (closed) {
      throw new ReplicatorClosedException();
    }
    Running<C, R, S> r = running;
    if (r == null || !leadership.isLeader()) {
      listener.refused(command, context, leaderHint());
      return;
    }
    r.batcher().submit(command, context);
  }

  /**
   * On the leader, queues the read with the commands: it travels in the log and is answered where
   * it falls, after every command submitted before it. Elsewhere refuses it.
   *
   * @throws ReplicatorClosedException after {@link #close}
   */
  @Override
  public void read(Query query, @Nullable R context) {
    if (closed) {
      throw new ReplicatorClosedException();
    }
    Running<C, R, S> r = running;
    if (r == null || !leadership.isLeader()) {
      listener.readRefused(query, context, leaderHint());
      return;
    }
    r.batcher().read(query, context);
  }

  /**
   * On the leader, queues the snapshot with the commands; this member serialises its state where
   * the entry falls. Elsewhere refuses it.
   *
   * @throws ReplicatorClosedException after {@link #close}
   */
  @Override
  public void snapshot(@Nullable S context) {
    if (closed) {
      throw new ReplicatorClosedException();
    }
    Running<C, R, S> r = running;
    if (r == null || !leadership.isLeader()) {
      listener.snapshotRefused(context, leaderHint());
      return;
    }
    r.batcher().snapshot(context);
  }

  @Override
  public long logTime() {
    return leadership.logTime(machine::lastLogTime);
  }

  @Override
  public boolean isLeader() {
    return leadership.isLeader() && !closed;
  }

  /** The leader's client address, from the members as MicroRaft knows them; "" if none. */
  @Override
  public String leaderHint() {
    MemberEndpoint leader = leaderEndpoint;
    return leader == null ? "" : leader.clientAddress();
  }

  /**
   * Adds a node started with {@code --join}, given as {@code id=host:clientPort:raftPort}: the
   * leader welcomes it, adds it as a learner, waits until it has caught up, then makes it a voting
   * member. Asked of a member that does not lead, passes the change to the leader. Blocks until the
   * change is committed or has failed, at most about a minute.
   *
   * @throws IllegalArgumentException naming {@code member} if it is malformed or already a member
   * @throws IllegalStateException if the group refused the change, the node did not answer, or it
   *     did not catch up in time (then it is removed again): nothing changed
   * @throws MembershipChangeUnknownException if the change was not committed in time: it may still
   *     be
   */
  @Override
  public List<String> addMember(String member) {
    if (closed) {
      throw new ReplicatorClosedException();
    }
    return membership.add(member);
  }

  /**
   * Removes the member with this id; a leader removing itself first hands leadership to the
   * follower furthest ahead. Asked of a member that does not lead, passes the change to the leader.
   * Blocks until the change is committed or has failed, at most about a minute.
   *
   * @throws IllegalArgumentException naming {@code member} if no member has this id, or it is the
   *     last voting member
   * @throws IllegalStateException if the group refused the change: nothing changed
   * @throws MembershipChangeUnknownException if the change was not committed in time: it may still
   *     be
   */
  @Override
  public List<String> removeMember(String id) {
    if (closed) {
      throw new ReplicatorClosedException();
    }
    return membership.remove(id);
  }

  /**
   * Hands leadership to member {@code id}; called on the leader, blocks until this member has
   * stepped down or {@code timeout} passes (MicroRaft then very likely elects {@code id}).
   *
   * @throws IllegalArgumentException if no voting member has this id
   * @throws IllegalStateException if this member does not lead, or the transfer did not complete
   */
  public void transferLeadership(String id, Duration timeout) {
    RaftNode n = nodeOrNull();
    if (n == null) {
      throw new IllegalStateException(config.nodeId() + " waits to join and leads no one");
    }
    RaftEndpoint to = null;
    for (RaftEndpoint e : n.getCommittedMembers().getVotingMembers()) {
      if (String.valueOf(e.getId()).equals(id)) {
        to = e;
      }
    }
    if (to == null) {
      throw new IllegalArgumentException("member: " + id + " is not a voting member");
    }
    try {
      n.transferLeadership(to).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while handing leadership to " + id, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("leadership was not transferred to " + id + ": " + e, e);
    }
  }

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
    Running<C, R, S> run = running;
    RaftNodeReport r = report;
    out.put("role", isLeader() ? "leader" : run == null ? "joining" : roleOf(r));
    out.put("leader", leadership.leaderId());
    // comma-separated, as the Ratis replicator gives them
    out.put(
        "members",
        run == null ? "" : String.join(",", idsOf(run.node().getCommittedMembers().getMembers())));
    if (run != null) {
      List<RaftEndpoint> learners = new ArrayList<>(run.node().getCommittedMembers().getMembers());
      learners.removeAll(run.node().getCommittedMembers().getVotingMembers());
      out.put("learners", String.join(",", idsOf(learners)));
    }
    out.put("durability", config.fsync() ? "fsync" : "replicated");
    out.put("tuning", config.tuning());
    if (r != null && run != null) {
      out.put("term", r.getTerm().getTerm());
      out.put("commitIndex", commitIndex()); // never below what this member applied
    }
    out.put("appliedIndex", machine.appliedIndex()); // after the term, as Ratis's status has it
    if (r != null && run != null) {
      out.put("lastLogIndex", r.getLog().getLastLogOrSnapshotIndex());
      // a follower behind this index is sent the snapshot instead of entries
      out.put("logStartIndex", r.getLog().getLastSnapshotIndex() + 1);
      out.put("snapshotIndex", r.getLog().getLastSnapshotIndex());
      if (r.getRole() == RaftRole.LEADER) {
        List<Map<String, Object>> followers = new ArrayList<>();
        long now = System.nanoTime();
        long upMillis = TimeUnit.NANOSECONDS.toMillis(now - madeNanos);
        r.getLog()
            .getFollowerMatchIndices()
            .forEach(
                (endpoint, match) -> {
                  String id = String.valueOf(endpoint.getId());
                  Long heard = transport.heardFrom().millisSince(id, now);
                  Map<String, Object> one = new LinkedHashMap<>();
                  one.put("id", id);
                  one.put("matchIndex", match);
                  // how long since this leader last heard from it (null: never), and whether that
                  // is past the election timeout: a killed member's match index stays where it was
                  one.put("sinceHeardMillis", heard);
                  one.put(
                      "reachable", !Silence.unreachable(heard, upMillis, config.electionTimeout()));
                  followers.add(one);
                });
        out.put("followers", followers);
      }
    }
    out.put("entriesInFlight", run == null ? 0 : run.batcher().inFlight());
    out.put("droppedUnwritable", transport.droppedUnwritable());
    out.put("malformedFrames", transport.malformedFrames());
    out.put("silentLeaderElections", run == null ? 0L : run.silentLeader().elections());
    return out;
  }

  private static String roleOf(@Nullable RaftNodeReport r) {
    if (r == null) {
      return "follower";
    }
    if (r.getStatus() == RaftNodeStatus.TERMINATED) {
      return "removed";
    }
    return r.getRole() == RaftRole.LEARNER ? "learner" : "follower";
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
    Running<C, R, S> r;
    synchronized (this) {
      closed = true;
      r = running;
    }
    leadership.stop();
    membership.close();
    if (r != null) {
      r.silentLeader().stop();
      try {
        r.node().terminate().get(CLOSE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | TimeoutException e) {
        log.warn(
            "MicroRaft member {} did not terminate cleanly: {}", config.nodeId(), e.toString());
      }
      r.batcher().refuseAll();
    }
    transport.close();
    loop.close();
    closeQuietly(store);
  }

  // ------------------------------------------------------------------ from the node's thread

  /** Who leads, as MicroRaft reports it: a leader that is not this member takes leadership away. */
  private void reported(RaftNodeReport r) {
    report = r;
    RaftEndpoint leader = r.getTerm().getLeaderEndpoint();
    leaderEndpoint = leader instanceof MemberEndpoint m ? m : null;
    String line =
        r.getStatus() == RaftNodeStatus.TERMINATED
            ? null // closing, or removed: said elsewhere
            : leaderChanges.observe(
                r.getTerm().getTerm(),
                leader == null ? "" : String.valueOf(leader.getId()),
                id -> transport.heardFrom().millisSince(id, System.nanoTime()));
    if (line != null) {
      log.info(line);
    }
    if (r.getRole() == RaftRole.LEADER && r.getStatus() != RaftNodeStatus.TERMINATED) {
      return; // it serves once its new-term entry applies (leaderReady)
    }
    if (r.getStatus() == RaftNodeStatus.TERMINATED) {
      // removed from the group (or closing): it serves no one from now on
      leaderEndpoint = null;
      leader = null;
    }
    String leaderId = leader == null ? "" : String.valueOf(leader.getId());
    if (!leaderId.equals(leadership.leaderId()) || leadership.isLeader()) {
      if (leadership.changedTo(leaderId)) {
        Running<C, R, S> run = running;
        if (run != null) {
          run.batcher().refuseAll();
        }
        listener.lostLeadership(leaderHint());
      }
    }
  }

  /**
   * Registers this member's series on {@code registry} ({@link MicroRaftMetrics}): the same names
   * as the Ratis replicator's, and this replicator's own.
   */
  @Override
  public void bindTo(MeterRegistry registry) {
    new MicroRaftMetrics(this, transport, store.syncs(), machine.pauses()).bindTo(registry);
  }

  /** Whether this member knows a leader (itself included); never blocks. */
  boolean knowsALeader() {
    RaftNode n = nodeOrNull();
    return n != null && n.getTerm().getLeaderEndpoint() != null;
  }

  /** Times this member saw the leader change. */
  java.util.concurrent.atomic.AtomicLong leaderChanges() {
    return leadership.changes();
  }

  /**
   * The commit index from MicroRaft's last report (at most a period old), and never below what this
   * member has applied, which was committed.
   */
  long commitIndex() {
    RaftNodeReport r = report;
    return Math.max(r == null ? 0 : r.getLog().getCommitIndex(), machine.appliedIndex());
  }

  /** The last index applied to this member's machine. */
  long appliedIndex() {
    return machine.appliedIndex();
  }

  /** Pre-votes started by the watch on MicroRaft's failure detection. */
  long silentLeaderPreVotes() {
    Running<C, R, S> r = running;
    return r == null ? 0 : r.silentLeader().elections();
  }

  /** The MicroRaft node, for tests that reach into it; it must be running. */
  RaftNode raftNode() {
    return java.util.Objects.requireNonNull(nodeOrNull(), "no Raft member yet");
  }

  /** The loop the node runs on, for tests that run on it. */
  NodeLoop nodeLoop() {
    return loop;
  }

  @Override
  public @Nullable List<Asked<C, R, S>> askedOf(String origin, long batch) {
    Running<C, R, S> r = running;
    return r == null ? null : r.batcher().askedOf(origin, batch);
  }

  /** The current term if MicroRaft says this member leads it, else -1. */
  @Override
  public int termLed() {
    RaftNode n = nodeOrNull();
    if (n == null) {
      return -1;
    }
    var term = n.getTerm();
    return self.equals(term.getLeaderEndpoint()) ? term.getTerm() : -1;
  }

  @Override
  public int term() {
    RaftNode n = nodeOrNull();
    return n == null ? 0 : n.getTerm().getTerm();
  }

  @Override
  public void leaderReady(SemaphoreMachine applied) {
    if (closed || leadership.isLeader()) {
      return;
    }
    leadership.becameLeader(applied.now());
    log.info("{} leads the group (term {})", config.nodeId(), term());
    listener.becameLeader();
  }
}
