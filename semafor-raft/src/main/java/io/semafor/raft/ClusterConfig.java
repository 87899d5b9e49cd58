package io.semafor.raft;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One node's view of its cluster: who it is, every member with its client and Raft addresses, where
 * its log lives, and how durable an acknowledged command is. Immutable.
 *
 * <p>Peers are written {@code id=host:clientPort:raftPort}, comma separated, e.g. {@code
 * n1=127.0.0.1:7400:7500,n2=127.0.0.1:7410:7510,n3=127.0.0.1:7420:7520}.
 */
public record ClusterConfig(
    String nodeId,
    List<Peer> peers,
    Path dataDir,
    Durability durability,
    Duration electionTimeoutMin,
    Duration electionTimeoutMax,
    long snapshotEvery) {

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

  /** Copies the peers; checks the node is one of them. */
  public ClusterConfig {
    peers = List.copyOf(peers);
    if (peers.stream().noneMatch(p -> p.id().equals(nodeId))) {
      throw new IllegalArgumentException("nodeId: " + nodeId + " is not among the peers " + peers);
    }
    if (electionTimeoutMax.compareTo(electionTimeoutMin) <= 0) {
      throw new IllegalArgumentException("electionTimeoutMax must exceed electionTimeoutMin");
    }
  }

  /**
   * A config with the defaults: election timeouts of 1–2 s (150–300 ms caused spurious elections on
   * a loaded 2-core machine), a snapshot every 100,000 entries.
   */
  public static ClusterConfig of(
      String nodeId, List<Peer> peers, Path dataDir, Durability durability) {
    return new ClusterConfig(
        nodeId, peers, dataDir, durability, Duration.ofSeconds(1), Duration.ofSeconds(2), 100_000);
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
      String p = part.trim();
      int eq = p.indexOf('=');
      String[] address = eq < 0 ? new String[0] : p.substring(eq + 1).split(":", -1);
      if (eq <= 0 || address.length != 3) {
        throw new IllegalArgumentException("peers: '" + p + "' is not id=host:clientPort:raftPort");
      }
      String id = p.substring(0, eq);
      try {
        Peer peer =
            new Peer(id, address[0], Integer.parseInt(address[1]), Integer.parseInt(address[2]));
        if (peers.put(id, peer) != null) {
          throw new IllegalArgumentException("peers: " + id + " appears twice");
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("peers: '" + p + "' has a port that is not a number", e);
      }
    }
    return new ArrayList<>(peers.values());
  }
}
