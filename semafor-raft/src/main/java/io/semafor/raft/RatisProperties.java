package io.semafor.raft;

import io.semafor.replication.ClusterSpec;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * The Ratis properties of a node: what Semafor's options decide, the tuning Semafor chose (each
 * with its reason), and last the raw properties an operator passed ({@link
 * ClusterSpec#properties}), which override the tuning. Keys that Semafor's options set, or that its
 * correctness depends on, cannot be passed raw ({@link #RESERVED}).
 */
final class RatisProperties {
  private RatisProperties() {}

  /** Entries between snapshots unless the operator sets {@value #SNAPSHOT_EVERY_KEY}. */
  static final long DEFAULT_SNAPSHOT_EVERY = 100_000;

  /** The Ratis property of the entries between snapshots: the log's purge gap follows it. */
  static final String SNAPSHOT_EVERY_KEY = RaftServerConfigKeys.Snapshot.AUTO_TRIGGER_THRESHOLD_KEY;

  /** Ratis's own default segment size (an operator may pass raft.server.log.segment.size.max). */
  static final long DEFAULT_LOG_SEGMENT_BYTES = 32L << 20;

  /** Entries between snapshots: the operator's {@value #SNAPSHOT_EVERY_KEY}, else the default. */
  static long snapshotEvery(ClusterSpec config) {
    String given = config.properties().get(SNAPSHOT_EVERY_KEY);
    if (given == null) {
      return DEFAULT_SNAPSHOT_EVERY;
    }
    try {
      long n = Long.parseLong(given.trim());
      if (n < 1) {
        throw new IllegalArgumentException(
            "raftProperty: " + SNAPSHOT_EVERY_KEY + "=" + given + " must be at least 1");
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "raftProperty: " + SNAPSHOT_EVERY_KEY + "=" + given + " is not a whole number", e);
    }
  }

  /** Snapshots a node keeps on disk: its latest and the one before. */
  static final int SNAPSHOTS_KEPT = 2;

  /**
   * Keys an operator cannot pass raw, and what sets each instead: Semafor's own options, or a
   * setting Semafor's correctness depends on (reads, a torn log's recovery, a long pause).
   */
  static final Map<String, String> RESERVED =
      Map.ofEntries(
          Map.entry(RaftServerConfigKeys.STORAGE_DIR_KEY, "--data-dir sets it"),
          Map.entry(GrpcConfigKeys.Server.PORT_KEY, "--peers sets it"),
          Map.entry(RaftConfigKeys.Rpc.TYPE_KEY, "Semafor's transport watches its log appenders"),
          Map.entry(
              RaftConfigKeys.DataStream.TYPE_KEY,
              "a member's client address rides in the data-stream address"),
          Map.entry(RaftServerConfigKeys.Rpc.TIMEOUT_MIN_KEY, "--election-timeout sets it"),
          Map.entry(RaftServerConfigKeys.Rpc.TIMEOUT_MAX_KEY, "--election-timeout sets it"),
          Map.entry(RaftServerConfigKeys.Log.UNSAFE_FLUSH_ENABLED_KEY, "--durability sets it"),
          Map.entry(
              RaftServerConfigKeys.Log.USE_MEMORY_KEY,
              "the log is on disk in either --durability mode"),
          Map.entry(RaftServerConfigKeys.Read.OPTION_KEY, "Semafor's reads are linearizable"),
          Map.entry(
              RaftServerConfigKeys.Read.LEADER_LEASE_ENABLED_KEY,
              "Semafor's reads take the read index, whatever the clocks do"),
          Map.entry(
              RaftServerConfigKeys.Log.Appender.INSTALL_SNAPSHOT_ENABLED_KEY,
              "a follower behind the compacted log is sent the snapshot"),
          Map.entry(
              RaftServerConfigKeys.Log.CORRUPTION_POLICY_KEY,
              "a torn log tail must not keep a node down (decision 0031)"),
          Map.entry(
              RaftServerConfigKeys.CLOSE_THRESHOLD_KEY,
              "a long pause must not leave a process without its member"));

  /**
   * Every property a Ratis server reads, for telling a mistyped key from a real one (not its
   * client's: no Ratis client takes these properties).
   */
  private static final Set<String> KNOWN =
      knownKeys(List.of(RaftServerConfigKeys.class, GrpcConfigKeys.class, RaftConfigKeys.class));

  /**
   * Checks the raw properties an operator passes.
   *
   * @throws IllegalArgumentException naming the key, if one is not a Ratis property, is {@link
   *     #RESERVED}, or has an empty value
   */
  static void check(Map<String, String> raw) {
    for (Map.Entry<String, String> e : raw.entrySet()) {
      String key = String.valueOf(e.getKey());
      String reserved = RESERVED.get(key);
      if (reserved != null) {
        throw new IllegalArgumentException(
            "raftProperty: " + key + " cannot be set here: " + reserved);
      }
      if (!isRatisKey(key)) {
        throw new IllegalArgumentException(
            "raftProperty: " + key + " is not a property of " + ratisVersion());
      }
      if (e.getValue() == null || e.getValue().isBlank()) {
        throw new IllegalArgumentException("raftProperty: " + key + " has no value");
      }
    }
  }

  /**
   * Checks the raw properties of {@code config}, including the snapshot interval's value.
   *
   * @throws IllegalArgumentException as {@link #check(Map)}
   */
  static void check(ClusterSpec config) {
    check(config.properties());
    snapshotEvery(config);
  }

  /** Whether Ratis reads the property {@code key}. */
  static boolean isRatisKey(String key) {
    return KNOWN.contains(key);
  }

  /** The properties of the node {@code config} describes. */
  static RaftProperties of(ClusterSpec config) {
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
    long snapshotEvery = snapshotEvery(config);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, snapshotEvery);
    // Ratis keeps every snapshot it ever took unless told otherwise (retention -1): each one is
    // the whole state, so the data directory grew by a state's size at every snapshot, without
    // end (found while testing corrupted snapshots). The newest two: the latest, and the one
    // before it for an operator to inspect if the latest turns out damaged.
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, SNAPSHOTS_KEPT);
    // compact the log up to each snapshot: a follower too far behind is sent the snapshot
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
    RaftServerConfigKeys.Log.setPurgeGap(p, (int) Math.min(1024, snapshotEvery));
    RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(DEFAULT_LOG_SEGMENT_BYTES));
    // Ratis follows every committed entry with a metadata entry carrying the commit index, so each
    // of our entries cost two replication rounds; without them a restarted node learns the commit
    // index from the leader instead of its own log (decision 0018)
    RaftServerConfigKeys.Log.setLogMetadataEnabled(p, false);
    if (config.durability() == ClusterSpec.Durability.REPLICATED) {
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
    // A follower appends each request directly instead of chaining it behind the previous one
    // through the common pool and the server executor (two thread hand-offs fewer per entry;
    // decision 0040). And with the chain, one append that failed failed every later one on that
    // follower until it restarted: a follower that installed a snapshot while an older append was
    // in flight refused everything after it (Ratis's chained future stays failed; found by the
    // fault harness, fifth campaign, run 41). Ozone measured the same switch (HDDS-14874).
    RaftServerConfigKeys.Log.setAppendEntriesComposeEnabled(p, false);
    // The leader waits at least this long after its last send to a follower before the next
    // append; heartbeats count as sends, so with one entry in flight an entry often waited a
    // millisecond for nothing (decision 0040). Ozone runs 0 on every Ratis group (HDDS-9232,
    // HDDS-9784).
    RaftServerConfigKeys.Log.Appender.setWaitTimeMin(p, TimeDuration.ZERO);
    config.properties().forEach(p::set);
    return p;
  }

  /**
   * The values of the {@code public static final String ..._KEY} fields of these classes and their
   * nested classes: the names of the properties Ratis reads.
   */
  private static Set<String> knownKeys(List<Class<?>> classes) {
    Set<String> keys = new TreeSet<>();
    for (Class<?> c : classes) {
      collect(c, keys);
    }
    return Set.copyOf(keys);
  }

  private static void collect(Class<?> c, Set<String> keys) {
    for (Field f : c.getFields()) {
      int m = f.getModifiers();
      if (Modifier.isStatic(m)
          && Modifier.isFinal(m)
          && f.getType() == String.class
          && f.getName().endsWith("_KEY")) {
        try {
          Object value = f.get(null);
          if (value instanceof String key && key.startsWith("raft.")) {
            keys.add(key);
          }
        } catch (IllegalAccessException e) {
          throw new IllegalStateException("cannot read " + f, e);
        }
      }
    }
    for (Class<?> nested : c.getClasses()) {
      collect(nested, keys);
    }
  }

  /**
   * "Ratis 3.3.0": the version in Maven's record of the ratis-server-api artifact, which a shaded
   * jar keeps (its manifest is the shaded jar's own); "Ratis" if the record is missing.
   */
  private static String ratisVersion() {
    try (java.io.InputStream in =
        RaftServerConfigKeys.class.getResourceAsStream(
            "/META-INF/maven/org.apache.ratis/ratis-server-api/pom.properties")) {
      if (in != null) {
        java.util.Properties pom = new java.util.Properties();
        pom.load(in);
        String v = pom.getProperty("version");
        if (v != null) {
          return "Ratis " + v;
        }
      }
    } catch (java.io.IOException e) {
      // the version only decorates a message
    }
    return "Ratis";
  }

  /** The properties as {@code key=value,...} in key order ("" for none), for a status report. */
  static String text(Map<String, String> properties) {
    StringBuilder out = new StringBuilder();
    new java.util.TreeMap<>(properties)
        .forEach(
            (k, v) -> out.append(out.length() == 0 ? "" : ",").append(k).append('=').append(v));
    return out.toString();
  }
}
