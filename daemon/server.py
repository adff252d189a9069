"""Sockets and connections: who may connect, how long they may take, how they stop.

Owns: the two Unix listeners (``agent.sock``, ``control.sock``), the peer-uid
check on accept, the per-socket connection cap, idle and mid-frame timeouts,
one-request-at-a-time handling per connection, and graceful shutdown.

Invariants:
- a peer whose uid is not allowed is closed before any byte is read;
- a stalled or half-sent client only ever costs its own connection: every read
  and write on a connection is bounded by a timeout, and connections are served
  concurrently;
- only ``frame_too_large``, the connection limits and the timeouts close a
  connection from our side; any other error is answered and the connection
  stays open;
- a connection is idle from its last request: blank lines (never answered)
  do not keep it open past ``idle_timeout_s``, whichever uid sends them;
- on shutdown, listeners close first, requests in flight finish (bounded by
  ``shutdown_grace_s``), then idle connections are dropped.
"""

from __future__ import annotations

import grp
import math
import os
import secrets
import socket
import struct
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import structlog
from anyio.abc import SocketAttribute, SocketListener, SocketStream

from memoryd.daemon.config import Config
from memoryd.daemon.home import check_socket_paths
from memoryd.rpc.errors import connection_error_line
from memoryd.rpc.framing import (
    CLOSED,
    NEED_DATA,
    FrameReader,
    FrameTooLarge,
    IncompleteFrame,
    is_blank,
)
from memoryd.rpc.protocol import CallContext, Dispatcher

log = structlog.get_logger()

_PEERCRED = struct.Struct("3i")


@dataclass
class Listener:
    channel: str
    path: Path
    dispatcher: Dispatcher
    allowed_uids: frozenset[int]
    allowed_gid: int | None
    active: int = 0
    per_uid: dict[int, int] = field(default_factory=dict)
    listener: SocketListener | None = None


@dataclass
class Server:
    config: Config
    listeners: list[Listener]
    stopping: anyio.Event = field(default_factory=anyio.Event)
    _idle_scopes: set[anyio.CancelScope] = field(default_factory=set)
    _busy: int = 0
    _all_idle: anyio.Event = field(default_factory=anyio.Event)
    # Told each connection's id when it closes (what it presented goes with it).
    on_close: Callable[[str], None] | None = None

    async def open(self) -> None:
        # Every path is checked before any socket exists, so a refusal never
        # leaves one socket of the pair behind.
        check_socket_paths(*(item.path for item in self.listeners))
        for item in self.listeners:
            # Created 0600 under umask 077; widened only after the group is set,
            # so the socket is never open to the daemon's own primary group.
            item.listener = await anyio.create_unix_listener(item.path, mode=0o600)
            if item.channel == "agent" and item.allowed_gid is not None:
                _open_to_group(item.path, item.allowed_gid)
            log.info("listening", channel=item.channel)

    async def serve(self, on_ready: Callable[[], None] | None = None) -> None:
        await self.open()
        if on_ready is not None:
            on_ready()
        async with anyio.create_task_group() as tg:
            for item in self.listeners:
                tg.start_soon(self._accept_loop, item, tg)
            await self.stopping.wait()
            log.info("stopping")
            for item in self.listeners:
                if item.listener is not None:
                    await item.listener.aclose()
                    # Ours (the home's lock is held): a clean stop leaves no
                    # socket for a client to find and be refused by.
                    item.path.unlink(missing_ok=True)
            # Idle connections hold no request: drop them now.
            for scope in list(self._idle_scopes):
                scope.cancel()
            with anyio.move_on_after(self.config.shutdown_grace_s):
                while self._busy:
                    self._all_idle = anyio.Event()
                    await self._all_idle.wait()
            tg.cancel_scope.cancel()

    def stop(self) -> None:
        self.stopping.set()

    async def _accept_loop(self, item: Listener, tg: anyio.abc.TaskGroup) -> None:
        assert item.listener is not None
        while not self.stopping.is_set():
            try:
                stream = await item.listener.accept()
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return
            except OSError as exc:
                # EMFILE and friends: back off instead of spinning.
                log.warning("accept_failed", channel=item.channel, errno=exc.errno)
                await anyio.sleep(0.1)
                continue
            tg.start_soon(self._connection, item, stream)

    def _per_uid_cap(self) -> int:
        cap = self.config.max_connections_per_uid
        return cap if cap is not None else max(1, self.config.max_connections // 2)

    def _peer(self, stream: SocketStream) -> tuple[int, int, int]:
        raw: socket.socket = stream.extra(SocketAttribute.raw_socket)  # noqa: S610 (anyio, not SQL)
        pid, uid, gid = _PEERCRED.unpack(
            raw.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size)
        )
        return pid, uid, gid

    def _allowed(self, item: Listener, uid: int, gid: int) -> bool:
        if uid == os.geteuid():
            return True
        if item.channel != "agent":
            return False
        if uid in item.allowed_uids:
            return True
        if item.allowed_gid is not None:
            return gid == item.allowed_gid or _in_group(uid, item.allowed_gid)
        return False

    async def _connection(self, item: Listener, stream: SocketStream) -> None:
        conn_id = "conn_" + secrets.token_hex(6)
        async with stream:
            try:
                pid, uid, gid = self._peer(stream)
            except OSError:
                return
            if not self._allowed(item, uid, gid):
                log.warning("peer_refused", channel=item.channel, peer_uid=uid, conn_id=conn_id)
                return
            if item.active >= self.config.max_connections:
                log.warning("connection_limit", channel=item.channel, conn_id=conn_id)
                with anyio.move_on_after(1):
                    await stream.send(connection_error_line("too_many_connections"))
                return
            if (item.channel == "agent" and uid != os.geteuid()
                    and item.per_uid.get(uid, 0) >= self._per_uid_cap()):
                log.warning("connection_limit_per_uid", channel=item.channel, peer_uid=uid,
                            conn_id=conn_id)
                with anyio.move_on_after(1):
                    await stream.send(connection_error_line("too_many_connections"))
                return
            item.active += 1
            item.per_uid[uid] = item.per_uid.get(uid, 0) + 1
            try:
                ctx = CallContext(
                    channel=item.channel, peer_uid=uid, peer_pid=pid, conn_id=conn_id
                )
                with structlog.contextvars.bound_contextvars(conn_id=conn_id):
                    await self._serve_connection(item, stream, ctx)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                pass
            finally:
                item.active -= 1
                item.per_uid[uid] -= 1
                if not item.per_uid[uid]:
                    del item.per_uid[uid]
                if self.on_close is not None:
                    self.on_close(conn_id)

    async def _serve_connection(
        self, item: Listener, stream: SocketStream, ctx: CallContext
    ) -> None:
        """Frames in, replies out, one request at a time, on the stream's own
        socket: read and written directly, waiting on the loop only when it
        must (``anyio.wait_readable`` / ``wait_writable``).

        One cancel scope spans the connection: its deadline bounds whichever
        wait is under way (the next frame's first bytes within
        ``idle_timeout_s``, the rest of a frame and a reply's sending within
        ``frame_timeout_s``) and is off while nothing waits; it is shielded
        while a request runs, so a request that has been read is finished
        even during shutdown. The stream's own ``receive`` and ``send`` cost
        a turn of the loop each (a checkpoint) and a timer per request, and
        a scope per wait: this is the same bounds for one scope per
        connection and a deadline moved when a wait begins and ends."""
        sock: socket.socket = stream.extra(SocketAttribute.raw_socket)  # noqa: S610 (anyio, not SQL)
        reader = FrameReader(self.config.max_frame_bytes)
        dispatcher = item.dispatcher
        watch = anyio.CancelScope()
        # What the connection waits for when ``watch`` runs out (or shutdown
        # cancels it while idle): names the log line.
        phase = "idle"
        # When an idle connection closes: idle_timeout_s after it opened or
        # after its last request. A blank line is not a request (nothing is
        # answered), so it does not move this: keepalives hold no slot.
        idle_until = anyio.current_time() + self.config.idle_timeout_s
        with watch:
            while not self.stopping.is_set():
                if not reader.pending:
                    # Idle phase: wait for the first bytes of the next frame.
                    # One read takes whatever has arrived (nearly always the
                    # whole frame).
                    phase = "idle"
                    chunk = _recv(sock)
                    if chunk is None:
                        watch.deadline = idle_until
                        self._idle_scopes.add(watch)
                        try:
                            await anyio.wait_readable(sock)
                            chunk = await _recv_waiting(sock)
                        finally:
                            self._idle_scopes.discard(watch)
                            watch.deadline = math.inf
                        if watch.cancel_called:
                            # The deadline (or shutdown) came in the same turn
                            # of the loop as the bytes: the connection was
                            # still idle when it did, and closes.
                            break
                    reader.receive_data(chunk)
                try:
                    frame = reader.next_frame()
                    if frame is NEED_DATA:
                        # Frame phase: the rest of the frame must arrive
                        # within frame_timeout_s. A frame that came whole is
                        # taken without waiting, and without arming a timer
                        # for a wait that cannot happen.
                        phase = "frame"
                        watch.deadline = anyio.current_time() + self.config.frame_timeout_s
                        while frame is NEED_DATA:
                            reader.receive_data(await _recv_waiting(sock))
                            frame = reader.next_frame()
                        watch.deadline = math.inf
                        if watch.cancel_called:
                            break  # the frame's time ran out as its last bytes came
                except FrameTooLarge:
                    # Refused whether it came in one read or many; what is
                    # left of it is still coming, so the connection cannot be
                    # resynchronised.
                    log.info("frame_too_large", channel=item.channel)
                    with anyio.move_on_after(self.config.frame_timeout_s):
                        await stream.send(connection_error_line("frame_too_large"))
                    return
                except IncompleteFrame:
                    return  # the peer closed in the middle of a frame
                if frame is CLOSED:
                    return  # the peer closed between frames
                assert isinstance(frame, bytes)
                if is_blank(frame):
                    # Not answered, and not use of the connection: a stream
                    # of them that never lets it wait is still cut in time.
                    if anyio.current_time() >= idle_until:
                        log.info(_TIMED_OUT["idle"], channel=item.channel)
                        return
                    continue
                self._busy += 1
                # A request that has been read is finished even during shutdown.
                watch.shield = True
                try:
                    reply = await dispatcher.handle_frame(frame, ctx)
                    if reply is not None:
                        phase = "send"
                        await self._send(sock, watch, reply + b"\n")
                finally:
                    watch.shield = False
                    self._busy -= 1
                    if not self._busy:
                        self._all_idle.set()
                    idle_until = anyio.current_time() + self.config.idle_timeout_s
                if watch.cancel_called:
                    break  # the reply's time ran out as its last bytes went
        if watch.cancel_called:
            log.info(_TIMED_OUT[phase], channel=item.channel)

    async def _send(self, sock: socket.socket, watch: anyio.CancelScope, data: bytes) -> None:
        """Send all of ``data``; waits (bounded by ``frame_timeout_s``, on
        ``watch``) only when the peer's buffer is full."""
        try:
            sent = sock.send(data)
        except BlockingIOError:
            sent = 0
        if sent == len(data):
            return
        watch.deadline = anyio.current_time() + self.config.frame_timeout_s
        view = memoryview(data)[sent:]
        while view:
            await anyio.wait_writable(sock)
            try:
                view = view[sock.send(view):]
            except BlockingIOError:
                continue
        watch.deadline = math.inf


# The log line for a connection closed because ``watch`` ran out (or, idle,
# was cancelled by shutdown), by what it was waiting for.
_TIMED_OUT = {
    "idle": "connection_idle_closed",
    "frame": "connection_stalled_closed",
    "send": "connection_send_stalled",
}
_RECV_CHUNK = 65536


def _recv(sock: socket.socket) -> bytes | None:
    """What has arrived (b"" at end of stream), or None if nothing has yet."""
    try:
        return sock.recv(_RECV_CHUNK)
    except BlockingIOError:
        return None


async def _recv_waiting(sock: socket.socket) -> bytes:
    """The next bytes (b"" at end of stream), waiting for them if need be."""
    while (chunk := _recv(sock)) is None:
        await anyio.wait_readable(sock)
    return chunk


def _open_to_group(sock: Path, gid: int) -> None:
    """Let members of ``gid`` reach and connect to ``sock`` and nothing more:
    the socket 0660, ``run/`` and the home above it 0710 (traverse, not list),
    all group-owned. Every other file in the home stays 0600 / 0700."""
    run = sock.parent
    home = run.parent
    for path, mode in ((sock, 0o660), (run, 0o710), (home, 0o710)):
        os.chown(path, -1, gid)
        os.chmod(path, mode)


def _in_group(uid: int, gid: int) -> bool:
    try:
        import pwd

        user = pwd.getpwuid(uid)
    except KeyError:
        return False
    if user.pw_gid == gid:
        return True
    try:
        return user.pw_name in grp.getgrgid(gid).gr_mem
    except KeyError:
        return False


def resolve_group(name: str | None) -> int | None:
    if name is None:
        return None
    try:
        return grp.getgrnam(name).gr_gid
    except KeyError:
        raise ValueError(f"agent_group {name!r} does not exist") from None


def build_listeners(
    config: Config,
    agent_path: Path,
    control_path: Path,
    agent: Dispatcher,
    control: Dispatcher,
) -> list[Listener]:
    gid = resolve_group(config.agent_group)
    uids: Iterable[int] = config.allowed_uids
    return [
        Listener("agent", agent_path, agent, frozenset(uids), gid),
        Listener("control", control_path, control, frozenset(), None),
    ]
