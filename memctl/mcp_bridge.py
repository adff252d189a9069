"""``memctl mcp``: an MCP server over stdio that bridges one MCP session to
one memoryd task on ``agent.sock``.

Owns: the session's task (begun when the session starts, ended when it
closes), which tools of the catalogue (``memoryd.memctl.mcp_tools``) the task's grants
allow, turning tool arguments into RPC params and answers or failures into
tool results, the MCP server around it and its command line. The catalogue
names (``TOOLS``, ``ToolSpec``, ``input_schema``) are re-exported here.

Invariants:
- the bridge is an agent runner like any other: it connects to ``agent.sock``
  only, never to ``control.sock``, and asserts nothing the daemon would not
  take from any client (the token, if any, comes from ``MEMORYD_AGENT_TOKEN``);
- the tools listed are exactly those the task's ``grants`` allow, plus
  ``memory_status``, which every task may call: no read consent, no memory
  tools; a read-only task (no ``contribute``, or a subagent) has no write tool;
- a tool's arguments are checked against the same typed params the daemon
  uses before anything is sent, so a bad call changes nothing and reaches no
  one; arguments the session owns (``task_id``, ``identity``) are refused;
- every failure becomes a tool error carrying the daemon's ``data.code`` and
  ``recovery`` (or the bridge's own code), never a stack trace and never the
  caller's text; nothing is written to stdout except the MCP stream, and the
  stderr notes name no memory text, query or token;
- a write sent without an ``idempotency_key`` gets one here, so the single
  retry after a broken connection is safe (SPEC §5.8).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import anyio
import mcp_types as types
import msgspec
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from memoryd.memctl.mcp_serve import DirectToolCalls, serve_session
from memoryd.memctl.mcp_stdio import loop_stdio
from memoryd.memctl.mcp_tools import (
    BRIDGE_OWNED,
    INSTRUCTIONS,
    TOOLS,
    TOOLS_BY_NAME,
    ToolSpec,
    input_schema,
    output_schema,
    tool_result,
)
from memoryd.rpc.client import AsyncClient, BadReply, ConnectError, ConnectionLost, RpcError
from memoryd.rpc.paths import agent_socket, resolve_home

__all__ = ["TOOLS", "Bridge", "ToolSpec", "build_server", "input_schema", "main", "parse_args"]

SERVER_NAME: Final = "memoryd"
TOKEN_ENV: Final = "MEMORYD_AGENT_TOKEN"  # noqa: S105 (a variable name, not a secret)
PARENT_TASK_ENV: Final = "MEMORYD_PARENT_TASK"
# JSON-RPC code of invalid params, used for calls to a tool that does not exist.
INVALID_PARAMS: Final = -32602
# How long a call waits for the daemon's answer on its socket, holding the
# loop, before waiting on the loop (rpc.client.AsyncClient): the session's
# calls take turns on one connection anyway, and an answer within it costs no
# turns of the loop and no timer. What waits meanwhile (a ping, a cancel, the
# next request's read) waits at most this long.
DAEMON_WAIT_IN_PLACE: Final = 0.01


# --- tools as MCP definitions ----------------------------------------------------


def tool_definition(spec: ToolSpec) -> types.Tool:
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=input_schema(spec),
        output_schema=output_schema(spec),
        annotations=types.ToolAnnotations(
            title=spec.title,
            read_only_hint=spec.read_only,
            destructive_hint=spec.destructive,
            idempotent_hint=spec.idempotent,
            # memoryd is a closed world: the bridge reaches nothing else.
            open_world_hint=False,
        ),
    )


# --- errors as tool results -------------------------------------------------------


class BridgeError(Exception):
    """A failure the bridge reports as a tool error: a stable code, a message
    and what to do next. Messages never quote arguments or stored text."""

    def __init__(self, code: str, message: str, recovery: str, *,
                 errors: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.recovery = recovery
        self.errors = errors


def _error_result(payload: dict[str, Any]) -> dict[str, Any]:
    lines = [f"memoryd error {payload['code']}: {payload['message']}"]
    for problem in payload.get("errors") or []:
        if isinstance(problem, dict):
            what = problem.get("expected") or problem.get("problem") or "invalid"
            lines.append(f"- argument {problem.get('path')}: {what}")
    if payload.get("details") is not None:
        lines.append("details: " + json.dumps(payload["details"], sort_keys=True))
    if payload.get("recovery"):
        lines.append(f"what to do: {payload['recovery']}")
    return tool_result("\n".join(lines), {"error": payload}, is_error=True)


# The daemon's words are for any client; an agent needs them in its own
# terms: what went wrong for it, and what it (or its user) can do next.
# Keyed by data.code, or by "code/details.reason" where a reason splits a code.
AGENT_ERRORS: Final[dict[str, tuple[str, str, str]]] = {
    "policy_denied/token_not_accepted": (
        "invalid_token",
        "memoryd did not accept this session's agent token (unknown, revoked or expired)",
        "tell the user: the operator issues a new token with `memctl token issue --kind "
        "KIND --subject NAME --label LABEL` and puts it in MEMORYD_AGENT_TOKEN of this "
        "client's MCP configuration; memory tools appear once it is accepted"),
    "consent_required": (
        "consent_required",
        "the memory owner has not allowed this session to use this memory tool",
        "tell the user: the operator turns consent on with `memctl consent set --read on "
        "--contribute on` (for this token's owner: add --identity-kind and "
        "--identity-subject); this session is told when the tools change"),
    "read_only_task": (
        "read_only_task",
        "this session may read memory but not change it",
        "do not retry; tell the user the change you would have made"),
    "scope_mismatch": (
        "scope_mismatch",
        "that scope is not one of this session's scopes",
        "leave the scope out (the session's first scope is used) or use one listed in "
        "memory_status; other scopes need the bridge started with --scope"),
    "task_not_found": (
        "session_ended",
        "this session's memoryd task has ended (token revoked, or task expired)",
        "call memory_status to see what this session may still do"),
}


def _agent_terms(exc: RpcError) -> tuple[str, str, str] | None:
    reason = exc.details.get("reason") if isinstance(exc.details, dict) else None
    return AGENT_ERRORS.get(f"{exc.data_code}/{reason}") or AGENT_ERRORS.get(exc.data_code or "")


def rpc_error_payload(exc: RpcError) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "code": exc.data_code or _PROTOCOL_CODES.get(exc.code, "rpc_error"),
        "jsonrpc_code": exc.code,
        "message": exc.detail_message or exc.message,
        "recovery": exc.recovery or _PROTOCOL_RECOVERY.get(exc.code),
    }
    terms = _agent_terms(exc)
    if terms is not None:
        payload["code"], payload["message"], payload["recovery"] = terms
    for key, value in (("details", exc.details), ("errors", exc.errors),
                       ("incident", exc.incident)):
        if value is not None:
            payload[key] = value
    return payload


_PROTOCOL_CODES: Final = {-32600: "invalid_request", -32601: "method_not_found",
                          -32602: "invalid_params", -32603: "internal_error"}
_PROTOCOL_RECOVERY: Final = {
    -32601: "this memoryd does not offer the method yet; update memoryd or do without it",
    -32602: "fix the named arguments and call again",
    -32603: "try again later; if it persists, give the operator the incident id",
}


def bridge_error_payload(exc: BridgeError) -> dict[str, Any]:
    payload: dict[str, Any] = {"code": exc.code, "message": exc.message,
                               "recovery": exc.recovery}
    if exc.errors is not None:
        payload["errors"] = exc.errors
    return payload


def _not_running(exc: ConnectError) -> BridgeError:
    if exc.path.exists():
        message = str(exc)
    else:
        message = f"memoryd is not running (no socket at {exc.path})"
    return BridgeError(
        "daemon_unavailable", message,
        "ask the operator to start memoryd (`memoryd serve`, or `systemctl --user start "
        "memoryd`) on the home this bridge uses (--home or MEMORYD_HOME); memory tools "
        "appear once it runs",
    )


def _broken(exc: Exception) -> BridgeError:
    return BridgeError(
        "connection_lost",
        f"the exchange with memoryd broke ({type(exc).__name__}); the call may or may "
        "not have been applied",
        "call again with the same arguments (writes carry an idempotency_key, so a "
        "repeat is safe); if it persists, check memory_status",
    )


# An argument name the bridge repeats in an error: an identifier's form,
# no longer than any argument a tool takes is.
_NAME_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_NAME_MAX: Final = 64


def _nameable(name: str) -> bool:
    """Whether an unknown argument's ``name`` may be repeated in the error:
    identifier characters only, at most ``_NAME_MAX``, and nothing the
    content scanner finds in it (a key's form, an instruction). The scanner
    is loaded only when a call has an unknown argument."""
    if not name or len(name) > _NAME_MAX or not _NAME_CHARS.issuperset(name):
        return False
    from memoryd.kernel.scan import scan

    return not scan(name) and not scan(name.replace("_", " "))


# --- the bridge -------------------------------------------------------------------


@dataclass(frozen=True)
class Options:
    socket: Path
    token: str | None
    workspace: str | None
    scopes: tuple[str, ...] | None
    role: str
    parent_task: str | None
    tools_used: bool
    timeout: float
    # How often the session checks whether its grants changed (seconds).
    watch: float = 2.0


class Bridge:
    """One MCP session's memoryd task, and the tools its grants allow."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.client = AsyncClient(options.socket, timeout=options.timeout,
                                  wait_in_place=DAEMON_WAIT_IN_PLACE)
        self.task: dict[str, Any] | None = None
        self.begin_error: dict[str, Any] | None = None
        self._lock = anyio.Lock()
        # The MCP session (its connection-wide channel), known from the first
        # request; change notifications go out on it.
        self.connection: Any = None

    # lifecycle

    def _begin_params(self) -> dict[str, Any]:
        o = self.options
        params: dict[str, Any] = {"role": o.role, "tools_used": o.tools_used}
        if o.token is not None:
            params["token"] = o.token
        if o.scopes:
            params["scopes"] = list(o.scopes)
        elif o.workspace is not None and o.parent_task is None:
            params["workspace"] = o.workspace
        if o.parent_task is not None:
            params["parent_task"] = o.parent_task
        return params

    async def ensure_task(self) -> dict[str, Any] | None:
        """Begin the task if it is not begun yet; None (and ``begin_error``
        set) while the daemon cannot be reached or refuses."""
        task = self.task
        if task is not None:
            # Every call comes here; only a begin needs the lock's turn.
            return task
        async with self._lock:
            if self.task is not None:
                return self.task
            try:
                self.task = await self.client.call("task.begin", self._begin_params())
                self.begin_error = None
            except ConnectError as exc:
                self.begin_error = bridge_error_payload(_not_running(exc))
            except RpcError as exc:
                self.begin_error = rpc_error_payload(exc)
            except (ConnectionLost, BadReply, TimeoutError) as exc:
                self.begin_error = bridge_error_payload(_broken(exc))
            return self.task

    async def close(self) -> None:
        task, self.task = self.task, None
        try:
            await self._end(task)
        finally:
            await self.client.aclose()

    async def _end(self, task: dict[str, Any] | None) -> None:
        if task is not None:
            try:
                await self.client.call("task.end", {"task_id": task["task_id"]})
            except (ConnectError, RpcError, ConnectionLost, BadReply, TimeoutError):
                pass  # the task expires on its own (task TTL)

    # grants that change during the session

    _SWITCHES: Final = ("read", "contribute", "learn_from_tools")

    async def _stale(self) -> bool:
        """Whether the task no longer reflects the owner's grants: consent was
        switched since it began, or the task (with its token) is gone."""
        assert self.task is not None
        try:
            status = await self._resuming("memory.status", {"task_id": self.task["task_id"]})
        except RpcError as exc:
            return exc.data_code in ("task_not_found", "policy_denied")
        except (ConnectError, ConnectionLost, BadReply, TimeoutError):
            # memoryd is away for now: keep the tools; a call will say so.
            return False
        now = status.get("consent") if isinstance(status, dict) else None
        frozen = self.task.get("consent") or {}
        return isinstance(now, dict) and any(
            bool(now.get(k)) != bool(frozen.get(k)) for k in self._SWITCHES)

    async def resume(self) -> bool:
        """Show the session's credential again on a new connection.

        A task begun with a token is usable only on a connection that
        presented it; the client replaces a connection the daemon closed
        (idle timeout, restart), and the new one has shown nothing yet. True
        when the daemon took the task back (same task, same snapshot)."""
        if self.task is None:
            return False
        params: dict[str, Any] = {"task_id": self.task["task_id"]}
        if self.options.token is not None:
            params["token"] = self.options.token
        try:
            await self.client.call("task.resume", params)
        except (ConnectError, RpcError, ConnectionLost, BadReply, TimeoutError):
            return False
        return True

    async def _resuming(self, method: str, params: dict[str, Any]) -> Any:
        """One call on the task; on ``task_not_found`` the token is shown once
        more (``resume``) and the call repeated once."""
        try:
            return await self.client.call(method, params)
        except RpcError as exc:
            if exc.data_code != "task_not_found" or not await self.resume():
                raise
        return await self.client.call(method, params)

    async def refresh(self) -> bool:
        """Re-begin the task if the grants changed; True when the tools offered
        changed (the client is then sent ``notifications/tools/list_changed``)."""
        before = [s.name for s in self.granted()]
        if self.task is None or await self._stale():
            old, self.task = self.task, None
            await self._end(old)
            await self.ensure_task()
        return [s.name for s in self.granted()] != before

    async def watch(self) -> None:
        while True:
            await anyio.sleep(self.options.watch)
            if await self.refresh() and self.connection is not None:
                note("the tools offered changed; sending notifications/tools/list_changed")
                await self.connection.send_tool_list_changed()

    # tools

    def granted(self) -> list[ToolSpec]:
        grants = set(self.task.get("grants") or []) if self.task else set()
        return [spec for spec in TOOLS if spec.grant is None or spec.grant in grants]

    async def list_tools(self) -> list[types.Tool]:
        await self.ensure_task()
        return [tool_definition(spec) for spec in self.granted()]

    async def call_tool(self, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
        """The tool's answer as a wire-form ``tools/call`` result (``tool_result``)."""
        await self.ensure_task()
        spec = TOOLS_BY_NAME.get(name)
        if spec is None or spec not in self.granted():
            # Unknown here means "not offered to this session", whichever the
            # reason: a protocol error, as MCP asks for unknown tools.
            available = [s.name for s in self.granted()]
            raise MCPError(INVALID_PARAMS, "Unknown tool: not offered in this session",
                           data={"available": available})
        try:
            if self.task is None:
                if spec.name == "memory_status" and self.begin_error is not None:
                    return _error_result(self.begin_error)
                raise AssertionError("a granted memory tool without a task")
            params = self._params(spec, arguments or {})
            result = await self._call(spec, params)
            if spec.method == "task.end":
                # The session's task ended with its transcript: the next
                # memory call begins a new one.
                self.task = None
        except BridgeError as exc:
            return _error_result(bridge_error_payload(exc))
        except RpcError as exc:
            return _error_result(rpc_error_payload(exc))
        if spec.name == "memory_status":
            result = {**result, "session": self.session_summary()}
        return tool_result(spec.render(result),
                           result if isinstance(result, dict) else {"result": result})

    def _params(self, spec: ToolSpec, arguments: dict[str, Any]) -> dict[str, Any]:
        assert self.task is not None
        owned = sorted(BRIDGE_OWNED & arguments.keys())
        if owned:
            raise BridgeError(
                "invalid_params", "these are set by the session, not passed as arguments",
                "call again without them",
                errors=[{"path": f"$.{k}", "problem": "not an argument of this tool"}
                        for k in owned],
            )
        known = frozenset(spec.params.__struct_fields__) - BRIDGE_OWNED
        unknown = [k for k in arguments if k not in known]
        if unknown:
            # Name each one (a name, never a value), so the model can fix its
            # call; a name is client text, so one that could be anything else
            # (a key pasted as a name) is counted, not repeated.
            named = sorted(k for k in unknown if _nameable(k))
            withheld = len(unknown) - len(named)
            said = [repr(k) for k in named] + (
                [f"{withheld} more whose names are not repeated"] if withheld else [])
            raise BridgeError(
                "unknown_argument",
                f"{spec.name} has no argument named {', '.join(said)}",
                f"call again without it; {spec.name} takes: {', '.join(sorted(known))}",
                errors=[{"path": f"$.{k}", "problem": "unknown argument"} for k in named]
                + [{"path": "$", "problem": "unknown argument (name not repeated)"}] * withheld,
            )
        params = {**arguments, "task_id": self.task["task_id"]}
        if spec.name == "memory_write" and "idempotency_key" not in params:
            params["idempotency_key"] = "mcp-" + secrets.token_hex(12)
        try:
            msgspec.convert(params, type=spec.params)
        except msgspec.ValidationError as exc:
            # rpc.protocol loads jsonrpcserver; only a bad call pays for it.
            from memoryd.rpc.protocol import param_errors

            raise BridgeError(
                "invalid_params", f"the arguments of {spec.name} do not fit its schema",
                "fix the named arguments and call again; nothing was sent to memoryd",
                errors=param_errors(params, spec.params, exc),
            ) from None
        return params

    async def _call(self, spec: ToolSpec, params: dict[str, Any]) -> Any:
        # One retry after a connection that broke mid-call: reads are safe to
        # repeat and writes carry an idempotency_key, so the daemon answers a
        # repeat with the first answer instead of acting twice. A new
        # connection (after an idle close or a restart) has not shown the
        # token yet: on task_not_found it is shown once, then the call repeats.
        broken = False
        while True:
            try:
                return await self._resuming(spec.method, params)
            except ConnectError as exc:
                raise _not_running(exc) from None
            except (ConnectionLost, TimeoutError) as exc:
                if broken:
                    raise _broken(exc) from None
                broken = True
            except BadReply as exc:
                raise _broken(exc) from None

    def session_summary(self) -> dict[str, Any]:
        task = self.task or {}
        grants = set(task.get("grants") or [])
        consent = task.get("consent") or {}
        notes = []
        if "memory.context" not in grants:
            notes.append("no recall or search: the owner's read consent is off (the operator "
                         "turns it on with `memctl consent set --read on`)"
                         if not consent.get("read") else
                         "no recall or search: the parent task has no read access")
        if "memory.write" not in grants:
            if task.get("role") == "subagent":
                notes.append("no memory_write: a subagent's memory is read-only")
            elif not consent.get("contribute"):
                notes.append("no memory_write: the owner's contribute consent is off")
            elif self.options.tools_used and not consent.get("learn_from_tools"):
                notes.append("no memory_write: this session used external tools and the "
                             "owner's learn_from_tools consent is off")
        return {
            "task_id": task.get("task_id"),
            "role": task.get("role"),
            "scopes": task.get("scopes"),
            "consent": consent,
            "grants": sorted(grants),
            "tools": [s.name for s in self.granted() if s.grant is not None],
            "notes": notes,
        }


# --- the MCP server ---------------------------------------------------------------


def build_server(bridge: Bridge) -> Server[Any]:
    @asynccontextmanager
    async def lifespan(_server: Server[Any]) -> AsyncIterator[Bridge]:
        # The task begins with the session and ends with it.
        task = await bridge.ensure_task()
        if task is None and bridge.begin_error is not None:
            note(f"no memoryd task yet ({bridge.begin_error['code']}): "
                 f"{bridge.begin_error['message']}")
        try:
            yield bridge
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(5):
                await bridge.close()

    async def on_list_tools(ctx: Any, _params: types.PaginatedRequestParams | None
                            ) -> types.ListToolsResult:
        bridge.connection = getattr(ctx, "session", None) or bridge.connection
        return types.ListToolsResult(tools=await bridge.list_tools())

    async def call_tool(ctx: Any, name: str, arguments: dict[str, Any] | None
                        ) -> dict[str, Any]:
        bridge.connection = getattr(ctx, "session", None) or bridge.connection
        try:
            return await bridge.call_tool(name, arguments)
        except MCPError:
            raise
        except Exception as exc:  # noqa: BLE001 (no stack trace or text may reach the client)
            incident = secrets.token_hex(6)
            note(f"internal error {type(exc).__name__} (incident {incident})")
            return _error_result({
                "code": "bridge_internal_error",
                "message": f"the bridge failed unexpectedly (incident {incident})",
                "recovery": "try again; if it persists, give the operator the incident id",
            })

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams
                           ) -> dict[str, Any]:
        return await call_tool(ctx, params.name, params.arguments)

    server: Server[Any] = Server(SERVER_NAME, version=_version(), instructions=INSTRUCTIONS,
                                 lifespan=lifespan, on_list_tools=on_list_tools)
    # Registered by method rather than as on_call_tool: the handler answers a
    # dict already in the result's wire form, which the SDK takes from any
    # request handler.
    server.add_request_handler("tools/call", types.CallToolRequestParams, on_call_tool)
    # The SDK opens an OpenTelemetry span around every message; the bridge
    # exports none (no tracer provider is ever set), so each span was work for
    # nothing on every call. A well-formed tools/call is served by the same
    # handler without the SDK's per-call checks (memctl.mcp_serve).
    server.middleware = [m for m in server.middleware
                         if type(m).__name__ != "OpenTelemetryMiddleware"]
    server.middleware.append(DirectToolCalls(server, call_tool))
    return server


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("memoryd")
    except Exception:  # noqa: BLE001 (a version string is cosmetic)
        return "0"


def note(text: str) -> None:
    """One line on stderr, which MCP clients keep as the server's log."""
    print(f"memctl mcp: {text}", file=sys.stderr, flush=True)


async def serve(bridge: Bridge) -> None:
    server = build_server(bridge)

    async with anyio.create_task_group() as tg:
        async def stop_on_signal() -> None:
            # Ending the stream ends the session, and the lifespan ends the task.
            with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT,
                                            signal.SIGHUP) as received:
                async for _signum in received:
                    tg.cancel_scope.cancel()
                    return

        async def run_session() -> None:
            # tools/list_changed is declared: the watcher sends it when the
            # session's grants change (consent switched, token revoked).
            options = server.create_initialization_options(
                NotificationOptions(tools_changed=True))
            # On pipes (as MCP clients start the bridge) and files the
            # messages are read and written on the loop (memctl.mcp_stdio);
            # on a terminal through the SDK's stdio transport.
            with loop_stdio() as streams:
                if streams is not None:
                    await serve_session(server, *streams, options)
                else:
                    async with stdio_server() as (read_stream, write_stream):
                        await serve_session(server, read_stream, write_stream, options)
            tg.cancel_scope.cancel()

        tg.start_soon(stop_on_signal)
        tg.start_soon(run_session)
        tg.start_soon(bridge.watch)


# --- command line -----------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memctl mcp", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "An MCP server over stdio for agent clients. One session is one memoryd task on\n"
            "HOME/run/agent.sock (never control.sock); the tools offered are those the task's\n"
            "grants allow. The agent token, if any, is read from $MEMORYD_AGENT_TOKEN."
        ),
        epilog=(
            "examples:\n"
            "  memctl mcp\n"
            "  memctl --home /srv/memoryd mcp --tools-used\n"
            "  memctl mcp --role subagent --parent-task tsk_...\n"
            "see docs/agents.md for client configuration."
        ),
    )
    parser.add_argument("--workspace", metavar="DIR",
                        help="the workspace whose memory scope the task uses (default: the "
                             "working directory)")
    parser.add_argument("--scope", action="append", dest="scopes", metavar="SCOPE",
                        help="a memory scope for the task instead of the workspace's "
                             "(repeatable; needed with a token limited to scopes)")
    parser.add_argument("--tools-used", action="store_true",
                        help="this agent uses external tools (browser, web search, other MCP "
                             "servers): writes then also need learn_from_tools consent")
    parser.add_argument("--role", choices=("main", "subagent"), default="main",
                        help="subagent: read-only, sees its parent task's memory")
    parser.add_argument("--watch", type=float, default=2.0, metavar="SECONDS",
                        help="how often to check whether consent or the token changed, so "
                             "the client is told when the tools change (default 2)")
    parser.add_argument("--parent-task", metavar="TASK_ID",
                        help=f"the parent task of a subagent (default: ${PARENT_TASK_ENV})")
    return parser


def parse_args(argv: Sequence[str], *, home: str | None = None,
               timeout: float = 30.0) -> Options:
    args = _parser().parse_args(list(argv))
    parent = args.parent_task or os.environ.get(PARENT_TASK_ENV) or None
    if args.role == "subagent" and parent is None:
        _parser().error(f"--role subagent needs --parent-task or ${PARENT_TASK_ENV}")
    return Options(
        socket=agent_socket(resolve_home(home)),
        token=os.environ.get(TOKEN_ENV) or None,
        workspace=os.path.abspath(args.workspace) if args.workspace else os.getcwd(),
        scopes=tuple(args.scopes) if args.scopes else None,
        role=args.role,
        parent_task=parent,
        tools_used=args.tools_used,
        timeout=timeout,
        watch=max(args.watch, 0.05),
    )


def main(argv: Sequence[str], *, home: str | None = None, timeout: float = 30.0) -> int:
    """Run the bridge until the client closes the session; the exit status
    is 0 then, 2 for bad usage."""
    try:
        options = parse_args(argv, home=home, timeout=timeout)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    anyio.run(serve, Bridge(options))
    return 0
