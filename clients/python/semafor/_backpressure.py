"""The session machine's answer to ``RESOURCE_EXHAUSTED`` for unacknowledged replies
(docs/protocol.md §3): the refused request was not applied and is sent again once the
acknowledgements are in. Pure.

Requests of a session take effect in id order, and the server refuses an id lower than one it
applied (``INVALID_ARGUMENT``, ``requestId``). Requests sent behind a refused one before its
refusal was read may be applied all the same (the acknowledgements they carry bring the count
below the limit). So, from the refusal on, nothing new goes out; a keep-alive carries the
acknowledgements; at its ``Pong`` every request sent before it has been applied or refused (a
refusal is answered at once, a waiting request applied without an answer). If a request behind a
refused one was applied, the refused ones are sent under new ids, after every id used; else under
their own, in id order."""

from __future__ import annotations

from typing import Iterable, Optional, Set


class Backpressure:
    """Refusals for unacknowledged replies on the current connection, by wire id."""

    def __init__(self) -> None:
        self.held_by: Optional[int] = None  # the keep-alive whose Pong ends the hold
        self._refused: Set[int] = set()
        self._behind: Set[int] = set()  # sent after a refused request, before its refusal was read
        self._highest_applied = 0  # the highest wire id answered with something else

    @property
    def holding(self) -> bool:
        """Nothing may be sent until the hold ends."""
        return self.held_by is not None

    def refused(self, wire_id: int, in_flight: Iterable[int]) -> None:
        """``wire_id`` was refused; ``in_flight``: the wire ids sent and unanswered now."""
        self._refused.add(wire_id)
        self._behind.update(i for i in in_flight if i > wire_id)

    def answered(self, wire_id: int) -> None:
        """A request was answered other than with the refusal: the server applied it."""
        self._highest_applied = max(self._highest_applied, wire_id)

    def settle(self) -> bool:
        """The hold ends (its ``Pong`` came: every request sent before it was applied or refused,
        and those refused are known). True: a request
        sent behind a refused one was applied, so the refused ones need new ids."""
        passed = False
        if self._refused:
            lowest = min(self._refused)
            applied = (self._behind - self._refused) | {self._highest_applied}
            passed = max(applied) > lowest
        self.held_by = None
        self._refused.clear()
        self._behind.clear()
        return passed

    def forget_refusals(self) -> None:
        """The session was resumed on a new connection: the hold ends and its refusals are
        forgotten (every request goes again under its own id, in id order)."""
        self.held_by = None
        self._refused.clear()
        self._behind.clear()

    def is_refused(self, wire_id: int) -> bool:
        """Refused and not sent again yet: known not applied."""
        return wire_id in self._refused

    def reset(self) -> None:
        """A new session: nothing of the old one matters."""
        self.held_by = None
        self._refused.clear()
        self._behind.clear()
        self._highest_applied = 0
