#!/usr/bin/env bash
# Decision 0043's gate (issue 15): the replication path alone, Semafor's Ratis replicator against
# MicroRaft on one Netty event loop, three JVMs on 127.0.0.1, the same closed-loop load on the
# member elected leader (n1, whose election timeout is the shortest). Prints, per client count:
# commands and entries per second, commands per entry, command latency p50/p99 (submit to
# committed, plus one hand-off to the client thread), and CPU µs and wake-ups per entry for the
# leader and each follower (from /proc, over the measured window). Stops the JVMs by PID, also on
# failure.
#
# usage: semafor-bench/replication-gate.sh ratis|microraft [warm-up s, default 20] [window s, default 10]
# CLIENTS (environment): client counts, default "1,64".
# GATE_ARGS (environment): more driver options: --command-bytes N (41, a W1 command's share of an
#   entry; MicroRaft only), --in-flight N (1, as EntrySender; MicroRaft only), --fsync (force the
#   log before an entry counts: Ratis's fsync durability).
set -euo pipefail
cd "$(dirname "$0")/.."
impl="${1:?ratis or microraft}"
warmup="${2:-20}"
window="${3:-10}"
peers=n1=127.0.0.1:7600:7700,n2=127.0.0.1:7610:7710,n3=127.0.0.1:7620:7720
. semafor-bench/processes.sh gate
jar=semafor-bench/target/benchmarks.jar
[ -f "$jar" ] || { echo "build first: mvn -q package -pl semafor-bench -am -DskipTests" >&2; exit 1; }
for i in 2 3; do
  bash -c 'exec "$@"' _ java -Xmx2g -cp "$jar" io.semafor.bench.gate.ReplicationGate --impl "$impl" \
    --peers "$peers" --id "n$i" --data "$data/n$i" ${GATE_ARGS:-} >"$data/n$i.log" 2>&1 &
  pids+=("$!")
done
bash -c 'exec "$@"' _ java -Xmx2g -cp "$jar" io.semafor.bench.gate.ReplicationGate --impl "$impl" \
  --peers "$peers" --id n1 --data "$data/n1" --drive --pids "${pids[0]},${pids[1]}" \
  --clients "${CLIENTS:-1,64}" --warmup "$warmup" --measure "$window" ${GATE_ARGS:-} &
pids+=("$!")
if ! wait "${pids[2]}"; then
  echo "the driver failed; member logs:" >&2
  tail -n 30 "$data"/n2.log "$data"/n3.log >&2
  exit 1
fi
