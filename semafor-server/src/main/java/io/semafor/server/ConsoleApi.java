package io.semafor.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.semafor.core.Name;
import io.semafor.core.Operation;
import io.semafor.server.http.Exchange;
import io.semafor.server.security.Access;
import io.semafor.server.security.Authorizer;
import io.semafor.server.security.Principal;
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
 * server's console lane (the stream on a thread of its own), answering through the {@link
 * Exchange}; thread-safe.
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

  /**
   * Answers one request under {@code /api/}; the caller has authenticated it as {@code who}, with
   * {@code token} (empty: none).
   */
  void handle(Exchange exchange, Principal who, String token) {
    String path = exchange.path();
    String method = exchange.method();
    try {
      String host = exchange.header("Host");
      if (!server.config().security().access().enforced() && !hostAllowed(host)) {
        error(
            exchange,
            403,
            "PERMISSION_DENIED",
            "Host: "
                + host
                + " is not this server's address; without an auth file the console answers only"
                + " requests addressed to an IP address, localhost or --host (docs/console.md)");
        return;
      }
      Map<String, String> q = parameters(exchange.rawQuery());
      switch (path) {
        case "/api/semaphores" -> {
          requireMethod(method, "GET");
          json(exchange, 200, views.page(who, prefix(q), after(q), limit(q)));
        }
        case "/api/semaphore" -> {
          Name name = name(q, "name");
          if (method.equals("DELETE")) {
            action(exchange, who, "delete " + name, new Operation.Delete(name));
          } else {
            requireMethod(method, "GET");
            json(exchange, 200, views.semaphore(who, name));
          }
        }
        case "/api/semaphore/value" -> {
          requireMethod(method, "POST");
          Name name = name(q, "name");
          long value = number(q, "value");
          action(exchange, who, "set " + name + " " + value, new Operation.SetValue(name, value));
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
              "release lease " + Long.toUnsignedString(permitId) + " of " + name,
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
          requireConsoleHeader(exchange);
          ConsoleStreams.Access access =
              new ConsoleStreams.Access() {
                @Override
                public @Nullable String revoked() {
                  Access now = server.config().security().access();
                  return now.stillAdmits(who, token, java.time.Instant.now())
                      ? null
                      : "token: revoked or expired";
                }

                @Override
                public @Nullable String nodeDenied() {
                  return ConsoleApi.this.nodeDenied(who);
                }
              };
          String busy = streams.open(exchange, who, view, access);
          if (busy != null) {
            error(exchange, 503, "BUSY", busy);
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
      Thread.currentThread().interrupt(); // closing
      error(exchange, 503, "UNAVAILABLE", "the server is closing");
    }
  }

  /**
   * Whether a request's {@code Host} names this server as only it can be named without DNS: an IP
   * address, localhost, or the host it was told to listen on. Without an auth file this is what
   * stops DNS rebinding: a page of another site whose name was made to resolve to 127.0.0.1 becomes
   * same-origin with the console and could send the console's header; its requests say its own
   * name.
   */
  private boolean hostAllowed(@Nullable String header) {
    if (header == null || header.isEmpty()) {
      return false;
    }
    String host = header;
    if (host.startsWith("[")) { // [v6]:port
      int end = host.indexOf(']');
      return end > 0; // an IPv6 literal
    }
    int colon = host.lastIndexOf(':');
    if (colon >= 0) {
      host = host.substring(0, colon);
    }
    String lower = host.toLowerCase(java.util.Locale.ROOT);
    return lower.equals("localhost")
        || lower.equals(server.config().host().toLowerCase(java.util.Locale.ROOT))
        || lower.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}");
  }

  private @Nullable String nodeDenied(Principal who) {
    Access access = server.config().security().access();
    return access.enforced()
        ? Authorizer.denyCluster(access, who, "see this node's replication and every session")
        : null;
  }

  /**
   * An action or a stream must carry {@code X-Semafor-Console: 1}: a page of another site can send
   * neither without a CORS preflight this server never grants (nor open streams with image tags).
   */
  private static void requireConsoleHeader(Exchange exchange) throws BadParameter {
    if (!"1".equals(exchange.header("X-Semafor-Console"))) {
      throw new BadParameter(
          "X-Semafor-Console: an action or a stream must carry this header with the value 1"
              + " (docs/console.md)");
    }
  }

  private void action(Exchange exchange, Principal who, String what, Operation op)
      throws InterruptedException, BadParameter {
    requireConsoleHeader(exchange);
    ConsoleActions.Outcome outcome =
        actions.run(who, String.valueOf(exchange.remoteAddress()), what, op);
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
      out.put(decode(key, key), decode(key, value));
    }
    return out;
  }

  /**
   * Percent-decodes {@code text} as UTF-8, refusing what is not (URLDecoder would put U+FFFD in
   * place of bytes that are not UTF-8, and a name would silently change).
   */
  private static String decode(String key, String text) throws BadParameter {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(text.length());
    for (int i = 0; i < text.length(); i++) {
      char ch = text.charAt(i);
      if (ch == '%') {
        if (i + 2 >= text.length()
            || Character.digit(text.charAt(i + 1), 16) < 0
            || Character.digit(text.charAt(i + 2), 16) < 0) {
          throw new BadParameter(key + ": not valid percent-encoding");
        }
        bytes.write(
            Character.digit(text.charAt(i + 1), 16) * 16 + Character.digit(text.charAt(i + 2), 16));
        i += 2;
      } else if (ch == '+') {
        bytes.write(' ');
      } else {
        byte[] raw = String.valueOf(ch).getBytes(StandardCharsets.UTF_8);
        bytes.write(raw, 0, raw.length);
      }
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
          .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
          .decode(java.nio.ByteBuffer.wrap(bytes.toByteArray()))
          .toString();
    } catch (java.nio.charset.CharacterCodingException e) {
      throw new BadParameter(key + ": not UTF-8 once percent-decoded");
    }
  }

  private Name name(Map<String, String> q, String key) throws BadParameter {
    String text = q.get(key);
    if (text == null || text.isEmpty()) {
      throw new BadParameter(key + ": a semaphore's name is needed");
    }
    return parseName(key, text);
  }

  private Name parseName(String key, String text) throws BadParameter {
    Name name = Name.of(text);
    int max = server.config().limits().maxNameBytes();
    if (!name.isValid(max)) {
      throw new BadParameter(
          key + ": a name is 1.." + max + " bytes of UTF-8, was " + name.toBytes().length);
    }
    return name;
  }

  private Name prefix(Map<String, String> q) throws BadParameter {
    String text = q.getOrDefault("prefix", "");
    return text.isEmpty() ? Name.of("") : parseName("prefix", text);
  }

  private @Nullable Name after(Map<String, String> q) throws BadParameter {
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

  private static void json(Exchange exchange, int status, Map<String, Object> body) {
    String text;
    try {
      text = JSON.writeValueAsString(body) + "\n";
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("cannot write " + body.keySet(), e);
    }
    exchange.respond(
        status,
        "application/json",
        text.getBytes(StandardCharsets.UTF_8),
        Map.of("Cache-Control", "no-store"));
  }

  static void error(Exchange exchange, int status, String code, String message) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("error", code);
    body.put("message", message);
    json(exchange, status, body);
  }
}
