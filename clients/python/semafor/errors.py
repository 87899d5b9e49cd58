"""The errors of the Semafor client: one exception class per stable error code.

Every failure the client reports is a :class:`SemaforError` (or a subclass named for its code),
carrying the server's stable :class:`ErrorCode` (docs/semantics.md#errors), the argument or limit
the server named, the server's message as it sent it, and whether the outcome is known. A refused
operation changed nothing on the server; ``outcome_known`` is ``False`` only where the client
cannot tell whether a request it sent was applied (its connection or session went away first).
"""

from __future__ import annotations

import enum
import re
from typing import Dict, Optional, Type

__all__ = [
    "ErrorCode",
    "SemaforError",
    "NotFound",
    "InvalidArgument",
    "Overflow",
    "WouldBlock",
    "Deleted",
    "AlreadyHeld",
    "SessionExpired",
    "NotLeader",
    "PermissionDenied",
    "Unauthenticated",
    "ResourceExhausted",
    "Unavailable",
    "error_for",
]


class ErrorCode(enum.IntEnum):
    """The stable error codes; the numbers are the wire's (``semafor.proto``) and never change."""

    NOT_FOUND = 1
    INVALID_ARGUMENT = 2
    OVERFLOW = 3
    WOULD_BLOCK = 4
    DELETED = 5
    ALREADY_HELD = 6
    SESSION_EXPIRED = 7
    NOT_LEADER = 8
    PERMISSION_DENIED = 9
    UNAUTHENTICATED = 10
    RESOURCE_EXHAUSTED = 11
    UNAVAILABLE = 12

    @classmethod
    def of_number(cls, number: int) -> "ErrorCode":
        """The code for a wire number; ``UNAVAILABLE`` for a number this client does not know."""
        try:
            return cls(number)
        except ValueError:
            return cls.UNAVAILABLE


# The server's messages start with the argument or limit at fault: "amount: must be > 0, was -3",
# "maxUnackedReplies (65536) reached: ...". Only those two codes name one.
_ARGUMENT = re.compile(r"^([A-Za-z][A-Za-z0-9_.]*)(?::| \()")
_NAMING = (2, 11)  # INVALID_ARGUMENT, RESOURCE_EXHAUSTED


class SemaforError(Exception):
    """A Semafor operation failed.

    Attributes:
        code: the stable :class:`ErrorCode`.
        argument: the argument or limit the server's message names (``"amount"``,
            ``"maxUnackedReplies"``), or ``None``.
        message: the server's message as sent (or the client's, for ``UNAVAILABLE``).
        outcome_known: ``False`` when a request may or may not have been applied (the connection
            or the session went away while it was in flight); ``True`` otherwise.
        leader: for ``NOT_LEADER``, the leader's ``host:port`` when the server named it.
    """

    def __init__(
        self,
        code: ErrorCode,
        argument: Optional[str],
        message: str,
        outcome_known: bool = True,
        leader: str = "",
    ) -> None:
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.argument = argument
        self.message = message
        self.outcome_known = outcome_known
        self.leader = leader

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (
            type(self)._rebuild,
            (self.code, self.argument, self.message, self.outcome_known, self.leader),
        )

    @classmethod
    def _rebuild(cls, code, argument, message, outcome_known, leader):  # type: ignore[no-untyped-def]
        return error_for(code, message, outcome_known=outcome_known, leader=leader, argument=argument)


class NotFound(SemaforError):
    """No semaphore (or lease, or entry) by that name or id."""


class InvalidArgument(SemaforError):
    """An argument is out of range or malformed; ``argument`` names it."""


class Overflow(SemaforError):
    """The value would pass its capacity or 2^63-1."""


class WouldBlock(SemaforError):
    """A ``semop`` op with ``no_wait`` could not proceed."""


class Deleted(SemaforError):
    """The semaphore was deleted while the request waited on it."""


class AlreadyHeld(SemaforError):
    """The session already holds what ``max_per_session`` allows."""


class SessionExpired(SemaforError):
    """The session ended: everything it owned went back to the server; a new one is opened on the
    next use of the client."""


class NotLeader(SemaforError):
    """The node is not the leader (the client follows the leader itself; seen only when no leader
    could be reached)."""


class PermissionDenied(SemaforError):
    """The principal lacks the permission on the name; nothing was applied."""


class Unauthenticated(SemaforError):
    """The credentials are missing, unknown, revoked or expired."""


class ResourceExhausted(SemaforError):
    """A limit was reached; ``argument`` names it."""


class Unavailable(SemaforError):
    """No server answered, or the client was closed; the message says whether the outcome is
    known (see ``outcome_known``)."""


_CLASSES: Dict[ErrorCode, Type[SemaforError]] = {
    ErrorCode.NOT_FOUND: NotFound,
    ErrorCode.INVALID_ARGUMENT: InvalidArgument,
    ErrorCode.OVERFLOW: Overflow,
    ErrorCode.WOULD_BLOCK: WouldBlock,
    ErrorCode.DELETED: Deleted,
    ErrorCode.ALREADY_HELD: AlreadyHeld,
    ErrorCode.SESSION_EXPIRED: SessionExpired,
    ErrorCode.NOT_LEADER: NotLeader,
    ErrorCode.PERMISSION_DENIED: PermissionDenied,
    ErrorCode.UNAUTHENTICATED: Unauthenticated,
    ErrorCode.RESOURCE_EXHAUSTED: ResourceExhausted,
    ErrorCode.UNAVAILABLE: Unavailable,
}


def error_for(
    code: "ErrorCode | int",
    message: str,
    *,
    outcome_known: bool = True,
    leader: str = "",
    argument: Optional[str] = None,
) -> SemaforError:
    """The exception of the subclass for ``code``, with the argument parsed from ``message``
    where the server names one (``INVALID_ARGUMENT``, ``RESOURCE_EXHAUSTED``)."""
    code = ErrorCode.of_number(int(code))
    if argument is None and int(code) in _NAMING:
        match = _ARGUMENT.match(message)
        argument = match.group(1) if match else None
    return _CLASSES[code](code, argument, message, outcome_known, leader)
