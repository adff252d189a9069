"""The bridge's stdio on the event loop: lines in, text out, over pipes.

``memctl mcp`` reads its requests and writes its answers on non-blocking
pipes driven by the event loop instead of a worker thread per line; these
tests hold the streams to what the MCP SDK's stdio transport expects of
them: whole lines whatever the chunking, the last unterminated line at EOF,
every byte of a write larger than the pipe's buffer, and the descriptors'
flags as they were once the streams are done; stdin registered with the loop
once for the lines of a session, and off it when closed, at its end or
while nobody reads.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from memoryd.memctl.mcp_stdio import PipeLines, PipeWriter, loop_drives, nonblocking


def test_lines_come_whole_whatever_the_chunking_and_the_last_one_at_eof() -> None:
    r, w = os.pipe()

    def feed() -> None:
        for chunk in (b'{"a":', b'1}\n{"b"', b':"\xc3', b'\xa9"}\n\n', b'{"c":3}'):
            os.write(w, chunk)
        os.close(w)

    async def read_all() -> list[str]:
        with nonblocking(r):
            return [line async for line in PipeLines(r)]

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        lines = anyio.run(read_all)
    finally:
        writer.join()
        os.close(r)
    assert lines == ['{"a":1}\n', '{"b":"\u00e9"}\n', "\n", '{"c":3}']


def test_stdin_stays_on_the_loop_between_lines_and_leaves_it_when_idle_or_closed() -> None:
    r, w = os.pipe()

    async def main() -> None:
        loop = asyncio.get_running_loop()
        added: list[int] = []
        wakeups = 0
        add_reader = loop.add_reader

        def counting_add_reader(fd: int, callback: Any, *args: object) -> None:
            added.append(fd)

            def counted(*a: object) -> None:
                nonlocal wakeups
                wakeups += 1
                callback(*a)

            add_reader(fd, counted, *args)

        loop.add_reader = counting_add_reader  # type: ignore[method-assign]
        try:
            with nonblocking(r):
                lines = PipeLines(r)

                async def send_later(line: bytes) -> None:
                    await anyio.sleep(0.02)
                    os.write(w, line)

                async def next_line_sent_later(line: bytes) -> str:
                    async with anyio.create_task_group() as tg:
                        tg.start_soon(send_later, line)
                        return await anext(lines)

                # Three lines, each waited for on the loop: registered once,
                # one wake-up each (the wake-up reads for the reader, so the
                # next turn of the loop does not see the same line again).
                for i in range(3):
                    assert await next_line_sent_later(b"%d\n" % i) == f"{i}\n"
                assert added == [r]
                assert wakeups == 3
                # A line nobody waits for: off the loop after its wake-ups,
                # then read all the same, and back on for the next wait.
                os.write(w, b"unread\n")
                for _ in range(3):
                    await anyio.lowlevel.checkpoint()
                assert not loop.remove_reader(r)
                assert await anext(lines) == "unread\n"
                assert await next_line_sent_later(b"again\n") == "again\n"
                assert added == [r, r]
                lines.close()
                assert not loop.remove_reader(r)
                # At the end of the stream it leaves the loop by itself.
                ended = PipeLines(r)
                os.write(w, b"last\n")
                os.close(w)
                assert [line async for line in ended] == ["last\n"]
                assert not loop.remove_reader(r)
        finally:
            loop.add_reader = add_reader  # type: ignore[method-assign]

    try:
        anyio.run(main)
    finally:
        os.close(r)


def test_bad_utf8_is_replaced_not_fatal() -> None:
    r, w = os.pipe()
    os.write(w, b'{"a":"\xff"}\n')
    os.close(w)

    async def read_all() -> list[str]:
        with nonblocking(r):
            return [line async for line in PipeLines(r)]

    try:
        assert anyio.run(read_all) == ['{"a":"\ufffd"}\n']
    finally:
        os.close(r)


def test_a_write_larger_than_the_pipe_buffer_arrives_whole() -> None:
    r, w = os.pipe()
    text = "x" * (1 << 20) + "\u00e9\n"
    received = bytearray()

    def drain() -> None:
        while chunk := os.read(r, 1 << 16):
            received.extend(chunk)

    async def write_all() -> None:
        with nonblocking(w):
            out = PipeWriter(w)
            await out.write(text)
            await out.flush()

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        anyio.run(write_all)
    finally:
        os.close(w)
        reader.join()
        os.close(r)
    assert received.decode() == text


def test_nonblocking_restores_the_flags_it_found() -> None:
    r, w = os.pipe()
    try:
        before = fcntl.fcntl(r, fcntl.F_GETFL)
        with nonblocking(r):
            assert fcntl.fcntl(r, fcntl.F_GETFL) & os.O_NONBLOCK
        assert fcntl.fcntl(r, fcntl.F_GETFL) == before
    finally:
        os.close(r)
        os.close(w)


def test_pipes_sockets_and_files_are_driven_on_the_loop_and_terminals_are_not(
    tmp_path: Path,
) -> None:
    r, w = os.pipe()
    path = os.path.join(str(tmp_path), "f")
    with open(path, "w") as f:
        f.write("x")
    fd = os.open(path, os.O_RDONLY)
    leader, follower = os.openpty()
    try:
        assert loop_drives(r) and loop_drives(w) and loop_drives(fd)
        assert not loop_drives(leader) and not loop_drives(follower)
    finally:
        for d in (r, w, fd, leader, follower):
            os.close(d)


def test_messages_are_read_as_the_sdk_reads_them_and_a_bad_line_is_an_item() -> None:
    from mcp.shared.message import SessionMessage

    from memoryd.memctl.mcp_stdio import MessageReader

    r, w = os.pipe()
    os.write(
        w,
        b'{"jsonrpc":"2.0","id":1,"method":"ping"}\nnot json\n'
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
    )
    os.close(w)

    async def read_all() -> list[object]:
        with nonblocking(r):
            async with MessageReader(PipeLines(r)) as reader:
                return [item async for item in reader]

    try:
        items = anyio.run(read_all)
    finally:
        os.close(r)
    assert len(items) == 3
    first, bad, last = items
    assert isinstance(first, SessionMessage) and isinstance(last, SessionMessage)
    assert first.message.model_dump(exclude_unset=True) == {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "ping",
    }
    assert last.message.model_dump(exclude_unset=True) == {
        "jsonrpc": "2.0",
        "method": "notifications/initialized",
    }
    assert isinstance(bad, Exception) and not isinstance(bad, SessionMessage)


def test_messages_written_concurrently_stay_whole_lines_and_a_closed_writer_refuses() -> None:
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    from memoryd.memctl.mcp_stdio import MessageWriter

    r, w = os.pipe()
    big = "y" * (1 << 18)
    received = bytearray()

    def drain() -> None:
        while chunk := os.read(r, 1 << 12):
            received.extend(chunk)

    def message(i: int) -> SessionMessage:
        return SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=i, result={"v": big}))

    async def write_all() -> None:
        with nonblocking(w):
            writer = MessageWriter(PipeWriter(w))
            async with writer, anyio.create_task_group() as tg:
                for i in range(4):
                    tg.start_soon(writer.send, message(i))
            with pytest.raises(anyio.ClosedResourceError):
                await writer.send(message(9))

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        anyio.run(write_all)
    finally:
        os.close(w)
        reader.join()
        os.close(r)
    lines = received.decode().split("\n")
    assert lines[-1] == ""
    assert sorted(json.loads(line)["id"] for line in lines[:-1]) == [0, 1, 2, 3]
    assert all(json.loads(line)["result"] == {"v": big} for line in lines[:-1])


_SESSION = """
import os, anyio
import mcp_types as types
from mcp.shared.message import SessionMessage
from memoryd.memctl.mcp_stdio import loop_stdio

async def main():
    with loop_stdio() as streams:
        if streams is None:
            print("not pipes", flush=True)
            return
        reader, writer = streams
        item = await reader.receive()
        print("stray print", flush=True)
        os.write(1, b"stray write\\n")
        assert os.read(0, 10) == b""
        await writer.send(SessionMessage(types.JSONRPCResponse(
            jsonrpc="2.0", id=item.message.id, result={})))
    print("after the session", flush=True)

anyio.run(main)
"""


def test_the_session_owns_the_stream_and_a_stray_print_goes_to_stderr() -> None:
    run = subprocess.run(
        [sys.executable, "-c", _SESSION],
        check=True,
        capture_output=True,
        input=b'{"jsonrpc":"2.0","id":7,"method":"ping"}\n',
        timeout=60,
    )
    assert run.stdout == b'{"jsonrpc":"2.0","id":7,"result":{}}\nafter the session\n'
    assert b"stray print\nstray write\n" in run.stderr


def test_a_session_between_files_is_driven_on_the_loop(tmp_path: Path) -> None:
    request, answer = tmp_path / "request", tmp_path / "answer"
    request.write_bytes(b'{"jsonrpc":"2.0","id":7,"method":"ping"}\n')
    with request.open("rb") as stdin, answer.open("wb") as stdout:
        run = subprocess.run(
            [sys.executable, "-c", _SESSION],
            check=True,
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
            timeout=60,
        )
    assert answer.read_bytes() == b'{"jsonrpc":"2.0","id":7,"result":{}}\nafter the session\n'
    assert b"stray print\nstray write\n" in run.stderr


def test_a_terminal_is_left_to_the_sdk() -> None:
    leader, follower = os.openpty()
    try:
        run = subprocess.run(
            [sys.executable, "-c", _SESSION],
            check=True,
            stdin=follower,
            capture_output=True,
            timeout=60,
        )
    finally:
        os.close(leader)
        os.close(follower)
    assert run.stdout == b"not pipes\n"
