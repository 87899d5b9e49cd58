package io.semafor.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import io.semafor.core.Name;
import io.semafor.core.Operation;
import io.semafor.server.security.Access;
import io.semafor.server.security.Authorizer;
import io.semafor.server.security.Principal;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The console's JSON API under {@code /api/} (docs/console.md): the views, the live stream and the
 * actions. Names travel as query parameters ({@code ?name=}, percent-encoded UTF-8), since a name
 * may hold any character a path cannot. A bad parameter is 400 {@code INVALID_ARGUMENT} naming it,
 * and changes nothing. An action must carry the header {@code X-Semafor-Console: 1}, which no page
 * of another site can send here without a CORS preflight this server never grants: a browser open
 * on a server without authentication cannot be made to change it by another site. Runs on the admin
 * server's console lane (the stream on a thread of its own); thread-safe.
 */
final class ConsoleApi {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Semaphores per page when the page does not say. */
  static final int DEFAULT_PAGE = 100;

  /** A bad request parameter: 400 INVALID_ARGUMENT with this message, which names it. */
  static final class BadParameter extends Exception {
    private static final long serialVersionUID = 1L;

    BadParameter(String message) {
      super(message);
    }
  }

  private final ConsoleViews views;
  private final ConsoleActions actions;
  private final ConsoleStreams streams;
  private final SemaforServer server;

  ConsoleApi(
      ConsoleViews views, ConsoleActions actions, ConsoleStreams streams, SemaforServer server) {
    this.views = views;
    this.actions = actions;
    this.streams = streams;
    this.server = server;
  }

  /** Answers one request under {@code /api/}; the caller has authenticated it. */
  void handle(HttpExchange exchange, Principal who) throws IOException {
    String path = exchange.getRequestURI().getPath();
    String method = exchange.getRequestMethod();
    boolean streaming = false;
    try {
      Map<String, String> q = parameters(exchange.getRequestURI().getRawQuery());
      switch (path) {
        case "/api/semaphores" -> {
          requireMethod(method, "GET");
          json(exchange, 200, views.page(who, prefix(q), after(q), limit(q)));
        }
        case "/api/semaphore" -> {
          Name name = name(q, "name");
          if (method.equals("DELETE")) {
            action(exchange, who, "delete " + ConsoleViews.text(name), new Operation.Delete(name));
          } else {
            requireMethod(method, "GET");
            json(exchange, 200, views.semaphore(who, name));
          }
        }
        case "/api/semaphore/value" -> {
          requireMethod(method, "POST");
          Name name = name(q, "name");
          long value = number(q, "value");
          action(
              exchange,
              who,
              "set " + ConsoleViews.text(name) + " " + value,
              new Operation.SetValue(name, value));
        }
        case "/api/lease/release" -> {
          requireMethod(method, "POST");
          Name name = name(q, "name");
          String permit = q.get("permit");
          long permitId;
          try {
            permitId = Long.parseUnsignedLong(permit == null ? "" : permit);
          } catch (NumberFormatException e) {
            throw new BadParameter("permit: a lease's permit id (a number), was " + quoted(permit));
          }
          action(
              exchange,
              who,
              "release lease " + Long.toUnsignedString(permitId) + " of " + ConsoleViews.text(name),
              new Operation.ReleaseLease(permitId, name));
        }
        case "/api/sessions" -> {
          requireMethod(method, "GET");
          json(exchange, 200, views.sessions(who));
        }
        case "/api/node" -> {
          requireMethod(method, "GET");
          String denied = nodeDenied(who);
          if (denied != null) {
            error(exchange, 403, "PERMISSION_DENIED", denied);
          } else {
            json(exchange, 200, views.node());
          }
        }
        case "/api/stream" -> {
          requireMethod(method, "GET");
          ConsoleStreams.View view =
              new ConsoleStreams.View(
                  prefix(q), after(q), limit(q), q.containsKey("name") ? name(q, "name") : null);
          streaming = streams.open(exchange, who, view, nodeDenied(who));
          if (!streaming) {
            error(
                exchange,
                503,
                "BUSY",
                ConsoleStreams.MAX_STREAMS + " console pages are open on this node; close one");
          }
        }
        default -> error(exchange, 404, "NOT_FOUND", "no such console API: " + path);
      }
    } catch (BadParameter e) {
      error(exchange, 400, "INVALID_ARGUMENT", String.valueOf(e.getMessage()));
    } catch (MethodNotAllowed e) {
      error(exchange, 405, "METHOD_NOT_ALLOWED", String.valueOf(e.getMessage()));
    } catch (ConsoleViews.Denied e) {
      error(exchange, 403, "PERMISSION_DENIED", String.valueOf(e.getMessage()));
    } catch (ConsoleViews.Unavailable e) {
      error(exchange, 503, "UNAVAILABLE", String.valueOf(e.getMessage()));
    } catch (ConsoleViews.NotLeader e) {
      error(exchange, 421, "NOT_LEADER", String.valueOf(e.getMessage()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (!streaming) {
        exchange.close();
      }
    }
  }

  private @Nullable String nodeDenied(Principal who) {
    Access access = server.config().security().access();
    return access.enforced()
        ? Authorizer.denyCluster(access, who, "see this node's replication and every session")
        : null;
  }

  private void action(HttpExchange exchange, Principal who, String what, Operation op)
      throws IOException, InterruptedException, BadParameter {
    if (!"1".equals(exchange.getRequestHeaders().getFirst("X-Semafor-Console"))) {
      throw new BadParameter(
          "X-Semafor-Console: an action must carry this header with the value 1 (docs/console.md)");
    }
    ConsoleActions.Outcome outcome =
        actions.run(who, String.valueOf(exchange.getRemoteAddress()), what, op);
    if (outcome.status() == 200) {
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("done", what);
      body.put("message", outcome.message());
      json(exchange, 200, body);
    } else {
      error(exchange, outcome.status(), outcome.code(), outcome.message());
    }
  }

  /** The method is not the one a path takes: 405. */
  private static final class MethodNotAllowed extends Exception {
    private static final long serialVersionUID = 1L;

    MethodNotAllowed(String message) {
      super(message);
    }
  }

  private static void requireMethod(String method, String wanted) throws MethodNotAllowed {
    if (!method.equals(wanted)) {
      throw new MethodNotAllowed(wanted + " only, was " + method);
    }
  }

  static Map<String, String> parameters(@Nullable String rawQuery) throws BadParameter {
    Map<String, String> out = new HashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return out;
    }
    for (String pair : rawQuery.split("&", -1)) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      try {
        out.put(
            URLDecoder.decode(key, StandardCharsets.UTF_8),
            URLDecoder.decode(value, StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        throw new BadParameter(key + ": not valid percent-encoding (" + e.getMessage() + ")");
      }
    }
    return out;
  }

  private static Name name(Map<String, String> q, String key) throws BadParameter {
    String text = q.get(key);
    if (text == null || text.isEmpty()) {
      throw new BadParameter(key + ": a semaphore's name is needed");
    }
    return parseName(key, text);
  }

  private static Name parseName(String key, String text) throws BadParameter {
    try {
      return Name.of(text);
    } catch (IllegalArgumentException e) {
      throw new BadParameter(key + ": " + e.getMessage());
    }
  }

  private static Name prefix(Map<String, String> q) throws BadParameter {
    String text = q.getOrDefault("prefix", "");
    return text.isEmpty() ? Name.of("") : parseName("prefix", text);
  }

  private static @Nullable Name after(Map<String, String> q) throws BadParameter {
    String text = q.get("after");
    return text == null || text.isEmpty() ? null : parseName("after", text);
  }

  private static int limit(Map<String, String> q) throws BadParameter {
    String text = q.get("limit");
    if (text == null || text.isEmpty()) {
      return DEFAULT_PAGE;
    }
    try {
      int limit = Integer.parseInt(text);
      if (limit >= 1 && limit <= ConsoleViews.MAX_PAGE) {
        return limit;
      }
    } catch (NumberFormatException e) {
      // said below
    }
    throw new BadParameter(
        "limit: semaphores per page, 1.." + ConsoleViews.MAX_PAGE + ", was " + quoted(text));
  }

  private static long number(Map<String, String> q, String key) throws BadParameter {
    String text = q.get(key);
    try {
      return Long.parseLong(text == null ? "" : text.strip());
    } catch (NumberFormatException e) {
      throw new BadParameter(key + ": a whole number is needed, was " + quoted(text));
    }
  }

  private static String quoted(@Nullable String text) {
    return text == null ? "nothing" : "\"" + text + "\"";
  }

  private static void json(HttpExchange exchange, int status, Map<String, Object> body)
      throws IOException {
    respond(exchange, status, JSON.writeValueAsString(body) + "\n");
  }

  static void error(HttpExchange exchange, int status, String code, String message)
      throws IOException {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("error", code);
    body.put("message", message);
    json(exchange, status, body);
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
