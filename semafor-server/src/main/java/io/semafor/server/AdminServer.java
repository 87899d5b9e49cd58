package io.semafor.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.semafor.core.Name;
import io.semafor.core.Query;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.replication.Replicator;
import io.semafor.server.security.Access;
import io.semafor.server.security.Audit;
import io.semafor.server.security.AuthFile;
import io.semafor.server.security.Authorizer;
import io.semafor.server.security.Principal;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin HTTP endpoint: {@code GET /metrics} (Prometheus text format), {@code GET /health} (200
 * with a small JSON body while serving, 503 once stopping), {@code GET /cluster} (this node's view
 * of its replication), and membership changes: {@code POST /cluster/members} with {@code
 * id=host:clientPort:raftPort} as the body, {@code DELETE /cluster/members/ID}. Scrapes read the
 * semaphores' state through the replicator like any client read, so they never touch the state
 * machine from the wrong thread.
 *
 * <p>{@code /health} must answer at once whatever else the endpoint is doing: a load balancer that
 * waits more than a second or two takes the node out. So the HTTP server's own threads answer
 * {@code /health} (which reads only volatile counters) and hand every other request to a lane of
 * its own: scrapes and {@code /cluster} to one thread, membership changes (which block until
 * committed, up to a minute toward a member that does not answer) to another. A lane holds a few
 * requests waiting; beyond that a request is answered 503 at once rather than queued behind a hung
 * one. Two membership changes toward an unreachable peer used to hold both shared threads and
 * {@code /health} with them for 18 s. Thread-safe.
 */
final class AdminServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AdminServer.class);

  static {
    // The JDK's HTTP server writes a response's headers and body in separate writes, without
    // TCP_NODELAY unless told: with the client's delayed acknowledgement every small answer took
    // 40 ms more (measured: every console request 44 ms at p50, 1.3-4.5 ms with it; benchmarks.md,
    // "Console"). Read once, when the first HTTP server of the JVM starts; an operator's -D wins.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  private static final long READ_TIMEOUT_SECONDS = 5;

  private final HttpServer http;
  private final ExecutorService executor;

  /** Scrapes and {@code /cluster}: reads through the replicator, a few seconds at most. */
  private final ThreadPoolExecutor reads = lane("semafor-admin-scrape");

  /** Membership changes: one at a time, as Raft makes them, each up to a minute. */
  private final ThreadPoolExecutor changes = lane("semafor-admin-members");

  /**
   * The console's views and actions (an action is three commits, seconds at most): two at a time,
   * so that an action waiting on a commit does not hold the page's reads.
   */
  private final ThreadPoolExecutor console = lane("semafor-admin-console", 2, 8);

  private final ConsoleStreams streams;
  private final ConsoleApi consoleApi;
  private final ConsoleAssets consoleAssets = new ConsoleAssets();

  private final ServerMetrics metrics;
  private final Function<Query, CompletableFuture<Reply>> read;
  private final SemaforServer server;

  AdminServer(
      String host,
      int port,
      @Nullable ServerTls tls,
      ServerMetrics metrics,
      Function<Query, CompletableFuture<Reply>> read,
      SemaforServer server)
      throws IOException {
    this.metrics = metrics;
    this.read = read;
    this.server = server;
    this.http =
        tls == null
            ? HttpServer.create(new InetSocketAddress(host, port), 16)
            : https(host, port, tls);
    // answers /health itself and hands every other request to its lane: never blocks
    this.executor =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "semafor-admin");
              t.setDaemon(true);
              return t;
            });
    http.setExecutor(executor);
    boolean openMetrics = server.config().openMetrics();
    http.createContext(
        "/metrics",
        on(reads, openMetrics ? this::metrics : guarded(Need.EVERY_NAME, this::metrics)));
    http.createContext("/health", this::health);
    http.createContext("/cluster", on(reads, guarded(Need.CLUSTER, this::cluster)));
    http.createContext("/sessions", on(reads, guarded(Need.CLUSTER, this::sessions)));
    http.createContext("/cluster/members", on(changes, guarded(Need.CLUSTER, this::members)));
    http.createContext("/auth/reload", on(changes, guarded(Need.CLUSTER, this::reloadAuth)));
    ConsoleViews views = new ConsoleViews(read, server, metrics);
    this.streams = new ConsoleStreams(views, server.consoleFeed());
    this.consoleApi =
        new ConsoleApi(views, new ConsoleActions(server.replicator(), server), streams, server);
    // the page itself holds no data: served to anyone, on the HTTP threads (it is in memory)
    http.createContext("/", consoleAssets::handle);
    http.createContext(
        "/api/",
        on(
            console,
            guarded(Need.ANYONE, exchange -> consoleApi.handle(exchange, principalOf(exchange)))));
    http.start();
  }

  /**
   * HTTPS with the client port's certificate; client certificates asked for or required as on the
   * client port.
   */
  private static HttpsServer https(String host, int port, ServerTls tls) throws IOException {
    HttpsServer https = HttpsServer.create(new InetSocketAddress(host, port), 16);
    https.setHttpsConfigurator(
        new HttpsConfigurator(tls.jdkContext()) {
          @Override
          public void configure(HttpsParameters parameters) {
            parameters.setSSLParameters(tls.adminParameters());
          }
        });
    return https;
  }

  /** Requests that may wait, each beyond the one running, before more are answered 503. */
  private static final int LANE_QUEUE = 4;

  private static ThreadPoolExecutor lane(String name) {
    return lane(name, 1, LANE_QUEUE);
  }

  private static ThreadPoolExecutor lane(String name, int threads, int queue) {
    return new ThreadPoolExecutor(
        threads,
        threads,
        0,
        TimeUnit.MILLISECONDS,
        new ArrayBlockingQueue<>(queue),
        r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          return t;
        });
  }

  /**
   * A handler that runs {@code handler} on {@code lane}, so the HTTP server's threads stay free for
   * {@code /health}; 503 at once if the lane is full.
   */
  private static HttpHandler on(ThreadPoolExecutor lane, HttpHandler handler) {
    return exchange -> {
      try {
        lane.execute(
            () -> {
              try {
                handler.handle(exchange);
              } catch (IOException | RuntimeException e) {
                log.debug("admin request {} failed", exchange.getRequestURI(), e);
                exchange.close();
              }
            });
      } catch (RejectedExecutionException e) {
        try (exchange) {
          error(
              exchange, 503, "BUSY", "too many requests of this kind are in progress; retry later");
        }
      }
    };
  }

  /** What a request must show, when the server authenticates (docs/security.md#admin). */
  private enum Need {
    /** A principal that may read every name ({@code read} on the prefix "", or {@code cluster}). */
    EVERY_NAME,
    /** A principal with the {@code cluster} permission. */
    CLUSTER,
    /** Any principal the credentials prove (the console: what it shows is filtered by each). */
    ANYONE
  }

  /**
   * {@code handler}, run only for a request whose credentials (a bearer token in {@code
   * Authorization}, or a verified client certificate) show what {@code need} says: 401
   * UNAUTHENTICATED or 403 PERMISSION_DENIED otherwise, both audited. Without an auth file,
   * everything passes.
   */
  private HttpHandler guarded(Need need, HttpHandler handler) {
    return exchange -> {
      Access access = server.config().security().access();
      if (!access.enforced()) {
        handler.handle(exchange);
        return;
      }
      String address = String.valueOf(exchange.getRemoteAddress());
      String action = exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath();
      Principal who;
      try {
        who = access.authenticate(bearer(exchange), certificatePrincipal(exchange), Instant.now());
      } catch (Access.Refused e) {
        Audit.record(action, Principal.ANONYMOUS, address, "UNAUTHENTICATED: " + e.reason());
        try (exchange) {
          exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"semafor\"");
          error(exchange, 401, "UNAUTHENTICATED", e.reason());
        }
        return;
      }
      String denied =
          switch (need) {
            case CLUSTER -> Authorizer.denyCluster(access, who, action);
            case EVERY_NAME -> Authorizer.denyEveryName(access, who, action);
            case ANYONE -> null;
          };
      if (denied != null) {
        Audit.record(action, who, address, "PERMISSION_DENIED: " + denied);
        try (exchange) {
          error(exchange, 403, "PERMISSION_DENIED", denied);
        }
        return;
      }
      exchange.setAttribute(PRINCIPAL, who);
      exchange.setAttribute(TOKEN, bearer(exchange));
      handler.handle(exchange);
    };
  }

  private static final String PRINCIPAL = "semafor.principal";
  private static final String TOKEN = "semafor.token";

  /** The bearer token {@link #guarded} authenticated {@code exchange} with; empty if none. */
  static String tokenOf(HttpExchange exchange) {
    return exchange.getAttribute(TOKEN) instanceof String t ? t : "";
  }

  /** The principal {@link #guarded} found for {@code exchange}; anonymous without an auth file. */
  private static Principal principalOf(HttpExchange exchange) {
    return exchange.getAttribute(PRINCIPAL) instanceof Principal p ? p : Principal.ANONYMOUS;
  }

  /** The token of an {@code Authorization: Bearer TOKEN} header; empty if there is none. */
  private static String bearer(HttpExchange exchange) {
    String header = exchange.getRequestHeaders().getFirst("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return "";
    }
    return header.substring(7).trim();
  }

  /** The CN of the verified client certificate of an HTTPS request; null otherwise. */
  private static @Nullable String certificatePrincipal(HttpExchange exchange) {
    return exchange instanceof HttpsExchange https
        ? TlsPeers.principal(https.getSSLSession())
        : null;
  }

  /** {@code POST /auth/reload}: reads the auth file again (docs/security.md#reloading). */
  private void reloadAuth(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!exchange.getRequestMethod().equals("POST")) {
        error(exchange, 405, "METHOD_NOT_ALLOWED", "POST /auth/reload");
        return;
      }
      String address = String.valueOf(exchange.getRemoteAddress());
      try {
        String summary = server.reloadAuth();
        Audit.record("auth reload", principalOf(exchange), address, "ok: " + summary);
        respond(
            exchange,
            200,
            "application/json",
            JSON.writeValueAsString(Map.of("reloaded", summary)) + "\n");
      } catch (AuthFile.Invalid e) {
        String message = String.valueOf(e.getMessage());
        Audit.record("auth reload", principalOf(exchange), address, "INVALID_ARGUMENT: " + message);
        error(exchange, 400, "INVALID_ARGUMENT", message + " (the rules in force are unchanged)");
      } catch (IllegalStateException e) {
        error(exchange, 409, "FAILED_PRECONDITION", String.valueOf(e.getMessage()));
      }
    }
  }

  InetSocketAddress address() {
    return http.getAddress();
  }

  private void metrics(HttpExchange exchange) throws IOException {
    synchronized (metrics) { // one lane thread; the lock only says the gauges' refresh is ours
      metricsLocked(exchange);
    }
  }

  private void metricsLocked(HttpExchange exchange) throws IOException {
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
    List<Name> names = new ArrayList<>();
    @Nullable Name after = null;
    while (names.size() < limit) { // a page stops early at its byte budget: page on
      Reply listed =
          read.apply(new Query.ListNames(Name.of(""), limit - names.size(), after))
              .get(READ_TIMEOUT_SECONDS, TimeUnit.SECONDS);
      if (!(listed.result() instanceof Result.NameList page) || page.names().isEmpty()) {
        break;
      }
      names.addAll(page.names());
      after = page.names().get(page.names().size() - 1);
      if (!page.more()) {
        break;
      }
    }
    List<CompletableFuture<Reply>> gets = new ArrayList<>();
    for (Name name : names) {
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

  /**
   * {@code GET /sessions}: every live session as JSON, with who its client said it is (name, host,
   * PID), its TTL, age, time since its last request and counts, read page by page like a client's
   * {@code session list}.
   */
  private void sessions(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!exchange.getRequestMethod().equals("GET")) {
        respond(exchange, 405, "text/plain", "GET only\n");
        return;
      }
      List<Map<String, Object>> sessions = new ArrayList<>();
      long after = 0;
      try {
        while (true) {
          Reply reply =
              read.apply(new Query.ListSessions(Query.ListSessions.MAX_LIMIT, after))
                  .get(READ_TIMEOUT_SECONDS, TimeUnit.SECONDS);
          if (!(reply.result() instanceof Result.SessionList page)) {
            respond(exchange, 503, "application/json", "{\"error\":\"UNAVAILABLE\"}\n");
            return;
          }
          long now = server.logTime();
          for (Result.SessionView s : page.sessions()) {
            Map<String, Object> client = new LinkedHashMap<>();
            client.put("name", s.client().name());
            client.put("host", s.client().host());
            client.put("pid", s.client().pid());
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("sessionId", s.sessionId());
            row.put("client", client);
            row.put("ttlMillis", s.ttl() / 1_000_000);
            row.put("ageMillis", Math.max(0, now - s.openedAt()) / 1_000_000);
            row.put("sinceLastRequestMillis", Math.max(0, now - s.lastSeen()) / 1_000_000);
            row.put("sinceHeardMillis", server.sinceHeardMillis(s.sessionId()));
            row.put("holdings", s.holdings());
            row.put("waiting", s.waiting());
            row.put("unacknowledged", s.unacked());
            sessions.add(row);
            after = s.sessionId();
          }
          if (!page.more()) {
            break;
          }
        }
      } catch (ExecutionException | TimeoutException e) {
        respond(exchange, 503, "application/json", "{\"error\":\"UNAVAILABLE\"}\n");
        return;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      respond(
          exchange,
          200,
          "application/json",
          JSON.writeValueAsString(Map.of("sessions", sessions)) + "\n");
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private void health(HttpExchange exchange) throws IOException {
    try (exchange) {
      boolean up = !server.isClosed();
      Map<String, Object> status = new LinkedHashMap<>();
      status.put("status", up ? "UP" : "DOWN");
      status.put("role", server.isLeader() ? "leader" : "follower");
      status.put("sessions", server.sessionCount());
      status.put("connections", server.connectionCount());
      String body = JSON.writeValueAsString(status) + "\n";
      respond(exchange, up ? 200 : 503, "application/json", body);
    }
  }

  /**
   * This node's view of its replication: role, leader, term, commit and applied index, and on a
   * leader where each follower stands.
   */
  private void cluster(HttpExchange exchange) throws IOException {
    try (exchange) {
      respond(
          exchange,
          200,
          "application/json",
          JSON.writeValueAsString(server.replicationStatus()) + "\n");
    }
  }

  /**
   * Membership changes: {@code POST /cluster/members} adds the member in the body, {@code DELETE
   * /cluster/members/ID} removes one. 200 with the members after the change; 400 for a bad
   * argument, 409 on a single node, 503 if the cluster refused the change, 504 ({@code
   * OUTCOME_UNKNOWN}) if it was not committed in time and may still be.
   */
  private void members(HttpExchange exchange) throws IOException {
    try (exchange) {
      String method = exchange.getRequestMethod();
      String path = exchange.getRequestURI().getPath();
      String rest = path.substring(Math.min(path.length(), "/cluster/members".length()));
      List<String> members;
      try {
        if (method.equals("POST") && (rest.isEmpty() || rest.equals("/"))) {
          String body;
          try (var in = exchange.getRequestBody()) {
            body = new String(in.readNBytes(4096), StandardCharsets.UTF_8).trim();
          }
          members = audited(exchange, "add member " + body, () -> server.addMember(body));
        } else if (method.equals("DELETE") && rest.startsWith("/") && rest.length() > 1) {
          String id = rest.substring(1);
          members = audited(exchange, "remove member " + id, () -> server.removeMember(id));
        } else {
          error(
              exchange,
              405,
              "METHOD_NOT_ALLOWED",
              "POST /cluster/members or DELETE /cluster/members/ID");
          return;
        }
      } catch (IllegalArgumentException e) {
        error(exchange, 400, "INVALID_ARGUMENT", String.valueOf(e.getMessage()));
        return;
      } catch (UnsupportedOperationException e) {
        error(exchange, 409, "NOT_A_CLUSTER", String.valueOf(e.getMessage()));
        return;
      } catch (Replicator.MembershipChangeUnknownException e) {
        error(exchange, 504, "OUTCOME_UNKNOWN", String.valueOf(e.getMessage()));
        return;
      } catch (IllegalStateException e) {
        error(exchange, 503, "UNAVAILABLE", String.valueOf(e.getMessage()));
        return;
      }
      respond(
          exchange,
          200,
          "application/json",
          JSON.writeValueAsString(Map.of("members", String.join(",", members))) + "\n");
    }
  }

  /** Runs a membership change, writing it and its outcome to the audit log. */
  private static List<String> audited(
      HttpExchange exchange, String action, java.util.function.Supplier<List<String>> change) {
    String address = String.valueOf(exchange.getRemoteAddress());
    try {
      List<String> members = change.get();
      Audit.record(action, principalOf(exchange), address, "ok: " + String.join(",", members));
      return members;
    } catch (RuntimeException e) {
      Audit.record(action, principalOf(exchange), address, "failed: " + e.getMessage());
      throw e;
    }
  }

  private static void error(HttpExchange exchange, int status, String code, String message)
      throws IOException {
    Map<String, String> body = new LinkedHashMap<>();
    body.put("error", code);
    body.put("message", message);
    respond(exchange, status, "application/json", JSON.writeValueAsString(body) + "\n");
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
    streams.close(); // first: the HTTP server waits for no stream
    http.stop(0);
    executor.shutdownNow();
    console.shutdownNow();
    reads.shutdownNow();
    changes.shutdownNow();
  }
}
