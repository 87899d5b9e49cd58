#!/bin/sh
# Builds the CDS archive that makes client commands start faster (decision 0025): usage
#   cds-archive.sh JAVA JAR ARCHIVE
# It starts a throwaway server (JAR server --port 0 on 127.0.0.1, stopped before this script
# exits), runs `semafor create` and `semafor get` against it with -XX:DumpLoadedClassList, and
# dumps a static archive of those classes with -Xshare:dump. Run by `mvn package` (semafor-cli's
# pom.xml); the launchers (./semafor, the release's bin/semafor) use ARCHIVE when it matches their
# JVM and ignore it silently otherwise.
#
# The jar is named /dev/fd/9, opened on JAR, both here and in the launchers: JDK 17 records the
# class path string in the archive and refuses the archive under any other one, so a real path
# would tie the archive to where it was built, while /dev/fd/9 follows the jar wherever the release
# is unpacked (the archive still checks the jar's size and modification time).
#
# Never fails the build: without an archive the launchers just start slower. What went wrong is
# printed on stderr.
set -u
if [ $# -ne 3 ]; then
  echo "usage: cds-archive.sh JAVA JAR ARCHIVE" >&2
  exit 2
fi
java=$1
jar=$2
archive=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/semafor-cds.XXXXXX") || exit 0
server=
cleanup() {
  if [ -n "$server" ]; then
    kill "$server" 2>/dev/null
    wait "$server" 2>/dev/null
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
give_up() {
  echo "[WARNING] cds-archive.sh: no CDS archive, client commands will start slower: $1" >&2
  for f in "$work"/*.log; do
    [ -f "$f" ] && sed "s|^|  ${f##*/}: |" "$f" >&2
  done
  exit 0
}

rm -f "$archive"
exec 9<"$jar" || give_up "cannot open $jar"

"$java" -jar "$jar" server --port 0 --admin-port -1 >"$work/server.log" 2>&1 </dev/null &
server=$!
address=
tries=0
while [ -z "$address" ] && [ "$tries" -lt 600 ]; do
  kill -0 "$server" 2>/dev/null || give_up "the training server exited"
  sleep 0.1
  tries=$((tries + 1))
  address=$(sed -n 's/^semafor server listening on \(127\.0\.0\.1:[0-9]*\)$/\1/p' "$work/server.log")
done
[ -n "$address" ] || give_up "the training server did not listen within 60 s"

"$java" -cp /dev/fd/9 io.semafor.cli.Main create cds-training 1 --server "$address" \
  >"$work/create.log" 2>&1 </dev/null || give_up "semafor create failed"
# the class list: every class `semafor get` loads, JDK ones included
"$java" -XX:DumpLoadedClassList="$work/classes.lst" -cp /dev/fd/9 io.semafor.cli.Main \
  get cds-training --server "$address" >"$work/get.log" 2>&1 </dev/null \
  || give_up "semafor get failed"
[ "$(cat "$work/get.log")" = 1 ] || give_up "semafor get printed something else than 1"

# -Xshare:dump prints its progress and warnings (classes it skips) on stdout: kept out of the build
"$java" -Xshare:dump -XX:SharedClassListFile="$work/classes.lst" \
  -XX:SharedArchiveFile="$work/semafor.jsa" -cp /dev/fd/9 >"$work/dump.log" 2>&1 </dev/null \
  || give_up "java -Xshare:dump failed"
# the archive must work silently before it is shipped
"$java" -Xshare:on -XX:SharedArchiveFile="$work/semafor.jsa" -cp /dev/fd/9 io.semafor.cli.Main \
  get cds-training --server "$address" >"$work/check.log" 2>&1 </dev/null \
  || give_up "the archive does not work"
[ "$(cat "$work/check.log")" = 1 ] || give_up "with the archive, semafor get printed something else"
mv "$work/semafor.jsa" "$archive" || give_up "cannot write $archive"
