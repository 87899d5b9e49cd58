"""The conformance kit (conformance/README.md) run with the Python client: one test per case
file, named by the case, against one single-node server process whose semaphores are all deleted
between cases, with each actor behind its own proxy; then the cases tagged ``cluster-safe`` against one 3-node cluster of
server processes (every semaphore deleted between cases; the other cases are skipped there, with
the reason). A case file the runner cannot read fails its test. Every process started here is
stopped by its PID, also on failure."""

from __future__ import annotations

import asyncio
import os

import pytest

import semafor
import servers
from conformance import SUPPORTED_TAGS
from conformance.cases import CaseFormatError, case_files, parse
from conformance.executor import CaseExecutor

KIT = os.environ.get("SEMAFOR_CONFORMANCE_DIR") or os.path.join(servers.REPO, "conformance")
FILES = case_files(os.path.join(KIT, "cases"))
CASE_S = 60.0
"""A case that has not ended by then fails (every step is bounded well below it)."""


def _id(path: str) -> str:
    return os.path.basename(path)[:-len(".json")]


def _read(path: str):
    case = parse(path)
    missing = sorted(case.requirements - SUPPORTED_TAGS)
    if missing:
        pytest.skip(f"this runner does not support {missing}")
    return case


async def _run(case, connect) -> None:
    executor = await connect(case)
    try:
        await asyncio.wait_for(executor.run(), CASE_S)
    except asyncio.TimeoutError:
        step = executor.step
        raise AssertionError(f"{case.name}: not ended within {CASE_S} s, at step "
                             f"{step.index if step else 0}") from None
    finally:
        await executor.close()


@pytest.fixture(scope="module")
def shared_node():
    """One single-node server process for every case, stopped by its PID at the end."""
    why = servers.missing()
    if why:
        pytest.skip(why)
    s = servers.Server("--port", "0", "--admin-port", "-1", "--http-port", "-1")
    try:
        yield s
    finally:
        s.stop()


@pytest.fixture
def single_node(shared_node):
    """The module's single node, as a fresh one would be for what a case sees (README §7.1): no
    semaphore at the start, every one deleted after the case before. A session a case leaves
    behind (a killed or frozen actor's, until its TTL) held only what the delete dropped, so the
    next case cannot see it. (A process per case cost a JVM start each, 1.7-3 s: a minute in all.)"""
    try:
        yield shared_node
    finally:
        _delete_every_semaphore(shared_node.address)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """One 3-node cluster for every cluster-safe case, started by the first."""
    why = servers.missing()
    if why:
        pytest.skip(why)
    c = servers.Cluster(str(tmp_path_factory.mktemp("conformance-cluster")))
    try:
        yield c
    finally:
        c.stop()


def _delete_every_semaphore(addresses: str) -> None:
    """The cases share the cluster: each starts with no semaphore."""
    with semafor.connect(addresses, client_name="conformance-cleanup", connect_timeout=10) as admin:
        for status in admin.list(""):
            admin.semaphore(status.name).delete()


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_single_node(path, single_node):
    case = _read(path)
    asyncio.run(_run(case, lambda c: CaseExecutor.proxied(c, single_node.address)))


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_three_node_cluster(path, request):
    case = _read(path)
    if not case.cluster_safe:
        pytest.skip("not tagged cluster-safe: its steps need a proxy in front of each actor")
    cluster = request.getfixturevalue("cluster")
    try:
        asyncio.run(_run(case, lambda c: CaseExecutor.direct(c, cluster.servers)))
    finally:
        _delete_every_semaphore(cluster.servers)


# ---------------------------------------------------------------------- the runner's own checks

def _case(tags="", actors='"a": {}', steps=""):
    return (f'{{"name": "c", "description": "d", "tags": [{tags}], "actors": {{{actors}}}, '
            f'"steps": [{steps}]}}')


_CREATE = '{"op": "create", "actor": "a", "args": {"name": "x", "initial": 1}}'
_WAIT = ('{"op": "acquire", "actor": "a", "args": {"name": "x", "amount": 1, "timeout_ms": -1}, '
         '"start": "h"}')


def test_a_well_formed_case_is_read_into_its_steps():
    case = parse("c.json", _case('"session"', '"a": {"session_ttl_ms": 1000}',
                                 f'{_CREATE}, {_WAIT}, {{"await": "h", "expect": {{"granted": true}}}}, '
                                 '{"env": "wait_ms", "ms": 5}'))
    assert [type(s).__name__ for s in case.steps] == ["OpStep", "OpStep", "AwaitStep", "EnvStep"]
    assert case.actors["a"].session_ttl_ms == 1000 and case.requirements == {"session"}


@pytest.mark.parametrize("text, refusal", [
    (_case(steps='{"jump": "a"}'), "exactly one of 'op', 'await', 'env'"),
    (_case(steps='{"op": "fly", "actor": "a"}'), "unknown op 'fly'"),
    (_case(steps='{"op": "get", "actor": "a", "args": {"name": "x", "nmae": 1}}'),
     "get: unknown argument 'nmae'"),
    (_case(steps='{"op": "get", "actor": "a", "args": {}}'), "get: missing argument 'name'"),
    (_case(steps='{"op": "get", "actor": "a", "args": {"name": "x"}, "expect": {"valeu": 1}}'),
     "'valeu' is not a result field of get"),
    (_case(steps='{"op": "get", "actor": "a", "args": {"name": "x"}, "expect": {"error": "NOPE"}}'),
     "expect.error: one of"),
    (_case(steps='{"op": "get", "actor": "a", "args": {"name": "x"}, "expect": {"value": "$v"}}'),
     "variable $v is not bound"),
    (_case(steps='{"op": "get", "actor": "a", "args": {"name": "x"}, "bind": {"v": "value"}}, '
                 '{"op": "get", "actor": "a", "args": {"name": "x"}, "bind": {"v": "value"}}'),
     "variable 'v' is bound twice"),
    (_case(steps='{"await": "h", "expect": {"granted": true}}'), "no open handle 'h'"),
    (_case('"session"', steps=f'{_CREATE}, {_WAIT}, {_WAIT}'), "must be a new handle name"),
    (_case(steps='{"op": "increment", "actor": "a", "args": {"name": "x", "amount": 1}, '
                 '"within_ms": 100}'), "within_ms polls a read"),
    (_case('"session"', steps=f'{_CREATE}, {_WAIT}, {{"await": "h", "expect": '
                              f'{{"pending_after_ms": 5, "granted": true}}}}'),
     "pending_after_ms stands alone"),
    (_case(steps='{"env": "wait_ms", "actor": "a", "ms": 5}'), "wait_ms has no actor"),
    (_case(steps='{"op": "get", "actor": "a", "args": {"name": "x"}, "needs_session": false}'),
     "needs_session is true or absent"),
    (_case(steps='{"op": "get", "actor": "a", "args": {"name": "x"}, "bind": {"v": "value"}, '
                 '"needs_session": true}'),
     "a step that needs a session neither starts a handle nor binds"),
    (_case('"freeze"', steps='{"env": "freeze", "actor": "a"}, '
                             '{"op": "get", "actor": "a", "args": {"name": "x"}}'),
     "actor a is frozen: it cannot act"),
    (_case(steps='{"env": "thaw", "actor": "a"}'), "thaw of actor a whose link is open"),
    (_case(steps=_CREATE.replace('"actor": "a"', '"actor": "b"')), "not one of the case's actors"),
    (_case('"lease"', steps=_CREATE), "must be exactly what the steps use"),
    (_case(steps=_WAIT.replace('"start": "h"', '"expect": {"granted": true}')),
     "must be exactly what the steps use"),
    (_case('"kill", "cluster-safe"', steps='{"env": "kill", "actor": "a"}'),
     "a cluster-safe case has no kill step"),
    (_case(steps=_CREATE).replace('"name": "c"', '"name": "other"'), "must be lower-case-with-hyphens and the file's name"),
    (_case(steps=_CREATE).replace('"tags"', '"flags": [], "tags"'), "the case: unknown field 'flags'"),
])
def test_a_case_the_runner_would_misread_is_refused_naming_the_file_and_step(text, refusal):
    with pytest.raises(CaseFormatError) as e:
        parse("c.json", text)
    assert refusal in str(e.value) and str(e.value).startswith("c.json")


def test_every_case_of_the_kit_is_read():
    assert len(FILES) >= 26
    for path in FILES:
        parse(path)


def test_a_step_whose_outcome_does_not_match_fails_the_case_naming_the_step(single_node):
    case = parse("c.json", _case(steps=f'{_CREATE}, {{"op": "get", "actor": "a", "args": '
                                        f'{{"name": "x"}}, "expect": {{"value": 2}}, "note": "wrong"}}'))
    with pytest.raises(AssertionError) as e:
        asyncio.run(_run(case, lambda c: CaseExecutor.proxied(c, single_node.address)))
    assert "c, step 2 (wrong): " in str(e.value) and "value: expected 2, was 1" in str(e.value)
