"""The client's session protocol as a pure state machine (docs/protocol.md §2-3, §4b).

Sans-IO and clock-injected, in the shape of etcd's raft ``RawNode`` (inputs step it, a batch of
outputs comes out) and Aeron's ``ClientConductor`` (``do_work(now)``): no sockets, threads or clock
reads inside. Every input takes ``now``, a monotonic time in nanoseconds. Inputs:
``start``, ``connected``, ``received``, ``disconnected``, ``tick``, ``submit``, ``read``,
``cancel``, ``watch``, ``unwatch``, ``close``, ``confirm_acknowledgements``, ``nudge``,
``leave_unacknowledged``. Outputs: ``take()`` returns the effects
(``semafor._effects``) the inputs produced since the last call, in order; ``next_deadline()`` says
when to call ``tick`` at the latest. A driver owns the sockets and the clock, runs the effects, and
calls one input at a time (the machine is not thread-safe).
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from semafor._acks import Acks
from semafor._backpressure import Backpressure
from semafor._config import (  # noqa: F401  (MS, SECOND, SessionConfig: this module's API too)
    BACKOFF,
    CLOSED,
    DEFAULT_TTL_NS,
    DIALING,
    HELLO,
    IDLE,
    MS,
    READY,
    SECOND,
    Pending,
    PendingRead,
    SessionConfig,
)
from semafor._dialing import Addresses
from semafor._effects import (
    Closed,
    Dial,
    Effect,
    Failed,
    Hangup,
    ReadFailed,
    Send,
    SessionLost,
    WatchEnded,
)
from semafor._inbound import Inbound
from semafor._proto import semafor_pb2 as pb
from semafor._watches import WatchPosition
from semafor.errors import ErrorCode, SemaforError, error_for

class ClientSession(Inbound):
    """One client session over a list of addresses. See the module docstring for the shape; what
    each server frame does is in ``semafor._inbound``, where to dial in ``semafor._dialing``, the
    acknowledgements in ``semafor._acks``, and ``RESOURCE_EXHAUSTED`` in ``semafor._backpressure``."""

    def __init__(self, config: SessionConfig) -> None:
        self._addresses = Addresses(config.addresses, config.backoff_min_ns, config.backoff_max_ns,
                                    config.avoid_silent_ns, config.stable_after_ns)
        self.config = config
        self._out: List[Effect] = []
        self._phase = IDLE
        self._want = False  # a connection is wanted (a session, reads or watches to serve)
        self._conn = 0
        self._redial_at = 0
        self._hello_sent_at = 0
        self._unavailable_since: Optional[int] = None
        self._given_up = False
        # the session
        self.session_id = 0
        self._secret = b""
        self.ttl_ns = config.session_ttl_ns or DEFAULT_TTL_NS
        self.epoch = 0
        self._closing = False
        # requests by the caller's id (in id order); a wire id differs only after a refusal
        self._next_id = 1
        self._pending: Dict[int, Pending] = {}
        self._wire: Dict[int, int] = {}  # a new wire id -> the caller's id
        self._confirming: Dict[int, Tuple[int, pb.Request, pb.Response]] = {}  # by wire id
        self._abandoned: Dict[int, pb.Request] = {}  # failed by give-up; a late answer is given back
        self._acks = Acks(config.ack_delay_ns)
        self._backpressure = Backpressure()
        # confirm_acknowledgements: tokens not confirmed yet, and the sync keep-alive of each
        self._next_confirm = 1
        self._confirms: Dict[int, int] = {}  # token -> the keep-alive id whose Pong confirms it
        # keep-alives and silence
        self._next_ka = 1
        self._last_sent = 0
        self._last_heard = 0
        self._probe: Optional[Tuple[int, int]] = None  # (keep-alive id, sent at)
        # reads and watches
        self._next_read = 1
        self._reads: Dict[int, PendingRead] = {}
        self._next_watch = 1
        self._watches: Dict[int, WatchPosition] = {}

    # ------------------------------------------------------------------ inputs

    def start(self, now: int) -> None:
        """Connect and open a session now (else the first use does)."""
        self._want = True
        if self._phase == IDLE:
            self._dial(now)

    def connected(self, now: int, conn: Optional[int] = None) -> None:
        """The connection the last ``Dial`` asked for is up: the ``Hello`` goes out."""
        if self._phase != DIALING or (conn is not None and conn != self._conn):
            return
        self._phase = HELLO
        self._last_heard = now
        self._send_hello(now)

    def disconnected(self, now: int, conn: Optional[int] = None) -> None:
        """The connection failed to open or broke. Ignored for a connection already given up."""
        if conn is not None and conn != self._conn:
            return
        if self._phase in (DIALING, HELLO, READY):
            self._lost_connection(now)

    def received(self, frame: pb.ServerFrame, now: int, conn: Optional[int] = None) -> None:
        """A frame read from the current connection."""
        if (conn is not None and conn != self._conn) or self._phase not in (HELLO, READY):
            return
        self._last_heard = now
        body = frame.WhichOneof("body")
        if body == "welcome":
            self._on_welcome(frame.welcome, now)
        elif self._phase != READY:
            if body == "fatal":
                self._on_fatal(frame.fatal, now)
        elif body == "response":
            self._on_response(frame.response, now)
        elif body == "pong":
            self._on_pong(frame.pong.id, now)
        elif body == "read_response":
            self._on_read_response(frame.read_response, now)
        elif body == "watch_event":
            self._on_watch_event(frame.watch_event)
        elif body == "fatal":
            self._on_fatal(frame.fatal, now)

    def tick(self, now: int) -> None:
        """Time passed: keep-alives, acknowledgements, silence, redials and giving up."""
        if self._phase == BACKOFF and now >= self._redial_at:
            self._dial(now)
        if self._unavailable_since is not None and self._phase != READY and not self._given_up:
            if now - self._unavailable_since >= self._give_up_after():
                self._give_up(now)
        if (self._phase == HELLO and self._addresses.has_alternative()
                and now - self._hello_sent_at >= self.config.answer_deadline_ns):
            self._addresses.went_silent(now)
            self._hangup(now, "no Welcome within the answer deadline")
            return
        if self._phase != READY:
            return
        if self._probe is not None and now - self._probe[1] >= self.config.answer_deadline_ns:
            self._addresses.went_silent(now)
            self._hangup(now, "the server stopped answering")
            return
        if self._acks.due is not None and now >= self._acks.due:
            self._send_keepalive(now)
        if self._probe is None and self._outstanding():
            if now - self._last_heard >= self.config.probe_after_ns:
                self._send_keepalive(now, with_acks=False)
        if now - self._last_sent >= self.ttl_ns // 3:
            self._send_keepalive(now)

    def submit(self, request: pb.Request, now: int, confirm_delivery: bool = False,
               session_epoch: Optional[int] = None) -> int:
        """Queues ``request`` (its ``op`` set; id and acks are the machine's) and returns its id.
        Its answer comes as ``Completed`` (or ``Failed``); with ``confirm_delivery``, only once
        the server has applied its acknowledgement (a lease or a WaitMany report: a grant that
        outlives the session only once delivered). With ``session_epoch`` (the ``epoch`` of the
        session that owns what the request names: a release of owned permits), the request is
        for that session alone: if it was lost meanwhile, it fails ``SESSION_EXPIRED`` unsent,
        and never reaches a newer session of this client (whose permits it would take)."""
        rid = self._next_id
        self._next_id += 1
        request.id = rid
        del request.acks[:]
        if session_epoch is not None and (session_epoch != self.epoch or not self.session_id):
            self._out.append(Failed(rid, request, error_for(
                ErrorCode.SESSION_EXPIRED, "the session that owned this ended; what it owned "
                "went back with it; not sent", outcome_known=True)))
            return rid
        if self._phase == CLOSED or self._closing or self._given_up:
            why = "the client is closed" if self._phase == CLOSED or self._closing else (
                "no server answered for the give-up time; not sent"
            )
            self._out.append(Failed(rid, request, error_for(ErrorCode.UNAVAILABLE, why)))
            return rid
        self._pending[rid] = Pending(request, confirm=confirm_delivery)
        self._want = True
        if self._phase == IDLE:
            self._dial(now)
        elif self._phase == READY and not self._backpressure.holding:
            self._send_request(self._pending[rid], now)
        return rid

    def read(self, read: pb.Read, now: int) -> int:
        """Queues a read (its query set) and returns its id; answered with ``ReadCompleted``."""
        rid = self._next_read
        self._next_read += 1
        read.id = rid
        if self._phase == CLOSED or self._closing:
            self._out.append(ReadFailed(rid, error_for(ErrorCode.UNAVAILABLE, "the client is closed")))
            return rid
        self._reads[rid] = PendingRead(read)
        self._want = True
        if self._phase == IDLE:
            self._dial(now)
        elif self._phase == READY:
            self._send_read(rid, now)
        return rid

    def cancel(self, request_id: int, now: int) -> bool:
        """Withdraws a waiting request (docs/protocol.md §5 ``cancel``). True: the request was
        sent, a ``cancel`` follows it, and it is still answered (a grant that came first must be
        given back). False: it was never sent (dropped now) or is answered already."""
        p = self._pending.get(request_id)
        if p is None or p.internal:
            return False
        if p.attempts == 0 or (not p.sent and self._backpressure.is_refused(p.request.id)):
            del self._pending[request_id]  # never applied: nothing to withdraw
            return False
        self._submit_internal(pb.Request(cancel=pb.Cancel(request_id=p.request.id)), now)
        return True

    def watch(self, name: bytes, now: int, prefix: bool = False, limit: int = 0,
              summary: bool = False, after_revision: int = 0) -> int:
        """Starts a watch; its events come as ``WatchEventReceived``; it resumes by itself after
        reconnects from the last revision told (docs/protocol.md §4b)."""
        wid = self._next_watch
        self._next_watch += 1
        self._watches[wid] = WatchPosition(name, prefix, limit, summary, after_revision)
        if self._phase == CLOSED or self._closing:
            del self._watches[wid]
            self._out.append(WatchEnded(wid, error_for(ErrorCode.UNAVAILABLE, "the client is closed")))
            return wid
        self._want = True
        if self._phase == IDLE:
            self._dial(now)
        elif self._phase == READY:
            self._send(pb.ClientFrame(watch=self._watches[wid].start(wid)), now)
        return wid

    def unwatch(self, watch_id: int, now: int) -> None:
        """Ends a watch; no event of it comes after this."""
        if self._watches.pop(watch_id, None) is not None and self._phase == READY:
            self._send(pb.ClientFrame(unwatch=pb.Unwatch(id=watch_id)), now)

    def confirm_acknowledgements(self, now: int) -> int:
        """Asks the server to confirm that it applied every acknowledgement sent so far, and
        those due now (docs/protocol.md §3, ``sync``): a keep-alive with ``sync`` carries them at
        once. Returns a token; ``AcknowledgementsConfirmed(token)`` comes with its ``Pong``. A
        connection lost first: a new one is sent after the resume. The session lost first:
        ``SessionLost`` comes instead (the undelivered grants went back with it)."""
        token = self._next_confirm
        self._next_confirm += 1
        self._confirms[token] = 0
        if self._phase == READY:
            self._send_confirm(now)
        return token

    def nudge(self, now: int) -> None:
        """Sends a keep-alive answered at once (no acknowledgements), so that a ``Pong`` comes
        soon: a driver whose thread blocks reading the socket wakes it so."""
        if self._phase == READY:
            self._send_keepalive(now, with_acks=False)

    def leave_unacknowledged(self, response_id: int, now: int) -> None:
        """The answer just reported with this ``Response.id`` is not to be acknowledged (its
        caller is gone as the client closes: undelivered, what it granted goes back with the
        session). Call it before any other input after the one that reported the answer."""
        self._acks.withdraw(response_id)

    def close(self, now: int) -> None:
        """Ends the session (``close_session``): everything it owns goes back at once. Pending
        requests and reads fail ``UNAVAILABLE``; ``Closed`` follows the answer, or comes at once
        when no session is attached."""
        if self._phase == CLOSED or self._closing:
            return
        why = error_for(ErrorCode.UNAVAILABLE, "the client was closed", outcome_known=False)
        self._fail_everything(why)
        for wid in list(self._watches):
            self._out.append(WatchEnded(wid, why))
        self._watches.clear()
        if self._phase == READY and self.session_id:
            self._closing = True
            self._submit_internal(pb.Request(close_session=pb.CloseSession()), now)
        else:
            self._finish_close()

    def take(self) -> List[Effect]:
        """The effects produced since the last call, in order."""
        out, self._out = self._out, []
        return out

    def next_deadline(self) -> Optional[int]:
        """The latest time to call ``tick``; None: nothing is due until the next input."""
        due: List[int] = []
        if self._acks.due is not None:
            due.append(self._acks.due)
        if self._phase == BACKOFF:
            due.append(self._redial_at)
        if self._phase == HELLO and self._addresses.has_alternative():
            due.append(self._hello_sent_at + self.config.answer_deadline_ns)
        if self._unavailable_since is not None and self._phase != READY and not self._given_up:
            due.append(self._unavailable_since + self._give_up_after())
        if self._phase == READY:
            due.append(self._last_sent + self.ttl_ns // 3)
            if self._probe is not None:
                due.append(self._probe[1] + self.config.answer_deadline_ns)
            elif self._outstanding():
                due.append(self._last_heard + self.config.probe_after_ns)
        return min(due) if due else None

    @property
    def conn(self) -> int:
        """The number of the connection the last ``Dial`` asked for."""
        return self._conn

    @property
    def address(self) -> str:
        """The address the last ``Dial`` asked for (the server of the current connection)."""
        return self._addresses.current

    @property
    def phase(self) -> str:
        """idle, dialing, hello, ready, backoff or closed."""
        return self._phase

    def pending_ids(self) -> List[int]:
        """Ids of requests with no answer yet, in id order."""
        return sorted(self._pending)

    # ------------------------------------------------------------------ connection

    def _dial(self, now: int) -> None:
        self._conn += 1
        self._phase = DIALING
        self._out.append(Dial(self._conn, self._addresses.next(now)))

    def _send_hello(self, now: int) -> None:
        c = self.config
        hello = pb.Hello(
            protocol_version=1,
            session_id=self.session_id,
            session_ttl_ns=c.session_ttl_ns,
            client_name=c.client_name,
            client_host=c.client_host,
            client_pid=c.client_pid,
            token=c.token,
            session_secret=self._secret,
        )
        self._hello_sent_at = now
        self._send(pb.ClientFrame(hello=hello), now)

    def _hangup(self, now: int, reason: str) -> None:
        self._out.append(Hangup(self._conn, reason))
        self._lost_connection(now)

    def _lost_connection(self, now: int) -> None:
        was_ready = self._phase == READY
        for p in self._pending.values():
            p.sent = False
        for r in self._reads.values():
            r.sent = False
        self._probe = None
        self._backpressure.held_by = None  # settled at the resume
        if self._closing:  # the session is left to its TTL
            self._finish_close()
            return
        if self._unavailable_since is None:
            self._unavailable_since = now
        redial_at = self._addresses.failed(now, was_ready)
        if not self._want:
            self._phase = IDLE
            return
        self._phase = BACKOFF
        self._redial_at = redial_at
        if self._redial_at <= now:
            self._dial(now)

    def _give_up_after(self) -> int:
        return self.config.give_up_after_ns or self.ttl_ns + 5 * SECOND

    def _give_up(self, now: int) -> None:
        """No server for the give-up time: pending calls fail UNAVAILABLE; dialing goes on."""
        self._given_up = True
        for rid in sorted(self._pending):
            p = self._pending.pop(rid)
            if p.internal:
                continue
            if p.attempts:
                self._abandoned[rid] = p.request
            self._out.append(Failed(rid, p.request, error_for(
                ErrorCode.UNAVAILABLE,
                "no server answered; outcome unknown" if p.attempts else "no server answered; not sent",
                outcome_known=p.attempts == 0)))
        for rid in sorted(self._reads):
            self._out.append(ReadFailed(rid, error_for(ErrorCode.UNAVAILABLE, "no server answered")))
        self._reads.clear()

    # ------------------------------------------------------------------ frames out

    def _send(self, frame: pb.ClientFrame, now: int) -> None:
        self._last_sent = now
        self._out.append(Send(frame))

    def _flush(self, now: int) -> None:
        """Sends every request not on this connection yet, in id order: after a resume the
        unanswered ones go again under their ids before anything new."""
        if self._phase != READY or self._backpressure.holding:
            return
        for rid in sorted(self._pending):
            p = self._pending[rid]
            if not p.sent:
                self._send_request(p, now)

    def _send_request(self, p: Pending, now: int) -> None:
        request = pb.Request()
        request.CopyFrom(p.request)
        request.acks.extend(self._acks.take(("req", request.id)))
        p.sent = True
        p.attempts += 1
        self._send(pb.ClientFrame(request=request), now)

    def _send_read(self, rid: int, now: int) -> None:
        r = self._reads[rid]
        r.sent = True
        self._send(pb.ClientFrame(read=r.read), now)

    def _send_keepalive(self, now: int, force_acks: bool = False, with_acks: bool = True) -> int:
        """A keep-alive with an id. With acks, its pong confirms them; without, it is answered at
        once and serves as the probe of a silent server."""
        ka_id = self._next_ka
        self._next_ka += 1
        acks = self._acks.take(("ka", ka_id), keep=force_acks) if with_acks else []
        if not acks and self._probe is None:
            self._probe = (ka_id, now)
        self._send(pb.ClientFrame(keep_alive=pb.KeepAlive(id=ka_id, acks=acks)), now)
        return ka_id

    def _send_confirm(self, now: int) -> None:
        """A keep-alive with ``sync`` and the acknowledgements due, for every token waiting."""
        ka_id = self._next_ka
        self._next_ka += 1
        acks = self._acks.take(("ka", ka_id), keep=True)
        for token in self._confirms:
            self._confirms[token] = ka_id
        self._send(pb.ClientFrame(keep_alive=pb.KeepAlive(id=ka_id, acks=acks, sync=True)), now)

    def _submit_internal(self, request: pb.Request, now: int) -> int:
        rid = self._next_id
        self._next_id += 1
        request.id = rid
        self._pending[rid] = Pending(request, internal=True)
        if self._phase == READY and not self._backpressure.holding:
            self._send_request(self._pending[rid], now)
        return rid

    def _outstanding(self) -> bool:
        return (
            any(p.sent for p in self._pending.values())
            or any(r.sent for r in self._reads.values())
            or self._acks.awaiting_pong()
        )

    # ------------------------------------------------------------------ endings

    def _fail_everything(self, error: SemaforError) -> None:
        for rid in sorted(self._pending):
            p = self._pending[rid]
            if not p.internal:
                known = error.outcome_known or p.attempts == 0
                self._out.append(Failed(rid, p.request, error_for(
                    error.code, error.message, outcome_known=known, leader=error.leader)))
        for rid, request, _ in sorted(self._confirming.values(), key=lambda c: c[0]):
            self._out.append(Failed(rid, request, error_for(
                error.code, error.message + " (its delivery was not confirmed)", outcome_known=False)))
        for rid in sorted(self._reads):
            self._out.append(ReadFailed(rid, error))
        self._pending.clear()
        self._confirming.clear()
        self._reads.clear()

    def _lose_session(self, error: SemaforError) -> None:
        """SESSION_EXPIRED: everything pending fails at once, a new session opens on next use."""
        reads = dict(self._reads)
        self._reads.clear()  # reads need no session: they survive it
        self._fail_everything(error)
        self._reads = reads
        self._acks.clear()
        self._abandoned.clear()
        self._backpressure.reset()
        self._wire.clear()
        self._confirms.clear()
        self.session_id = 0
        self._secret = b""
        self._out.append(SessionLost(error))
        self._want = bool(self._reads or self._watches)

    def _finish_close(self) -> None:
        if self._phase in (DIALING, HELLO, READY):
            self._out.append(Hangup(self._conn, "closed"))
        self._phase = CLOSED
        self._closing = False
        self._confirms.clear()
        self._out.append(Closed())
