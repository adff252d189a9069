"""A TCP forwarder on loopback in front of the PostgreSQL server, for outages.

A daemon given ``dsn`` (the proxy's port in place of the server's) reaches
the database only through it; ``cut()`` closes its listening socket and
every connection it carries, so the database is unreachable to that daemon
alone, and ``restore()`` listens on the same port again. The shared server
itself is never touched.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from tests.harness import PG_DSN


@dataclass
class PgProxy:
    upstream: tuple[str, int] = ("127.0.0.1", 5432)
    port: int = 0
    _listener: socket.socket | None = None
    _open: list[socket.socket] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def dsn(self) -> str:
        kept = [p for p in PG_DSN.split() if not p.startswith(("host=", "port="))]
        return " ".join(["host=127.0.0.1", f"port={self.port}", *kept])

    def restore(self) -> None:
        if self._listener is not None:
            return
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(32)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            # Shut down first: a close alone leaves a blocked accept() listening.
            try:
                listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            listener.close()
        with self._lock:
            conns, self._open = self._open, []
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._open += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


@contextmanager
def pg_proxy() -> Iterator[PgProxy]:
    proxy = PgProxy()
    proxy.restore()
    try:
        yield proxy
    finally:
        proxy.cut()
