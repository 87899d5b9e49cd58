"""Semafor: distributed semaphores. ``semafor.connect(...)`` for the blocking client,
``semafor.aio.connect(...)`` for asyncio. docs/python.md is the guide."""

from semafor._sync import AcquireTimeout, Client, Lease, Permit, Semaphore, WaitMany, Watch, connect
from semafor.errors import ErrorCode, SemaforError
from semafor.types import (
    Detail,
    Grant,
    Options,
    Policy,
    SemopOp,
    SemopResult,
    Status,
    Timeout,
    WatchEvent,
)

__version__ = "0.1.0"

__all__ = [
    "connect", "Client", "Semaphore", "Permit", "Lease", "WaitMany", "Watch", "AcquireTimeout",
    "ErrorCode", "SemaforError", "Detail", "Grant", "Options", "Policy", "SemopOp", "SemopResult",
    "Status", "Timeout", "WatchEvent",
]
