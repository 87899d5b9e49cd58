package io.semafor.client.internal.session;

import com.google.protobuf.ByteString;
import io.semafor.ErrorCode;
import io.semafor.client.internal.session.SessionEffect.Closed;
import io.semafor.client.internal.session.SessionEffect.Failed;
import io.semafor.client.internal.session.SessionEffect.Hangup;
import io.semafor.client.internal.session.SessionEffect.ReadFailed;
import io.semafor.client.internal.session.SessionEffect.SessionLost;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How what a {@link ClientSession} has pending ends: given up after the give-up time, failed by a
 * close or a lost session, the session lost, the machine closed. A part of the machine, kept apart
 * for its size: it works on the machine's state.
 */
final class SessionEndings {
  private final ClientSession s;

  SessionEndings(ClientSession session) {
    this.s = session;
  }

  /** No server for the give-up time: pending calls fail UNAVAILABLE; dialing goes on. */
  void giveUp() {
    s.givenUp = true;
    TreeMap<Long, Pending> all = new TreeMap<>(s.pending);
    s.pending.clear();
    for (Map.Entry<Long, Pending> e : all.entrySet()) {
      long id = e.getKey();
      Pending p = e.getValue();
      if (p.internal) {
        continue;
      }
      if (p.attempts > 0) {
        s.abandoned.put(id, p.request);
      }
      s.out.add(
          new Failed(
              id,
              p.request,
              SessionError.of(
                  ErrorCode.UNAVAILABLE,
                  p.attempts > 0
                      ? "no server answered; outcome unknown"
                      : "no server answered; not sent",
                  p.attempts == 0)));
    }
    for (long id : s.reads.keySet()) {
      s.out.add(
          new ReadFailed(id, SessionError.of(ErrorCode.UNAVAILABLE, "no server answered", true)));
    }
    s.reads.clear();
  }

  void failEverything(SessionError error) {
    for (Map.Entry<Long, Pending> e : s.pending.entrySet()) {
      Pending p = e.getValue();
      if (!p.internal) {
        boolean known = error.outcomeKnown() || p.attempts == 0;
        s.out.add(
            new Failed(
                e.getKey(),
                p.request,
                new SessionError(error.code(), error.message(), known, error.leader())));
      }
    }
    List<Pending.Confirming> unconfirmed = new ArrayList<>(s.confirming.values());
    unconfirmed.sort((a, b) -> Long.compare(a.requestId(), b.requestId()));
    for (Pending.Confirming c : unconfirmed) {
      s.out.add(
          new Failed(
              c.requestId(),
              c.request(),
              SessionError.of(
                  error.code(), error.message() + " (its delivery was not confirmed)", false)));
    }
    for (long id : s.reads.keySet()) {
      s.out.add(new ReadFailed(id, error));
    }
    s.pending.clear();
    s.confirming.clear();
    s.reads.clear();
  }

  /** SESSION_EXPIRED: everything pending fails at once; a new session opens on the next use. */
  void loseSession(SessionError error) {
    TreeMap<Long, Pending.ReadCall> kept = s.reads;
    s.reads = new TreeMap<>(); // reads need no session: they survive it
    failEverything(error);
    s.reads = kept;
    s.acks.clear();
    s.abandoned.clear();
    s.backpressure.reset();
    s.wire.clear();
    s.confirms.clear();
    s.sessionId = 0;
    s.secret = ByteString.EMPTY;
    s.out.add(new SessionLost(error));
    s.want = !s.reads.isEmpty() || !s.watches.isEmpty();
  }

  void finishClose() {
    if (s.phase == Phase.DIALING || s.phase == Phase.HELLO || s.phase == Phase.READY) {
      s.out.add(new Hangup(s.conn, "closed"));
    }
    s.phase = Phase.CLOSED;
    s.closing = false;
    s.confirms.clear();
    s.out.add(new Closed());
  }
}
