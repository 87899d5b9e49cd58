package io.semafor.client;

/**
 * The stable error codes of docs/semantics.md#errors, as a {@link SemaforException} carries them.
 * The numbers are the wire's and never change.
 */
public enum ErrorCode {
  /** The semaphore, lease or entry does not exist. */
  NOT_FOUND(1),
  /** An argument is malformed or out of range; the message names it. */
  INVALID_ARGUMENT(2),
  /** The change would take a value past its capacity or past 2^63-1. */
  OVERFLOW(3),
  /** A {@code NOWAIT} operation would have had to wait. */
  WOULD_BLOCK(4),
  /** The semaphore was deleted while the request waited on it. */
  DELETED(5),
  /** The session already holds what {@code maxPerSession} allows. */
  ALREADY_HELD(6),
  /** The session ended (closed, or expired while the client was away). */
  SESSION_EXPIRED(7),
  /** The node is not the leader. */
  NOT_LEADER(8),
  /** The caller may not do this. */
  PERMISSION_DENIED(9),
  /** The caller did not prove who it is. */
  UNAUTHENTICATED(10),
  /** A limit was reached; the message names it. */
  RESOURCE_EXHAUSTED(11),
  /** No server answered; the message says whether the outcome is known. */
  UNAVAILABLE(12);

  private final int number;

  ErrorCode(int number) {
    this.number = number;
  }

  /** The stable number on the wire. */
  public int number() {
    return number;
  }

  /** The code for a wire number; UNAVAILABLE for a number this client does not know. */
  public static ErrorCode ofNumber(int number) {
    for (ErrorCode code : values()) {
      if (code.number == number) {
        return code;
      }
    }
    return UNAVAILABLE;
  }
}
