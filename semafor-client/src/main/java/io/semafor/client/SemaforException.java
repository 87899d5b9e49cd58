package io.semafor.client;

import io.semafor.ErrorCode;
import org.jspecify.annotations.Nullable;

/**
 * An operation failed: {@link #code()} says how (docs/semantics.md#errors), the message names the
 * argument, limit or cause. A failed operation changed nothing on the server, except where the code
 * is {@link ErrorCode#UNAVAILABLE} and the message says the outcome is unknown.
 */
public final class SemaforException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final ErrorCode code;

  /**
   * An exception of {@code code}; its message is {@code "CODE: message"}.
   *
   * @param message what failed and why, naming the argument or limit (the server's message as is)
   */
  public SemaforException(ErrorCode code, String message) {
    super(code + ": " + message);
    this.code = code;
  }

  /**
   * An exception of {@code code} caused by {@code cause} (an I/O failure, an interrupt); its
   * message is {@code "CODE: message"}, the prefix added unless {@code message} already has it.
   */
  public SemaforException(ErrorCode code, String message, @Nullable Throwable cause) {
    super(message.startsWith(code + ": ") ? message : code + ": " + message, cause);
    this.code = code;
  }

  /** Why it failed. */
  public ErrorCode code() {
    return code;
  }
}
