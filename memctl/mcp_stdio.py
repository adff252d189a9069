"""``memctl mcp``'s stdin and stdout driven by the event loop, as the MCP
server's message streams.

The MCP SDK's stdio transport reads each request line and writes (then
flushes) each answer through a worker thread, three thread hand-offs per
call; on a busy machine each one waits for the GIL and the loop's wake-up,
and together they were most of what the bridge added to a call; two more
loop hops carried each message between those reader and writer tasks and
the server. When stdin and stdout are pipes or sockets (as an MCP client
starts the bridge) or files, the server is given ``MessageReader`` and
``MessageWriter`` instead: they parse and serialise each message as the
SDK's transport does and read and write the pipes non-blocking on the loop,
in the task that needs the message.

Owns: ``PipeLines`` (lines from a non-blocking descriptor, as text),
``PipeWriter`` (text to one), ``MessageReader`` and ``MessageWriter`` (the
server's streams over them), ``nonblocking`` (the flag, restored after) and
``loop_stdio``, which claims fd 0 and 1 for the session like the SDK does.

Invariants:
- while the session runs, fd 0 reads the null device and fd 1 writes to
  stderr, so a stray read or print misses the MCP stream; the stream itself
  goes through private duplicates, and both descriptors are restored after;
- a line is split on ``\\n`` only and decoded as UTF-8 with bad bytes
  replaced; the last line comes even without its ``\\n``; a line that is not
  a JSON-RPC message is handed on as the exception it raised, as the SDK's
  transport does, except a request whose id can still be read (JSON that
  Python reads but the message types refuse: a lone surrogate escape, a
  misshapen field): that request is answered ``-32600`` by its id at once,
  naming nothing it held, so no client waits on it for ever;
- each message goes out as one whole line, however many tasks send at once;
  a closed writer refuses with ``anyio.ClosedResourceError``; a line the
  pipe takes at once is written without the lock or a checkpoint;
- stdin is registered with the loop at most while the session reads it, and
  off it before the descriptor is closed;
- a write returns once every byte is in the pipe, waiting on the loop (never
  blocking it) while the reader is behind;
- a regular file is read and written the same way (``memctl mcp <
  requests > answers``): it is never waited on, its reads and writes do not
  block; a terminal is left to the SDK's own transport (its descriptor is
  the shell's too, so it is never made non-blocking): ``loop_stdio``
  yields None then.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

import anyio
import anyio.lowlevel
import mcp_types as types
from anyio.abc import AsyncResource
from mcp.shared.message import SessionMessage

__all__ = ["MessageReader", "MessageWriter", "PipeLines", "PipeWriter", "loop_drives", "loop_stdio",
           "nonblocking"]

READ_CHUNK: Final = 1 << 16


def loop_drives(fd: int) -> bool:
    """Whether the loop can drive ``fd``: a pipe or a socket (it waits on
    them), or a regular file (a read or write never waits)."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISREG(mode)


@contextmanager
def nonblocking(fd: int) -> Iterator[None]:
    """``fd`` with ``O_NONBLOCK`` set, its flags as they were afterwards."""
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)
    try:
        yield
    finally:
        fcntl.fcntl(fd, fcntl.F_SETFL, flags)


class PipeLines:
    """The lines of a non-blocking descriptor, as text, for ``async for``."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buffer = bytearray()
        self._eof = False
        # On asyncio the descriptor stays registered with the loop between
        # lines (``_readable``), the wait a future set by the loop's callback.
        self._loop: asyncio.AbstractEventLoop | None = None
        self._waiter: asyncio.Future[bytes] | None = None
        self._idle = False

    def __aiter__(self) -> PipeLines:
        return self

    async def __anext__(self) -> str:
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[:end + 1])
                del self._buffer[:end + 1]
                return line.decode("utf-8", errors="replace")
            if self._eof:
                if self._buffer:
                    rest = bytes(self._buffer)
                    self._buffer.clear()
                    return rest.decode("utf-8", errors="replace")
                raise StopAsyncIteration
            try:
                chunk = os.read(self.fd, READ_CHUNK)
            except BlockingIOError:
                read = await self._readable()
                if read is None:
                    continue
                chunk = read
            if chunk:
                self._buffer += chunk
            else:
                self._eof = True
                self.close()

    async def _readable(self) -> bytes | None:
        """Until the descriptor is readable: what the loop's callback read
        from it for this wait (b"" at the end), or None to read it now.

        ``anyio.wait_readable`` registers the descriptor with the loop and
        unregisters it again on every wait (two ``epoll_ctl`` calls and the
        selector's bookkeeping per line); on asyncio it stays registered
        instead, and the loop's callback reads for the one waiting reader and
        wakes it (reading there, the next turn of the loop does not see the
        same readiness again). While nobody waits, the second wake-up
        unregisters it, so a line nobody reads yet costs no more turns of the
        loop; the next wait registers it again."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # another anyio backend: its own wait
            await anyio.wait_readable(self.fd)
            return None
        if self._waiter is not None:
            raise anyio.BusyResourceError("reading from")
        if self._loop is not loop:
            self.close()
            loop.add_reader(self.fd, self._on_readable)
            self._loop = loop
        self._idle = False
        waiter = self._waiter = loop.create_future()
        try:
            return await waiter
        finally:
            self._waiter = None

    def _on_readable(self) -> None:
        waiter = self._waiter
        if waiter is None:
            # The loop may still hand on a readiness it saw before the woken
            # reader read the line: only a second wake-up in a row with
            # nobody waiting means a line waits unread.
            if self._idle:
                self.close()
            self._idle = True
        elif not waiter.done():
            try:
                chunk = os.read(self.fd, READ_CHUNK)
            except BlockingIOError:
                return  # woken for nothing: still waiting
            except OSError as exc:
                waiter.set_exception(exc)  # raised to the reader, as its own read would
                return
            waiter.set_result(chunk)

    def close(self) -> None:
        """Unregister the descriptor from the loop (it stays open)."""
        loop, self._loop = self._loop, None
        if loop is not None and not loop.is_closed():
            loop.remove_reader(self.fd)


class PipeWriter:
    """Text to a non-blocking descriptor; unbuffered, so ``flush`` has
    nothing left to do."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    async def write(self, text: str) -> int:
        await self.write_bytes(text.encode("utf-8"))
        return len(text)

    def write_now(self, data: bytes) -> int:
        """As many bytes of ``data`` as the pipe takes without waiting."""
        try:
            return os.write(self.fd, data)
        except BlockingIOError:
            return 0

    async def write_bytes(self, data: bytes) -> None:
        """All of ``data``, waiting on the loop while the pipe is full."""
        view = memoryview(data)
        while view:
            try:
                sent = os.write(self.fd, view)
            except BlockingIOError:
                await anyio.wait_writable(self.fd)
                continue
            view = view[sent:]

    async def flush(self) -> None:
        await anyio.lowlevel.checkpoint()


def _request_id(line: str) -> int | str | None:
    """The id of the request ``line`` holds, if Python's JSON reader finds one
    (it takes lone surrogate escapes that the message types refuse)."""
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("method"), str):
        return None
    rid = obj.get("id")
    return rid if isinstance(rid, str | int) and not isinstance(rid, bool) else None


class MessageReader(AsyncResource):
    """The server's read stream: one message (or the exception its line
    raised) per line of ``lines``; a request that is no message but still
    has its id is answered through ``answer`` and not handed on."""

    def __init__(self, lines: PipeLines, answer: MessageWriter | None = None) -> None:
        self._lines = lines
        self._answer = answer

    async def receive(self) -> SessionMessage | Exception:
        while True:
            try:
                line = await anext(self._lines)
            except StopAsyncIteration:
                raise anyio.EndOfStream from None
            try:
                message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except Exception as exc:  # noqa: BLE001 (the SDK's transport hands it on the same way)
                rid = None if self._answer is None else _request_id(line)
                if rid is None or self._answer is None:
                    return exc
                # What the line held is not repeated: it may be the agent's text.
                await self._answer.send(SessionMessage(types.JSONRPCError(
                    jsonrpc="2.0", id=rid, error=types.ErrorData(
                        code=types.INVALID_REQUEST,
                        message="the request is no valid MCP message (a string with a lone"
                                " surrogate escape, or a field of the wrong shape)"))))
                continue
            return SessionMessage(message)

    def __aiter__(self) -> MessageReader:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        self._lines.close()
        await anyio.lowlevel.checkpoint()


class MessageWriter(AsyncResource):
    """The server's write stream: each message as one line on ``out``."""

    def __init__(self, out: PipeWriter) -> None:
        self._out = out
        # A line larger than the pipe goes out in pieces; one at a time.
        self._lock = anyio.Lock(fast_acquire=True)
        self._closed = False

    async def send(self, item: SessionMessage, /) -> None:
        if self._closed:
            raise anyio.ClosedResourceError
        data = (item.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                ).encode("utf-8")
        if self._lock.locked():
            # Another line is part-way out: after it.
            async with self._lock:
                await self._out.write_bytes(data)
            return
        # Nobody is writing: what the pipe takes now goes out at once, and
        # the lock (a turn of the loop's bookkeeping on every call) is taken
        # only for a rest that must wait. Nothing yields between the check
        # and the taking, so no other line can start in between.
        sent = self._out.write_now(data)
        if sent == len(data):
            return
        self._lock.acquire_nowait()
        try:
            await self._out.write_bytes(data[sent:])
        finally:
            self._lock.release()

    async def aclose(self) -> None:
        self._closed = True
        await anyio.lowlevel.checkpoint()


def _claim(fd: int, replacement: int) -> int:
    """Move the stream on ``fd`` to a private descriptor (returned) and point
    ``fd`` at ``replacement``."""
    private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    os.dup2(replacement, fd)
    return private


@contextmanager
def loop_stdio() -> Iterator[tuple[MessageReader, MessageWriter] | None]:
    """The server's read and write streams on stdin and stdout, driven on
    the loop, for one session; None when either is a terminal (or anything
    but a pipe, a socket or a regular file)."""
    if not (loop_drives(0) and loop_drives(1)):
        yield None
        return
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        stdin = _claim(0, null)
    finally:
        os.close(null)
    try:
        stdout = _claim(1, 2)
        try:
            lines = PipeLines(stdin)
            try:
                with nonblocking(stdin), nonblocking(stdout):
                    writer = MessageWriter(PipeWriter(stdout))
                    yield MessageReader(lines, writer), writer
            finally:
                # Off the loop before the descriptor is closed below.
                lines.close()
        finally:
            os.dup2(stdout, 1)
            os.close(stdout)
    finally:
        os.dup2(stdin, 0)
        os.close(stdin)
