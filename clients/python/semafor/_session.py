"""The client's session protocol as a pure state machine (docs/protocol.md §2-3, §4b).

Sans-IO and clock-injected, in the shape of etcd's raft ``RawNode`` (inputs step it, a batch of
outputs comes out) and Aeron's ``ClientConductor`` (``do_work(now)``): no sockets, threads or clock
reads inside. Every input takes ``now``, a monotonic time in nanoseconds. Inputs:
``start``, ``connected``, ``received``, ``disconnected``, ``tick``, ``submit``, ``read``,
``cancel``, ``watch``, ``unwatch``, ``close``. Outputs: ``take()`` returns the effects
(``semafor._effects``) the inputs produced since the last call, in order; ``next_deadline()`` says
when to call ``tick`` at the latest. A driver owns the sockets and the clock, runs the effects, and
calls one input at a time (the machine is not thread-safe).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from semafor._effects import (
    Closed,
    Completed,
    Dial,
    Effect,
    Failed,
    Hangup,
    HelloRefused,
    Opened,
    ReadCompleted,
    ReadFailed,
    Send,
    SessionLost,
    WatchEnded,
    WatchEventReceived,
)
from semafor._proto import semafor_pb2 as pb
from semafor._watches import WatchPosition
from semafor.errors import ErrorCode, SemaforError, error_for

MS = 1_000_000
SECOND = 1_000_000_000
DEFAULT_TTL_NS = 10 * SECOND

IDLE, DIALING, HELLO, READY, BACKOFF, CLOSED = "idle", "dialing", "hello", "ready", "backoff", "closed"


@dataclass(frozen=True)
class SessionConfig:
    """How the machine behaves. Times in nanoseconds.

    ``answer_deadline_ns`` and ``probe_after_ns`` bound how long a silent server is waited for:
    while anything is outstanding and nothing was heard for ``probe_after_ns``, a keep-alive with
    an id (answered at once by a live server) goes out; no answer within ``answer_deadline_ns``
    and the connection is left for another address. A ``Welcome`` gets the same deadline."""

    addresses: Sequence[str]
    session_ttl_ns: int = 0  # 0: the server's default (10 s)
    client_name: str = ""
    client_host: str = ""
    client_pid: int = 0
    token: str = ""
    ack_delay_ns: int = 1 * MS
    probe_after_ns: int = 250 * MS
    answer_deadline_ns: int = 750 * MS
    backoff_min_ns: int = 50 * MS
    backoff_max_ns: int = 1 * SECOND
    give_up_after_ns: int = 0  # 0: the session's TTL + 5 s


@dataclass
class _Pending:
    request: pb.Request
    confirm: bool = False  # complete only once the acknowledgement of its answer is applied
    internal: bool = False  # the machine's own (cancel, close): no effect for its answer
    sent: bool = False  # on the current connection
    attempts: int = 0


@dataclass
class _Read:
    read: pb.Read
    sent: bool = False


@dataclass
class _Carrier:
    acks: List[int] = field(default_factory=list)


class ClientSession:
    """One client session over a list of addresses. See the module docstring for the shape."""

    def __init__(self, config: SessionConfig) -> None:
        if not config.addresses:
            raise ValueError("addresses: at least one host:port is needed")
        self.config = config
        self._out: List[Effect] = []
        self._phase = IDLE
        self._want = False  # a connection is wanted (a session, reads or watches to serve)
        self._conn = 0
        self._next_address = 0
        self._address = ""  # of the current (or last) connection
        self._leader_hint = ""
        self._failed_in_round = 0
        self._backoff = config.backoff_min_ns
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
        # requests, in id order
        self._next_id = 1
        self._pending: Dict[int, _Pending] = {}
        self._confirming: Dict[int, Tuple[pb.Request, pb.Response]] = {}
        self._abandoned: Dict[int, pb.Request] = {}  # failed by give-up; a late answer is given back
        # acknowledgements
        self._to_ack: List[int] = []
        self._ack_due: Optional[int] = None
        self._carriers: Dict[Tuple[str, int], _Carrier] = {}  # acks sent, not yet confirmed
        # keep-alives and silence
        self._next_ka = 1
        self._last_sent = 0
        self._last_heard = 0
        self._probe: Optional[Tuple[int, int]] = None  # (keep-alive id, sent at)
        self._held_back: Optional[int] = None  # RESOURCE_EXHAUSTED: no requests until this pong
        # reads and watches
        self._next_read = 1
        self._reads: Dict[int, _Read] = {}
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
        if self._phase == HELLO and now - self._hello_sent_at >= self.config.answer_deadline_ns:
            self._hangup(now, "no Welcome within the answer deadline")
            return
        if self._phase != READY:
            return
        if self._probe is not None and now - self._probe[1] >= self.config.answer_deadline_ns:
            self._hangup(now, "the server stopped answering")
            return
        if self._ack_due is not None and now >= self._ack_due:
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
        self._pending[rid] = _Pending(request, confirm=confirm_delivery)
        self._want = True
        if self._phase == IDLE:
            self._dial(now)
        elif self._phase == READY and self._held_back is None:
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
        self._reads[rid] = _Read(read)
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
        if p.attempts == 0:
            del self._pending[request_id]
            return False
        self._submit_internal(pb.Request(cancel=pb.Cancel(request_id=request_id)), now)
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
        if self._ack_due is not None:
            due.append(self._ack_due)
        if self._phase == BACKOFF:
            due.append(self._redial_at)
        if self._phase == HELLO:
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
        return self._address

    @property
    def phase(self) -> str:
        """idle, dialing, hello, ready, backoff or closed."""
        return self._phase

    def pending_ids(self) -> List[int]:
        """Ids of requests with no answer yet, in id order."""
        return sorted(self._pending)

    # ------------------------------------------------------------------ connection

    def _dial(self, now: int) -> None:
        addresses = self.config.addresses
        if self._leader_hint:
            address, self._leader_hint = self._leader_hint, ""
        else:
            address = addresses[self._next_address % len(addresses)]
            self._next_address += 1
        self._conn += 1
        self._address = address
        self._phase = DIALING
        self._out.append(Dial(self._conn, address))

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
        self._held_back = None
        if self._closing:  # the session is left to its TTL
            self._finish_close()
            return
        if self._unavailable_since is None:
            self._unavailable_since = now
        self._failed_in_round = 0 if was_ready else self._failed_in_round + 1
        if not self._want:
            self._phase = IDLE
            return
        self._phase = BACKOFF
        if self._leader_hint or was_ready or self._failed_in_round < len(self.config.addresses):
            self._redial_at = now
        else:  # every address failed in turn: wait before the next round
            self._failed_in_round = 0
            self._redial_at = now + self._backoff
            self._backoff = min(self._backoff * 2, self.config.backoff_max_ns)
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

    # ------------------------------------------------------------------ frames in

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
            self._carriers.clear()
        else:  # acks whose confirmation was not seen go again (a dead leader may have lost them)
            again = [a for c in self._carriers.values() for a in c.acks]
            self._carriers.clear()
            self._to_ack = sorted(set(again) | set(self._to_ack))
            if self._to_ack and self._ack_due is None:
                self._ack_due = now + self.config.ack_delay_ns
        self._phase = READY
        self._unavailable_since = None
        self._given_up = False
        self._failed_in_round = 0
        self._backoff = self.config.backoff_min_ns
        self._out.append(Opened(self.session_id, resumed, self.ttl_ns, w.principal, self.epoch))
        self._flush(now)
        for rid, r in sorted(self._reads.items()):
            if not r.sent:
                self._send_read(rid, now)
        for wid, position in self._watches.items():
            self._send(pb.ClientFrame(watch=position.start(wid)), now)
        if self._confirming:  # answers read before the cut whose delivery is still unconfirmed
            self._send_keepalive(now)

    def _on_refused_hello(self, failure: pb.Failure, now: int) -> None:
        code = ErrorCode.of_number(failure.code)
        if code == ErrorCode.NOT_LEADER:
            self._leader_hint = failure.leader
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
        rid = r.id
        p = self._pending.get(rid)
        failure = r.failure if r.HasField("failure") else None
        if p is not None and failure is not None:
            code = ErrorCode.of_number(failure.code)
            if code == ErrorCode.RESOURCE_EXHAUSTED and failure.message.startswith("maxUnackedReplies"):
                # not applied and not kept: send it again under its id once our acks are in
                p.sent = False
                self._carriers.pop(("req", rid), None)
                if self._held_back is None:
                    self._held_back = self._send_keepalive(now, force_acks=True)
                return
            if code == ErrorCode.NOT_LEADER:  # not applied: follow the leader and send it there
                self._leader_hint = failure.leader
                self._hangup(now, "not the leader")
                return
        carrier = self._carriers.pop(("req", rid), None)
        del carrier  # the request was applied with its acks
        self._add_ack(rid, now)
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
            self._confirming[rid] = (p.request, r)
            self._send_keepalive(now)  # its pong confirms the delivery
            return
        self._out.append(Completed(rid, p.request, r))

    def _on_pong(self, ka_id: int, now: int) -> None:
        carrier = self._carriers.pop(("ka", ka_id), None)
        if self._probe is not None and self._probe[0] == ka_id:
            self._probe = None
        if carrier is not None:
            for rid in carrier.acks:
                confirmed = self._confirming.pop(rid, None)
                if confirmed is not None:
                    self._out.append(Completed(rid, confirmed[0], confirmed[1]))
        if self._held_back == ka_id:
            self._held_back = None
            self._flush(now)

    def _on_read_response(self, r: pb.ReadResponse, now: int) -> None:
        if r.HasField("failure") and r.failure.code == ErrorCode.NOT_LEADER and r.id in self._reads:
            self._leader_hint = r.failure.leader
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
            self._leader_hint = f.leader
        elif code == ErrorCode.UNAUTHENTICATED:  # revoked: pending calls fail, reconnecting goes on
            self._fail_everything(error_for(code, f.message, outcome_known=False))
        self._hangup(now, f.message or code.name)

    # ------------------------------------------------------------------ frames out

    def _send(self, frame: pb.ClientFrame, now: int) -> None:
        self._last_sent = now
        self._out.append(Send(frame))

    def _flush(self, now: int) -> None:
        """Sends every request not on this connection yet, in id order: after a resume the
        unanswered ones go again under their ids before anything new."""
        if self._phase != READY or self._held_back is not None:
            return
        for rid in sorted(self._pending):
            p = self._pending[rid]
            if not p.sent:
                self._send_request(p, now)

    def _send_request(self, p: _Pending, now: int) -> None:
        request = pb.Request()
        request.CopyFrom(p.request)
        request.acks.extend(self._take_acks(("req", request.id)))
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
        acks = self._take_acks(("ka", ka_id)) if with_acks else []
        if not acks and self._probe is None:
            self._probe = (ka_id, now)
        if force_acks and not acks:
            self._carriers[("ka", ka_id)] = _Carrier()
        self._send(pb.ClientFrame(keep_alive=pb.KeepAlive(id=ka_id, acks=acks)), now)
        return ka_id

    def _take_acks(self, carrier: Tuple[str, int]) -> List[int]:
        acks, self._to_ack = self._to_ack, []
        self._ack_due = None
        if acks:
            self._carriers[carrier] = _Carrier(acks)
        return acks

    def _add_ack(self, rid: int, now: int) -> None:
        self._to_ack.append(rid)
        if self._ack_due is None:
            self._ack_due = now + self.config.ack_delay_ns

    def _submit_internal(self, request: pb.Request, now: int) -> int:
        rid = self._next_id
        self._next_id += 1
        request.id = rid
        self._pending[rid] = _Pending(request, internal=True)
        if self._phase == READY and self._held_back is None:
            self._send_request(self._pending[rid], now)
        return rid

    def _outstanding(self) -> bool:
        return (
            any(p.sent for p in self._pending.values())
            or any(r.sent for r in self._reads.values())
            or any(k[0] == "ka" for k in self._carriers)
        )

    # ------------------------------------------------------------------ endings

    def _fail_everything(self, error: SemaforError) -> None:
        for rid in sorted(self._pending):
            p = self._pending[rid]
            if not p.internal:
                known = error.outcome_known or p.attempts == 0
                self._out.append(Failed(rid, p.request, error_for(
                    error.code, error.message, outcome_known=known, leader=error.leader)))
        for rid in sorted(self._confirming):
            request, _ = self._confirming[rid]
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
        self._to_ack.clear()
        self._ack_due = None
        self._carriers.clear()
        self._abandoned.clear()
        self._held_back = None
        self.session_id = 0
        self._secret = b""
        self._out.append(SessionLost(error))
        self._want = bool(self._reads or self._watches)

    def _finish_close(self) -> None:
        if self._phase in (DIALING, HELLO, READY):
            self._out.append(Hangup(self._conn, "closed"))
        self._phase = CLOSED
        self._closing = False
        self._out.append(Closed())
