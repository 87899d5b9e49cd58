package io.semafor.raft;

import io.semafor.replication.group.GroupMember;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One node's view of its cluster: who it is, the members it starts with (each with its client and
 * Raft addresses), where its log lives, and how durable an acknowledged command is. Immutable.
 *
 * <p>Peers are written {@code id=host:clientPort:raftPort}, comma separated, e.g. {@code
 * n1=127.0.0.1:7400:7500,n2=127.0.0.1:7410:7510,n3=127.0.0.1:7420:7520}.
 *
 * <p>The peers only seed a new log: once a node has a log, the membership is what the log says,
 * changed one member at a time through {@link RaftReplicator#addMember} and {@link
 * RaftReplicator#removeMember}. A node started with {@code join} starts with no members at all and
 * waits for the cluster to add it.
 *
 * @param snapshotEvery entries between automatic snapshots; the log is compacted up to each one
 * @param logSegmentBytes the size at which a log segment is closed (only closed segments are
 *     compacted)
 * @param raftProperties raw Ratis properties an operator passes, applied last, over Semafor's own
 *     tuning and over {@code snapshotEvery} and {@code logSegmentBytes} (docs/cluster.md); keys
 *     that Semafor's options set or its correctness depends on are refused
 */
public record ClusterConfig(
    String nodeId,
    List<Peer> peers,
    Path dataDir,
    Durability durability,
    Duration electionTimeoutMin,
    Duration electionTimeoutMax,
    long snapshotEvery,
    long logSegmentBytes,
    boolean join,
    Map<String, String> raftProperties) {

  /** Ratis's own default segment size. */
  public static final long DEFAULT_LOG_SEGMENT_BYTES = 32L << 20;

  /** A member: its id, the address clients use, and the port Raft traffic uses. */
  public record Peer(String id, String host, int clientPort, int raftPort) {
    /** {@code host:clientPort}, what a client is told when redirected here. */
    public String clientAddress() {
      return host + ":" + clientPort;
    }

    /** {@code host:raftPort}. */
    public String raftAddress() {
      return host + ":" + raftPort;
    }

    /** This member as every replicator names it. */
    public GroupMember member() {
      return new GroupMember(id, host, clientPort, raftPort);
    }
  }

  /** What an acknowledged command survives. */
  public enum Durability {
    /** On a majority's disk (fsync) before it is acknowledged: survives losing every node. */
    FSYNC,
    /**
     * In a majority's memory, written to disk in the background: survives any minority failing, as
     * Hazelcast's CP subsystem without persistence does; a majority dying at once can lose it.
     */
    REPLICATED
  }

  /**
   * Copies the peers and properties; checks the node is one of the peers and the properties are
   * Ratis's.
   *
   * @throws IllegalArgumentException naming the argument that is wrong
   */
  public ClusterConfig {
    peers = List.copyOf(peers);
    if (raftProperties == null) {
      throw new IllegalArgumentException("raftProperty: null");
    }
    RatisProperties.check(raftProperties);
    raftProperties = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(raftProperties));
    if (peers.stream().noneMatch(p -> p.id().equals(nodeId))) {
      throw new IllegalArgumentException("nodeId: " + nodeId + " is not among the peers " + peers);
    }
    if (electionTimeoutMax.compareTo(electionTimeoutMin) <= 0) {
      throw new IllegalArgumentException(
          "electionTimeout: the maximum "
              + electionTimeoutMax
              + " must exceed the minimum "
              + electionTimeoutMin);
    }
    if (logSegmentBytes < 1024) {
      throw new IllegalArgumentException("logSegmentBytes: " + logSegmentBytes + " is below 1024");
    }
  }

  /** A config without raw Ratis properties. */
  public ClusterConfig(
      String nodeId,
      List<Peer> peers,
      Path dataDir,
      Durability durability,
      Duration electionTimeoutMin,
      Duration electionTimeoutMax,
      long snapshotEvery,
      long logSegmentBytes,
      boolean join) {
    this(
        nodeId,
        peers,
        dataDir,
        durability,
        electionTimeoutMin,
        electionTimeoutMax,
        snapshotEvery,
        logSegmentBytes,
        join,
        Map.of());
  }

  /**
   * A config with the defaults: election timeouts of 0.3–0.6 s, a snapshot every 100,000 entries.
   * 150–300 ms caused spurious elections on a loaded 2-core machine; 0.3–0.6 s caused none with
   * three nodes' CPUs saturated by 64 clients, and fails over with p95 1.2 s against 2.0 s for
   * 0.5–1 s (decision 0017, docs/benchmarks.md).
   */
  public static ClusterConfig of(
      String nodeId, List<Peer> peers, Path dataDir, Durability durability) {
    return new ClusterConfig(
        nodeId,
        peers,
        dataDir,
        durability,
        Duration.ofMillis(300),
        Duration.ofMillis(600),
        100_000,
        DEFAULT_LOG_SEGMENT_BYTES,
        false);
  }

  /**
   * This config with election timeouts drawn between {@code min} and {@code max}.
   *
   * @throws IllegalArgumentException if {@code max} does not exceed {@code min}, or {@code min} is
   *     under 100 ms
   */
  public ClusterConfig withElectionTimeouts(Duration min, Duration max) {
    if (min.compareTo(Duration.ofMillis(100)) < 0) {
      throw new IllegalArgumentException("electionTimeout: " + min + " is under 100 ms");
    }
    return new ClusterConfig(
        nodeId,
        peers,
        dataDir,
        durability,
        min,
        max,
        snapshotEvery,
        logSegmentBytes,
        join,
        raftProperties);
  }

  /**
   * This config with raw Ratis properties {@code properties} (replacing any given before), applied
   * over Semafor's own tuning.
   *
   * @throws IllegalArgumentException naming the key, if one is not a property of Ratis, is set by
   *     Semafor's own options, or has no value
   */
  public ClusterConfig withRaftProperties(Map<String, String> properties) {
    return new ClusterConfig(
        nodeId,
        peers,
        dataDir,
        durability,
        electionTimeoutMin,
        electionTimeoutMax,
        snapshotEvery,
        logSegmentBytes,
        join,
        properties);
  }

  /** This config for a node that joins a running cluster instead of forming a new one. */
  public ClusterConfig joining() {
    return new ClusterConfig(
        nodeId,
        peers,
        dataDir,
        durability,
        electionTimeoutMin,
        electionTimeoutMax,
        snapshotEvery,
        logSegmentBytes,
        true,
        raftProperties);
  }

  /** This node's own entry. */
  public Peer self() {
    return peer(nodeId);
  }

  /** The peer with this id; null if none. */
  public @Nullable Peer peerOrNull(String id) {
    for (Peer p : peers) {
      if (p.id().equals(id)) {
        return p;
      }
    }
    return null;
  }

  private Peer peer(String id) {
    Peer p = peerOrNull(id);
    if (p == null) {
      throw new IllegalStateException("no peer " + id);
    }
    return p;
  }

  /**
   * Parses {@code id=host:clientPort:raftPort,...}.
   *
   * @throws IllegalArgumentException naming the part that is wrong
   */
  public static List<Peer> parsePeers(String text) {
    Map<String, Peer> peers = new LinkedHashMap<>();
    for (String part : text.split(",", -1)) {
      Peer peer = parsePeer("peers", part);
      if (peers.put(peer.id(), peer) != null) {
        throw new IllegalArgumentException("peers: " + peer.id() + " appears twice");
      }
    }
    return new ArrayList<>(peers.values());
  }

  /**
   * Parses one {@code id=host:clientPort:raftPort}.
   *
   * @param argument the name of the argument it came in, for the error
   * @throws IllegalArgumentException naming the argument and what is wrong
   */
  public static Peer parsePeer(String argument, String text) {
    GroupMember m = GroupMember.parse(argument, text);
    return new Peer(m.id(), m.host(), m.clientPort(), m.raftPort());
  }
}
