#!/usr/bin/env bash
# The cluster table of docs/benchmarks.md: starts a fresh three-node cluster on 127.0.0.1 (as
# docs/cluster.md does, admin ports 7810/7820/7830), warms it with W1 at 64 clients, runs W1 and W2
# at 16 and 64 clients for 20 s each, prints each cell with how busy the machine's CPUs were, and
# stops the nodes by PID.
#
# usage: semafor-bench/cluster-cells.sh [replicated|fsync] [warm-up seconds, default 100]
# SERVER_ARGS (environment): more `semafor server` options for every node, e.g.
#   SERVER_ARGS="--election-timeout 1s-2s"
set -euo pipefail
cd "$(dirname "$0")/.."
durability="${1:-replicated}"
warmup="${2:-100}"
servers=127.0.0.1:7600,127.0.0.1:7610,127.0.0.1:7620
peers=n1=127.0.0.1:7600:7700,n2=127.0.0.1:7610:7710,n3=127.0.0.1:7620:7720
. semafor-bench/processes.sh cluster

./semafor --version >/dev/null # builds the jar on first use
for i in 1 2 3; do
  ./semafor server --node-id "n$i" --peers "$peers" --data-dir "$data/n$i" \
    --admin-port "78${i}0" --durability "$durability" ${SERVER_ARGS:-} >"$data/n$i.log" 2>&1 &
  pids+=("$!")
done
for _ in $(seq 1 150); do
  for i in 1 2 3; do
    if curl -sf "http://127.0.0.1:78${i}0/health" | grep -q '"leader"'; then break 2; fi
  done
  sleep 0.2
done

busy() { head -1 /proc/stat | awk '{print $2+$4+$8, $2+$4+$5+$6+$8+$9}'; }
./semafor bench --server "$servers" --workload W1 --clients 64 --duration "${warmup}s" | tail -1 |
  sed 's/^/warm-up /'
for cell in "W1 16" "W1 64" "W2 16" "W2 64"; do
  set -- $cell
  read -r b0 t0 < <(busy)
  line="$(./semafor bench --server "$servers" --workload "$1" --clients "$2" --duration 20s | tail -1)"
  read -r b1 t1 < <(busy)
  echo "$line  busy $(( 100 * (b1 - b0) / (t1 - t0) ))%"
done
./semafor cluster status --admin 127.0.0.1:7810,127.0.0.1:7820,127.0.0.1:7830
grep -h "pause" "$data"/n*.log || true
