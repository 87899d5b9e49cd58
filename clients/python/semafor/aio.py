"""The asyncio client: ``async with semafor.aio.connect(...) as client``.

The same shape as the blocking client (``semafor.connect``), with coroutines. A task of the
client drives the session machine on the running loop: keep-alives at TTL/3, acknowledgements
within a millisecond, reconnects and resumes. Use a client from the loop it was created on only
(not thread-safe); any number of tasks may use it at once. Cancelling a task that waits
(``acquire``, ``decrement``, ``lease``, ``await_zero``, ``semop``, ``WaitMany.wait``) withdraws
its wait from the server, and a grant that raced the cancellation is given back: nothing is
orphaned (docs/semantics.md#cancelled-waits). Errors are :mod:`semafor.errors` exceptions."""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, Generator, List, Optional, TypeVar, Union

from semafor import _ops
from semafor._aio_driver import AioDriver
from semafor._common import TlsArg, session_config, tls_context
from semafor._proto import semafor_pb2 as pb
from semafor._sync import AcquireTimeout
from semafor.errors import ErrorCode, SemaforError
from semafor.types import Detail, Grant, Policy, SemopOp, SemopResult, Status, Timeout, WatchEvent

T = TypeVar("T")
__all__ = ["connect", "Client", "Semaphore", "Permit", "Lease", "WaitMany", "Watch", "AcquireTimeout"]


class _Connecting:
    """``await connect(...)`` or ``async with connect(...) as client``."""

    def __init__(self, coroutine: Awaitable["Client"]) -> None:
        self._coroutine = coroutine
        self._client: Optional[Client] = None

    def __await__(self) -> Generator[Any, None, "Client"]:
        return self._coroutine.__await__()

    async def __aenter__(self) -> "Client":
        self._client = await self._coroutine
        return self._client

    async def __aexit__(self, *exc: object) -> None:
        if self._client is not None:
            await self._client.close()


def connect(addresses: Union[str, List[str]] = "127.0.0.1:7400", *, token: str = "",
            tls: TlsArg = None, session_ttl: Timeout = None, client_name: str = "",
            connect_timeout: float = 5.0) -> _Connecting:
    """Connects and opens a session; arguments as :func:`semafor.connect`. Awaitable, or an
    async context manager that closes the client. Waits at most ``connect_timeout`` seconds;
    raises ``Unauthenticated``, ``InvalidArgument`` or ``Unavailable``."""
    async def opening() -> Client:
        driver = AioDriver(session_config(addresses, token, session_ttl, client_name),
                           tls_context(tls), connect_timeout)
        driver.start()
        try:
            await asyncio.wait_for(driver.opened.wait(), connect_timeout)
        except asyncio.TimeoutError:
            pass
        if not driver.opened.is_set() or driver.refused is not None:
            await driver.stop()
            if driver.refused is not None:
                raise driver.refused
            raise _ops.unavailable(f"no server at {addresses} answered within {connect_timeout} s", True)
        return Client(driver)
    return _Connecting(opening())


class Client:
    """One session; create with :func:`connect`. Methods are coroutines unless noted."""

    def __init__(self, driver: AioDriver) -> None:
        self._driver = driver
        self._closed = False
        self._next_list = 0

    @property
    def session_id(self) -> int:
        """The current session's id (0 while none is open)."""
        return self._driver.machine.session_id

    def on_session_lost(self, callback: Callable[[SemaforError], None]) -> None:
        """Calls ``callback(error)`` on the loop when the session expires (not a coroutine)."""
        self._driver.session_lost.append(callback)

    async def close(self) -> None:
        """Ends the session (everything it owns goes back); waiting calls fail ``UNAVAILABLE``.
        Waits at most a few seconds; idempotent."""
        if self._closed:
            return
        self._closed = True
        d = self._driver
        d.machine.close(d.now())
        d.apply()
        try:
            await asyncio.wait_for(d.closed.wait(), 5.0)
        except asyncio.TimeoutError:
            pass
        await d.stop()

    async def __aenter__(self) -> "Client":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _call(self, request: pb.Request, confirm: bool = False,
                    convert: Optional[Callable[[pb.Response], T]] = None,
                    epoch: Optional[int] = None) -> T:
        rid, future = self._driver.submit(request, confirm, epoch)
        try:
            response = _ops.checked(await future)  # type: ignore[arg-type]
            return convert(response) if convert is not None else response  # type: ignore[return-value]
        except asyncio.CancelledError:
            self._driver.withdraw(rid, future, request)
            raise

    async def _read(self, read: pb.Read) -> pb.ReadResponse:
        d = self._driver
        future: "asyncio.Future[object]" = asyncio.get_running_loop().create_future()
        d.reads[d.machine.read(read, d.now())] = future
        d.apply()
        return _ops.checked_read(await future)  # type: ignore[arg-type]

    async def create(self, name: str, value: int = 0, *, capacity: int = 0,
                     policy: Policy = Policy.FIFO, max_per_session: int = 0) -> "Semaphore":
        """As :meth:`semafor.Client.create` (the handle's ``created``: False if it existed)."""
        r = await self._call(pb.Request(create=pb.Create(
            name=_ops.name_bytes(name), initial=value, capacity=capacity, policy=policy.value,
            max_per_session=max_per_session)))
        return Semaphore(self, name, created=r.created.created)

    def semaphore(self, name: str) -> "Semaphore":
        """A handle on ``name``; no I/O (not a coroutine)."""
        _ops.name_bytes(name)
        return Semaphore(self, name)

    async def list(self, prefix: str = "", limit: Optional[int] = None) -> List[Status]:
        """As :meth:`semafor.Client.list`."""
        out: List[Status] = []
        after, has_after = b"", False
        while limit is None or len(out) < limit:
            page = min(1000, limit - len(out)) if limit is not None else 1000
            r = await self._read(pb.Read(list_names=pb.ListNames(
                prefix=_ops.name_bytes(prefix), limit=page, after=after, has_after=has_after,
                with_status=True)))
            out.extend(_ops.status(s, r.revision) for s in r.names.statuses)
            if not r.names.more or not r.names.names:
                break
            after, has_after = r.names.names[-1], True
        return out

    async def inspect(self, name: str, max_per_list: Optional[int] = None) -> Detail:
        """As :meth:`semafor.Client.inspect`."""
        wire = _ops.name_bytes(name)
        pages = []
        read = _ops.inspect_read(wire, None, max_per_list or 0)
        while read is not None:
            r = await self._read(read)
            pages.append(_ops.detail(r.detail, r.revision))
            read = None if max_per_list is not None else _ops.inspect_read(wire, r.detail, 0)
        return _ops.merge_pages(pages)

    async def semop(self, ops: List[SemopOp], timeout: Timeout = None) -> SemopResult:
        """As :meth:`semafor.Client.semop`; cancelled: withdrawn, undone if it raced."""
        return await self._call(_ops.semop_request(ops, _ops.timeout_ns(timeout)),
                                convert=lambda r: _ops.semop_result(r.semop_done))

    def wait_many(self) -> "WaitMany":
        """A new WaitMany list (not a coroutine)."""
        self._next_list += 1
        return WaitMany(self, self._next_list)

    def lease(self, permit_id: int, name: str = "") -> "Lease":
        """A handle on a lease acquired elsewhere (not a coroutine)."""
        return Lease(self, name, permit_id, 0, 0, 0, (), 0.0)

    def watch(self, prefix: str, *, limit: int = 0, summary: bool = False,
              after_revision: int = 0, synced: bool = False) -> "Watch":
        """Watches every name starting with ``prefix``: ``async for event in watch``."""
        return Watch(self, _ops.name_bytes(prefix), True, limit, summary, after_revision, synced)


class _Acquiring:
    """``await sem.acquire(...)`` (a :class:`Permit`) or ``async with sem.acquire(...) as p``."""

    def __init__(self, coroutine: Awaitable["Permit"]) -> None:
        self._coroutine = coroutine
        self._permit: Optional[Permit] = None

    def __await__(self) -> Generator[Any, None, "Permit"]:
        return self._coroutine.__await__()

    async def __aenter__(self) -> "Permit":
        self._permit = await self._coroutine
        return self._permit

    async def __aexit__(self, *exc: object) -> None:
        if self._permit is not None:
            await self._permit.release()


class Semaphore:
    """A handle on one named semaphore; methods as :class:`semafor.Semaphore`, as coroutines."""

    def __init__(self, client: Client, name: str, created: Optional[bool] = None) -> None:
        self.client = client
        self.name = name
        self.created = created  # from create(): True made now, False existed; else None
        self._wire = _ops.name_bytes(name)

    async def get(self) -> Status:
        r = await self.client._read(pb.Read(get=pb.Get(name=self._wire)))
        return _ops.status(r.status, r.revision)

    async def value(self) -> int:
        return (await self.get()).value

    async def inspect(self, max_per_list: Optional[int] = None) -> Detail:
        return await self.client.inspect(self.name, max_per_list)

    async def set(self, value: int) -> int:
        r = await self.client._call(pb.Request(set_value=pb.SetValue(name=self._wire, value=value)))
        return r.value_set.previous

    async def increment(self, amount: int = 1) -> int:
        r = await self.client._call(pb.Request(increment=pb.Increment(name=self._wire, amount=amount)))
        return r.incremented.value

    async def delete(self) -> None:
        await self.client._call(pb.Request(delete=pb.Delete(name=self._wire)))

    async def release(self, amount: int = 1) -> int:
        r = await self.client._call(pb.Request(release=pb.Release(name=self._wire, amount=amount)))
        return r.released.amount

    async def release_slot(self, slot: int) -> int:
        """As :meth:`semafor.Semaphore.release_slot`."""
        r = await self.client._call(pb.Request(release_slot=pb.ReleaseSlot(name=self._wire, slot=slot)))
        return r.released.amount

    def acquire(self, amount: int = 1, timeout: Timeout = None) -> _Acquiring:
        """Owned permits, all or nothing: ``async with sem.acquire(n) as permit`` or ``await``.
        Raises :class:`AcquireTimeout` after ``timeout``. Cancelling the task withdraws the wait."""
        async def acquiring() -> Permit:
            permit = await self.try_acquire(amount, timeout)
            if permit is None:
                raise AcquireTimeout(f"{amount} permit(s) of {self.name!r} not granted within {timeout!r}")
            return permit
        return _Acquiring(acquiring())

    async def try_acquire(self, amount: int = 1, timeout: Timeout = 0) -> Optional["Permit"]:
        """As :meth:`acquire`, but None when not granted within ``timeout`` (default: at once)."""
        epoch = self.client._driver.epoch

        def permit(r: pb.Response) -> Optional[Permit]:
            g = r.granted
            return Permit(self.client, self.name, g.amount, g.token, g.sequence, tuple(g.slots),
                          epoch) if g.amount else None
        return await self.client._call(pb.Request(acquire=pb.Acquire(
            name=self._wire, amount=amount, timeout_ns=_ops.timeout_ns(timeout), owned=True)),
            convert=permit)

    async def take(self, amount: int = 1, timeout: Timeout = None) -> Grant:
        """Consumed, all or nothing (see :meth:`semafor.Semaphore.take`); cancelled: withdrawn,
        given back if it raced."""
        return await self.client._call(pb.Request(acquire=pb.Acquire(
            name=self._wire, amount=amount, timeout_ns=_ops.timeout_ns(timeout), owned=False)),
            convert=lambda r: _ops.grant(r.granted))

    async def decrement(self, amount: int = 1, timeout: Timeout = None) -> Grant:
        """IRIS's partial decrement (see :meth:`semafor.Semaphore.decrement`)."""
        return await self.client._call(pb.Request(decrement=pb.Decrement(
            name=self._wire, amount=amount, timeout_ns=_ops.timeout_ns(timeout), owned=False)),
            convert=lambda r: _ops.grant(r.granted))

    async def lease(self, amount: int = 1, ttl: Timeout = 30.0, timeout: Timeout = None,
                    auto_renew: bool = False) -> "Lease":
        """A delivered lease (see :meth:`semafor.Semaphore.lease`); ``auto_renew`` renews it from
        a task every ttl/3. Raises :class:`AcquireTimeout`."""
        ttl_ns = _ops.duration_ns(ttl, "ttl")

        def handed(r: pb.Response) -> Optional[Lease]:
            g = r.lease_granted
            return Lease(self.client, self.name, g.permit_id, g.amount, g.token, g.sequence,
                         tuple(g.slots), g.expires_in_ns / 1e9) if g.permit_id else None
        lease = await self.client._call(pb.Request(acquire_lease=pb.AcquireLease(
            name=self._wire, amount=amount, lease_ttl_ns=ttl_ns, timeout_ns=_ops.timeout_ns(timeout))),
            confirm=True, convert=handed)
        if lease is None:
            raise AcquireTimeout(f"a lease of {amount} on {self.name!r} not granted within {timeout!r}")
        if auto_renew:
            lease.start_auto_renew(ttl_ns / 1e9)
        return lease

    async def await_zero(self, timeout: Timeout = None) -> bool:
        r = await self.client._call(pb.Request(await_zero=pb.AwaitZero(
            name=self._wire, timeout_ns=_ops.timeout_ns(timeout))))
        return r.zero_reached.reached

    def watch(self, *, limit: int = 0, summary: bool = False, after_revision: int = 0,
              synced: bool = False) -> "Watch":
        """``async for event in sem.watch()``; resumes by itself after reconnects."""
        return Watch(self.client, self._wire, False, limit, summary, after_revision, synced)


class Permit:
    """Owned permits; ``await permit.release()`` or leave the ``async with`` block."""

    def __init__(self, client: Client, name: str, amount: int, token: int, sequence: int,
                 slots: tuple, epoch: int) -> None:
        self.name, self.amount, self.token, self.sequence, self.slots = name, amount, token, sequence, slots
        self._client, self._epoch, self._released = client, epoch, False

    @property
    def slot(self) -> Optional[int]:
        return self.slots[0] if self.slots else None

    async def release(self) -> None:
        """Gives them back; idempotent; nothing is sent if their session ended."""
        if self._released:
            return
        self._released = True
        if self._client._closed or self._client._driver.epoch != self._epoch:
            return
        try:
            await self._client._call(pb.Request(release=pb.Release(
                name=_ops.name_bytes(self.name), amount=self.amount)), epoch=self._epoch)
        except SemaforError as e:
            if e.code != ErrorCode.SESSION_EXPIRED:
                raise


class Lease:
    """A lease (see :class:`semafor.Lease`); ``renew`` and ``release`` are coroutines."""

    def __init__(self, client: Client, name: str, permit_id: int, amount: int, token: int,
                 sequence: int, slots: tuple, expires_in: float) -> None:
        self.name, self.permit_id, self.amount, self.token = name, permit_id, amount, token
        self.sequence, self.slots, self.expires_in = sequence, slots, expires_in
        self.renew_error: Optional[SemaforError] = None
        self._client = client
        self._renewer: "Optional[asyncio.Task[None]]" = None

    async def renew(self, ttl: Timeout) -> float:
        r = await self._client._call(pb.Request(renew_lease=pb.RenewLease(
            permit_id=self.permit_id, ttl_ns=_ops.duration_ns(ttl, "ttl"), name=_ops.name_bytes(self.name))))
        self.expires_in = r.lease_renewed.expires_in_ns / 1e9
        return self.expires_in

    async def release(self) -> bool:
        if self._renewer is not None:
            self._renewer.cancel()
        r = await self._client._call(pb.Request(release_lease=pb.ReleaseLease(
            permit_id=self.permit_id, name=_ops.name_bytes(self.name))))
        return r.lease_released.released

    def start_auto_renew(self, ttl: float) -> None:
        async def loop() -> None:
            while not self._client._closed:
                await asyncio.sleep(ttl / 3)
                try:
                    await self.renew(ttl)
                except SemaforError as e:
                    self.renew_error = e
                    return
        self._renewer = asyncio.get_running_loop().create_task(loop())


class WaitMany:
    """IRIS WaitMany (see :class:`semafor.WaitMany`); callbacks are plain functions."""

    def __init__(self, client: Client, list_id: int) -> None:
        self._client, self.list_id = client, list_id
        self._callbacks: Dict[str, Callable[[int], None]] = {}

    async def add(self, name: str, amount: int, callback: Callable[[int], None]) -> None:
        self._callbacks[name] = callback
        await self._client._call(pb.Request(add_to_wait_many=pb.AddToWaitMany(
            list_id=self.list_id, name=_ops.name_bytes(name), amount=amount)))

    async def remove(self, name: str) -> int:
        self._callbacks.pop(name, None)
        r = await self._client._call(pb.Request(remove_from_wait_many=pb.RemoveFromWaitMany(
            list_id=self.list_id, name=_ops.name_bytes(name))))
        return r.wait_many_removed.returned

    async def wait(self, timeout: Timeout = None) -> int:
        """Reports granted entries to their callbacks; returns how many (0: timed out)."""
        reports = await self._client._call(pb.Request(wait_many=pb.WaitMany(
            list_id=self.list_id, timeout_ns=_ops.timeout_ns(timeout))), confirm=True,
            convert=lambda r: list(r.wait_many_reported.reports))
        for report in reports:
            callback = self._callbacks.pop(report.name.decode("utf-8"), None)
            if callback is not None:
                callback(report.granted)
        return len(reports)

    async def close(self) -> None:
        for name in list(self._callbacks):
            await self.remove(name)


class Watch:
    """``async for event in watch``; ``close()`` (not a coroutine) ends it."""

    def __init__(self, client: Client, name: bytes, prefix: bool, limit: int, summary: bool,
                 after_revision: int, synced: bool) -> None:
        self._client, self._synced = client, synced
        self._queue: "asyncio.Queue[object]" = asyncio.Queue()
        d = client._driver
        self._id = d.machine.watch(name, d.now(), prefix=prefix, limit=limit, summary=summary,
                                   after_revision=after_revision)
        d.watchers[self._id] = self._queue.put_nowait
        d.apply()
        self._ended = False

    def __aiter__(self) -> AsyncIterator[WatchEvent]:
        return self

    async def __anext__(self) -> WatchEvent:
        while not self._ended:
            item = await self._queue.get()
            if item is None:
                break
            if isinstance(item, SemaforError):
                self._ended = True
                if item.code == ErrorCode.UNAVAILABLE:
                    break
                raise item
            event = _ops.watch_event(item)  # type: ignore[arg-type]
            if event.kind != "SYNCED" or self._synced:
                return event
        self._ended = True
        raise StopAsyncIteration

    def close(self) -> None:
        d = self._client._driver
        d.watchers.pop(self._id, None)
        d.machine.unwatch(self._id, d.now())
        d.apply()
        self._queue.put_nowait(None)

    async def __aenter__(self) -> "Watch":
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()
