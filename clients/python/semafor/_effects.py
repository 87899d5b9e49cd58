"""What the session machine (``_session.ClientSession``) asks its driver to do or tells it: a small
closed set of frozen dataclasses, taken with ``ClientSession.take()`` after every input."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from semafor._proto import semafor_pb2 as pb
from semafor.errors import SemaforError


@dataclass(frozen=True)
class Dial:
    """Open connection number ``conn`` to ``address`` (``host:port``), closing any other first.
    Report ``connected(now, conn)`` or ``disconnected(now, conn)``."""

    conn: int
    address: str


@dataclass(frozen=True)
class Send:
    """Write ``frame`` whole on the current connection, in the order the effects come."""

    frame: pb.ClientFrame


@dataclass(frozen=True)
class Hangup:
    """Close the current connection (``conn``); the machine already counts it as gone."""

    conn: int
    reason: str


@dataclass(frozen=True)
class Opened:
    """A ``Welcome`` attached a session: a new one (``resumed`` false) or the same one again."""

    session_id: int
    resumed: bool
    ttl_ns: int
    principal: str
    epoch: int  # increases with each new session; a permit of an older epoch went back


@dataclass(frozen=True)
class HelloRefused:
    """The server refused the ``Hello`` for a reason retrying does not fix (credentials, an
    argument, its session limit); the machine went idle, everything pending failed with it."""

    error: SemaforError


@dataclass(frozen=True)
class Completed:
    """The answer to request ``request_id`` (``request`` as submitted). For a request submitted
    with ``confirm_delivery``, only once its acknowledgement is applied (its ``Pong`` was seen)."""

    request_id: int
    request: pb.Request
    response: pb.Response


@dataclass(frozen=True)
class Failed:
    """Request ``request_id`` has no answer and will get none: the session ended, the client was
    closed, or no server answered for the give-up time (``error.outcome_known`` says whether it
    may have been applied)."""

    request_id: int
    request: pb.Request
    error: SemaforError


@dataclass(frozen=True)
class ReadCompleted:
    """The answer to read ``read_id`` (a failure, if the server refused it)."""

    read_id: int
    response: pb.ReadResponse


@dataclass(frozen=True)
class ReadFailed:
    """Read ``read_id`` will get no answer (the client was closed, or no server answered)."""

    read_id: int
    error: SemaforError


@dataclass(frozen=True)
class WatchEventReceived:
    """An event of watch ``watch_id`` to hand to its reader (duplicates after a resume dropped)."""

    watch_id: int
    event: pb.WatchEvent


@dataclass(frozen=True)
class WatchEnded:
    """Watch ``watch_id`` ended: the server refused or ended it (``FAILED``), or the client closed."""

    watch_id: int
    error: SemaforError


@dataclass(frozen=True)
class SessionLost:
    """The session ended (``SESSION_EXPIRED``): what it owned went back; pending requests failed
    (a ``Failed`` each, before this). A new session opens on the next use."""

    error: SemaforError


@dataclass(frozen=True)
class AcknowledgementsConfirmed:
    """The server applied every acknowledgement sent before ``confirm_acknowledgements`` returned
    ``token``: what those answers granted is delivered."""

    token: int


@dataclass(frozen=True)
class Closed:
    """The machine is closed: ``close_session`` was answered, or could not be sent."""


Effect = Union[
    Dial,
    Send,
    Hangup,
    Opened,
    HelloRefused,
    Completed,
    Failed,
    ReadCompleted,
    ReadFailed,
    WatchEventReceived,
    WatchEnded,
    SessionLost,
    AcknowledgementsConfirmed,
    Closed,
]
