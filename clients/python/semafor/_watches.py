"""A watch's position in the server's change history (docs/protocol.md §4b, "Resume"): what to send
as ``after_revision`` after a reconnect, and which events of the resumed stream were told already.
Pure."""

from __future__ import annotations

from typing import Set

from semafor._proto import semafor_pb2 as pb

CHANGED = pb.WatchEvent.CHANGED
DELETED = pb.WatchEvent.DELETED
SYNCED = pb.WatchEvent.SYNCED
RESYNC = pb.WatchEvent.RESYNC


class WatchPosition:
    """Where one watch stands.

    Live events come in revision order; one command's changes to several names share its
    revision. So after events at revision r, everything before r was told, and at r the names in
    ``told``: a resume asks for ``after_revision = r - 1`` and drops the resumed events at r whose
    name was told. A ``SYNCED`` at r means everything up to r was told. Before the first ``SYNCED``
    of a start or resume (the catch-up, one state per name, not necessarily in revision order) the
    position does not move: a cut there resumes from where that catch-up began.
    """

    def __init__(self, name: bytes, prefix: bool, limit: int, summary: bool, after: int) -> None:
        self.name = name
        self.prefix = prefix
        self.limit = limit
        self.summary = summary
        self.after = after  # resume from here
        self.told: Set[bytes] = set()  # names told at revision after + 1
        self.live = False  # a SYNCED was seen since the last (re)start

    def start(self, watch_id: int) -> pb.Watch:
        """The ``Watch`` to send on a new connection; the catch-up begins."""
        self.live = False
        return pb.Watch(
            id=watch_id,
            name=self.name,
            prefix=self.prefix,
            after_revision=self.after,
            limit=self.limit,
            summary=self.summary,
        )

    def accept(self, event: pb.WatchEvent) -> bool:
        """Moves the position past ``event``; whether to hand it to the reader (False: told
        before the reconnect)."""
        kind = event.kind
        if kind == SYNCED:
            self.live = True
            self.after = max(self.after, event.revision)
            self.told = set()
            return True
        if kind == RESYNC:
            self.told = set()
            return True
        if kind not in (CHANGED, DELETED):
            return True
        if self.told and event.revision == self.after + 1 and event.name in self.told:
            return False  # the same name at the same revision: told before the cut
        if self.live:
            if event.revision != self.after + 1:  # a later command: all before it was told
                self.after = event.revision - 1
                self.told = set()
            self.told.add(event.name)
        return True
