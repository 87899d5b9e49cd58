package io.semafor.cli;

/** The command's exit statuses, stable for scripts. */
final class ExitCodes {
  /** The operation succeeded. */
  static final int OK = 0;

  /** The operation failed; the message names the error code (docs/semantics.md#errors). */
  static final int FAILED = 1;

  /** The command line was wrong. */
  static final int USAGE = 2;

  /** No server could be reached. */
  static final int UNREACHABLE = 3;

  /**
   * {@code run}: the session was lost, or the server went silent for half the session TTL, while
   * the command ran; the command was stopped (SIGTERM, then SIGKILL) before its permits could be
   * given to anyone else.
   */
  static final int LOST = 4;

  /** {@code run}: the command could not be executed (as shells answer). */
  static final int CANNOT_EXECUTE = 126;

  /** {@code run}: the command was not found (as shells answer). */
  static final int NOT_FOUND = 127;

  /** The operation timed out (BSD {@code EX_TEMPFAIL}; {@code flock -w -E 75} gives the same). */
  static final int TIMED_OUT = 75;

  /**
   * {@code server}: this node's data on disk is damaged (a snapshot that fails its digest), so it
   * will not start from it; starting it again will not help (BSD {@code EX_DATAERR}; give it to
   * systemd's {@code RestartPreventExitStatus}). docs/operations.md says what to do.
   */
  static final int DATA_DAMAGED = 65;

  private ExitCodes() {}
}
