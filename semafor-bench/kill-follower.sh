#!/usr/bin/env bash
# Whether a MicroRaft leader keeps leading when one of its followers dies (decision 0044, "Open"):
# starts a 3-node cluster on 127.0.0.1 from semafor-cli/target/semafor.jar, runs W1 at 16 clients
# against it for 20 s, kills a follower with SIGKILL 8 s in, and prints whether the leader stepped
# down afterwards, and the load's throughput; stops every process it started by PID.
#
# usage: semafor-bench/kill-follower.sh [trials, default 3]
set -euo pipefail
cd "$(dirname "$0")/.."
trials="${1:-3}"
jar=semafor-cli/target/semafor.jar
./semafor --version >/dev/null # builds the jar on first use
peers=n1=127.0.0.1:7630:7730,n2=127.0.0.1:7640:7740,n3=127.0.0.1:7650:7750
for t in $(seq 1 "$trials"); do
  (
    . semafor-bench/processes.sh kill-follower
    declare -A node
    for i in 1 2 3; do
      java -jar "$jar" server --node-id "n$i" --peers "$peers" --data-dir "$data/n$i" \
        --admin-port "78$((3 + i))1" >"$data/n$i.log" 2>&1 &
      pids+=("$!")
      node[n$i]=$!
    done
    await_leader 7841 7851 7861
    java -jar "$jar" bench --server 127.0.0.1:7630,127.0.0.1:7640,127.0.0.1:7650 --workload W1 \
      --clients 16 --duration 20s --json >"$data/bench.json" 2>"$data/bench.err" &
    bench=$!
    pids+=("$bench")
    sleep 8
    victim=""
    for i in 1 2 3; do [ "n$i" != "$leader" ] && victim="n$i" && break; done
    kill -9 "${node[$victim]}"
    wait "${node[$victim]}" 2>/dev/null || true # reaped here, quietly
    wait "$bench" || true
    stepdowns=$(grep -c "no longer leads" "$data/$leader.log" || true)
    echo "trial $t: leader $leader, follower $victim killed: the leader stepped down $stepdowns times;" \
      "$(grep -o '"pairsPerSecond":[0-9.]*' "$data/bench.json" || echo 'no bench result')"
  )
done
