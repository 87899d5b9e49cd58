"""Real Semafor server processes for the tests, started from the built jar, and a TCP proxy that
can cut connections. Every process started here is stopped by the caller's fixture, also on
failure; every wait is bounded."""

from __future__ import annotations

import fcntl
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from typing import Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
JAR = os.environ.get("SEMAFOR_JAR") or os.path.join(REPO, "semafor-cli", "target", "semafor.jar")
# C1 only and the serial collector: a short-lived test server needs half the CPU with them, and CPU
# bounds the default build on 2 cores (docs/decisions/0056); as the Java tests' servers start
JVM_OPTIONS = ("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")
LISTENING = re.compile(rb"semafor server listening on ([0-9.]+):([0-9]+)")


def missing() -> Optional[str]:
    """Why real-server tests cannot run here, or None."""
    if shutil.which("java") is None:
        return "java is not on PATH"
    if not os.path.exists(JAR):
        return f"{JAR} is missing: build it with mvn -B -q -o package -DskipTests -pl semafor-cli -am, or set SEMAFOR_JAR"
    return None


class Server:
    """One ``semafor server`` process; ``address`` once it listens."""

    def __init__(self, *args: str, timeout: float = 60.0) -> None:
        self.args = list(args)
        self.proc = subprocess.Popen(
            ["java", *JVM_OPTIONS, "-jar", JAR, "server", *args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.output: List[bytes] = []
        self._listening = threading.Event()
        self.address = ""
        threading.Thread(target=self._pump, daemon=True).start()
        if not self._listening.wait(timeout):
            self.stop()
            raise RuntimeError(f"the server did not listen within {timeout} s: {b''.join(self.output)[-2000:]!r}")

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output.append(line)
            m = LISTENING.search(line)
            if m and not self._listening.is_set():
                self.address = f"{m.group(1).decode()}:{m.group(2).decode()}"
                self._listening.set()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


_PORT_LOCKS = os.path.join(tempfile.gettempdir(), "semafor-ports")
_held_ports: Dict[int, object] = {}  # port -> its open lock file, held for this process's life


def free_port() -> int:
    """A port for a server started later (a cluster's members must know each other's ports before
    any listens), as the Java tests' ``io.semafor.embedded.FreePorts`` picks one: below the kernel's
    ephemeral range (from 32768), where outgoing connections take their local ports, so none can
    take it between the pick and the server's bind; and locked with ``lockf`` (the same ``fcntl``
    locks as Java's ``FileChannel.tryLock``) in the same directory, so that no other test process,
    Python or Java, picks it meanwhile."""
    os.makedirs(_PORT_LOCKS, exist_ok=True)
    for _ in range(500):
        port = random.randrange(20_000, 32_000)
        if port in _held_ports:
            continue
        f = open(os.path.join(_PORT_LOCKS, str(port)), "a")
        try:
            fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.close()  # another process holds it
            continue
        _held_ports[port] = f
        with socket.socket() as probe:
            try:
                probe.bind(("0.0.0.0", port))
            except OSError:
                continue  # in use by something else; keep it locked, try another
        return port
    raise RuntimeError("no free port in 20000..31999 after 500 tries")


class Proxy:
    """Forwards 127.0.0.1:port to ``upstream``; ``cut()`` closes every connection now;
    ``cut_after_next_request()`` forwards the client's next bytes, lets the server apply them,
    and cuts before any answer goes back."""

    def __init__(self, upstream: str) -> None:
        host, port = upstream.rsplit(":", 1)
        self.upstream = (host, int(port))
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.address = f"127.0.0.1:{self.listener.getsockname()[1]}"
        self._pairs: List[socket.socket] = []
        self._lock = threading.Lock()
        self._cut_next = False
        self._drop_down = False
        self.cuts = 0
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.listener.accept()
                server = socket.create_connection(self.upstream, timeout=5)
            except OSError:
                return
            server.settimeout(None)
            for s in (client, server):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                self._pairs += [client, server]
            threading.Thread(target=self._pump, args=(client, server, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, False), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, upstream: bool) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if not upstream and self._drop_down:
                    continue  # the answer is lost
                cutting = upstream and self._cut_next and len(data) > 8
                if cutting:
                    self._cut_next = False
                    self._drop_down = True
                dst.sendall(data)
                if cutting:
                    time.sleep(0.2)  # the server applies it and answers into the void
                    self.cut()
                    self._drop_down = False
                    return
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.close()
            except OSError:
                pass

    def cut_after_next_request(self) -> None:
        self._cut_next = True

    def cut(self) -> None:
        with self._lock:
            pairs, self._pairs = self._pairs, []
            self.cuts += 1
        for s in pairs:
            try:
                s.shutdown(socket.SHUT_RDWR)
                s.close()
            except OSError:
                pass

    def close(self) -> None:
        self._closed = True
        self.listener.close()
        self.cut()


class Cluster:
    """Three ``semafor server`` processes forming one Raft group on free 127.0.0.1 ports, each
    with its own data directory under ``root``. ``stop()`` ends every one of them by its PID (a
    frozen one is thawed first), also when the start failed."""

    def __init__(self, root: str, size: int = 3, timeout: float = 60.0) -> None:
        ids = [f"n{i + 1}" for i in range(size)]
        ports = {i: (free_port(), free_port()) for i in ids}
        peers = ",".join(f"{i}=127.0.0.1:{c}:{r}" for i, (c, r) in ports.items())
        self.addresses = {i: f"127.0.0.1:{ports[i][0]}" for i in ids}
        self.nodes: dict = {}
        try:
            for i in ids:
                self.nodes[i] = _Node(i, peers, os.path.join(root, i))
            for node in self.nodes.values():
                node.wait_listening(timeout)
        except BaseException:
            self.stop()
            raise

    @property
    def servers(self) -> str:
        """Every client address, comma separated (what a client is given)."""
        return ",".join(self.addresses.values())

    def leader(self, timeout: float = 20.0, exclude: Optional[str] = None) -> str:
        """The id of the node that accepts sessions (found by asking each live node with a Hello:
        a follower refuses it with NOT_LEADER and names the leader; the leader welcomes it, and
        the probe's session is closed at once)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for i, address in self.addresses.items():
                if i == exclude or not self.nodes[i].running:
                    continue
                found = _ask_leader(address)
                if found is None:
                    continue
                for j, a in self.addresses.items():
                    if a == found and j != exclude:
                        return j
            time.sleep(0.1)
        raise AssertionError(f"no leader (other than {exclude}) within {timeout} s")

    def stop(self) -> None:
        for node in self.nodes.values():
            node.stop()


class _Node:
    def __init__(self, node_id: str, peers: str, data_dir: str) -> None:
        self.id = node_id
        self.proc = subprocess.Popen(
            ["java", *JVM_OPTIONS, "-jar", JAR, "server", "--node-id", node_id, "--peers", peers,
             "--data-dir", data_dir, "--admin-port", "-1", "--http-port", "-1"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.output: List[bytes] = []
        self._listening = threading.Event()
        self.frozen = False
        threading.Thread(target=self._pump, daemon=True).start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def running(self) -> bool:
        return self.proc.poll() is None and not self.frozen

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output.append(line)
            if LISTENING.search(line):
                self._listening.set()

    def wait_listening(self, timeout: float) -> None:
        if not self._listening.wait(timeout):
            raise RuntimeError(f"{self.id} did not listen within {timeout} s: "
                               f"{b''.join(self.output)[-2000:]!r}")

    def kill(self) -> None:
        """SIGKILL, and reaps it."""
        self.proc.kill()
        self.proc.wait(10)

    def freeze(self) -> None:
        os.kill(self.proc.pid, signal.SIGSTOP)
        self.frozen = True

    def thaw(self) -> None:
        if self.frozen and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)
        self.frozen = False

    def stop(self) -> None:
        self.thaw()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


def _ask_leader(address: str) -> Optional[str]:
    """The leader's client address as ``address`` says it (itself if it welcomes), or None."""
    from semafor._codec import FrameDecoder, encode
    from semafor._proto import semafor_pb2 as pb

    host, port = address.rsplit(":", 1)
    try:
        with socket.create_connection((host, int(port)), timeout=1.0) as s:
            s.settimeout(1.0)
            s.sendall(encode(pb.ClientFrame(hello=pb.Hello(
                protocol_version=1, session_ttl_ns=1_000_000_000, client_name="leader-probe"))))
            decoder = FrameDecoder()
            for _ in range(20):
                data = s.recv(65536)
                if not data:
                    return None
                for frame in decoder.feed(data):
                    if frame.HasField("welcome"):
                        w = frame.welcome
                        if w.HasField("failure"):
                            return w.failure.leader or None
                        s.sendall(encode(pb.ClientFrame(request=pb.Request(
                            id=1, close_session=pb.CloseSession()))))
                        return address
                    if frame.HasField("fatal"):
                        return frame.fatal.failure.leader or None
    except OSError:
        return None
    return None
