#!/usr/bin/env bash
# Reproduces the three abuses of issue 13 point 8 (AbuseProbe) against a fresh server per abuse,
# printing the server's RSS before and after. Linux only.
#   semafor-bench/abuse-probe.sh [SERVER_JAR]   (default semafor-server/target/semafor-server.jar)
# Needs `mvn -o package -pl semafor-server,semafor-bench -am -DskipTests` first.
set -euo pipefail
cd "$(dirname "$0")/.."
jar=${1:-semafor-server/target/semafor-server.jar}
probe=semafor-bench/target/benchmarks.jar
port=17499
for abuse in frames unread sessions; do
  java -jar "$jar" --port "$port" --admin-port -1 >/tmp/abuse-probe-server.log 2>&1 &
  pid=$!
  trap 'kill "$pid" 2>/dev/null || true' EXIT
  for _ in $(seq 1 100); do
    grep -q 'listening' /tmp/abuse-probe-server.log && break
    sleep 0.1
  done
  java -cp "$probe" io.semafor.bench.AbuseProbe "$port" "$pid" "$abuse" || true
  echo "$abuse: OutOfMemoryErrors in the server's log: $(grep -c OutOfMemoryError /tmp/abuse-probe-server.log || true)"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  trap - EXIT
done
