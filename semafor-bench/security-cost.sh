#!/usr/bin/env bash
# The cost of security (docs/benchmarks.md "Security cost"): W1 and W2 at 16 and 64 clients
# against a fresh single-node server in four set-ups — plaintext; plaintext with an auth file
# (a token checked at Hello, a permission checked on every request against 40 rules); TLS 1.3;
# TLS 1.3 with the auth file — ROUNDS times, the set-ups interleaved round by round so that a
# slow spell of the shared machine hits them alike. Prints each run's rows, then every cell's
# median over the rounds and its ratio to plaintext. Run from the repository root after
# `mvn -B package -DskipTests -pl semafor-cli,semafor-bench -am`.
set -u
ROUNDS=${1:-3}
PORT=${PORT:-7600}
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$WORK"
}
trap cleanup EXIT
CLI="java -jar semafor-cli/target/semafor.jar"

# A self-signed CA and a server certificate for 127.0.0.1 (EC P-256), as docs/security-tls.md.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=bench-ca \
  -keyout "$WORK/ca.key" -out "$WORK/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=n1 \
  -keyout "$WORK/n1.key" -out "$WORK/n1.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >"$WORK/ext"
openssl x509 -req -in "$WORK/n1.csr" -CA "$WORK/ca.pem" -CAkey "$WORK/ca.key" -CAcreateserial \
  -days 2 -extfile "$WORK/ext" -out "$WORK/n1.pem" 2>/dev/null

# The auth file: the bench principal may do everything under "W"; 39 other principals and
# prefixes make the rule table a realistic size.
$CLI auth token bench >"$WORK/bench.out"
head -1 "$WORK/bench.out" >"$WORK/bench.token"
{
  echo '{"tokens": ['
  tail -1 "$WORK/bench.out"
  echo '], "rules": ['
  for i in $(seq 1 39); do
    echo "{\"principal\": \"team$i\", \"prefix\": \"team$i/\", \"permissions\": [\"read\", \"acquire\", \"release\"]},"
  done
  echo '{"principal": "bench", "prefix": "W", "permissions": ["read", "acquire", "release", "admin"]}'
  echo ']}'
} >"$WORK/auth.json"

run() { # label, client options, -- server options...
  local label=$1 client=$2; shift 2
  java -jar semafor-server/target/semafor-server.jar --port "$PORT" --admin-port -1 "$@" \
    >"$WORK/server.log" 2>&1 &
  local pid=$!
  PIDS+=("$pid")
  for _ in $(seq 1 100); do grep -q "listening on" "$WORK/server.log" && break; sleep 0.2; done
  # shellcheck disable=SC2086
  java -cp semafor-bench/target/benchmarks.jar io.semafor.load.LoadGenerator \
    --server 127.0.0.1:"$PORT" $client --workloads W1,W2 --clients 16,64 --duration 10s \
    --warmup 3s | grep -E '^ *W[12] ' | sed "s/^/$label /" | tee -a "$WORK/rows"
  kill "$pid"
  wait "$pid" 2>/dev/null
}
TLS_SERVER=(--tls-cert "$WORK/n1.pem" --tls-key "$WORK/n1.key")
for r in $(seq 1 "$ROUNDS"); do
  echo "== round $r"
  run plain ""
  run auth "--token-file $WORK/bench.token" --auth-file "$WORK/auth.json"
  run tls "--tls-ca $WORK/ca.pem" "${TLS_SERVER[@]}"
  run tls+auth "--tls-ca $WORK/ca.pem --token-file $WORK/bench.token" "${TLS_SERVER[@]}" \
    --auth-file "$WORK/auth.json"
done
echo
echo "== medians over $ROUNDS rounds (pairs/s, and the ratio to plaintext)"
python3 - "$WORK/rows" <<'PY'
import statistics, sys
cells = {}
for line in open(sys.argv[1]):
    f = line.split()
    cells.setdefault((f[1], f[2], f[0]), []).append(float(f[3].replace(",", "")))
setups = ["plain", "auth", "tls", "tls+auth"]
print("workload clients " + " ".join(f"{s:>16}" for s in setups))
for w, c in sorted({(k[0], k[1]) for k in cells}, key=lambda k: (k[0], int(k[1]))):
    base = statistics.median(cells[(w, c, "plain")])
    out = []
    for s in setups:
        m = statistics.median(cells[(w, c, s)])
        out.append(f"{m:>9,.0f} ({m / base:4.2f})")
    print(f"{w:>8} {c:>7} " + " ".join(f"{o:>16}" for o in out))
PY
