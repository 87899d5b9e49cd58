package io.semafor.server.session;

import io.semafor.ErrorCode;
import io.semafor.protocol.v1.Hello;
import io.semafor.server.security.Access;
import io.semafor.server.security.Principal;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Who a connection was taken for, and for how long: the principal its {@code Hello} authenticated
 * (a token, or the client certificate's name), the token, when it expires, and the connection cap
 * it counts against. A connection keeps its principal; its token's expiry ends it. Not thread-safe:
 * part of a {@link ServerSession}.
 */
final class Credentials {
  private final NodeView node;
  private final Effects effects;

  /** The principal the client's verified TLS certificate names; null without one. */
  private @Nullable String certificate;

  /** Who this connection was taken for at its last Hello; null before one succeeded. */
  private @Nullable Principal principal;

  /** The token it authenticated with, so that a reload revoking it closes the connection. */
  private String token = "";

  /** The principal this connection is counted against in the connection caps; null if none. */
  private @Nullable String counted;

  /** When the token expires, on the monotonic clock; {@link Long#MAX_VALUE} if never. */
  private long expiresAt = Deadlines.NEVER;

  /** The token's expiry was acted on. */
  private boolean expiryHandled;

  Credentials(NodeView node, Effects effects) {
    this.node = node;
    this.effects = effects;
  }

  void certified(@Nullable String name) {
    certificate = name;
  }

  @Nullable Principal principal() {
    return principal;
  }

  /**
   * Takes the connection for whom {@code hello}'s credentials name; null if it is refused (then the
   * client is told, the refusal audited, and the connection closes).
   */
  @Nullable Principal authenticate(Hello hello, Moment now) {
    Principal who;
    try {
      who = node.access().authenticate(hello.getToken(), certificate, now.wall());
    } catch (Access.Refused e) {
      effects.audit("hello", Principal.ANONYMOUS, "UNAUTHENTICATED: " + e.reason());
      effects.close(SessionFrames.welcomeFailure(ErrorCode.UNAUTHENTICATED, e.reason()));
      return null;
    }
    Principal before = principal;
    if (before != null && !before.name().equals(who.name())) {
      // requests may still reach the session the first principal opened here: they must not be
      // checked against another principal's permissions
      effects.fatal(
          ErrorCode.INVALID_ARGUMENT,
          "hello: this connection was taken for " + before + "; a connection keeps its principal");
      return null;
    }
    String capped = countAgainst(who);
    if (capped != null) {
      effects.close(SessionFrames.welcomeFailure(ErrorCode.RESOURCE_EXHAUSTED, capped));
      return null;
    }
    token = hello.getToken();
    principal = who;
    expiryHandled = false;
    Instant expires = who.expires();
    expiresAt =
        expires == null
            ? Deadlines.NEVER
            : now.nanos() + Math.max(0, Duration.between(now.wall(), expires).toNanos());
    if (!node.access().stillAdmits(who, token, now.wall())) {
      // a reload revoked the token between the check above and this connection's taking it, and
      // its sweep may have passed this connection by
      effects.close(
          SessionFrames.welcomeFailure(ErrorCode.UNAUTHENTICATED, "token: revoked or expired"));
      return null;
    }
    return who;
  }

  /**
   * Counts this connection against {@code who}'s connection cap (authenticated principals only);
   * why not, if the principal has its fill.
   */
  private @Nullable String countAgainst(Principal who) {
    String name = who.isAnonymous() ? null : who.name();
    if (Objects.equals(name, counted)) {
      return null;
    }
    release();
    if (name == null) {
      return null;
    }
    String refused = node.admitPrincipal(name);
    if (refused == null) {
      counted = name;
    }
    return refused;
  }

  /** Gives back the connection counted against a principal, if one is. */
  void release() {
    String name = counted;
    if (name != null) {
      counted = null;
      node.releasePrincipal(name);
    }
  }

  /**
   * Whether the token has expired at {@code now}; the first time, the waiting requests of session
   * {@code sessionId} (0: none) are refused UNAUTHENTICATED, the expiry audited, and the connection
   * closed. Expiry is a property of the credential, not only of the {@code Hello}.
   */
  boolean expired(Moment now, long sessionId) {
    Principal who = principal;
    if (who == null || !(who.expiredAt(now.wall()) || Deadlines.passed(now.nanos(), expiresAt))) {
      return false;
    }
    if (!expiryHandled) {
      expiryHandled = true;
      String reason = "token: expired at " + who.expires();
      if (sessionId != 0) {
        effects.add(new ServerEffect.RefuseWaiting(sessionId, reason));
      }
      effects.audit("token expired", who, "connection closed");
      effects.fatal(ErrorCode.UNAUTHENTICATED, reason);
    }
    return true;
  }

  /** When the token's expiry is due to be acted on; {@link Long#MAX_VALUE} if never. */
  long expiryDeadline() {
    return principal == null || expiryHandled ? Deadlines.NEVER : expiresAt;
  }

  /** Whether the connection still stands under {@code access} at {@code now}. */
  boolean stillAdmitted(Access access, Instant now) {
    Principal who = principal;
    return who == null || access.stillAdmits(who, token, now);
  }
}
