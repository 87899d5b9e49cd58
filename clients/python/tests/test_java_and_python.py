"""Java clients (``semafor acquire --hold`` processes from the built jar) and Python clients
contending for one permit of a FIFO semaphore on a real server: grants follow arrival."""

from __future__ import annotations

import random
import re
import signal
import subprocess
import threading
import time

import pytest

import semafor
import servers

TOKEN = re.compile(rb"holding 1 of \S+ \(slots \[[0-9, ]*\], token ([0-9]+)\)")


def until(condition, timeout, what):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.01)
    raise AssertionError(f"{what} did not hold within {timeout} s")


class JavaHolder:
    """``semafor acquire NAME --hold``: waits in the queue, prints its token once granted, and
    gives the permit back when interrupted (it closes its session on the way out)."""

    def __init__(self, name, server):
        self.label = "java"
        self.proc = subprocess.Popen(
            ["java", "-Xmx64m", "-XX:TieredStopAtLevel=1", "-jar", servers.JAR, "acquire", name,
             "--hold", "--server", server], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.token = None
        self.lines = []
        self.granted = threading.Event()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.append(line)
            m = TOKEN.search(line)
            if m:
                self.token = int(m.group(1))
                self.granted.set()

    def release(self):
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(20)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


class PythonHolder:
    """A Python client of its own (its own session) waiting in ``acquire`` on a thread."""

    def __init__(self, name, server):
        self.label = "python"
        self.client = semafor.connect(server, client_name="fifo-python")
        self.token = None
        self.permit = None
        self.error = None
        self.granted = threading.Event()
        threading.Thread(target=self._run, args=(name,), daemon=True).start()

    def _run(self, name):
        try:
            self.permit = self.client.semaphore(name).acquire(1, timeout=120)
            self.token = self.permit.token
        except BaseException as e:  # reported by the test
            self.error = e
        self.granted.set()

    def release(self):
        self.permit.release()

    def stop(self):
        self.client.close()


def test_java_and_python_clients_are_granted_one_permit_in_their_order_of_arrival(server):
    with semafor.connect(server.address, client_name="fifo-observer") as observer:
        name = f"fifo-{random.randrange(1 << 40)}"
        sem = observer.create(name, 0, capacity=1)
        kinds = [JavaHolder, PythonHolder] * 3
        holders, arrival = [], {}  # session id -> holder
        try:
            for kind in kinds:
                seen = {w.session_id for w in sem.inspect().queue}
                h = kind(name, server.address)
                holders.append(h)
                until(lambda: len(sem.inspect().queue) == len(seen) + 1, 60.0,
                      f"the {h.label} client queued")
                (entry,) = [w for w in sem.inspect().queue if w.session_id not in seen]
                arrival[entry.session_id] = (entry.sequence, h)
            queue = sem.inspect().queue
            assert [w.sequence for w in queue] == sorted(w.sequence for w in queue)
            order = [arrival[w.session_id][1] for w in queue]
            assert order == holders  # the queue is the order they were started in
            sem.increment(1)
            granted = []
            for _ in holders:  # one permit passed along: each holder gives it back once granted
                until(lambda: sum(h.granted.is_set() for h in holders) > len(granted), 30.0,
                      "the next grant")
                (h,) = [h for h in holders if h.granted.is_set() and h not in granted]
                assert h.token is not None, getattr(h, "error", None) or h.lines
                granted.append(h)
                h.release()
            assert granted == order, [x.label for x in granted]
            tokens = [h.token for h in granted]
            assert tokens == sorted(tokens) and len(set(tokens)) == len(tokens)
            print("\ngrants in arrival order:", ", ".join(f"{h.label} token {h.token}" for h in granted))
        finally:
            for h in holders:
                h.stop()
        until(lambda: sem.get().value == 1 and sem.get().waiters == 0, 20.0, "the permit is back")
