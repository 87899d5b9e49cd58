"""Acknowledgement bookkeeping of the session machine (docs/protocol.md §3): which answers still
need acknowledging and when, and which acknowledgements a server has confirmed. Pure; times are
monotonic nanoseconds passed in.

Every ``Response`` read is acknowledged by its wire id on the next request, or within
``delay_ns`` in a ``KeepAlive`` (one for a burst). The frame that carried acknowledgements is
their *carrier*: a request (applied with them) or a keep-alive (whose ``Pong`` comes only once
they are applied). Acknowledgements whose keep-alive's ``Pong`` was not seen go again after a
resume: a leader that died before committing them lost them."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

Carrier = Tuple[str, int]  # ("req", wire id) or ("ka", keep-alive id)


class Acks:
    """The acknowledgements of one session."""

    def __init__(self, delay_ns: int) -> None:
        self.delay_ns = delay_ns
        self._to_ack: List[int] = []
        self.due: Optional[int] = None  # when a keep-alive must carry them at the latest
        self._carriers: Dict[Carrier, List[int]] = {}  # sent, not yet known applied

    def add(self, wire_id: int, now: int) -> None:
        """An answer to acknowledge."""
        self._to_ack.append(wire_id)
        if self.due is None:
            self.due = now + self.delay_ns

    def withdraw(self, wire_id: int) -> None:
        """An answer not to acknowledge after all (not carried yet: the caller is gone)."""
        if wire_id in self._to_ack:
            self._to_ack.remove(wire_id)
            if not self._to_ack:
                self.due = None

    def take(self, carrier: Carrier, keep: bool = False) -> List[int]:
        """Everything to acknowledge, now carried by ``carrier``. With ``keep``, the carrier is
        remembered even when it carries nothing (its ``Pong`` is still awaited)."""
        acks, self._to_ack = self._to_ack, []
        self.due = None
        if acks or keep:
            self._carriers[carrier] = acks
        return acks

    def applied(self, carrier: Carrier) -> Optional[List[int]]:
        """The carrier's acknowledgements are applied (its request was answered, or its
        keep-alive's ``Pong`` came); returns them, or None if it was not a carrier."""
        return self._carriers.pop(carrier, None)

    def forget(self, carrier: Carrier) -> None:
        """The carrier was refused unapplied (its acks were applied all the same: the server
        applies them before refusing)."""
        self._carriers.pop(carrier, None)

    def awaiting_pong(self) -> bool:
        """A keep-alive's ``Pong`` is awaited (something outstanding for silence detection)."""
        return any(kind == "ka" for kind, _ in self._carriers)

    def resumed(self, now: int) -> None:
        """After a resume: acknowledgements whose confirmation was not seen go again."""
        again = [a for acks in self._carriers.values() for a in acks]
        self._carriers.clear()
        self._to_ack = sorted(set(again) | set(self._to_ack))
        if self._to_ack and self.due is None:
            self.due = now + self.delay_ns

    def clear(self) -> None:
        """A new session: nothing of the old one is acknowledged."""
        self._to_ack.clear()
        self._carriers.clear()
        self.due = None
