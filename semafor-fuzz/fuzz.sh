#!/usr/bin/env bash
# Fuzzes one target for a while and records the campaign (decision 0030, docs/testing.md "Fuzzing").
#   semafor-fuzz/fuzz.sh TARGET DURATION      e.g. semafor-fuzz/fuzz.sh EntryFuzzTest 1h
# TARGET: EntryFuzzTest, FrameDecoderFuzzTest, RequestPathFuzzTest or SnapshotReaderFuzzTest.
# DURATION: Jazzer's form, e.g. 600s, 10m, 1h. Runs under nice; the fuzz JVM's heap is
# -Dfuzz.heap (512m). Appends one line to semafor-fuzz/campaigns.tsv: date, target, duration,
# executions, coverage (cov), features (ft), corpus entries, result, JDK. A crash leaves its input
# in src/test/resources/.../<TARGET>Inputs/<method>/crash-* and exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: fuzz.sh TARGET DURATION}
duration=${2:?usage: fuzz.sh TARGET DURATION}
log=semafor-fuzz/target/fuzz-$target-$(date +%Y%m%dT%H%M%S).log
mkdir -p semafor-fuzz/target
status=0
nice -n 10 mvn -B -o verify -Pfuzz -pl semafor-fuzz -am -Dtest="$target" \
  -Dsurefire.failIfNoSpecifiedTests=false -Dspotless.check.skip=true \
  -Dfuzz.duration="$duration" >"$log" 2>&1 || status=$?
# libFuzzer's last status line: "#N DONE cov: C ft: F corp: E/..." (or the last line before a crash)
last=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -n 1 || true)
execs=$(sed -E 's/^#([0-9]+).*/\1/' <<<"$last")
cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
corp=$(sed -nE 's/.* corp: ([0-9]+)\/.*/\1/p' <<<"$last")
if [ "$status" -eq 0 ]; then result="0 crashes"; else result="FAILED (see $log)"; fi
jdk=$(java -version 2>&1 | head -1 | sed -E 's/.*"(.*)".*/\1/')
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" "$target" "$duration" \
  "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result" "$jdk" | tee -a semafor-fuzz/campaigns.tsv
exit "$status"
