package io.semafor.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.semafor.cli.CliProcess.Finished;
import io.semafor.embedded.FreePorts;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A cluster run the way docs/cluster.md tells a user to: three {@code semafor server} processes,
 * then a fourth that joins through {@code semafor cluster add}, and one removed again; on each
 * replicator.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS) // a hung cluster must fail, not stall CI
class ClusterCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final List<Process> nodes = new ArrayList<>();

  @AfterEach
  void stopNodes() throws InterruptedException {
    for (Process p : nodes) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"ratis", "microraft"})
  void aNodeJoinsThroughClusterAddAndTheLeaderLeavesThroughClusterRemove(
      String replicator, @TempDir Path dir) throws Exception {
    int[] client = new int[4];
    int[] raft = new int[4];
    int[] admin = new int[4];
    for (int i = 0; i < 4; i++) {
      client[i] = freePort();
      raft[i] = freePort();
      admin[i] = freePort();
    }
    StringBuilder peers = new StringBuilder();
    for (int i = 0; i < 3; i++) {
      peers.append(i == 0 ? "" : ",").append(member(i, client, raft));
    }
    for (int i = 0; i < 3; i++) {
      nodes.add(startNode(dir, i, peers.toString(), admin, false, replicator));
    }
    String admins = "127.0.0.1:" + admin[0] + ",127.0.0.1:" + admin[1] + ",127.0.0.1:" + admin[2];
    String leader = awaitLeader(admins);
    String servers =
        "127.0.0.1:" + client[0] + ",127.0.0.1:" + client[1] + ",127.0.0.1:" + client[2];
    assertThat(CliProcess.run(servers, "create", "jobs", "3").status()).isZero();
    if (replicator.equals("ratis")) {
      assertThat(memberStatus(admins, "n1").get("raftProperties").asText())
          .isEqualTo("raft.server.log.appender.wait-time.min=2ms");
    } else {
      assertThat(memberStatus(admins, "n1").path("tuning").path("entriesInFlight").asInt())
          .isEqualTo(2);
    }

    nodes.add(startNode(dir, 3, member(3, client, raft), admin, true, replicator));
    Finished added =
        CliProcess.runRaw("cluster", "add", member(3, client, raft), "--admin", admins);
    assertThat(added.status()).as(added.err()).isZero();
    assertThat(added.out()).isEqualTo("members: n1,n2,n3,n4");

    // the new member serves: a client that knows only its address is sent on to the leader
    Finished read = CliProcess.run("127.0.0.1:" + client[3], "get", "jobs");
    assertThat(read.out()).as(read.err()).isEqualTo("3");

    String others = admins + ",127.0.0.1:" + admin[3];
    Finished removed = CliProcess.runRaw("cluster", "remove", leader, "--admin", others, "--json");
    assertThat(removed.status()).as(removed.err()).isZero();
    assertThat(JSON.readTree(removed.out()).get("members").toString()).doesNotContain(leader);
    String next =
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> leaderOrEmpty(others), l -> !l.isEmpty() && !l.equals(leader));
    assertThat(next).isNotEqualTo(leader);
    Finished inc = CliProcess.run(servers + ",127.0.0.1:" + client[3], "inc", "jobs", "1");
    assertThat(inc.out()).as(inc.err()).isEqualTo("4");
  }

  private static String member(int i, int[] client, int[] raft) {
    return "n" + (i + 1) + "=127.0.0.1:" + client[i] + ":" + raft[i];
  }

  private static Process startNode(
      Path dir, int i, String peers, int[] admin, boolean join, String replicator)
      throws IOException {
    List<String> args =
        new ArrayList<>(
            List.of(
                "server",
                "--node-id",
                "n" + (i + 1),
                "--peers",
                peers,
                "--data-dir",
                dir.resolve("n" + (i + 1)).toString(),
                "--http-port",
                "-1",
                "--admin-port",
                Integer.toString(admin[i]),
                "--replicator",
                replicator));
    if (join) {
      args.add("--join");
    }
    if (i == 0) { // as an operator tunes one node
      args.addAll(
          List.of(
              "--raft-property",
              replicator.equals("ratis")
                  ? "raft.server.log.appender.wait-time.min=2ms"
                  : "microraft.entries-in-flight=2"));
    }
    return CliProcess.startRaw(dir.resolve("n" + (i + 1) + ".log"), args.toArray(String[]::new));
  }

  /** The leader's id once a node reports itself leader, waiting up to 60 s. */
  private static String awaitLeader(String admins) {
    return await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> leaderOrEmpty(admins), l -> !l.isEmpty());
  }

  private static String leaderOrEmpty(String admins) throws Exception {
    Finished status = CliProcess.runRaw("cluster", "status", "--admin", admins, "--json");
    if (status.status() != 0 && status.out().isEmpty()) {
      return ""; // a node not listening yet is in the JSON, with a non-zero exit status
    }
    for (JsonNode m : JSON.readTree(status.out()).get("members")) {
      if ("leader".equals(m.path("role").asText())) {
        return m.path("node").asText();
      }
    }
    return "";
  }

  /** Member {@code node}'s status as {@code cluster status --json} shows it. */
  private static JsonNode memberStatus(String admins, String node) throws Exception {
    Finished status = CliProcess.runRaw("cluster", "status", "--admin", admins, "--json");
    for (JsonNode m : JSON.readTree(status.out()).get("members")) {
      if (node.equals(m.path("node").asText())) {
        return m;
      }
    }
    throw new AssertionError("no member " + node + " in " + status.out());
  }

  private static int freePort() {
    return FreePorts.next();
  }
}
