"""The operations of the protocol the conformance kit showed the Python client lacked, against a
real server: whether ``create`` made the semaphore, a consumed all-or-nothing ``take`` (the
protocol's ``acquire`` without ``owned``), and ``release_slot``. Blocking and asyncio."""

from __future__ import annotations

import asyncio
import random

import pytest

import semafor
import semafor.aio
from semafor.errors import InvalidArgument


def unique(prefix):
    return f"{prefix}-{random.randrange(1 << 40)}"


@pytest.fixture
def client(server):
    with semafor.connect(server.address, client_name="kit-ops") as c:
        yield c


def test_create_tells_whether_it_made_the_semaphore_or_found_it(client):
    name = unique("created")
    assert client.create(name, 1).created is True
    assert client.create(name, 5).created is False
    assert client.semaphore(name).get().value == 1
    assert client.semaphore(name).created is None


def test_take_is_all_or_nothing_and_consumed(client):
    sem = client.create(unique("take"), 2)
    assert sem.take(3, timeout=0).amount == 0  # not 2 of 3: nothing
    grant = sem.take(2, timeout=0)
    assert (grant.amount, grant.token > 0) == (2, True)
    s = sem.get()
    assert (s.value, s.holders, s.owned) == (0, 0, 0)  # consumed: no session owns them
    sem.increment(2)
    assert sem.get().value == 2


def test_take_of_more_than_the_capacity_is_invalid_argument_naming_amount(client):
    sem = client.create(unique("take"), 1, capacity=2)
    with pytest.raises(InvalidArgument) as e:
        sem.take(3, timeout=None)
    assert e.value.argument == "amount"


def test_release_slot_gives_back_the_permit_holding_that_slot(client):
    sem = client.create(unique("slots"), 3, capacity=3)
    permits = [sem.acquire(1, timeout=0) for _ in range(3)]
    assert [p.slots for p in permits] == [(1,), (2,), (3,)]
    assert sem.release_slot(2) == 1
    d = sem.inspect()
    assert d.status.value == 1 and [h.slots for h in d.holders] == [(1, 3)]
    assert sem.acquire(1, timeout=0).slots == (2,)  # the lowest free slot again


def test_release_slot_of_a_slot_not_held_is_invalid_argument(client):
    sem = client.create(unique("slots"), 2, capacity=2)
    with pytest.raises(InvalidArgument):
        sem.release_slot(1)
    assert sem.get().value == 2


def test_the_asyncio_client_has_the_same_operations(server):
    async def main():
        async with semafor.aio.connect(server.address, client_name="kit-ops-aio") as c:
            name = unique("aio")
            sem = await c.create(name, 2, capacity=2)
            assert sem.created is True and (await c.create(name, 0)).created is False
            permit = await sem.try_acquire(1, timeout=0)
            assert permit.slots == (1,)
            assert (await sem.take(2, timeout=0)).amount == 0  # 1 is free: nothing
            assert (await sem.take(1, timeout=0)).amount == 1  # consumed: no slot
            assert await sem.release_slot(1) == 1
            s = await sem.get()
            assert (s.value, s.holders) == (1, 0)  # slot 1 back; the taken one is gone
    asyncio.run(main())
