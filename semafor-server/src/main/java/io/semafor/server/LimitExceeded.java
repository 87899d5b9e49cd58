package io.semafor.server;

/**
 * A connection went over one of its {@link ClientLimits}: fired down its pipeline so that {@link
 * Connection} closes it with a {@code Fatal} RESOURCE_EXHAUSTED carrying {@link #getMessage()},
 * which names the limit. Not a bug, so it carries no stack trace.
 */
final class LimitExceeded extends RuntimeException {
  private static final long serialVersionUID = 1L;

  LimitExceeded(String message) {
    super(message, null, false, false);
  }
}
