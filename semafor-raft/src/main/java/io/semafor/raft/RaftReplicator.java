package io.semafor.raft;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.semafor.core.Command;
import io.semafor.core.Query;
import io.semafor.core.SemaphoreMachine;
import io.semafor.replication.ApplyListener;
import io.semafor.replication.ClusterSpec;
import io.semafor.replication.PeerTls;
import io.semafor.replication.Replicator;
import io.semafor.replication.ReplicatorFactory;
import io.semafor.replication.group.Asked;
import io.semafor.replication.group.Leadership;
import io.semafor.replication.group.Silence;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Replicator} that is one member of a Raft group on Apache Ratis: the facade over the
 * member's parts. {@link RaftBootstrap} starts the member on its log; on the leader, {@link
 * EntrySender} batches the commands submitted while an entry is in flight into the next entry (one
 * entry, many commands, applied in order); {@link Leadership} knows who leads and the leader's log
 * time; {@link Membership} changes the members; {@link RaftHealthWatch} watches for a member that
 * stopped serving without failing. Followers refuse commands and reads: their clients are sent to
 * the leader.
 *
 * <p>The leader stamps each entry with its log time: its own monotonic clock, offset when it became
 * leader so that log time continues from the last applied command and never runs backwards across
 * leaders. Timers run on every node (they follow the applied effects), but only the leader's expiry
 * proposals are accepted; the machine refuses any that would be early in log time.
 *
 * <p>As a {@link MeterBinder} it registers its Raft series (term, leader, indexes, log sync time)
 * on the server's metrics registry ({@link RaftMetrics}).
 *
 * <p>Thread-safe. {@link ApplyListener#refused} may be called on any thread.
 *
 * @param <C> what a command's asker gives ({@link Replicator})
 * @param <R> what a read's asker gives
 * @param <S> what a snapshot's asker gives
 */
public final class RaftReplicator<C, R, S>
    implements Replicator<C, R, S>, SemaforStateMachine.Owner<C, R, S>, MeterBinder {
  private static final Logger log = LoggerFactory.getLogger(RaftReplicator.class);
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

  /** The group every Semafor cluster forms: one group per cluster. */
  static final RaftGroupId GROUP_ID =
      RaftGroupId.valueOf(UUID.fromString("5e3af0a0-0000-4000-8000-5e3af0a00001"));

  private final ClusterSpec config;
  private final ApplyListener<C, R, S> listener;
  private final SemaforStateMachine<C, R, S> stateMachine;
  private final RaftServer server;

  /** This node's member of the group, once the server started. */
  private final RaftServer.Division division;

  private final Leadership leadership;
  private final Membership membership;
  private final EntrySender<C, R, S> sender;
  private final RaftHealthWatch watch;

  /** Restarts this leader's log appenders that got stuck ({@link AppenderWatch}). */
  private final AppenderWatch appenderWatch = new AppenderWatch();

  /** What this leader's appenders repaired ({@link RepairingLogAppender}). */
  private final AppenderRepairs repairs = new AppenderRepairs();

  /** Whether this node was told to stop (its log failed, or it can never apply): said once. */
  private final AtomicBoolean failStopped = new AtomicBoolean();

  private volatile boolean closed;

  private RaftReplicator(
      ClusterSpec config,
      SemaphoreMachine machine,
      ApplyListener<C, R, S> listener,
      @Nullable PeerTls tls)
      throws IOException {
    this.config = config;
    this.listener = listener;
    this.leadership = new Leadership(config.nodeId());
    Parameters parameters = RaftBootstrap.parameters(tls);
    parameters.put(WatchedGrpcRpcType.WATCH, appenderWatch, AppenderWatch.class);
    parameters.put(WatchedGrpcRpcType.REPAIRS, repairs, AppenderRepairs.class);
    this.stateMachine =
        new SemaforStateMachine<>(machine, machine.limits(), listener, this, config.nodeId());
    // all before the member starts: replaying its log, the state machine calls back
    this.sender = new EntrySender<>(config.nodeId(), listener, this::logTime, this::leaderHint);
    RaftBootstrap.Built built = RaftBootstrap.build(config, parameters, stateMachine);
    this.server = built.server();
    this.membership = new Membership(config, server, built.group(), parameters);
    this.division = RaftBootstrap.start(built);
    sender.attach(RaftBootstrap.localMember(server, division));
    this.watch =
        new RaftHealthWatch(
            config.nodeId(),
            division,
            appenderWatch,
            sender,
            leadership::isLeader,
            what -> failStop(what, new IllegalStateException(what)));
    watch.start();
  }

  /** Daemon threads named {@code name}: this member's own never keep a JVM up. */
  static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * A factory that starts this node's member from {@code config} ({@link #start}), for a server
   * ({@code SemaforServer.start}, {@code Main.run}). Checks the Ratis properties first.
   *
   * @throws IllegalArgumentException naming a Ratis property ({@code raftProperty: KEY ...}) that
   *     Ratis does not read, that Semafor's options set, or that has no value
   */
  public static ReplicatorFactory factory(ClusterSpec config) {
    RatisProperties.check(config);
    return new ReplicatorFactory() {
      @Override
      public <C, R, S> Replicator<C, R, S> create(
          SemaphoreMachine machine, ApplyListener<C, R, S> listener) {
        return start(config, machine, listener);
      }
    };
  }

  /**
   * Starts this node's member of the group and returns at once; it serves once a leader is elected
   * ({@link #isLeader}). With {@link ClusterSpec#tls}, every member of the cluster must use TLS
   * with certificates from the same CA: a member whose certificate does not lead to it is refused
   * in the handshake, both ways, and so never joins.
   *
   * @throws IllegalArgumentException naming a Ratis property the spec carries that is refused
   * @throws UncheckedIOException if the log cannot be opened or the Raft port bound, or (caused by
   *     a {@link CorruptSnapshotException}) the latest snapshot on disk is damaged
   */
  public static <C, R, S> RaftReplicator<C, R, S> start(
      ClusterSpec config, SemaphoreMachine machine, ApplyListener<C, R, S> listener) {
    RatisProperties.check(config);
    RaftBootstrap.prepareJvm();
    try {
      // before Ratis, which would log the failure with two stack traces of its own
      SnapshotCheck.latestIsWhole(config.dataDir());
      return new RaftReplicator<>(config, machine, listener, config.tls());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start Raft member " + config.nodeId(), e);
    }
  }

  // ------------------------------------------------------------------ Replicator

  /**
   * On the leader, queues the command for the next entry (never waits for an entry in flight; with
   * none in flight it appends the entry itself, under Ratis's member lock); elsewhere refuses it to
   * the listener with the leader's address.
   *
   * @throws ReplicatorClosedException after {@link #close}
   */
  @Override
  public void submit(Command command, @Nullable C context) {
    if (closed) {
      throw new ReplicatorClosedException();
    }
    if (!leadership.isLeader()) {
      listener.refused(command, context, leaderHint());
      return;
    }
    sender.submit(command, context);
  }

  /**
   * Reads take Ratis's linearizable read-index path: the leader confirms it still leads, waits
   * until it has applied everything committed before the read (and everything this node wrote
   * before it), and answers from its state machine. A read queues behind the commands submitted
   * before it, so it sees them (decision 0014). Never waits for an entry in flight.
   *
   * @throws ReplicatorClosedException after {@link #close}
   */
  @Override
  public void read(Query query, @Nullable R context) {
    if (closed) {
      throw new ReplicatorClosedException();
    }
    if (!leadership.isLeader()) {
      listener.readRefused(query, context, leaderHint());
      return;
    }
    sender.read(query, context);
  }

  /**
   * Proposes the snapshot as an entry of its own after the commands queued before it; this node
   * serialises its state when it applies that entry (decision 0022). Never waits for an entry in
   * flight.
   *
   * @throws ReplicatorClosedException after {@link #close}
   */
  @Override
  public void snapshot(@Nullable S context) {
    if (closed) {
      throw new ReplicatorClosedException();
    }
    if (!leadership.isLeader()) {
      listener.snapshotRefused(context, leaderHint());
      return;
    }
    sender.snapshot(context);
  }

  @Override
  public long logTime() {
    return leadership.logTime(stateMachine::now); // on the leader, without the machine's lock
  }

  @Override
  public boolean isLeader() {
    return leadership.isLeader() && !closed;
  }

  @Override
  public String leaderHint() {
    String id = leaderId();
    return id.isEmpty() ? "" : membership.clientAddressOf(id);
  }

  /**
   * Adds a member, given as {@code id=host:clientPort:raftPort}, through Ratis's reconfiguration,
   * and returns the members' ids after the change. Blocks until the change is committed: the leader
   * first brings the new member up to date (sending it a snapshot if the log was compacted), so the
   * new node must be running, started with {@link ClusterSpec#join}. One member at a time; callable
   * on any member.
   *
   * @throws IllegalArgumentException if the text is malformed or the id is already a member
   * @throws IllegalStateException if the cluster refused the change or did not commit it in time
   */
  @Override
  public List<String> addMember(String member) {
    return membership.add(member);
  }

  /**
   * Removes the member with this id and returns the members' ids after the change. Blocks until the
   * change is committed. A removed leader steps down once the change is committed; the removed node
   * keeps running until it is stopped, serving no one.
   *
   * @throws IllegalArgumentException if no member has this id, or it is the last member
   * @throws IllegalStateException if the cluster refused the change or did not commit it in time
   */
  @Override
  public List<String> removeMember(String id) {
    return membership.remove(id);
  }

  /**
   * Asks the leader to hand leadership to the member {@code id} (for maintenance of the leader's
   * machine, or to test a member's state); blocks until it has or {@code timeout} passes.
   *
   * @throws IllegalArgumentException if no member has this id
   * @throws IllegalStateException if the transfer did not complete
   */
  public void transferLeadership(String id, Duration timeout) {
    membership.transferLeadership(id, timeout);
  }

  /**
   * This member's view of the cluster: its role, the leader, the members, Ratis's term and indexes,
   * and on the leader where each follower stands. Never blocks on the other members.
   */
  @Override
  public Map<String, Object> status() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("mode", "raft");
    out.put("node", config.nodeId());
    out.put("role", leadership.isLeader() ? "leader" : "follower");
    out.put("leader", leaderId());
    out.put("members", membership.ids());
    out.put("durability", config.durability().name().toLowerCase(Locale.ROOT));
    out.put("raftProperties", RatisProperties.text(config.properties()));
    out.put("term", division.getInfo().getCurrentTerm());
    out.put("commitIndex", division.getRaftLog().getLastCommittedIndex());
    out.put("appliedIndex", division.getInfo().getLastAppliedIndex());
    out.put("logStartIndex", division.getRaftLog().getStartIndex());
    SingleFileSnapshotInfo snapshot = stateMachine.getLatestSnapshot();
    out.put("snapshotIndex", snapshot == null ? -1 : snapshot.getIndex());
    if (leadership.isLeader()) {
      // where each follower stands: a follower missing here has no appender sending it anything
      out.put(
          "followers",
          appenderWatch.followers().stream()
              .map(
                  f -> {
                    Map<String, Object> one = new LinkedHashMap<>();
                    one.put("id", f.id());
                    one.put("matchIndex", f.matchIndex());
                    one.put("nextIndex", f.nextIndex());
                    one.put("silentMillis", f.silentMillis());
                    // since the leader last had an answer from it, and whether that is past the
                    // election timeout: a killed member's match index stays where it was
                    one.put("sinceHeardMillis", f.sinceHeardMillis());
                    one.put(
                        "reachable",
                        f.sinceHeardMillis() == null
                            || !Silence.unreachable(
                                f.sinceHeardMillis(), 0, config.electionTimeoutMax()));
                    return one;
                  })
              .toList());
    }
    return out;
  }

  /** The id of the leader as this node knows it, or "" if none is known. Never blocks. */
  public String leaderId() {
    return leadership.leaderId();
  }

  /**
   * Stops serving and closes the Raft member: within {@link #CLOSE_TIMEOUT}, else leaves it to the
   * process's exit. Idempotent.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    leadership.stop();
    watch.close();
    // Ratis's close can wait forever for peers that are gone (seen in tests when the other nodes
    // were already stopped): bound it, so a node's shutdown (and a test's) always ends
    Thread closer =
        new Thread(
            () -> {
              sender.close();
              try {
                server.close();
              } catch (IOException e) {
                log.warn("closing the Raft server", e);
              }
            },
            "semafor-raft-close-" + config.nodeId());
    closer.setDaemon(true);
    closer.start();
    try {
      closer.join(CLOSE_TIMEOUT.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (closer.isAlive()) {
      log.warn(
          "Raft member {} did not close within {}; leaving it to the process's exit",
          config.nodeId(),
          CLOSE_TIMEOUT);
    }
  }

  // ------------------------------------------------------------------ from the state machine

  @Override
  public Asked.@Nullable Read<C, R, S> readOf(long id) {
    return sender.readOf(id);
  }

  @Override
  public @Nullable List<Asked<C, R, S>> askedOf(String origin, long batch) {
    return origin.equals(config.nodeId()) ? sender.askedOf(batch) : null;
  }

  @Override
  public void leaderReady(SemaphoreMachine machine) {
    // log time continues from the last applied command on this node's clock
    leadership.becameLeader(machine.now());
    log.info("{} leads the group", config.nodeId());
    listener.becameLeader();
  }

  @Override
  public void leaderChanged(String newLeaderId) {
    if (leadership.changedTo(newLeaderId)) {
      log.info("{} no longer leads; the leader is {}", config.nodeId(), newLeaderId);
      listener.lostLeadership(leaderHint());
    }
  }

  @Override
  public void logFailed(Throwable cause, @Nullable LogEntryProto entry) {
    failStop(
        "the Raft log of "
            + config.nodeId()
            + " could not be written"
            + (entry == null ? "" : " at index " + entry.getIndex())
            + ": "
            + cause.getMessage(),
        cause);
  }

  /**
   * Tells the listener, once, that this node must stop and be started again; nothing after our own
   * close (a write cut short by it is no failure of the disk).
   */
  private void failStop(String what, Throwable cause) {
    if (!closed && failStopped.compareAndSet(false, true)) {
      log.error("{}; this node must stop and be started again", what, cause);
      listener.failed(what, cause);
    }
  }

  /** Registers this member's Raft series on {@code registry} (see {@link RaftMetrics}). */
  @Override
  public void bindTo(MeterRegistry registry) {
    new RaftMetrics(division, this::isLeader, leadership.changes(), appenderWatch, repairs)
        .bindTo(registry);
  }

  /** Where the state lives on disk. */
  public Path dataDir() {
    return config.dataDir();
  }
}
