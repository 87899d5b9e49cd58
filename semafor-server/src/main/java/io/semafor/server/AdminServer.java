package io.semafor.server;

import io.semafor.core.Query;
import io.semafor.core.Reply;
import io.semafor.server.http.ApiException;
import io.semafor.server.http.Exchange;
import io.semafor.server.http.HttpServer;
import io.semafor.server.http.Route;
import io.semafor.server.http.Router;
import io.semafor.server.security.Access;
import io.semafor.server.security.Audit;
import io.semafor.server.security.Authorizer;
import io.semafor.server.security.Principal;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin HTTP endpoint: {@code GET /metrics} (Prometheus text format), {@code GET /health} (200
 * with a small JSON body while serving, 503 once stopping), {@code GET /cluster} (this node's view
 * of its replication), {@code GET /sessions}, membership changes ({@code POST /cluster/members},
 * {@code DELETE /cluster/members/ID}), {@code POST /auth/reload}, and the console: its JSON API
 * under {@code /api/} and its page. {@link AdminRoutes} answers the admin routes, {@link
 * ConsoleApi} and {@link ConsoleAssets} the console's. It runs on the node's one HTTP stack ({@link
 * HttpServer}, decision 0055): Netty, TLS with the client port's certificate, bounded bodies, an
 * idle timeout, and a write timeout, so that a reader that vanished without closing (a browser's
 * stream) is let go of within {@link #WRITE_TIMEOUT} once its buffers are full.
 *
 * <p>Paths are matched as the JDK's HTTP server's contexts matched them, which this port used
 * before: the longest of {@code /cluster/members}, {@code /auth/reload}, {@code /metrics}, {@code
 * /sessions}, {@code /cluster}, {@code /health}, {@code /api/} and {@code /} that the path starts
 * with; each route tells a wrong method itself.
 *
 * <p>{@code /health} must answer at once whatever else the endpoint is doing: a load balancer that
 * waits more than a second or two takes the node out. So the event loop answers {@code /health}
 * (which reads only volatile counters) and the page (in memory), and hands every other request to a
 * lane of its own: scrapes and {@code /cluster} to one thread, membership changes (which block
 * until committed, up to a minute toward a member that does not answer) to another, the console's
 * API to two. A lane holds a few requests waiting; beyond that a request is answered 503 at once
 * rather than queued behind a hung one. Two membership changes toward an unreachable peer used to
 * hold both shared threads and {@code /health} with them for 18 s. Thread-safe.
 */
final class AdminServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AdminServer.class);

  /** Bodies are small here (a member's address): a larger one is 413. */
  static final int MAX_BODY_BYTES = 64 * 1024;

  /** A connection with nothing in flight and silent this long is closed. */
  static final Duration IDLE_TIMEOUT = Duration.ofSeconds(60);

  /**
   * A write not taken by the caller within this closes its connection: a console stream whose
   * browser vanished without closing gives its slot back (the JDK's server held it until TCP gave
   * up, or for ever while the peer's kernel still acknowledged).
   */
  static final Duration WRITE_TIMEOUT = Duration.ofSeconds(10);

  private final HttpServer http;

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
  private final SemaforServer server;

  AdminServer(
      String host,
      int port,
      @Nullable ServerTls tls,
      ServerMetrics metrics,
      Function<Query, CompletableFuture<Reply>> read,
      SemaforServer server)
      throws InterruptedException {
    this.server = server;
    AdminRoutes admin = new AdminRoutes(metrics, read, server);
    ConsoleViews views = new ConsoleViews(read, server, metrics);
    this.streams = new ConsoleStreams(views, server.consoleFeed());
    ConsoleApi consoleApi =
        new ConsoleApi(views, new ConsoleActions(server.replicator(), server), streams, server);
    ConsoleAssets assets = new ConsoleAssets();
    boolean openMetrics = server.config().openMetrics();
    // longest prefix first, as the JDK's contexts were chosen
    Router router =
        new Router(
            List.of(
                route("/cluster/members*", on(changes, guarded(Need.CLUSTER, admin::members))),
                route("/auth/reload*", on(changes, guarded(Need.CLUSTER, admin::reloadAuth))),
                route(
                    "/metrics*",
                    on(
                        reads,
                        openMetrics
                            ? e -> admin.metrics(e)
                            : guarded(Need.EVERY_NAME, (e, who, token) -> admin.metrics(e)))),
                route(
                    "/sessions*", on(reads, guarded(Need.CLUSTER, (e, w, t) -> admin.sessions(e)))),
                route("/cluster*", on(reads, guarded(Need.CLUSTER, (e, w, t) -> admin.cluster(e)))),
                route("/health*", admin::health), // on the event loop: never waits
                route("/api/*", on(console, guarded(Need.ANYONE, consoleApi::handle))),
                // the page holds no data: served to anyone, from memory, on the event loop
                route("/*", assets::handle)));
    this.http =
        HttpServer.start(
            host,
            port,
            ListenFailed.Port.ADMIN,
            tls,
            new HttpServer.Limits(
                MAX_BODY_BYTES, "the admin port's bound", IDLE_TIMEOUT, WRITE_TIMEOUT),
            router,
            ApiException::of,
            1,
            "semafor-admin");
  }

  private static Route route(String prefix, Route.Handler handler) {
    return new Route("*", prefix, "admin " + prefix, Set.of(), handler);
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
   * A handler that runs {@code handler} on {@code lane}, so the event loop stays free for {@code
   * /health}; 503 at once if the lane is full.
   */
  private static Route.Handler on(ThreadPoolExecutor lane, Route.Handler handler) {
    return exchange -> {
      try {
        lane.execute(
            () -> {
              try {
                handler.handle(exchange);
              } catch (RuntimeException e) {
                log.debug("admin request {} failed", exchange.path(), e);
                exchange.fail(e);
              }
            });
      } catch (RejectedExecutionException e) {
        AdminRoutes.error(
            exchange, 503, "BUSY", "too many requests of this kind are in progress; retry later");
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

  /** A route's handler once its caller is known. */
  @FunctionalInterface
  interface Guarded {
    /**
     * Answers {@code exchange} for {@code who}, who showed {@code token} (empty: none), through the
     * exchange.
     */
    void handle(Exchange exchange, Principal who, String token);
  }

  /**
   * {@code handler}, run only for a request whose credentials (a bearer token in {@code
   * Authorization}, or a verified client certificate) show what {@code need} says: 401
   * UNAUTHENTICATED or 403 PERMISSION_DENIED otherwise, both audited. Without an auth file,
   * everything passes, as anonymous.
   */
  private Route.Handler guarded(Need need, Guarded handler) {
    return exchange -> {
      Access access = server.config().security().access();
      String token = bearer(exchange);
      if (!access.enforced()) {
        handler.handle(exchange, Principal.ANONYMOUS, token);
        return;
      }
      String address = String.valueOf(exchange.remoteAddress());
      String action = exchange.method() + " " + exchange.path();
      Principal who;
      try {
        who = access.authenticate(token, TlsPeers.principal(exchange.tlsSession()), Instant.now());
      } catch (Access.Refused e) {
        Audit.record(action, Principal.ANONYMOUS, address, "UNAUTHENTICATED: " + e.reason());
        AdminRoutes.error(
            exchange,
            401,
            "UNAUTHENTICATED",
            e.reason(),
            Map.of("WWW-Authenticate", "Bearer realm=\"semafor\""));
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
        AdminRoutes.error(exchange, 403, "PERMISSION_DENIED", denied);
        return;
      }
      handler.handle(exchange, who, token);
    };
  }

  /** The token of an {@code Authorization: Bearer TOKEN} header; empty if there is none. */
  private static String bearer(Exchange exchange) {
    String header = exchange.header("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return "";
    }
    return header.substring(7).trim();
  }

  InetSocketAddress address() {
    return http.address();
  }

  @Override
  public void close() {
    streams.close(); // first: its threads end their streams
    http.close();
    console.shutdownNow();
    reads.shutdownNow();
    changes.shutdownNow();
  }
}
