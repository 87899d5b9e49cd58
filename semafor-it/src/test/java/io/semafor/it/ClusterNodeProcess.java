package io.semafor.it;

import io.semafor.replication.ClusterSpec;
import io.semafor.replication.ReplicatorProvider;
import io.semafor.replication.group.GroupMember;
import io.semafor.server.Main;
import io.semafor.server.ServerConfig;
import java.nio.file.Path;
import java.util.Map;

/**
 * One cluster node in its own process, for tests that kill or stop it. Args: nodeId peers dataDir
 * adminPort durability [snapshotEvery logSegmentBytes [join]] (the two numbers to make snapshots,
 * their installs on lagging followers, and new segments happen within a short test; {@code join}
 * for a node that joins a running cluster, as {@code semafor server --join}: {@code peers} then
 * names only itself). The system property {@value #REPLICATOR} names the replicator it runs, found
 * as {@code semafor server} finds it ({@code ReplicatorProvider}); MicroRaft if unset.
 */
public final class ClusterNodeProcess {
  private ClusterNodeProcess() {}

  /**
   * The system property that chooses the replicator: {@code microraft} (default, as the product's)
   * or {@code ratis}.
   */
  public static final String REPLICATOR = "semafor.replicator";

  /**
   * The system property that chooses the replicator of every cluster the tests start, in the test's
   * JVM ({@code TestCluster}), as processes ({@code ProcessCluster}) and in the fault harness:
   * {@code microraft}, the product's default and so the tests' (decision 0056), or {@code ratis}
   * (semafor-it's pom runs the tests that concern Ratis once more that way).
   */
  public static final String TEST_REPLICATOR = "semafor.test.replicator";

  /** The replicator the tests' clusters run ({@value #TEST_REPLICATOR}): microraft or ratis. */
  public static String testReplicator() {
    return System.getProperty(TEST_REPLICATOR, "microraft");
  }

  public static void main(String[] args) throws InterruptedException {
    try {
      run(args);
    } catch (RuntimeException e) {
      // a node that cannot start must end, as `semafor server` does: Ratis's and Netty's threads
      // would otherwise keep this JVM up with no member in it
      e.printStackTrace();
      System.exit(corruptSnapshot(e) ? CORRUPT_SNAPSHOT : 1);
    }
  }

  /**
   * The status a node refusing a corrupt snapshot ends with: {@code semafor server}'s (EX_DATAERR).
   */
  public static final int CORRUPT_SNAPSHOT = 65;

  private static boolean corruptSnapshot(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof io.semafor.replication.DataDamagedException) {
        return true;
      }
    }
    return false;
  }

  private static void run(String[] args) throws InterruptedException {
    ClusterSpec given =
        ClusterSpec.of(
            args[0],
            ClusterSpec.parseMembers(args[1]),
            Path.of(args[2]),
            ClusterSpec.Durability.valueOf(args[4]));
    String replicator = System.getProperty(REPLICATOR, ReplicatorProvider.DEFAULT);
    ClusterSpec cluster =
        args.length <= 6
            ? given
            : given.withProperties(
                tuning(replicator, Long.parseLong(args[5]), Long.parseLong(args[6])));
    if (args.length > 7 && args[7].equals("join")) {
      cluster = cluster.joining();
    }
    GroupMember self = cluster.self();
    ServerConfig server =
        ServerConfig.builder()
            .host(self.host())
            .port(self.clientPort())
            .adminPort(Integer.parseInt(args[3]))
            .build();
    Main.run(server, ReplicatorProvider.named(replicator).factory(cluster));
  }

  /** The provider of the replicator the tests' clusters run ({@link #testReplicator}). */
  static ReplicatorProvider testProvider() {
    return ReplicatorProvider.named(testReplicator());
  }

  /** The segment size a test that does not roll segments early passes: the replicator's own. */
  static final long REPLICATORS_OWN_SEGMENTS = 0;

  /**
   * The tuning that makes {@code replicator} snapshot every {@code snapshotEvery} entries and (for
   * Ratis, whose log has segments) close its log segments at {@code logSegmentBytes} ({@link
   * #REPLICATORS_OWN_SEGMENTS}: Ratis's default): how a short test gets snapshots, their installs
   * on lagging followers, and compacted segments.
   */
  static Map<String, String> tuning(String replicator, long snapshotEvery, long logSegmentBytes) {
    if (replicator.equals("ratis")) {
      Map<String, String> ratis = new java.util.TreeMap<>();
      ratis.put("raft.server.snapshot.auto.trigger.threshold", Long.toString(snapshotEvery));
      if (logSegmentBytes != REPLICATORS_OWN_SEGMENTS) {
        ratis.put("raft.server.log.segment.size.max", Long.toString(logSegmentBytes));
      }
      return ratis;
    }
    return Map.of("microraft.snapshot-every", Long.toString(snapshotEvery));
  }
}
