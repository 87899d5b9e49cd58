#!/usr/bin/env bash
# The load held (docs/benchmarks.md, "Load held"): starts a fresh single node or three-node cluster
# on 127.0.0.1, holds 10,000 sessions keeping alive and 100,000 blocked waiters against it from
# four client processes (HeldLoad) for the given time, prints the checks and the server's heap per
# session and per waiter, and stops every process it started by PID.
#
# usage: semafor-bench/held-load.sh [single|cluster] [seconds, default 600] [sessions, default 10000]
#        [waiters, default 100000]
# The server is told to allow that many connections and sessions from one address (all the client
# processes connect from 127.0.0.1); the limits are the only options changed from the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-single}"
seconds="${2:-600}"
sessions="${3:-10000}"
waiters="${4:-100000}"
limits="--max-connections $((sessions + 100)) --max-connections-per-client $((sessions + 100))"
limits="$limits --max-sessions-per-client $((sessions + 100))"
. semafor-bench/processes.sh held
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

./semafor --version >/dev/null # builds the jar on first use
[ -f semafor-bench/target/benchmarks.jar ] ||
  mvn -B -q -o install -pl semafor-bench -am -DskipTests -Dspotless.check.skip=true >/dev/null
if [ "$mode" = cluster ]; then
  servers=127.0.0.1:7600,127.0.0.1:7610,127.0.0.1:7620
  peers=n1=127.0.0.1:7600:7700,n2=127.0.0.1:7610:7710,n3=127.0.0.1:7620:7720
  for i in 1 2 3; do
    ./semafor server --node-id "n$i" --peers "$peers" --data-dir "$data/n$i" \
      --admin-port "78${i}0" $limits >"$data/n$i.log" 2>&1 &
    pids+=("$!")
  done
  admin=(7810 7820 7830)
else
  servers=127.0.0.1:7600
  ./semafor server --port 7600 --admin-port 7810 $limits >"$data/n1.log" 2>&1 &
  pids+=("$!")
  admin=(7810)
fi
for _ in $(seq 1 150); do
  for a in "${admin[@]}"; do
    if curl -sf "http://127.0.0.1:$a/health" | grep -q '"leader"\|"ok"\|"up"'; then break 2; fi
  done
  sleep 0.2
done
status=0
java -cp semafor-bench/target/benchmarks.jar io.semafor.load.HeldLoad --servers "$servers" \
  --pids "$(IFS=,; echo "${pids[*]}")" --sessions "$sessions" --waiters "$waiters" \
  --seconds "$seconds" || status=$?
grep -h "pause\|WARN\|ERROR" "$data"/n*.log | head -20 || true
exit "$status"
