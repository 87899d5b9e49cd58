#!/usr/bin/env bash
# TLS cost (docs/benchmarks.md "TLS cost"): W1 and W2 at 16 and 64 clients against the same
# server jar, plaintext then TLS 1.3, one run each. CERTS is a directory with ca.pem, n1.pem and
# n1.key made as docs/security-tls.md shows. Run from the repository root after
# `mvn -B package -DskipTests -pl semafor-server,semafor-bench -am`.
set -u
CERTS=${1:?usage: semafor-bench/tls-cost.sh CERTS_DIR}
PORT=${PORT:-7600}
run() { # label, client options, -- server options...
  local label=$1 client=$2; shift 2
  local log
  log=$(mktemp)
  java -jar semafor-server/target/semafor-server.jar --port "$PORT" --admin-port -1 "$@" >"$log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 100); do grep -q "listening on" "$log" && break; sleep 0.2; done
  echo "== $label"
  # shellcheck disable=SC2086
  java -cp semafor-bench/target/benchmarks.jar io.semafor.bench.load.LoadGenerator \
    --server 127.0.0.1:"$PORT" $client --workloads W1,W2 --clients 16,64 --duration 10s --warmup 3s
  kill "$pid"
  wait "$pid" 2>/dev/null
  rm -f "$log"
}
run plain ""
run tls "--tls-ca $CERTS/ca.pem" --tls-cert "$CERTS/n1.pem" --tls-key "$CERTS/n1.key"
