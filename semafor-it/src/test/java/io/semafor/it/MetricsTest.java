package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.Permit;
import io.semafor.client.SemaforClient;
import io.semafor.embedded.EmbeddedSemafor;
import io.semafor.server.ServerConfig;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The admin endpoint: {@code /metrics} parsed as Prometheus text, and {@code /health}. */
class MetricsTest {
  private final EmbeddedSemafor semafor =
      EmbeddedSemafor.start(ServerConfig.builder().port(0).adminPort(0).maxSemaphoreSeries(2));
  private final SemaforClient client = semafor.client();
  private final HttpClient http = HttpClient.newHttpClient();

  @AfterEach
  void stop() {
    semafor.close();
  }

  private HttpResponse<String> get(String path) throws Exception {
    InetSocketAddress admin = Objects.requireNonNull(semafor.server().adminAddress());
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin.getPort() + path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private PrometheusText scrape() throws Exception {
    HttpResponse<String> response = get("/metrics");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
    return PrometheusText.parse(response.body());
  }

  @Test
  void perSemaphoreSeriesShowValueWaitersHoldersGrantsAndTimeouts() throws Exception {
    NamedSemaphore printers = client.create("printers", 2);
    Permit held = printers.acquirePermit(1);
    assertThat(printers.tryAcquire(5, Duration.ZERO)).isFalse();
    CompletableFuture<Boolean> waiting = printers.acquireAsync(2, Duration.ofMinutes(1));
    PrometheusText m = scrape();
    assertThat(m.value("semafor_semaphore_value", "name", "printers")).isEqualTo(1);
    assertThat(m.value("semafor_semaphore_waiters", "name", "printers")).isEqualTo(1);
    assertThat(m.value("semafor_semaphore_holders", "name", "printers")).isEqualTo(1);
    assertThat(m.value("semafor_semaphore_grants_total", "name", "printers")).isEqualTo(1);
    assertThat(m.value("semafor_semaphore_timeouts_total", "name", "printers")).isEqualTo(1);
    assertThat(m.type("semafor_semaphore_wait_seconds")).isEqualTo("histogram");
    assertThat(
            m.samples().stream()
                .filter(s -> s.name().equals("semafor_semaphore_wait_seconds_bucket"))
                .filter(s -> "printers".equals(s.labels().get("name"))))
        .as("wait buckets per semaphore")
        .hasSizeBetween(2, 20);
    held.release();
    assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
    PrometheusText after = scrape();
    assertThat(after.value("semafor_semaphore_grants_total", "name", "printers")).isEqualTo(2);
    assertThat(after.value("semafor_semaphore_wait_seconds_count", "name", "printers"))
        .isEqualTo(2);
  }

  @Test
  void theAdminSessionsListShowsEveryClientWithItsNameHostPidAndHoldings() throws Exception {
    client.create("printers", 1).acquirePermit(1);

    HttpResponse<String> response = get("/sessions");

    assertThat(response.statusCode()).isEqualTo(200);
    com.fasterxml.jackson.databind.JsonNode sessions =
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(response.body()).get("sessions");
    assertThat(sessions).hasSize(1);
    com.fasterxml.jackson.databind.JsonNode only = sessions.get(0);
    assertThat(only.get("sessionId").asLong()).isEqualTo(client.sessionId());
    assertThat(only.get("client").get("name").asText()).isEqualTo("embedded");
    assertThat(only.get("client").get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
    assertThat(only.get("holdings").asInt()).isEqualTo(1);
  }

  @Test
  void serverWideSeriesCountSessionsConnectionsCommandsAndBatches() throws Exception {
    client.create("x", 1);
    SemaforClient other = semafor.newClient();
    other.semaphore("x").increment(1);
    PrometheusText m = scrape();
    assertThat(m.value("semafor_sessions")).isEqualTo(2);
    assertThat(m.value("semafor_connections")).isEqualTo(2);
    assertThat(m.value("semafor_semaphores")).isEqualTo(1);
    assertThat(m.value("semafor_commands_total")).isGreaterThanOrEqualTo(4);
    assertThat(m.value("semafor_apply_batch_seconds_count")).isGreaterThanOrEqualTo(1);
    assertThat(m.type("semafor_apply_batch_seconds")).isEqualTo("histogram");
  }

  @Test
  void semaphoresBeyondTheSeriesCapAreCountedTogether() throws Exception {
    for (String name : new String[] {"a", "b", "c", "d"}) {
      client.create(name, 1).acquire(1);
    }
    PrometheusText m = scrape();
    long perName =
        m.samples().stream()
            .filter(s -> s.name().equals("semafor_semaphore_grants_total"))
            .filter(s -> !s.labels().get("name").equals("_other"))
            .count();
    assertThat(perName).isEqualTo(2);
    assertThat(m.value("semafor_semaphore_grants_total", "name", "_other")).isEqualTo(2);
    assertThat(m.samples().stream().filter(s -> s.name().equals("semafor_semaphore_value")).count())
        .isEqualTo(2);
    assertThat(m.value("semafor_semaphores")).isEqualTo(4);
  }

  @Test
  void jvmAndProcessSeriesAndTheBuildAreThere() throws Exception {
    PrometheusText m = scrape();
    assertThat(m.value("semafor_build_info")).isEqualTo(1);
    assertThat(m.samples().stream().filter(s -> s.name().equals("semafor_build_info")))
        .singleElement()
        .satisfies(s -> assertThat(s.labels().get("version")).isNotBlank());
    assertThat(m.sum("jvm_memory_used_bytes", "area", "heap")).isPositive();
    assertThat(m.has("jvm_gc_memory_allocated_bytes_total")).as("GC series").isTrue();
    assertThat(m.value("jvm_threads_live_threads")).isPositive();
    assertThat(m.value("jvm_classes_loaded_classes")).isPositive();
    assertThat(m.value("system_cpu_count")).isPositive();
    assertThat(m.has("process_cpu_usage")).isTrue();
    assertThat(m.value("process_uptime_seconds")).isPositive();
    assertThat(m.value("process_files_open_files")).isPositive();
  }

  @Test
  void healthSaysUpWithCounts() throws Exception {
    HttpResponse<String> response = get("/health");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).contains("\"status\":\"UP\"").contains("\"sessions\":1");
  }

  /**
   * Many semaphores beyond the cap of 2, changed between scrapes: {@code _other} keeps the sums of
   * every semaphore without its own series, a deleted semaphore's place goes to the next one
   * granted, and the gauges follow the first names in byte order (which the scrape reads as one
   * list page of the name order, issue 12).
   */
  @Test
  void otherSumsStayRightAfterChangesBeyondTheCap() throws Exception {
    for (int i = 0; i < 40; i++) {
      client.create(String.format(java.util.Locale.ROOT, "s%02d", 39 - i), 3);
    }
    // s39 and s38 are granted first and get their own series; 38 others grant into _other
    for (int i = 39; i >= 0; i--) {
      NamedSemaphore s = client.semaphore(String.format(java.util.Locale.ROOT, "s%02d", i));
      assertThat(s.tryAcquire(1, Duration.ZERO)).isTrue();
      assertThat(s.tryAcquire(5, Duration.ZERO)).isFalse();
    }
    PrometheusText m = scrape();
    assertThat(m.value("semafor_semaphore_grants_total", "name", "s39")).isEqualTo(1);
    assertThat(m.value("semafor_semaphore_grants_total", "name", "s38")).isEqualTo(1);
    assertThat(m.value("semafor_semaphore_grants_total", "name", "_other")).isEqualTo(38);
    assertThat(m.value("semafor_semaphore_timeouts_total", "name", "_other")).isEqualTo(38);
    assertThat(m.value("semafor_semaphores")).isEqualTo(40);
    assertThat(m.value("semafor_semaphore_value", "name", "s00")).isEqualTo(2);
    assertThat(m.value("semafor_semaphore_value", "name", "s01")).isEqualTo(2);

    // deleting s39 frees its place; s00 is the next granted and takes it
    client.semaphore("s39").delete();
    client.semaphore("s00").delete();
    client.create("a-first", 7);
    assertThat(client.semaphore("s05").tryAcquire(1, Duration.ZERO)).isTrue();
    assertThat(client.semaphore("s06").tryAcquire(1, Duration.ZERO)).isTrue();
    PrometheusText after = scrape();
    assertThat(after.value("semafor_semaphores")).isEqualTo(39);
    assertThat(after.value("semafor_semaphore_grants_total", "name", "s05")).isEqualTo(1);
    assertThat(after.value("semafor_semaphore_grants_total", "name", "_other")).isEqualTo(39);
    assertThat(
            after.samples().stream()
                .filter(s -> s.name().equals("semafor_semaphore_grants_total"))
                .map(s -> s.labels().get("name"))
                .sorted()
                .toList())
        .containsExactly("_other", "s05", "s38");
    assertThat(
            after.samples().stream()
                .filter(s -> s.name().equals("semafor_semaphore_value"))
                .map(s -> s.labels().get("name") + "=" + (long) s.value())
                .sorted()
                .toList())
        .containsExactly("a-first=7", "s01=2");
  }
}
