#!/usr/bin/env bash
# The hop budget of a log entry (issue 15, decision 0040): how many times the threads of the leader
# and of a follower are woken (context switches, from /proc) per entry committed, by thread, at 1
# and at 64 clients (W1). Starts a fresh three-node cluster on 127.0.0.1 (ports as
# cluster-cells.sh: clients 7600/7610/7620, admin 7810/7820/7830), warms it, then for each client
# count reads every node thread's context switches and CPU time, runs W1 for the measured window,
# reads them again, and prints per node: entries committed, commands per entry, CPU µs per entry,
# and context switches per entry, in total and for each thread (threads named from `jcmd
# Thread.print`; numbered pool threads counted together). Stops the nodes by PID, also on failure.
#
# usage: semafor-bench/hop-budget.sh [replicated|fsync] [warm-up s, default 30] [window s, default 10]
# SERVER_ARGS (environment): more `semafor server` options for every node, e.g.
#   SERVER_ARGS="--raft-property raft.server.log.appender.wait-time.min=1ms" (Ratis's default)
# CLIENTS (environment): the client counts, default "1 64".
# SEMAFOR_JAR (environment): the jar the nodes run, default semafor-cli/target/semafor.jar (for A/B).
set -euo pipefail
cd "$(dirname "$0")/.."
durability="${1:-replicated}"
warmup="${2:-30}"
window="${3:-10}"
servers=127.0.0.1:7600,127.0.0.1:7610,127.0.0.1:7620
peers=n1=127.0.0.1:7600:7700,n2=127.0.0.1:7610:7710,n3=127.0.0.1:7620:7720
. semafor-bench/processes.sh hops

./semafor --version >/dev/null # builds the jar on first use
for i in 1 2 3; do
  # exec: the PID is the server JVM's own, whose /proc/PID/task lists its threads
  bash -c 'exec "$@"' _ java -jar "${SEMAFOR_JAR:-semafor-cli/target/semafor.jar}" server --node-id "n$i" \
    --peers "$peers" --data-dir "$data/n$i" --admin-port "78${i}0" --durability "$durability" \
    ${SERVER_ARGS:-} >"$data/n$i.log" 2>&1 &
  pids+=("$!")
done
status() { curl -sf "http://127.0.0.1:78${1}0/cluster" || echo '{}'; }
leader=""
for _ in $(seq 1 150); do
  for i in 1 2 3; do
    if [ "$(status "$i" | jq -r '.role // empty')" = leader ]; then leader=n$i; break 2; fi
  done
  sleep 0.2
done
if [ -z "$leader" ]; then
  echo "no leader within 30 s; node logs:" >&2
  tail -n 20 "$data"/n*.log >&2
  exit 1
fi

# "tid name" for every Java thread of a JVM (nid is the Linux thread id: hex before JDK 21)
names() {
  jcmd "$1" Thread.print 2>/dev/null |
    sed -n 's/^"\([^"]*\)".* nid=\(0x[0-9a-f]*\|[0-9]*\).*/\2 \1/p' |
    while read -r nid name; do echo "$((nid)) $name"; done
}
# "tid switches" for every thread of a process
switches() {
  for t in /proc/"$1"/task/*; do
    awk -v tid="${t##*/}" '/^(non)?voluntary_ctxt_switches/ {s += $2} END {print tid, s}' \
      "$t/status" 2>/dev/null || true
  done
}
cpu_ticks() { awk '{print $14 + $15}' /proc/"$1"/stat; }
commit() { status "$1" | jq -r '.commitIndex // 0'; }
hz=$(getconf CLK_TCK)

./semafor bench --server "$servers" --workload W1 --clients 64 --duration "${warmup}s" | tail -1 |
  sed 's/^/warm-up /'
for clients in ${CLIENTS:-1 64}; do
  declare -A before_cpu before_commit
  for i in 1 2 3; do
    pid=${pids[$((i - 1))]}
    names "$pid" >"$data/names-$i"
    switches "$pid" >"$data/before-$i"
    before_cpu[$i]=$(cpu_ticks "$pid")
    before_commit[$i]=$(commit "$i")
  done
  line="$(./semafor bench --server "$servers" --workload W1 --clients "$clients" \
    --duration "${window}s" | tail -1)"
  echo
  echo "W1 C=$clients: $line"
  for i in 1 2 3; do
    pid=${pids[$((i - 1))]}
    switches "$pid" >"$data/after-$i"
    names "$pid" >>"$data/names-$i"
    cpu=$(($(cpu_ticks "$pid") - before_cpu[$i]))
    entries=$(($(commit "$i") - before_commit[$i]))
    role=$(status "$i" | jq -r '.role // "?"')
    pairs=$(echo "$line" | awk '{gsub(",", "", $3); print $3 + 0}')
    awk -v node="n$i" -v role="$role" -v entries="$entries" -v cpu="$cpu" -v hz="$hz" \
      -v pairs="${pairs:-0}" -v window="$window" '
      FNR == 1 { file++ }
      file == 1 { name[$1] = substr($0, index($0, " ") + 1); next }
      file == 2 { b[$1] = $2; next }
      {
        n = ($1 in name) ? name[$1] : "(unnamed or gone)"
        gsub(/[0-9]+$/, "#", n); gsub(/-[0-9]+-/, "-#-", n)
        d = $2 - (($1 in b) ? b[$1] : 0)
        by[n] += d; total += d
      }
      END {
        e = entries > 0 ? entries : 1
        printf "  %s (%s): %d entries, %.1f commands/entry, %.0f µs CPU/entry, %.1f switches/entry\n",
          node, role, entries, pairs * 2 * window / e, cpu * 1e6 / hz / e, total / e
        for (k in by) if (by[k] / e >= 0.05) printf "    %6.2f  %s\n", by[k] / e, k | "sort -rn"
        close("sort -rn")
      }' "$data/names-$i" "$data/before-$i" "$data/after-$i"
  done
done
