#!/usr/bin/env bash
# Whether a 3-node cluster's leader stays put under load with no fault (issue 34, item 4): starts
# a cluster on 127.0.0.1 from semafor-cli/target/semafor.jar (the default replicator), starts L
# busy loops beside it (shell processes that only spin, as other work on the machine), runs W2 at
# C clients for M minutes, and prints the leader changes the nodes logged during the load, the
# silent-leader pre-votes, and the load's figures. Stops every process it started by PID.
#
# usage: semafor-bench/leaders-under-load.sh [minutes, default 10] [clients, default 64]
#        [busy loops, default 2] [extra server options]
set -euo pipefail
cd "$(dirname "$0")/.."
minutes="${1:-10}"
clients="${2:-64}"
loops="${3:-2}"
extra="${4:-}"
jar=semafor-cli/target/semafor.jar
./semafor --version >/dev/null # builds the jar on first use
peers=n1=127.0.0.1:7690:7790,n2=127.0.0.1:7700:7800,n3=127.0.0.1:7710:7810
. semafor-bench/processes.sh leaders-under-load
for i in 1 2 3; do
  # shellcheck disable=SC2086 # extra options are words
  java -jar "$jar" server --node-id "n$i" --peers "$peers" --data-dir "$data/n$i" \
    --admin-port "79$((i))1" --http-port -1 $extra >"$data/n$i.log" 2>&1 &
  pids+=("$!")
done
await_leader 7911 7921 7931
for _ in $(seq 1 "$loops"); do
  sh -c 'while :; do :; done' &
  pids+=("$!")
done
changes() { cat "$data"/n*.log | grep -c "leads the group" || true; }
before=$(changes)
java -jar "$jar" bench --server 127.0.0.1:7690,127.0.0.1:7700,127.0.0.1:7710 --workload W2 \
  --clients "$clients" --duration "${minutes}m" --json >"$data/bench.json" 2>"$data/bench.err" || true
after=$(changes)
echo "W2 at $clients clients for $minutes min beside $loops busy loops${extra:+, $extra}: first leader $leader"
echo "leaders elected during the load: $((after - before));" \
  "silent-leader pre-votes: $(cat "$data"/n*.log | grep -c "silent past its timeout" || true)"
grep -h "follows\|leads the group\|no longer leads\|lost its leader" "$data"/n*.log | sort | tail -n +4 | head -n 20 | cut -c12-200 || true
grep -o '"pairsPerSecond":[0-9.]*\|"p99Micros":[0-9.]*\|"p999Micros":[0-9.]*' "$data/bench.json" | tr '\n' ' ' || cat "$data/bench.err"
echo
