"""The Semafor protocol with no client around it: one thread, one blocking socket, hand-built
frames (docs/protocol.md): Hello, then acquire(1) / release(1) in a loop, each request carrying
the acknowledgement of the answer before it. What one acquire+release costs at the server and on
the wire, without the Python client's machine, driver and threads: the client's own cost is the
difference.

    /usr/bin/python3 clients/python/bench/raw.py --server 127.0.0.1:7400
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import semafor  # noqa: E402
from semafor._codec import FrameDecoder, encode  # noqa: E402
from semafor._proto import semafor_pb2 as pb  # noqa: E402


def measure(server: str, warmup: float, duration: float) -> dict:
    name = f"raw-{uuid.uuid4().hex[:8]}"
    with semafor.connect(server) as admin:
        admin.create(name, 1, capacity=1)
    host, port = server.rsplit(":", 1)
    s = socket.create_connection((host, int(port)))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    decoder = FrameDecoder()

    def answer() -> pb.ServerFrame:
        while True:
            frames = decoder.feed(s.recv(65536))
            if frames:
                assert len(frames) == 1, frames
                return frames[0]

    s.sendall(encode(pb.ClientFrame(hello=pb.Hello(protocol_version=1, client_name="raw"))))
    assert answer().welcome.session_id
    name_b = name.encode()
    rid, samples = 0, []
    clock = time.perf_counter
    start = clock()
    measure_from, end = start + warmup, start + warmup + duration
    while True:
        t0 = clock()
        if t0 >= end:
            break
        for op in ("acquire", "release"):
            rid += 1
            request = pb.Request(id=rid, acks=[rid - 1] if rid > 1 else [])
            if op == "acquire":
                request.acquire.CopyFrom(pb.Acquire(name=name_b, amount=1, timeout_ns=-1, owned=True))
            else:
                request.release.CopyFrom(pb.Release(name=name_b, amount=1))
            s.sendall(encode(pb.ClientFrame(request=request)))
            r = answer().response
            assert r.id == rid and not r.HasField("failure"), r
        if t0 >= measure_from:
            samples.append(clock() - t0)
    s.close()
    samples.sort()
    return {"pairs_per_s": round(len(samples) / duration, 1),
            "pair_p50_us": round(samples[len(samples) // 2] * 1e6, 1),
            "pair_p99_us": round(samples[min(len(samples) - 1, int(0.99 * len(samples)))] * 1e6, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server", default="127.0.0.1:7400")
    ap.add_argument("--warmup", type=float, default=2.0)
    ap.add_argument("--duration", type=float, default=10.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    row = measure(args.server, args.warmup, args.duration)
    print(json.dumps(row) if args.json else
          f"raw protocol: {row['pairs_per_s']:,.0f} pairs/s, pair p50 {row['pair_p50_us']} us, "
          f"p99 {row['pair_p99_us']} us")


if __name__ == "__main__":
    main()
