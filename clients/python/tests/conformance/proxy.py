"""The per-actor TCP proxy the kit's environment steps act on (conformance/README.md §7.3).

One :class:`ActorProxy` on 127.0.0.1 in front of the server for each actor: ``cut`` drops the
actor's connections and refuses new ones until ``restore``; ``deafen`` holds what the server
sends it; ``freeze`` holds its traffic both ways, as for a stopped process; ``thaw`` delivers
what was held, in order; ``kill`` drops its connections for good. A held direction is held by
no longer reading it, so the bytes stay queued in the sockets, in order. When one direction of a
connection ends only that direction is shut down, so a server's last frame (a ``Fatal
SESSION_EXPIRED`` after a freeze) still reaches the client."""

from __future__ import annotations

import socket
import threading
from typing import List, Tuple

OPEN, CUT, DEAF, FROZEN, DEAD = "open", "cut", "deaf", "frozen", "dead"


class ActorProxy:
    """Forwards ``127.0.0.1:<port>`` (``address``) to ``upstream`` (``host:port``)."""

    def __init__(self, upstream: str, actor: str) -> None:
        host, port = upstream.rsplit(":", 1)
        self._upstream: Tuple[str, int] = (host, int(port))
        self._listener = socket.socket()
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(16)
        self.address = f"127.0.0.1:{self._listener.getsockname()[1]}"
        self._state = OPEN
        self._changed = threading.Condition()
        self._sockets: List[socket.socket] = []
        self._closed = False
        threading.Thread(target=self._accept, name=f"proxy-accept-{actor}", daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            with self._changed:
                refused = self._state in (CUT, DEAD) or self._closed
            if refused:
                client.close()
                continue
            try:
                server = socket.create_connection(self._upstream, timeout=5)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            for s in (client, server):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._changed:
                self._sockets += [client, server]
            ended = [0]
            for src, dst, to_server in ((client, server, True), (server, client, False)):
                threading.Thread(target=self._pump, args=(src, dst, to_server, ended),
                                 name="proxy-to-server" if to_server else "proxy-to-client",
                                 daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, to_server: bool, ended: List[int]) -> None:
        """Copies one direction; waits while it is held, before reading and again before writing
        what it read, so nothing passes a hold."""
        try:
            while self._flowing(to_server):
                data = src.recv(65536)
                if not data or not self._flowing(to_server):
                    break
                dst.sendall(data)
        except OSError:
            pass  # one side went away
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        with self._changed:
            ended[0] += 1
            both = ended[0] == 2
        if both:
            for s in (src, dst):
                s.close()

    def _flowing(self, to_server: bool) -> bool:
        """Waits while this direction is held; False once the link is cut or dead."""
        with self._changed:
            while self._state == FROZEN or (self._state == DEAF and not to_server):
                self._changed.wait()
            return self._state not in (CUT, DEAD) and not self._closed

    def _set(self, state: str) -> None:
        with self._changed:
            self._state = state
            self._changed.notify_all()

    def _drop(self, state: str) -> None:
        """Drops every connection (what was held with it) and refuses new ones."""
        self._set(state)
        with self._changed:
            sockets, self._sockets = self._sockets, []
        for s in sockets:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def cut(self) -> None:
        self._drop(CUT)

    def restore(self) -> None:
        self._set(OPEN)

    def deafen(self) -> None:
        self._set(DEAF)

    def freeze(self) -> None:
        self._set(FROZEN)

    def thaw(self) -> None:
        self._set(OPEN)

    def kill(self) -> None:
        self._drop(DEAD)

    def release(self) -> None:
        """Lets a held or cut link flow again (to close its client); a killed one stays dead."""
        with self._changed:
            if self._state != DEAD:
                self._state = OPEN
                self._changed.notify_all()

    def close(self) -> None:
        self._closed = True
        self._drop(DEAD)
        try:
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept (Linux)
        except OSError:
            pass
        self._listener.close()
