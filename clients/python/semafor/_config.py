"""The session machine's configuration, phases and per-request records (``semafor._session``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from semafor._proto import semafor_pb2 as pb

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
    avoid_silent_ns: int = 3 * SECOND  # an address that went silent is dialled last this long
    stable_after_ns: int = 1 * SECOND  # a session connection lost sooner counts as a failed dial


@dataclass
class Pending:
    request: pb.Request  # its id is the wire id: the caller's, or a new one after a refusal
    confirm: bool = False  # complete only once the acknowledgement of its answer is applied
    internal: bool = False  # the machine's own (cancel, close): no effect for its answer
    sent: bool = False  # on the current connection
    attempts: int = 0


@dataclass
class PendingRead:
    read: pb.Read
    sent: bool = False

