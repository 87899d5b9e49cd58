"""The blocking client: ``semafor.connect(...)`` returns a :class:`Client`.

Every method blocks the calling thread until the server answered; all are safe to call from any
number of threads at once (one session, one connection, one I/O thread per client). Waiting
calls take a ``timeout`` (seconds or ``timedelta``; ``None`` waits as long as it takes; ``0``
does not wait) that the server enforces. A ``KeyboardInterrupt`` (or any exception) raised in a
waiting caller withdraws the wait from the server with ``cancel``; a grant that raced the
withdrawal is given back (docs/semantics.md#cancelled-waits)."""

from __future__ import annotations

from typing import Callable, List, Optional, TypeVar, Union

from semafor import _ops
from semafor._common import ANSWER_TIMEOUT_S, TlsArg, session_config, tls_context
from semafor._driver import Call, Driver
from semafor._proto import semafor_pb2 as pb
from semafor._sync_handles import Lease, Permit, WaitMany, Watch
from semafor.errors import SemaforError
from semafor.types import Detail, Grant, Options, Policy, SemopOp, SemopResult, Status, Timeout


T = TypeVar("T")


class AcquireTimeout(TimeoutError):
    """``acquire`` or ``lease`` did not get its permits within its timeout (nothing was taken)."""


def connect(addresses: Union[str, List[str]] = "127.0.0.1:7400", *, token: str = "",
            tls: TlsArg = None, session_ttl: Timeout = None, client_name: str = "",
            connect_timeout: float = 5.0) -> "Client":
    """Connects to one of ``addresses`` (``"h1:7400,h2:7400"``), opens a session and returns the
    client; use it as a context manager to close it.

    Blocks until the session is open, at most ``connect_timeout`` seconds. ``session_ttl`` (seconds
    or timedelta; None: the server's default, 10 s) is how long the server keeps the session
    without hearing from this process. ``tls``: None (plaintext), True (system CAs), a CA file
    path, or an ``ssl.SSLContext``. ``token``: a bearer token from ``semafor auth token``.

    Raises :class:`~semafor.errors.Unauthenticated` for refused credentials,
    :class:`~semafor.errors.InvalidArgument` for a bad argument, and
    :class:`~semafor.errors.Unavailable` when no address answered in time."""
    config = session_config(addresses, token, session_ttl, client_name)
    driver = Driver(config, tls_context(tls), connect_timeout)
    driver.start()
    if not driver.opened.wait(connect_timeout) or driver.refused is not None:
        driver.stop()
        if driver.refused is not None:
            raise driver.refused
        raise _ops.unavailable(f"no server at {','.join(config.addresses)} answered within "
                               f"{connect_timeout} s", outcome_known=True)
    return Client(driver)


class Client:
    """One session with a Semafor server or cluster; thread-safe. Create with :func:`connect`."""

    def __init__(self, driver: Driver) -> None:
        self._driver = driver
        self._closed = False
        self._next_list = 0

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def session_id(self) -> int:
        """The current session's id (0 while none is open)."""
        return self._driver.machine.session_id

    def on_session_lost(self, callback: Callable[[SemaforError], None]) -> None:
        """Calls ``callback(error)`` on the I/O thread when the session expires (everything it
        owned went back; pending calls fail ``SESSION_EXPIRED``). Keep it short; do not block."""
        self._driver.session_lost.append(callback)

    def close(self) -> None:
        """Ends the session: everything it owns goes back at once; waiting calls fail
        ``UNAVAILABLE``. Blocks at most a few seconds; idempotent; thread-safe."""
        d = self._driver
        with d.lock:
            if self._closed:
                return
            self._closed = True
            d.machine.close(d.now())
            d.apply()
        d.closed.wait(ANSWER_TIMEOUT_S)
        d.stop()

    # ------------------------------------------------------------------ calls

    def _call(self, request: pb.Request, confirm: bool = False,
              convert: Optional[Callable[[pb.Response], T]] = None,
              epoch: Optional[int] = None) -> T:
        """Submits ``request`` and blocks for its answer, turned into the caller's value by
        ``convert`` inside the guard: an exception (KeyboardInterrupt) raised before the value
        is handed over withdraws the wait and gives back a grant that came."""
        d = self._driver
        call = Call()
        call.request = request
        rid = 0
        try:
            with d.lock:
                rid = d.machine.submit(request, d.now(), confirm_delivery=confirm,
                                       session_epoch=epoch)
                d.calls[rid] = call
                d.apply()
            d.wait_for(call)
            if call.error is not None:
                raise call.error
            response = _ops.checked(call.response)  # type: ignore[arg-type]
            return convert(response) if convert is not None else response  # type: ignore[return-value]
        except SemaforError:
            raise
        except BaseException:
            if rid:
                self._withdraw(rid, call)
            raise

    def _withdraw(self, rid: int, call: Call) -> None:
        """The caller is gone: cancel the wait; a grant that came first goes back."""
        d = self._driver
        with d.lock:
            if call.event.is_set():
                if isinstance(call.response, pb.Response):
                    d.give_back(call.request, call.response)  # type: ignore[arg-type]
                    d.apply()
                return
            call.abandoned = True
            if not d.machine.cancel(rid, d.now()):
                d.calls.pop(rid, None)
            d.apply()
        try:
            call.event.wait(ANSWER_TIMEOUT_S)  # its answer, given back by the I/O thread
        except BaseException:
            pass

    def _read(self, read: pb.Read) -> pb.ReadResponse:
        d = self._driver
        call = Call()
        with d.lock:
            rid = d.machine.read(read, d.now())
            d.reads[rid] = call
            d.apply()
        d.wait_for(call)
        if call.error is not None:
            raise call.error
        return _ops.checked_read(call.response)  # type: ignore[arg-type]

    # ------------------------------------------------------------------ the API

    def create(self, name: str, value: int = 0, *, capacity: int = 0, policy: Policy = Policy.FIFO,
               max_per_session: int = 0) -> "Semaphore":
        """Creates semaphore ``name`` with ``value`` permits, or opens it unchanged if it exists.
        ``capacity`` 0: none. The handle's ``created`` tells which (False: it existed). Blocks
        for one round trip. Raises ``InvalidArgument``."""
        r = self._call(pb.Request(create=pb.Create(
            name=_ops.name_bytes(name), initial=value, capacity=capacity, policy=policy.value,
            max_per_session=max_per_session)))
        return Semaphore(self, name, created=r.created.created)

    def semaphore(self, name: str) -> "Semaphore":
        """A handle on ``name``; no I/O until used."""
        _ops.name_bytes(name)
        return Semaphore(self, name)

    def list(self, prefix: str = "", limit: Optional[int] = None) -> List[Status]:
        """The semaphores whose names start with ``prefix``, sorted, with their status (at most
        ``limit``; None: all, read page by page). Blocks for one read per page."""
        out: List[Status] = []
        after, has_after = b"", False
        while limit is None or len(out) < limit:
            page = min(1000, limit - len(out)) if limit is not None else 1000
            r = self._read(pb.Read(list_names=pb.ListNames(
                prefix=_ops.name_bytes(prefix), limit=page, after=after, has_after=has_after,
                with_status=True)))
            out.extend(_ops.status(s, r.revision) for s in r.names.statuses)
            if not r.names.more or not r.names.names:
                break
            after, has_after = r.names.names[-1], True
        return out

    def inspect(self, name: str, max_per_list: Optional[int] = None) -> Detail:
        """``name``'s status, queue, holders and leases, read page by page (not a snapshot).
        Blocks for one read per page. Raises ``NotFound``."""
        pages = []
        wire = _ops.name_bytes(name)
        read = _ops.inspect_read(wire, None, max_per_list or 0)
        while read is not None:
            r = self._read(read)
            pages.append(_ops.detail(r.detail, r.revision))
            if max_per_list is not None:
                break
            read = _ops.inspect_read(wire, r.detail, 0)
        return _ops.merge_pages(pages)

    def semop(self, ops: List[SemopOp], timeout: Timeout = None) -> SemopResult:
        """Applies every op at once, atomically, waiting up to ``timeout`` until all can proceed
        (``done`` false: timed out, nothing applied). Raises ``WouldBlock`` for a ``no_wait`` op
        that could not proceed. Interrupted: withdrawn, and undone if it raced."""
        return self._call(_ops.semop_request(ops, _ops.timeout_ns(timeout)),
                          convert=lambda r: _ops.semop_result(r.semop_done))

    def wait_many(self) -> WaitMany:
        """A new IRIS WaitMany list of this session (see :class:`WaitMany`)."""
        with self._driver.lock:
            self._next_list += 1
            return WaitMany(self, self._next_list)

    def lease(self, permit_id: int, name: str = "") -> Lease:
        """A handle on a lease acquired elsewhere (only its id is known); name its semaphore
        where permissions apply."""
        return Lease(self, name, permit_id, 0, 0, 0, (), 0.0)

    def watch(self, prefix: str, *, limit: int = 0, summary: bool = False,
              after_revision: int = 0, synced: bool = False) -> Watch:
        """Watches every semaphore whose name starts with ``prefix`` (see :meth:`Semaphore.watch`)."""
        return Watch(self, _ops.name_bytes(prefix), True, limit, summary, after_revision, synced)


class Semaphore:
    """A handle on one named semaphore (no I/O until used); thread-safe."""

    def __init__(self, client: Client, name: str, created: Optional[bool] = None) -> None:
        self.client = client
        self.name = name
        self.created = created  # from create(): True made now, False existed; else None
        self._wire = _ops.name_bytes(name)

    def __repr__(self) -> str:
        return f"Semaphore({self.name!r})"

    def get(self) -> Status:
        """One read: value, options, counts. Raises ``NotFound``."""
        r = self.client._read(pb.Read(get=pb.Get(name=self._wire)))
        return _ops.status(r.status, r.revision)

    def value(self) -> int:
        """The current value (one read). Raises ``NotFound``."""
        return self.get().value

    def inspect(self, max_per_list: Optional[int] = None) -> Detail:
        """See :meth:`Client.inspect`."""
        return self.client.inspect(self.name, max_per_list)

    def set(self, value: int) -> int:
        """Sets the value (within capacity); returns the previous one. Raises ``InvalidArgument``."""
        return self.client._call(pb.Request(set_value=pb.SetValue(name=self._wire, value=value))).value_set.previous

    def increment(self, amount: int = 1) -> int:
        """Adds ``amount``; returns the new value. Raises ``Overflow`` past the capacity."""
        return self.client._call(pb.Request(increment=pb.Increment(name=self._wire, amount=amount))).incremented.value

    def delete(self) -> None:
        """Deletes it; its waiters fail ``Deleted``. Raises ``NotFound``."""
        self.client._call(pb.Request(delete=pb.Delete(name=self._wire)))

    def acquire(self, amount: int = 1, timeout: Timeout = None) -> Permit:
        """Takes ``amount`` permits, all or nothing, owned by the session (back when it ends or
        the process dies). Blocks until granted or ``timeout`` passes, then raises
        :class:`AcquireTimeout`. Use as ``with sem.acquire(): ...`` to release on exit."""
        permit = self.try_acquire(amount, timeout)
        if permit is None:
            raise AcquireTimeout(f"{amount} permit(s) of {self.name!r} not granted within {timeout!r}")
        return permit

    def try_acquire(self, amount: int = 1, timeout: Timeout = 0) -> Optional[Permit]:
        """As :meth:`acquire`, but returns None when not granted within ``timeout`` (default: at
        once, without waiting)."""
        epoch = self.client._driver.epoch

        def permit(r: pb.Response) -> Optional[Permit]:
            g = r.granted
            if g.amount == 0:
                return None
            return Permit(self.client, self.name, g.amount, g.token, g.sequence, tuple(g.slots), epoch)

        return self.client._call(pb.Request(acquire=pb.Acquire(
            name=self._wire, amount=amount, timeout_ns=_ops.timeout_ns(timeout), owned=True)),
            convert=permit)

    def take(self, amount: int = 1, timeout: Timeout = None) -> Grant:
        """Takes exactly ``amount`` permits, all or nothing, for good (consumed: not owned by
        the session; give them back with :meth:`increment`). Blocks until granted or ``timeout``
        passes (the grant's ``amount`` is 0 then). Raises ``InvalidArgument`` for an amount that
        could never be served. Interrupted: withdrawn, and given back if it raced."""
        return self.client._call(pb.Request(acquire=pb.Acquire(
            name=self._wire, amount=amount, timeout_ns=_ops.timeout_ns(timeout), owned=False)),
            convert=lambda r: _ops.grant(r.granted))

    def decrement(self, amount: int = 1, timeout: Timeout = None) -> Grant:
        """IRIS's partial decrement: once the value is positive takes ``min(value, amount)``, for
        good (give it back with :meth:`increment`). Blocks until then or ``timeout`` (the grant's
        ``amount`` is 0 then)."""
        return self.client._call(pb.Request(decrement=pb.Decrement(
            name=self._wire, amount=amount, timeout_ns=_ops.timeout_ns(timeout), owned=False)),
            convert=lambda r: _ops.grant(r.granted))

    def lease(self, amount: int = 1, ttl: Timeout = 30.0, timeout: Timeout = None,
              auto_renew: bool = False) -> Lease:
        """Takes ``amount`` permits as a lease that ends by itself ``ttl`` after the grant unless
        renewed, and outlives this session and process. Returns once the lease is delivered
        (one more round trip). ``auto_renew``: a background thread renews it every ttl/3 until
        released. Raises :class:`AcquireTimeout` when not granted within ``timeout``."""
        ttl_ns = _ops.duration_ns(ttl, "ttl")
        def handed(r: pb.Response) -> Optional[Lease]:
            g = r.lease_granted
            if g.permit_id == 0:
                return None
            return Lease(self.client, self.name, g.permit_id, g.amount, g.token, g.sequence,
                         tuple(g.slots), g.expires_in_ns / 1e9)

        lease = self.client._call(pb.Request(acquire_lease=pb.AcquireLease(
            name=self._wire, amount=amount, lease_ttl_ns=ttl_ns, timeout_ns=_ops.timeout_ns(timeout))),
            confirm=True, convert=handed)
        if lease is None:
            raise AcquireTimeout(f"a lease of {amount} on {self.name!r} not granted within {timeout!r}")
        if auto_renew:
            lease.start_auto_renew(ttl_ns / 1e9)
        return lease

    def await_zero(self, timeout: Timeout = None) -> bool:
        """Waits until the value is 0 (SysV wait-for-zero); False if ``timeout`` passed first."""
        r = self.client._call(pb.Request(await_zero=pb.AwaitZero(
            name=self._wire, timeout_ns=_ops.timeout_ns(timeout))))
        return r.zero_reached.reached

    def release(self, amount: int = 1) -> int:
        """Gives back owned permits of this session; returns how many. Raises
        ``InvalidArgument`` for more than it owns."""
        return self.client._call(pb.Request(release=pb.Release(name=self._wire, amount=amount))).released.amount

    def release_slot(self, slot: int) -> int:
        """Gives back the owned permit of this session that holds ``slot`` (semaphores with a
        capacity number their permits' slots); returns 1. One round trip. Raises
        ``InvalidArgument`` when this session holds no such slot."""
        return self.client._call(pb.Request(release_slot=pb.ReleaseSlot(name=self._wire, slot=slot))).released.amount

    def watch(self, *, limit: int = 0, summary: bool = False, after_revision: int = 0,
              synced: bool = False) -> Watch:
        """An iterator of this semaphore's changes (:class:`~semafor.types.WatchEvent`): its
        current state first (if it exists), then every change; it resumes by itself after a
        reconnect or a failover without repeating or losing one. ``synced`` also yields the
        ``SYNCED`` markers. Iterating blocks until the next event; ``close()`` ends it."""
        return Watch(self.client, self._wire, False, limit, summary, after_revision, synced)


__all__ = ["connect", "Client", "Semaphore", "Permit", "Lease", "WaitMany", "Watch",
           "AcquireTimeout", "Options"]
