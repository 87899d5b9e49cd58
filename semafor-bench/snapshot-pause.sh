#!/usr/bin/env bash
# What a MicroRaft snapshot of a large state costs a running cluster (issue 34, item 3): writes a
# backup of N semaphores (BigBackup), restores it into three data directories, starts a 3-node
# cluster on 127.0.0.1 from semafor-cli/target/semafor.jar that snapshots every E entries, runs W1
# at 16 clients for D seconds, and prints each member's snapshots (how long each held the member's
# thread), the leader changes after the start, and the load's throughput and worst latency. Stops
# every process it started by PID.
#
# usage: semafor-bench/snapshot-pause.sh [semaphores, default 1000000] [every, default 20000]
#        [seconds, default 60] [extra server options, e.g. "--election-timeout 1s-2s"]
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-1000000}"
every="${2:-20000}"
seconds="${3:-60}"
extra="${4:-}"
jar=semafor-cli/target/semafor.jar
./semafor --version >/dev/null # builds the jar on first use
peers=n1=127.0.0.1:7660:7760,n2=127.0.0.1:7670:7770,n3=127.0.0.1:7680:7780
. semafor-bench/processes.sh snapshot-pause
java -Xmx4g -cp semafor-bench/target/benchmarks.jar io.semafor.bench.BigBackup "$count" "$data/big.snap"
for i in 1 2 3; do
  java -jar "$jar" snapshot restore "$data/big.snap" --data-dir "$data/n$i" --node-id "n$i" \
    --peers "$peers" >/dev/null
done
for i in 1 2 3; do
  # shellcheck disable=SC2086 # extra options are words
  java -Xmx4g -jar "$jar" server --node-id "n$i" --peers "$peers" --data-dir "$data/n$i" \
    --admin-port "78$((5 + i))1" --http-port -1 --raft-property "microraft.snapshot-every=$every" \
    $extra >"$data/n$i.log" 2>&1 &
  pids+=("$!")
done
await_leader 7861 7871 7881
elected() { cat "$data"/n*.log | grep -c "leads the group" || true; }
before=$(elected)
java -jar "$jar" bench --server 127.0.0.1:7660,127.0.0.1:7670,127.0.0.1:7680 --workload W1 \
  --clients 16 --duration "${seconds}s" --json >"$data/bench.json" 2>"$data/bench.err" || true
after=$(elected)
echo "$count semaphores, a snapshot every $every entries, W1 at 16 clients for ${seconds}s${extra:+, $extra}"
echo "first leader: $leader; leaders elected during the load: $((after - before))"
grep -h "follows\|leads the group\|no longer leads\|lost its leader" "$data"/n*.log | sort | tail -n +4 | head -n 20 | cut -c12-200 || true
for i in 1 2 3; do
  grep -h "snapshot at" "$data/n$i.log" | sed -E "s/.* - /n$i: /" || true
done
grep -h "WARN" "$data"/n*.log | cut -c12-400 || true
grep -o '"pairsPerSecond":[0-9.]*\|"p99Micros":[0-9.]*\|"maxMicros":[0-9.]*\|"errors":[0-9]*' "$data/bench.json" | tr '\n' ' ' || cat "$data/bench.err"
echo
