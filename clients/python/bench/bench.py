"""W1 and W2 (docs/benchmarks.md) with Python clients, one client per process.

    /usr/bin/python3 clients/python/bench/bench.py --server 127.0.0.1:7400 --workload W1 --clients 16

W1: permits = clients; W2: 4 permits. Each client process has its own ``semafor.connect`` (its own
connection and session) and loops ``acquire(1)`` / ``release()`` on one FIFO semaphore created
for the run. After every client is connected, all start together: ``--warmup`` seconds
(default 2) not counted, then ``--duration`` seconds (default 10) measured. Prints acquire+release
pairs per second over all clients, and the p50/p99 of acquire (its wait included) and of the
whole pair, in microseconds; ``--json`` prints one JSON object instead."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import semafor  # noqa: E402


def child(args: argparse.Namespace) -> None:
    """One client: connects, says ready, waits for the start time, loops, prints its samples."""
    with semafor.connect(args.server, client_name="py-bench") as client:
        sem = client.semaphore(args.name)
        print("ready", flush=True)
        start = float(sys.stdin.readline())
        measure_from, end = start + args.warmup, start + args.warmup + args.duration
        while time.time() < start:
            time.sleep(0.001)
        acquire, pair = [], []
        clock = time.perf_counter
        wall = time.time
        while True:
            now = wall()
            if now >= end:
                break
            t0 = clock()
            permit = sem.acquire(1)
            t1 = clock()
            permit.release()
            t2 = clock()
            if now >= measure_from:
                acquire.append(t1 - t0)
                pair.append(t2 - t0)
        json.dump({"acquire": acquire, "pair": pair}, sys.stdout)
        sys.stdout.flush()


def percentile(sorted_values, q):
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def run(args: argparse.Namespace) -> dict:
    permits = args.clients if args.workload == "W1" else 4
    name = f"py-bench-{args.workload}-{uuid.uuid4().hex[:8]}"
    with semafor.connect(args.server) as admin:
        admin.create(name, permits, capacity=permits)
        procs = []
        try:
            for _ in range(args.clients):
                procs.append(subprocess.Popen(
                    [sys.executable, os.path.abspath(__file__), "--child", "--server", args.server,
                     "--name", name, "--warmup", str(args.warmup), "--duration", str(args.duration)],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
            for p in procs:
                line = p.stdout.readline().strip()
                if line != "ready":
                    raise RuntimeError(f"a client process did not start: {line!r}")
            start = time.time() + 0.5
            for p in procs:
                p.stdin.write(f"{start}\n")
                p.stdin.flush()
            acquire, pair = [], []
            for p in procs:
                out, _ = p.communicate(timeout=args.warmup + args.duration + 60)
                samples = json.loads(out)
                acquire += samples["acquire"]
                pair += samples["pair"]
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait(10)
        admin.semaphore(name).delete()
    acquire.sort()
    pair.sort()
    return {
        "client": "python", "workload": args.workload, "clients": args.clients,
        "pairs_per_s": round(len(pair) / args.duration, 1),
        "acquire_p50_us": round(percentile(acquire, 0.50) * 1e6, 1),
        "acquire_p99_us": round(percentile(acquire, 0.99) * 1e6, 1),
        "pair_p50_us": round(percentile(pair, 0.50) * 1e6, 1),
        "pair_p99_us": round(percentile(pair, 0.99) * 1e6, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server", default="127.0.0.1:7400")
    ap.add_argument("--workload", choices=["W1", "W2"], default="W1")
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--warmup", type=float, default=2.0)
    ap.add_argument("--duration", type=float, default=10.0)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--name", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
        return
    if args.clients < 1 or args.duration <= 0 or args.warmup < 0:
        ap.error("--clients must be at least 1, --duration positive, --warmup not negative")
    row = run(args)
    if args.json:
        print(json.dumps(row))
    else:
        print(f"python {row['workload']} C={row['clients']}: {row['pairs_per_s']:,.0f} pairs/s, "
              f"acquire p50 {row['acquire_p50_us']} us p99 {row['acquire_p99_us']} us, "
              f"pair p50 {row['pair_p50_us']} us p99 {row['pair_p99_us']} us")


if __name__ == "__main__":
    main()
