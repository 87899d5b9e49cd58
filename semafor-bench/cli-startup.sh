#!/bin/sh
# CLI start-up against `java -version` (docs/benchmarks.md, "CLI start-up"; decision 0025): runs
# A = `./semafor get NAME --server ADDRESS` and B = `java -version` in turn, A B A B ..., RUNS times
# each after one warm-up each, and prints the median wall time of each and the median of the
# pair-by-pair ratios A/B (pairs keep the ratio meaningful when a shared machine's speed drifts).
# Usage, from the repository root, with a server running:
#   semafor-bench/cli-startup.sh 127.0.0.1:PORT [RUNS (20)] [NAME (x)]
# Extra JVM options for A: SEMAFOR_JAVA_OPTS, as for ./semafor. GNU date (nanoseconds) and awk.
set -eu
address=$1
runs=${2:-20}
name=${3:-x}
root=$(cd "$(dirname "$0")/.." && pwd)
now() { date +%s%N; }
a() { "$root/semafor" get "$name" --server "$address" >/dev/null; }
b() { java -version 2>/dev/null; }
a
b
i=0
while [ "$i" -lt "$runs" ]; do
  t0=$(now); a; t1=$(now); b; t2=$(now)
  echo "$((t1 - t0)) $((t2 - t1))"
  i=$((i + 1))
done | awk '
  function median(v, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  { n++; a[n] = $1 / 1e9; b[n] = $2 / 1e9; r[n] = $1 / $2 }
  END {
    printf "A semafor get  median wall %.3f s\n", median(a, n)
    printf "B java -version median wall %.3f s\n", median(b, n)
    printf "A/B            median ratio %.2f (%d pairs)\n", median(r, n), n
  }'
