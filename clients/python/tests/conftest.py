"""Puts the package under test (this checkout's) and the tests' helpers on the path."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import pytest  # noqa: E402

import servers  # noqa: E402


@pytest.fixture(scope="module")
def server():
    """One real single-node server for the module, stopped at its end."""
    why = servers.missing()
    if why:
        pytest.skip(why)
    s = servers.Server("--port", "0", "--admin-port", "-1")
    try:
        yield s
    finally:
        s.stop()


@pytest.fixture
def proxy(server):
    p = servers.Proxy(server.address)
    try:
        yield p
    finally:
        p.close()
