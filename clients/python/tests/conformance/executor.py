"""Runs one :class:`~conformance.cases.Case` with the Python client (conformance/README.md §7):
one :class:`~conformance.actor.PythonActor` per actor, each behind its own
:class:`~conformance.proxy.ActorProxy` on a single node (or straight to a cluster's members),
and the steps in order on one asyncio loop. A started operation is a task; ``cancel`` cancels
it. A step whose outcome does not match fails the case with an ``AssertionError`` naming the
case, the step (number and note) and what was seen against what was expected."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Dict, List, Optional

from semafor.errors import SemaforError

from .actor import PythonActor, failure
from .cases import DEFAULT_AWAIT_MS, AwaitStep, Case, EnvStep, OpStep, Step
from .expectations import Cancelled, Expectations, Outcome, Result
from .proxy import ActorProxy

POLL_S = 0.02
"""How often a ``within_ms`` read is repeated."""

CLOSE_S = 5.0
"""How long closing the actors' clients may take at the end of a case."""


class CaseExecutor:
    """Create with :meth:`proxied` or :meth:`direct`; ``await run()``; ``await close()``."""

    def __init__(self, case: Case) -> None:
        self.case = case
        self.actors: Dict[str, PythonActor] = {}
        self.proxies: Dict[str, ActorProxy] = {}
        self.handles: Dict[str, "asyncio.Task[Dict[str, Any]]"] = {}
        self.expectations = Expectations()
        self.killed: set = set()
        self.cancelled: set = set()  # handles withdrawn by a cancel step
        self.step: Optional[Step] = None  # the step under way, for a case that never ends

    @classmethod
    async def proxied(cls, case: Case, server: str) -> "CaseExecutor":
        """Connects every actor to the single node at ``server`` through its own proxy, so that
        every environment step can be run."""
        executor = cls(case)
        try:
            for actor in case.actors.values():
                proxy = ActorProxy(server, actor.name)
                executor.proxies[actor.name] = proxy
                await executor._connect(actor.name, proxy.address, actor.session_ttl_ms)
        except BaseException:
            await executor.close()
            raise
        return executor

    @classmethod
    async def direct(cls, case: Case, addresses: str) -> "CaseExecutor":
        """Connects every actor straight to ``addresses`` (a cluster's members): no proxy, so only
        ``cluster-safe`` cases can run."""
        if not case.cluster_safe:
            raise ValueError(f"{case.name} is not cluster-safe")
        executor = cls(case)
        try:
            for actor in case.actors.values():
                await executor._connect(actor.name, addresses, actor.session_ttl_ms)
        except BaseException:
            await executor.close()
            raise
        return executor

    async def _connect(self, name: str, addresses: str, ttl_ms: Optional[int]) -> None:
        self.actors[name] = await PythonActor.connect(name, addresses, ttl_ms, self._actor_of_session)

    def _actor_of_session(self, session_id: int) -> str:
        """The actor whose client's session this is now, or ``session:ID``."""
        for name, actor in self.actors.items():
            if actor.client.session_id == session_id:
                return name
        return f"session:{session_id}"

    # ------------------------------------------------------------------ running

    async def run(self) -> None:
        """Runs every step in order; raises AssertionError at the first that does not match."""
        for step in self.case.steps:
            self.step = step
            try:
                if isinstance(step, OpStep):
                    await self._op(step)
                elif isinstance(step, AwaitStep):
                    await self._await(step)
                else:
                    await self._env(step)
            except (AssertionError, SemaforError, ValueError, KeyError) as e:
                note = f" ({step.note})" if step.note else ""
                raise AssertionError(f"{self.case.name}, step {step.index}{note}: {e}; variables "
                                     f"{self.expectations.variables}") from e

    def _start(self, s: OpStep) -> "asyncio.Task[Dict[str, Any]]":
        args = self.expectations.resolve(s.args)
        return asyncio.ensure_future(self.actors[s.actor].perform(s.op.name, args, self.handles))

    async def _op(self, s: OpStep) -> None:
        if s.op.name == "cancel":
            self.cancelled.add(s.args["handle"])
        if s.start is not None:
            self.handles[s.start] = self._start(s)
            # let the task run up to its first wait: its request is submitted (written, or queued
            # in order) before the next step's
            await asyncio.sleep(0)
            return
        deadline = time.monotonic() + (s.within_ms or 0) / 1000
        while True:
            outcome = await self._outcome(self._start(s), DEFAULT_AWAIT_MS)
            mismatch = self.expectations.mismatch(s.expect, outcome)
            if mismatch is None:
                self.expectations.bind(s.bind, outcome)
                return
            if s.within_ms is None or time.monotonic() > deadline:
                still = f" (still, after {s.within_ms} ms)" if s.within_ms is not None else ""
                raise AssertionError(f"{s.actor} {s.op.name} {s.args}: {mismatch}{still}")
            await asyncio.sleep(POLL_S)

    async def _await(self, s: AwaitStep) -> None:
        task = self.handles[s.handle]
        if s.pending_after_ms is not None:
            done, _ = await asyncio.wait({task}, timeout=s.pending_after_ms / 1000)
            if done:
                raise AssertionError(f"{s.handle}: expected still pending, but it ended with "
                                     f"{self._settled(task)}")
            return
        outcome = await self._outcome(task, s.within_ms)
        del self.handles[s.handle]
        if s.handle in self.cancelled and _not_granted(outcome):
            outcome = Cancelled()  # README §3: a call answering "not granted" after a cancel
        mismatch = self.expectations.mismatch(s.expect, outcome)
        if mismatch is not None:
            raise AssertionError(f"{s.handle}: {mismatch}")
        self.expectations.bind(s.bind, outcome)

    async def _env(self, s: EnvStep) -> None:
        if s.kind == "wait_ms":
            await asyncio.sleep(s.ms / 1000)
            return
        assert s.actor is not None
        proxy = self.proxies.get(s.actor)
        if proxy is None:
            raise AssertionError(f"no proxy in front of {s.actor} in this deployment")
        getattr(proxy, s.kind)()
        if s.kind == "kill":
            self.killed.add(s.actor)

    async def _outcome(self, task: "asyncio.Task[Dict[str, Any]]", ms: int) -> Outcome:
        """Waits up to ``ms`` for the task's outcome; none by then fails the case."""
        done, _ = await asyncio.wait({task}, timeout=ms / 1000)
        if not done:
            raise AssertionError(f"no outcome within {ms} ms")
        return self._settled(task)

    @staticmethod
    def _settled(task: "asyncio.Task[Dict[str, Any]]") -> Outcome:
        if task.cancelled():
            return Cancelled()
        e = task.exception()
        if isinstance(e, SemaforError):
            return failure(e)
        if e is not None:
            raise AssertionError(f"the client failed with something other than an error code: "
                                 f"{e!r}") from e
        return Result(task.result())

    # ------------------------------------------------------------------ the end

    async def close(self) -> None:
        """Lets every held link flow again, cancels what is still under way, closes every
        client at once (bounded), then the proxies."""
        for proxy in self.proxies.values():
            proxy.release()
        for task in self.handles.values():
            task.cancel()
        pending: List["asyncio.Future[Any]"] = list(self.handles.values())
        pending += [asyncio.ensure_future(a.client.close()) for a in self.actors.values()]
        if pending:
            await asyncio.wait(pending, timeout=CLOSE_S)
        for proxy in self.proxies.values():
            proxy.close()
        for task in pending:  # retrieve what they raised, so none is reported as never retrieved
            if task.done() and not task.cancelled():
                task.exception()


def _not_granted(outcome: Outcome) -> bool:
    """Whether a result is a wait's "nothing": not granted, nothing taken, not reached, not done,
    no reports."""
    if not isinstance(outcome, Result):
        return False
    f = outcome.fields
    return (f.get("granted") is False or f.get("amount") == 0 or f.get("reached") is False
            or f.get("done") is False or f.get("reports") == [])
