"""The asyncio client's driver: a conductor task ticks the session machine, a reader task per
connection feeds it frames, and effects run on the event loop (no threads)."""

from __future__ import annotations

import asyncio
import socket
import ssl
import struct
import time
from typing import Callable, Dict, List, Optional, Set

from semafor import _effects as fx
from semafor import _ops
from semafor._codec import MAX_FRAME, encode
from semafor._driver import split_address
from semafor._proto import semafor_pb2 as pb
from semafor._session import ClientSession, SessionConfig
from semafor.errors import SemaforError


class AioDriver:
    """Owns the machine, the connection and the tasks; use only from its event loop."""

    def __init__(self, config: SessionConfig, tls: Optional[ssl.SSLContext], connect_timeout: float) -> None:
        self.machine = ClientSession(config)
        self.tls = tls
        self.connect_timeout = connect_timeout
        self.calls: Dict[int, "asyncio.Future[object]"] = {}
        self.requests: Dict[int, pb.Request] = {}
        self.abandoned: Set[int] = set()
        self.reads: Dict[int, "asyncio.Future[object]"] = {}
        self.watchers: Dict[int, Callable[[object], None]] = {}
        self.session_lost: List[Callable[[SemaforError], None]] = []
        self.epoch = 0
        self.refused: Optional[SemaforError] = None
        self.opened = asyncio.Event()
        self.closed = asyncio.Event()
        self._wake = asyncio.Event()
        self._writer: Optional[asyncio.StreamWriter] = None
        self._conn = 0
        self._tasks: Set["asyncio.Task[None]"] = set()
        self._conductor: Optional["asyncio.Task[None]"] = None
        self._stopping = False

    @staticmethod
    def now() -> int:
        return time.monotonic_ns()

    def start(self) -> None:
        self._conductor = asyncio.get_running_loop().create_task(self._conduct())
        self.machine.start(self.now())
        self.apply()

    def apply(self) -> None:
        while True:
            effects = self.machine.take()
            if not effects:
                break
            for e in effects:
                self._effect(e)
        self._wake.set()

    def _effect(self, e: fx.Effect) -> None:
        if isinstance(e, fx.Send):
            if self._writer is not None:
                self._writer.write(encode(e.frame))
        elif isinstance(e, fx.Completed):
            self._completed(e.request_id, e.request, e.response)
        elif isinstance(e, fx.Failed):
            self.requests.pop(e.request_id, None)
            self.abandoned.discard(e.request_id)
            self._settle(self.calls.pop(e.request_id, None), error=e.error)
        elif isinstance(e, fx.ReadCompleted):
            self._settle(self.reads.pop(e.read_id, None), result=e.response)
        elif isinstance(e, fx.ReadFailed):
            self._settle(self.reads.pop(e.read_id, None), error=e.error)
        elif isinstance(e, fx.WatchEventReceived):
            sink = self.watchers.get(e.watch_id)
            if sink is not None:
                sink(e.event)
        elif isinstance(e, fx.WatchEnded):
            sink = self.watchers.pop(e.watch_id, None)
            if sink is not None:
                sink(e.error)
        elif isinstance(e, fx.Dial):
            self._close_writer()
            self._spawn(self._connect(e.conn, e.address))
        elif isinstance(e, fx.Hangup):
            if e.conn == self._conn:
                self._close_writer()
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
                except Exception:  # a listener's bug must not stop the driver
                    pass
        elif isinstance(e, fx.Closed):
            self.closed.set()

    def _completed(self, rid: int, request: pb.Request, response: pb.Response) -> None:
        future = self.calls.pop(rid, None)
        self.requests.pop(rid, None)
        if future is None or rid in self.abandoned or future.cancelled():
            self.abandoned.discard(rid)
            self.give_back(request, response)
            return
        future.set_result(response)

    @staticmethod
    def _settle(future: Optional["asyncio.Future[object]"], result: object = None,
                error: Optional[SemaforError] = None) -> None:
        if future is None or future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def give_back(self, request: pb.Request, response: pb.Response) -> None:
        """Fire-and-forget requests undoing a grant nobody will receive."""
        epoch = self.machine.epoch
        for undo in _ops.give_back(request, response):
            self.machine.submit(undo, self.now(), session_epoch=_ops.session_epoch(undo, epoch))

    def submit(self, request: pb.Request, confirm: bool,
               epoch: "Optional[int]" = None) -> "tuple[int, asyncio.Future[object]]":
        future: "asyncio.Future[object]" = asyncio.get_running_loop().create_future()
        rid = self.machine.submit(request, self.now(), confirm_delivery=confirm, session_epoch=epoch)
        self.calls[rid] = future
        self.requests[rid] = request
        self.apply()
        return rid, future

    def withdraw(self, rid: int, future: "asyncio.Future[object]", request: pb.Request) -> None:
        """The awaiting task was cancelled: cancel the wait; a grant that came goes back."""
        if future.done() and not future.cancelled() and future.exception() is None:
            self.calls.pop(rid, None)
            self.give_back(request, future.result())  # type: ignore[arg-type]
        elif rid in self.calls:
            self.abandoned.add(rid)
            if not self.machine.cancel(rid, self.now()):
                self.calls.pop(rid, None)
                self.requests.pop(rid, None)
                self.abandoned.discard(rid)
        self.apply()

    def _spawn(self, coroutine) -> None:  # type: ignore[no-untyped-def]
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _close_writer(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.close()

    async def _connect(self, conn: int, address: str) -> None:
        try:
            host, port = split_address(address)
            reader, writer = await asyncio.wait_for(asyncio.open_connection(
                host, port, ssl=self.tls, server_hostname=host if self.tls else None,
                limit=MAX_FRAME + 4), self.connect_timeout)
        except (OSError, ValueError, asyncio.TimeoutError):
            self.machine.disconnected(self.now(), conn)
            self.apply()
            return
        if self._stopping or self.machine.conn != conn:
            writer.close()
            return
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._writer, self._conn = writer, conn
        self.machine.connected(self.now(), conn)
        self.apply()
        await self._read(conn, reader, writer)

    async def _read(self, conn: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                (length,) = struct.unpack(">I", await reader.readexactly(4))
                if length == 0 or length > MAX_FRAME:
                    break
                frame = pb.ServerFrame()
                frame.ParseFromString(await reader.readexactly(length))
                if self._writer is not writer:
                    return
                self.machine.received(frame, self.now(), conn)
                self.apply()
        except (OSError, asyncio.IncompleteReadError, ValueError):
            pass
        except Exception:  # protobuf DecodeError: a frame that does not parse
            pass
        if self._writer is writer:
            self._close_writer()
            self.machine.disconnected(self.now(), conn)
            self.apply()

    async def _conduct(self) -> None:
        while not self._stopping:
            self._wake.clear()  # before the deadline is read: an input after it wakes us
            due = self.machine.next_deadline()
            wait = 1.0 if due is None else min(1.0, max(0.0, (due - self.now()) / 1e9))
            try:
                await asyncio.wait_for(self._wake.wait(), wait)
            except asyncio.TimeoutError:
                pass
            self.machine.tick(self.now())
            self.apply()
            if self._writer is not None:
                try:
                    await self._writer.drain()
                except (OSError, ConnectionError):
                    pass

    async def stop(self) -> None:
        self._stopping = True
        self._close_writer()
        tasks = [t for t in list(self._tasks) + [self._conductor] if t is not None]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
