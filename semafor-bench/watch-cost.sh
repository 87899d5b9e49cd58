#!/usr/bin/env bash
# What 100 watchers of a busy semaphore cost the server (docs/benchmarks.md, "Watches"): starts a
# single node on 127.0.0.1, runs W2 at 16 clients without watchers, with 100 prefix watches of the
# benchmark's semaphores (each on its own connection, WatchLoad), and without again, in one run,
# and prints the three rows; stops every process it started by PID.
#
# usage: semafor-bench/watch-cost.sh [seconds per run, default 10] [watchers, default 100] [raw|client]
# raw (the default): bare sockets that read and drop the frames, so the figure is the server's
# cost; client: Java clients (SemaphoreWatch) that decode every event on the same two CPUs.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
watchers="${2:-100}"
kind="${3:-raw}"
. semafor-bench/processes.sh watch

./semafor --version >/dev/null # builds the jar on first use
[ -f semafor-bench/target/benchmarks.jar ] ||
  mvn -B -q -o install -pl semafor-bench -am -DskipTests -Dspotless.check.skip=true >/dev/null
./semafor server --port 7600 --admin-port 7810 >"$data/server.log" 2>&1 &
pids+=("$!")
for _ in $(seq 1 150); do
  curl -sf http://127.0.0.1:7810/health >/dev/null && break
  sleep 0.2
done
run() {
  java -cp semafor-bench/target/benchmarks.jar io.semafor.load.LoadGenerator \
    --server 127.0.0.1:7600 --workloads W2 --clients 16 --duration "${seconds}s" --warmup 3s |
    grep -E "^ *W2" | sed "s/^/$1 /"
}
run "without watchers:"
java -cp semafor-bench/target/benchmarks.jar io.semafor.load.WatchLoad \
  --server 127.0.0.1:7600 --prefix W2-16- --watchers "$watchers" --seconds "$((seconds + 8))" \
  $([ "$kind" = raw ] && echo --raw) \
  >"$data/watchers.log" 2>&1 &
pids+=("$!")
sleep 2
run "with $watchers $kind watchers:"
wait "${pids[-1]}" || true
cat "$data/watchers.log"
run "without watchers:"
