package io.semafor;

/**
 * The stable error codes of docs/semantics.md#errors: what the state machine answers and what a
 * client's exception carries. The numbers are part of the wire contract and never change; new codes
 * get new numbers.
 */
public enum ErrorCode {
  /** The named semaphore, session, lease or entry does not exist. */
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
  /** The session does not exist: it expired, or was closed. */
  SESSION_EXPIRED(7),
  /** This node is not the leader; the message carries the leader's address when known. */
  NOT_LEADER(8),
  /** The caller may not do this. */
  PERMISSION_DENIED(9),
  /** The caller did not prove who it is. */
  UNAUTHENTICATED(10),
  /** A limit was reached; the message names the limit. */
  RESOURCE_EXHAUSTED(11),
  /**
   * The service cannot answer now (no server answered, or none could decide); the message says
   * whether the outcome is known.
   */
  UNAVAILABLE(12);

  private static final ErrorCode[] BY_NUMBER = new ErrorCode[13];

  static {
    for (ErrorCode code : values()) {
      BY_NUMBER[code.number] = code;
    }
  }

  private final int number;

  ErrorCode(int number) {
    this.number = number;
  }

  /** The stable number of this code on the wire and in snapshots. */
  public int number() {
    return number;
  }

  /**
   * The code with this number.
   *
   * @throws IllegalArgumentException if no code has that number
   */
  public static ErrorCode ofNumber(int number) {
    ErrorCode code = number > 0 && number < BY_NUMBER.length ? BY_NUMBER[number] : null;
    if (code == null) {
      throw new IllegalArgumentException("no error code numbered " + number);
    }
    return code;
  }

  /**
   * The code with this number, or {@code otherwise} if none has it: what a client does with a code
   * from a newer server than it knows.
   */
  public static ErrorCode ofNumber(int number, ErrorCode otherwise) {
    ErrorCode code = number > 0 && number < BY_NUMBER.length ? BY_NUMBER[number] : null;
    return code == null ? otherwise : code;
  }
}
