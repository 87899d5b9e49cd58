package io.semafor.client.internal.session;

import io.semafor.ErrorCode;
import io.semafor.client.internal.session.SessionEffect.Completed;
import io.semafor.client.internal.session.SessionEffect.Hangup;
import io.semafor.client.internal.session.SessionEffect.HelloRefused;
import io.semafor.client.internal.session.SessionEffect.Opened;
import io.semafor.client.internal.session.SessionEffect.ReadCompleted;
import io.semafor.client.internal.session.SessionEffect.WatchEnded;
import io.semafor.client.internal.session.SessionEffect.WatchEventReceived;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Failure;
import io.semafor.protocol.v1.Fatal;
import io.semafor.protocol.v1.ReadResponse;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.Response;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.WatchEvent;
import io.semafor.protocol.v1.Welcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What each frame from the server does to a {@link ClientSession} (docs/protocol.md §2–4b): the
 * {@code Welcome} that opens or resumes the session, answers, {@code Pong}s, read answers, watch
 * events and {@code Fatal}s. A part of the machine, kept apart for its size: it works on the
 * machine's state and calls its helpers (sending, hanging up, losing the session).
 */
final class ServerFrames {
  private static final String UNACKED_LIMIT = "maxUnackedReplies";
  private static final String REQUEST_ID = "requestId";

  private final ClientSession s;

  ServerFrames(ClientSession session) {
    this.s = session;
  }

  /** A frame of the current connection, in phase HELLO or READY. */
  void step(ServerFrame frame, long now) {
    switch (frame.getBodyCase()) {
      case WELCOME -> welcome(frame.getWelcome(), now);
      case FATAL -> fatal(frame.getFatal(), now);
      case RESPONSE -> {
        if (s.phase == Phase.READY) {
          response(frame.getResponse(), now);
        }
      }
      case PONG -> {
        if (s.phase == Phase.READY) {
          pong(frame.getPong().getId(), now);
        }
      }
      case READ_RESPONSE -> {
        if (s.phase == Phase.READY) {
          readResponse(frame.getReadResponse(), now);
        }
      }
      case WATCH_EVENT -> {
        if (s.phase == Phase.READY) {
          watchEvent(frame.getWatchEvent());
        }
      }
      default -> {} // snapshot chunks and future frames: not the session's
    }
  }

  private void welcome(Welcome w, long now) {
    if (s.phase != Phase.HELLO) {
      return;
    }
    if (w.hasFailure()) {
      refusedHello(w.getFailure(), now);
      return;
    }
    if (s.sessionId != 0 && !w.getResumed()) { // not what was asked: the old session is gone
      s.endings.loseSession(
          SessionError.of(ErrorCode.SESSION_EXPIRED, "the session was not resumed", false));
      s.want = true;
    }
    boolean resumed = s.sessionId != 0 && w.getResumed();
    if (!resumed) {
      s.sessionId = w.getSessionId();
      s.secret = w.getSessionSecret();
      s.ttlNanos = w.getSessionTtlNs() != 0 ? w.getSessionTtlNs() : s.ttlNanos;
      s.epoch++;
      s.acks.clear();
    } else { // acks whose confirmation was not seen go again (a dead leader may have lost them)
      s.acks.resumed(now);
      // every unanswered request goes again under its id: which of those sent behind a refused
      // one were applied is unknown now, and one renumbered would be applied twice; a refused one
      // passed by an applied one is refused "requestId" and renumbered then
      s.backpressure.forgetRefusals();
    }
    s.phase = Phase.READY;
    s.available();
    s.addresses.succeeded(now);
    s.out.add(new Opened(s.sessionId, resumed, s.ttlNanos, w.getPrincipal(), s.epoch));
    s.frames.flush(now);
    for (Map.Entry<Long, Pending.ReadCall> e : s.reads.entrySet()) {
      if (!e.getValue().sent) {
        s.frames.sendRead(e.getKey(), now);
      }
    }
    for (Map.Entry<Long, WatchPosition> e : s.watches.entrySet()) {
      s.frames.send(ClientFrame.newBuilder().setWatch(e.getValue().start(e.getKey())).build(), now);
    }
    if (!s.confirming.isEmpty()) { // answers read before the cut whose delivery is unconfirmed
      s.frames.sendKeepAlive(now, false, true);
    }
    if (!s.confirms.isEmpty()) { // confirmations asked for before the cut
      s.frames.sendConfirm(now);
    }
  }

  private void refusedHello(Failure failure, long now) {
    ErrorCode code = ErrorCode.ofNumber(failure.getCodeValue(), ErrorCode.UNAVAILABLE);
    switch (code) {
      case NOT_LEADER -> {
        s.addresses.follow(failure.getLeader());
        s.hangup(now, "not the leader");
      }
      case SESSION_EXPIRED -> {
        s.endings.loseSession(SessionError.of(code, failure.getMessage(), false));
        if (s.want) {
          s.frames.sendHello(now); // a new session, on this connection
        } else {
          s.out.add(new Hangup(s.conn, "session lost, nothing to do"));
          s.phase = Phase.IDLE;
        }
      }
      case UNAVAILABLE -> s.hangup(now, failure.getMessage());
      default -> { // credentials, an argument, the server's session limit: retrying does not help
        SessionError error =
            new SessionError(code, failure.getMessage(), true, failure.getLeader());
        s.endings.failEverything(error);
        s.out.add(new HelloRefused(error));
        s.out.add(new Hangup(s.conn, failure.getMessage()));
        s.want = !s.watches.isEmpty();
        s.phase = Phase.IDLE;
      }
    }
  }

  private void response(Response r, long now) {
    long wireId = r.getId();
    long id = s.wire.getOrDefault(wireId, wireId);
    Pending p = s.pending.get(id);
    if (p != null && p.wireId != wireId) {
      p = null; // an answer to an id given up after a refusal: not ours any more
    }
    Failure failure = r.hasFailure() ? r.getFailure() : null;
    boolean refused =
        failure != null
            && failure.getCodeValue() == ErrorCode.RESOURCE_EXHAUSTED.number()
            && failure.getMessage().startsWith(UNACKED_LIMIT);
    if (refused && p == null) {
      return; // not applied, not kept: nothing to acknowledge
    }
    if (p == null && s.closing) {
      return; // failed by close: left undelivered, what it granted goes back with the session
    }
    if (p != null && failure != null) {
      if (refused) {
        // not applied and not kept: sent again once our acks are in (Backpressure)
        p.sent = false;
        s.acks.forget(Acks.Carrier.request(wireId));
        List<Long> inFlight = new ArrayList<>();
        for (Pending q : s.pending.values()) {
          if (q.sent) {
            inFlight.add(q.wireId);
          }
        }
        s.backpressure.refused(wireId, inFlight);
        if (!s.backpressure.holding()) {
          s.backpressure.holdUntilPongOf(s.frames.sendKeepAlive(now, true, true));
        }
        return;
      }
      if (failure.getCodeValue() == ErrorCode.INVALID_ARGUMENT.number()
          && failure.getMessage().startsWith(REQUEST_ID)) {
        // "not after the last applied and no reply kept": never applied (this client acknowledges
        // only answers it read), and a later id was (the refusal for unacknowledged replies that
        // said so was lost with a connection). It goes again under a new id, after every id
        // used, as after a refusal (Backpressure)
        p.sent = false;
        s.acks.forget(Acks.Carrier.request(wireId));
        s.wire.remove(wireId);
        long newId = s.nextId++;
        p.wireId = newId;
        s.wire.put(newId, id);
        s.frames.flush(now);
        return;
      }
      if (failure.getCodeValue() == ErrorCode.NOT_LEADER.number()) {
        // not applied: follow the leader and send it there
        s.addresses.follow(failure.getLeader());
        s.hangup(now, "not the leader");
        return;
      }
    }
    s.backpressure.answered(wireId);
    s.acks.applied(Acks.Carrier.request(wireId)); // the request was applied with its acks
    s.acks.add(wireId, now);
    s.wire.remove(wireId);
    if (p == null) {
      Request abandoned = s.abandoned.remove(id);
      if (abandoned != null) { // its caller was told UNAVAILABLE: give the grant back
        s.out.add(new Completed(id, abandoned, r));
      }
      return; // else a duplicate across a reconnect: same content, told already
    }
    s.pending.remove(id);
    if (p.internal) {
      if (r.hasSessionClosed() && s.closing) {
        s.endings.finishClose();
      }
      return;
    }
    if (p.confirm && failure == null) {
      s.confirming.put(wireId, new Pending.Confirming(id, p.request, r));
      s.frames.sendKeepAlive(now, false, true); // its pong confirms the delivery
      return;
    }
    s.out.add(new Completed(id, p.request, r));
  }

  private void pong(long keepAliveId, long now) {
    List<Long> acks = s.acks.applied(Acks.Carrier.keepAlive(keepAliveId));
    s.liveness.answered(keepAliveId);
    if (acks != null) {
      for (long wireId : acks) {
        Pending.Confirming confirmed = s.confirming.remove(wireId);
        if (confirmed != null) {
          s.out.add(
              new Completed(confirmed.requestId(), confirmed.request(), confirmed.response()));
        }
      }
    }
    for (var it = s.confirms.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Long, Long> e = it.next();
      if (e.getValue() == keepAliveId) {
        it.remove();
        s.out.add(new SessionEffect.AcknowledgementsConfirmed(e.getKey()));
      }
    }
    if (s.backpressure.heldBy() == keepAliveId) {
      settleRefusals();
      s.frames.flush(now);
    }
  }

  /**
   * The hold of a RESOURCE_EXHAUSTED ends: if a request behind a refused one was applied, every
   * request not sent yet takes a new id, after every id used, in order.
   */
  private void settleRefusals() {
    if (!s.backpressure.settle()) {
      return;
    }
    for (Map.Entry<Long, Pending> e : s.pending.entrySet()) {
      Pending p = e.getValue();
      if (!p.sent) {
        s.wire.remove(p.wireId);
        long newId = s.nextId++;
        p.wireId = newId;
        s.wire.put(newId, e.getKey());
      }
    }
  }

  private void readResponse(ReadResponse r, long now) {
    if (r.hasFailure()
        && r.getFailure().getCodeValue() == ErrorCode.NOT_LEADER.number()
        && s.reads.containsKey(r.getId())) {
      s.addresses.follow(r.getFailure().getLeader());
      s.hangup(now, "not the leader");
      return;
    }
    if (s.reads.remove(r.getId()) != null) {
      s.out.add(new ReadCompleted(r.getId(), r));
    }
  }

  private void watchEvent(WatchEvent event) {
    WatchPosition position = s.watches.get(event.getId());
    if (position == null) {
      return; // unwatched meanwhile
    }
    if (event.getKind() == WatchEvent.Kind.FAILED) {
      s.watches.remove(event.getId());
      Failure f = event.getFailure();
      s.out.add(
          new WatchEnded(
              event.getId(), SessionError.ofWire(f.getCodeValue(), f.getMessage(), true, "")));
    } else if (position.accept(event)) {
      s.out.add(new WatchEventReceived(event.getId(), event));
    }
  }

  private void fatal(Fatal fatal, long now) {
    Failure f = fatal.getFailure();
    ErrorCode code = ErrorCode.ofNumber(f.getCodeValue(), ErrorCode.UNAVAILABLE);
    if (code == ErrorCode.SESSION_EXPIRED) {
      s.out.add(new Hangup(s.conn, f.getMessage()));
      s.endings.loseSession(SessionError.of(code, f.getMessage(), false));
      s.lostConnection(now);
      return;
    }
    if (code == ErrorCode.NOT_LEADER) {
      s.addresses.follow(f.getLeader());
    } else if (code == ErrorCode.UNAUTHENTICATED) {
      // revoked: pending calls fail, reconnecting goes on
      s.endings.failEverything(SessionError.of(code, f.getMessage(), false));
    }
    s.hangup(now, f.getMessage().isEmpty() ? code.name() : f.getMessage());
  }
}
