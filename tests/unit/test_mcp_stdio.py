"""The bridge's stdio on the event loop: lines in, text out, over pipes.

``memctl mcp`` reads its requests and writes its answers on non-blocking
pipes driven by the event loop instead of a worker thread per line; these
tests hold the streams to what the MCP SDK's stdio transport expects of
them: whole lines whatever the chunking, the last unterminated line at EOF,
every byte of a write larger than the pipe's buffer, and the descriptors'
flags as they were once the streams are done.
"""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path

import anyio

from memoryd.memctl.mcp_stdio import PipeLines, PipeWriter, is_pipe, nonblocking


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


def test_only_pipes_and_sockets_are_driven_on_the_loop(tmp_path: Path) -> None:
    r, w = os.pipe()
    path = os.path.join(str(tmp_path), "f")
    with open(path, "w") as f:
        f.write("x")
    fd = os.open(path, os.O_RDONLY)
    try:
        assert is_pipe(r) and is_pipe(w)
        assert not is_pipe(fd)
    finally:
        for d in (r, w, fd):
            os.close(d)
