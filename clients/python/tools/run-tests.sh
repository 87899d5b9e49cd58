#!/usr/bin/env bash
# Runs the Python client's tests (clients/python/tests) with the system interpreter, as the default
# build does (clients/python/pom.xml, integration-test phase, after semafor-cli built the jar the
# real-server tests start). The tests need Debian's python3-protobuf and python3-pytest (protoc,
# from protobuf-compiler, for the stale-code check): .ci/run installs them. Without them the tests
# are skipped with the reason, unless SEMAFOR_PYTHON_TESTS=required (CI), which makes that a
# failure. SEMAFOR_PYTHON picks another interpreter (default /usr/bin/python3, never the first
# python3 on PATH, which may be a pyenv or venv one without those packages).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
python="${SEMAFOR_PYTHON:-/usr/bin/python3}"
why=""
if [ ! -x "$python" ]; then
  why="$python is missing"
elif ! "$python" -c 'import google.protobuf, pytest' 2>/dev/null; then
  why="$python lacks protobuf or pytest (Debian: apt-get install python3-protobuf python3-pytest protobuf-compiler)"
fi
if [ -n "$why" ]; then
  if [ "${SEMAFOR_PYTHON_TESTS:-}" = required ]; then
    echo "Python client tests are required (SEMAFOR_PYTHON_TESTS=required) but cannot run: $why" >&2
    exit 1
  fi
  echo "Python client tests skipped: $why"
  exit 0
fi
export SEMAFOR_JAR="${SEMAFOR_JAR:-$here/../../semafor-cli/target/semafor.jar}"
cd "$here"
# -p no:cacheprovider: no .pytest_cache in the source tree; the report goes under target/ as the
# Java modules' do.
exec "$python" -m pytest -q -p no:cacheprovider --junitxml=target/pytest-reports/TEST-python.xml tests
