"""Framing of the wire protocol (docs/protocol.md §1): a 4-byte big-endian length N, then N bytes
of one protobuf message. Pure: bytes in, messages out."""

from __future__ import annotations

import struct
from typing import List

from semafor._proto import semafor_pb2 as pb

MAX_FRAME = 1 << 20  # 1 MiB, the server's default frame limit
_LENGTH = struct.Struct(">I")


class FrameError(Exception):
    """The peer sent a frame this client cannot read (length out of bounds, or not a message)."""


def encode(frame: pb.ClientFrame) -> bytes:
    """The bytes of one frame: its length, then the message."""
    body = frame.SerializeToString()
    return _LENGTH.pack(len(body)) + body


class FrameDecoder:
    """Accumulates bytes read from a connection and cuts them into ``ServerFrame``s."""

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self._buffer = bytearray()
        self._max = max_frame

    def feed(self, data: bytes) -> List[pb.ServerFrame]:
        """Adds ``data``; returns the frames it completed, in order. Raises :class:`FrameError`
        on a length of 0 or past the limit, or bytes that do not parse."""
        self._buffer += data
        frames: List[pb.ServerFrame] = []
        view = self._buffer
        start = 0
        while len(view) - start >= 4:
            (length,) = _LENGTH.unpack_from(view, start)
            if length == 0 or length > self._max:
                raise FrameError(f"frame length {length} is outside 1..{self._max}")
            if len(view) - start - 4 < length:
                break
            frame = pb.ServerFrame()
            try:
                frame.ParseFromString(bytes(view[start + 4 : start + 4 + length]))
            except Exception as e:  # protobuf's DecodeError and friends
                raise FrameError(f"a frame did not parse: {e}") from None
            frames.append(frame)
            start += 4 + length
        if start:
            del self._buffer[:start]
        return frames

    def reset(self) -> None:
        """Forgets partial bytes (a new connection)."""
        self._buffer.clear()
