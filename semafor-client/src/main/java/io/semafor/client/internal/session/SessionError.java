package io.semafor.client.internal.session;

import io.semafor.ErrorCode;

/**
 * Why a request, a read, a watch or the session failed: an error as a value, made an exception by
 * the code that hands it to a caller.
 *
 * @param code the stable code
 * @param message the server's message as sent, or the client's
 * @param outcomeKnown false when a request may or may not have been applied (its connection or
 *     session went away while it was in flight)
 * @param leader for {@code NOT_LEADER}, the leader's {@code host:port} when known; else empty
 */
public record SessionError(ErrorCode code, String message, boolean outcomeKnown, String leader) {

  static SessionError of(ErrorCode code, String message, boolean outcomeKnown) {
    return new SessionError(code, message, outcomeKnown, "");
  }

  /** An error from the wire's code number (a number this client does not know: UNAVAILABLE). */
  static SessionError ofWire(int number, String message, boolean outcomeKnown, String leader) {
    return new SessionError(
        ErrorCode.ofNumber(number, ErrorCode.UNAVAILABLE), message, outcomeKnown, leader);
  }
}
