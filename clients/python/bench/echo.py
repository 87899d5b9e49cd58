"""The floor for the Python client: a bare Python socket round trip of a 16-byte request to an
echo server on the same host (blocking socket, TCP_NODELAY, one thread: send 16 bytes, read 16).

    /usr/bin/python3 clients/python/bench/echo.py --server 127.0.0.1:17390    # time round trips
    /usr/bin/python3 clients/python/bench/echo.py --serve 0                   # a Python echo server

The server compare.sh uses is the Java NIO echo server of the peers harness
(/work/shared/peers/src/main/java/peers/server/EchoServer.java, run as a single-file program),
the same floor the Java figures use; ``--serve`` is a small Python one (selectors, one thread)
for machines without it. Prints the p50/p99 round trip in microseconds (``--json``: one
object)."""

from __future__ import annotations

import argparse
import json
import selectors
import socket
import time


def serve(port: int) -> None:
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(128)
    listener.setblocking(False)
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ)
    print(f"READY echo 127.0.0.1:{listener.getsockname()[1]}", flush=True)
    while True:
        for key, _ in sel.select():
            if key.fileobj is listener:
                conn, _ = listener.accept()
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                conn.setblocking(False)
                sel.register(conn, selectors.EVENT_READ)
                continue
            conn = key.fileobj
            try:
                data = conn.recv(65536)
            except OSError:
                data = b""
            if not data:
                sel.unregister(conn)
                conn.close()
                continue
            conn.sendall(data)  # 16 bytes: the kernel takes them at once


def measure(server: str, warmup: float, duration: float) -> dict:
    host, port = server.rsplit(":", 1)
    s = socket.create_connection((host, int(port)))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    request = bytes(range(16))
    samples = []
    clock = time.perf_counter
    start = clock()
    measure_from, end = start + warmup, start + warmup + duration
    while True:
        t0 = clock()
        if t0 >= end:
            break
        s.sendall(request)
        got = 0
        while got < 16:
            chunk = s.recv(16 - got)
            if not chunk:
                raise RuntimeError("the echo server closed the connection")
            got += len(chunk)
        t1 = clock()
        if t0 >= measure_from:
            samples.append(t1 - t0)
    s.close()
    samples.sort()
    return {"round_trips_per_s": round(len(samples) / duration, 1),
            "p50_us": round(samples[len(samples) // 2] * 1e6, 1),
            "p99_us": round(samples[min(len(samples) - 1, int(0.99 * len(samples)))] * 1e6, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server", default="127.0.0.1:17390")
    ap.add_argument("--serve", type=int, metavar="PORT", help="run a Python echo server instead")
    ap.add_argument("--warmup", type=float, default=2.0)
    ap.add_argument("--duration", type=float, default=10.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.serve is not None:
        serve(args.serve)
        return
    row = measure(args.server, args.warmup, args.duration)
    print(json.dumps(row) if args.json else
          f"echo: {row['round_trips_per_s']:,.0f} round trips/s, p50 {row['p50_us']} us, p99 {row['p99_us']} us")


if __name__ == "__main__":
    main()
