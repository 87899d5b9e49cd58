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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster on the MicroRaft replicator run as a user would: three {@code semafor server
 * --replicator microraft} processes, clients through the CLI, the leader killed with SIGKILL and
 * started again on its data directory.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS) // a hung cluster must fail, not stall CI
class MicroRaftClusterCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process[] nodes = new Process[3];
  private final Path[] logs = new Path[3];

  @AfterEach
  void stopNodes() throws InterruptedException {
    for (Process p : nodes) {
      if (p != null) {
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void aKilledLeaderIsReplacedAndComesBackFromItsLog(@TempDir Path dir) throws Exception {
    int[] client = new int[3];
    int[] raft = new int[3];
    int[] admin = new int[3];
    for (int i = 0; i < 3; i++) {
      client[i] = freePort();
      raft[i] = freePort();
      admin[i] = freePort();
    }
    List<String> members = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      members.add("n" + (i + 1) + "=127.0.0.1:" + client[i] + ":" + raft[i]);
    }
    String peers = String.join(",", members);
    for (int i = 0; i < 3; i++) {
      nodes[i] = startNode(dir, i, peers, admin);
    }
    String admins = "127.0.0.1:" + admin[0] + ",127.0.0.1:" + admin[1] + ",127.0.0.1:" + admin[2];
    String servers =
        "127.0.0.1:" + client[0] + ",127.0.0.1:" + client[1] + ",127.0.0.1:" + client[2];
    String leader = awaitLeader(admins, "");
    // an operator reads each leader change once, with its reason, and no WARN on a normal start
    for (int i = 0; i < 3; i++) {
      String id = "n" + (i + 1);
      String said = id.equals(leader) ? id + " leads the group" : id + " follows " + leader;
      int node = i;
      await().atMost(Duration.ofSeconds(10)).until(() -> log(node).contains(said));
      assertThat(log(i)).as(id + "'s log").doesNotContain(" WARN ");
    }
    Finished create = CliProcess.run(servers, "create", "jobs", "3");
    assertThat(create.status()).as(create.err()).isZero();
    assertThat(memberStatus(admins, leader).get("replicator").asText()).isEqualTo("microraft");
    assertThat(memberStatus(admins, leader).get("durability").asText()).isEqualTo("fsync");

    int killed = Integer.parseInt(leader.substring(1)) - 1;
    nodes[killed].destroyForcibly(); // SIGKILL: nothing flushed on the way out
    assertThat(nodes[killed].waitFor(10, TimeUnit.SECONDS)).isTrue();
    Finished inc = CliProcess.run(servers, "inc", "jobs", "1");
    assertThat(inc.out()).as(inc.err()).isEqualTo("4");
    String next = awaitLeader(admins, leader);
    assertThat(next).isNotEqualTo(leader);
    for (int i = 0; i < 3; i++) {
      if (i != killed) {
        // the followers saw the old leader go, then the new one come, or the new one take over
        assertThat(log(i))
            .containsAnyOf(
                "n" + (i + 1) + " lost its leader " + leader + " (term ",
                "), which replaced " + leader);
      }
    }

    nodes[killed] = startNode(dir, killed, peers, admin);
    // back from its log: a client that knows only its address is answered through the leader
    Finished read =
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(500))
            .until(
                () -> CliProcess.run("127.0.0.1:" + client[killed], "get", "jobs"),
                f -> f.status() == 0);
    assertThat(read.out()).isEqualTo("4");
    long committed = memberStatus(admins, next).path("commitIndex").asLong();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> memberStatus(admins, leader).path("appliedIndex").asLong(),
            applied -> applied >= committed);
  }

  private Process startNode(Path dir, int i, String peers, int[] admin) throws IOException {
    String id = "n" + (i + 1);
    logs[i] = dir.resolve(id + "-" + System.nanoTime() + ".log");
    return CliProcess.startRaw(
        logs[i],
        "server",
        "--node-id",
        id,
        "--peers",
        peers,
        "--data-dir",
        dir.resolve(id).toString(),
        "--http-port",
        "-1",
        "--admin-port",
        Integer.toString(admin[i]),
        "--replicator",
        "microraft",
        "--durability",
        "fsync");
  }

  /** What node {@code i} has logged so far (its current process's log). */
  private String log(int i) throws IOException {
    return java.nio.file.Files.readString(logs[i]);
  }

  /** The id of a leader other than {@code not}, once a node reports itself leader (60 s). */
  private static String awaitLeader(String admins, String not) {
    return await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> leaderOrEmpty(admins), l -> !l.isEmpty() && !l.equals(not));
  }

  private static String leaderOrEmpty(String admins) throws Exception {
    Finished status = CliProcess.runRaw("cluster", "status", "--admin", admins, "--json");
    if (status.status() != 0 && status.out().isEmpty()) {
      return "";
    }
    for (JsonNode m : JSON.readTree(status.out()).get("members")) {
      if ("leader".equals(m.path("role").asText())) {
        return m.path("node").asText();
      }
    }
    return "";
  }

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
