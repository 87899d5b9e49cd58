package io.semafor.core;

import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Who may resume a session (docs/security.md#sessions): the principal that opened it, and the
 * digest of the secret its {@code Welcome} carried. The edge authenticates the principal and draws
 * the secret; the machine only keeps both, so that every replica, and a leader elected later, can
 * check a resume.
 *
 * @param principal the authenticated principal; empty when the server authenticates nobody
 * @param secretDigest {@link Secret#digestOf} the resume secret; {@link Secret#NONE} for a session
 *     opened without one (before secrets existed, or by a test), which any client may resume
 */
public record SessionOwner(String principal, Secret secretDigest) {
  /** Nobody in particular: an anonymous session without a resume secret. */
  public static final SessionOwner NONE = new SessionOwner("", Secret.NONE);

  /** The most UTF-8 bytes a principal may have. */
  public static final int MAX_PRINCIPAL_BYTES = 255;

  /** Checks nothing: {@link SessionCommands} refuses values out of range with a failure. */
  public SessionOwner {}

  /** Why this cannot be kept, or null if it can: a principal longer than its bound. */
  Result.@Nullable Failure check() {
    if (principal.getBytes(StandardCharsets.UTF_8).length > MAX_PRINCIPAL_BYTES) {
      return Check.invalid("principal", "longer than " + MAX_PRINCIPAL_BYTES + " bytes");
    }
    return null;
  }

  /**
   * Whether {@code principal} presenting a secret with digest {@code presented} may resume: the
   * same principal and, if the session has a secret, the same digest (compared in constant time).
   */
  public boolean admits(String principal, Secret presented) {
    boolean samePrincipal = this.principal.equals(principal);
    boolean secretMatches = secretDigest.isNone() || secretDigest.matches(presented);
    return samePrincipal && secretMatches;
  }
}
