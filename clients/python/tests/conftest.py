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


@pytest.fixture(autouse=True)
def record_traces(request):
    """With SEMAFOR_RECORD_TRACES set to a directory, writes the trace of each session machine a
    test drove there, named for the test (docs/protocol.md §9)."""
    import machine
    import traces

    directory = os.environ.get(machine.RECORD_TRACES)
    machine.RECORDERS.clear()
    yield
    if not directory:
        return
    test = request.node.name
    base = test[len("test_"):].replace("_", "-")
    for i, recorder in enumerate(machine.RECORDERS):
        name = base if i == 0 else f"{base}-{i + 1}"
        description = (request.node.function.__doc__ or "").strip() or (
            base.replace("-", " ").capitalize() + ".")
        trace = recorder.trace(name, description)
        trace["source"] = f"clients/python/tests/{request.node.fspath.basename}::{test}"
        with open(os.path.join(directory, name + ".json"), "w") as f:
            f.write(traces.dumps(trace))
    machine.RECORDERS.clear()
