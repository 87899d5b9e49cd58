package io.semafor.server.session;

import io.semafor.ClientInfo;
import io.semafor.ErrorCode;
import io.semafor.core.Command;
import io.semafor.core.Secret;
import io.semafor.core.SessionOwner;
import io.semafor.protocol.v1.Hello;
import io.semafor.server.security.Principal;
import java.security.SecureRandom;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A session being opened on a connection: the TTL checked, a session taken from its owner's quota,
 * a resume secret drawn, and the quota given back however the open ends unless the session is
 * counted against it. Not thread-safe: part of a {@link ServerSession}.
 */
final class Opening {
  private final SessionRules rules;
  private final NodeView node;
  private final SecureRandom random;
  private final Effects effects;

  /** An open is on its way to the node. */
  private boolean inProgress;

  /** The quota key the session is taken under; null when none is being opened. */
  private @Nullable String owner;

  /** The resume secret of the session being opened, for its Welcome. */
  private byte @Nullable [] secret;

  Opening(SessionRules rules, NodeView node, SecureRandom random, Effects effects) {
    this.rules = rules;
    this.node = node;
    this.random = random;
    this.effects = effects;
  }

  boolean inProgress() {
    return inProgress;
  }

  /**
   * Proposes a session for {@code hello}, owned by {@code who} and counted against {@code
   * quotaKey}; refuses it (the client is told) for a TTL out of bounds or a full quota.
   */
  void start(Hello hello, Principal who, String quotaKey) {
    long ttl =
        hello.getSessionTtlNs() == 0 ? rules.defaultTtl().toNanos() : hello.getSessionTtlNs();
    if (ttl < rules.minTtl().toNanos() || ttl > rules.maxTtl().toNanos()) {
      effects.send(
          SessionFrames.welcomeFailure(
              ErrorCode.INVALID_ARGUMENT,
              "sessionTtl: must be within "
                  + rules.minTtl()
                  + ".."
                  + rules.maxTtl()
                  + ", was "
                  + Duration.ofNanos(ttl)));
      return;
    }
    String refused = node.takeSessionQuota(quotaKey);
    if (refused != null) {
      effects.send(SessionFrames.welcomeFailure(ErrorCode.RESOURCE_EXHAUSTED, refused));
      return;
    }
    byte[] drawn = new byte[ServerSession.SECRET_BYTES];
    random.nextBytes(drawn);
    secret = drawn;
    inProgress = true;
    owner = quotaKey;
    effects.add(
        new ServerEffect.OpenSession(
            new Command.OpenSession(
                ttl,
                new ClientInfo(hello.getClientName(), hello.getClientHost(), hello.getClientPid()),
                new SessionOwner(who.name(), Secret.digestOf(drawn)),
                Secret.random(random))));
  }

  /**
   * The node opened it as {@code sessionId}: it counts against its owner's quota from now until it
   * ends (or goes back at once if it has ended already). Returns the resume secret for its Welcome.
   */
  byte @Nullable [] opened(long sessionId) {
    String key = owner;
    owner = null;
    if (key != null && !node.countSession(sessionId, key)) {
      node.giveBackSessionQuota(key);
    }
    byte[] drawn = secret;
    inProgress = false;
    secret = null;
    return drawn;
  }

  /**
   * The open ended without a session here: refused, not proposed, or left unanswered by a node that
   * stopped leading (if it is applied after all, its session simply counts against no one). Its
   * quota goes back.
   */
  void ended() {
    String key = owner;
    owner = null;
    if (key != null) {
      node.giveBackSessionQuota(key);
    }
    inProgress = false;
    secret = null;
  }
}
