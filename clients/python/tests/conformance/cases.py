"""A case of the conformance kit (conformance/README.md) and its strict reader.

:func:`parse` reads one case file into a :class:`Case` of :class:`OpStep`, :class:`AwaitStep`
and :class:`EnvStep`, holding it to the README's rules (§8): an unknown field, step, operation,
argument, result field, error code or tag, a variable used before it is bound or bound twice, a
handle awaited or cancelled that is not open, a step the actor's link state forbids, or tags that
are not exactly what the steps use, is a :class:`CaseFormatError` naming the file and the step.
A runner that cannot read a case fails it, never skips it."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, List, Optional, Tuple, Union

from semafor.errors import ErrorCode

DEFAULT_AWAIT_MS = 10_000
"""How long an await waits for an outcome unless the step says otherwise, and how long a plain
operation may take."""

CLUSTER_SAFE = "cluster-safe"
KNOWN_TAGS = frozenset({"session", "lease", "wait_many", "semop", "cut", "deafen", "freeze", "kill",
                        CLUSTER_SAFE})
ERROR_CODES = frozenset(c.name for c in ErrorCode)
MATCHERS = frozenset({"gt", "ge", "lt", "le", "ne"})

_IDENTIFIER = re.compile(r"[a-z][a-z0-9_]*\Z")
_CASE_NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*\Z")
_INTEGER_ARGS = frozenset({"initial", "capacity", "max_per_session", "value", "amount",
                           "timeout_ms", "slot", "ttl_ms", "permit_id"})
_SEMOP_OP_FIELDS = frozenset({"name", "delta", "no_wait", "owned"})


@dataclass(frozen=True)
class OpSpec:
    """An operation of the kit (README §3): what it requires and allows, its tag (empty for the
    basic operations) and the fields of its result."""

    name: str
    required: FrozenSet[str]
    optional: FrozenSet[str]
    tag: str
    results: FrozenSet[str]

    def allows(self, arg: str) -> bool:
        return arg in self.required or arg in self.optional

    @property
    def is_read(self) -> bool:
        """Whether a case may poll it with ``within_ms``: it reads and changes nothing."""
        return self.name in ("get", "inspect")


def _op(name: str, required: str, optional: str = "", tag: str = "", results: str = "") -> OpSpec:
    return OpSpec(name, frozenset(required.split()), frozenset(optional.split()), tag,
                  frozenset(results.split()))


OPS: Dict[str, OpSpec] = {o.name: o for o in [
    _op("create", "name initial", "capacity policy max_per_session", "", "created"),
    _op("delete", "name"),
    _op("get", "name", "", "", "value waiters holders leases owned leased undelivered"),
    _op("inspect", "name", "", "", "value queue holders leases"),
    _op("set", "name value", "", "", "previous"),
    _op("increment", "name amount", "", "", "value"),
    _op("decrement", "name amount timeout_ms", "", "", "amount"),
    _op("acquire", "name amount timeout_ms", "owned", "session", "granted slots token"),
    _op("try_acquire", "name amount", "owned", "session", "granted slots token"),
    _op("release", "name amount", "", "session"),
    _op("release_slot", "name slot", "", "session"),
    _op("lease", "name amount ttl_ms timeout_ms", "", "lease", "granted permit_id slots token"),
    _op("renew", "permit_id ttl_ms", "name", "lease"),
    _op("release_lease", "permit_id", "name", "lease", "released"),
    _op("await_zero", "name timeout_ms", "", "session", "reached"),
    _op("semop", "ops timeout_ms", "", "semop", "done token"),
    _op("wait_many_add", "list name amount", "", "wait_many"),
    _op("wait_many_remove", "list name", "", "wait_many", "returned"),
    _op("wait_many", "list timeout_ms", "", "wait_many", "reports"),
    _op("cancel", "handle", "", "session"),
    _op("close", "", "", "session"),
]}

ENVS = {"cut": "cut", "restore": "cut", "deafen": "deafen", "freeze": "freeze", "thaw": "",
        "kill": "kill", "wait_ms": ""}
"""Each environment step and the tag a case using it carries (a thaw ends a deafen or a freeze,
whose tag the case carries; wait_ms needs none)."""

# An actor's link (README §2.3), which decides what it may do next.
OPEN, CUT, DEAF, FROZEN, DEAD = "open", "cut", "deaf", "frozen", "dead"
_MOVES = {
    "cut": {OPEN: CUT, DEAF: CUT},
    "restore": {CUT: OPEN},
    "deafen": {OPEN: DEAF},
    "freeze": {OPEN: FROZEN, DEAF: FROZEN},
    "thaw": {DEAF: OPEN, FROZEN: OPEN},
    "kill": {OPEN: DEAD, CUT: DEAD, DEAF: DEAD, FROZEN: DEAD},
}


@dataclass(frozen=True)
class Actor:
    """One client with its own session; ``session_ttl_ms`` None for the client's default."""

    name: str
    session_ttl_ms: Optional[int]


@dataclass(frozen=True)
class OpStep:
    """``actor`` performs ``op`` with ``args``: started under ``start`` and not awaited, or
    awaited and held to ``expect`` (None: it must succeed), a read repeated until it matches for
    at most ``within_ms``; ``bind`` names variables for result fields. ``needs_session``: the step
    shows what only a session has, and a runner without sessions (HTTP) leaves it out."""

    index: int
    note: Optional[str]
    actor: str
    op: OpSpec
    args: Dict[str, Any]
    expect: Optional[Dict[str, Any]]
    bind: Dict[str, str]
    start: Optional[str]
    within_ms: Optional[int]
    needs_session: bool = False


@dataclass(frozen=True)
class AwaitStep:
    """Awaits the operation started as ``handle`` for at most ``within_ms`` and holds its outcome
    to ``expect``; or, with ``pending_after_ms``, checks it has none yet (the handle stays open)."""

    index: int
    note: Optional[str]
    handle: str
    expect: Dict[str, Any]
    pending_after_ms: Optional[int]
    bind: Dict[str, str]
    within_ms: int


@dataclass(frozen=True)
class EnvStep:
    """What the runner does to ``actor``'s connection (``kind``), or a pause of ``ms``."""

    index: int
    note: Optional[str]
    kind: str
    actor: Optional[str]
    ms: int


Step = Union[OpStep, AwaitStep, EnvStep]


@dataclass(frozen=True)
class Case:
    """One case: its actors and steps; ``tags`` say what a runner must support to run it."""

    path: str
    name: str
    description: str
    source: Optional[str]
    tags: FrozenSet[str]
    actors: Dict[str, Actor]
    steps: Tuple[Step, ...]

    @property
    def cluster_safe(self) -> bool:
        return CLUSTER_SAFE in self.tags

    @property
    def requirements(self) -> FrozenSet[str]:
        """The tags a runner must support to run it (all but ``cluster-safe``)."""
        return self.tags - {CLUSTER_SAFE}


class CaseFormatError(ValueError):
    """A case file that does not follow the format: the runner fails on it."""


def case_files(directory: str) -> List[str]:
    """Every ``*.json`` in ``directory``, by name."""
    return sorted(os.path.join(directory, f) for f in os.listdir(directory) if f.endswith(".json"))


def parse(path: str, text: Optional[str] = None) -> Case:
    """Reads and checks the case file at ``path`` (or ``text``, named by ``path``)."""
    if text is None:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    try:
        root = json.loads(text)
    except ValueError as e:
        raise CaseFormatError(f"{os.path.basename(path)}: not JSON: {e}") from None
    return _Reader(path).case(root)


@dataclass
class _Handle:
    actor: str
    op: OpSpec


@dataclass
class _Reader:
    path: str
    step_index: int = 0
    variables: set = field(default_factory=set)
    handles: Dict[str, _Handle] = field(default_factory=dict)
    links: Dict[str, str] = field(default_factory=dict)
    used_tags: set = field(default_factory=set)

    def fail(self, message: str) -> CaseFormatError:
        where = f", step {self.step_index}" if self.step_index else ""
        return CaseFormatError(f"{os.path.basename(self.path)}{where}: {message}")

    # ------------------------------------------------------------------ the case

    def case(self, root: Any) -> Case:
        if not isinstance(root, dict):
            raise self.fail("a case is a JSON object")
        self.only(root, {"name", "description", "source", "tags", "actors", "steps"}, "the case")
        name = self.text(root, "name", "the case")
        expected = os.path.basename(self.path)[:-len(".json")] if self.path.endswith(".json") \
            else os.path.basename(self.path)
        if not _CASE_NAME.match(name) or name != expected:
            raise self.fail(f"name '{name}' must be lower-case-with-hyphens and the file's name")
        description = self.text(root, "description", "the case")
        source = self.text(root, "source", "the case") if "source" in root else None
        tags = self.tags(self.required(root, "tags", "the case"))
        actors = self.actors(self.required(root, "actors", "the case"))
        raw_steps = self.required(root, "steps", "the case")
        if not isinstance(raw_steps, list) or not raw_steps:
            raise self.fail("steps: a non-empty array")
        steps = []
        for raw in raw_steps:
            self.step_index += 1
            steps.append(self.step(raw, actors))
        self.step_index = 0
        self.check_tags(tags)
        return Case(self.path, name, description, source, tags, actors, tuple(steps))

    def tags(self, node: Any) -> FrozenSet[str]:
        if not isinstance(node, list):
            raise self.fail("tags: an array of strings")
        for t in node:
            if not isinstance(t, str) or t not in KNOWN_TAGS:
                raise self.fail(f"tags: unknown tag {t!r}; known: {sorted(KNOWN_TAGS)}")
        return frozenset(node)

    def actors(self, node: Any) -> Dict[str, Actor]:
        if not isinstance(node, dict) or not node:
            raise self.fail("actors: a non-empty object of actor names")
        actors = {}
        for name, spec in node.items():
            if not _IDENTIFIER.match(name):
                raise self.fail(f"actor name '{name}' must match {_IDENTIFIER.pattern}")
            if not isinstance(spec, dict):
                raise self.fail(f"actor {name}: an object")
            self.only(spec, {"session_ttl_ms"}, f"actor {name}")
            ttl = None
            if "session_ttl_ms" in spec:
                ttl = self.positive(spec, "session_ttl_ms", f"actor {name}")
                self.used_tags.add("session")
            actors[name] = Actor(name, ttl)
            self.links[name] = OPEN
        return actors

    def check_tags(self, declared: FrozenSet[str]) -> None:
        requirements = set(declared) - {CLUSTER_SAFE}
        if requirements != self.used_tags:
            raise self.fail(f"tags {sorted(requirements)} (without cluster-safe) must be exactly "
                            f"what the steps use: {sorted(self.used_tags)}")
        if CLUSTER_SAFE in declared:
            for env in ("cut", "deafen", "freeze", "kill"):
                if env in self.used_tags:
                    raise self.fail(f"a cluster-safe case has no {env} step (the runner has no "
                                    f"proxy there)")

    # ------------------------------------------------------------------ steps

    def step(self, s: Any, actors: Dict[str, Actor]) -> Step:
        if not isinstance(s, dict):
            raise self.fail("a step is a JSON object")
        note = self.text(s, "note", "the step") if "note" in s else None
        kinds = [k for k in ("op", "await", "env") if k in s]
        if len(kinds) != 1:
            raise self.fail(f"a step has exactly one of 'op', 'await', 'env'; this one has "
                            f"{sorted(s)}")
        if "op" in s:
            return self.op_step(s, note, actors)
        if "await" in s:
            return self.await_step(s, note)
        return self.env_step(s, note, actors)

    def op_step(self, s: Dict[str, Any], note: Optional[str], actors: Dict[str, Actor]) -> OpStep:
        self.only(s, {"op", "actor", "args", "expect", "bind", "start", "within_ms", "note",
                      "needs_session"}, "an op step")
        actor = self.actor(s, actors)
        op_name = self.text(s, "op", "the step")
        op = OPS.get(op_name)
        if op is None:
            raise self.fail(f"unknown op '{op_name}'; known: {sorted(OPS)}")
        if op.tag:
            self.used_tags.add(op.tag)
        args = s.get("args", {})
        if not isinstance(args, dict):
            raise self.fail("args: an object")
        self.check_args(op, args)
        if op.name == "cancel" and self.handles[args["handle"]].actor != actor:
            raise self.fail(f"cancel: handle {args['handle']!r} is another actor's")
        start = self.text(s, "start", "the step") if "start" in s else None
        link = self.links[actor]
        if link in (FROZEN, DEAD):
            raise self.fail(f"actor {actor} is {link}: it cannot act")
        if start is None and link != OPEN:
            raise self.fail(f"actor {actor} is {link}: it can only start operations, not await them")
        if op.name == "close":
            self.links[actor] = DEAD
        expect = s.get("expect")
        within = self.positive(s, "within_ms", "the step") if "within_ms" in s else None
        if start is not None:
            if expect is not None or within is not None or "bind" in s:
                raise self.fail("a started op has no 'expect', 'within_ms' or 'bind': await its handle")
            if not _IDENTIFIER.match(start) or start in self.handles:
                raise self.fail(f"start: '{start}' must be a new handle name matching "
                                f"{_IDENTIFIER.pattern}")
            self.handles[start] = _Handle(actor, op)
        else:
            if within is not None and not op.is_read:
                raise self.fail(f"within_ms polls a read (get, inspect); '{op_name}' is not one")
            if expect is not None:
                self.check_expect(op, expect, awaited=False)
        bind = self.bind(s, op)
        needs_session = False
        if "needs_session" in s:
            if s["needs_session"] is not True:
                raise self.fail("needs_session is true or absent")
            if start is not None or bind:
                raise self.fail("a step that needs a session neither starts a handle nor binds: "
                                "others use them")
            needs_session = True
        return OpStep(self.step_index, note, actor, op, args, expect, bind, start, within,
                      needs_session)

    def await_step(self, s: Dict[str, Any], note: Optional[str]) -> AwaitStep:
        self.only(s, {"await", "expect", "bind", "within_ms", "note"}, "an await step")
        name = self.text(s, "await", "the step")
        handle = self.handles.get(name)
        if handle is None:
            raise self.fail(f"await: no open handle '{name}' (started earlier and not yet awaited)")
        expect = self.required(s, "expect", "an await step")
        if not isinstance(expect, dict):
            raise self.fail("expect: an object")
        pending = None
        if "pending_after_ms" in expect:
            if len(expect) != 1 or "bind" in s or "within_ms" in s:
                raise self.fail("expect: pending_after_ms stands alone (no other field, bind or "
                                "within_ms)")
            pending = self.positive(expect, "pending_after_ms", "expect")
            if self.links[handle.actor] == DEAD:
                raise self.fail(f"actor {handle.actor} is dead: its handles cannot be awaited")
        else:
            if self.links[handle.actor] != OPEN:
                raise self.fail(f"actor {handle.actor} is {self.links[handle.actor]}: its handles "
                                f"can only be checked with pending_after_ms")
            self.check_expect(handle.op, expect, awaited=True)
            del self.handles[name]
        within = self.positive(s, "within_ms", "the step") if "within_ms" in s else DEFAULT_AWAIT_MS
        bind = self.bind(s, handle.op)
        return AwaitStep(self.step_index, note, name, expect, pending, bind, within)

    def env_step(self, s: Dict[str, Any], note: Optional[str], actors: Dict[str, Actor]) -> EnvStep:
        self.only(s, {"env", "actor", "ms", "note"}, "an env step")
        kind = self.text(s, "env", "the step")
        if kind not in ENVS:
            raise self.fail(f"unknown env step '{kind}'; known: {sorted(ENVS)}")
        if kind == "wait_ms":
            if "actor" in s:
                raise self.fail("wait_ms has no actor")
            return EnvStep(self.step_index, note, kind, None, self.positive(s, "ms", "wait_ms"))
        if "ms" in s:
            raise self.fail(f"{kind} has no 'ms': use a wait_ms step, then the step that ends it")
        actor = self.actor(s, actors)
        before = self.links[actor]
        after = _MOVES[kind].get(before)
        if after is None:
            raise self.fail(f"{kind} of actor {actor} whose link is {before}")
        self.links[actor] = after
        if ENVS[kind]:
            self.used_tags.add(ENVS[kind])
        return EnvStep(self.step_index, note, kind, actor, 0)

    # ------------------------------------------------------------------ parts

    def actor(self, s: Dict[str, Any], actors: Dict[str, Actor]) -> str:
        actor = self.text(s, "actor", "the step")
        if actor not in actors:
            raise self.fail(f"actor '{actor}' is not one of the case's actors {sorted(actors)}")
        return actor

    def check_args(self, op: OpSpec, args: Dict[str, Any]) -> None:
        for required in sorted(op.required):
            if required not in args:
                raise self.fail(f"{op.name}: missing argument '{required}'")
        for arg, v in args.items():
            if not op.allows(arg):
                raise self.fail(f"{op.name}: unknown argument '{arg}'")
            if arg in _INTEGER_ARGS:
                self.integer_or_variable(v, f"{op.name}.{arg}")
            elif arg == "owned":
                self.boolean(v, f"{op.name}.owned")
            elif arg == "ops":
                self.semop_ops(v)
            elif arg == "handle":
                if not isinstance(v, str) or v not in self.handles:
                    raise self.fail(f"cancel: handle {v!r} is not an open handle")
            elif arg == "policy":
                if v not in ("FIFO", "BARGING"):
                    raise self.fail(f"create.policy: FIFO or BARGING, was {v!r}")
            elif not isinstance(v, str):  # name, list
                raise self.fail(f"{op.name}.{arg}: a string, was {v!r}")

    def semop_ops(self, v: Any) -> None:
        if not isinstance(v, list):
            raise self.fail("semop.ops: an array")
        for o in v:
            if not isinstance(o, dict):
                raise self.fail("semop.ops: each op is an object")
            self.only(o, _SEMOP_OP_FIELDS, "a semop op")
            self.text(o, "name", "a semop op")
            self.integer_or_variable(self.required(o, "delta", "a semop op"), "semop.ops[].delta")
            if "no_wait" in o:
                self.boolean(o["no_wait"], "semop.ops[].no_wait")
            if "owned" in o:
                self.boolean(o["owned"], "semop.ops[].owned")
                if o["owned"]:
                    self.used_tags.add("session")

    def check_expect(self, op: OpSpec, expect: Any, awaited: bool) -> None:
        if not isinstance(expect, dict):
            raise self.fail("expect: an object")
        if "error" in expect:
            self.only(expect, {"error", "argument"}, "an error expectation")
            if not isinstance(expect["error"], str) or expect["error"] not in ERROR_CODES:
                raise self.fail(f"expect.error: one of {sorted(ERROR_CODES)}, was {expect['error']!r}")
            if "argument" in expect and not isinstance(expect["argument"], str):
                raise self.fail("expect.argument: a string")
            return
        if "argument" in expect:
            raise self.fail("expect.argument goes with expect.error")
        if "cancelled" in expect:
            if not awaited or len(expect) != 1 or expect["cancelled"] is not True:
                raise self.fail('expect: {"cancelled": true} stands alone, on an await')
            return
        for key, value in expect.items():
            if key not in op.results:
                raise self.fail(f"expect: '{key}' is not a result field of {op.name} "
                                f"{sorted(op.results)}")
            self.check_value(value, f"expect.{key}")

    def check_value(self, v: Any, where: str) -> None:
        """A literal, a bound variable, a matcher, or a list or object of those."""
        if isinstance(v, str) and v.startswith("$"):
            self.variable(v, where)
        elif isinstance(v, list):
            for e in v:
                self.check_value(e, where + "[]")
        elif isinstance(v, dict):
            matcher = len(v) == 1 and next(iter(v)) in MATCHERS
            for key, value in v.items():
                if matcher:
                    self.integer_or_variable(value, f"{where}.{key}")
                else:
                    self.check_value(value, f"{where}.{key}")
        elif isinstance(v, float):
            raise self.fail(f"{where}: integers, booleans, strings, null, lists and objects only, "
                            f"was {v!r}")

    def bind(self, s: Dict[str, Any], op: OpSpec) -> Dict[str, str]:
        if "bind" not in s:
            return {}
        b = s["bind"]
        if not isinstance(b, dict):
            raise self.fail("bind: an object")
        for variable, result in b.items():
            if not _IDENTIFIER.match(variable):
                raise self.fail(f"bind: variable name '{variable}' must match {_IDENTIFIER.pattern}")
            if not isinstance(result, str) or result not in op.results:
                raise self.fail(f"bind.{variable}: {result!r} is not a result field of {op.name}")
            if variable in self.variables:
                raise self.fail(f"bind: variable '{variable}' is bound twice")
            self.variables.add(variable)
        return dict(b)

    def integer_or_variable(self, v: Any, where: str) -> None:
        if isinstance(v, str) and v.startswith("$"):
            self.variable(v, where)
        elif isinstance(v, bool) or not isinstance(v, int):
            raise self.fail(f"{where}: an integer or a $variable, was {v!r}")

    def variable(self, ref: str, where: str) -> None:
        if ref[1:] not in self.variables:
            raise self.fail(f"{where}: variable {ref} is not bound by an earlier step")

    def boolean(self, v: Any, where: str) -> None:
        if not isinstance(v, bool):
            raise self.fail(f"{where}: true or false, was {v!r}")

    def positive(self, node: Dict[str, Any], key: str, where: str) -> int:
        v = self.required(node, key, where)
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise self.fail(f"{where}: {key} must be a positive integer, was {v!r}")
        return v

    def text(self, node: Dict[str, Any], key: str, where: str) -> str:
        v = self.required(node, key, where)
        if not isinstance(v, str):
            raise self.fail(f"{where}: {key} must be a string, was {v!r}")
        return v

    def required(self, node: Dict[str, Any], key: str, where: str) -> Any:
        if key not in node:
            raise self.fail(f"{where}: missing '{key}'")
        return node[key]

    def only(self, node: Dict[str, Any], allowed: set, where: str) -> None:
        for key in node:
            if key not in allowed:
                raise self.fail(f"{where}: unknown field '{key}'; allowed: {sorted(allowed)}")
