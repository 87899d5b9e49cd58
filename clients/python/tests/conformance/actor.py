"""One actor of a case, played by the Python client's asyncio API (``semafor.aio``): each kit
operation (conformance/README.md §3) mapped onto the client's public calls, as a coroutine the
executor runs as a task, so that it can be started, awaited later, and cancelled as a caller
cancels a task (which withdraws the wait from the server).

Mappings: ``acquire``/``try_acquire`` with ``owned`` are ``sem.try_acquire`` (a ``Permit``: its
slots and token), without it ``sem.take`` (consumed, all or nothing: a ``Grant``); ``lease`` is
``sem.lease`` (returned once delivered; ``AcquireTimeout`` is ``granted: false``); ``renew`` and
``release_lease`` go through ``client.lease(permit_id, name)``; a ``wait_many`` list label is one
``client.wait_many()`` list, whose callbacks record the reports in the order called."""

from __future__ import annotations

import asyncio
import re
from typing import Any, Callable, Dict, List, Optional

import semafor.aio
from semafor.errors import SemaforError
from semafor.types import Detail, Policy, SemopOp, Status

from .expectations import Failure

# README §3: the argument of an error is the text before the message's first ": ".
_ARGUMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_.\[\]]*): ")


def seconds(ms: int) -> Optional[float]:
    """A kit wait in ms as the client's timeout: -1 waits as long as it takes (None)."""
    return None if ms == -1 else ms / 1000


def failure(e: SemaforError) -> Failure:
    """A client error as the kit's failure: its code and the argument it names."""
    message = e.message or ""
    prefix = f"{e.code.name}: "
    if message.startswith(prefix):
        message = message[len(prefix):]
    argument = e.argument
    if not argument:
        m = _ARGUMENT.match(message)
        argument = m.group(1) if m else ""
    return Failure(e.code.name, argument, message)


class PythonActor:
    """An actor: one ``semafor.aio`` client (one session)."""

    def __init__(self, client: semafor.aio.Client, actor_of_session: Callable[[int], str]) -> None:
        self.client = client
        self._actor_of_session = actor_of_session
        self._lists: Dict[str, semafor.aio.WaitMany] = {}
        self._reports: Dict[str, List[Dict[str, Any]]] = {}

    @classmethod
    async def connect(cls, name: str, addresses: str, session_ttl_ms: Optional[int],
                      actor_of_session: Callable[[int], str]) -> "PythonActor":
        client = await semafor.aio.connect(
            addresses, client_name=f"conformance-{name}",
            session_ttl=None if session_ttl_ms is None else session_ttl_ms / 1000,
            connect_timeout=10.0)
        return cls(client, actor_of_session)

    async def perform(self, op: str, a: Dict[str, Any], handles: Dict[str, "asyncio.Task[Any]"]) -> Dict[str, Any]:
        """Performs ``op`` with resolved arguments ``a``; returns its result fields. Raises the
        client's :class:`SemaforError` when it fails."""
        c = self.client
        if op == "create":
            sem = await c.create(a["name"], a["initial"], capacity=a.get("capacity", 0),
                                 policy=Policy[a.get("policy", "FIFO")],
                                 max_per_session=a.get("max_per_session", 0))
            return {"created": sem.created}
        if op == "delete":
            await c.semaphore(a["name"]).delete()
            return {}
        if op == "get":
            return self._summary(await c.semaphore(a["name"]).get())
        if op == "inspect":
            return self._detail(await c.inspect(a["name"]))
        if op == "set":
            return {"previous": await c.semaphore(a["name"]).set(a["value"])}
        if op == "increment":
            return {"value": await c.semaphore(a["name"]).increment(a["amount"])}
        if op == "decrement":
            grant = await c.semaphore(a["name"]).decrement(a["amount"], seconds(a["timeout_ms"]))
            return {"amount": grant.amount}
        if op in ("acquire", "try_acquire"):
            timeout = seconds(a["timeout_ms"]) if op == "acquire" else 0
            sem = c.semaphore(a["name"])
            if a.get("owned", False):
                permit = await sem.try_acquire(a["amount"], timeout)
                if permit is None:
                    return {"granted": False}
                return {"granted": True, "slots": list(permit.slots), "token": permit.token}
            grant = await sem.take(a["amount"], timeout)
            if not grant:
                return {"granted": False}
            return {"granted": True, "slots": list(grant.slots), "token": grant.token}
        if op == "release":
            await c.semaphore(a["name"]).release(a["amount"])
            return {}
        if op == "release_slot":
            await c.semaphore(a["name"]).release_slot(a["slot"])
            return {}
        if op == "lease":
            try:
                lease = await c.semaphore(a["name"]).lease(
                    a["amount"], ttl=a["ttl_ms"] / 1000, timeout=seconds(a["timeout_ms"]))
            except semafor.aio.AcquireTimeout:
                return {"granted": False}
            return {"granted": True, "permit_id": lease.permit_id, "slots": list(lease.slots),
                    "token": lease.token}
        if op == "renew":
            await c.lease(a["permit_id"], a.get("name", "")).renew(a["ttl_ms"] / 1000)
            return {}
        if op == "release_lease":
            return {"released": await c.lease(a["permit_id"], a.get("name", "")).release()}
        if op == "await_zero":
            return {"reached": await c.semaphore(a["name"]).await_zero(seconds(a["timeout_ms"]))}
        if op == "semop":
            ops = [SemopOp(o["name"], o["delta"], no_wait=o.get("no_wait", False),
                           owned=o.get("owned", False)) for o in a["ops"]]
            r = await c.semop(ops, seconds(a["timeout_ms"]))
            return {"done": True, "token": r.token} if r.done else {"done": False}
        if op == "wait_many_add":
            reported = self._reports.setdefault(a["list"], [])
            name = a["name"]
            await self._list(a["list"]).add(
                name, a["amount"], lambda granted: reported.append({"name": name, "amount": granted}))
            return {}
        if op == "wait_many_remove":
            return {"returned": await self._list(a["list"]).remove(a["name"])}
        if op == "wait_many":
            reported = self._reports.setdefault(a["list"], [])
            await self._list(a["list"]).wait(seconds(a["timeout_ms"]))
            these = list(reported)
            del reported[:len(these)]
            return {"reports": these}
        if op == "cancel":
            handles[a["handle"]].cancel()
            return {}
        if op == "close":
            await c.close()
            return {}
        raise AssertionError(f"the Python runner has no mapping for op {op!r}")

    def _list(self, label: str) -> semafor.aio.WaitMany:
        if label not in self._lists:
            self._lists[label] = self.client.wait_many()
        return self._lists[label]

    @staticmethod
    def _summary(s: Status) -> Dict[str, Any]:
        return {"value": s.value, "waiters": s.waiters, "holders": s.holders, "leases": s.leases,
                "owned": s.owned, "leased": s.leased, "undelivered": s.undelivered}

    def _detail(self, d: Detail) -> Dict[str, Any]:
        name = self._actor_of_session
        return {
            "value": d.status.value,
            "queue": [{"actor": name(w.session_id), "amount": w.amount} for w in d.queue],
            "holders": [{"actor": name(h.session_id), "owned": h.owned, "slots": list(h.slots)}
                        for h in d.holders],
            "leases": [{"permit_id": l.permit_id, "amount": l.amount, "slots": list(l.slots),
                        "delivered": l.session_id == 0} for l in d.leases],
        }
