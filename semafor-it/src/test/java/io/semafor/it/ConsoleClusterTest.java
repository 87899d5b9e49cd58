package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaforClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console on a three-node cluster (docs/console.md): the leader shows the semaphores, a
 * follower (which answers no read) says where the leader is, every member says where it stands, and
 * an action asked of a follower is refused with the leader's address, changing nothing.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConsoleClusterTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @TempDir Path dir;

  private HttpResponse<String> send(TestCluster cluster, int node, String method, String path)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.adminPort(node) + path))
            .timeout(Duration.ofSeconds(30))
            .header("X-Semafor-Console", "1")
            .method(method, HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The client address ("host:port") of node {@code i}, as a NOT_LEADER names the leader. */
  private static String clientAddress(TestCluster cluster, int i) {
    String member = cluster.memberText(i); // id=host:clientPort:raftPort
    String address = member.substring(member.indexOf('=') + 1);
    return address.substring(0, address.lastIndexOf(':'));
  }

  @Test
  void theLeaderShowsTheSemaphoresAndAFollowerSaysWhereTheLeaderIs() throws Exception {
    try (TestCluster cluster = TestCluster.startWithAdmin(3, dir);
        SemaforClient client = cluster.client(Duration.ofSeconds(10))) {
      client.create("printers", 2);
      int leader = cluster.awaitLeader();
      JsonNode page = JSON.readTree(send(cluster, leader, "GET", "/api/semaphores").body());
      assertThat(page.get("semaphores").get(0).get("value").asLong()).isEqualTo(2);
      for (int node = 0; node < 3; node++) {
        if (node != leader) {
          HttpResponse<String> elsewhere = send(cluster, node, "GET", "/api/semaphores");
          assertThat(elsewhere.statusCode()).isEqualTo(421);
          assertThat(JSON.readTree(elsewhere.body()).get("message").asText())
              .contains(clientAddress(cluster, leader));
        }
        JsonNode status = JSON.readTree(send(cluster, node, "GET", "/api/node").body());
        assertThat(status.get("mode").asText()).isEqualTo("raft");
        assertThat(status.get("node").asText()).isEqualTo(cluster.id(node));
        assertThat(status.get("role").asText()).isEqualTo(node == leader ? "leader" : "follower");
        assertThat(status.get("leader").asText()).isEqualTo(cluster.id(leader));
        assertThat(List.of(status.get("members").asText().split(",", -1)))
            .hasSize(3)
            .contains(cluster.id(node));
      }
      JsonNode leaderStatus = JSON.readTree(send(cluster, leader, "GET", "/api/node").body());
      assertThat(leaderStatus.get("followers")).hasSize(2);
    }
  }

  @Test
  void anActionAskedOfAFollowerIsRefusedWithTheLeadersIdAndChangesNothing() throws Exception {
    try (TestCluster cluster = TestCluster.startWithAdmin(3, dir);
        SemaforClient client = cluster.client(Duration.ofSeconds(10))) {
      NamedSemaphore printers = client.create("printers", 2);
      int leader = cluster.awaitLeader();
      int follower = (leader + 1) % 3;
      HttpResponse<String> refused =
          send(cluster, follower, "POST", "/api/semaphore/value?name=printers&value=9");
      assertThat(refused.statusCode()).isEqualTo(421);
      JsonNode body = JSON.readTree(refused.body());
      assertThat(body.get("error").asText()).isEqualTo("NOT_LEADER");
      assertThat(body.get("message").asText()).contains(clientAddress(cluster, leader));
      assertThat(printers.value()).isEqualTo(2);

      HttpResponse<String> made =
          send(cluster, leader, "POST", "/api/semaphore/value?name=printers&value=9");
      assertThat(made.statusCode()).as(made.body()).isEqualTo(200);
      assertThat(printers.value()).isEqualTo(9);
    }
  }

  @Test
  void theLeaderReportsAMemberItCannotReachAsUnreachableWithHowLongItHasBeenSilent()
      throws Exception {
    try (TestCluster cluster = TestCluster.startWithAdmin(3, dir);
        SemaforClient client = cluster.client(Duration.ofSeconds(10))) {
      client.create("printers", 2);
      int leader = cluster.awaitLeader();
      int killed = (leader + 1) % 3;
      int alive = (leader + 2) % 3;
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> follower(cluster, leader, cluster.id(alive)).path("reachable").asBoolean());
      cluster.stopNode(killed);
      JsonNode lost =
          await()
              .atMost(Duration.ofSeconds(30))
              .until(
                  () -> follower(cluster, leader, cluster.id(killed)),
                  f -> !f.path("reachable").asBoolean(true));
      assertThat(lost.path("sinceHeardMillis").asLong()).isGreaterThanOrEqualTo(1000);
      JsonNode healthy = follower(cluster, leader, cluster.id(alive));
      assertThat(healthy.path("reachable").asBoolean()).isTrue();
      assertThat(healthy.path("sinceHeardMillis").asLong()).isLessThan(1000);
    }
  }

  /** The leader's view of follower {@code id} in {@code GET /api/node} (missing if none). */
  private JsonNode follower(TestCluster cluster, int leader, String id) throws Exception {
    JsonNode status = JSON.readTree(send(cluster, leader, "GET", "/api/node").body());
    for (JsonNode f : status.path("followers")) {
      if (f.path("id").asText().equals(id)) {
        return f;
      }
    }
    return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
  }
}
