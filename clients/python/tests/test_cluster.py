"""The Python client against a real 3-node cluster started from the built jar: a leader killed
(SIGKILL) or frozen (SIGSTOP) under clients that hold permits or wait for an answer. Every node is
stopped by its PID at the end, also on failure; every wait is bounded."""

from __future__ import annotations

import os
import random
import threading
import time

import pytest

import semafor
import servers

FROZEN_FOR = 5.0  # seconds the leader stays frozen
SERVED_WITHIN = 4.0  # asserted, generously: the target is 2 s (issue 33)


@pytest.fixture
def cluster(tmp_path):
    why = servers.missing()
    if why:
        pytest.skip(why)
    c = servers.Cluster(str(tmp_path))
    try:
        yield c
    finally:
        c.stop()


def unique(prefix):
    return f"{prefix}-{random.randrange(1 << 40)}"


def until(condition, timeout, what):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.01)
    raise AssertionError(f"{what} did not hold within {timeout} s")


class Waiter:
    """``sem.acquire(amount, timeout)`` on a thread; ``result``/``error`` once it returned."""

    def __init__(self, sem, amount=1, timeout=30.0):
        self.result = None
        self.error = None
        self.returned_at = None
        self.done = threading.Event()
        threading.Thread(target=self._run, args=(sem, amount, timeout), daemon=True).start()

    def _run(self, sem, amount, timeout):
        try:
            self.result = sem.acquire(amount, timeout=timeout)
        except BaseException as e:  # reported by the test
            self.error = e
        self.returned_at = time.monotonic()
        self.done.set()


def on(client):
    """The address the client's session is attached to now (None while it is not ready)."""
    m = client._driver.machine
    return m.address if m.phase == "ready" else None


def test_a_leader_killed_while_a_client_waits_still_grants_it_once_and_the_session_is_kept(cluster):
    with semafor.connect(cluster.servers, client_name="waiter", session_ttl=5) as waiter, \
            semafor.connect(cluster.servers, client_name="giver", session_ttl=5) as giver:
        name = unique("failover")
        sem = giver.create(name, 0, capacity=1)
        session = waiter.session_id
        w = Waiter(waiter.semaphore(name), timeout=30.0)
        until(lambda: len(sem.inspect().queue) == 1, 10.0, "the waiter is queued")
        leader = cluster.leader()
        cluster.nodes[leader].kill()
        sem.increment(1)  # through the new leader: the queued waiter is granted
        assert w.done.wait(20.0), "the waiting acquire did not return within 20 s of the failover"
        assert w.error is None, w.error
        detail = sem.inspect()
        assert detail.status.value == 0 and not detail.queue
        assert [(h.session_id, h.owned) for h in detail.holders] == [(session, 1)]
        assert waiter.session_id == session
        w.result.release()
        assert sem.get().value == 1 and sem.get().holders == 0


# the freeze past the TTL takes 30 s: with the long tests only (SEMAFOR_LONG_TESTS=1; the Java
# twin, FrozenLeaderTest, runs it with -Dfaults.long=true), to keep the default build within 15
# minutes (docs/decisions/0056)
LONG = pytest.mark.skipif(not os.environ.get("SEMAFOR_LONG_TESTS"),
                          reason="a 30 s freeze: set SEMAFOR_LONG_TESTS=1")


@pytest.mark.parametrize("frozen_for", [FROZEN_FOR, pytest.param(30.0, marks=LONG)],
                         ids=["5s", "30s-past-the-ttl"])
def test_a_frozen_leader_is_left_by_idle_and_waiting_clients_within_the_bound_and_nothing_is_lost(
        cluster, frozen_for):
    servers_ = cluster.servers
    with semafor.connect(servers_, client_name="holder", session_ttl=3) as holder, \
            semafor.connect(servers_, client_name="waiter", session_ttl=3) as waiter, \
            semafor.connect(servers_, client_name="giver", session_ttl=3) as giver:
        held_name, gate_name = unique("held"), unique("gate")
        held = giver.create(held_name, 2, capacity=2)
        gate = giver.create(gate_name, 0, capacity=1)
        permit = holder.semaphore(held_name).acquire(1, timeout=5)
        sessions = (holder.session_id, waiter.session_id, giver.session_id)
        w = Waiter(waiter.semaphore(gate_name), timeout=30.0)
        until(lambda: len(gate.inspect().queue) == 1, 10.0, "the waiter is queued")
        leader = cluster.leader()
        frozen_at = cluster.addresses[leader]
        assert {on(holder), on(waiter), on(giver)} == {frozen_at}
        node = cluster.nodes[leader]
        t0 = time.monotonic()
        node.freeze()
        try:
            gate.increment(1)  # the giver waits for this answer too
            given = time.monotonic() - t0
            assert w.done.wait(10.0), "the waiter was not granted within 10 s of the freeze"
            granted = w.returned_at - t0
            until(lambda: on(holder) not in (None, frozen_at), 10.0, "the idle holder moved")
            moved = time.monotonic() - t0
            print(f"\nleader {leader} frozen {frozen_for:.0f} s: increment answered after {given:.2f} s, waiter granted "
                  f"after {granted:.2f} s, idle holder on the new leader after {moved:.2f} s")
            remaining = frozen_for - (time.monotonic() - t0)
            if remaining > 0:
                time.sleep(remaining)
        finally:
            node.thaw()
        assert w.error is None, w.error
        assert max(given, granted, moved) < SERVED_WITHIN
        assert (holder.session_id, waiter.session_id, giver.session_id) == sessions
        g = gate.inspect()
        assert g.status.value == 0 and not g.queue  # the increment applied once, granted once
        assert [(x.session_id, x.owned) for x in g.holders] == [(waiter.session_id, 1)]
        h = held.inspect()
        assert h.status.value == 1
        assert [(x.session_id, x.owned) for x in h.holders] == [(holder.session_id, 1)]
        permit.release()
        w.result.release()
        assert held.get().value == 2 and gate.get().value == 1
