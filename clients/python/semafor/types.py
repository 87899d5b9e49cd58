"""The values the Semafor client returns: frozen dataclasses, independent of the wire's classes."""

from __future__ import annotations

import datetime
import enum
from dataclasses import dataclass, field
from typing import Optional, Tuple, Union

__all__ = [
    "Policy",
    "Options",
    "Status",
    "Waiter",
    "Holder",
    "LeaseInfo",
    "Detail",
    "Grant",
    "SemopOp",
    "SemopResult",
    "WatchEvent",
    "Timeout",
]

Timeout = Union[float, int, datetime.timedelta, None]
"""A wait: seconds (float or int) or a ``timedelta``; ``None`` waits as long as it takes; ``0``
does not wait."""


class Policy(enum.Enum):
    """The order waiters are served in (docs/semantics.md)."""

    FIFO = 1
    BARGING = 2


@dataclass(frozen=True)
class Options:
    """A semaphore's options: ``capacity`` 0 means none; ``max_per_session`` 0 means no limit."""

    capacity: int = 0
    policy: Policy = Policy.FIFO
    max_per_session: int = 0


@dataclass(frozen=True)
class Status:
    """One read of a semaphore: its value, options and counts, at ``revision``."""

    name: str
    value: int
    options: Options
    waiters: int
    holders: int
    owned: int
    leased: int
    undelivered: int
    leases: int
    revision: int


@dataclass(frozen=True)
class Waiter:
    """A request in a semaphore's queue, in arrival order."""

    session_id: int
    request_id: int
    sequence: int
    kind: str
    amount: int
    times_out_in_ns: int  # -1: never
    client_name: str


@dataclass(frozen=True)
class Holder:
    """A session owning permits (``owned`` < 0: an owned ``semop`` add still to be taken back)."""

    session_id: int
    owned: int
    slots: Tuple[int, ...]
    client_name: str


@dataclass(frozen=True)
class LeaseInfo:
    """A lease on a semaphore (``session_id`` 0 once delivered)."""

    permit_id: int
    session_id: int
    amount: int
    slots: Tuple[int, ...]
    token: int
    age_ns: int
    expires_in_ns: int


@dataclass(frozen=True)
class Detail:
    """A semaphore's status with its queue, holders and leases (read page by page: not a
    snapshot; the status and revision are the last page's)."""

    status: Status
    queue: Tuple[Waiter, ...]
    holders: Tuple[Holder, ...]
    leases: Tuple[LeaseInfo, ...]


@dataclass(frozen=True)
class Grant:
    """What a ``decrement`` (or consumed acquire) took: ``amount`` 0 means it timed out."""

    amount: int
    token: int
    sequence: int
    slots: Tuple[int, ...]

    def __bool__(self) -> bool:
        return self.amount > 0


@dataclass(frozen=True)
class SemopOp:
    """One op of a ``semop``: ``delta`` < 0 takes, > 0 adds, 0 waits for zero; ``no_wait`` fails
    the whole semop with ``WOULD_BLOCK`` rather than wait; ``owned`` ties it to the session (SysV's
    ``SEM_UNDO``)."""

    name: str
    delta: int
    no_wait: bool = False
    owned: bool = False


@dataclass(frozen=True)
class SemopResult:
    """A ``semop``'s outcome: ``done`` false means it timed out (nothing applied)."""

    done: bool
    token: int
    sequence: int
    slots: Tuple[Tuple[int, ...], ...]

    def __bool__(self) -> bool:
        return self.done


@dataclass(frozen=True)
class WatchEvent:
    """A change a watch tells: ``kind`` is ``"CHANGED"`` (``status``, and ``detail`` unless the
    watch asked for the summary), ``"DELETED"``, ``"RESYNC"`` (forget states not told again) or
    ``"SYNCED"`` (everything up to ``revision`` was told; only with ``synced=True``)."""

    kind: str
    name: str
    revision: int
    status: Optional[Status] = None
    detail: Optional[Detail] = field(default=None, repr=False)
