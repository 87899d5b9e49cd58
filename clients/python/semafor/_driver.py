"""The blocking client's driver: one I/O thread runs the session machine's effects (dial, TLS,
read, tick); callers submit under a lock and block until their call is answered.

Plaintext frames are written by the submitting thread itself (one system call, no hand-off), and
a caller waiting for its answer reads the socket itself (under ``lock``, only what is there), and
the I/O thread watches the socket only while no caller waits (meanwhile it only ticks, at least
every ``POLL_WHILE_CALLERS_S``). So an answer costs no thread wake-up and hand-off between the I/O
thread and the caller (about 100 µs of the 150 µs a call took on the 2-core test machine:
docs/benchmarks.md, "Python client"). Over TLS every read and write goes through the I/O thread,
because an ``SSLSocket`` must not be used from two threads at once."""

from __future__ import annotations

import collections
import select
import socket
import ssl
import threading
import time
from typing import Callable, Deque, Dict, List, Optional, Tuple

from semafor import _effects as fx
from semafor import _ops
from semafor._codec import FrameDecoder, FrameError, encode
from semafor._proto import semafor_pb2 as pb
from semafor._session import ClientSession, SessionConfig
from semafor.errors import SemaforError

WRITE_TIMEOUT_S = 5.0  # a peer that stops reading: the connection is given up
POLL_WHILE_CALLERS_S = 0.001  # the I/O thread's tick while callers read (the acknowledgement delay)
CALLER_SELECT_S = 0.05  # a reading caller looks at its call (answered by another reader?) this often
CALLERS_STALE_S = 0.2  # no caller looked at the socket for this long: the I/O thread reads it
CALLERS_LINGER_S = 0.002  # after a caller's answer, the socket stays the callers' this long


def split_address(address: str) -> Tuple[str, int]:
    host, _, port = address.rpartition(":")
    return host.strip("[]") or "127.0.0.1", int(port)


class Signal:
    """A one-shot event: ``set`` once, ``wait`` by any number of threads. A bare lock held until
    set, because ``threading.Event`` (a condition over a lock) costs ~8 µs to make on the test
    machine, once per call."""

    __slots__ = ("_lock", "_set")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lock.acquire()
        self._set = False

    def set(self) -> None:
        """Wakes every waiter; idempotent. Called under the driver's lock."""
        if not self._set:
            self._set = True
            self._lock.release()

    def is_set(self) -> bool:
        return self._set

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Blocks until set, or ``timeout`` seconds (None: no limit); returns ``is_set()``."""
        if self._set:
            return True
        if self._lock.acquire(timeout=-1 if timeout is None else timeout):
            self._lock.release()  # the next waiter passes too
        return self._set


class Call:
    """One request's answer, as a caller waits for it."""

    __slots__ = ("event", "response", "error", "abandoned", "ignore", "request")

    def __init__(self, ignore: bool = False) -> None:
        self.event = Signal()
        self.response: Optional[object] = None
        self.error: Optional[SemaforError] = None
        self.abandoned = False  # its caller is gone: a grant that answers it is given back
        self.ignore = ignore  # a give-back of our own: nobody waits for it
        self.request: Optional[pb.Request] = None


class Driver:
    """Owns the socket, the I/O thread and the machine (guarded by ``lock``)."""

    def __init__(self, config: SessionConfig, tls: Optional[ssl.SSLContext],
                 connect_timeout: float) -> None:
        self.machine = ClientSession(config)
        self.lock = threading.RLock()
        self.tls = tls
        self.connect_timeout = connect_timeout
        self.calls: Dict[int, Call] = {}
        self.reads: Dict[int, Call] = {}
        self.watchers: Dict[int, Callable[[object], None]] = {}
        self.session_lost: List[Callable[[SemaforError], None]] = []
        self.opened = threading.Event()
        self.closed = threading.Event()
        self.refused: Optional[SemaforError] = None
        self.epoch = 0
        self._sock: Optional[socket.socket] = None
        self._conn = 0
        self._dial: Optional[Tuple[int, str]] = None
        self._outbox: List[bytes] = []
        self._effects: Deque[fx.Effect] = collections.deque()
        self._decoder = FrameDecoder()
        # callers in wait_for read the socket; the I/O thread leaves it to them while one has
        # looked at it within CALLERS_STALE_S (a count an interrupt left too high heals so)
        self._waiting = 0
        self._callers_seen = 0.0
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="semafor-io", daemon=True)

    @staticmethod
    def now() -> int:
        return time.monotonic_ns()

    def start(self) -> None:
        self._thread.start()
        with self.lock:
            self.machine.start(self.now())
            self.apply()

    # ------------------------------------------------------------------ effects (under the lock)

    def apply(self) -> None:
        """Runs the machine's effects until it has none left. They wait in a queue so that an
        exception raised into a caller's thread midway (KeyboardInterrupt) loses none: the next
        ``apply``, the I/O thread's at the latest, runs the rest."""
        queue = self._effects
        queue.extend(self.machine.take())
        while queue:
            self._effect(queue.popleft())
            if not queue:
                queue.extend(self.machine.take())

    def _effect(self, e: fx.Effect) -> None:
        if isinstance(e, fx.Send):
            self._write(encode(e.frame))
        elif isinstance(e, fx.Completed):
            self._completed(e.request_id, e.request, e.response)
        elif isinstance(e, fx.Failed):
            self._finish(self.calls.pop(e.request_id, None), error=e.error)
        elif isinstance(e, fx.ReadCompleted):
            self._finish(self.reads.pop(e.read_id, None), response=e.response)
        elif isinstance(e, fx.ReadFailed):
            self._finish(self.reads.pop(e.read_id, None), error=e.error)
        elif isinstance(e, fx.WatchEventReceived):
            self._watch(e.watch_id, e.event)
        elif isinstance(e, fx.WatchEnded):
            self._watch(e.watch_id, e.error)
            self.watchers.pop(e.watch_id, None)
        elif isinstance(e, fx.Dial):
            self._close_socket()
            self._dial = (e.conn, e.address)
            self._wake()
        elif isinstance(e, fx.Hangup):
            if e.conn == self._conn:
                self._close_socket()
        elif isinstance(e, fx.Opened):
            self.epoch = e.epoch
            self.opened.set()
        elif isinstance(e, fx.HelloRefused):
            self.refused = e.error
            self.opened.set()
        elif isinstance(e, fx.SessionLost):
            for listener in list(self.session_lost):
                try:
                    listener(e.error)
                except Exception:  # a listener's bug must not stop the I/O thread
                    pass
        elif isinstance(e, fx.Closed):
            self.closed.set()

    def _watch(self, watch_id: int, item: object) -> None:
        sink = self.watchers.get(watch_id)
        if sink is not None:
            sink(item)

    def _completed(self, rid: int, request: pb.Request, response: pb.Response) -> None:
        call = self.calls.pop(rid, None)
        if call is None or call.abandoned:  # the caller is gone (or was told UNAVAILABLE)
            self.give_back(request, response)
            if call is not None:
                call.event.set()
            return
        self._finish(call, response=response)

    @staticmethod
    def _finish(call: Optional[Call], response: object = None, error: Optional[SemaforError] = None) -> None:
        if call is not None:
            call.response, call.error = response, error
            call.event.set()

    def give_back(self, request: pb.Request, response: pb.Response) -> None:
        """Fire-and-forget requests that undo a grant nobody will receive."""
        epoch = self.machine.epoch
        for undo in _ops.give_back(request, response):
            rid = self.machine.submit(undo, self.now(),
                                      session_epoch=_ops.session_epoch(undo, epoch))
            self.calls[rid] = Call(ignore=True)

    def _write(self, data: bytes) -> None:
        if self._sock is None:
            return
        if self.tls is not None and threading.current_thread() is not self._thread:
            self._outbox.append(data)
            self._wake()
            return
        try:
            self._sock.sendall(data)
        except OSError:
            self._lost(self._conn)

    def _lost(self, conn: int) -> None:
        if conn == self._conn:
            self._close_socket()
            self.machine.disconnected(self.now(), conn)

    def _close_socket(self) -> None:
        sock, self._sock = self._sock, None
        self._outbox.clear()
        self._decoder.reset()
        if sock is not None:
            try:
                sock.close()
            except OSError:
                pass

    def _wake(self) -> None:
        try:
            self._wake_w.send(b"x")
        except OSError:
            pass

    # ------------------------------------------------------------------ the I/O thread

    def _run(self) -> None:
        while not self._stopping:
            with self.lock:
                dial, self._dial = self._dial, None
            if dial is not None:
                self._connect(*dial)
                continue
            with self.lock:
                sock, outbox, self._outbox = self._sock, self._outbox, []
                due = self.machine.next_deadline()
            if sock is not None and outbox:
                try:
                    for data in outbox:
                        sock.sendall(data)
                except OSError:
                    with self.lock:
                        self._lost(self._conn)
                        self.apply()
                    continue
            wait = 1.0 if due is None else min(1.0, max(0.0, (due - self.now()) / 1e9))
            if sock is not None and self._callers_read():
                sock = None  # callers read it
                wait = min(wait, POLL_WHILE_CALLERS_S)
            if self._select(sock, wait) and sock is not None:
                self._read(sock)
            with self.lock:
                self.machine.tick(self.now())
                self.apply()

    def _select(self, sock: Optional[socket.socket], wait: float) -> bool:
        if isinstance(sock, ssl.SSLSocket) and sock.pending():
            return True
        watched = [self._wake_r] + ([sock] if sock is not None else [])
        try:
            ready, _, _ = select.select(watched, [], [], wait)
        except (OSError, ValueError):  # closed under us by a Hangup
            return False
        if self._wake_r in ready:
            try:
                while self._wake_r.recv(4096):
                    pass
            except OSError:
                pass
        return sock is not None and sock in ready

    def wait_for(self, call: Call) -> None:
        """Blocks until ``call`` is answered. On a plaintext connection the caller reads the
        socket itself while it waits (see the module docstring); over TLS it waits for the I/O
        thread."""
        if self.tls is not None:
            call.event.wait()
            return
        with self.lock:
            self._waiting += 1
        try:
            while not call.event.is_set():
                self._callers_seen = time.monotonic()
                sock = self._sock
                if sock is None:  # reconnecting: the I/O thread dials, then callers read
                    call.event.wait(CALLER_SELECT_S)
                    continue
                try:
                    ready, _, _ = select.select([sock], [], [], CALLER_SELECT_S)
                except (OSError, ValueError):  # closed under us by a Hangup
                    continue
                if ready:
                    self._read_shielded(sock)
        finally:
            with self.lock:
                self._waiting -= 1
                self._callers_seen = time.monotonic()

    def _callers_read(self) -> bool:
        """Callers read the socket now, or did a moment ago and likely will again (plaintext
        only): a frame nobody waits for is read by the I/O thread at most ``CALLERS_LINGER_S``
        plus a poll later."""
        if self.tls is not None:
            return False
        since = time.monotonic() - self._callers_seen
        return since < CALLERS_LINGER_S or (self._waiting > 0 and since < CALLERS_STALE_S)

    def _read_shielded(self, sock: socket.socket) -> None:
        """``_read`` in a caller's thread, where an exception (KeyboardInterrupt) may land between
        reading bytes and handing them to the machine: then the connection is given up, and the
        resume recovers what was lost (unanswered requests are sent again under their ids and
        answered from the kept replies, unconfirmed acknowledgements go again, watches resume)."""
        conn = self._conn
        try:
            self._read(sock)
        except BaseException:
            with self.lock:
                self._lost(conn)
                self.apply()
            raise

    def _read(self, sock: socket.socket) -> None:
        """Reads what ``sock`` has (nothing if another thread took it first) and steps the
        machine with its frames; under ``lock``, so readers take turns and frames stay in order."""
        with self.lock:
            conn = self._conn
            if self._sock is not sock:
                return
            if not isinstance(sock, ssl.SSLSocket):
                try:
                    if not select.select([sock], [], [], 0)[0]:
                        return  # another reader took it
                except (OSError, ValueError):
                    return
            try:
                data = sock.recv(65536)
            except (ssl.SSLWantReadError, socket.timeout):
                return
            except OSError:
                data = b""
            if not data:
                self._lost(conn)
                self.apply()
                return
            try:
                frames = self._decoder.feed(data)
            except FrameError:
                frames = None
            if frames is None:
                self._lost(conn)
            else:
                now = self.now()
                for frame in frames:
                    self.machine.received(frame, now, conn)
                    self.apply()
            self.apply()

    def _connect(self, conn: int, address: str) -> None:
        sock: Optional[socket.socket] = None
        try:
            host, port = split_address(address)
            sock = socket.create_connection((host, port), timeout=self.connect_timeout)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self.tls is not None:
                sock = self.tls.wrap_socket(sock, server_hostname=host)
            sock.settimeout(WRITE_TIMEOUT_S)
        except (OSError, ValueError):
            if sock is not None:
                sock.close()
            with self.lock:
                self.machine.disconnected(self.now(), conn)
                self.apply()
            return
        with self.lock:
            if self._stopping or self.machine.conn != conn:
                sock.close()
                return
            self._sock, self._conn = sock, conn
            self._decoder.reset()
            self.machine.connected(self.now(), conn)
            self.apply()

    def stop(self) -> None:
        """Stops the I/O thread and closes the sockets (after ``close`` or a failed connect)."""
        with self.lock:
            self._stopping = True
            self._close_socket()
        self._wake()
        if threading.current_thread() is not self._thread:
            self._thread.join(5.0)
        for s in (self._wake_r, self._wake_w):
            s.close()
