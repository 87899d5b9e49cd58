"""What the blocking and the asyncio clients share: requests built from arguments, answers turned
into values or exceptions, and the give-back of a grant whose caller is gone. Pure."""

from __future__ import annotations

import datetime
import math
from typing import List, Optional, Sequence

from semafor._proto import semafor_pb2 as pb
from semafor.errors import ErrorCode, SemaforError, error_for
from semafor.types import (
    Detail,
    Grant,
    Holder,
    LeaseInfo,
    Options,
    Policy,
    SemopOp,
    SemopResult,
    Status,
    Timeout,
    Waiter,
    WatchEvent,
)


def name_bytes(name: str) -> bytes:
    """A name as the wire carries it (UTF-8); the server checks length and emptiness."""
    if not isinstance(name, str):
        raise error_for(ErrorCode.INVALID_ARGUMENT, f"name: must be a str, was {type(name).__name__}")
    return name.encode("utf-8")


def timeout_ns(timeout: Timeout, argument: str = "timeout") -> int:
    """Seconds or a timedelta as the wire's nanoseconds: None is -1 (forever), 0 does not wait."""
    if timeout is None:
        return -1
    seconds = timeout.total_seconds() if isinstance(timeout, datetime.timedelta) else timeout
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or math.isnan(seconds):
        raise error_for(ErrorCode.INVALID_ARGUMENT,
                        f"{argument}: must be seconds, a timedelta or None, was {timeout!r}")
    if seconds < 0:
        raise error_for(ErrorCode.INVALID_ARGUMENT, f"{argument}: must be >= 0 or None, was {timeout!r}")
    return min(int(seconds * 1e9), (1 << 63) - 1)


def duration_ns(value: Timeout, argument: str) -> int:
    """A duration that must be given and positive (a TTL)."""
    if value is None:
        raise error_for(ErrorCode.INVALID_ARGUMENT, f"{argument}: must be given, was None")
    ns = timeout_ns(value, argument)
    if ns <= 0:
        raise error_for(ErrorCode.INVALID_ARGUMENT, f"{argument}: must be > 0, was {value!r}")
    return ns


def raise_failure(failure: pb.Failure) -> None:
    raise error_for(failure.code, failure.message, leader=failure.leader)


def checked(response: pb.Response) -> pb.Response:
    """The response, or its failure raised."""
    if response.HasField("failure"):
        raise_failure(response.failure)
    return response


def checked_read(response: pb.ReadResponse) -> pb.ReadResponse:
    if response.HasField("failure"):
        raise_failure(response.failure)
    return response


def options(o: pb.Options) -> Options:
    policy = Policy.BARGING if o.policy == pb.BARGING else Policy.FIFO
    return Options(o.capacity, policy, o.max_per_session)


def status(s: pb.SemaphoreStatus, revision: int) -> Status:
    return Status(s.name.decode("utf-8", "replace"), s.value, options(s.options), s.waiters,
                  s.holders, s.owned, s.leased, s.undelivered, s.leases, revision)


def detail(d: pb.SemaphoreDetail, revision: int) -> Detail:
    return Detail(
        status(d.status, revision),
        tuple(Waiter(w.session_id, w.request_id, w.sequence, w.kind, w.amount, w.times_out_in_ns,
                     w.client.name) for w in d.queue),
        tuple(Holder(h.session_id, h.owned, tuple(h.slots), h.client.name) for h in d.holders),
        tuple(LeaseInfo(x.permit_id, x.session_id, x.amount, tuple(x.slots), x.token, x.age_ns,
                        x.expires_in_ns) for x in d.leases),
    )


def merge_pages(pages: Sequence[Detail]) -> Detail:
    last = pages[-1]
    return Detail(last.status, tuple(w for p in pages for w in p.queue),
                  tuple(h for p in pages for h in p.holders), tuple(x for p in pages for x in p.leases))


def inspect_read(name: bytes, page: Optional[pb.SemaphoreDetail], limit: int) -> Optional[pb.Read]:
    """The read of the next inspection page, or None when every list is complete."""
    last = (1 << 63) - 1
    if page is None:
        return pb.Read(inspect=pb.Inspect(name=name, limit=limit))
    if not (page.queue_more or page.holders_more or page.leases_more):
        return None
    return pb.Read(inspect=pb.Inspect(
        name=name, limit=limit,
        queue_after=page.queue_next if page.queue_more else last,
        holders_after=page.holders_next if page.holders_more else last,
        leases_after=page.leases_next if page.leases_more else last))


def grant(g: pb.Granted) -> Grant:
    return Grant(g.amount, g.token, g.sequence, tuple(g.slots))


def semop_request(ops: Sequence[SemopOp], timeout: int) -> pb.Request:
    if not ops:
        raise error_for(ErrorCode.INVALID_ARGUMENT, "ops: at least one op is needed")
    wire = [pb.SemopOp(name=name_bytes(o.name), delta=o.delta, no_wait=o.no_wait, owned=o.owned)
            for o in ops]
    return pb.Request(semop=pb.Semop(ops=wire, timeout_ns=timeout))


def semop_result(d: pb.SemopDone) -> SemopResult:
    return SemopResult(d.done, d.token, d.sequence, tuple(tuple(s.slots) for s in d.slots))


def watch_event(e: pb.WatchEvent) -> WatchEvent:
    kind = pb.WatchEvent.Kind.Name(e.kind)
    name = e.name.decode("utf-8", "replace")
    if e.HasField("detail"):
        d = detail(e.detail, e.revision)
        return WatchEvent(kind, name, e.revision, d.status, d)
    if e.HasField("status"):
        return WatchEvent(kind, name, e.revision, status(e.status, e.revision))
    return WatchEvent(kind, name, e.revision)


def give_back(request: pb.Request, response: pb.Response) -> List[pb.Request]:
    """The requests that undo a grant whose caller is gone (docs/semantics.md#cancelled-waits):
    owned permits released, consumed ones incremented back, a lease released, a semop's inverse
    (its ops reversed and negated, applied at once), WaitMany reports incremented back."""
    op = request.WhichOneof("op")
    result = response.WhichOneof("result")
    if op in ("acquire", "decrement") and result == "granted" and response.granted.amount > 0:
        body = getattr(request, op)
        amount = response.granted.amount
        if body.owned:
            return [pb.Request(release=pb.Release(name=body.name, amount=amount))]
        return [pb.Request(increment=pb.Increment(name=body.name, amount=amount))]
    if op == "acquire_lease" and result == "lease_granted" and response.lease_granted.permit_id:
        return [pb.Request(release_lease=pb.ReleaseLease(
            permit_id=response.lease_granted.permit_id, name=request.acquire_lease.name))]
    if op == "semop" and result == "semop_done" and response.semop_done.done:
        inverse = [pb.SemopOp(name=o.name, delta=-o.delta, owned=o.owned)
                   for o in reversed(request.semop.ops) if o.delta != 0]
        return [pb.Request(semop=pb.Semop(ops=inverse, timeout_ns=0))] if inverse else []
    if op == "wait_many" and result == "wait_many_reported":
        return [pb.Request(increment=pb.Increment(name=r.name, amount=r.granted))
                for r in response.wait_many_reported.reports if r.granted > 0]
    return []


def session_epoch(request: pb.Request, epoch: int) -> Optional[int]:
    """The session a give-back belongs to: a release of owned permits undoes nothing once their
    session ended (they went back with it), and must not reach a newer session's permits."""
    return epoch if request.WhichOneof("op") in ("release", "release_slot") else None


def unavailable(message: str, outcome_known: bool = False) -> SemaforError:
    return error_for(ErrorCode.UNAVAILABLE, message, outcome_known=outcome_known)
