package io.semafor.server.session;

import io.semafor.ErrorCode;
import io.semafor.core.Secret;
import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Hello;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.server.options.Durations;
import io.semafor.server.security.Access;
import io.semafor.server.security.Principal;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One client connection's side of the session protocol (docs/protocol.md §2–3), as a pure state
 * machine: frames from the client, outcomes from the node and the time go in; what to do comes out
 * as {@link ServerEffect} values, and {@link #nextDeadline()} says when to call {@link #tick} next.
 * It opens or resumes a session on {@code Hello}, admits each request (authentication, permissions,
 * the caps on sessions and connections, each refusal audited), holds keep-alives' pongs until their
 * acknowledgements are applied, bounds the reads in flight and parks what the client sends while it
 * does not read, validates watches, and closes a connection that opened no session in time, stays
 * silent without one, or whose token expired.
 *
 * <p>It holds no socket, thread or clock: the driver ({@code io.semafor.server.Connection}) calls
 * it under one lock from whichever thread an input comes on, then carries out the effects returned.
 * Not thread-safe; no method blocks. Bad input from the client is answered with a failure or a
 * {@code Fatal} carrying a stable code and the argument it names; no input throws.
 */
public final class ServerSession {
  /** The most watches one connection may run at once. */
  public static final int MAX_WATCHES = 64;

  /** The entries per list of a watched state when the client names no limit. */
  public static final int DEFAULT_WATCH_LIMIT = 100;

  /** The bytes of a session's resume secret. */
  public static final int SECRET_BYTES = 16;

  private final SessionRules rules;
  private final NodeView node;
  private final Peer peer;
  private final long connectedAt;

  /** The session attached here; 0 before a Hello, while opening, or after it ended or moved. */
  private long attached;

  /** The last session this connection had, for frames that come after it ended or moved. */
  private long lastSessionId;

  /** When this connection was last without a session and heard from, or lost its session. */
  private long quietSince;

  private final Effects effects;
  private final Backlog backlog = new Backlog();
  private final Admission admission;
  private final Credentials credentials;
  private final Opening opening;

  /**
   * The machine of a connection from {@code peer} that connected at {@code now}, under {@code
   * rules}, reading {@code node}, drawing resume secrets from {@code random}.
   */
  public ServerSession(
      SessionRules rules, NodeView node, SecureRandom random, Peer peer, Moment now) {
    this.rules = rules;
    this.node = node;
    this.peer = peer;
    this.connectedAt = now.nanos();
    this.quietSince = connectedAt;
    this.effects = new Effects(peer.address());
    this.admission = new Admission(rules, node, effects, backlog);
    this.credentials = new Credentials(node, effects);
    this.opening = new Opening(rules, node, random, effects);
  }

  // ------------------------------------------------------------------ inputs

  /**
   * The TLS handshake verified a client certificate naming {@code principal} (its common name):
   * what a {@code Hello} without a token authenticates as. The driver says so before it passes on a
   * {@code Hello}, since the handshake may end after the connection was made.
   */
  public void certified(@Nullable String principal) {
    credentials.certified(principal);
  }

  /** A frame came from the client. */
  public List<ServerEffect> received(ClientFrame frame, Moment now) {
    if (effects.closed()) {
      return effects.take();
    }
    if (attached == 0) {
      quietSince = now.nanos();
    }
    if (backlog.mustPark(frame)) {
      backlog.park(frame);
      effects.reading(false);
      return effects.take();
    }
    handle(frame, now);
    return effects.take();
  }

  /**
   * Whether the client reads what it is sent ({@code writable}: its replies are below the high
   * water mark): while it does not, what it sends is parked.
   */
  public List<ServerEffect> writable(boolean writable, Moment now) {
    backlog.writable(writable);
    drain(now);
    return effects.take();
  }

  /** A read, snapshot or watch start this connection asked for was answered or refused. */
  public List<ServerEffect> readAnswered(Moment now) {
    backlog.readEnded();
    drain(now);
    return effects.take();
  }

  /** The time passed: due timeouts fire. Call at {@link #nextDeadline()} or later. */
  public List<ServerEffect> tick(Moment now) {
    if (effects.closed()) {
      return effects.take();
    }
    if (credentialExpired(now)) {
      return effects.take();
    }
    long due = quietDeadline();
    if (Deadlines.passed(now.nanos(), due)) {
      effects.fatal(ErrorCode.RESOURCE_EXHAUSTED, quietReason());
    }
    return effects.take();
  }

  /**
   * When {@link #tick} must be called next (monotonic nanoseconds); {@link Long#MAX_VALUE} if
   * nothing is timed.
   */
  public long nextDeadline() {
    if (effects.closed()) {
      return Deadlines.NEVER;
    }
    long due = quietDeadline();
    return Deadlines.earlier(credentials.expiryDeadline(), due);
  }

  /** The node opened the session this connection asked for. */
  public List<ServerEffect> opened(long sessionId) {
    byte[] secret = opening.opened(sessionId);
    NodeView.LiveSession live = node.session(sessionId);
    if (live == null || effects.closed()) {
      return effects.take(); // ended already, or nobody is here to use it: it expires unused
    }
    // attach first, then Welcome: the client may send requests the moment it reads it
    attach(sessionId);
    effects.send(
        SessionFrames.welcome(
            sessionId, live.ttlNanos(), false, node.lastRevision(), secret, principalName()));
    return effects.take();
  }

  /** The node refused to open the session this connection asked for. */
  public List<ServerEffect> openFailed(ErrorCode code, String message) {
    opening.ended();
    if (!effects.closed()) {
      effects.send(SessionFrames.welcomeFailure(code, message));
    }
    return effects.take();
  }

  /**
   * An open this connection asked for could not be proposed (the node is shutting down): its quota
   * goes back and the connection closes.
   */
  public List<ServerEffect> openNotSubmitted(String why) {
    opening.ended();
    effects.fatal(ErrorCode.UNAVAILABLE, why);
    return effects.take();
  }

  /**
   * Acknowledgements this connection proposed were applied: {@code then} is the frame that waited
   * for them ({@link ServerEffect.Acknowledge#then()}), null for the pongs owed in order.
   */
  public List<ServerEffect> acknowledged(@Nullable ServerFrame then) {
    if (then != null) {
      effects.send(then);
    } else {
      admission.pongsOwed();
    }
    return effects.take();
  }

  /**
   * The session {@code sessionId} ended. An expiry is news to the client, which may have been
   * unable to run or to reach us: it is told at once with a {@code Fatal} SESSION_EXPIRED and the
   * connection closes, so it reports the loss without waiting to notice silence. A close is what
   * the client asked for, and the answer to its {@code close_session} says so.
   */
  public List<ServerEffect> sessionEnded(long sessionId, boolean expired, Moment now) {
    if (attached == sessionId && sessionId != 0) {
      attached = 0;
      quietSince = now.nanos();
      if (expired) {
        effects.fatal(ErrorCode.SESSION_EXPIRED, ended(sessionId));
      }
    }
    return effects.take();
  }

  /** The session was resumed on another connection: this one is stale and closes. */
  public List<ServerEffect> superseded() {
    attached = 0;
    effects.fatal(ErrorCode.UNAVAILABLE, "the session was resumed on another connection");
    return effects.take();
  }

  /**
   * This node does not lead (any more): the client is told where to go, and the connection closes.
   */
  public List<ServerEffect> notLeader(String leaderHint) {
    opening.ended(); // an open refused because this node does not lead is never answered
    if (attached != 0) {
      effects.add(new ServerEffect.Detach(attached));
      attached = 0;
    }
    effects.close(SessionFrames.fatalNotLeader(leaderHint));
    return effects.take();
  }

  /**
   * Closes the connection with a {@code Fatal} {@code code} (a reload revoked its token, an error).
   */
  public List<ServerEffect> fail(ErrorCode code, String message) {
    effects.fatal(code, message);
    return effects.take();
  }

  /** The watch {@code id} was ended by the node (its principal lost {@code read}). */
  public void watchEnded(long id) {
    admission.watchEnded(id);
  }

  /** The connection is gone: its session lives on, detached, and its counts go back. */
  public List<ServerEffect> disconnected() {
    effects.gone();
    credentials.release();
    if (attached != 0) {
      effects.add(new ServerEffect.Detach(attached));
      attached = 0;
    }
    admission.disconnected();
    return effects.take();
  }

  // ------------------------------------------------------------------ queries

  /** Who this connection was taken for; null before a {@code Hello} succeeded. */
  public @Nullable Principal principal() {
    return credentials.principal();
  }

  /** The session attached here, or 0. */
  public long sessionId() {
    return attached;
  }

  /** Whether {@code watch} is still running here (not unwatched, nor replaced under its id). */
  public boolean watching(WatchRequest watch) {
    return admission.watching(watch);
  }

  /** How many watches run here. */
  public int watchCount() {
    return admission.watchCount();
  }

  /** Whether the connection has been closed by the machine or has gone. */
  public boolean closed() {
    return effects.closed();
  }

  /**
   * Whether this connection still stands under {@code access} at {@code now}: false once the token
   * it authenticated with is revoked or expired.
   */
  public boolean stillAdmitted(Access access, Instant now) {
    return credentials.stillAdmitted(access, now);
  }

  /**
   * Whose quota of sessions a session opened here counts against: the authenticated principal
   * wherever it connects from (so one principal cannot exhaust it for others behind one address,
   * nor escape it by moving), or without authentication the client's host.
   */
  public String ownerKey() {
    Principal who = credentials.principal();
    if (who != null && !who.isAnonymous()) {
      return "principal " + who.name();
    }
    return peer.host();
  }

  // ------------------------------------------------------------------ frames

  private void handle(ClientFrame frame, Moment now) {
    switch (frame.getBodyCase()) {
      case HELLO -> hello(frame.getHello(), now);
      case REQUEST -> {
        long sessionId = sessionIdOrFail("request", now);
        if (sessionId != 0) {
          admission.request(frame.getRequest(), sessionId, credentials.principal());
        }
      }
      case KEEP_ALIVE -> {
        // a keep-alive must not keep a session alive on an expired token
        long sessionId = sessionIdOrFail("keepAlive", now);
        if (sessionId != 0) {
          admission.keepAlive(frame.getKeepAlive(), sessionId);
        }
      }
      case READ -> {
        if (!credentialExpired(now)) {
          admission.read(frame.getRead(), credentials.principal());
        }
      }
      case SNAPSHOT -> {
        if (!credentialExpired(now)) {
          admission.snapshot(frame.getSnapshot().getId(), credentials.principal());
        }
      }
      case WATCH -> {
        if (!credentialExpired(now)) {
          admission.watch(frame.getWatch(), credentials.principal());
        }
      }
      case UNWATCH -> admission.unwatch(frame.getUnwatch().getId());
      case BODY_NOT_SET -> effects.fatal(ErrorCode.INVALID_ARGUMENT, "frame: an empty ClientFrame");
    }
  }

  private void hello(Hello hello, Moment now) {
    if (attached != 0 || opening.inProgress()) {
      effects.fatal(ErrorCode.INVALID_ARGUMENT, "hello: this connection already has a session");
      return;
    }
    if (hello.getProtocolVersion() != Frames.PROTOCOL_VERSION) {
      effects.fatal(
          ErrorCode.INVALID_ARGUMENT,
          "protocolVersion: this server speaks "
              + Frames.PROTOCOL_VERSION
              + ", not "
              + hello.getProtocolVersion());
      return;
    }
    Principal who = credentials.authenticate(hello, now);
    if (who == null) {
      return;
    }
    if (!node.leads()) {
      effects.send(SessionFrames.welcomeNotLeader(node.leaderHint()));
      return;
    }
    if (hello.getNoSession()) {
      // authenticated, nothing opened: a connection that only watches or reads
      effects.send(
          SessionFrames.welcomeWithoutSession(
              node.lastRevision(), who.isAnonymous() ? "" : who.name()));
      return;
    }
    if (hello.getSessionId() != 0) {
      resume(who, hello.getSessionId(), hello.getSessionSecret().toByteArray());
      return;
    }
    opening.start(hello, who, ownerKey());
  }

  /**
   * Resumes a session if {@code who} owns it and shows its secret. A session that is not theirs is
   * answered exactly as one that does not exist, so that a resume cannot probe for sessions.
   */
  private void resume(Principal who, long id, byte[] secret) {
    NodeView.LiveSession live = node.session(id);
    if (live == null || !live.owner().admits(who.name(), Secret.digestOf(secret))) {
      if (live != null) {
        effects.audit("resume session " + id, who, "refused: not its owner, or a wrong secret");
      }
      effects.send(
          SessionFrames.welcomeFailure(
              ErrorCode.SESSION_EXPIRED,
              "sessionId: session " + id + " does not exist or has ended"));
      return;
    }
    // Welcome first, then attach: replies routed here afterwards are written after it
    effects.send(
        SessionFrames.welcome(id, live.ttlNanos(), true, node.lastRevision(), null, who.name()));
    attach(id);
  }

  private void attach(long sessionId) {
    attached = sessionId;
    lastSessionId = sessionId;
    effects.add(new ServerEffect.Attach(sessionId));
  }

  /**
   * The session's id, marking it heard from; 0 if the frame has no live session to go to, and the
   * client is being told why: its token expired; before {@code Hello}, a {@code Fatal}
   * INVALID_ARGUMENT; after its session ended, a {@code Fatal} SESSION_EXPIRED (so a client that
   * was not running when its session expired learns it from its first keep-alive, not from a pong
   * for a session that is gone). A frame on a connection whose session lives on elsewhere (resumed
   * on another connection, or this node no longer leads) still belongs to the session: it is
   * applied once by its id and answered where the session is attached now, or refused as not
   * leader.
   */
  private long sessionIdOrFail(String what, Moment now) {
    if (credentialExpired(now)) {
      return 0;
    }
    if (attached != 0) {
      effects.add(new ServerEffect.Heard(attached));
      return attached;
    }
    long last = lastSessionId;
    if (last == 0) {
      effects.fatal(
          ErrorCode.INVALID_ARGUMENT, what + ": no session; a connection begins with Hello");
      return 0;
    }
    if (node.session(last) == null) {
      effects.fatal(ErrorCode.SESSION_EXPIRED, ended(last));
      return 0;
    }
    return last;
  }

  private static String ended(long sessionId) {
    return "sessionId: session "
        + sessionId
        + " has ended; what it held went back. Open a new session with Hello";
  }

  // ------------------------------------------------------------------ admission and time

  /** Whether the token expired (then the connection is closing and the frame is not handled). */
  private boolean credentialExpired(Moment now) {
    return credentials.expired(now, attached);
  }

  /**
   * When a connection without a session is closed: {@link SessionRules#helloTimeout()} after it
   * connected if it never opened one, else {@link SessionRules#idleTimeout()} after it was last
   * heard from or lost its session. A connection with a session, opening one, or watching is never
   * closed for quiet: its session's TTL, or its watches, say how long it lives.
   */
  private long quietDeadline() {
    if (attached != 0 || opening.inProgress() || admission.watchCount() > 0) {
      return Deadlines.NEVER;
    }
    if (lastSessionId == 0) {
      return connectedAt + rules.helloTimeout().toNanos();
    }
    return quietSince + rules.idleTimeout().toNanos();
  }

  private String quietReason() {
    return lastSessionId == 0
        ? "helloTimeout ("
            + Durations.format(rules.helloTimeout())
            + "): no session was opened on this connection in time"
        : "idleTimeout ("
            + Durations.format(rules.idleTimeout())
            + "): this connection has no session and was silent";
  }

  // ------------------------------------------------------------------ effects

  /** Handles the parked frames that may go now, then says whether to read from the connection. */
  private void drain(Moment now) {
    ClientFrame next;
    while (!effects.closed() && (next = backlog.nextReady()) != null) {
      handle(next, now);
    }
    effects.reading(backlog.reading());
  }

  private @Nullable String principalName() {
    Principal who = credentials.principal();
    return who == null ? null : who.name();
  }
}
