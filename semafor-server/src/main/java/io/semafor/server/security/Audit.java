package io.semafor.server.security;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit log (docs/security.md#audit): every change to a semaphore's existence or value, every
 * cluster action, every reload of the rules and every refused credential or permission, with the
 * principal, the remote address and the outcome. Its own logger, {@code semafor.audit}, so that an
 * operator can route it to its own file. Never logs a token or a session secret. Thread-safe.
 */
public final class Audit {
  private static final Logger log = LoggerFactory.getLogger("semafor.audit");

  private Audit() {}

  /**
   * One audited event.
   *
   * @param action what was attempted, e.g. {@code create printers}
   * @param principal who attempted it
   * @param address where it came from
   * @param outcome {@code ok}, or the error code and message
   */
  public static void record(String action, Principal principal, String address, String outcome) {
    log.info(
        "action={} principal={} address={} outcome={}",
        quote(action),
        principal,
        address,
        quote(outcome));
  }

  /** Whether audit lines are written at all (the logger is enabled). */
  public static boolean enabled() {
    return log.isInfoEnabled();
  }

  private static String quote(String s) {
    // a line per record, whatever a value holds: a line break in a name must not forge a record
    String oneLine = s.replace("\r", "\\r").replace("\n", "\\n");
    return oneLine.indexOf(' ') < 0 && oneLine.indexOf('"') < 0
        ? oneLine
        : '"' + oneLine.replace("\"", "'") + '"';
  }
}
