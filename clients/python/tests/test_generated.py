"""The committed protocol code is what protoc makes of the one .proto today."""

import os
import shutil
import subprocess
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(HERE)
PROTOC = "/usr/bin/protoc" if os.path.exists("/usr/bin/protoc") else shutil.which("protoc")


@pytest.mark.skipif(PROTOC is None, reason="protoc is not installed (Debian: protobuf-compiler)")
def test_the_committed_semafor_pb2_is_what_protoc_generates_from_semafor_proto():
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([os.path.join(PACKAGE, "tools", "generate.sh"), out], check=True,
                       env={**os.environ, "PROTOC": PROTOC}, timeout=60)
        with open(os.path.join(out, "semafor_pb2.py"), "rb") as fresh, open(
                os.path.join(PACKAGE, "semafor", "_proto", "semafor_pb2.py"), "rb") as committed:
            assert fresh.read() == committed.read(), (
                "semafor/_proto/semafor_pb2.py is stale: run clients/python/tools/generate.sh")
