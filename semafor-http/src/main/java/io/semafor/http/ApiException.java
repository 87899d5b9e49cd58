package io.semafor.http;

import org.jspecify.annotations.Nullable;

/**
 * A refused request as the API answers it: an HTTP status and the JSON body {@code {"code",
 * "argument", "message"}}, {@code code} being a stable error code of docs/semantics.md#errors.
 * Thrown by route handlers before they change anything, or built from a {@link
 * io.semafor.client.SemaforException} by {@link Errors}.
 */
final class ApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String code;
  private final @Nullable String argument;

  ApiException(int status, String code, @Nullable String argument, String message) {
    super(message, null, false, false); // an answer, not a failure: no stack trace to keep
    this.status = status;
    this.code = code;
    this.argument = argument;
  }

  /** 400 INVALID_ARGUMENT naming {@code argument}; the message starts with it. */
  static ApiException invalid(String argument, String problem) {
    return new ApiException(400, "INVALID_ARGUMENT", argument, argument + ": " + problem);
  }

  int status() {
    return status;
  }

  String code() {
    return code;
  }

  @Nullable String argument() {
    return argument;
  }
}
