package io.semafor.http;

import io.semafor.Policy;
import io.semafor.SemaphoreOptions;
import io.semafor.client.Lease;
import io.semafor.client.SemaforClient;
import io.semafor.client.Semop;
import io.semafor.server.http.ApiException;
import io.semafor.server.http.Exchange;
import io.semafor.server.http.JsonBody;
import io.semafor.server.http.Route;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The routes of the API (docs/http.md), each a thin adapter onto {@link SemaforClient}: read the
 * request, check what the session protocol cannot name in HTTP's units (milliseconds), call,
 * answer. Leases are the ownership model (an HTTP caller keeps no connection); takes without a
 * lease are consumed. Thread-safe.
 */
final class ApiRoutes {
  private static final Logger log = LoggerFactory.getLogger(ApiRoutes.class);

  /** The OpenAPI document, served as is and checked against {@link #routes} by a test. */
  static final String OPENAPI = "openapi.json";

  private final Calls calls;
  private final HttpConfig config;
  private final WatchRoute watches;
  private final byte[] openApi;

  ApiRoutes(Calls calls, HttpConfig config, WatchRoute watches) {
    this.calls = calls;
    this.config = config;
    this.watches = watches;
    this.openApi = resource(OPENAPI);
  }

  /** Every route, with the statuses each answers. */
  List<Route> routes() {
    Set<Integer> common = Set.of(400, 401, 403, 429, 503);
    return List.of(
        route("GET", "/v1/openapi.json", "openapi", Set.of(200), this::openApi),
        route("GET", "/v1/semaphores", "list", with(common, 200), this::list),
        route("PUT", "/v1/semaphores/{name}", "create", with(common, 200, 201), this::create),
        route("GET", "/v1/semaphores/{name}", "get", with(common, 200, 404), this::get),
        route("DELETE", "/v1/semaphores/{name}", "delete", with(common, 200, 404), this::delete),
        route(
            "GET",
            "/v1/semaphores/{name}/inspect",
            "inspect",
            with(common, 200, 404),
            this::inspect),
        route(
            "PUT",
            "/v1/semaphores/{name}/value",
            "setValue",
            with(common, 200, 404, 409),
            this::set),
        route(
            "POST",
            "/v1/semaphores/{name}/increment",
            "increment",
            with(common, 200, 404, 409),
            this::increment),
        route(
            "POST",
            "/v1/semaphores/{name}/decrement",
            "decrement",
            with(common, 200, 404, 410),
            this::decrement),
        route(
            "POST",
            "/v1/semaphores/{name}/leases",
            "acquireLease",
            with(common, 200, 404, 410),
            this::acquireLease),
        route("PUT", "/v1/leases/{permit_id}", "renewLease", with(common, 200, 404), this::renew),
        route(
            "DELETE",
            "/v1/leases/{permit_id}",
            "releaseLease",
            with(common, 200, 404),
            this::release),
        route("POST", "/v1/semop", "semop", with(common, 200, 404, 409, 410), this::semop),
        route(
            "GET",
            "/v1/semaphores/{name}/watch",
            "watch",
            with(common, 200),
            e -> watches.watch(e, e.param("name"), false)),
        route(
            "GET",
            "/v1/watch",
            "watchPrefix",
            with(common, 200),
            e -> watches.watch(e, prefix(e), true)));
  }

  private static Route route(
      String method, String template, String id, Set<Integer> statuses, Route.Handler handler) {
    return new Route(method, template, id, statuses, handler);
  }

  private static Set<Integer> with(Set<Integer> common, Integer... more) {
    java.util.HashSet<Integer> all = new java.util.HashSet<>(common);
    all.addAll(List.of(more));
    return all;
  }

  private void openApi(Exchange e) {
    e.respondRaw(200, openApi, "application/json");
  }

  private void list(Exchange e) {
    String prefix = prefix(e);
    String after = e.query("after");
    int limit = intQuery(e, "limit", 100, 1, 10_000);
    calls.run(
        e,
        c -> c.listPageAsync(prefix, after, limit),
        (x, page) -> x.respond(200, Views.page(page.semaphores(), page.more())));
  }

  private void create(Exchange e) {
    String name = e.param("name");
    JsonBody b = e.body();
    long initial = b.requireLong("initial");
    long capacity = b.longOr("capacity", 0);
    String policy = b.stringOr("policy", "FIFO");
    long maxPerSession = b.longOr("max_per_session", 0);
    b.done();
    Policy p =
        switch (String.valueOf(policy).toUpperCase(Locale.ROOT)) {
          case "FIFO" -> Policy.FIFO;
          case "BARGING" -> Policy.BARGING;
          default -> throw ApiException.invalid("policy", "must be FIFO or BARGING, was " + policy);
        };
    if (maxPerSession < 0 || maxPerSession > Integer.MAX_VALUE) {
      throw ApiException.invalid(
          "max_per_session", "must be 0 (no limit) to 2^31-1, was " + maxPerSession);
    }
    SemaphoreOptions options = new SemaphoreOptions(capacity, p, (int) maxPerSession);
    calls.run(
        e,
        c ->
            c.semaphore(name)
                .createAsync(initial, options)
                .thenCompose(
                    created ->
                        c.semaphore(name)
                            .infoAsync()
                            .thenApply(info -> new Object[] {created, info})),
        (x, r) -> {
          boolean created = (Boolean) r[0];
          var body = Views.of("created", created);
          body.putAll(Views.status((io.semafor.client.SemaphoreInfo) r[1]));
          x.respond(created ? 201 : 200, body);
        });
  }

  private void get(Exchange e) {
    String name = e.param("name");
    calls.run(
        e, c -> c.semaphore(name).infoAsync(), (x, info) -> x.respond(200, Views.status(info)));
  }

  private void delete(Exchange e) {
    String name = e.param("name");
    calls.run(
        e,
        c -> c.semaphore(name).deleteAsync(),
        (x, v) -> x.respond(200, Views.of("deleted", true, "name", name)));
  }

  private void inspect(Exchange e) {
    String name = e.param("name");
    int limit = intQuery(e, "limit", 1000, 1, 100_000);
    calls.run(
        e,
        c -> c.semaphore(name).inspectAsync(limit),
        (x, info) -> x.respond(200, Views.detail(info)));
  }

  private void set(Exchange e) {
    String name = e.param("name");
    JsonBody b = e.body();
    long value = b.requireLong("value");
    b.done();
    calls.run(
        e,
        c -> c.semaphore(name).setAsync(value),
        (x, previous) -> x.respond(200, Views.of("previous", previous, "value", value)));
  }

  private void increment(Exchange e) {
    String name = e.param("name");
    JsonBody b = e.body();
    long amount = b.requireLong("amount");
    b.done();
    calls.run(
        e,
        c -> c.semaphore(name).incrementAsync(amount),
        (x, value) -> x.respond(200, Views.of("value", value)));
  }

  private void decrement(Exchange e) {
    String name = e.param("name");
    JsonBody b = e.body();
    long amount = b.longOr("amount", 1);
    Duration timeout = waitTimeout(b);
    b.done();
    SemaforClient[] used = new SemaforClient[1];
    calls.waiting(
        e,
        c -> {
          used[0] = c;
          return c.semaphore(name).decrementAsync(amount, timeout);
        },
        (x, taken) ->
            x.respond(
                200,
                Views.of("granted", taken > 0, "amount", taken),
                () -> {
                  if (taken > 0) {
                    giveBack(() -> used[0].semaphore(name).incrementAsync(taken), name);
                  }
                }));
  }

  private void acquireLease(Exchange e) {
    String name = e.param("name");
    JsonBody b = e.body();
    long amount = b.longOr("amount", 1);
    Duration ttl = ttl(b);
    Duration timeout = waitTimeout(b);
    b.done();
    calls.waiting(
        e,
        c -> c.semaphore(name).acquireLeaseAsync(amount, ttl, timeout),
        (x, lease) -> answerLease(x, lease, ttl));
  }

  private void answerLease(Exchange x, Optional<Lease> granted, Duration ttl) {
    if (granted.isEmpty()) {
      x.respond(200, Views.of("granted", false));
      return;
    }
    Lease lease = granted.get();
    x.respond(
        200,
        Views.of(
            "granted", true,
            "permit_id", Long.toString(lease.permitId()),
            "name", lease.semaphoreName(),
            "amount", lease.amount(),
            "token", lease.token(),
            "sequence", lease.sequence(),
            "slots", lease.slots(),
            "expires_in_ms", ttl.toMillis()),
        () -> giveBack(lease::releaseAsync, lease.semaphoreName()));
  }

  private void renew(Exchange e) {
    long permitId = permitId(e);
    JsonBody b = e.body();
    String name = b.requireString("name");
    Duration ttl = ttl(b);
    b.done();
    calls.run(
        e,
        c -> c.lease(name, permitId).renewAsync(ttl),
        (x, left) ->
            x.respond(
                200,
                Views.of("permit_id", Long.toString(permitId), "expires_in_ms", left.toMillis())));
  }

  private void release(Exchange e) {
    long permitId = permitId(e);
    String name = e.query("name");
    if (name == null || name.isEmpty()) {
      throw ApiException.invalid(
          "name", "required: the lease's semaphore, as ?name=... (percent-encoded)");
    }
    calls.run(
        e,
        c -> c.lease(name, permitId).releaseAsync(),
        (x, released) ->
            x.respond(200, Views.of("permit_id", Long.toString(permitId), "released", released)));
  }

  private void semop(Exchange e) {
    JsonBody b = e.body();
    List<JsonBody> ops = b.requireObjects("ops");
    Duration timeout = waitTimeout(b);
    List<Object[]> parsed = new ArrayList<>();
    for (JsonBody op : ops) {
      String name = op.requireString("name");
      long delta = op.requireLong("delta");
      boolean noWait = op.booleanOr("no_wait", false);
      op.done();
      parsed.add(new Object[] {name, delta, noWait});
    }
    b.done();
    SemaforClient[] used = new SemaforClient[1];
    calls.waiting(
        e,
        c -> {
          used[0] = c;
          Semop semop = c.semop();
          for (Object[] op : parsed) {
            add(semop, (String) op[0], (Long) op[1]);
            if ((Boolean) op[2]) {
              semop.noWait();
            }
          }
          return semop.executeAsync(timeout);
        },
        (x, r) ->
            x.respond(
                200,
                Views.of("done", r.done(), "token", r.token(), "sequence", r.sequence()),
                () -> {
                  if (r.done()) {
                    Semop inverse = used[0].semop();
                    for (Object[] op : parsed) {
                      long delta = (Long) op[1];
                      if (delta != 0) {
                        add(inverse, (String) op[0], -delta);
                        inverse.noWait();
                      }
                    }
                    giveBack(() -> inverse.executeAsync(Duration.ZERO), "a semop");
                  }
                }));
  }

  private static void add(Semop semop, String name, long delta) {
    if (delta < 0) {
      semop.take(name, -delta);
    } else if (delta > 0) {
      semop.add(name, delta);
    } else {
      semop.waitForZero(name);
    }
  }

  /** Gives back a grant its caller never received; a failure is logged (nothing else to tell). */
  @SuppressWarnings("FutureReturnValueIgnored") // its failure is logged by the stage itself
  private static void giveBack(
      java.util.function.Supplier<java.util.concurrent.CompletableFuture<?>> action, String what) {
    try {
      action
          .get()
          .whenComplete(
              (v, failure) -> {
                if (failure != null) {
                  log.warn(
                      "a grant on {} its HTTP caller never received was not given back: {}",
                      what,
                      Errors.unwrap(failure).toString());
                }
              });
    } catch (RuntimeException ex) {
      log.warn("a grant on {} its HTTP caller never received was not given back: {}", what, ex);
    }
  }

  /** {@code timeout_ms}: 0 (the default: do not wait) up to the server's longest wait. */
  private Duration waitTimeout(JsonBody b) {
    long ms = b.longOr("timeout_ms", 0);
    long max = config.maxWait().toMillis();
    if (ms < 0 || ms > max) {
      throw ApiException.invalid(
          "timeout_ms",
          "must be 0 (do not wait) to "
              + max
              + " (a long poll waits at most --http-max-wait), was "
              + ms);
    }
    return Duration.ofMillis(ms);
  }

  /** {@code ttl_ms}: required, more than 0. */
  private static Duration ttl(JsonBody b) {
    long ms = b.requireLong("ttl_ms");
    if (ms <= 0 || ms > Long.MAX_VALUE / 1_000_000) {
      throw ApiException.invalid("ttl_ms", "must be > 0 and at most 2^63-1 ns in ms, was " + ms);
    }
    return Duration.ofMillis(ms);
  }

  private static long permitId(Exchange e) {
    String raw = e.param("permit_id");
    try {
      long id = Long.parseLong(raw);
      if (id > 0) {
        return id;
      }
    } catch (NumberFormatException ex) {
      // refused below
    }
    throw ApiException.invalid("permit_id", "must be a positive decimal integer, was " + raw);
  }

  private static String prefix(Exchange e) {
    String p = e.query("prefix");
    return p == null ? "" : p;
  }

  private static int intQuery(Exchange e, String name, int fallback, int min, int max) {
    String raw = e.query(name);
    if (raw == null) {
      return fallback;
    }
    try {
      int v = Integer.parseInt(raw);
      if (v >= min && v <= max) {
        return v;
      }
    } catch (NumberFormatException ex) {
      // refused below
    }
    throw ApiException.invalid(
        name, "must be an integer from " + min + " to " + max + ", was " + raw);
  }

  private static byte[] resource(String name) {
    try (InputStream in = ApiRoutes.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + name);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new IllegalStateException("unreadable resource " + name, e);
    }
  }

  /** Whether {@code raw} is a query flag that is on ({@code true}, {@code 1}, or empty). */
  static boolean flag(@Nullable String raw) {
    return raw != null && (raw.isEmpty() || raw.equals("true") || raw.equals("1"));
  }
}
