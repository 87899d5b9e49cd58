package io.semafor.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.semafor.conformance.CaseRun;
import io.semafor.conformance.Op;
import io.semafor.conformance.Outcome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One actor of a conformance case played by an HTTP caller of the API (docs/http.md): java.net.http
 * with its own keep-alive connections and its own bearer token, so its requests are carried out by
 * a session of its own in the gateway. Each operation of the HTTP subset is one request; its answer
 * is mapped onto the kit's outcome (conformance/README.md §3–4): a 2xx body's fields (integers as
 * longs, ids as longs), or an error body's code and the argument its message names.
 */
final class HttpActor implements CaseRun.Actor {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The operations an HTTP caller has: everything but a session's own. {@code close} is the caller
   * going away: it has no session to end, so nothing on the server changes.
   */
  static final java.util.Set<Op> OPS =
      java.util.EnumSet.of(
          Op.CLOSE,
          Op.CREATE,
          Op.DELETE,
          Op.GET,
          Op.INSPECT,
          Op.SET,
          Op.INCREMENT,
          Op.DECREMENT,
          Op.LEASE,
          Op.RENEW,
          Op.RELEASE_LEASE,
          Op.SEMOP);

  private final HttpClient http;
  private final String base;
  private final String token;
  private final long maxWaitMs;

  /** Whether this caller went away ({@link #goAway}); the runner's thread only. */
  private boolean gone;

  /**
   * The caller goes away ({@code close}, {@code kill}): an HTTP caller holds no session, so this
   * changes nothing on the server (its leases stay until released or ended by their TTL); it only
   * makes no further request. What a session's end would give back is in the steps marked {@code
   * needs_session}, which this runner leaves out.
   */
  void goAway() {
    gone = true;
  }

  /**
   * @param base the API's base URL ({@code http://127.0.0.1:PORT})
   * @param token this actor's bearer token: its own session in the gateway
   * @param maxWaitMs the server's {@code --http-max-wait}: what {@code timeout_ms} -1 becomes
   */
  HttpActor(String base, String token, long maxWaitMs) {
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    this.base = base;
    this.token = token;
    this.maxWaitMs = maxWaitMs;
  }

  /**
   * Starts {@code op} over HTTP; an HTTP request is not withdrawn, so its {@code cancel} says it
   * was not (the cases that cancel are skipped: they need a session).
   */
  @Override
  public CaseRun.Started start(
      Op op, JsonNode args, java.util.function.Function<String, CaseRun.Started> handles) {
    return new CaseRun.Started(start(op, args), () -> false);
  }

  /**
   * Sends {@code op}'s request and returns its outcome to come; a started long poll is this future.
   *
   * @throws IllegalArgumentException for an operation the HTTP API does not have (the runner skips
   *     such cases before they start)
   */
  CompletableFuture<Outcome> start(Op op, JsonNode args) {
    if (gone) {
      throw new IllegalStateException("this caller went away (close, kill): it cannot act");
    }
    String name = args.path("name").asText();
    return switch (op) {
      case CLOSE -> {
        goAway();
        yield CompletableFuture.completedFuture(new Outcome.Result(Map.of()));
      }
      case CREATE ->
          send(
              "PUT",
              sem(name),
              body(args, "initial", "capacity", "policy", "max_per_session"),
              0,
              a -> fields("created", a.get("created")));
      case DELETE -> send("DELETE", sem(name), null, 0, a -> Map.of());
      case GET -> send("GET", sem(name), null, 0, HttpActor::summary);
      case INSPECT -> send("GET", sem(name) + "/inspect", null, 0, HttpActor::detail);
      case SET ->
          send(
              "PUT",
              sem(name) + "/value",
              body(args, "value"),
              0,
              a -> fields("previous", a.get("previous")));
      case INCREMENT ->
          send(
              "POST",
              sem(name) + "/increment",
              body(args, "amount"),
              0,
              a -> fields("value", a.get("value")));
      case DECREMENT ->
          send(
              "POST",
              sem(name) + "/decrement",
              waiting(body(args, "amount"), args),
              wait(args),
              a -> fields("amount", a.get("amount")));
      case LEASE ->
          send(
              "POST",
              sem(name) + "/leases",
              waiting(body(args, "amount", "ttl_ms"), args),
              wait(args),
              HttpActor::lease);
      case RENEW ->
          send(
              "PUT",
              "/v1/leases/" + args.get("permit_id").asLong(),
              body(args, "name", "ttl_ms"),
              0,
              a -> Map.of());
      case RELEASE_LEASE ->
          send(
              "DELETE",
              "/v1/leases/"
                  + args.get("permit_id").asLong()
                  + (args.has("name") ? "?name=" + encode(args.get("name").asText()) : ""),
              null,
              0,
              a -> fields("released", a.get("released")));
      case SEMOP -> send("POST", "/v1/semop", semop(args), wait(args), HttpActor::semopResult);
      default -> throw new IllegalArgumentException("the HTTP API has no " + op.wireName());
    };
  }

  private static String sem(String name) {
    return "/v1/semaphores/" + encode(name);
  }

  /** A name percent-encoded for a path segment (a space is %20 there, not +). */
  private static String encode(String name) {
    return URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static ObjectNode body(JsonNode args, String... names) {
    ObjectNode body = JSON.createObjectNode();
    for (String n : names) {
      if (args.has(n)) {
        body.set(n, args.get(n));
      }
    }
    return body;
  }

  /** {@code timeout_ms} as the API takes it: -1 (as long as it takes) is its longest wait. */
  private ObjectNode waiting(ObjectNode body, JsonNode args) {
    return body.put("timeout_ms", wait(args));
  }

  private long wait(JsonNode args) {
    long ms = args.path("timeout_ms").asLong(0);
    return ms == -1 ? maxWaitMs : ms;
  }

  private ObjectNode semop(JsonNode args) {
    ObjectNode body = JSON.createObjectNode();
    ArrayNode ops = body.putArray("ops");
    for (JsonNode op : args.get("ops")) {
      if (op.path("owned").asBoolean(false)) {
        throw new IllegalArgumentException("an owned semop op needs a session");
      }
      ops.add(body(op, "name", "delta", "no_wait"));
    }
    return waiting(body, args);
  }

  private CompletableFuture<Outcome> send(
      String method,
      String path,
      @Nullable JsonNode body,
      long waitMs,
      Function<JsonNode, Map<String, Object>> result) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofMillis(waitMs + 30_000))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body.toString()))
            .header("Authorization", "Bearer " + token);
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    return http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString())
        .thenApply(r -> outcome(r, result));
  }

  private static Outcome outcome(
      HttpResponse<String> r, Function<JsonNode, Map<String, Object>> result) {
    JsonNode answer;
    try {
      answer = r.body().isEmpty() ? JSON.nullNode() : JSON.readTree(r.body());
    } catch (IOException e) {
      throw new UncheckedIOException("not JSON: " + r.statusCode() + " " + r.body(), e);
    }
    if (r.statusCode() / 100 == 2) {
      return new Outcome.Result(result.apply(answer));
    }
    if (!answer.hasNonNull("code")) {
      throw new AssertionError("an error without a code: " + r.statusCode() + " " + r.body());
    }
    return Outcome.Failure.of(answer.get("code").asText(), answer.path("message").asText());
  }

  private static Map<String, Object> summary(JsonNode s) {
    return fields(
        "value",
        s.get("value"),
        "waiters",
        s.get("waiters"),
        "holders",
        s.get("holders"),
        "leases",
        s.get("leases"),
        "owned",
        s.get("owned"),
        "leased",
        s.get("leased"),
        "undelivered",
        s.get("undelivered"));
  }

  /**
   * The inspect view in the kit's terms. An HTTP caller has no session id of its own to recognise,
   * so every session is named {@code "session:ID"}; a lease is delivered when it no longer belongs
   * to a session (the wire's rule, as the Java runner reads it).
   */
  private static Map<String, Object> detail(JsonNode d) {
    List<Object> queue = new ArrayList<>();
    for (JsonNode w : d.get("queue")) {
      queue.add(
          fields("actor", "session:" + w.get("session_id").asText(), "amount", w.get("amount")));
    }
    List<Object> holders = new ArrayList<>();
    for (JsonNode h : d.get("holders")) {
      holders.add(
          fields(
              "actor",
              "session:" + h.get("session_id").asText(),
              "owned",
              h.get("owned"),
              "slots",
              h.get("slots")));
    }
    List<Object> leases = new ArrayList<>();
    for (JsonNode l : d.get("leases")) {
      leases.add(
          fields(
              "permit_id",
              Long.parseLong(l.get("permit_id").asText()),
              "amount",
              l.get("amount"),
              "slots",
              l.get("slots"),
              "delivered",
              l.get("session_id").asText().equals("0")));
    }
    return fields(
        "value",
        d.get("status").get("value"),
        "queue",
        queue,
        "holders",
        holders,
        "leases",
        leases);
  }

  private static Map<String, Object> lease(JsonNode a) {
    if (!a.get("granted").asBoolean()) {
      return fields("granted", false);
    }
    return fields(
        "granted",
        true,
        "permit_id",
        Long.parseLong(a.get("permit_id").asText()),
        "slots",
        a.get("slots"),
        "token",
        a.get("token"));
  }

  private static Map<String, Object> semopResult(JsonNode a) {
    return a.get("done").asBoolean()
        ? fields("done", true, "token", a.get("token"))
        : fields("done", false);
  }

  /** Key-value pairs as a result's fields, JSON values made the kit's (integers as longs). */
  private static Map<String, Object> fields(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      Object value = kv[i + 1] instanceof JsonNode n ? plain(n) : kv[i + 1];
      if (value != null) {
        m.put((String) kv[i], value);
      }
    }
    return m;
  }

  private static @Nullable Object plain(JsonNode n) {
    if (n.isIntegralNumber()) {
      return n.asLong();
    }
    if (n.isBoolean()) {
      return n.asBoolean();
    }
    if (n.isTextual()) {
      return n.asText();
    }
    if (n.isArray()) {
      List<Object> list = new ArrayList<>();
      n.forEach(e -> list.add(plain(e)));
      return list;
    }
    if (n.isObject()) {
      Map<String, Object> map = new LinkedHashMap<>();
      n.properties().forEach(e -> map.put(e.getKey(), plain(e.getValue())));
      return map;
    }
    return null;
  }
}
