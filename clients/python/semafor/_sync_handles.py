"""What the blocking client's calls hand out: permits, leases, WaitMany lists and watches."""

from __future__ import annotations

import queue
import threading
from typing import TYPE_CHECKING, Callable, Dict, Iterator, Optional, Tuple

from semafor import _ops
from semafor._proto import semafor_pb2 as pb
from semafor.errors import ErrorCode, SemaforError
from semafor.types import Timeout, WatchEvent

if TYPE_CHECKING:
    from semafor._sync import Client


class Permit:
    """Owned permits: they go back on :meth:`release` (or leaving a ``with`` block), when the
    session ends, or when the process dies. ``token`` is the grant's fencing token; ``slots`` the
    slot numbers (semaphores with a capacity), ``slot`` the first of them or None."""

    def __init__(self, client: "Client", name: str, amount: int, token: int, sequence: int,
                 slots: Tuple[int, ...], epoch: int) -> None:
        self.name, self.amount, self.token, self.sequence = name, amount, token, sequence
        self.slots = slots
        self._client = client
        self._epoch = epoch
        self._released = False
        self._lock = threading.Lock()

    @property
    def slot(self) -> Optional[int]:
        return self.slots[0] if self.slots else None

    def release(self) -> None:
        """Gives the permits back (one round trip); idempotent. A permit whose session has ended
        went back with it: nothing is sent. Thread-safe."""
        with self._lock:  # held across the call: released once, even if interrupted
            if self._released:
                return
            if self._client._closed or self._client._driver.epoch != self._epoch:
                self._released = True
                return
            try:
                self._client._call(pb.Request(release=pb.Release(
                    name=_ops.name_bytes(self.name), amount=self.amount)), epoch=self._epoch)
            except SemaforError as e:
                if e.code != ErrorCode.SESSION_EXPIRED:
                    raise
            self._released = True

    def __enter__(self) -> "Permit":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def __repr__(self) -> str:
        return f"Permit({self.name!r}, amount={self.amount}, token={self.token}, slots={self.slots})"


class Lease:
    """Permits that end by themselves ``ttl`` after the grant (or the last renewal), and outlive
    the session that took them. ``permit_id`` names the lease from any session."""

    def __init__(self, client: "Client", name: str, permit_id: int, amount: int, token: int,
                 sequence: int, slots: Tuple[int, ...], expires_in: float) -> None:
        self.name, self.permit_id, self.amount = name, permit_id, amount
        self.token, self.sequence, self.slots = token, sequence, slots
        self.expires_in = expires_in  # seconds from the grant (or last renewal)
        self.renew_error: Optional[SemaforError] = None  # why automatic renewal stopped
        self._client = client
        self._stop = threading.Event()
        self._renewer: Optional[threading.Thread] = None

    @property
    def slot(self) -> Optional[int]:
        return self.slots[0] if self.slots else None

    def renew(self, ttl: Timeout) -> float:
        """The lease now ends ``ttl`` from now; returns the seconds left. One round trip; any
        thread. Raises ``NotFound`` when it already ended."""
        r = self._client._call(pb.Request(renew_lease=pb.RenewLease(
            permit_id=self.permit_id, ttl_ns=_ops.duration_ns(ttl, "ttl"), name=_ops.name_bytes(self.name))))
        self.expires_in = r.lease_renewed.expires_in_ns / 1e9
        return self.expires_in

    def release(self) -> bool:
        """Ends the lease now (stopping automatic renewal); False if it had ended already."""
        self._stop.set()
        r = self._client._call(pb.Request(release_lease=pb.ReleaseLease(
            permit_id=self.permit_id, name=_ops.name_bytes(self.name))))
        return r.lease_released.released

    def start_auto_renew(self, ttl: float) -> None:
        """Renews to ``ttl`` every ttl/3 on a daemon thread until released or the client closes;
        a failed renewal stops it and is kept in ``renew_error``."""
        def loop() -> None:
            while not self._stop.wait(ttl / 3):
                if self._client._closed:
                    return
                try:
                    self.renew(ttl)
                except SemaforError as e:
                    self.renew_error = e
                    return
        self._renewer = threading.Thread(target=loop, name=f"semafor-lease-{self.permit_id}", daemon=True)
        self._renewer.start()

    def __enter__(self) -> "Lease":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def __repr__(self) -> str:
        return f"Lease({self.name!r}, permit_id={self.permit_id}, amount={self.amount})"


class WaitMany:
    """IRIS's WaitMany: entries (a name and an amount, each taken partially as IRIS's decrement
    does) that wait together; :meth:`wait` reports every entry with a grant, round robin, calls
    its callback with the amount granted, and removes it. One per list id of a session; use from
    one thread at a time."""

    def __init__(self, client: "Client", list_id: int) -> None:
        self._client = client
        self.list_id = list_id
        self._callbacks: Dict[str, Callable[[int], None]] = {}

    def add(self, name: str, amount: int, callback: Callable[[int], None]) -> None:
        """Adds an entry (merged with one of the same name). One round trip."""
        self._callbacks[name] = callback
        self._client._call(pb.Request(add_to_wait_many=pb.AddToWaitMany(
            list_id=self.list_id, name=_ops.name_bytes(name), amount=amount)))

    def remove(self, name: str) -> int:
        """Removes an entry; returns what it had been granted and not reported (given back)."""
        self._callbacks.pop(name, None)
        r = self._client._call(pb.Request(remove_from_wait_many=pb.RemoveFromWaitMany(
            list_id=self.list_id, name=_ops.name_bytes(name))))
        return r.wait_many_removed.returned

    def __len__(self) -> int:
        return len(self._callbacks)

    def wait(self, timeout: Timeout = None) -> int:
        """Waits up to ``timeout`` until an entry has a grant, then calls the callback of every
        reported entry (on this thread) and returns how many; 0 when the timeout passed. The
        grants are the caller's once delivered (one more round trip). Interrupted: withdrawn, and
        a report that raced it is given back (incremented)."""
        reports = self._client._call(pb.Request(wait_many=pb.WaitMany(
            list_id=self.list_id, timeout_ns=_ops.timeout_ns(timeout))), confirm=True,
            convert=lambda r: list(r.wait_many_reported.reports))
        for report in reports:
            callback = self._callbacks.pop(report.name.decode("utf-8"), None)
            if callback is not None:
                callback(report.granted)
        return len(reports)

    def close(self) -> None:
        """Withdraws every entry left (what they were granted and not reported goes back)."""
        for name in list(self._callbacks):
            self.remove(name)

    def __enter__(self) -> "WaitMany":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_END = object()


class Watch:
    """An iterator of a watch's events; resumes by itself after reconnects. Iterate from one
    thread; :meth:`close` from any. Iteration ends after ``close``; a watch the server ended
    raises its error."""

    def __init__(self, client: "Client", name: bytes, prefix: bool, limit: int, summary: bool,
                 after_revision: int, synced: bool) -> None:
        self._client = client
        self._synced = synced
        self._queue: "queue.Queue[object]" = queue.Queue()
        d = client._driver
        with d.lock:
            self._id = d.machine.watch(name, d.now(), prefix=prefix, limit=limit, summary=summary,
                                       after_revision=after_revision)
            d.watchers[self._id] = self._queue.put
            d.apply()

    def get(self, timeout: Optional[float] = None) -> Optional[WatchEvent]:
        """The next event, or None if ``timeout`` seconds passed first or the watch is closed."""
        while True:
            try:
                item = self._queue.get(timeout=timeout)
            except queue.Empty:
                return None
            if item is _END:
                self._queue.put(_END)
                return None
            if isinstance(item, SemaforError):
                self._queue.put(_END)
                if item.code == ErrorCode.UNAVAILABLE:
                    return None  # the client closed
                raise item
            event = _ops.watch_event(item)  # type: ignore[arg-type]
            if event.kind != "SYNCED" or self._synced:
                return event

    def __iter__(self) -> Iterator[WatchEvent]:
        return self

    def __next__(self) -> WatchEvent:
        event = self.get()
        if event is None:
            raise StopIteration
        return event

    def close(self) -> None:
        """Ends the watch; a blocked iteration ends. Idempotent."""
        d = self._client._driver
        with d.lock:
            d.watchers.pop(self._id, None)
            d.machine.unwatch(self._id, d.now())
            d.apply()
        self._queue.put(_END)

    def __enter__(self) -> "Watch":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
