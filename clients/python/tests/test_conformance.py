"""The conformance kit (conformance/README.md) run with the Python client: one test per case
file, named by the case, against a fresh single-node server process per case with each actor
behind its own proxy; then the cases tagged ``cluster-safe`` against one 3-node cluster of
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
    finally:
        await executor.close()


@pytest.fixture
def single_node():
    """A fresh single-node server process for one case."""
    why = servers.missing()
    if why:
        pytest.skip(why)
    s = servers.Server("--port", "0", "--admin-port", "-1")
    try:
        yield s
    finally:
        s.stop()


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
