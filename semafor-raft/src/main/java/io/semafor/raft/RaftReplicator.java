package io.semafor.raft;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.semafor.core.Command;
import io.semafor.core.Query;
import io.semafor.core.SemaphoreMachine;
import io.semafor.protocol.tls.NamedPeerTrustManager;
import io.semafor.protocol.tls.TlsMaterial;
import io.semafor.replication.ApplyListener;
import io.semafor.replication.Replicator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.KeyManager;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftClientRequestProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientAsynchronousProtocol;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Replicator} that is one member of a Raft group on Apache Ratis. On the leader, every
 * command submitted while an entry is in flight waits and goes into the next entry, so a commit
 * round carries as many commands as arrived during the previous one (one entry, many commands,
 * applied in order). Followers refuse commands and reads: their clients are sent to the leader.
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
 */
public final class RaftReplicator implements Replicator, SemaforStateMachine.Owner, MeterBinder {
  private static final Logger log = LoggerFactory.getLogger(RaftReplicator.class);
  private static final int MAX_BATCH = 8192;
  private static final java.time.Duration CLOSE_TIMEOUT = java.time.Duration.ofSeconds(5);

  /** How long a membership change may take, catching the new member up included. */
  private static final java.time.Duration MEMBERSHIP_TIMEOUT = java.time.Duration.ofSeconds(60);

  /** The pause between two tries of a membership change. */
  private static final long MEMBERSHIP_RETRY_MILLIS = 500;

  /**
   * Entries in flight at once. Here every entry costs the nodes about the same CPU inside Ratis
   * whatever it carries, and the three nodes are CPU-bound under load, so more entries in flight
   * (smaller ones) were measured worse: W1 C=16 with three in flight 644 pairs/s after warm-up
   * against 1,000–1,250 with one (decision 0015); two in flight, W1 C=64 5,314 against 6,278
   * (decision 0018).
   */
  private static final int MAX_OUTSTANDING = 1;

  /** The group every Semafor cluster forms: one group per cluster. */
  static final RaftGroupId GROUP_ID =
      RaftGroupId.valueOf(UUID.fromString("5e3af0a0-0000-4000-8000-5e3af0a00001"));

  private final ClusterConfig config;
  private final ApplyListener listener;
  private final SemaforStateMachine stateMachine;
  private final RaftServer server;

  /** This node's member of the group, once the server started. */
  private final RaftServer.Division division;

  /** Where this node's entries and reads are submitted: its own Ratis member (decision 0018). */
  private final RaftClientAsynchronousProtocol member;

  private final RaftGroup group;

  /** Ratis's parameters: the peers' TLS, if any, for the server and every client it makes. */
  private final Parameters parameters;

  private final RaftPeerId selfId;

  /** Who this node's entries and reads come from, as Ratis's retry cache and reads know them. */
  private final ClientId selfClient = ClientId.randomId();

  private final AtomicLong nextCallId = new AtomicLong();

  /** The call id of the last entry answered, not yet told to Ratis's retry cache; 0 if none. */
  private final AtomicLong answeredCallId = new AtomicLong();

  /**
   * Sends the next entry when one completes: completions run on Ratis's state-machine updater
   * thread, which must not itself take the server's lock to append (see {@link #sendNext}).
   */
  private final ExecutorService sender;

  private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();
  private final ReentrantLock sendLock = new ReentrantLock();

  /** Entries sent and not yet answered. */
  private final AtomicInteger outstanding = new AtomicInteger();

  /**
   * When the entry in flight was handed to Ratis ({@link System#nanoTime()}), and which batch it
   * is; read by {@link #checkEntryInFlight}.
   */
  private volatile long inFlightSince;

  private volatile long inFlightBatch;

  /** Watches for a state machine that can never apply again (read on the watch thread only). */
  private final ApplyGap applyGap = new ApplyGap();

  /** The batch {@link #checkEntryInFlight} last warned about, so that it warns once per entry. */
  private long warnedBatch;

  private final AtomicLong nextBatch = new AtomicLong();
  private final AtomicLong nextRead = new AtomicLong();
  private final ConcurrentHashMap<Long, Batch> inFlight = new ConcurrentHashMap<>();

  /** Reads sent on the read-index path and not yet answered, by read id. */
  private final ConcurrentHashMap<Long, Pending> pendingReads = new ConcurrentHashMap<>();

  /**
   * A snapshot item taken off the queue while building an entry that already had commands: it goes
   * first in the next entry, alone. Written holding {@link #sendLock}.
   */
  private volatile @Nullable Pending carried;

  private volatile boolean leader;
  private volatile String leaderId = "";
  private volatile long epoch;
  private volatile boolean closed;

  /** The leader this node saw last ("" for none), and how many times that changed. */
  private final AtomicReference<String> lastSeenLeader = new AtomicReference<>("");

  private final AtomicLong leaderChanges = new AtomicLong();

  /** Restarts this leader's log appenders that got stuck ({@link AppenderWatch}). */
  private final AppenderWatch appenderWatch = new AppenderWatch();

  /** Match indexes this leader's appenders brought down ({@link RepairingLogAppender}). */
  private final AtomicLong matchCorrections = new AtomicLong();

  /** Stranded entries this leader's appenders sent again ({@link StrandedEntries}). */
  private final AtomicLong strandedResends = new AtomicLong();

  private final java.util.concurrent.ScheduledExecutorService watchTimer;

  /** A command or an {@link Entry.Read}, and where its answer goes. */
  private record Pending(Object item, @Nullable Object context) {}

  private record Batch(List<Object> items, List<@Nullable Object> contexts) {}

  private RaftReplicator(
      ClusterConfig config, SemaphoreMachine machine, ApplyListener listener, @Nullable PeerTls tls)
      throws IOException {
    this.config = config;
    this.parameters = parameters(tls);
    parameters.put(WatchedGrpcRpcType.WATCH, appenderWatch, AppenderWatch.class);
    parameters.put(WatchedGrpcRpcType.MATCH_CORRECTIONS, matchCorrections, AtomicLong.class);
    parameters.put(WatchedGrpcRpcType.STRANDED_RESENDS, strandedResends, AtomicLong.class);
    this.listener = listener;
    this.selfId = RaftPeerId.valueOf(config.nodeId());
    this.stateMachine =
        new SemaforStateMachine(machine, machine.limits(), listener, this, config.nodeId());
    Files.createDirectories(config.dataDir());
    boolean existing = Files.exists(config.dataDir().resolve(GROUP_ID.getUuid().toString()));
    // a joining node knows no members until the cluster adds it; one with a log reads them there
    this.group = config.join() && !existing ? RaftGroup.valueOf(GROUP_ID) : group(config);
    this.server =
        RaftServer.newBuilder()
            .setServerId(selfId)
            .setGroup(group)
            .setProperties(serverProperties(config))
            .setParameters(parameters)
            .setStateMachine(stateMachine)
            .setOption(
                existing ? RaftStorage.StartupOption.RECOVER : RaftStorage.StartupOption.FORMAT)
            .build();
    this.sender = Executors.newSingleThreadExecutor(daemon("semafor-raft-send-" + config.nodeId()));
    server.start();
    this.division = server.getDivision(GROUP_ID);
    closeGapBelowSnapshot(division);
    this.member = localMember(division, server);
    this.watchTimer =
        Executors.newSingleThreadScheduledExecutor(daemon("semafor-raft-watch-" + config.nodeId()));
    watchAppenders();
  }

  /**
   * Drops the log of a member that starts with its last entry below its own snapshot (decision
   * 0038): a log cut at a bad record can end there, since the snapshot taken when the node last
   * stopped covers entries the cut removed. Ratis warns ("End log index 52 is smaller than last
   * index in snapshot 55") and goes on with the gap, then refuses every entry the leader sends
   * ("gap between entries 56 and 52"): the node never applies another write. Every entry the log
   * still holds is in the snapshot, so Ratis's own step after an installed snapshot applies: the
   * log is purged up to it and starts after it.
   */
  private static void closeGapBelowSnapshot(RaftServer.Division division) {
    org.apache.ratis.statemachine.SnapshotInfo snapshot =
        division.getStateMachine().getLatestSnapshot();
    org.apache.ratis.server.protocol.TermIndex last = division.getRaftLog().getLastEntryTermIndex();
    if (snapshot == null || last == null || last.getIndex() >= snapshot.getIndex()) {
      return;
    }
    log.warn(
        "the log of {} ends at {}, below its snapshot at {} (cut at a bad record): starting it"
            + " after the snapshot",
        division.getId(),
        last.getIndex(),
        snapshot.getIndex());
    division.getRaftLog().onSnapshotInstalled(snapshot.getIndex()).join();
  }

  /** Daemon threads named {@code name}: this member's own never keep a JVM up. */
  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  @SuppressWarnings("FutureReturnValueIgnored") // runs until close; neither check throws
  private void watchAppenders() {
    watchTimer.scheduleWithFixedDelay(
        () -> {
          appenderWatch.check();
          checkEntryInFlight();
          checkApplyGap();
        },
        AppenderWatch.CHECK_EVERY.toMillis(),
        AppenderWatch.CHECK_EVERY.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /**
   * The group's member on this server, which takes requests directly. The server itself also takes
   * them, but hands each to a pool thread and blocks until it is appended; a Ratis version whose
   * member no longer takes requests falls back to that.
   */
  private static RaftClientAsynchronousProtocol localMember(
      RaftServer.Division division, RaftServer server) {
    return division instanceof RaftClientAsynchronousProtocol direct ? direct : server;
  }

  /**
   * Starts this node's member of the group and returns at once; it serves once a leader is elected
   * ({@link #isLeader}).
   *
   * @throws UncheckedIOException if the log cannot be opened or the Raft port bound, or (caused by
   *     a {@link CorruptSnapshotException}) the latest snapshot on disk is damaged
   */
  public static RaftReplicator start(
      ClusterConfig config, SemaphoreMachine machine, ApplyListener listener) {
    return start(config, machine, listener, null);
  }

  /**
   * Like {@link #start(ClusterConfig, SemaphoreMachine, ApplyListener)}, with mutual TLS between
   * the members if {@code tls} is not null: then every member of the cluster must use TLS with
   * certificates from the same CA. A member whose certificate does not lead to it is refused in the
   * handshake, both ways, and so never joins.
   *
   * @throws UncheckedIOException if the log cannot be opened or the Raft port bound, or (caused by
   *     a {@link CorruptSnapshotException}) the latest snapshot on disk is damaged
   */
  public static RaftReplicator start(
      ClusterConfig config,
      SemaphoreMachine machine,
      ApplyListener listener,
      @Nullable PeerTls tls) {
    if (ForkJoinPool.getCommonPoolParallelism() < 2) {
      log.warn(
          "the common fork-join pool has parallelism {}: Ratis will start a thread for every entry"
              + " a follower appends; start the JVM with"
              + " -Djava.util.concurrent.ForkJoinPool.common.parallelism=2 (semafor server does)",
          ForkJoinPool.getCommonPoolParallelism());
    }
    // Ratis ends the whole JVM (System.exit(1)) when its gRPC server cannot bind the Raft port;
    // this makes it throw instead, so the failure reaches the caller as any failed start does
    // (found when a test cluster's port was taken between choosing and binding it: the test JVM
    // exited). A process that embeds a node is not Ratis's to end.
    org.apache.ratis.util.ExitUtils.disableSystemExit();
    try {
      // before Ratis, which would log the failure with two stack traces of its own
      SnapshotCheck.latestIsWhole(config.dataDir());
      return new RaftReplicator(config, machine, listener, tls);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start Raft member " + config.nodeId(), e);
    }
  }

  /**
   * Ratis's parameters with the peers' TLS: one config serves the server's ports and the clients it
   * calls other members with (Ratis falls back to {@code GrpcConfigKeys.TLS} for each). The key and
   * trust managers are ours, not Ratis's PEM reading, so that a peer's certificate is checked for
   * its name as well as its chain ({@link NamedPeerTrustManager}).
   *
   * @throws IllegalArgumentException if a PEM file cannot be read (the command line checked them)
   */
  static Parameters parameters(@Nullable PeerTls tls) {
    Parameters parameters = new Parameters();
    if (tls != null) {
      TlsMaterial material = TlsMaterial.read(tls.cert(), tls.key(), tls.ca());
      KeyManager[] keys = java.util.Objects.requireNonNull(material.keyManagers());
      TrustManager[] trusts = java.util.Objects.requireNonNull(material.trustManagers());
      TrustManager trust = trusts[0];
      if (!tls.names().isEmpty()) {
        trust = new NamedPeerTrustManager((X509ExtendedTrustManager) trust, tls.names());
      }
      GrpcConfigKeys.TLS.setConf(parameters, new GrpcTlsConfig(keys[0], trust, true));
    }
    return parameters;
  }

  static RaftGroup group(ClusterConfig config) {
    List<RaftPeer> peers = new ArrayList<>();
    for (ClusterConfig.Peer p : config.peers()) {
      peers.add(raftPeer(p));
    }
    return RaftGroup.valueOf(GROUP_ID, peers);
  }

  /**
   * A member as Ratis knows it. Its client address rides in the data-stream address, a field Ratis
   * leaves alone unless its data-stream transport is configured (it is not here), so the replicated
   * configuration itself tells every member where to send a member's clients; Ratis's own client
   * address field would redirect Ratis's clients.
   */
  static RaftPeer raftPeer(ClusterConfig.Peer p) {
    return RaftPeer.newBuilder()
        .setId(p.id())
        .setAddress(p.raftAddress())
        .setDataStreamAddress(p.clientAddress())
        .build();
  }

  /** Snapshots a node keeps on disk: its latest and the one before. */
  static final int SNAPSHOTS_KEPT = 2;

  private static RaftProperties serverProperties(ClusterConfig config) {
    RaftProperties p = new RaftProperties();
    RaftServerConfigKeys.setStorageDir(p, List.of(config.dataDir().toFile()));
    // Ratis's gRPC transport with its log appenders watched: one that waits forever on a dead
    // connection is restarted (AppenderWatch). A class name is how Ratis takes a user-defined type.
    p.set(RaftConfigKeys.Rpc.TYPE_KEY, WatchedGrpcRpcType.class.getName());
    GrpcConfigKeys.Server.setPort(p, config.self().raftPort());
    RaftServerConfigKeys.Rpc.setTimeoutMin(
        p, TimeDuration.valueOf(config.electionTimeoutMin().toMillis(), TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setTimeoutMax(
        p, TimeDuration.valueOf(config.electionTimeoutMax().toMillis(), TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, config.snapshotEvery());
    // Ratis keeps every snapshot it ever took unless told otherwise (retention -1): each one is
    // the whole state, so the data directory grew by a state's size at every snapshot, without
    // end (found while testing corrupted snapshots). The newest two: the latest, and the one
    // before it for an operator to inspect if the latest turns out damaged.
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, SNAPSHOTS_KEPT);
    // compact the log up to each snapshot: a follower too far behind is sent the snapshot
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
    RaftServerConfigKeys.Log.setPurgeGap(p, (int) Math.min(1024, config.snapshotEvery()));
    RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(config.logSegmentBytes()));
    // Ratis follows every committed entry with a metadata entry carrying the commit index, so each
    // of our entries cost two replication rounds; without them a restarted node learns the commit
    // index from the leader instead of its own log (decision 0018)
    RaftServerConfigKeys.Log.setLogMetadataEnabled(p, false);
    if (config.durability() == ClusterConfig.Durability.REPLICATED) {
      RaftServerConfigKeys.Log.setUnsafeFlushEnabled(p, true);
    }
    // A power cut while a record is appended leaves part of it at the end of the open segment.
    // By default Ratis then refuses to start ("Failed to initRaftLog") and the node is down until
    // an operator wipes it; this cuts the log at the first record that fails its checksum. A torn
    // record was never acknowledged by this node (it acknowledges after the sync in FSYNC mode,
    // and a minority's unsynced tail is what REPLICATED mode gives up), so the leader sends it
    // again. A record corrupted mid-segment is cut too, with what follows: decision 0031 says
    // what that gives up (found by the fault harness).
    RaftServerConfigKeys.Log.setCorruptionPolicy(
        p, RaftServerConfigKeys.Log.CorruptionPolicy.WARN_AND_RETURN);
    // After a JVM pause longer than raft.server.close.threshold (60 s) Ratis closes its server and
    // leaves the process up with no Raft member in it (found by the fault harness). Raft's safety
    // does not depend on timing, and reads here go through the read index, not a lease, so a node
    // back from a long pause simply rejoins: a deposed leader learns the new term and steps down,
    // a follower catches up. The threshold is set beyond any pause (ClusterFaultTest, 65 s).
    RaftServerConfigKeys.setCloseThreshold(p, TimeDuration.valueOf(365, TimeUnit.DAYS));
    return p;
  }

  // ------------------------------------------------------------------ Replicator

  @Override
  public void submit(Command command, @Nullable Object context) {
    if (closed) {
      throw new ReplicatorClosedException();
    }
    if (!leader) {
      listener.refused(command, context, leaderHint());
      return;
    }
    queue.offer(new Pending(command, context));
    sendNext();
  }

  /**
   * Sends what is queued as entries while fewer than {@link #MAX_OUTSTANDING} are in flight; a
   * completion sends what queued meanwhile (on {@link #sender}). Only the thread holding {@link
   * #sendLock} drains and sends, and with one entry in flight each entry is in the log before the
   * next is sent, so entries are in the log in queue order.
   *
   * <p>Entries go straight to this node's Ratis member, not through a Ratis client and gRPC to
   * itself (decision 0018). Appending takes the member's lock, so it happens on the submitting
   * thread (a Netty event loop) or on {@link #sender}, never on a Ratis thread that completed a
   * reply. Nobody ever waits for {@link #sendLock} either (decision 0015): a thread that finds it
   * taken leaves its work to the holder, which looks again after unlocking.
   */
  private void sendNext() {
    while (hasWork() && outstanding.get() < MAX_OUTSTANDING) {
      if (sendLock.isHeldByCurrentThread() || !sendLock.tryLock()) {
        return; // the holder looks again after unlocking (or, on a refusal inline, after sending)
      }
      try {
        while (hasWork() && outstanding.get() < MAX_OUTSTANDING) {
          sendOneEntry();
        }
      } finally {
        sendLock.unlock();
      }
    }
  }

  private boolean hasWork() {
    return carried != null || !queue.isEmpty();
  }

  /**
   * The next item to send: a carried snapshot first. Called holding {@link #sendLock}. A snapshot
   * goes in an entry of its own ({@link Entry.Snapshot}): one met after commands is carried to the
   * next entry, and nothing is added after one.
   */
  private @Nullable Pending nextItem(List<Object> items) {
    if (!items.isEmpty() && items.get(items.size() - 1) instanceof Entry.Snapshot) {
      return null;
    }
    Pending c = carried;
    if (c != null) {
      if (!items.isEmpty()) {
        return null;
      }
      carried = null;
      return c;
    }
    if (items.size() >= MAX_BATCH) {
      return null;
    }
    Pending p = queue.poll();
    if (p != null && p.item() instanceof Entry.Snapshot && !items.isEmpty()) {
      carried = p;
      return null;
    }
    return p;
  }

  /**
   * Drains the queue: its commands become one entry, sent first; its reads then go, in order, on
   * Ratis's read-index path after that entry (read-after-write from the same client id), so each
   * read sees every command queued before it. Called holding {@link #sendLock}.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // whenComplete handles every outcome
  private void sendOneEntry() {
    List<Object> items = new ArrayList<>();
    List<@Nullable Object> contexts = new ArrayList<>();
    List<Pending> reads = new ArrayList<>();
    for (Pending p = nextItem(items); p != null; p = nextItem(items)) {
      if (p.item() instanceof Entry.Read) {
        reads.add(p);
      } else {
        items.add(p.item());
        contexts.add(p.context());
      }
    }
    if (items.isEmpty() && reads.isEmpty()) {
      return;
    }
    if (!items.isEmpty()) {
      long batch = nextBatch.incrementAndGet();
      inFlight.put(batch, new Batch(items, contexts));
      Entry entry = new Entry(logTime(), config.nodeId(), batch, items);
      inFlightBatch = batch;
      inFlightSince = System.nanoTime();
      outstanding.incrementAndGet();
      submitToSelf(
              Message.valueOf(UnsafeByteOperations.unsafeWrap(entry.encode())),
              RaftClientRequest.writeRequestType())
          .whenComplete((reply, error) -> sent(batch, reply, error));
    }
    if (!reads.isEmpty()) {
      // one read-index request answers every read of this drain
      long[] ids = new long[reads.size()];
      java.nio.ByteBuffer message = java.nio.ByteBuffer.allocate(Long.BYTES * ids.length);
      for (int i = 0; i < ids.length; i++) {
        ids[i] = ((Entry.Read) reads.get(i).item()).id();
        pendingReads.put(ids[i], reads.get(i));
        message.putLong(ids[i]);
      }
      // read-after-write: Ratis waits until this node's entries sent before it are applied
      submitToSelf(
              Message.valueOf(UnsafeByteOperations.unsafeWrap(message.array())),
              RaftClientRequest.readAfterWriteConsistentRequestType())
          .whenComplete((reply, error) -> readsSent(ids, reply, error));
    }
  }

  /**
   * Hands a request to this node's Ratis member as a client's request would arrive. Ratis's retry
   * cache keeps a write's reply until told the client has it, so each write names the previous
   * answered one.
   */
  private CompletableFuture<RaftClientReply> submitToSelf(
      Message message, RaftClientRequest.Type type) {
    RaftClientRequest.Builder request =
        RaftClientRequest.newBuilder()
            .setClientId(selfClient)
            .setServerId(selfId)
            .setGroupId(GROUP_ID)
            .setCallId(nextCallId.incrementAndGet())
            .setMessage(message)
            .setType(type);
    long answered =
        type.is(RaftClientRequestProto.TypeCase.WRITE) ? answeredCallId.getAndSet(0) : 0;
    if (answered != 0) {
      request.setRepliedCallIds(List.of(answered));
    }
    try {
      return member.submitClientRequestAsync(request.build());
    } catch (IOException | RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** How long an entry may stay in flight before {@link #checkEntryInFlight} says so. */
  static final java.time.Duration ENTRY_IN_FLIGHT_WARNING = java.time.Duration.ofSeconds(30);

  /**
   * Warns, once per entry, when the entry in flight has waited for Ratis's answer longer than
   * {@link #ENTRY_IN_FLIGHT_WARNING}: with one entry in flight at a time, every command queued
   * behind it waits too, so this is the moment a leader stops serving. The log line says whether
   * Ratis has the entry uncommitted (its last index above the commit index: replication stalled) or
   * does not seem to have it at all. Never throws.
   */
  private void checkEntryInFlight() {
    try {
      long batch = inFlightBatch;
      long waited = System.nanoTime() - inFlightSince;
      if (outstanding.get() == 0
          || batch == warnedBatch
          || waited < ENTRY_IN_FLIGHT_WARNING.toNanos()) {
        return;
      }
      warnedBatch = batch;
      org.apache.ratis.server.protocol.TermIndex last =
          division.getRaftLog().getLastEntryTermIndex();
      log.warn(
          "entry {} of {} has waited {} ms for Ratis (leader: {}; {} commands queued behind it;"
              + " log last {} commit {} applied {})",
          batch,
          config.nodeId(),
          TimeUnit.NANOSECONDS.toMillis(waited),
          leader,
          queue.size(),
          last,
          division.getRaftLog().getLastCommittedIndex(),
          division.getInfo().getLastAppliedIndex());
    } catch (RuntimeException e) {
      log.debug("checking the entry in flight", e);
    }
  }

  /**
   * Stops this node (fail-stop, as a failed log does) when its state machine can never apply again
   * ({@link ApplyGap}): started again, it loads the newest snapshot on its disk.
   */
  private void checkApplyGap() {
    try {
      long applied = division.getInfo().getLastAppliedIndex();
      long start = division.getRaftLog().getStartIndex();
      long committed = division.getRaftLog().getLastCommittedIndex();
      if (!applyGap.stuck(applied, start, committed, System.nanoTime())) {
        return;
      }
      String what =
          "the state machine of "
              + config.nodeId()
              + " is at index "
              + applied
              + " but its log starts at "
              + start
              + ", with entries up to "
              + committed
              + " committed: it can never apply them (a snapshot installed while another was being"
              + " loaded; decision 0037)";
      if (!closed && logFailed.compareAndSet(false, true)) {
        log.error("{}; this node must stop and be started again", what);
        listener.failed(what, new IllegalStateException(what));
      }
    } catch (RuntimeException e) {
      log.debug("checking the applied index", e);
    }
  }

  /** A read-index request came back: its reads were answered by the state machine, or failed. */
  private void readsSent(long[] ids, @Nullable RaftClientReply reply, @Nullable Throwable error) {
    boolean failed = error != null || reply == null || !reply.isSuccess();
    for (long id : ids) {
      Pending unanswered = pendingReads.remove(id);
      if (failed && unanswered != null) {
        log.debug("read {} not answered here: {}", id, error != null ? error : reply);
        listener.readRefused(
            ((Entry.Read) unanswered.item()).query(), unanswered.context(), leaderHint());
      }
    }
  }

  /**
   * An entry came back: applied (its commands were answered as they applied), or refused. Runs on a
   * Ratis thread, or inline in {@link #submitToSelf} on a refusal; never waits for our lock.
   */
  private void sent(long batch, @Nullable RaftClientReply reply, @Nullable Throwable error) {
    boolean failed = error != null || reply == null || !reply.isSuccess();
    if (reply != null) {
      answeredCallId.set(reply.getCallId());
    }
    if (failed) {
      Batch refused = inFlight.remove(batch);
      if (refused != null) {
        log.debug(
            "entry {} not committed here: {}",
            batch,
            error != null ? error.toString() : reply == null ? "no reply" : reply.getException());
        for (int i = 0; i < refused.items().size(); i++) {
          Object item = refused.items().get(i);
          if (item instanceof Entry.Read read) {
            listener.readRefused(read.query(), refused.contexts().get(i), leaderHint());
          } else if (item instanceof Entry.Snapshot) {
            listener.snapshotRefused(refused.contexts().get(i), leaderHint());
          } else {
            listener.refused((Command) item, refused.contexts().get(i), leaderHint());
          }
        }
      }
    }
    outstanding.decrementAndGet();
    if (hasWork()) {
      sendFromSender();
    }
  }

  private void sendFromSender() {
    try {
      sender.execute(this::sendNext);
    } catch (RejectedExecutionException e) {
      log.debug("not sending: closed", e); // close() refuses what is left
    }
  }

  /**
   * Reads take Ratis's linearizable read-index path: the leader confirms it still leads, waits
   * until it has applied everything committed before the read (and everything this node wrote
   * before it), and answers from its state machine. A read queues behind the commands submitted
   * before it, so it sees them (decision 0014).
   */
  @Override
  public void read(Query query, @Nullable Object context) {
    if (closed) {
      throw new ReplicatorClosedException();
    }
    if (!leader) {
      listener.readRefused(query, context, leaderHint());
      return;
    }
    queue.offer(new Pending(new Entry.Read(nextRead.incrementAndGet(), query), context));
    sendNext();
  }

  /**
   * Proposes the snapshot as an entry of its own after the commands queued before it; this node
   * serialises its state when it applies that entry (decision 0022).
   */
  @Override
  public void snapshot(@Nullable Object context) {
    if (closed) {
      throw new ReplicatorClosedException();
    }
    if (!leader) {
      listener.snapshotRefused(context, leaderHint());
      return;
    }
    queue.offer(new Pending(new Entry.Snapshot(nextRead.incrementAndGet()), context));
    sendNext();
  }

  @Override
  public long logTime() {
    return leader ? System.nanoTime() - epoch : stateMachine.now();
  }

  @Override
  public boolean isLeader() {
    return leader && !closed;
  }

  @Override
  public String leaderHint() {
    String id = leaderId();
    if (id.isEmpty()) {
      return "";
    }
    RaftPeer member = memberOrNull(currentPeers(), id);
    if (member != null) {
      String address = member.getDataStreamAddress();
      return address == null ? "" : address;
    }
    ClusterConfig.Peer p = config.peerOrNull(id);
    return p == null ? "" : p.clientAddress();
  }

  private static @Nullable RaftPeer memberOrNull(List<RaftPeer> members, String id) {
    for (RaftPeer p : members) {
      if (p.getId().toString().equals(id)) {
        return p;
      }
    }
    return null;
  }

  /** The members now, as this node knows them (the seed peers if it knows nothing yet). */
  private List<RaftPeer> currentPeers() {
    try {
      return new ArrayList<>(server.getDivision(GROUP_ID).getRaftConf().getCurrentPeers());
    } catch (IOException e) {
      return new ArrayList<>(group.getPeers());
    }
  }

  /**
   * Adds a member, given as {@code id=host:clientPort:raftPort}, through Ratis's reconfiguration,
   * and returns the members' ids after the change. Blocks until the change is committed: the leader
   * first brings the new member up to date (sending it a snapshot if the log was compacted), so the
   * new node must be running, started with {@link ClusterConfig#join}. One member at a time;
   * callable on any member.
   *
   * @throws IllegalArgumentException if the text is malformed or the id is already a member
   * @throws IllegalStateException if the cluster refused the change or did not commit it in time
   */
  @Override
  public List<String> addMember(String member) {
    ClusterConfig.Peer peer = ClusterConfig.parsePeer("member", member);
    List<RaftPeer> current = currentPeers();
    if (memberOrNull(current, peer.id()) != null) {
      throw new IllegalArgumentException("member: " + peer.id() + " is already a member");
    }
    List<RaftPeer> next = new ArrayList<>(current);
    next.add(raftPeer(peer));
    return changeMembers(current, next);
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
    List<RaftPeer> current = currentPeers();
    RaftPeer removed = memberOrNull(current, id);
    if (removed == null) {
      throw new IllegalArgumentException("member: " + id + " is not a member");
    }
    List<RaftPeer> next = new ArrayList<>(current);
    next.remove(removed);
    if (next.isEmpty()) {
      throw new IllegalArgumentException("member: " + id + " is the last member");
    }
    return changeMembers(current, next);
  }

  /**
   * Asks the leader to hand leadership to the member {@code id} (for maintenance of the leader's
   * machine, or to test a member's state); blocks until it has or {@code timeout} passes.
   *
   * @throws IllegalArgumentException if no member has this id
   * @throws IllegalStateException if the transfer did not complete
   */
  public void transferLeadership(String id, java.time.Duration timeout) {
    List<RaftPeer> current = currentPeers();
    if (memberOrNull(current, id) == null) {
      throw new IllegalArgumentException("member: " + id + " is not a member");
    }
    try (RaftClient admin = adminClient(current)) {
      RaftClientReply reply =
          admin.admin().transferLeadership(RaftPeerId.valueOf(id), timeout.toMillis());
      if (!reply.isSuccess()) {
        throw new IllegalStateException("leadership was not transferred: " + reply.getException());
      }
    } catch (IOException e) {
      throw new IllegalStateException("leadership was not transferred: " + e, e);
    }
  }

  /** A client for group-wide requests that finds the leader among {@code members} itself. */
  private RaftClient adminClient(List<RaftPeer> members) {
    RaftProperties properties = new RaftProperties();
    RaftClientConfigKeys.Rpc.setRequestTimeout(
        properties, TimeDuration.valueOf(MEMBERSHIP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
    return RaftClient.newBuilder()
        .setProperties(properties)
        .setParameters(parameters)
        .setRaftGroup(RaftGroup.valueOf(GROUP_ID, members))
        // tries again (another change in progress, a leader being elected) for as long as one
        // try may wait: 20 tries (10 s) ran out while a member the change needed was restarting
        // (MembershipChangeOutcomeTest on a loaded CI machine)
        .setRetryPolicy(
            RetryPolicies.retryUpToMaximumCountWithFixedSleep(
                (int) (MEMBERSHIP_TIMEOUT.toMillis() / MEMBERSHIP_RETRY_MILLIS),
                TimeDuration.valueOf(MEMBERSHIP_RETRY_MILLIS, TimeUnit.MILLISECONDS)))
        .build();
  }

  private List<String> changeMembers(List<RaftPeer> current, List<RaftPeer> next) {
    try (RaftClient admin = adminClient(current)) {
      // compare-and-set: someone else's change made meanwhile fails this one, is not undone
      RaftClientReply reply =
          admin
              .admin()
              .setConfiguration(
                  SetConfigurationRequest.Arguments.newBuilder()
                      .setServersInCurrentConf(current)
                      .setServersInNewConf(next)
                      .setMode(SetConfigurationRequest.Mode.COMPARE_AND_SET)
                      .build());
      if (!reply.isSuccess() && !madeMeanwhile(next)) {
        throw new IllegalStateException("the cluster refused the change: " + reply.getException());
      }
    } catch (IOException e) {
      if (!madeMeanwhile(next)) {
        throw new IllegalStateException("the membership change did not complete: " + e, e);
      }
    }
    return next.stream().map(p -> p.getId().toString()).toList();
  }

  /**
   * Whether the members are now {@code next}, as this node sees them within a moment: then the
   * change was made, although the call that asked for it failed. Ratis's client sends a request
   * again after an error; when the first one went through, the compare-and-set of the second finds
   * the configuration already changed and fails, and the change was reported as failed while it had
   * been made (found by the fault harness, REPLACE_MEMBER; the same happens to two callers asking
   * for the same change). The same set of members is the same outcome, whoever made it.
   */
  private boolean madeMeanwhile(List<RaftPeer> next) {
    java.util.Set<String> wanted = ids(next);
    long deadline = System.nanoTime() + CONF_SETTLES.toNanos();
    while (true) {
      if (wanted.equals(committedMembers())) {
        return true;
      }
      if (System.nanoTime() > deadline) {
        return false;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
  }

  /**
   * The members' ids if this node knows its configuration to be committed and stable (not a joint
   * configuration in the middle of a change); empty otherwise.
   */
  private java.util.Set<String> committedMembers() {
    try {
      RaftServer.Division division = server.getDivision(GROUP_ID);
      org.apache.ratis.server.RaftConfiguration conf = division.getRaftConf();
      boolean committed = conf.getLogEntryIndex() <= division.getRaftLog().getLastCommittedIndex();
      return committed && conf.getPreviousPeers().isEmpty()
          ? ids(new ArrayList<>(conf.getCurrentPeers()))
          : java.util.Set.of();
    } catch (IOException e) {
      return java.util.Set.of();
    }
  }

  /** How long a member may take to learn a configuration the leader committed. */
  private static final java.time.Duration CONF_SETTLES = java.time.Duration.ofSeconds(3);

  private static java.util.Set<String> ids(List<RaftPeer> peers) {
    java.util.Set<String> ids = new java.util.HashSet<>();
    for (RaftPeer p : peers) {
      ids.add(p.getId().toString());
    }
    return ids;
  }

  @Override
  public Map<String, Object> status() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("mode", "raft");
    out.put("node", config.nodeId());
    out.put("role", leader ? "leader" : "follower");
    out.put("leader", leaderId());
    out.put(
        "members",
        String.join(",", currentPeers().stream().map(p -> p.getId().toString()).toList()));
    out.put("durability", config.durability().name().toLowerCase(Locale.ROOT));
    try {
      RaftServer.Division division = server.getDivision(GROUP_ID);
      out.put("term", division.getInfo().getCurrentTerm());
      out.put("commitIndex", division.getRaftLog().getLastCommittedIndex());
      out.put("appliedIndex", division.getInfo().getLastAppliedIndex());
      out.put("logStartIndex", division.getRaftLog().getStartIndex());
      SingleFileSnapshotInfo snapshot = stateMachine.getLatestSnapshot();
      out.put("snapshotIndex", snapshot == null ? -1 : snapshot.getIndex());
    } catch (IOException e) {
      out.put("error", String.valueOf(e.getMessage()));
    }
    return out;
  }

  /** The id of the leader as this node knows it, or "" if none is known. */
  public String leaderId() {
    return leader ? config.nodeId() : leaderId;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    leader = false;
    watchTimer.shutdownNow();
    // Ratis's close can wait forever for peers that are gone (seen in tests when the other nodes
    // were already stopped): bound it, so a node's shutdown (and a test's) always ends
    Thread closer =
        new Thread(
            () -> {
              sender.shutdown();
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
  public @Nullable ReadRequest readOf(long id) {
    Pending p = pendingReads.remove(id);
    return p == null ? null : new ReadRequest(((Entry.Read) p.item()).query(), p.context());
  }

  @Override
  public @Nullable List<@Nullable Object> contextsOf(String origin, long batch) {
    if (!origin.equals(config.nodeId())) {
      return null;
    }
    Batch b = inFlight.remove(batch);
    return b == null ? null : b.contexts();
  }

  /** Whether the log failed to write ({@link #logFailed}): reported once. */
  private final java.util.concurrent.atomic.AtomicBoolean logFailed =
      new java.util.concurrent.atomic.AtomicBoolean();

  @Override
  public void leaderReady(SemaphoreMachine machine) {
    // log time continues from the last applied command on this node's clock
    epoch = System.nanoTime() - machine.now();
    leaderId = config.nodeId();
    sawLeader(config.nodeId());
    leader = true;
    log.info("{} leads the group", config.nodeId());
    listener.becameLeader();
  }

  @Override
  public void leaderChanged(String newLeaderId) {
    leaderId = newLeaderId;
    sawLeader(newLeaderId);
    if (leader) {
      leader = false;
      log.info("{} no longer leads; the leader is {}", config.nodeId(), newLeaderId);
      listener.lostLeadership(leaderHint());
    }
  }

  @Override
  public void logFailed(Throwable cause, @Nullable LogEntryProto entry) {
    // a write cut short by our own close is no failure of the disk
    if (!closed && logFailed.compareAndSet(false, true)) {
      String what =
          "the Raft log of "
              + config.nodeId()
              + " could not be written"
              + (entry == null ? "" : " at index " + entry.getIndex())
              + ": "
              + cause.getMessage();
      log.error("{}; this node must stop and be started again", what, cause);
      listener.failed(what, cause);
    }
  }

  /**
   * Counts a leader change when a leader is known that is not the one seen last: a new leader, or
   * the same one again after an election without one (as etcd counts them).
   */
  private void sawLeader(String id) {
    String before = lastSeenLeader.getAndSet(id);
    if (!id.isEmpty() && !id.equals(before)) {
      leaderChanges.incrementAndGet();
    }
  }

  /** Registers this member's Raft series on {@code registry} (see {@link RaftMetrics}). */
  @Override
  public void bindTo(MeterRegistry registry) {
    new RaftMetrics(
            division,
            this::isLeader,
            leaderChanges,
            appenderWatch,
            matchCorrections,
            strandedResends)
        .bindTo(registry);
  }

  /** Where the state lives on disk. */
  public Path dataDir() {
    return config.dataDir();
  }
}
