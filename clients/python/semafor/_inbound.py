"""What each frame from the server does to the session machine (docs/protocol.md §2-4b): the
``Welcome`` that opens or resumes the session, answers, ``Pong``s, read answers, watch events and
``Fatal``s. A part of :class:`semafor._session.ClientSession`, kept apart for its size; it works on
the machine's state and calls its helpers (sending, hanging up, losing the session)."""

from __future__ import annotations

from semafor._config import HELLO, IDLE, READY
from semafor._effects import (
    AcknowledgementsConfirmed,
    Completed,
    Hangup,
    HelloRefused,
    Opened,
    ReadCompleted,
    WatchEnded,
    WatchEventReceived,
)
from semafor._proto import semafor_pb2 as pb
from semafor.errors import ErrorCode, error_for


class Inbound:
    """The frame handlers of :class:`semafor._session.ClientSession` (a mixin: not used alone)."""


    def _on_welcome(self, w: pb.Welcome, now: int) -> None:
        if self._phase != HELLO:
            return
        if w.HasField("failure"):
            self._on_refused_hello(w.failure, now)
            return
        if self.session_id and not w.resumed:  # not what was asked: the old session is gone
            self._lose_session(error_for(ErrorCode.SESSION_EXPIRED, "the session was not resumed",
                                         outcome_known=False))
            self._want = True
        resumed = bool(self.session_id) and w.resumed
        if not resumed:
            self.session_id = w.session_id
            self._secret = w.session_secret
            self.ttl_ns = w.session_ttl_ns or self.ttl_ns
            self.epoch += 1
            self._acks.clear()
        else:  # acks whose confirmation was not seen go again (a dead leader may have lost them)
            self._acks.resumed(now)
            # every unanswered request goes again under its id: which of those sent behind a
            # refused one were applied is unknown now, and one renumbered would be applied twice;
            # a refused one passed by an applied one is refused "requestId" and renumbered then
            self._backpressure.forget_refusals()
        self._phase = READY
        self._unavailable_since = None
        self._given_up = False
        self._addresses.succeeded(now)
        self._out.append(Opened(self.session_id, resumed, self.ttl_ns, w.principal, self.epoch))
        self._flush(now)
        for rid, r in sorted(self._reads.items()):
            if not r.sent:
                self._send_read(rid, now)
        for wid, position in self._watches.items():
            self._send(pb.ClientFrame(watch=position.start(wid)), now)
        if self._confirming:  # answers read before the cut whose delivery is still unconfirmed
            self._send_keepalive(now)
        if self._confirms:  # confirmations asked for before the cut
            self._send_confirm(now)

    def _on_refused_hello(self, failure: pb.Failure, now: int) -> None:
        code = ErrorCode.of_number(failure.code)
        if code == ErrorCode.NOT_LEADER:
            self._addresses.follow(failure.leader)
            self._hangup(now, "not the leader")
        elif code == ErrorCode.SESSION_EXPIRED:
            self._lose_session(error_for(code, failure.message, outcome_known=False))
            if self._want:
                self._send_hello(now)  # a new session, on this connection
            else:
                self._out.append(Hangup(self._conn, "session lost, nothing to do"))
                self._phase = IDLE
        elif code == ErrorCode.UNAVAILABLE:
            self._hangup(now, failure.message)
        else:  # credentials, an argument, the server's session limit: retrying does not help
            error = error_for(code, failure.message, leader=failure.leader)
            self._fail_everything(error)
            self._out.append(HelloRefused(error))
            self._out.append(Hangup(self._conn, failure.message))
            self._want = bool(self._watches)
            self._phase = IDLE

    def _on_response(self, r: pb.Response, now: int) -> None:
        wire = r.id
        rid = self._wire.get(wire, wire)
        p = self._pending.get(rid)
        if p is not None and p.request.id != wire:
            p = None  # an answer to an id given up after a refusal: not ours any more
        failure = r.failure if r.HasField("failure") else None
        refused = failure is not None and failure.code == ErrorCode.RESOURCE_EXHAUSTED \
            and failure.message.startswith("maxUnackedReplies")
        if refused and p is None:
            return  # not applied, not kept: nothing to acknowledge
        if p is None and self._closing:
            return  # failed by close: left undelivered, what it granted goes back with the session
        if p is not None and failure is not None:
            code = ErrorCode.of_number(failure.code)
            if refused:
                # not applied and not kept: sent again once our acks are in (_backpressure.py)
                p.sent = False
                self._acks.forget(("req", wire))
                in_flight = [q.request.id for q in self._pending.values() if q.sent]
                self._backpressure.refused(wire, in_flight)
                if not self._backpressure.holding:
                    self._backpressure.held_by = self._send_keepalive(now, force_acks=True)
                return
            if code == ErrorCode.INVALID_ARGUMENT and failure.message.startswith("requestId"):
                # "not after the last applied and no reply kept": never applied (this client
                # acknowledges only answers it read), and a later id was (the refusal for
                # unacknowledged replies that said so was lost with a connection). It goes
                # again under a new id, after every id used, as after a refusal (_backpressure.py)
                p.sent = False
                self._acks.forget(("req", wire))
                self._wire.pop(wire, None)
                p.request.id = self._next_id
                self._next_id += 1
                self._wire[p.request.id] = rid
                self._flush(now)
                return
            if code == ErrorCode.NOT_LEADER:  # not applied: follow the leader and send it there
                self._addresses.follow(failure.leader)
                self._hangup(now, "not the leader")
                return
        self._backpressure.answered(wire)
        self._acks.applied(("req", wire))  # the request was applied with its acks
        self._acks.add(wire, now)
        self._wire.pop(wire, None)
        if p is None:
            abandoned = self._abandoned.pop(rid, None)
            if abandoned is not None:  # its caller was told UNAVAILABLE: give the grant back
                self._out.append(Completed(rid, abandoned, r))
            return  # else a duplicate across a reconnect: same content, told already
        del self._pending[rid]
        if p.internal:
            if r.HasField("session_closed") and self._closing:
                self._finish_close()
            return
        if p.confirm and failure is None:
            self._confirming[wire] = (rid, p.request, r)
            self._send_keepalive(now)  # its pong confirms the delivery
            return
        self._out.append(Completed(rid, p.request, r))

    def _on_pong(self, ka_id: int, now: int) -> None:
        acks = self._acks.applied(("ka", ka_id))
        if self._probe is not None and self._probe[0] == ka_id:
            self._probe = None
        for wire in acks or ():
            confirmed = self._confirming.pop(wire, None)
            if confirmed is not None:
                self._out.append(Completed(*confirmed))
        confirmed = [t for t, k in self._confirms.items() if k == ka_id]
        for token in confirmed:
            del self._confirms[token]
            self._out.append(AcknowledgementsConfirmed(token))
        if self._backpressure.held_by == ka_id:
            self._settle_refusals()
            self._flush(now)

    def _settle_refusals(self) -> None:
        """The hold of a RESOURCE_EXHAUSTED ends: if a request behind a refused one was
        applied, every request not sent yet takes a new id, after every id used, in order."""
        if not self._backpressure.settle():
            return
        for rid in sorted(self._pending):
            p = self._pending[rid]
            if not p.sent:
                self._wire.pop(p.request.id, None)
                p.request.id = self._next_id
                self._next_id += 1
                self._wire[p.request.id] = rid

    def _on_read_response(self, r: pb.ReadResponse, now: int) -> None:
        if r.HasField("failure") and r.failure.code == ErrorCode.NOT_LEADER and r.id in self._reads:
            self._addresses.follow(r.failure.leader)
            self._hangup(now, "not the leader")
            return
        if self._reads.pop(r.id, None) is not None:
            self._out.append(ReadCompleted(r.id, r))

    def _on_watch_event(self, event: pb.WatchEvent) -> None:
        position = self._watches.get(event.id)
        if position is None:
            return  # unwatched meanwhile
        if event.kind == pb.WatchEvent.FAILED:
            del self._watches[event.id]
            f = event.failure
            self._out.append(WatchEnded(event.id, error_for(f.code, f.message)))
        elif position.accept(event):
            self._out.append(WatchEventReceived(event.id, event))

    def _on_fatal(self, fatal: pb.Fatal, now: int) -> None:
        f = fatal.failure
        code = ErrorCode.of_number(f.code)
        if code == ErrorCode.SESSION_EXPIRED:
            self._out.append(Hangup(self._conn, f.message))
            self._lose_session(error_for(code, f.message, outcome_known=False))
            self._lost_connection(now)
            return
        if code == ErrorCode.NOT_LEADER:
            self._addresses.follow(f.leader)
        elif code == ErrorCode.UNAUTHENTICATED:  # revoked: pending calls fail, reconnecting goes on
            self._fail_everything(error_for(code, f.message, outcome_known=False))
        self._hangup(now, f.message or code.name)
