"""Where the session machine dials next (docs/protocol.md §2, ``NOT_LEADER``): the leader a server
named, else the next address in turn; after every address failed in turn, a backoff that doubles
from ``backoff_min_ns`` to ``backoff_max_ns``. An address left because it went silent (a frozen
leader) is avoided for ``avoid_silent_ns``: a follower that has not heard of the election yet names
it as the leader, and going back costs another answer deadline. Pure; times are monotonic
nanoseconds passed in.

A session connection that breaks within ``stable_after_ns`` of its ``Welcome`` counts as a failed
attempt of the round, not as a working connection lost: a server that closes the connection on
something the client sends again on every resume would otherwise be redialled in a tight loop.
"""

from __future__ import annotations

from typing import Dict, Optional, Sequence


class Addresses:
    """The rotation over a client's addresses."""

    def __init__(self, addresses: Sequence[str], backoff_min_ns: int, backoff_max_ns: int,
                 avoid_silent_ns: int = 0, stable_after_ns: int = 0) -> None:
        if not addresses:
            raise ValueError("addresses: at least one host:port is needed")
        self._addresses = list(addresses)
        self._next = 0
        self._min, self._max = backoff_min_ns, backoff_max_ns
        self._backoff = backoff_min_ns
        self._failed_in_round = 0
        self.leader_hint = ""  # the leader a server named: dialled next
        self.current = ""  # the address of the current (or last) connection
        self._avoid_ns = avoid_silent_ns
        self._silent: Dict[str, int] = {}  # address -> avoided until
        self._stable_ns = stable_after_ns
        self._ready_at: Optional[int] = None  # when the current connection's session opened

    def went_silent(self, now: int) -> None:
        """The current address stopped answering: avoid it for a while."""
        if self.current:
            self._silent[self.current] = now + self._avoid_ns

    def _avoided(self, address: str, now: int) -> bool:
        return self._silent.get(address, 0) > now

    def next(self, now: int) -> str:
        """The address to dial now: the leader a server named, unless it went silent lately;
        else the next in turn, skipping those that went silent lately until every other one
        failed in this round."""
        hint, self.leader_hint = self.leader_hint, ""
        if hint and not self._avoided(hint, now):
            self.current = hint
            return hint
        n = len(self._addresses)
        others = sum(1 for a in self._addresses if not self._avoided(a, now))
        skip = self._failed_in_round < others
        for i in range(n):
            candidate = self._addresses[(self._next + i) % n]
            if not (skip and self._avoided(candidate, now)):
                self._next += i + 1
                self.current = candidate
                return candidate
        self.current = self._addresses[self._next % n]
        self._next += 1
        return self.current

    def has_alternative(self) -> bool:
        """Whether another address than the current one exists: only then is a ``Hello`` that
        goes unanswered given up for it. With one address, leaving would only redial the same
        server (a slow one, under load) and leave a session it opens late to expire unused."""
        return any(a != self.current for a in self._addresses)

    def follow(self, leader: str) -> None:
        """A server said it does not lead and named ``leader`` (empty: it does not know)."""
        self.leader_hint = leader

    def failed(self, now: int, was_ready: bool) -> int:
        """The connection failed (``was_ready``: it had a session): when to dial again."""
        worked = was_ready and self._ready_at is not None and now - self._ready_at >= self._stable_ns
        self._ready_at = None
        if worked:  # a working connection lost: a new round, from the shortest backoff
            self._failed_in_round = 0
            self._backoff = self._min
            return now
        self._failed_in_round += 1
        if self.leader_hint or self._failed_in_round < len(self._addresses):
            return now
        self._failed_in_round = 0  # every address failed in turn: wait before the next round
        wait, self._backoff = self._backoff, min(self._backoff * 2, self._max)
        return now + wait

    def succeeded(self, now: int) -> None:
        """A session is open on the current connection: once it has lived ``stable_after_ns``,
        its loss starts a new round from the shortest backoff."""
        self._ready_at = now
