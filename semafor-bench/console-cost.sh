#!/usr/bin/env bash
# What open console pages cost a busy server (docs/benchmarks.md, "Console"): starts a single node
# on 127.0.0.1, runs W2 at 16 clients without a console, with N console streams showing the
# benchmark's semaphores (each a curl reading /api/stream, as the page does), and without again,
# in one run; prints the three rows and how many events the streams got; stops every process it
# started by PID.
#
# usage: semafor-bench/console-cost.sh [seconds per run, default 10] [streams, default 16]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
streams="${2:-16}"
. semafor-bench/processes.sh console-cost

./semafor --version >/dev/null # builds the jar on first use
[ -f semafor-bench/target/benchmarks.jar ] ||
  mvn -B -q -o install -pl semafor-bench -am -DskipTests -Dspotless.check.skip=true >/dev/null
./semafor server --port 7630 --admin-port 7830 >"$data/server.log" 2>&1 &
pids+=("$!")
for _ in $(seq 1 150); do
  curl -sf http://127.0.0.1:7830/health >/dev/null && break
  sleep 0.2
done
run() {
  java -cp semafor-bench/target/benchmarks.jar io.semafor.load.LoadGenerator \
    --server 127.0.0.1:7630 --workloads W2 --clients 16 --duration "${seconds}s" --warmup 3s |
    grep -E "^ *W2" | sed "s/^/$1 /"
}
run "without a console:"
first=${#pids[@]}
for i in $(seq 1 "$streams"); do
  curl -sN --max-time "$((seconds + 8))" \
    "http://127.0.0.1:7830/api/stream?prefix=W2-16-" >"$data/stream-$i.log" 2>/dev/null &
  pids+=("$!")
done
sleep 1
run "with $streams console streams:"
for pid in "${pids[@]:$first}"; do wait "$pid" || true; done
echo "list views received by the streams: $(cat "$data"/stream-*.log | grep -c "^event: list")"
run "without a console:"
