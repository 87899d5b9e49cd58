#!/usr/bin/env bash
# The grant-storm figures of docs/benchmarks.md: a single node started twice on 127.0.0.1:7450,
# first serving a whole storm in one command (--grants-per-command 1000000000, how every server
# before decision 0019 behaved), then in slices (the default, 128), each time StormBench's
# storms (100,000 waiters in 100 sessions by default) with another client's latency measured
# beside them. Nodes are stopped by PID, also on failure.
#
# usage: semafor-bench/storm.sh [waiters, default 100000] [storms per server, default 3]
# SLICES (environment): the --grants-per-command values to run, default "1000000000 128"
set -euo pipefail
cd "$(dirname "$0")/.."
waiters="${1:-100000}"
storms="${2:-3}"
pid=""
stop() {
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  pid=""
}
trap stop EXIT

./semafor --version >/dev/null # builds the jar on first use
[ -f semafor-bench/target/benchmarks.jar ] || mvn -B -q package -DskipTests -pl semafor-bench -am
for slice in ${SLICES:-1000000000 128}; do
  ./semafor server --port 7450 --admin-port -1 --grants-per-command "$slice" >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do
    (exec 3<>/dev/tcp/127.0.0.1/7450) 2>/dev/null && break
    sleep 0.1
  done
  echo "--grants-per-command $slice"
  java -Xmx2g -cp semafor-bench/target/benchmarks.jar io.semafor.load.StormBench \
    --server 127.0.0.1:7450 --waiters "$waiters" --storms "$storms"
  stop
done
