"""Protocol traces of the client session machine (docs/protocol.md §9): recording and playing.

A trace is what one ``ClientSession`` was given and what it did, input by input: the time, the
input (a server frame received, a request submitted, a tick...), what the input returned, the
effects it produced (frames sent, dials, completions...) and the next deadline. Frames are in
protobuf text format, times in nanoseconds from the trace's start. ``Recorder`` writes one while a
test drives a machine; ``play`` gives a fresh machine the same inputs and checks that it does
exactly the same. The Java client runs the same files (``ClientSessionTraceTest``).
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, List, Optional

from google.protobuf import text_format

from semafor import _effects as fx
from semafor._proto import semafor_pb2 as pb
from semafor._session import ClientSession, SessionConfig
from semafor.errors import ErrorCode, SemaforError

FORMAT = "semafor-client-trace/1"
CONFIG_FIELDS = ("addresses", "session_ttl_ns", "client_name", "client_host", "client_pid",
                 "token", "ack_delay_ns", "probe_after_ns", "answer_deadline_ns",
                 "backoff_min_ns", "backoff_max_ns", "give_up_after_ns", "avoid_silent_ns",
                 "stable_after_ns")


def text(message: Any) -> str:
    """A message in protobuf text format, on one line."""
    return text_format.MessageToString(message, as_one_line=True)


def parse(kind: type, value: str) -> Any:
    return text_format.Parse(value, kind())


def _error(error: SemaforError) -> Dict[str, Any]:
    out: Dict[str, Any] = {"code": ErrorCode(error.code).name, "outcome_known": error.outcome_known}
    if error.leader:
        out["leader"] = error.leader
    return out


def effect_json(e: fx.Effect) -> Dict[str, Any]:
    """An effect as a trace writes it (the free-text reasons and messages are left out)."""
    if isinstance(e, fx.Dial):
        return {"dial": {"conn": e.conn, "address": e.address}}
    if isinstance(e, fx.Send):
        return {"send": text(e.frame)}
    if isinstance(e, fx.Hangup):
        return {"hangup": {"conn": e.conn}}
    if isinstance(e, fx.Opened):
        return {"opened": {"session_id": e.session_id, "resumed": e.resumed, "ttl_ns": e.ttl_ns,
                           "principal": e.principal, "epoch": e.epoch}}
    if isinstance(e, fx.HelloRefused):
        return {"hello_refused": _error(e.error)}
    if isinstance(e, fx.Completed):
        return {"completed": {"request_id": e.request_id, "response": text(e.response)}}
    if isinstance(e, fx.Failed):
        return {"failed": {"request_id": e.request_id, **_error(e.error)}}
    if isinstance(e, fx.ReadCompleted):
        return {"read_completed": {"read_id": e.read_id, "response": text(e.response)}}
    if isinstance(e, fx.ReadFailed):
        return {"read_failed": {"read_id": e.read_id, **_error(e.error)}}
    if isinstance(e, fx.WatchEventReceived):
        return {"watch_event": {"watch_id": e.watch_id, "event": text(e.event)}}
    if isinstance(e, fx.WatchEnded):
        return {"watch_ended": {"watch_id": e.watch_id, **_error(e.error)}}
    if isinstance(e, fx.SessionLost):
        return {"session_lost": _error(e.error)}
    if isinstance(e, fx.AcknowledgementsConfirmed):
        return {"acknowledgements_confirmed": {"token": e.token}}
    if isinstance(e, fx.Closed):
        return {"closed": {}}
    raise AssertionError(f"an effect a trace cannot write: {e!r}")


class Recorder:
    """Stands in for a ``ClientSession``: passes every input on and writes it down with what it
    returned, its effects and the next deadline. Queries (``phase``, ``epoch``...) pass through."""

    def __init__(self, config: SessionConfig, start_ns: int) -> None:
        self.machine = ClientSession(config)
        self.config = config
        self.start_ns = start_ns
        self.steps: List[Dict[str, Any]] = []
        self._buffer: List[fx.Effect] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.machine, name)

    def _step(self, now: int, step: Dict[str, Any], call: Callable[[], Any]) -> Any:
        result = call()
        effects = self.machine.take()
        self._buffer.extend(effects)
        step = {"at_ns": now - self.start_ns, **step}
        if result is not None:
            step["returns"] = result
        step["effects"] = [effect_json(e) for e in effects]
        deadline = self.machine.next_deadline()
        step["deadline_ns"] = None if deadline is None else deadline - self.start_ns
        self.steps.append(step)
        return result

    def _conn(self, conn: Optional[int]) -> int:
        return self.machine.conn if conn is None else conn

    def start(self, now: int) -> None:
        self._step(now, {"start": {}}, lambda: self.machine.start(now))

    def connected(self, now: int, conn: Optional[int] = None) -> None:
        c = self._conn(conn)
        self._step(now, {"connected": c}, lambda: self.machine.connected(now, c))

    def disconnected(self, now: int, conn: Optional[int] = None) -> None:
        c = self._conn(conn)
        self._step(now, {"disconnected": c}, lambda: self.machine.disconnected(now, c))

    def received(self, frame: pb.ServerFrame, now: int, conn: Optional[int] = None) -> None:
        c = self._conn(conn)
        self._step(now, {"received": text(frame), "conn": c},
                   lambda: self.machine.received(frame, now, c))

    def tick(self, now: int) -> None:
        self._step(now, {"tick": {}}, lambda: self.machine.tick(now))

    def submit(self, request: pb.Request, now: int, confirm_delivery: bool = False,
               session_epoch: Optional[int] = None) -> int:
        step: Dict[str, Any] = {"submit": text(request)}
        if confirm_delivery:
            step["confirm_delivery"] = True
        if session_epoch is not None:
            step["session_epoch"] = session_epoch
        return self._step(now, step, lambda: self.machine.submit(
            request, now, confirm_delivery=confirm_delivery, session_epoch=session_epoch))

    def read(self, read: pb.Read, now: int) -> int:
        return self._step(now, {"read": text(read)}, lambda: self.machine.read(read, now))

    def cancel(self, request_id: int, now: int) -> bool:
        return self._step(now, {"cancel": request_id}, lambda: self.machine.cancel(request_id, now))

    def watch(self, name: bytes, now: int, prefix: bool = False, limit: int = 0,
              summary: bool = False, after_revision: int = 0) -> int:
        spec = pb.Watch(name=name, prefix=prefix, limit=limit, summary=summary,
                        after_revision=after_revision)
        return self._step(now, {"watch": text(spec)}, lambda: self.machine.watch(
            name, now, prefix=prefix, limit=limit, summary=summary, after_revision=after_revision))

    def unwatch(self, watch_id: int, now: int) -> None:
        self._step(now, {"unwatch": watch_id}, lambda: self.machine.unwatch(watch_id, now))

    def close(self, now: int) -> None:
        self._step(now, {"close": {}}, lambda: self.machine.close(now))

    def confirm_acknowledgements(self, now: int) -> int:
        return self._step(now, {"confirm_acknowledgements": {}},
                          lambda: self.machine.confirm_acknowledgements(now))

    def nudge(self, now: int) -> None:
        self._step(now, {"nudge": {}}, lambda: self.machine.nudge(now))

    def leave_unacknowledged(self, response_id: int, now: int) -> None:
        self._step(now, {"leave_unacknowledged": response_id},
                   lambda: self.machine.leave_unacknowledged(response_id, now))

    def take(self) -> List[fx.Effect]:
        out, self._buffer = self._buffer, []
        return out

    def trace(self, name: str, description: str) -> Dict[str, Any]:
        """The trace recorded so far."""
        defaults = SessionConfig(addresses=["-"])
        config: Dict[str, Any] = {}
        for field in CONFIG_FIELDS:
            value = getattr(self.config, field)
            if field == "addresses":
                value = list(value)
            if field == "addresses" or value != getattr(defaults, field):
                config[field] = value
        return {"format": FORMAT, "name": name, "description": description, "config": config,
                "steps": self.steps}


def dumps(trace: Dict[str, Any]) -> str:
    """A trace as its file holds it: one step per line, so that a diff shows the step."""
    head = {k: v for k, v in trace.items() if k != "steps"}
    lines = json.dumps(head, indent=2)[:-2] + ',\n  "steps": [\n'
    lines += ",\n".join("    " + json.dumps(s) for s in trace["steps"])
    return lines + "\n  ]\n}\n"


def config_of(trace: Dict[str, Any]) -> SessionConfig:
    c = dict(trace["config"])
    unknown = set(c) - set(CONFIG_FIELDS)
    if unknown:
        raise ValueError(f"config: unknown fields {sorted(unknown)}")
    return SessionConfig(**c)


TRACE_FIELDS = {"format", "name", "description", "source", "config", "steps"}
INPUTS = ("start", "connected", "disconnected", "received", "tick", "submit", "read", "cancel",
          "watch", "unwatch", "close", "confirm_acknowledgements", "nudge", "leave_unacknowledged")
STEP_FIELDS = set(INPUTS) | {"at_ns", "conn", "confirm_delivery", "session_epoch", "returns",
                             "effects", "deadline_ns", "note"}


def play(trace: Dict[str, Any]) -> None:
    """Gives a fresh machine the trace's inputs; raises AssertionError at the first difference."""
    if trace.get("format") != FORMAT:
        raise ValueError(f"format: expected {FORMAT}, was {trace.get('format')!r}")
    unknown = set(trace) - TRACE_FIELDS
    if unknown:
        raise ValueError(f"{trace.get('name')}: unknown fields {sorted(unknown)}")
    start = 1_000_000_000_000
    m = ClientSession(config_of(trace))
    for i, step in enumerate(trace["steps"]):
        unknown = set(step) - STEP_FIELDS
        inputs = [k for k in INPUTS if k in step]
        if unknown or len(inputs) != 1:
            raise ValueError(f"step {i}: one input of {INPUTS} expected; unknown {sorted(unknown)}")
        now = start + step["at_ns"]
        kind = inputs[0]
        arg = step[kind]
        if kind == "start":
            result = m.start(now)
        elif kind == "connected":
            result = m.connected(now, arg)
        elif kind == "disconnected":
            result = m.disconnected(now, arg)
        elif kind == "received":
            result = m.received(parse(pb.ServerFrame, arg), now, step["conn"])
        elif kind == "tick":
            result = m.tick(now)
        elif kind == "submit":
            result = m.submit(parse(pb.Request, arg), now,
                              confirm_delivery=step.get("confirm_delivery", False),
                              session_epoch=step.get("session_epoch"))
        elif kind == "read":
            result = m.read(parse(pb.Read, arg), now)
        elif kind == "cancel":
            result = m.cancel(arg, now)
        elif kind == "watch":
            w = parse(pb.Watch, arg)
            result = m.watch(w.name, now, prefix=w.prefix, limit=w.limit, summary=w.summary,
                             after_revision=w.after_revision)
        elif kind == "unwatch":
            result = m.unwatch(arg, now)
        elif kind == "close":
            result = m.close(now)
        elif kind == "confirm_acknowledgements":
            result = m.confirm_acknowledgements(now)
        elif kind == "nudge":
            result = m.nudge(now)
        else:
            result = m.leave_unacknowledged(arg, now)
        where = f"{trace['name']} step {i} ({kind} at {step['at_ns']} ns)"
        assert result == step.get("returns"), f"{where}: returned {result!r}"
        got = [effect_json(e) for e in m.take()]
        want = step["effects"]
        assert [_normal(e) for e in got] == [_normal(e) for e in want], (
            f"{where}: effects\n  got  {got}\n  want {want}")
        deadline = m.next_deadline()
        got_deadline = None if deadline is None else deadline - start
        assert got_deadline == step["deadline_ns"], f"{where}: next deadline {got_deadline}"


def _normal(effect: Dict[str, Any]) -> Dict[str, Any]:
    """An effect with its frames parsed back, so that two spellings of one frame compare equal."""
    (kind, value), = effect.items()
    if kind == "send":
        return {kind: parse(pb.ClientFrame, value)}
    if isinstance(value, dict):
        parsed = dict(value)
        for field, cls in (("response", pb.Response), ("event", pb.WatchEvent)):
            if field in parsed:
                cls = pb.ReadResponse if kind == "read_completed" else cls
                parsed[field] = parse(cls, parsed[field])
        return {kind: parsed}
    return effect
