#!/bin/sh
# Regenerates semafor/_proto/semafor_pb2.py from the one .proto of the repository
# (semafor-protocol/src/main/proto/semafor.proto) with protoc (3.21 here; any protoc whose output
# the installed protobuf runtime reads). Usage: tools/generate.sh [OUTPUT_DIR]
# tests/test_generated.py runs it into a temporary directory and fails when the committed file
# differs, so a change to the .proto without regenerating fails the tests.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
proto_dir=$(cd "$here/../../semafor-protocol/src/main/proto" && pwd)
out=${1:-"$here/semafor/_proto"}
protoc=${PROTOC:-protoc}
mkdir -p "$out"
"$protoc" --proto_path="$proto_dir" --python_out="$out" "$proto_dir/semafor.proto"
