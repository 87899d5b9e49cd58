package io.semafor.cli;

/** The command's exit statuses, stable for scripts. */
final class ExitCodes {
  /** The operation succeeded. */
  static final int OK = 0;

  /** The operation failed; the message names the SPEC error code. */
  static final int FAILED = 1;

  /** The command line was wrong. */
  static final int USAGE = 2;

  /** No server could be reached. */
  static final int UNREACHABLE = 3;

  /** The operation timed out (BSD {@code EX_TEMPFAIL}, as {@code flock -w} scripts expect). */
  static final int TIMED_OUT = 75;

  private ExitCodes() {}
}
