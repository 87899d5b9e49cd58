#!/usr/bin/env bash
# One run, one server: W1 and W2 at 16 clients with Python client processes, then with the Java
# client (semafor bench), then one Python client's acquire+release round trip beside the same
# pair sent by hand (raw.py) and beside bare Python socket echo round trips. Prints a table.
#
#   clients/python/bench/compare.sh            # from the repository's root; ~3 minutes
#
# Settings: SEMAFOR_JAR (default semafor-cli/target/semafor.jar), PYTHON (default
# /usr/bin/python3), CLIENTS (16), DURATION (10, seconds; warm-up 2 s), ECHO_SERVER (the Java NIO
# echo server's source, default /work/shared/peers/src/main/java/peers/server/EchoServer.java; if
# absent, echo.py --serve, a Python one). Every process started here is stopped by its PID on exit.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
JAR="${SEMAFOR_JAR:-$ROOT/semafor-cli/target/semafor.jar}"
PY="${PYTHON:-/usr/bin/python3}"
C="${CLIENTS:-16}"
D="${DURATION:-10}"
ECHO_SRC="${ECHO_SERVER:-/work/shared/peers/src/main/java/peers/server/EchoServer.java}"
OUT="$(mktemp -d)"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$OUT"
}
trap cleanup EXIT
free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() { # file, pattern, seconds
  for _ in $(seq 1 $(( $3 * 10 ))); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "compare.sh: '$2' not seen in $1 within $3 s:" >&2; tail -20 "$1" >&2; exit 1
}

[ -f "$JAR" ] || { echo "compare.sh: $JAR is missing (mvn -B -q -o package -DskipTests -pl semafor-cli -am)" >&2; exit 2; }
PORT=$(free_port)
java -Xmx512m -jar "$JAR" server --port "$PORT" --admin-port -1 >"$OUT/server.log" 2>&1 &
PIDS+=($!)
wait_for "$OUT/server.log" "semafor server listening" 60
SERVER="127.0.0.1:$PORT"

EPORT=$(free_port)
if [ -f "$ECHO_SRC" ]; then
  java -Xmx64m "$ECHO_SRC" --port "$EPORT" >"$OUT/echo.log" 2>&1 &
  ECHO_KIND="Java NIO echo server (peers EchoServer, one selector thread)"
else
  "$PY" "$HERE/echo.py" --serve "$EPORT" >"$OUT/echo.log" 2>&1 &
  ECHO_KIND="Python echo server (echo.py --serve, selectors, one thread)"
fi
PIDS+=($!)
wait_for "$OUT/echo.log" "READY" 60

echo "server $SERVER, echo 127.0.0.1:$EPORT ($ECHO_KIND); $C clients, ${D} s measured after 2 s" >&2
for w in W1 W2; do
  echo "python $w ..." >&2
  "$PY" "$HERE/bench.py" --server "$SERVER" --workload $w --clients "$C" --duration "$D" --json >"$OUT/py-$w.json"
done
for w in W1 W2; do
  echo "java $w ..." >&2
  java -jar "$JAR" bench --workload $w --clients "$C" --duration "${D}s" --server "$SERVER" --json 2>/dev/null | tail -1 >"$OUT/java-$w.json"
done
echo "one client: python pair, raw pair, echo ..." >&2
"$PY" "$HERE/bench.py" --server "$SERVER" --workload W1 --clients 1 --duration "$D" --json >"$OUT/py-1.json"
"$PY" "$HERE/raw.py" --server "$SERVER" --duration "$D" --json >"$OUT/raw-1.json"
"$PY" "$HERE/echo.py" --server "127.0.0.1:$EPORT" --duration "$D" --json >"$OUT/echo-1.json"

"$PY" - "$OUT" "$C" "$ECHO_KIND" <<'PYEOF'
import json, sys
out, c, echo_kind = sys.argv[1], sys.argv[2], sys.argv[3]
load = lambda n: json.load(open(f"{out}/{n}.json"))
print(f"\n| workload | C | client | pairs/s | acquire p50 µs | acquire p99 µs |")
print("|---|---|---|---|---|---|")
for w in ("W1", "W2"):
    p, j = load(f"py-{w}"), load(f"java-{w}")
    print(f"| {w} | {c} | Python (a process each) | {p['pairs_per_s']:,.0f} | {p['acquire_p50_us']:,.0f} | {p['acquire_p99_us']:,.0f} |")
    print(f"| {w} | {c} | Java (semafor bench) | {j['pairsPerSecond']:,.0f} | {j['p50Micros']:,.0f} | {j['p99Micros']:,.0f} |")
    print(f"| {w} | {c} | Python / Java | {p['pairs_per_s'] / j['pairsPerSecond']:.2f} | | |")
p, r, e = load("py-1"), load("raw-1"), load("echo-1")
two = 2 * e["p50_us"]
print(f"\none client, p50 µs ({echo_kind} for the echo):\n")
print("| what | p50 µs | p99 µs | / two echo round trips |")
print("|---|---|---|---|")
print(f"| Python client: acquire + release | {p['pair_p50_us']:.0f} | {p['pair_p99_us']:.0f} | {p['pair_p50_us'] / two:.1f} |")
print(f"| the same two requests by hand (raw.py) | {r['pair_p50_us']:.0f} | {r['pair_p99_us']:.0f} | {r['pair_p50_us'] / two:.1f} |")
print(f"| two bare Python echo round trips (16 bytes) | {two:.0f} | {2 * e['p99_us']:.0f} | 1.0 |")
print(f"\nPython client pair / raw pair: {p['pair_p50_us'] / r['pair_p50_us']:.1f} (what the client adds); target: pair <= 2 x two echo round trips")
PYEOF
