package io.semafor.server.http;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Finds the route of a method and a path. Paths are split on {@code /} first, then each segment is
 * percent-decoded as UTF-8 (so {@code jobs%2Fprinters} is one name holding a slash, and {@code +}
 * stays a plus); a segment that does not decode is {@code INVALID_ARGUMENT} naming its parameter,
 * and so is an empty one ({@code PUT /v1/semaphores/}: a caller's empty name is a bad argument, as
 * on the binary protocol, not a path no route has). A prefix route ({@link Route}) takes any path
 * it starts; routes are tried in the order given, so a longer prefix goes before a shorter one.
 * Immutable, thread-safe.
 */
public final class Router {
  /** What a request matched. */
  sealed interface Match {}

  /** A route, with its decoded path parameters. */
  record Found(Route route, Map<String, String> params) implements Match {}

  /** A path no route has. */
  record NoPath() implements Match {}

  /** A path some route has, with other methods ({@code allowed}). */
  record WrongMethod(List<String> allowed) implements Match {}

  private final List<Route> routes;

  /** The routes' templates, split once here rather than on every request. */
  private final List<Compiled> compiled;

  /** A route with its template taken apart: a prefix route's prefix, or the path's segments. */
  private static final class Compiled {
    final Route route;
    final @Nullable String prefix;
    final String[] segments;

    Compiled(Route route) {
      this.route = route;
      String template = route.template();
      this.prefix = template.endsWith("*") ? template.substring(0, template.length() - 1) : null;
      this.segments = prefix != null ? new String[0] : split(template);
    }
  }

  /** Routes, tried in this order. */
  public Router(List<Route> routes) {
    this.routes = List.copyOf(routes);
    this.compiled = this.routes.stream().map(Compiled::new).toList();
  }

  /** Every route, in the order given. */
  public List<Route> routes() {
    return routes;
  }

  /**
   * The route of {@code method} and {@code rawPath} (the request target without its query).
   *
   * @throws ApiException if a path parameter is empty or not valid percent-encoded UTF-8
   */
  Match match(String method, String rawPath) {
    String[] segments = split(rawPath);
    TreeSet<String> allowed = new TreeSet<>();
    for (Compiled candidate : compiled) {
      Route route = candidate.route;
      String prefix = candidate.prefix;
      if (prefix != null) {
        if (!rawPath.startsWith(prefix)) {
          continue;
        }
        if (route.method().equals("*") || route.method().equals(method)) {
          return new Found(route, Map.of());
        }
        allowed.add(route.method());
        continue;
      }
      String[] template = candidate.segments;
      if (!shapeMatches(template, segments)) {
        continue;
      }
      if (!route.method().equals(method)) {
        allowed.add(route.method());
        continue;
      }
      Map<String, String> params = new LinkedHashMap<>();
      for (int i = 0; i < template.length; i++) {
        if (isParam(template[i])) {
          String name = template[i].substring(1, template[i].length() - 1);
          if (segments[i].isEmpty()) {
            throw ApiException.invalid(name, "must not be empty");
          }
          params.put(name, decode(name, segments[i]));
        }
      }
      return new Found(route, params);
    }
    return allowed.isEmpty() ? new NoPath() : new WrongMethod(new ArrayList<>(allowed));
  }

  private static boolean shapeMatches(String[] template, String[] segments) {
    if (template.length != segments.length) {
      return false;
    }
    for (int i = 0; i < template.length; i++) {
      if (!isParam(template[i]) && !template[i].equals(segments[i])) {
        return false;
      }
    }
    return true;
  }

  private static boolean isParam(String segment) {
    return segment.startsWith("{") && segment.endsWith("}");
  }

  private static String[] split(String path) {
    String p = path.startsWith("/") ? path.substring(1) : path;
    return p.split("/", -1);
  }

  /**
   * Percent-decodes one path segment as UTF-8, strictly.
   *
   * @throws ApiException naming {@code param} for a bad escape or bytes that are not UTF-8
   */
  static String decode(String param, String segment) {
    if (segment.indexOf('%') < 0) {
      return segment;
    }
    byte[] out = new byte[segment.length()];
    int n = 0;
    for (int i = 0; i < segment.length(); i++) {
      char c = segment.charAt(i);
      if (c != '%') {
        if (c > 0x7f) {
          throw ApiException.invalid(param, "not percent-encoded UTF-8: " + segment);
        }
        out[n++] = (byte) c;
        continue;
      }
      if (i + 2 >= segment.length()) {
        throw ApiException.invalid(param, "a % without two hex digits: " + segment);
      }
      int hi = Character.digit(segment.charAt(i + 1), 16);
      int lo = Character.digit(segment.charAt(i + 2), 16);
      if (hi < 0 || lo < 0) {
        throw ApiException.invalid(param, "a % without two hex digits: " + segment);
      }
      out[n++] = (byte) (hi << 4 | lo);
      i += 2;
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(out, 0, n))
          .toString();
    } catch (CharacterCodingException e) {
      throw ApiException.invalid(param, "percent-encoded bytes are not UTF-8: " + segment);
    }
  }
}
