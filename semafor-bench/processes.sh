# Sourced by the benchmark scripts, from the project's root: gives them a scratch directory
# ($data, named after the script's $1) and a list of the PIDs they start ($pids), and on exit —
# also on failure or Ctrl-C — stops each of those processes (SIGTERM, then SIGKILL after 10 s) and
# removes the directory.
#
# usage: . semafor-bench/processes.sh NAME
data="$(mktemp -d -t "semafor-$1-XXXXXX")"
pids=()
stop_started() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$data"
}
trap stop_started EXIT

# await_leader PORT1 PORT2 PORT3: waits up to 30 s until one of the nodes whose admin ports these
# are reports "role":"leader" in /cluster, and sets $leader to its name, n1 for PORT1 and so on;
# fails with the nodes' last log lines otherwise.
await_leader() {
  leader=""
  for _ in $(seq 1 150); do
    local i=1
    for port in "$@"; do
      curl -sf "http://127.0.0.1:$port/cluster" | grep -q '"role":"leader"' && leader="n$i"
      i=$((i + 1))
    done
    [ -n "$leader" ] && return 0
    sleep 0.2
  done
  echo "no leader within 30 s"
  for f in "$data"/n*.log; do tail -n 5 "$f"; done
  return 1
}
