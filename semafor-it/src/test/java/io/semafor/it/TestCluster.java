package io.semafor.it;

import static org.awaitility.Awaitility.await;

import io.semafor.client.SemaforClient;
import io.semafor.embedded.FreePorts;
import io.semafor.microraft.MicroRaftReplicator;
import io.semafor.raft.RaftReplicator;
import io.semafor.replication.ClusterSpec;
import io.semafor.replication.Replicator;
import io.semafor.replication.ReplicatorProvider;
import io.semafor.replication.SnapshotFile;
import io.semafor.replication.group.GroupMember;
import io.semafor.server.SemaforServer;
import io.semafor.server.ServerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * A cluster of Semafor nodes in this JVM, each a real server on 127.0.0.1 with its own Raft member,
 * log and ports: for fast tests of everything the cluster does except process death. The nodes run
 * the replicator the system property {@value ClusterNodeProcess#TEST_REPLICATOR} names, MicroRaft
 * by default.
 */
final class TestCluster implements AutoCloseable {
  /** The replicator the tests' clusters run: {@code microraft} or {@code ratis}. */
  static String replicator() {
    return ClusterNodeProcess.testReplicator();
  }

  /** Whether these nodes run the MicroRaft replicator. */
  static boolean microRaft() {
    return replicator().equals("microraft");
  }

  /** Room for nodes added after the start. */
  private static final int MAX_NODES = 8;

  /** Small enough that a few hundred commands close segments the log can then compact. */
  static final long SMALL_LOG_SEGMENTS = 1024;

  private final List<GroupMember> peers = new ArrayList<>();
  private final List<GroupMember> seeds;
  private final Path dir;
  private final ClusterSpec.Durability durability;
  private final long snapshotEvery;
  private final long logSegmentBytes;

  /** Whether each node serves the admin HTTP endpoint (on a free port). */
  private boolean admin;

  private final @Nullable SemaforServer[] servers = new SemaforServer[MAX_NODES];
  private final @Nullable Replicator<?, ?, ?>[] replicators = new Replicator<?, ?, ?>[MAX_NODES];

  private TestCluster(int size, Path dir, long snapshotEvery, long logSegmentBytes) {
    this.dir = dir;
    this.durability = ClusterSpec.Durability.REPLICATED;
    this.snapshotEvery = snapshotEvery;
    this.logSegmentBytes = logSegmentBytes;
    for (int i = 0; i < size; i++) {
      peers.add(newPeer(i));
    }
    this.seeds = List.copyOf(peers);
  }

  private static GroupMember newPeer(int i) {
    return new GroupMember("n" + (i + 1), "127.0.0.1", freePort(), freePort());
  }

  /** Starts {@code size} nodes and waits for a leader. */
  static TestCluster start(int size, Path dir, long snapshotEvery) {
    return start(size, dir, snapshotEvery, ClusterNodeProcess.REPLICATORS_OWN_SEGMENTS);
  }

  /** Starts {@code size} nodes, each with its admin HTTP endpoint, and waits for a leader. */
  static TestCluster startWithAdmin(int size, Path dir) {
    TestCluster cluster =
        new TestCluster(size, dir, 10_000, ClusterNodeProcess.REPLICATORS_OWN_SEGMENTS);
    cluster.admin = true;
    for (int i = 0; i < size; i++) {
      cluster.startNode(i);
    }
    cluster.awaitLeader();
    return cluster;
  }

  /** Starts {@code size} nodes whose logs roll segments at {@code logSegmentBytes}. */
  static TestCluster start(int size, Path dir, long snapshotEvery, long logSegmentBytes) {
    TestCluster cluster = new TestCluster(size, dir, snapshotEvery, logSegmentBytes);
    for (int i = 0; i < size; i++) {
      cluster.startNode(i);
    }
    cluster.awaitLeader();
    return cluster;
  }

  /**
   * A cluster of {@code size} nodes not started yet, so their data directories can be seeded first
   * ({@link #dataDir}); {@link #startAll} starts them.
   */
  static TestCluster create(int size, Path dir, long snapshotEvery) {
    return new TestCluster(size, dir, snapshotEvery, ClusterNodeProcess.REPLICATORS_OWN_SEGMENTS);
  }

  /** Starts every node and waits for a leader. */
  void startAll() {
    for (int i = 0; i < peers.size(); i++) {
      startNode(i);
    }
    awaitLeader();
  }

  /**
   * Seeds node {@code i}'s empty data directory from a backup, as {@code semafor snapshot restore}
   * does for the replicator these nodes run; returns where the seeded log starts.
   */
  ReplicatorProvider.Seeded seed(int i, SnapshotFile.Loaded backup) throws java.io.IOException {
    return ClusterNodeProcess.testProvider().seed(dataDir(i), backup, id(i), seeds);
  }

  /** Node {@code i}'s data directory. */
  Path dataDir(int i) {
    return dir.resolve(peers.get(i).id());
  }

  private static int freePort() {
    return FreePorts.next();
  }

  /**
   * Starts a new node that joins instead of forming a cluster (it knows only itself), and returns
   * its index; it is a member once {@code addMember(peer(i).spec)} commits.
   */
  int startJoiningNode() {
    int i = peers.size();
    peers.add(newPeer(i));
    start(i, true);
    return i;
  }

  /** Node {@code i}'s member text, {@code id=host:clientPort:raftPort}. */
  String memberText(int i) {
    GroupMember p = peers.get(i);
    return p.id() + "=" + p.host() + ":" + p.clientPort() + ":" + p.raftPort();
  }

  /** Starts (or restarts, from its log and snapshots) node {@code i}. */
  void startNode(int i) {
    start(i, false);
  }

  private void start(int i, boolean join) {
    GroupMember self = peers.get(i);
    ClusterSpec config =
        ClusterSpec.of(self.id(), join ? List.of(self) : seeds, dir.resolve(self.id()), durability)
            .withElectionTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(2))
            .withProperties(
                ClusterNodeProcess.tuning(replicator(), snapshotEvery, logSegmentBytes));
    AtomicReference<Replicator<?, ?, ?>> made = new AtomicReference<>();
    try {
      servers[i] =
          SemaforServer.start(
              ServerConfig.builder().port(self.clientPort()).adminPort(admin ? 0 : -1).build(),
              ClusterNodeProcess.testProvider()
                  .factory(join ? config.joining() : config)
                  .andThen(made::set));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    replicators[i] = made.get();
  }

  /**
   * Hands leadership from node {@code from}, the leader, to node {@code to}, and waits until {@code
   * to} leads.
   */
  void transferLeadership(int from, int to) {
    Replicator<?, ?, ?> r = replicator(from);
    if (r instanceof RaftReplicator<?, ?, ?> ratis) {
      ratis.transferLeadership(id(to), Duration.ofSeconds(20));
    } else {
      ((MicroRaftReplicator<?, ?, ?>) r).transferLeadership(id(to), Duration.ofSeconds(20));
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> replicator(to).isLeader());
  }

  /** Stops node {@code i} as a crash would look to the others (its log stays on disk). */
  void stopNode(int i) {
    SemaforServer s = servers[i];
    if (s != null) {
      s.close();
      servers[i] = null;
      replicators[i] = null;
    }
  }

  /** Node {@code i}'s admin HTTP port; it must be running, in a cluster started with admin. */
  int adminPort(int i) {
    SemaforServer s = servers[i];
    if (s == null || s.adminAddress() == null) {
      throw new IllegalStateException("node " + i + " is not running or has no admin endpoint");
    }
    return java.util.Objects.requireNonNull(s.adminAddress()).getPort();
  }

  /** Node {@code i}'s replicator; it must be running. */
  Replicator<?, ?, ?> replicator(int i) {
    Replicator<?, ?, ?> r = replicators[i];
    if (r == null) {
      throw new IllegalStateException("node " + i + " is not running");
    }
    return r;
  }

  /** Node {@code i}'s status as {@code semafor cluster status} shows it. */
  long statusNumber(int i, String key) {
    return ((Number) replicator(i).status().get(key)).longValue();
  }

  /** The index of the leader, waiting up to 20 s for one. */
  int awaitLeader() {
    return await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(50))
        .until(this::leaderOrMinusOne, i -> i >= 0);
  }

  private int leaderOrMinusOne() {
    for (int i = 0; i < replicators.length; i++) {
      Replicator<?, ?, ?> r = replicators[i];
      if (r != null && r.isLeader()) {
        return i;
      }
    }
    return -1;
  }

  /** Every node's client address, comma separated, for a client that follows the leader. */
  String addresses() {
    return peers.stream().map(GroupMember::clientAddress).collect(Collectors.joining(","));
  }

  SemaforClient client(Duration sessionTtl) {
    return SemaforClient.builder()
        .addresses(addresses())
        .sessionTtl(sessionTtl)
        .connectTimeout(Duration.ofSeconds(10))
        .giveUpAfter(Duration.ofSeconds(30))
        .connect();
  }

  int size() {
    return peers.size();
  }

  /** Node {@code i}'s id. */
  String id(int i) {
    return peers.get(i).id();
  }

  @Override
  public void close() {
    for (int i = 0; i < servers.length; i++) {
      stopNode(i);
    }
  }
}
