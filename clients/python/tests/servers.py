"""Real Semafor server processes for the tests, started from the built jar, and a TCP proxy that
can cut connections. Every process started here is stopped by the caller's fixture, also on
failure; every wait is bounded."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import threading
import time
from typing import List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
JAR = os.environ.get("SEMAFOR_JAR") or os.path.join(REPO, "semafor-cli", "target", "semafor.jar")
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
            ["java", "-Xmx256m", "-jar", JAR, "server", *args],
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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
