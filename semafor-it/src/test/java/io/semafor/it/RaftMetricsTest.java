package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaforClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A cluster node's {@code /metrics} has the Raft series, with values that agree with Raft. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RaftMetricsTest {
  private final HttpClient http = HttpClient.newHttpClient();

  private PrometheusText scrape(TestCluster cluster, int node) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + cluster.adminPort(node) + "/metrics"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return PrometheusText.parse(response.body());
  }

  @Test
  void everyNodeShowsTheLeaderTermIndexesAndLogSyncs(@TempDir Path dir) throws Exception {
    try (TestCluster cluster = TestCluster.startWithAdmin(3, dir)) {
      int leader = cluster.awaitLeader();
      // followers learn of the leader with its first heartbeat
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                for (int i = 0; i < 3; i++) {
                  assertThat(scrape(cluster, i).value("semafor_raft_has_leader")).isEqualTo(1);
                }
              });
      double leaders = 0;
      for (int i = 0; i < 3; i++) {
        PrometheusText m = scrape(cluster, i);
        leaders += m.value("semafor_raft_is_leader");
        assertThat(m.value("semafor_raft_is_leader")).isEqualTo(i == leader ? 1 : 0);
        assertThat(m.value("semafor_raft_term")).isGreaterThanOrEqualTo(1);
        assertThat(m.value("semafor_raft_leader_changes_total")).isGreaterThanOrEqualTo(1);
        assertThat(m.value("semafor_raft_apply_lag")).isGreaterThanOrEqualTo(0);
        assertThat(m.value("semafor_build_info")).isEqualTo(1);
        assertThat(m.sum("jvm_memory_used_bytes", "area", "heap")).isPositive();
      }
      assertThat(leaders).isEqualTo(1);

      PrometheusText before = scrape(cluster, leader);
      double applied = before.value("semafor_raft_applied_index");
      assertThat(before.value("semafor_raft_commit_index")).isGreaterThanOrEqualTo(applied);
      try (SemaforClient client = cluster.client(Duration.ofSeconds(10))) {
        NamedSemaphore jobs = client.create("jobs", 3);
        for (int i = 0; i < 5; i++) {
          jobs.acquirePermit(1).release();
        }
      }
      PrometheusText after = scrape(cluster, leader);
      assertThat(after.value("semafor_raft_applied_index")).isGreaterThan(applied);
      assertThat(after.value("semafor_raft_commit_index"))
          .isGreaterThanOrEqualTo(after.value("semafor_raft_applied_index"));
      assertThat(after.value("semafor_raft_log_syncs_total")).isPositive();
      assertThat(after.value("semafor_raft_log_sync_seconds", "quantile", "0.99"))
          .isGreaterThanOrEqualTo(0)
          .isLessThan(10);
      // a follower applies the same entries
      int follower = (leader + 1) % 3;
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(scrape(cluster, follower).value("semafor_raft_applied_index"))
                      .isGreaterThan(applied));
    }
  }
}
