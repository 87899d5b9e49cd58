package io.semafor.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.core.Command;
import io.semafor.core.Query;
import io.semafor.core.SemaphoreMachine;
import io.semafor.replication.ApplyListener;
import io.semafor.replication.LocalReplicator;
import io.semafor.replication.Replicator;
import io.semafor.replication.ReplicatorFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code /health} and {@code /metrics} answer promptly while membership changes hang: a change
 * toward a member that never answers blocks for up to a minute, and used to hold the admin
 * endpoint's threads, {@code /health} with them (18 s with two such calls).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AdminResponsivenessTest {
  /** Released when the test ends: until then every membership change hangs. */
  private final CountDownLatch release = new CountDownLatch(1);

  private final AtomicInteger changesStarted = new AtomicInteger();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private @Nullable SemaforServer server;

  @AfterEach
  void stop() {
    release.countDown();
    if (server != null) {
      server.close();
    }
  }

  /** The in-process replicator, except that membership changes hang until the test ends. */
  private final class HangingMembership<C, R, S> implements Replicator<C, R, S> {
    private final LocalReplicator<C, R, S> local;

    HangingMembership(LocalReplicator<C, R, S> local) {
      this.local = local;
    }

    @Override
    public void submit(Command command, @Nullable C context) {
      local.submit(command, context);
    }

    @Override
    public void read(Query query, @Nullable R context) {
      local.read(query, context);
    }

    @Override
    public void snapshot(@Nullable S context) {
      local.snapshot(context);
    }

    @Override
    public long logTime() {
      return local.logTime();
    }

    @Override
    public Map<String, Object> status() {
      return local.status();
    }

    @Override
    public List<String> addMember(String member) {
      changesStarted.incrementAndGet();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("the membership change did not complete");
    }

    @Override
    public void close() {
      local.close();
    }
  }

  /**
   * Well under a second, with room for a machine shared with other builds; a hung change held
   * {@code /health} for as long as the change (up to a minute).
   */
  private static final Duration HEALTH_BOUND = Duration.ofMillis(500);

  /** A scrape renders every JVM series too. */
  private static final Duration METRICS_BOUND = Duration.ofSeconds(1);

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest.Builder request(String path) {
    int port = Objects.requireNonNull(Objects.requireNonNull(server).adminAddress()).getPort();
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(5));
  }

  @Test
  void healthAndMetricsAnswerWhileMembershipChangesHang() throws Exception {
    server =
        SemaforServer.start(
            ServerConfig.builder().port(0).adminPort(0).build(),
            new ReplicatorFactory() {
              @Override
              public <C, R, S> Replicator<C, R, S> create(
                  SemaphoreMachine machine, ApplyListener<C, R, S> listener) {
                return new HangingMembership<>(new LocalReplicator<>(machine, listener));
              }
            });
    // warm up: the first scrape loads classes, which a loaded machine can take a second over
    assertThat(get("/metrics").statusCode()).isEqualTo(200);
    List<CompletableFuture<HttpResponse<String>>> adds = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      adds.add(
          http.sendAsync(
              request("/cluster/members")
                  .POST(HttpRequest.BodyPublishers.ofString("n9=127.0.0.1:1:2"))
                  .build(),
              HttpResponse.BodyHandlers.ofString()));
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> changesStarted.get() >= 1);

    for (int i = 0; i < 5; i++) {
      long start = System.nanoTime();
      HttpResponse<String> health = get("/health");
      Duration healthTook = Duration.ofNanos(System.nanoTime() - start);
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(healthTook).as("/health while membership changes hang").isLessThan(HEALTH_BOUND);
      start = System.nanoTime();
      HttpResponse<String> metrics = get("/metrics");
      Duration metricsTook = Duration.ofNanos(System.nanoTime() - start);
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.body()).contains("semafor_sessions");
      assertThat(metricsTook)
          .as("/metrics while membership changes hang")
          .isLessThan(METRICS_BOUND);
    }

    // one change runs, a few wait behind it; the rest are told at once that the lane is busy
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                adds.stream()
                    .filter(CompletableFuture::isDone)
                    .map(CompletableFuture::join)
                    .filter(r -> r.statusCode() == 503 && r.body().contains("BUSY"))
                    .count(),
            busy -> busy == 3);
    assertThat(changesStarted.get()).isEqualTo(1);
  }
}
