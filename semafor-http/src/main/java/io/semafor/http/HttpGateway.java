package io.semafor.http;

import io.semafor.client.SemaforClient;
import io.semafor.client.TlsConfig;
import io.semafor.server.ListenFailed;
import io.semafor.server.Main;
import io.semafor.server.SemaforServer;
import io.semafor.server.http.HttpServer;
import io.semafor.server.http.Router;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP/JSON API of a running node (docs/http.md, decision 0052): an {@link HttpServer} on its
 * own port, on the node's host and with its TLS, whose routes ({@link ApiRoutes}) act through a
 * {@link SemaforClient} per bearer token connected to the node's own client port. So the binary
 * protocol's permissions, audit, leader following, retries and cancelled-wait rules are the API's
 * too, from one implementation.
 *
 * <pre>{@code
 * SemaforServer server = SemaforServer.start(config);
 * HttpGateway http = HttpGateway.start(server, HttpConfig.DEFAULTS.withPort(0), null);
 * }</pre>
 *
 * <p>Thread-safe; {@link #close} stops it (before the server).
 */
public final class HttpGateway implements Main.Companion {
  private static final Logger log = LoggerFactory.getLogger(HttpGateway.class);

  private final HttpServer http;
  private final ClientPool pool;
  private final ExecutorService workers;
  private final ScheduledExecutorService sweeper;
  private final Router router;
  private final String host;
  private volatile boolean closed;

  private HttpGateway(
      HttpServer http,
      ClientPool pool,
      ExecutorService workers,
      ScheduledExecutorService sweeper,
      Router router,
      String host) {
    this.http = http;
    this.pool = pool;
    this.workers = workers;
    this.sweeper = sweeper;
    this.router = router;
    this.host = host;
  }

  /**
   * Starts the API of {@code server} on its host at {@code config.port()}.
   *
   * @param upstreamTls how the gateway's clients speak TLS to the node's client port: null when the
   *     node serves plain TCP; else a config that trusts the node's certificate (and, in a cluster,
   *     the members', to follow the leader)
   * @throws io.semafor.server.ListenFailed naming the HTTP port if it cannot be bound
   */
  @SuppressWarnings("FutureReturnValueIgnored") // failures are answered or logged by the stages
  public static HttpGateway start(
      SemaforServer server, HttpConfig config, @Nullable TlsConfig upstreamTls)
      throws InterruptedException {
    String host = server.config().host();
    String upstream = dialable(host) + ":" + server.address().getPort();
    AtomicInteger threads = new AtomicInteger();
    ExecutorService workers =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "semafor-http-worker-" + threads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    ScheduledExecutorService sweeper =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "semafor-http-sweeper");
              t.setDaemon(true);
              return t;
            });
    ClientPool pool =
        new ClientPool(
            token -> connect(upstream, upstreamTls, token),
            workers,
            System::nanoTime,
            config.clientIdle());
    Calls calls =
        new Calls(
            pool, server.config().security().access().enforced(), config.maxWaitsPerPrincipal());
    WatchRoute watches = new WatchRoute(calls, pool, config, workers);
    Router router = new Router(new ApiRoutes(calls, config, watches).routes());
    HttpServer http;
    try {
      http =
          HttpServer.start(
              host,
              config.port(),
              ListenFailed.Port.HTTP,
              server.config().tls(),
              new HttpServer.Limits(
                  config.maxBodyBytes(),
                  "--http-max-body-bytes",
                  config.idleTimeout(),
                  config.writeTimeout()),
              router,
              Errors::of,
              Math.max(1, Math.min(2, server.config().ioThreads())),
              "semafor-http");
    } catch (RuntimeException | InterruptedException e) {
      workers.shutdownNow();
      sweeper.shutdownNow();
      throw e;
    }
    long every = Math.max(100, config.clientIdle().toMillis() / 2);
    sweeper.scheduleWithFixedDelay(pool::closeIdle, every, every, TimeUnit.MILLISECONDS);
    return new HttpGateway(http, pool, workers, sweeper, router, host);
  }

  private static SemaforClient connect(String upstream, @Nullable TlsConfig tls, String token) {
    SemaforClient.Builder b =
        SemaforClient.builder()
            .addresses(upstream)
            .clientName("semafor-http")
            .sessionTtl(Duration.ofSeconds(10));
    if (tls != null) {
      b.tls(tls);
    }
    if (!token.isEmpty()) {
      b.token(token);
    }
    return b.connect();
  }

  /** An address the gateway can dial for {@code host}: a wildcard listens on loopback too. */
  static String dialable(String host) {
    try {
      InetAddress a = InetAddress.getByName(host);
      if (a.isAnyLocalAddress()) {
        return a instanceof java.net.Inet6Address ? "[::1]" : "127.0.0.1";
      }
      return a instanceof java.net.Inet6Address
          ? "[" + a.getHostAddress() + "]"
          : a.getHostAddress();
    } catch (UnknownHostException e) {
      return host;
    }
  }

  /** The address the API listens on. */
  public InetSocketAddress address() {
    return http.address();
  }

  /** {@code http://HOST:PORT} (https with TLS), without a trailing slash. */
  public String baseUrl() {
    String h = host.contains(":") ? "[" + host + "]" : host;
    return (http.tls() ? "https" : "http") + "://" + h + ":" + address().getPort();
  }

  @Override
  public String banner() {
    return "semafor http api on " + baseUrl() + "/v1/ (docs/http.md)";
  }

  /** The router, for the OpenAPI test. */
  Router router() {
    return router;
  }

  /** Pooled clients open now (one per bearer token in use), for tests. */
  int pooledClients() {
    return pool.size();
  }

  /**
   * Stops the API: no new connections; every pooled client is closed, which fails the long polls
   * still waiting with 503 UNAVAILABLE and gives back what they had not received (their sessions
   * end); then the connections close. Idempotent.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    http.stopAccepting();
    sweeper.shutdownNow();
    try {
      pool.close();
      Thread.sleep(200); // the 503s of the long polls just failed are written meanwhile
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      log.warn("closing the HTTP API's clients: {}", e.toString());
    }
    http.close();
    workers.shutdownNow();
  }
}
