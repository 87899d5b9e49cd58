#!/usr/bin/env bash
# How the admin console answers with many semaphores and waiters (docs/benchmarks.md, "Console"):
# starts a single node on 127.0.0.1, fills it with N semaphores and W waiters on one semaphore
# (ConsoleScale), times each request the console's page makes, and stops every process it started
# by PID.
#
# usage: semafor-bench/console-scale.sh [semaphores, default 100000] [waiters, default 10000] [repeats, default 50]
set -euo pipefail
cd "$(dirname "$0")/.."
semaphores="${1:-100000}"
waiters="${2:-10000}"
repeats="${3:-50}"
. semafor-bench/processes.sh console

./semafor --version >/dev/null # builds the jar on first use
[ -f semafor-bench/target/benchmarks.jar ] ||
  mvn -B -q -o install -pl semafor-bench -am -DskipTests -Dspotless.check.skip=true >/dev/null
./semafor server --port 7620 --admin-port 7820 >"$data/server.log" 2>&1 &
pids+=("$!")
for _ in $(seq 1 150); do
  curl -sf http://127.0.0.1:7820/health >/dev/null && break
  sleep 0.2
done
java -cp semafor-bench/target/benchmarks.jar io.semafor.bench.ConsoleScale \
  127.0.0.1:7620 http://127.0.0.1:7820 "$semaphores" "$waiters" "$repeats"
