package io.semafor.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.semafor.core.Name;
import io.semafor.core.Query;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin HTTP endpoint: {@code GET /metrics} (Prometheus text format) and {@code GET /health}
 * (200 with a small JSON body while serving, 503 once stopping). One thread; scrapes read the
 * semaphores' state through the replicator like any client read, so they never touch the state
 * machine from the wrong thread. Thread-safe.
 */
final class AdminServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AdminServer.class);
  private static final long READ_TIMEOUT_SECONDS = 5;

  private final HttpServer http;
  private final ExecutorService executor;
  private final ServerMetrics metrics;
  private final Function<Query, CompletableFuture<Reply>> read;
  private final SemaforServer server;

  AdminServer(
      String host,
      int port,
      ServerMetrics metrics,
      Function<Query, CompletableFuture<Reply>> read,
      SemaforServer server)
      throws IOException {
    this.metrics = metrics;
    this.read = read;
    this.server = server;
    this.http = HttpServer.create(new InetSocketAddress(host, port), 16);
    this.executor =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "semafor-admin");
              t.setDaemon(true);
              return t;
            });
    http.setExecutor(executor);
    http.createContext("/metrics", this::metrics);
    http.createContext("/health", this::health);
    http.createContext("/cluster", this::cluster);
    http.start();
  }

  InetSocketAddress address() {
    return http.getAddress();
  }

  private void metrics(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!exchange.getRequestMethod().equals("GET")) {
        respond(exchange, 405, "text/plain", "GET only\n");
        return;
      }
      try {
        metrics.refresh(statuses());
      } catch (ExecutionException | TimeoutException | RuntimeException e) {
        log.warn("could not read the semaphores for a scrape; their gauges are stale", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      respond(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", metrics.scrape());
    }
  }

  /** The first semaphores by name, up to the metrics' cap. */
  private List<Result.SemaphoreStatus> statuses()
      throws ExecutionException, TimeoutException, InterruptedException {
    int limit = Math.min(metrics.maxSemaphoreSeries(), 10_000);
    List<Result.SemaphoreStatus> out = new ArrayList<>();
    if (limit < 1) {
      return out;
    }
    Reply listed =
        read.apply(new Query.ListNames(Name.of(""), limit, null))
            .get(READ_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    if (!(listed.result() instanceof Result.NameList names)) {
      return out;
    }
    List<CompletableFuture<Reply>> gets = new ArrayList<>();
    for (Name name : names.names()) {
      gets.add(read.apply(new Query.Get(name)));
    }
    for (CompletableFuture<Reply> get : gets) {
      Reply reply = get.get(READ_TIMEOUT_SECONDS, TimeUnit.SECONDS);
      if (reply.result() instanceof Result.SemaphoreStatus status) {
        out.add(status); // a semaphore deleted meanwhile answers NOT_FOUND and is skipped
      }
    }
    return out;
  }

  private void health(HttpExchange exchange) throws IOException {
    try (exchange) {
      boolean up = !server.isClosed();
      String body =
          String.format(
              "{\"status\":\"%s\",\"role\":\"%s\",\"sessions\":%d,\"connections\":%d}%n",
              up ? "UP" : "DOWN",
              server.isLeader() ? "leader" : "follower",
              server.sessionCount(),
              server.connectionCount());
      respond(exchange, up ? 200 : 503, "application/json", body);
    }
  }

  /** This node's view of its replication: role, leader, term, commit and applied index. */
  private void cluster(HttpExchange exchange) throws IOException {
    try (exchange) {
      StringBuilder body = new StringBuilder("{");
      for (Map.Entry<String, Object> e : server.replicationStatus().entrySet()) {
        if (body.length() > 1) {
          body.append(',');
        }
        body.append('"').append(e.getKey()).append("\":");
        Object v = e.getValue();
        if (v instanceof Number) {
          body.append(v);
        } else {
          body.append('"').append(jsonEscape(String.valueOf(v))).append('"');
        }
      }
      respond(exchange, 200, "application/json", body.append("}\n").toString());
    }
  }

  private static String jsonEscape(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  private static void respond(HttpExchange exchange, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    http.stop(0);
    executor.shutdownNow();
  }
}
