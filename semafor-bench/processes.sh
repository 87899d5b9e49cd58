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
