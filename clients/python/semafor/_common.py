"""Arguments of ``connect`` shared by the blocking and the asyncio clients."""

from __future__ import annotations

import os
import socket
import ssl
from typing import List, Optional, Union

from semafor import _ops
from semafor._session import SessionConfig
from semafor.errors import ErrorCode, error_for
from semafor.types import Timeout

TlsArg = Union[None, bool, str, ssl.SSLContext]


def addresses(spec: Union[str, List[str]]) -> List[str]:
    """``"h1:7400,h2:7400"`` or a list of ``host:port``; a bare host gets port 7400."""
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    out = []
    for item in (i.strip() for i in items):
        if not item:
            continue
        host, sep, port = item.rpartition(":")
        if not sep or not port.isdigit() or host.endswith(":"):
            item = f"{item}:7400"
        out.append(item)
    if not out:
        raise error_for(ErrorCode.INVALID_ARGUMENT, f"addresses: at least one host:port is needed, was {spec!r}")
    return out


def tls_context(tls: TlsArg) -> Optional[ssl.SSLContext]:
    """None/False: plaintext; True: the system's CAs; a path: that CA file (PEM); a context: as is."""
    if tls is None or tls is False:
        return None
    if tls is True:
        return ssl.create_default_context()
    if isinstance(tls, str):
        return ssl.create_default_context(cafile=tls)
    if isinstance(tls, ssl.SSLContext):
        return tls
    raise error_for(ErrorCode.INVALID_ARGUMENT, f"tls: must be None, a bool, a CA file path or an SSLContext, was {tls!r}")


def session_config(spec: Union[str, List[str]], token: str, session_ttl: Timeout,
                   client_name: str) -> SessionConfig:
    ttl = 0 if session_ttl is None else _ops.duration_ns(session_ttl, "session_ttl")
    return SessionConfig(
        addresses(spec), session_ttl_ns=ttl, client_name=client_name,
        client_host=socket.gethostname()[:255], client_pid=os.getpid(), token=token or "")


ANSWER_TIMEOUT_S = 5.0  # how long a withdrawn wait waits for its answer before leaving it
