"""The asyncio client against a real server process (each test runs its own event loop)."""

from __future__ import annotations

import asyncio
import random

import pytest

import semafor.aio
from semafor import SemopOp
from semafor.errors import InvalidArgument


def run(coroutine, timeout=60):
    return asyncio.run(asyncio.wait_for(coroutine, timeout))


def unique(prefix):
    return f"{prefix}-{random.randrange(1 << 40)}"


async def until(condition, timeout=10.0):
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        if await condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"not within {timeout} s")


def test_async_with_acquire_holds_owned_permits_and_gives_them_back(server):
    async def main():
        async with semafor.aio.connect(server.address, session_ttl=3) as c:
            sem = await c.create(unique("jobs"), 2, capacity=2)
            async with sem.acquire(1, timeout=1) as permit:
                assert permit.token > 0 and permit.slot in (1, 2)
                assert (await sem.get()).value == 1
            assert (await sem.get()).value == 2
            with pytest.raises(InvalidArgument):
                await sem.acquire(0)
    run(main())


def test_async_decrement_lease_semop_and_await_zero(server):
    async def main():
        async with semafor.aio.connect(server.address) as c:
            sem = await c.create(unique("d"), 3)
            assert (await sem.decrement(5, timeout=1)).amount == 3
            await sem.increment(1)
            lease = await sem.lease(1, ttl=5, timeout=1)
            assert lease.permit_id and (await sem.get()).leased == 1
            assert await lease.renew(10) > 9
            assert await lease.release() is True
            other = await c.create(unique("o"), 0)
            assert not (await c.semop([SemopOp(sem.name, -1), SemopOp(other.name, -1)], timeout=0.05)).done
            await other.increment(1)
            assert (await c.semop([SemopOp(sem.name, -1), SemopOp(other.name, -1)], timeout=1)).done
            assert await sem.await_zero(1) is True
    run(main())


def test_async_wait_many_reports_partial_grants_to_callbacks(server):
    async def main():
        async with semafor.aio.connect(server.address) as c:
            name = unique("A")
            sem = await c.create(name, 0)
            reported = []
            wm = c.wait_many()
            await wm.add(name, 4, reported.append)
            await wm.add(name, 1, reported.append)  # merged: 5
            await sem.set(4)
            assert await wm.wait(0) == 1 and reported == [4]
            await sem.set(1)
            await wm.add(name, 3, reported.append)
            assert await wm.wait(1) == 1 and reported == [4, 1]
    run(main())


def test_async_watch_tells_the_state_then_each_change(server):
    async def main():
        async with semafor.aio.connect(server.address) as c:
            sem = await c.create(unique("w"), 1)
            async with sem.watch(summary=True) as watch:
                events = watch.__aiter__()
                assert (await events.__anext__()).status.value == 1
                await sem.increment(2)
                assert (await events.__anext__()).status.value == 3
    run(main())


def test_async_watch_and_requests_resume_after_a_dropped_connection(proxy):
    async def main():
        async with semafor.aio.connect(proxy.address, session_ttl=5) as c:
            sem = await c.create(unique("r"), 0)
            session = c.session_id
            async with sem.watch(summary=True) as watch:
                assert (await watch.__anext__()).status.value == 0
                proxy.cut()
                assert await sem.increment(1) == 1
                assert (await watch.__anext__()).status.value == 1
            assert c.session_id == session
    run(main())


def test_cancelling_waiting_tasks_1000_times_leaves_value_at_capacity_and_no_waiter(server):
    async def main():
        async with semafor.aio.connect(server.address) as c, semafor.aio.connect(server.address) as h:
            sem = await c.create(unique("cancel"), 1, capacity=1)
            holder = h.semaphore(sem.name)
            rng = random.Random(11)
            for _ in range(1000):
                permit = await holder.acquire(1, timeout=5)
                waiter = asyncio.ensure_future(sem.acquire(1, timeout=5))
                await asyncio.sleep(rng.uniform(0, 0.003))
                release = asyncio.ensure_future(permit.release())
                await asyncio.sleep(rng.uniform(0, 0.003))
                waiter.cancel()
                await release
                try:
                    got = await waiter
                    await got.release()
                except asyncio.CancelledError:
                    pass

            async def settled():
                s = await sem.get()
                return (s.value, s.waiters, s.owned, s.undelivered) == (1, 0, 0, 0)
            await until(settled)
    run(main(), timeout=120)
