"""The sync and async clients against a tiny in-test server on a Unix socket."""

from __future__ import annotations

import shutil
import socket
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import msgspec
import pytest
from anyio.abc import SocketStream
from anyio.from_thread import start_blocking_portal
from structlog.testing import capture_logs

from memoryd.kernel.errors import Conflict
from memoryd.rpc.client import AsyncClient, BadReply, Client, ConnectError, ConnectionLost, RpcError
from memoryd.rpc.errors import connection_error_line
from memoryd.rpc.framing import CLOSED, NEED_DATA, FrameReader, FrameTooLarge, IncompleteFrame
from memoryd.rpc.protocol import CallContext, Dispatcher, MethodSpec

StreamHandler = Callable[[SocketStream], Awaitable[None]]


async def read_frame(stream: SocketStream, reader: FrameReader) -> bytes | None:
    """The next frame from ``stream`` through ``reader``; None at a clean end."""
    while (frame := reader.next_frame()) is NEED_DATA:
        try:
            reader.receive_data(await stream.receive())
        except anyio.EndOfStream:
            reader.receive_data(b"")
    return None if frame is CLOSED else frame  # type: ignore[return-value]


class Value(msgspec.Struct, forbid_unknown_fields=True):
    value: Any = None


class Seconds(msgspec.Struct, forbid_unknown_fields=True):
    seconds: float


class Size(msgspec.Struct, forbid_unknown_fields=True):
    n: int


class Empty(msgspec.Struct, forbid_unknown_fields=True):
    pass


class FakeDaemon:
    """Just enough of a daemon: the real Dispatcher behind a bounded reader,
    plus methods that make the connection misbehave on purpose."""

    def __init__(self, max_frame: int = 4096) -> None:
        self.max_frame = max_frame
        self.connections = 0
        self.active = 0
        self.calls: Counter[str] = Counter()
        self.frames: list[bytes] = []
        self._hang_up = False
        self._close_after_reply = False

        async def echo(ctx: CallContext, p: Value) -> Any:
            self.calls["echo"] += 1
            return p.value

        async def sleep(ctx: CallContext, p: Seconds) -> str:
            self.calls["sleep"] += 1
            await anyio.sleep(p.seconds)
            return "slept"

        async def conflict(ctx: CallContext, p: Empty) -> None:
            raise Conflict("revision_conflict", details={"current_revision": 2})

        async def hang_up(ctx: CallContext, p: Empty) -> None:
            self.calls["hang_up"] += 1
            self._hang_up = True

        async def bye(ctx: CallContext, p: Empty) -> str:
            self._close_after_reply = True
            return "bye"

        async def big(ctx: CallContext, p: Size) -> str:
            return "x" * p.n

        specs = [
            MethodSpec("echo", Value, echo),
            MethodSpec("sleep", Seconds, sleep),
            MethodSpec("conflict", Empty, conflict),
            MethodSpec("hang_up", Empty, hang_up),
            MethodSpec("bye", Empty, bye),
            MethodSpec("big", Size, big),
        ]
        self.dispatcher = Dispatcher({s.name: s for s in specs}, max_batch=3)

    async def handle(self, stream: SocketStream) -> None:
        self.connections += 1
        self.active += 1
        try:
            await self._serve(stream)
        finally:
            self.active -= 1

    async def _serve(self, stream: SocketStream) -> None:
        ctx = CallContext("agent", 0, None, f"conn_{self.connections}")
        async with stream:
            reader = FrameReader(self.max_frame)
            try:
                while True:
                    try:
                        frame = await read_frame(stream, reader)
                    except FrameTooLarge:
                        await stream.send(connection_error_line("frame_too_large"))
                        return
                    except IncompleteFrame:
                        return
                    if frame is None:
                        return
                    self.frames.append(frame)
                    with capture_logs():
                        reply = await self.dispatcher.handle_frame(frame, ctx)
                    if self._hang_up:
                        self._hang_up = False
                        return
                    if reply is not None:
                        await stream.send(reply + b"\n")
                    if self._close_after_reply:
                        self._close_after_reply = False
                        return
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                return


@contextmanager
def socket_dir() -> Iterator[Path]:
    # AF_UNIX paths are limited to ~107 bytes; pytest's tmp_path can be longer.
    folder = Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def serving(handler: StreamHandler) -> Iterator[Path]:
    """Serve ``handler`` on a fresh socket in a background event loop."""
    with socket_dir() as folder, start_blocking_portal() as portal:
        path = folder / "s.sock"
        listener = portal.call(anyio.create_unix_listener, path)
        future = portal.start_task_soon(listener.serve, handler)
        try:
            yield path
        finally:
            future.cancel()
            portal.call(listener.aclose)


def wait_until_idle(daemon: FakeDaemon) -> None:
    """Wait until the server has closed every connection (as after an idle
    timeout), so the test is about a closed connection, not a closing one."""
    deadline = time.monotonic() + 5
    while daemon.active and time.monotonic() < deadline:
        time.sleep(0.005)


@pytest.fixture
def daemon() -> FakeDaemon:
    return FakeDaemon()


@pytest.fixture
def path(daemon: FakeDaemon) -> Iterator[Path]:
    with serving(daemon.handle) as socket_path:
        yield socket_path


def scripted(replies: list[bytes]) -> StreamHandler:
    """A server that answers each line with the next scripted bytes."""

    async def handle(stream: SocketStream) -> None:
        async with stream:
            reader = FrameReader(1 << 20)
            for reply in replies:
                if await read_frame(stream, reader) is None:
                    return
                await stream.send(reply)

    return handle


# --- sync --------------------------------------------------------------------


def test_call_returns_the_result(path: Path) -> None:
    with Client(path) as client:
        assert client.call("echo", {"value": [1, "a"]}) == [1, "a"]
        assert client.call("echo", value={"k": None}) == {"k": None}


def test_params_dict_and_keywords_merge(path: Path, daemon: FakeDaemon) -> None:
    with Client(path) as client:
        client.call("echo", {"value": 1}, value=2)
    assert msgspec.json.decode(daemon.frames[-1])["params"] == {"value": 2}


def test_ids_are_increasing_ints(path: Path, daemon: FakeDaemon) -> None:
    with Client(path) as client:
        for _ in range(3):
            client.call("echo")
    assert [msgspec.json.decode(f)["id"] for f in daemon.frames] == [1, 2, 3]


def test_error_reply_raises_rpc_error(path: Path) -> None:
    with Client(path) as client, pytest.raises(RpcError) as info:
        client.call("conflict")
    err = info.value
    assert err.code == -32002
    assert err.data_code == "revision_conflict"
    assert err.details == {"current_revision": 2}
    assert err.recovery and "current revision" in err.recovery
    assert "revision_conflict" in str(err)


def test_unknown_method_raises(path: Path) -> None:
    with Client(path) as client, pytest.raises(RpcError) as info:
        client.call("nope")
    assert (info.value.code, info.value.data_code) == (-32601, "method_not_found")


def test_invalid_params_errors_are_exposed(path: Path) -> None:
    with Client(path) as client, pytest.raises(RpcError) as info:
        client.call("sleep", seconds="x")
    assert info.value.errors == [{"path": "$.seconds", "expected": "float"}]


def test_notify_gets_no_answer_and_the_connection_stays_in_step(
    path: Path, daemon: FakeDaemon
) -> None:
    with Client(path) as client:
        client.notify("echo", {"value": 1})
        assert client.call("echo", value=2) == 2
    assert daemon.calls["echo"] == 2


def test_batch_results_in_request_order(path: Path) -> None:
    with Client(path) as client:
        results = client.batch([("echo", {"value": 1}), ("nope", None), ("echo", {"value": 3})])
    assert results[0] == 1 and results[2] == 3
    assert isinstance(results[1], RpcError) and results[1].code == -32601


def test_batch_refused_whole_raises(path: Path) -> None:
    with Client(path) as client, pytest.raises(RpcError) as info:
        client.batch([("echo", {})] * 4)
    assert info.value.data_code == "batch_too_large"


def test_empty_batch_sends_nothing(path: Path, daemon: FakeDaemon) -> None:
    with Client(path) as client:
        assert client.batch([]) == []
    assert daemon.frames == []


def test_send_raw_returns_the_reply_line(path: Path) -> None:
    with Client(path) as client:
        reply = client.send_raw(b"{nope")
        assert reply is not None
        assert msgspec.json.decode(reply)["error"]["code"] == -32700
        assert client.send_raw(b'{"jsonrpc":"2.0","method":"echo"}', expect_reply=False) is None
        assert client.call("echo", value=5) == 5


def test_reconnects_when_the_daemon_closed_an_idle_connection(
    path: Path, daemon: FakeDaemon
) -> None:
    with Client(path) as client:
        assert client.call("bye") == "bye"
        wait_until_idle(daemon)
        assert client.call("echo", value=1) == 1
    assert daemon.connections == 2


def test_a_request_that_may_have_arrived_is_never_resent(path: Path, daemon: FakeDaemon) -> None:
    with Client(path) as client:
        with pytest.raises(ConnectionLost):
            client.call("hang_up")
        assert daemon.calls["hang_up"] == 1
        assert client.call("echo", value=1) == 1
    assert daemon.calls["hang_up"] == 1


def test_timeout_drops_the_connection_so_a_late_reply_is_not_misread(
    path: Path, daemon: FakeDaemon
) -> None:
    with Client(path, timeout=0.2) as client:
        with pytest.raises(TimeoutError):
            client.call("sleep", seconds=0.5)
        # A roomier limit for the next call, so a busy machine cannot time it
        # out too: what is checked is which reply it gets.
        client.timeout = 10.0
        assert client.call("echo", value="fresh") == "fresh"
    assert daemon.connections == 2


def test_frame_too_large_is_an_rpc_error_then_the_client_reconnects(
    path: Path, daemon: FakeDaemon
) -> None:
    with Client(path) as client:
        with pytest.raises(RpcError) as info:
            client.call("echo", value="x" * 10_000)
        assert (info.value.code, info.value.data_code) == (-32600, "frame_too_large")
        wait_until_idle(daemon)
        assert client.call("echo", value=1) == 1


def test_reply_over_the_client_limit_is_bad_reply(path: Path) -> None:
    with Client(path, max_reply=1000) as client:
        with pytest.raises(BadReply):
            client.call("big", n=200_000)
        assert client.call("big", n=10) == "x" * 10


def test_large_replies_are_accepted(path: Path) -> None:
    with Client(path) as client:
        assert len(client.call("big", n=3_000_000)) == 3_000_000


def test_missing_socket_is_a_clear_connect_error() -> None:
    with socket_dir() as folder:
        missing = folder / "agent.sock"
        with pytest.raises(ConnectError, match="memoryd is not running at") as info:
            Client(missing).call("echo")
        assert info.value.path == missing
        assert str(missing) in str(info.value)


def test_socket_nobody_listens_on_is_a_connect_error() -> None:
    with socket_dir() as folder:
        stale = folder / "agent.sock"
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(str(stale))
        sock.close()
        with pytest.raises(ConnectError, match="not running"):
            Client(stale).call("echo")


def test_overlong_socket_path_is_a_connect_error() -> None:
    with pytest.raises(ConnectError, match="too long"):
        Client("/tmp/" + "x" * 200 + "/agent.sock").call("echo")


@pytest.mark.parametrize(
    "reply",
    [
        b"not json\n",
        b'{"jsonrpc":"2.0","result":1,"id":99}\n',
        b'{"jsonrpc":"2.0","id":1}\n',
        b'[{"jsonrpc":"2.0","result":1,"id":1}]\n',
    ],
)
def test_replies_that_do_not_fit_are_bad_replies(reply: bytes) -> None:
    with serving(scripted([reply])) as socket_path, Client(socket_path) as client:
        with pytest.raises(BadReply):
            client.call("echo")


def test_connection_limit_line_is_raised_as_rpc_error() -> None:
    line = connection_error_line("too_many_connections")
    with serving(scripted([line])) as socket_path, Client(socket_path) as client:
        with pytest.raises(RpcError) as info:
            client.call("echo")
    assert info.value.data_code == "too_many_connections"


def test_rpc_error_without_data() -> None:
    err = RpcError(-32000, "Server error")
    assert (err.data_code, err.recovery, err.details) == (None, None, None)
    assert str(err) == "Server error"


# --- async ---------------------------------------------------------------------


@asynccontextmanager
async def async_serving(daemon: FakeDaemon) -> AsyncIterator[Path]:
    with socket_dir() as folder:
        path = folder / "s.sock"
        listener = await anyio.create_unix_listener(path)
        async with anyio.create_task_group() as tg:
            tg.start_soon(listener.serve, daemon.handle)
            try:
                yield path
            finally:
                # Let handlers see the client's EOF before cancelling them:
                # cancelling a task whose socket just became readable trips
                # asyncio (InvalidStateError in anyio's reader callback).
                with anyio.move_on_after(2):
                    while daemon.active:
                        await anyio.sleep(0.01)
                tg.cancel_scope.cancel()
        await listener.aclose()


@pytest.mark.anyio
async def test_async_call_notify_and_batch() -> None:
    daemon = FakeDaemon()
    async with async_serving(daemon) as path, AsyncClient(path) as client:
        assert await client.call("echo", {"value": 1}) == 1
        await client.notify("echo", value=2)
        results = await client.batch([("echo", {"value": 3}), ("conflict", {})])
        assert results[0] == 3 and isinstance(results[1], RpcError)
        reply = await client.send_raw(b"[]")
        assert reply is not None and b"empty_batch" in reply
    assert daemon.calls["echo"] == 3


@pytest.mark.anyio
async def test_async_reconnect_and_no_resend() -> None:
    daemon = FakeDaemon()
    async with async_serving(daemon) as path, AsyncClient(path) as client:
        assert await client.call("bye") == "bye"
        while daemon.active:
            await anyio.sleep(0.005)
        assert await client.call("echo", value=1) == 1
        with pytest.raises(ConnectionLost):
            await client.call("hang_up")
        assert await client.call("echo", value=2) == 2
    assert daemon.calls["hang_up"] == 1
    assert daemon.connections == 3


@pytest.mark.anyio
async def test_async_timeout_and_concurrent_callers() -> None:
    daemon = FakeDaemon()
    async with async_serving(daemon) as path, AsyncClient(path, timeout=0.2) as client:
        with pytest.raises(TimeoutError):
            await client.call("sleep", seconds=0.5)
        results: dict[int, Any] = {}

        async def one(i: int) -> None:
            results[i] = await client.call("echo", value=i)

        async with anyio.create_task_group() as tg:
            for i in range(10):
                tg.start_soon(one, i)
        assert results == {i: i for i in range(10)}


@pytest.mark.anyio
async def test_async_errors() -> None:
    daemon = FakeDaemon()
    async with async_serving(daemon) as path, AsyncClient(path, max_reply=1000) as client:
        with pytest.raises(RpcError) as info:
            await client.call("conflict")
        assert info.value.data_code == "revision_conflict"
        with pytest.raises(BadReply):
            await client.call("big", n=5000)
        assert await client.call("big", n=1) == "x"
    with socket_dir() as folder:
        with pytest.raises(ConnectError, match="not running"):
            await AsyncClient(folder / "x.sock").call("echo")


@pytest.mark.anyio
async def test_async_reply_in_pieces_is_whole_and_one_cut_short_is_a_lost_connection() -> None:
    reply = b'{"jsonrpc":"2.0","result":"' + b"y" * 200_000 + b'","id":1}\n'

    async def handle(stream: SocketStream) -> None:
        async with stream:
            reader = FrameReader(1 << 20)
            await read_frame(stream, reader)
            for start in range(0, len(reply), 7000):
                await stream.send(reply[start : start + 7000])
                await anyio.sleep(0.001)
            await read_frame(stream, reader)
            await stream.send(b'{"jsonrpc":"2.0","res')

    with serving(handle) as path:
        async with AsyncClient(path) as client:
            assert await client.call("echo") == "y" * 200_000
            with pytest.raises(ConnectionLost, match="middle of a reply"):
                await client.call("echo")


# --- waiting in place ----------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("wait", [0.0, 0.05])
async def test_async_results_are_the_same_whichever_way_the_call_waits(wait: float) -> None:
    # The peer served on this same loop cannot answer while a call holds the
    # loop: waiting in place then ends with the window and the call goes on
    # waiting on the loop, with the same answers and failures.
    daemon = FakeDaemon()
    async with (
        async_serving(daemon) as path,
        AsyncClient(path, timeout=0.3, wait_in_place=wait) as client,
    ):
        assert await client.call("echo", {"value": 1}) == 1
        results = await client.batch([("echo", {"value": 3}), ("conflict", {})])
        assert results[0] == 3 and isinstance(results[1], RpcError)
        with pytest.raises(RpcError):
            await client.call("conflict")
        with pytest.raises(ConnectionLost):
            await client.call("hang_up")
        with pytest.raises(TimeoutError):
            await client.call("sleep", seconds=1)
        assert await client.call("echo", value=2) == 2
    assert daemon.calls["hang_up"] == 1


async def _turns_of_the_loop_during(call: Awaitable[Any]) -> tuple[Any, int]:
    """What ``call`` returns, and how many times another task got to run
    while it was being made."""
    turns = 0
    done = anyio.Event()

    async def count() -> None:
        nonlocal turns
        while not done.is_set():
            await anyio.lowlevel.checkpoint()
            turns += 1

    async with anyio.create_task_group() as tg:
        tg.start_soon(count)
        await anyio.lowlevel.checkpoint()  # the counter is running
        start = turns
        result = await call
        during = turns - start
        done.set()
    return result, during


@pytest.mark.anyio
async def test_an_answer_that_comes_while_waiting_in_place_costs_no_turns_of_the_loop(
    daemon: FakeDaemon, path: Path
) -> None:
    # The fake daemon runs on a loop of its own (another thread): it answers
    # while this loop is held. The window is long enough for any machine.
    async with AsyncClient(path, wait_in_place=30) as client:
        await client.call("echo", value=0)  # connected
        result, turns = await _turns_of_the_loop_during(client.call("echo", value=1))
    assert result == 1
    # One turn at most: the checkpoint every call ends with.
    assert turns <= 1


@pytest.mark.anyio
async def test_waiting_on_the_loop_lets_other_tasks_run(daemon: FakeDaemon, path: Path) -> None:
    # Without waiting in place (and after the window, when the answer is
    # late) other tasks run while the call waits for its answer.
    async with AsyncClient(path) as client, AsyncClient(path, wait_in_place=0.01) as windowed:
        result, turns = await _turns_of_the_loop_during(client.call("sleep", seconds=0.2))
        assert result == "slept" and turns > 1
        result, turns = await _turns_of_the_loop_during(windowed.call("sleep", seconds=0.2))
        assert result == "slept" and turns > 1


@pytest.mark.anyio
async def test_the_timeout_bounds_a_wait_in_place(daemon: FakeDaemon, path: Path) -> None:
    # A window longer than the timeout waits only until the deadline, and
    # the connection is dropped as after any timeout.
    async with AsyncClient(path, timeout=0.1, wait_in_place=30) as client:
        with pytest.raises(TimeoutError):
            await client.call("sleep", seconds=1)
        assert await client.call("echo", value=3) == 3
    assert daemon.connections == 2


# --- whether a connection can carry a new request ------------------------------


class _CountingSocket(socket.socket):
    """A socket that counts its settimeout calls (each is an ioctl)."""

    __slots__ = ("settimeouts",)

    def settimeout(self, value: float | None) -> None:
        self.settimeouts = getattr(self, "settimeouts", 0) + 1
        super().settimeout(value)


@pytest.mark.parametrize("timeout", [None, 0.0, 2.5])
def test_peer_gone_reads_nothing_and_leaves_the_timeout_as_it_found_it(
    timeout: float | None,
) -> None:
    from memoryd.rpc.client import _peer_gone

    for ending in ("bytes", "close"):
        a, b = socket.socketpair(socket.AF_UNIX)
        sock = _CountingSocket(socket.AF_UNIX, socket.SOCK_STREAM, fileno=a.detach())
        try:
            sock.settimeout(timeout)
            sock.settimeouts = 0
            assert not _peer_gone(sock)
            assert sock.gettimeout() == timeout
            # Already at 0 (the async client's socket): no ioctl at all.
            assert sock.settimeouts == (0 if timeout == 0.0 else 2)
            if ending == "bytes":
                b.sendall(b"x")
            else:
                b.close()
            assert _peer_gone(sock)
            assert sock.gettimeout() == timeout
            if ending == "bytes":
                assert sock.recv(1) == b"x"  # a peek: the byte is still there
        finally:
            sock.close()
            b.close()
