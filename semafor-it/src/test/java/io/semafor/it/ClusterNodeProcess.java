package io.semafor.it;

import io.semafor.microraft.MicroRaftConfig;
import io.semafor.microraft.MicroRaftReplicator;
import io.semafor.raft.ClusterConfig;
import io.semafor.raft.RaftReplicator;
import io.semafor.server.Main;
import io.semafor.server.ServerConfig;
import java.nio.file.Path;
import java.util.Map;

/**
 * One cluster node in its own process, for tests that kill or stop it. Args: nodeId peers dataDir
 * adminPort durability [snapshotEvery logSegmentBytes [join]] (the two numbers to make snapshots,
 * their installs on lagging followers, and new segments happen within a short test; {@code join}
 * for a node that joins a running cluster, as {@code semafor server --join}: {@code peers} then
 * names only itself). With the system property {@value #REPLICATOR} set to {@code microraft} it
 * runs the MicroRaft replicator instead of Ratis ({@code join} is then refused).
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
    ClusterConfig given =
        ClusterConfig.of(
            args[0],
            ClusterConfig.parsePeers(args[1]),
            Path.of(args[2]),
            ClusterConfig.Durability.valueOf(args[4]));
    ClusterConfig cluster =
        args.length <= 6
            ? given
            : new ClusterConfig(
                given.nodeId(),
                given.peers(),
                given.dataDir(),
                given.durability(),
                given.electionTimeoutMin(),
                given.electionTimeoutMax(),
                Long.parseLong(args[5]),
                Long.parseLong(args[6]),
                args.length > 7 && args[7].equals("join"));
    ClusterConfig.Peer self = cluster.self();
    ServerConfig server =
        ServerConfig.builder()
            .host(self.host())
            .port(self.clientPort())
            .adminPort(Integer.parseInt(args[3]))
            .build();
    if (!System.getProperty(REPLICATOR, "microraft").equals("ratis")) {
      MicroRaftConfig configured =
          MicroRaftConfig.of(
                  cluster.nodeId(),
                  cluster.peers().stream().map(ClusterConfig.Peer::member).toList(),
                  cluster.dataDir(),
                  cluster.durability() == ClusterConfig.Durability.FSYNC,
                  cluster.electionTimeoutMin())
              .withProperties(
                  Map.of("microraft.snapshot-every", Long.toString(cluster.snapshotEvery())));
      MicroRaftConfig micro = cluster.join() ? configured.joining() : configured;
      Main.run(server, MicroRaftReplicator.factory(micro));
      return;
    }
    Main.run(server, RaftReplicator.factory(cluster, null));
  }
}
