package io.semafor.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.semafor.core.Name;
import io.semafor.core.Query;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.replication.Replicator;
import io.semafor.server.http.Exchange;
import io.semafor.server.security.Audit;
import io.semafor.server.security.AuthFile;
import io.semafor.server.security.Principal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin port's own routes ({@link AdminServer} says which lane runs each): metrics, health,
 * this node's replication, its sessions, membership changes and {@code auth reload}. Scrapes read
 * the semaphores' state through the replicator like any client read, so they never touch the state
 * machine from the wrong thread. Errors are {@code {"error": CODE, "message": ...}}. Thread-safe.
 */
final class AdminRoutes {
  private static final Logger log = LoggerFactory.getLogger(AdminRoutes.class);

  private static final long READ_TIMEOUT_SECONDS = 5;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final ServerMetrics metrics;
  private final Function<Query, CompletableFuture<Reply>> read;
  private final SemaforServer server;

  AdminRoutes(
      ServerMetrics metrics, Function<Query, CompletableFuture<Reply>> read, SemaforServer server) {
    this.metrics = metrics;
    this.read = read;
    this.server = server;
  }

  /** {@code POST /auth/reload}: reads the auth file again (docs/security.md#reloading). */
  void reloadAuth(Exchange exchange, Principal who, String token) {
    if (!exchange.method().equals("POST")) {
      error(exchange, 405, "METHOD_NOT_ALLOWED", "POST /auth/reload");
      return;
    }
    String address = String.valueOf(exchange.remoteAddress());
    try {
      String summary = server.reloadAuth();
      Audit.record("auth reload", who, address, "ok: " + summary);
      json(exchange, 200, Map.of("reloaded", summary));
    } catch (AuthFile.Invalid e) {
      String message = String.valueOf(e.getMessage());
      Audit.record("auth reload", who, address, "INVALID_ARGUMENT: " + message);
      error(exchange, 400, "INVALID_ARGUMENT", message + " (the rules in force are unchanged)");
    } catch (IllegalStateException e) {
      error(exchange, 409, "FAILED_PRECONDITION", String.valueOf(e.getMessage()));
    }
  }

  /** {@code GET /metrics}: the Prometheus text format. */
  void metrics(Exchange exchange) {
    synchronized (metrics) { // one lane thread; the lock only says the gauges' refresh is ours
      if (!exchange.method().equals("GET")) {
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
  void sessions(Exchange exchange) {
    if (!exchange.method().equals("GET")) {
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
      Thread.currentThread().interrupt(); // closing
      respond(exchange, 503, "application/json", "{\"error\":\"UNAVAILABLE\"}\n");
      return;
    }
    json(exchange, 200, Map.of("sessions", sessions));
  }

  /** {@code /health}: 200 while serving, 503 once stopping; reads volatile counters only. */
  void health(Exchange exchange) {
    boolean up = !server.isClosed();
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("status", up ? "UP" : "DOWN");
    status.put("role", server.isLeader() ? "leader" : "follower");
    status.put("sessions", server.sessionCount());
    status.put("connections", server.connectionCount());
    json(exchange, up ? 200 : 503, status);
  }

  /**
   * This node's view of its replication: role, leader, term, commit and applied index, and on a
   * leader where each follower stands.
   */
  void cluster(Exchange exchange) {
    json(exchange, 200, server.replicationStatus());
  }

  /**
   * Membership changes: {@code POST /cluster/members} adds the member in the body, {@code DELETE
   * /cluster/members/ID} removes one. 200 with the members after the change; 400 for a bad
   * argument, 409 on a single node, 503 if the cluster refused the change, 504 ({@code
   * OUTCOME_UNKNOWN}) if it was not committed in time and may still be.
   */
  void members(Exchange exchange, Principal who, String token) {
    String method = exchange.method();
    String path = exchange.path();
    String rest = path.substring(Math.min(path.length(), "/cluster/members".length()));
    List<String> members;
    try {
      if (method.equals("POST") && (rest.isEmpty() || rest.equals("/"))) {
        byte[] sent = exchange.bodyBytes();
        String body =
            new String(Arrays.copyOf(sent, Math.min(sent.length, 4096)), StandardCharsets.UTF_8)
                .trim();
        members = audited(exchange, who, "add member " + body, () -> server.addMember(body));
      } else if (method.equals("DELETE") && rest.startsWith("/") && rest.length() > 1) {
        String id = rest.substring(1);
        members = audited(exchange, who, "remove member " + id, () -> server.removeMember(id));
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
    json(exchange, 200, Map.of("members", String.join(",", members)));
  }

  /** Runs a membership change, writing it and its outcome to the audit log. */
  private static List<String> audited(
      Exchange exchange,
      Principal who,
      String action,
      java.util.function.Supplier<List<String>> change) {
    String address = String.valueOf(exchange.remoteAddress());
    try {
      List<String> members = change.get();
      Audit.record(action, who, address, "ok: " + String.join(",", members));
      return members;
    } catch (RuntimeException e) {
      Audit.record(action, who, address, "failed: " + e.getMessage());
      throw e;
    }
  }

  /** Answers {@code {"error": code, "message": message}}. */
  static void error(Exchange exchange, int status, String code, String message) {
    error(exchange, status, code, message, Map.of());
  }

  /** Answers {@code {"error": code, "message": message}} with {@code headers} besides. */
  static void error(
      Exchange exchange, int status, String code, String message, Map<String, String> headers) {
    Map<String, String> body = new LinkedHashMap<>();
    body.put("error", code);
    body.put("message", message);
    exchange.respond(
        status, "application/json", (write(body) + "\n").getBytes(StandardCharsets.UTF_8), headers);
  }

  private static void json(Exchange exchange, int status, Object body) {
    respond(exchange, status, "application/json", write(body) + "\n");
  }

  private static String write(Object body) {
    try {
      return JSON.writeValueAsString(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write " + body.getClass(), e);
    }
  }

  private static void respond(Exchange exchange, int status, String type, String body) {
    exchange.respond(status, type, body.getBytes(StandardCharsets.UTF_8), Map.of());
  }
}
