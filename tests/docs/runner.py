"""Run a documentation page's command blocks the way a reader would.

Owns: finding the fenced blocks of a Markdown page, and running its ``sh``
and ``python`` blocks in order in one simulated terminal session — the
environment and working folder a block leaves are where the next one
starts (``. .venv/bin/activate`` carries over, as it does for a reader).

The reader's machine is simulated, never the real one: ``HOME`` is a fresh
temporary folder (so the default memoryd home, ``~/backups``, pipx and
friends all land inside it), and the working folder is a fresh "checkout"
whose entries link to the repository's (``.venv`` links to the environment
running the tests). Nothing a page runs can write into the repository.

Placeholders: ``mdt_…``, ``act_…``, ``ent_…`` (a prefix, ``_`` and the
ellipsis character) are filled with the last such id printed by an
earlier block, as a reader copies it from the output above; in a comment
(after `` #``) they only show what output looks like and stay as they are.

Marking: every fence names its language. A block that is not meant to be
run (it needs systemd, another program, or is a fragment of a larger
example) carries ``<!-- docs-test: skip (reason) -->`` on the line above;
a reason is required. Languages other than ``sh``, ``bash`` and ``python``
(``toml``, ``json``, ``text``) are shown, not run.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from memoryd.rpc.client import Client, RpcError
from tests.harness import REPO, short_tempdir

RUNNABLE = ("sh", "bash", "python")
OPEN = re.compile(r"^(\s*)```(.*)$")
MARK = re.compile(r"^\s*<!--\s*docs-test:\s*(\w+)\s*(?:\((.+)\))?\s*-->\s*$")
PLACEHOLDER = re.compile(r"\b([a-z]{2,4})_…")
ENV_KEEP_OUT = (
    "MEMORYD_HOME",
    "XDG_STATE_HOME",
    "MEMORYD_IDENTITY_JSON",
    "MEMORYD_TOKEN",
    "MEMORYD_USER_ID",
    "MEMORYD_AGENT_TOKEN",
    "VIRTUAL_ENV",
    "PYTHONHOME",
)


@dataclass(frozen=True)
class Block:
    page: str
    line: int  # 1-based line of the opening fence
    lang: str
    text: str
    mark: str | None = None  # "skip"
    reason: str | None = None

    @property
    def runs(self) -> bool:
        return self.lang in RUNNABLE and self.mark != "skip"

    def where(self) -> str:
        return f"{self.page}:{self.line}"


def blocks(path: Path) -> list[Block]:
    """Every fenced block of the page, with the mark on the line above it."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        m = OPEN.match(lines[i])
        if not m:
            i += 1
            continue
        indent, info = m.group(1), m.group(2).strip()
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i])
            i += 1
        i += 1  # the closing fence
        mark = None
        # The mark stands above the fence, possibly among other HTML comments
        # that label the block for other tests (``<!-- client: … -->``).
        for j in range(start - 1, -1, -1):
            text = lines[j].strip()
            if not text:
                continue
            if not text.startswith("<!--"):
                break
            mark = MARK.match(text)
            if mark:
                break
        found.append(
            Block(
                page=path.relative_to(REPO).as_posix(),
                line=start + 1,
                lang=info.split()[0] if info else "",
                text="\n".join(body) + "\n",
                mark=mark.group(1) if mark else None,
                reason=mark.group(2) if mark else None,
            )
        )
    return found


class DocFailed(AssertionError):
    pass


@dataclass
class Session:
    """One reader's terminal: a fake HOME, a fresh checkout, the env so far."""

    home: Path
    checkout: Path
    env: dict[str, str]
    cwd: Path
    outputs: list[str] = field(default_factory=list)

    @property
    def memoryd_home(self) -> Path:
        return self.home / ".local" / "state" / "memoryd"

    def fill(self, block: Block) -> str:
        text = block.text
        seen = "\n".join(self.outputs)

        def one(m: re.Match[str]) -> str:
            ids = re.findall(rf"\b{m.group(1)}_[A-Za-z0-9_-]{{8,}}", seen)
            if not ids:
                raise DocFailed(
                    f"{block.where()}: no {m.group(1)}_ id in the output before it "
                    "to fill its placeholder"
                )
            return str(ids[-1])

        out: list[str] = []
        for line in text.splitlines(keepends=True):
            # A placeholder in a comment shows what the output looks like.
            code, hash_, comment = line.partition(" #")
            out.append(PLACEHOLDER.sub(one, code) + hash_ + comment)
        return "".join(out)

    def run(self, block: Block, timeout: float = 180.0) -> str:
        text = self.fill(block)
        if block.lang == "python":
            python = shutil.which("python", path=self.env.get("PATH")) or sys.executable
            done = subprocess.run(
                [python, "-"],
                input=text,
                cwd=self.cwd,
                env=self.env,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        else:
            state = self.home.parent / "state.env"
            where = self.home.parent / "state.cwd"
            script = "set -eo pipefail\n" + text + f"\nenv -0 > {state}\npwd > {where}\n"
            done = subprocess.run(
                ["bash", "-c", script],
                cwd=self.cwd,
                env=self.env,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
            if done.returncode == 0:
                pairs = state.read_bytes().decode().split("\0")
                self.env = dict(p.split("=", 1) for p in pairs if "=" in p)
                self.cwd = Path(where.read_text().strip())
        output = done.stdout + done.stderr
        self.outputs.append(output)
        if done.returncode != 0:
            raise DocFailed(
                f"{block.where()} ({block.lang}) exited {done.returncode}:\n"
                f"--- block ---\n{text}--- output ---\n{output}"
            )
        return output


@contextmanager
def session() -> Iterator[Session]:
    root = short_tempdir()
    home = root / "home"
    checkout = home / "memoryd"
    checkout.mkdir(parents=True)
    for entry in REPO.iterdir():
        if entry.name in (".git", ".venv", "build") or entry.name.startswith("."):
            continue
        (checkout / entry.name).symlink_to(entry)
    (checkout / ".venv").symlink_to(Path(sys.prefix))
    env = {k: v for k, v in os.environ.items() if k not in ENV_KEEP_OUT}
    env["HOME"] = str(home)
    # The venv's own bin is reached through activation (README) or PATH
    # (the other pages); never through the test's own interpreter path.
    venv_bin = str(Path(sys.prefix) / "bin")
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if p and p != venv_bin
    )
    try:
        yield Session(home=home, checkout=checkout, env=env, cwd=checkout)
    finally:
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def serving(s: Session, argv: list[str], timeout: float = 30.0) -> Iterator[None]:
    """A daemon started the way the page says, in "another terminal"."""
    log = open(s.home.parent / "memoryd.log", "wb")
    proc = subprocess.Popen(argv, cwd=s.cwd, env=s.env, stdout=log, stderr=log)
    log.close()
    control = s.memoryd_home / "run" / "control.sock"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise DocFailed(
                    f"memoryd exited {proc.returncode}: "
                    f"{(s.home.parent / 'memoryd.log').read_text()}"
                )
            if control.exists():
                try:
                    with Client(control, timeout=5) as c:
                        c.call("memory.status", {})
                    break
                except (OSError, RpcError):
                    pass
            if time.monotonic() > deadline:
                raise DocFailed("memoryd did not start")
            time.sleep(0.05)
        yield
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
