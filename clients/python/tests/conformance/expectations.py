"""Outcomes of operations, the case's expectations of them, and its variables
(conformance/README.md §4-5).

An object is matched partially (only the fields it names), a list exactly (same length, entry by
entry), a ``"$name"`` string by the variable's value, ``{"gt": x}`` (``ge``, ``lt``, ``le``,
``ne``) by comparison, anything else by equality."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Union

from .cases import MATCHERS


@dataclass(frozen=True)
class Result:
    """The operation's result: its fields (README §3)."""

    fields: Dict[str, Any]


@dataclass(frozen=True)
class Failure:
    """The operation failed with a stable ``code`` naming ``argument`` ("" when none)."""

    code: str
    argument: str
    message: str


@dataclass(frozen=True)
class Cancelled:
    """The operation was withdrawn by ``cancel``."""


Outcome = Union[Result, Failure, Cancelled]

_COMPARE = {
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "ne": lambda a, b: a != b,
}


class Expectations:
    """Holds outcomes to expectations and keeps the case's variables."""

    def __init__(self) -> None:
        self.variables: Dict[str, Any] = {}

    def bind(self, bind: Dict[str, str], outcome: Outcome) -> None:
        """Binds each variable of ``bind`` to its field of the result."""
        if not bind:
            return
        if not isinstance(outcome, Result):
            raise AssertionError(f"bind {bind} needs a result, the outcome was {outcome}")
        for variable, field in bind.items():
            if field not in outcome.fields or outcome.fields[field] is None:
                raise AssertionError(f"bind {variable}: the result has no {field}")
            self.variables[variable] = outcome.fields[field]

    def resolve(self, value: Any) -> Any:
        """``value`` with every ``"$name"`` replaced by the variable's value."""
        if isinstance(value, str) and value.startswith("$"):
            return self.variable(value)
        if isinstance(value, dict):
            return {k: self.resolve(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.resolve(v) for v in value]
        return value

    def mismatch(self, expect: Optional[Dict[str, Any]], outcome: Outcome) -> Optional[str]:
        """What is wrong with ``outcome`` against ``expect`` (None: it must be a result), or None
        when it matches."""
        if expect is None:
            return None if isinstance(outcome, Result) else f"expected success, was {outcome}"
        if "error" in expect:
            if not isinstance(outcome, Failure) or outcome.code != expect["error"]:
                return f"expected error {expect['error']}, was {outcome}"
            if "argument" in expect and outcome.argument != expect["argument"]:
                return f"expected the error to name argument '{expect['argument']}', was {outcome}"
            return None
        if "cancelled" in expect:
            return None if isinstance(outcome, Cancelled) else f"expected cancelled, was {outcome}"
        if not isinstance(outcome, Result):
            return f"expected {expect}, was {outcome}"
        problems: List[str] = []
        self._match(expect, outcome.fields, "", problems)
        return f"{'; '.join(problems)} (result {outcome.fields})" if problems else None

    def _match(self, expected: Any, actual: Any, at: str, problems: List[str]) -> None:
        if isinstance(expected, dict) and len(expected) == 1 and next(iter(expected)) in MATCHERS:
            op, bound = next(iter(expected.items()))
            bound = self.resolve(bound)
            if isinstance(actual, bool) or not isinstance(actual, int):
                problems.append(f"{at}: expected a number {op} {bound}, was {actual!r}")
            elif not _COMPARE[op](actual, bound):
                problems.append(f"{at}: expected {op} {bound}, was {actual}")
        elif isinstance(expected, dict):
            if not isinstance(actual, dict):
                problems.append(f"{at}: expected an object, was {actual!r}")
                return
            for key, value in expected.items():
                where = f"{at}.{key}" if at else key
                if key not in actual:
                    problems.append(f"{where}: absent from the result (this client cannot see it)")
                else:
                    self._match(value, actual[key], where, problems)
        elif isinstance(expected, list):
            if not isinstance(actual, list) or len(actual) != len(expected):
                problems.append(f"{at}: expected {len(expected)} entries, was {actual!r}")
                return
            for i, (e, a) in enumerate(zip(expected, actual)):
                self._match(e, a, f"{at}[{i}]", problems)
        else:
            want = self.resolve(expected)
            # JSON's true is not 1: compare booleans and integers by type as well as value
            if type(want) is not type(actual) or want != actual:
                problems.append(f"{at}: expected {want!r}, was {actual!r}")

    def variable(self, ref: str) -> Any:
        name = ref[1:]
        if name not in self.variables:
            raise AssertionError(f"variable {ref} is not bound")
        return self.variables[name]
