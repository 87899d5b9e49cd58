package io.semafor.microraft;

import io.semafor.replication.ClusterSpec;
import io.semafor.replication.PeerTls;
import io.semafor.replication.group.GroupMember;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One member's view of a cluster that replicates on MicroRaft: who it is, the members (each with
 * its client and Raft addresses), where it keeps its marker, and MicroRaft's timing. Immutable.
 *
 * <p>The tuning an operator may change is passed as properties with the {@code microraft.} prefix
 * ({@link #withProperties}); the defaults are the ones measured in decision 0043.
 *
 * @param fsync whether an entry is forced to disk before the member counts it (fsync durability),
 *     or only written to the file (replicated: it survives the process, and the machine once the
 *     system writes it back)
 * @param electionTimeout how long a follower hears nothing from its leader before it gives the
 *     leader up (rounded up to whole heartbeat periods, and noticed within one more), and the least
 *     a candidate waits for votes before it tries again
 * @param electionSpread how much longer than {@code electionTimeout}, at random, a candidate may
 *     wait before it tries again ({@code --election-timeout}'s upper bound less its lower): what
 *     keeps candidates that started together from splitting the vote round after round ({@link
 *     ElectionSpread})
 * @param heartbeatPeriod how often the leader sends heartbeats; MicroRaft's second lasts this long
 *     ({@link TimeScale})
 * @param entriesInFlight entries the leader has replicating at once; the commands that arrive
 *     meanwhile wait and go together in the next entry
 * @param snapshotEvery entries between MicroRaft's snapshots (its log is kept up to the last one)
 * @param join whether a member with no log waits to be added to a running cluster ({@code --join})
 *     instead of forming a group with {@code members}
 * @param tls mutual TLS between the members, or null for plain TCP
 */
public record MicroRaftConfig(
    String nodeId,
    List<GroupMember> members,
    Path dataDir,
    boolean fsync,
    Duration electionTimeout,
    Duration electionSpread,
    Duration heartbeatPeriod,
    int entriesInFlight,
    int snapshotEvery,
    boolean join,
    @Nullable PeerTls tls) {

  /** The prefix of every property this replicator reads. */
  public static final String PREFIX = "microraft.";

  /**
   * Copies the members and checks every field.
   *
   * @throws IllegalArgumentException naming the field that is wrong
   */
  public MicroRaftConfig {
    members = List.copyOf(members);
    if (members.stream().noneMatch(m -> m.id().equals(nodeId))) {
      throw new IllegalArgumentException("--node-id: " + nodeId + " is not one of --peers");
    }
    if (electionTimeout.toMillis() < 1) {
      throw new IllegalArgumentException("--election-timeout: must be at least 1ms");
    }
    if (electionSpread.isNegative()) {
      throw new IllegalArgumentException(
          "--election-timeout: its upper bound must not be below its lower bound");
    }
    new TimeScale(heartbeatPeriod); // checks its range
    positive("microraft.entries-in-flight", entriesInFlight);
    positive("microraft.snapshot-every", snapshotEvery);
  }

  /**
   * The defaults for this member, with election rounds of {@code electionTimeout} to twice as long
   * (as {@code --election-timeout}'s default of 300ms-600ms); see {@link #of(String, List, Path,
   * boolean, Duration, Duration)}.
   */
  public static MicroRaftConfig of(
      String nodeId,
      List<GroupMember> members,
      Path dataDir,
      boolean fsync,
      Duration electionTimeout) {
    return of(nodeId, members, dataDir, fsync, electionTimeout, electionTimeout);
  }

  /**
   * The defaults for this member: heartbeats every 100 ms (decision 0044), 4 entries in flight
   * (decision 0043's gate: 2× the entries a second of one in flight at 64 clients, the same at
   * one), a snapshot every 50,000 entries (MicroRaft's default).
   */
  public static MicroRaftConfig of(
      String nodeId,
      List<GroupMember> members,
      Path dataDir,
      boolean fsync,
      Duration electionTimeout,
      Duration electionSpread) {
    return new MicroRaftConfig(
        nodeId,
        members,
        dataDir,
        fsync,
        electionTimeout,
        electionSpread,
        Duration.ofMillis(100),
        4,
        50_000,
        false,
        null);
  }

  /**
   * The MicroRaft view of {@code spec}: its members, data directory and durability; election rounds
   * of {@link ClusterSpec#electionTimeoutMin} spread up to {@link ClusterSpec#electionTimeoutMax};
   * its {@code microraft.} properties ({@link #withProperties}) over the defaults; its TLS; joining
   * if it joins.
   *
   * @throws IllegalArgumentException naming a property it does not read, or a value it cannot take
   */
  public static MicroRaftConfig from(ClusterSpec spec) {
    MicroRaftConfig config =
        of(
                spec.nodeId(),
                spec.members(),
                spec.dataDir(),
                spec.durability() == ClusterSpec.Durability.FSYNC,
                spec.electionTimeoutMin(),
                spec.electionTimeoutMax().minus(spec.electionTimeoutMin()))
            .withProperties(spec.properties());
    PeerTls tls = spec.tls();
    if (tls != null) {
      config = config.withTls(tls);
    }
    return spec.join() ? config.joining() : config;
  }

  /** This config for a node that waits to be added to a running cluster ({@code --join}). */
  public MicroRaftConfig joining() {
    return new MicroRaftConfig(
        nodeId,
        members,
        dataDir,
        fsync,
        electionTimeout,
        electionSpread,
        heartbeatPeriod,
        entriesInFlight,
        snapshotEvery,
        true,
        tls);
  }

  /** This config with mutual TLS between the members. */
  public MicroRaftConfig withTls(PeerTls tls) {
    return new MicroRaftConfig(
        nodeId,
        members,
        dataDir,
        fsync,
        electionTimeout,
        electionSpread,
        heartbeatPeriod,
        entriesInFlight,
        snapshotEvery,
        join,
        tls);
  }

  /** The time MicroRaft runs on: its second is one {@link #heartbeatPeriod}. */
  public TimeScale timeScale() {
    return new TimeScale(heartbeatPeriod);
  }

  /** MicroRaft's heartbeat timeout, in its seconds: the election timeout in whole periods. */
  public int heartbeatTimeoutPeriods() {
    return timeScale().wholePeriods(electionTimeout);
  }

  /** This member's own entry in {@link #members}. */
  public GroupMember self() {
    return members.stream().filter(m -> m.id().equals(nodeId)).findFirst().orElseThrow();
  }

  /**
   * This config with the operator's properties applied: {@code microraft.heartbeat-period-ms} (1 to
   * 1000), {@code microraft.entries-in-flight}, {@code microraft.snapshot-every}, each a positive
   * whole number.
   *
   * @throws IllegalArgumentException naming the property ({@code raftProperty: KEY ...}) that is
   *     not one of these or whose value is not a positive whole number
   */
  public MicroRaftConfig withProperties(Map<String, String> properties) {
    Map<String, Integer> values = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : properties.entrySet()) {
      String key = e.getKey();
      if (!KEYS.contains(key)) {
        throw new IllegalArgumentException(
            "raftProperty: " + key + " is not a MicroRaft replicator property; known: " + KEYS);
      }
      int value;
      try {
        value = Integer.parseInt(e.getValue().trim());
      } catch (NumberFormatException x) {
        throw new IllegalArgumentException(
            "raftProperty: " + key + "=" + e.getValue() + " is not a whole number");
      }
      positive("raftProperty: " + key, value);
      values.put(key, value);
    }
    Integer periodMs = values.get("microraft.heartbeat-period-ms");
    if (periodMs != null && periodMs > 1000) {
      throw new IllegalArgumentException(
          "raftProperty: microraft.heartbeat-period-ms=" + periodMs + " is over 1000");
    }
    return new MicroRaftConfig(
        nodeId,
        members,
        dataDir,
        fsync,
        electionTimeout,
        electionSpread,
        periodMs == null ? heartbeatPeriod : Duration.ofMillis(periodMs),
        values.getOrDefault("microraft.entries-in-flight", entriesInFlight),
        values.getOrDefault("microraft.snapshot-every", snapshotEvery),
        join,
        tls);
  }

  /** The properties {@link #withProperties} reads. */
  public static final List<String> KEYS =
      List.of(
          "microraft.heartbeat-period-ms",
          "microraft.entries-in-flight",
          "microraft.snapshot-every");

  /** The tuning as an operator would pass it, for the status endpoint. */
  public Map<String, Object> tuning() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("electionTimeoutMillis", electionTimeout.toMillis());
    out.put("electionSpreadMillis", electionSpread.toMillis());
    out.put("heartbeatPeriodMillis", heartbeatPeriod.toMillis());
    out.put("heartbeatTimeoutMillis", heartbeatTimeoutPeriods() * heartbeatPeriod.toMillis());
    out.put("entriesInFlight", entriesInFlight);
    out.put("snapshotEvery", snapshotEvery);
    return out;
  }

  /** The ids of the members, in order. */
  public List<String> ids() {
    List<String> ids = new ArrayList<>();
    members.forEach(m -> ids.add(m.id()));
    return ids;
  }

  private static void positive(String name, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(name + ": " + value + " must be at least 1");
    }
  }
}
