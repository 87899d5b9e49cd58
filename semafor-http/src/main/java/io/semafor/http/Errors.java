package io.semafor.http;

import io.semafor.ErrorCode;
import io.semafor.client.SemaforException;
import io.semafor.server.http.ApiException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The HTTP status of each stable error code, and the JSON name of the argument a server's message
 * names ({@code leaseTtl: ...} is the API's {@code ttl_ms}). Stateless.
 */
final class Errors {
  private Errors() {}

  /** The status an error code is answered with (docs/http.md, "Errors"). */
  static int status(ErrorCode code) {
    return switch (code) {
      case INVALID_ARGUMENT -> 400;
      case UNAUTHENTICATED -> 401;
      case PERMISSION_DENIED -> 403;
      case NOT_FOUND -> 404;
      case OVERFLOW, WOULD_BLOCK, ALREADY_HELD -> 409;
      case DELETED -> 410;
      case RESOURCE_EXHAUSTED -> 429;
      case SESSION_EXPIRED, NOT_LEADER, UNAVAILABLE -> 503;
    };
  }

  private static final Pattern ARGUMENT =
      Pattern.compile("^([A-Za-z][A-Za-z0-9_]*(\\[\\d+])?(\\.[A-Za-z]+)?):");

  /** The API's name of the argument a server's message starts with, or null if it names none. */
  static @Nullable String argument(String message) {
    Matcher m = ARGUMENT.matcher(message);
    if (!m.find()) {
      return null;
    }
    String wire = m.group(1);
    int dot = wire.lastIndexOf('.');
    String head = dot < 0 ? wire : wire.substring(0, dot + 1);
    String field = dot < 0 ? wire : wire.substring(dot + 1);
    return (dot < 0 ? "" : head) + jsonName(field);
  }

  private static String jsonName(String wire) {
    return switch (wire) {
      case "timeout" -> "timeout_ms";
      case "leaseTtl", "ttl" -> "ttl_ms";
      case "permitId" -> "permit_id";
      case "maxPerSession" -> "max_per_session";
      case "noWait" -> "no_wait";
      default -> wire;
    };
  }

  /**
   * What a failed call is answered with: a {@link SemaforException}'s code and message; anything
   * else as {@link ApiException#of} says (a bug: a 500 that says no more than that, never a stack
   * trace).
   */
  static ApiException of(Throwable failure) {
    Throwable t = unwrap(failure);
    if (t instanceof SemaforException e) {
      String message = message(e);
      return new ApiException(status(e.code()), e.code().name(), argument(message), message);
    }
    if (t instanceof IllegalArgumentException e) {
      String message = String.valueOf(e.getMessage());
      return new ApiException(400, "INVALID_ARGUMENT", argument(message), message);
    }
    return ApiException.of(t);
  }

  /** A {@link SemaforException}'s message without the code it starts with. */
  static String message(SemaforException e) {
    String message = String.valueOf(e.getMessage());
    String prefix = e.code().name() + ": ";
    return message.startsWith(prefix) ? message.substring(prefix.length()) : message;
  }

  /** The cause a future's failure wraps. */
  static Throwable unwrap(Throwable failure) {
    return ApiException.unwrap(failure);
  }
}
