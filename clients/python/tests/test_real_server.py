"""The blocking client against a real server process started from the built jar."""

from __future__ import annotations

import _thread
import os
import random
import signal
import subprocess
import sys
import threading
import time

import pytest

import semafor
from semafor import SemopOp
from semafor.errors import InvalidArgument, NotFound

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(HERE)


def until(condition, timeout=10.0, what="the condition"):
    """Polls ``condition`` every 10 ms for at most ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.01)
    raise AssertionError(f"{what} did not hold within {timeout} s")


@pytest.fixture
def client(server):
    with semafor.connect(server.address, client_name="pytest", session_ttl=3) as c:
        yield c


def unique(prefix):
    return f"{prefix}-{random.randrange(1 << 40)}"


def test_an_owned_permit_carries_token_and_slot_and_goes_back_on_leaving_the_block(client):
    sem = client.create(unique("jobs"), 2, capacity=2)
    with sem.acquire(1, timeout=1) as permit:
        assert permit.token > 0 and permit.slot in (1, 2)
        assert sem.get().value == 1 and sem.get().holders == 1
    assert sem.get().value == 2


def test_try_acquire_returns_none_without_waiting_when_nothing_is_free(client):
    sem = client.create(unique("busy"), 0)
    assert sem.try_acquire(1) is None
    with pytest.raises(semafor.AcquireTimeout):
        sem.acquire(1, timeout=0.05)


def test_bad_input_is_an_error_naming_the_argument_and_changes_nothing(client):
    sem = client.create(unique("bad"), 1)
    with pytest.raises(InvalidArgument) as e:
        sem.acquire(-3, timeout=0)
    assert e.value.argument == "amount" and "amount" in e.value.message
    assert sem.get().value == 1
    with pytest.raises(NotFound):
        client.semaphore(unique("none")).get()
    with pytest.raises(InvalidArgument) as t:
        sem.acquire(1, timeout=-1)
    assert t.value.argument == "timeout"


def test_decrement_takes_what_is_there_as_iris_does(client):
    sem = client.create(unique("iris"), 3)
    grant = sem.decrement(5, timeout=1)
    assert grant.amount == 3 and sem.get().value == 0
    assert sem.decrement(1, timeout=0.05).amount == 0


def test_a_lease_is_delivered_renewed_and_released_by_id_from_another_session(server, client):
    sem = client.create(unique("lease"), 1)
    lease = sem.lease(1, ttl=2, timeout=1)
    assert lease.permit_id and sem.get().leased == 1 and sem.get().undelivered == 0
    assert lease.renew(5) > 4
    with semafor.connect(server.address) as other:
        assert other.lease(lease.permit_id, sem.name).release() is True
    assert sem.get().value == 1


def test_an_auto_renewed_lease_outlives_its_ttl(client):
    sem = client.create(unique("renewed"), 1)
    lease = sem.lease(1, ttl=0.6, auto_renew=True)
    time.sleep(1.5)
    assert sem.get().leases == 1 and lease.renew_error is None
    lease.release()
    assert sem.get().value == 1


def test_semop_takes_from_several_semaphores_at_once_or_not_at_all(client):
    a, b = client.create(unique("a"), 1), client.create(unique("b"), 0)
    result = client.semop([SemopOp(a.name, -1), SemopOp(b.name, -1)], timeout=0.05)
    assert not result.done and a.get().value == 1
    b.increment(1)
    assert client.semop([SemopOp(a.name, -1), SemopOp(b.name, -1)], timeout=1).done
    assert (a.get().value, b.get().value) == (0, 0)


def test_the_iris_eighteen_step_wait_many_example(server, client):
    name = unique("A")
    client.create(name, 0)  # 1
    with semafor.connect(server.address) as setter:
        s = setter.semaphore(name)
        reported = []
        wm = client.wait_many()
        wm.add(name, 4, reported.append)  # 2
        wm.add(name, 1, reported.append)  # 3: merged, 5
        s.set(4)  # 4, 5: 4 granted
        assert wm.wait(0) == 1 and reported == [4]  # 6
        s.set(1)  # 7
        wm.add(name, 3, reported.append)  # 8, 9: 1 granted
        wm.add(name, 4, reported.append)  # 10: waits
        assert wm.wait(0) == 1 and reported == [4, 1]  # 11: reports 1, pending 4 cancelled
        s.set(1)  # 12
        wm.add(name, 3, reported.append)  # 13, 14: 1 granted
        wm.add(name, 4, reported.append)  # 15: waits
        s.set(5)  # 16, 17: 4 granted
        assert wm.wait(0) == 1 and reported == [4, 1, 5]  # 18: reports 5
        assert s.get().value == 1


def test_await_zero_returns_once_the_value_reaches_zero(client):
    sem = client.create(unique("zero"), 1)
    assert sem.await_zero(0.05) is False
    threading.Timer(0.1, lambda: sem.set(0)).start()
    assert sem.await_zero(5) is True


def test_a_watch_tells_the_state_then_each_change(client):
    sem = client.create(unique("watched"), 1)
    with sem.watch(summary=True) as watch:
        first = watch.get(5)
        assert first.kind == "CHANGED" and first.status.value == 1
        sem.increment(2)
        assert watch.get(5).status.value == 3


def test_a_holder_killed_with_kill_9_gives_its_permits_back_within_its_ttl(server, client):
    sem = client.create(unique("killed"), 1)
    script = (
        "import sys, time, semafor\n"
        f"sys.path.insert(0, {PACKAGE!r})\n"
        f"c = semafor.connect({server.address!r}, session_ttl=1)\n"
        f"p = c.semaphore({sem.name!r}).acquire(1, timeout=10)\n"
        "print('held', flush=True)\n"
        "time.sleep(60)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                              env={**os.environ, "PYTHONPATH": PACKAGE})
    try:
        assert holder.stdout.readline().strip() == b"held"
        assert sem.get().value == 0
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(10)
        killed = time.monotonic()
        permit = sem.acquire(1, timeout=5)
        assert time.monotonic() - killed <= 1 + 1.5  # its TTL, and the server's expiry tick
        permit.release()
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(10)


def test_a_dropped_connection_resumes_and_a_retried_request_is_applied_once(proxy):
    with semafor.connect(proxy.address, session_ttl=5) as c:
        sem = c.create(unique("once"), 0)
        session = c.session_id
        time.sleep(0.05)  # the create's acknowledgement has gone
        proxy.cut_after_next_request()
        assert sem.increment(1) == 1  # applied, answer lost, sent again after the resume
        assert proxy.cuts == 1 and c.session_id == session
        assert sem.get().value == 1


def test_a_watch_resumes_after_a_dropped_connection_without_losing_a_change(proxy):
    with semafor.connect(proxy.address, session_ttl=5) as c:
        sem = c.create(unique("resumed"), 0)
        with sem.watch(summary=True) as watch:
            assert watch.get(5).status.value == 0
            proxy.cut()
            sem.increment(1)  # waits for the reconnect
            values = []
            while not values or values[-1] != 1:
                event = watch.get(5)
                assert event is not None, "no event after the reconnect"
                values.append(event.status.value)
            assert values == [1]


CANCEL_CYCLES = 1000  # issue 32 item 4


def test_cancel_cycles_leave_the_value_at_capacity_and_no_waiter(server, client):
    """1,000 waits interrupted (KeyboardInterrupt) while another session's release races them."""
    sem = client.create(unique("cancel"), 1, capacity=1)
    with semafor.connect(server.address) as holder_client:
        holder = holder_client.semaphore(sem.name)
        rng = random.Random(7)
        kept = 0
        for _ in range(CANCEL_CYCLES):
            permit = holder.try_acquire(1, timeout=5)
            assert permit is not None, (sem.inspect(), client.session_id, holder_client.session_id, kept)
            fired = threading.Event()

            def interrupt():
                _thread.interrupt_main()
                fired.set()

            timers = [threading.Timer(rng.uniform(0, 0.004), permit.release),
                      threading.Timer(rng.uniform(0, 0.004), interrupt)]
            got = None
            try:
                try:
                    for t in timers:
                        t.start()
                    got = sem.acquire(1, timeout=5)
                finally:
                    fired.wait(5)  # the interrupt lands in here if it has not yet
                    time.sleep(0.002)
            except KeyboardInterrupt:
                pass
            if got is not None:  # handed over before the interrupt: the caller's to release
                got.release()
                kept += 1
            for t in timers:
                t.join(5)
        until(lambda: sem.get().value == 1 and sem.get().waiters == 0, 10, "value = capacity")
        status = sem.get()
        assert (status.value, status.waiters, status.owned, status.undelivered) == (1, 0, 0, 0)


def test_a_session_that_expires_while_its_process_is_stopped_fails_its_waiting_call_and_a_new_one_opens(server, client):
    held, gate = client.create(unique("stopped"), 1), client.create(unique("gate"), 0)
    script = (
        "import semafor\n"
        f"c = semafor.connect({server.address!r}, session_ttl=2)\n"
        "lost = []\n"
        "c.on_session_lost(lambda e: lost.append(e.code.name))\n"
        f"p = c.semaphore({held.name!r}).acquire(1, timeout=10)\n"
        "print('held', c.session_id, flush=True)\n"
        "try:\n"
        f"    c.semaphore({gate.name!r}).acquire(1, timeout=60)\n"
        "    print('granted', flush=True)\n"
        "except semafor.errors.SemaforError as e:\n"
        "    print('failed', e.code.name, type(e).__name__, flush=True)\n"
        "p.release()  # its session ended: it went back already, nothing is sent\n"
        f"q = c.semaphore({held.name!r}).acquire(1, timeout=10)\n"
        "print('again', c.session_id, ','.join(lost), flush=True)\n"
        "q.release()\n"
        "c.close()\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                              env={**os.environ, "PYTHONPATH": PACKAGE})
    stopped = False
    try:
        first = holder.stdout.readline().split()
        assert first[0] == b"held", first
        until(lambda: gate.get().waiters == 1, 10, "the holder waits on the gate")
        os.kill(holder.pid, signal.SIGSTOP)
        stopped = True
        until(lambda: held.get().value == 1 and gate.get().waiters == 0, 2 + 3,
              "the stopped holder's session expired")
        os.kill(holder.pid, signal.SIGCONT)
        stopped = False
        assert holder.stdout.readline().split() == [b"failed", b"SESSION_EXPIRED", b"SessionExpired"]
        again = holder.stdout.readline().split()
        assert again[0] == b"again" and again[1] != first[1], (first, again)
        assert again[2:] == [b"SESSION_EXPIRED"]  # on_session_lost was told
        assert holder.wait(10) == 0
        assert held.get().value == 1 and gate.get().value == 0 and gate.get().waiters == 0
    finally:
        if stopped:
            os.kill(holder.pid, signal.SIGCONT)
        if holder.poll() is None:
            holder.kill()
            holder.wait(10)
