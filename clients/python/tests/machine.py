"""A harness for the session machine: a fake clock and helpers to feed frames and read effects."""

from __future__ import annotations

import os
from typing import List, Optional, Type, TypeVar

from semafor import _effects as fx
from semafor._proto import semafor_pb2 as pb
from semafor._session import MS, SECOND, ClientSession, SessionConfig
from traces import Recorder

T = TypeVar("T")
SECRET = b"resume-secret-16"
RECORD_TRACES = "SEMAFOR_RECORD_TRACES"
"""Set to a directory, every harness records its machine's trace (``conftest.py`` writes them)."""
RECORDERS: List[Recorder] = []


class Harness:
    """Drives one ``ClientSession`` with a clock that moves only when told."""

    def __init__(self, addresses=("a:1", "b:2", "c:3"), ttl_ns: int = 3 * SECOND, **config) -> None:
        self.now = 1_000 * SECOND
        session_config = SessionConfig(list(addresses), session_ttl_ns=ttl_ns, **config)
        self.m = ClientSession(session_config)
        if os.environ.get(RECORD_TRACES):
            self.m = Recorder(session_config, self.now)  # type: ignore[assignment]
            RECORDERS.append(self.m)  # type: ignore[arg-type]
        self.effects: List[fx.Effect] = []

    def collect(self) -> List[fx.Effect]:
        new = self.m.take()
        self.effects.extend(new)
        return new

    def advance(self, ns: int) -> None:
        """Moves the clock by ``ns``, ticking at every deadline on the way, as a driver does."""
        end = self.now + ns
        for _ in range(100_000):
            due = self.m.next_deadline()
            if due is None or due > end:
                break
            self.now = max(self.now, due)
            self.m.tick(self.now)
            self.collect()
        self.now = end
        self.m.tick(self.now)
        self.collect()

    def of(self, kind: Type[T]) -> List[T]:
        """The effects of a kind produced so far, then forgets them."""
        self.collect()
        found = [e for e in self.effects if isinstance(e, kind)]
        self.effects = [e for e in self.effects if not isinstance(e, kind)]
        return found

    def sent(self) -> List[pb.ClientFrame]:
        return [s.frame for s in self.of(fx.Send)]

    def requests(self) -> List[pb.Request]:
        return [f.request for f in self.sent() if f.HasField("request")]

    def dials(self) -> List[str]:
        return [d.address for d in self.of(fx.Dial)]

    def last_conn(self) -> int:
        return self.m.conn

    def receive(self, **body) -> None:
        self.m.received(pb.ServerFrame(**body), self.now)
        self.collect()

    def open(self, session_id: int = 7, resumed: bool = False, ttl_ns: Optional[int] = None) -> None:
        """Dials (if needed), connects and answers the Hello with a Welcome."""
        self.collect()
        if self.m.phase in ("idle",):
            self.m.start(self.now)
        if self.m.phase == "backoff":
            self.advance(self.m.next_deadline() - self.now)
        if self.m.phase == "dialing":
            self.m.connected(self.now, self.last_conn())
        self.receive(welcome=pb.Welcome(
            protocol_version=1, session_id=session_id, resumed=resumed,
            session_ttl_ns=ttl_ns if ttl_ns is not None else self.m.ttl_ns,
            session_secret=SECRET))

    def drop(self) -> None:
        """The connection breaks; the machine redials at once."""
        self.m.disconnected(self.now, self.last_conn())
        self.collect()

    def submit(self, request: pb.Request, confirm: bool = False) -> int:
        rid = self.m.submit(request, self.now, confirm_delivery=confirm)
        self.collect()
        return rid

    def respond(self, rid: int, **result) -> None:
        self.receive(response=pb.Response(id=rid, revision=100 + rid, **result))


def acquire(name: bytes = b"jobs", amount: int = 1, timeout_ns: int = -1) -> pb.Request:
    return pb.Request(acquire=pb.Acquire(name=name, amount=amount, timeout_ns=timeout_ns, owned=True))


def increment(name: bytes = b"jobs", amount: int = 1) -> pb.Request:
    return pb.Request(increment=pb.Increment(name=name, amount=amount))


def granted(amount: int = 1) -> dict:
    return {"granted": pb.Granted(amount=amount, token=5, sequence=9)}


def failure(code: int, message: str = "", leader: str = "") -> pb.Failure:
    return pb.Failure(code=code, message=message, leader=leader)


__all__ = ["Harness", "acquire", "increment", "granted", "failure", "MS", "SECOND", "SECRET", "fx", "pb"]
