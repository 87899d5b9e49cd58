package io.semafor.server.http;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * A refused request as the API answers it: an HTTP status and the JSON body {@code {"code",
 * "argument", "message"}}, {@code code} being a stable error code of docs/semantics.md#errors.
 * Thrown by route handlers before they change anything, or built from another failure by the
 * server's failure mapping ({@link #of} here; the HTTP/JSON API's maps its client's errors too).
 */
public final class ApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String code;
  private final @Nullable String argument;

  /** An answer of {@code status} with this code, argument (null: none) and message. */
  public ApiException(int status, String code, @Nullable String argument, String message) {
    super(message, null, false, false); // an answer, not a failure: no stack trace to keep
    this.status = status;
    this.code = code;
    this.argument = argument;
  }

  /** 400 INVALID_ARGUMENT naming {@code argument}; the message starts with it. */
  public static ApiException invalid(String argument, String problem) {
    return new ApiException(400, "INVALID_ARGUMENT", argument, argument + ": " + problem);
  }

  /**
   * What a failure that is not a answer of its own is answered with: an {@link ApiException} as it
   * says, an {@link IllegalArgumentException} 400, a cancellation 503, anything else (a bug) a 500
   * that says no more than that, never a stack trace.
   */
  public static ApiException of(Throwable failure) {
    Throwable t = unwrap(failure);
    if (t instanceof ApiException api) {
      return api;
    }
    if (t instanceof IllegalArgumentException e) {
      String message = String.valueOf(e.getMessage());
      return new ApiException(400, "INVALID_ARGUMENT", null, message);
    }
    if (t instanceof CancellationException) {
      return new ApiException(503, "UNAVAILABLE", null, "the request was withdrawn");
    }
    return new ApiException(
        500, "INTERNAL", null, "the server failed to answer (its log says why): " + t);
  }

  /** The cause a future's failure wraps. */
  public static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** The HTTP status. */
  public int status() {
    return status;
  }

  /** The stable error code. */
  public String code() {
    return code;
  }

  /** The argument it names, or null. */
  public @Nullable String argument() {
    return argument;
  }
}
