package io.semafor.replication;

import io.semafor.replication.group.GroupMember;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * One member's view of its cluster, whatever replicates it: who it is, the members it starts with,
 * where its log lives, what an acknowledged command survives, how soon a silent leader is given up,
 * whether it joins a running cluster, the replicator's own tuning and TLS between the members. What
 * {@code semafor server}'s cluster options say; every {@link ReplicatorProvider} reads it, and
 * turns it into its library's configuration. Immutable.
 *
 * <p>Members are written {@code id=host:clientPort:raftPort}, comma separated ({@link
 * #parseMembers}). They only seed a new log: once a node has one, the membership is what the log
 * says. A node that {@link #join}s starts with no group and waits for the cluster to add it.
 *
 * @param nodeId this node's id, one of {@code members}
 * @param members the members the cluster starts with (a joining node: itself)
 * @param dataDir where the node keeps its log and snapshots
 * @param durability what an acknowledged command survives
 * @param electionTimeoutMin the least time a follower hears nothing before it stands for leader
 * @param electionTimeoutMax the most (the replicator draws between the two)
 * @param join whether a node without a log waits to be added to a running cluster
 * @param properties the replicator's own tuning ({@code --raft-property}), checked by its provider:
 *     a key it does not read is refused there
 * @param tls mutual TLS between the members on their Raft ports, or null for plain TCP
 */
public record ClusterSpec(
    String nodeId,
    List<GroupMember> members,
    Path dataDir,
    Durability durability,
    Duration electionTimeoutMin,
    Duration electionTimeoutMax,
    boolean join,
    Map<String, String> properties,
    @Nullable PeerTls tls) {

  /** The least election timeout a node takes: below it, a busy machine elects without a fault. */
  public static final Duration LEAST_ELECTION_TIMEOUT = Duration.ofMillis(100);

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
   * Copies the members and properties; checks the node is a member and the timeouts are a range.
   *
   * @throws IllegalArgumentException naming the argument that is wrong
   */
  public ClusterSpec {
    members = List.copyOf(members);
    for (Map.Entry<String, String> e : properties.entrySet()) {
      if (e.getKey() == null || e.getValue() == null || e.getValue().isBlank()) {
        throw new IllegalArgumentException("raftProperty: " + e.getKey() + " has no value");
      }
    }
    properties = Collections.unmodifiableMap(new TreeMap<>(properties));
    if (members.stream().noneMatch(m -> m.id().equals(nodeId))) {
      throw new IllegalArgumentException(
          "nodeId: " + nodeId + " is not among the peers " + members);
    }
    if (electionTimeoutMin.compareTo(LEAST_ELECTION_TIMEOUT) < 0) {
      throw new IllegalArgumentException(
          "electionTimeout: "
              + electionTimeoutMin.toMillis()
              + "ms is under "
              + LEAST_ELECTION_TIMEOUT.toMillis()
              + "ms");
    }
    if (electionTimeoutMax.compareTo(electionTimeoutMin) <= 0) {
      throw new IllegalArgumentException(
          "electionTimeout: the maximum "
              + electionTimeoutMax.toMillis()
              + "ms must exceed the minimum "
              + electionTimeoutMin.toMillis()
              + "ms");
    }
  }

  /**
   * A node of a new cluster with the defaults: election timeouts of 0.3–0.6 s (150–300 ms caused
   * elections without a fault on a loaded 2-core machine; decision 0017), no tuning, no TLS.
   *
   * @throws IllegalArgumentException if {@code nodeId} is not a member
   */
  public static ClusterSpec of(
      String nodeId, List<GroupMember> members, Path dataDir, Durability durability) {
    return new ClusterSpec(
        nodeId,
        members,
        dataDir,
        durability,
        Duration.ofMillis(300),
        Duration.ofMillis(600),
        false,
        Map.of(),
        null);
  }

  /**
   * This spec with election timeouts drawn between {@code min} and {@code max}.
   *
   * @throws IllegalArgumentException if {@code max} does not exceed {@code min}, or {@code min} is
   *     under {@link #LEAST_ELECTION_TIMEOUT}
   */
  public ClusterSpec withElectionTimeouts(Duration min, Duration max) {
    return new ClusterSpec(nodeId, members, dataDir, durability, min, max, join, properties, tls);
  }

  /** This spec with the replicator's tuning {@code properties} (replacing any given before). */
  public ClusterSpec withProperties(Map<String, String> properties) {
    return new ClusterSpec(
        nodeId,
        members,
        dataDir,
        durability,
        electionTimeoutMin,
        electionTimeoutMax,
        join,
        properties,
        tls);
  }

  /** This spec with mutual TLS between the members. */
  public ClusterSpec withTls(PeerTls tls) {
    return new ClusterSpec(
        nodeId,
        members,
        dataDir,
        durability,
        electionTimeoutMin,
        electionTimeoutMax,
        join,
        properties,
        tls);
  }

  /** This spec for a node that joins a running cluster instead of forming a new one. */
  public ClusterSpec joining() {
    return new ClusterSpec(
        nodeId,
        members,
        dataDir,
        durability,
        electionTimeoutMin,
        electionTimeoutMax,
        true,
        properties,
        tls);
  }

  /** This node's own entry in {@link #members}. */
  public GroupMember self() {
    GroupMember m = memberOrNull(nodeId);
    if (m == null) {
      throw new IllegalStateException("no member " + nodeId); // the constructor checked it
    }
    return m;
  }

  /** The member with this id; null if none. */
  public @Nullable GroupMember memberOrNull(String id) {
    for (GroupMember m : members) {
      if (m.id().equals(id)) {
        return m;
      }
    }
    return null;
  }

  /** The ids of the members, in order. */
  public List<String> ids() {
    List<String> ids = new ArrayList<>();
    members.forEach(m -> ids.add(m.id()));
    return ids;
  }

  /**
   * Parses {@code id=host:clientPort:raftPort,...}.
   *
   * @throws IllegalArgumentException naming the part that is wrong ({@code peers: ...})
   */
  public static List<GroupMember> parseMembers(String text) {
    Map<String, GroupMember> members = new LinkedHashMap<>();
    for (String part : text.split(",", -1)) {
      GroupMember m = GroupMember.parse("peers", part);
      if (members.put(m.id(), m) != null) {
        throw new IllegalArgumentException("peers: " + m.id() + " appears twice");
      }
    }
    return new ArrayList<>(members.values());
  }
}
