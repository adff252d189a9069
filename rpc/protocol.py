"""JSON-RPC 2.0 dispatch: from one frame to one reply line.

Owns the request envelope, batches, notifications, params conversion and the
method wrapper. A socket server feeds ``Dispatcher.handle_frame`` one frame at
a time and writes back what it returns; the dispatcher has no I/O of its own.

Invariants:
- ``handle_frame`` never raises for anything a client sends and never answers
  with exception text: every failure goes through ``rpc.errors``;
- an envelope is ``{"jsonrpc": "2.0", "method": str, "params"?: object |
  array, "id"?: str | int | null}`` and nothing else; anything else is
  ``-32600`` with id null (each bad element of a batch gets its own);
- params reach a handler only as an instance of its ``MethodSpec.params``
  Struct; when they do not convert, ``-32602`` lists every bad field by path
  and expected type, never by value, and unknown keys are not echoed;
- notifications (no ``id``) run but are never answered, also on error;
- a batch is answered as an array in request order, minus notifications;
  an empty batch is one ``-32600`` and a batch over ``max_batch`` is one
  ``batch_too_large``, both with id null and without running anything.

How jsonrpcserver is used: through its public API, one request at a time.
A frame is decoded here (strict JSON, our own envelope rules, per-element
errors in a batch), then each request is handed to
``async_dispatch_to_serializable`` with a deserializer that returns the
already-decoded request and a validator that accepts it (its jsonschema
validator would re-check what the envelope Struct has checked). Its own batch
path is not used: it gathers a batch with ``asyncio.gather`` (asyncio-only, and
a batch's writes would interleave). Every method in its table is our wrapper:
the params object travels as one positional argument (so Python's keyword
binding never sees client keys and argument validation cannot fail), unknown
methods are answered before it is called (its not-found reply would echo the
name), and the wrapper catches everything (its ``str(exc)`` fallback is
unreachable). The per-call cost is measured by ``bench/dispatch.py``.
"""

from __future__ import annotations

import functools
import inspect
import re
import types
import typing
import warnings
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

import msgspec
import msgspec.inspect as mi

from memoryd.kernel.errors import LimitExceeded
from memoryd.rpc.errors import (
    InvalidParams,
    InvalidRequest,
    MethodNotFound,
    ParseError,
    new_incident_id,
    to_error_object,
)
from memoryd.rpc.framing import FrameDecodeError, decode_frame, encode_value, is_blank

with warnings.catch_warnings():
    # jsonrpcserver 5.0.9 reads its bundled JSON schema at import with
    # importlib.resources.read_text (which calls open_text), both deprecated
    # since Python 3.11. Silence exactly these two warnings for this import
    # only, so the suite's warnings-as-errors still catches everything else.
    warnings.filterwarnings(
        "ignore", message=r"(read|open)_text is deprecated", category=DeprecationWarning
    )
    from jsonrpcserver import Error, Success, async_dispatch_to_serializable

__all__ = [
    "DEFAULT_MAX_BATCH",
    "CallContext",
    "Dispatcher",
    "Handler",
    "MethodSpec",
    "describe",
    "param_errors",
    "tables",
]

DEFAULT_MAX_BATCH: Final = 50


@dataclass(frozen=True, slots=True)
class CallContext:
    """Who is calling, fixed per connection by the server (never by the client)."""

    channel: str
    peer_uid: int
    peer_pid: int | None
    conn_id: str


Handler = Callable[[CallContext, Any], Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class MethodSpec:
    """One method: its wire name, params Struct, handler, result Struct and sockets.

    The handler gets ``(ctx, params)`` with ``params`` an instance of
    ``params``. With ``result`` set it must return an instance of it (anything
    else is an incident, never a reply of another shape); without, any
    JSON-able value. ``on_agent``: served on agent.sock as well as on
    control.sock (which serves every method).
    """

    name: str
    params: type[msgspec.Struct]
    handler: Handler
    result: type[msgspec.Struct] | None = None
    on_agent: bool = False


def tables(specs: Iterable[MethodSpec], *,
           max_batch: int = DEFAULT_MAX_BATCH) -> tuple[Dispatcher, Dispatcher]:
    """The agent.sock and control.sock dispatchers for ``specs``: control
    serves all of them, agent only those marked ``on_agent``. A name given
    twice is a ``ValueError`` (one module would silently shadow another)."""
    control: dict[str, MethodSpec] = {}
    for spec in specs:
        if spec.name in control:
            raise ValueError(f"method {spec.name!r} is declared twice")
        control[spec.name] = spec
    agent = {name: spec for name, spec in control.items() if spec.on_agent}
    return Dispatcher(agent, max_batch=max_batch), Dispatcher(control, max_batch=max_batch)


class _Envelope(msgspec.Struct, forbid_unknown_fields=True):
    # Unknown members are refused like unknown params: a field the daemon
    # ignores could be one the client believes matters.
    jsonrpc: Literal["2.0"]
    method: str
    params: dict[str, Any] | list[Any] | msgspec.UnsetType = msgspec.UNSET
    id: int | str | msgspec.UnsetType | None = msgspec.UNSET


_JSONRPC: Final = "2.0"


def _error_reply(error: dict[str, Any], id_: Any = None) -> dict[str, Any]:
    return {"jsonrpc": _JSONRPC, "error": error, "id": id_}


def _protocol_reply(exc: Exception, id_: Any = None) -> dict[str, Any]:
    return _error_reply(to_error_object(exc), id_)


class Dispatcher:
    """Turns frames into reply lines for one method table (one socket)."""

    def __init__(self, methods: Mapping[str, MethodSpec], *,
                 max_batch: int = DEFAULT_MAX_BATCH) -> None:
        if max_batch < 1:
            raise ValueError("max_batch must be at least 1")
        table: dict[str, Callable[..., Awaitable[Any]]] = {}
        for name, spec in methods.items():
            if name != spec.name:
                raise ValueError(f"method table key {name!r} != spec name {spec.name!r}")
            if not (isinstance(spec.params, type) and issubclass(spec.params, msgspec.Struct)):
                raise TypeError(f"params of {name!r} must be a msgspec Struct type")
            table[name] = _wrap(spec)
        self._specs: dict[str, MethodSpec] = dict(methods)
        self._table = table
        self._max_batch = max_batch

    @property
    def methods(self) -> frozenset[str]:
        return frozenset(self._specs)

    async def handle_frame(self, frame: bytes, ctx: CallContext) -> bytes | None:
        """Answer one frame: the encoded reply without its newline, or ``None``
        when nothing is to be sent (notifications, blank lines)."""
        try:
            reply = await self._handle(frame, ctx)
            return None if reply is None else encode_value(reply)
        except Exception as exc:  # noqa: BLE001 - the last line of defence:
            # a bug in this module (or an unencodable handler result that
            # slipped through) is still an opaque -32603, never a dropped
            # connection or exception text.
            return encode_value(_error_reply(to_error_object(exc)))

    async def _handle(self, frame: bytes, ctx: CallContext) -> Any:
        if is_blank(frame):
            return None
        try:
            value = decode_frame(frame)
        except FrameDecodeError as exc:
            return _protocol_reply(
                ParseError(message=exc.message, details={"reason": exc.reason}))
        if not isinstance(value, list):
            return await self._handle_one(value, ctx)
        if not value:
            return _protocol_reply(InvalidRequest("empty_batch"))
        if len(value) > self._max_batch:
            return _protocol_reply(LimitExceeded(
                "batch_too_large", details={"max_batch": self._max_batch},
            ))
        replies = []
        # One after the other, in order: a batch of writes applies in the order
        # the client wrote it.
        for item in value:
            reply = await self._handle_one(item, ctx)
            if reply is not None:
                replies.append(reply)
        return replies or None

    async def _handle_one(self, item: Any, ctx: CallContext) -> dict[str, Any] | None:
        try:
            env = msgspec.convert(item, _Envelope, strict=True)
        except msgspec.ValidationError:
            return _protocol_reply(InvalidRequest())
        notification = env.id is msgspec.UNSET
        if env.method not in self._table:
            return None if notification else _protocol_reply(MethodNotFound(), env.id)
        if isinstance(env.params, list):
            # Positional params have no names to check against the schema.
            exc = InvalidParams([{"path": "$", "expected": "object"}])
            return None if notification else _protocol_reply(exc, env.id)
        request: dict[str, Any] = {
            "jsonrpc": _JSONRPC, "method": env.method,
            "params": [{} if env.params is msgspec.UNSET else env.params],
        }
        if not notification:
            request["id"] = env.id
        reply = await async_dispatch_to_serializable(
            "", self._table, context=ctx,
            # The frame is already decoded and its envelope checked above.
            deserializer=lambda _text: request, validator=_accept,
        )
        # One request in, one reply out; a notification is never answered
        # (jsonrpcserver gives None for it already).
        return reply if isinstance(reply, dict) and not notification else None


def _accept(request: Any) -> Any:
    """jsonrpcserver's validator hook: the envelope Struct has checked it."""
    return request


def _wrap(spec: MethodSpec) -> Callable[[CallContext, dict[str, Any]], Awaitable[Any]]:
    """The jsonrpcserver method for ``spec``: convert params, call, encode.

    Returns jsonrpcserver results only; never raises an ``Exception``.
    """
    params_type = spec.params
    handler = spec.handler
    result_type = spec.result

    async def method(ctx: CallContext, raw: dict[str, Any], /) -> Any:
        try:
            try:
                params = msgspec.convert(raw, params_type, strict=True)
            except msgspec.ValidationError as exc:
                raise InvalidParams(param_errors(raw, params_type, exc)) from None
            result = await handler(ctx, params)
            if result_type is not None and type(result) is not result_type:
                # A handler answering another shape than its method declares
                # is a bug: an opaque incident, never an undeclared reply.
                raise TypeError(f"{spec.name} returned {type(result).__name__}")
            # Encoded here, inside the guard, so an unencodable result is an
            # incident like any other failure; the reply embeds the bytes.
            encoded = msgspec.Raw(encode_value(result))
        except Exception as exc:  # noqa: BLE001 - every failure becomes a wire
            # error through rpc.errors; nothing may reach jsonrpcserver's own
            # handler, which would reply with str(exc).
            try:
                err = to_error_object(exc)
            except Exception:  # noqa: BLE001 - e.g. unencodable details: still opaque
                err = {"code": -32603, "message": "Internal error",
                       "data": {"incident": new_incident_id()}}
            return Error(err["code"], err["message"], err["data"])
        return Success(encoded)

    method.__name__ = method.__qualname__ = f"rpc_{spec.name}"
    # jsonrpcserver binds every call against ``inspect.signature(method)``,
    # which honours ``__signature__``: stated once here rather than derived
    # from the code object on every request (about 66 K instructions a call,
    # 3% of a governed write, measured with callgrind).
    method.__signature__ = inspect.signature(method)  # type: ignore[attr-defined]
    return method


# --- params errors --------------------------------------------------------

# A path as msgspec prints it: struct field names, indices and "[...]" for
# dict keys. Anything else (a quoted key, say) is not used.
_SAFE_PATH: Final = re.compile(r"- at `(\$(?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\]|\[\.\.\.\])*)`$")


def param_errors(raw: Any, params_type: type[msgspec.Struct],
                 exc: msgspec.ValidationError | None = None) -> list[dict[str, str]]:
    """Every bad field of ``raw`` against ``params_type``.

    msgspec stops at the first problem, so each field is converted on its own;
    nested Structs (and arrays of them) are walked into. ``expected`` is
    derived from the schema, never from msgspec's message, which can quote the
    value. When no single field is at fault (a cross-field rule in
    ``__post_init__``), one ``{"path", "problem": "invalid"}`` is returned.
    """
    errors: list[dict[str, str]] = []
    _struct_errors(raw, params_type, "$", errors)
    if not errors:
        match = _SAFE_PATH.search(str(exc)) if exc is not None else None
        errors.append({"path": match.group(1) if match else "$", "problem": "invalid"})
    return errors


@functools.cache
def _struct_plan(cls: type[msgspec.Struct]) -> tuple[
        tuple[tuple[str, Any, mi.Type, bool], ...], frozenset[str], bool]:
    """(encode_name, python type, inspect type, required) per field, the set
    of known keys, and whether unknown keys are refused. Built once per type."""
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    py_fields = msgspec.structs.fields(cls)
    fields = tuple(
        (f.encode_name, p.type, f.type, f.required)
        for f, p in zip(info.fields, py_fields, strict=True)
    )
    known = {f.encode_name for f in info.fields}
    if info.tag_field is not None:
        known.add(info.tag_field)
    return fields, frozenset(known), info.forbid_unknown_fields


def _struct_errors(raw: Any, cls: type[msgspec.Struct], path: str,
                   errors: list[dict[str, str]]) -> None:
    if not isinstance(raw, dict):
        errors.append({"path": path, "expected": "object"})
        return
    fields, known, forbid_unknown = _struct_plan(cls)
    if forbid_unknown and any(key not in known for key in raw):
        # One entry per object: the keys themselves are client data.
        errors.append({"path": path, "problem": "unknown_field"})
    for name, py_type, info, required in fields:
        field_path = f"{path}.{name}"
        if name not in raw:
            if required:
                errors.append({"path": field_path, "problem": "missing_field",
                               "expected": describe(info)})
            continue
        _value_errors(raw[name], py_type, info, field_path, errors)


def _value_errors(value: Any, py_type: Any, info: mi.Type, path: str,
                  errors: list[dict[str, str]]) -> None:
    try:
        msgspec.convert(value, py_type, strict=True)
        return
    except msgspec.ValidationError:
        pass
    before = len(errors)
    struct = _struct_for(value, info)
    if struct is not None:
        _struct_errors(value, struct, path, errors)
    elif (isinstance(value, list) and isinstance(items := _array_for(info), mi.ListType)
          and (item_type := _py_item_type(py_type)) is not None
          and _length_ok(len(value), items.min_length, items.max_length)):
        for index, item in enumerate(value):
            _value_errors(item, item_type, items.item_type, f"{path}[{index}]", errors)
    if len(errors) == before:
        errors.append({"path": path, "expected": describe(info)})


def _members(info: mi.Type) -> tuple[mi.Type, ...]:
    return info.types if isinstance(info, mi.UnionType) else (info,)


def _struct_for(value: Any, info: mi.Type) -> type[msgspec.Struct] | None:
    """The Struct a dict value was meant to be, if the schema says so."""
    if not isinstance(value, dict):
        return None
    structs = [m for m in _members(info) if isinstance(m, mi.StructType)]
    if len(structs) == 1:
        return structs[0].cls
    for member in structs:  # a tagged union: the tag picks the member
        if member.tag_field is not None and value.get(member.tag_field) == member.tag:
            return member.cls
    return None


def _array_for(info: mi.Type) -> mi.Type | None:
    arrays = [m for m in _members(info) if isinstance(m, mi.ListType)]
    return arrays[0] if len(arrays) == 1 else None


def _py_item_type(py_type: Any) -> Any:
    """The item type of the one ``list[...]`` in an annotation, else None."""
    if typing.get_origin(py_type) is typing.Annotated:
        return _py_item_type(typing.get_args(py_type)[0])
    if typing.get_origin(py_type) is list:
        return typing.get_args(py_type)[0]
    if typing.get_origin(py_type) in (typing.Union, types.UnionType):
        found = [t for t in map(_py_item_type, typing.get_args(py_type)) if t is not None]
        return found[0] if len(found) == 1 else None
    return None


def _length_ok(n: int, low: int | None, high: int | None) -> bool:
    return (low is None or n >= low) and (high is None or n <= high)


def _bounds(low: Any, high: Any, unit: str = "") -> str:
    if low is not None and high is not None:
        return f"{low}..{high}{unit}"
    if low is not None:
        return f">= {low}{unit}"
    return f"<= {high}{unit}"


def describe(info: mi.Type) -> str:
    """A short, value-free name for what a schema type accepts."""
    if isinstance(info, mi.UnionType):
        return " | ".join(dict.fromkeys(describe(m) for m in info.types))
    if isinstance(info, mi.StrType):
        parts = ["str"]
        if info.min_length is not None or info.max_length is not None:
            parts.append(f"length {_bounds(info.min_length, info.max_length)}")
        if info.pattern is not None:
            parts.append(f"matching {info.pattern}")
        return ", ".join(parts)
    if isinstance(info, mi.IntType | mi.FloatType):
        name = "int" if isinstance(info, mi.IntType) else "float"
        limits = [f"{op} {v}" for op, v in
                  ((">", info.gt), (">=", info.ge), ("<", info.lt), ("<=", info.le))
                  if v is not None]
        return ", ".join([name, *limits])
    if isinstance(info, mi.LiteralType):
        return " | ".join(msgspec.json.encode(v).decode() for v in info.values)
    if isinstance(info, mi.EnumType):
        # Sorted, as msgspec lists a Literal's values: the same choices read
        # the same whether the Struct spells them as a Literal or an enum.
        return " | ".join(msgspec.json.encode(v).decode()
                          for v in sorted(m.value for m in info.cls))
    if isinstance(info, mi.ListType | mi.SetType | mi.FrozenSetType | mi.VarTupleType):
        item = describe(info.item_type)
        text = f"array of ({item})" if " | " in item else f"array of {item}"
        if info.min_length is not None or info.max_length is not None:
            text += f", {_bounds(info.min_length, info.max_length, ' items')}"
        return text
    if isinstance(info, mi.TupleType):
        return "array [" + ", ".join(describe(t) for t in info.item_types) + "]"
    if isinstance(info, mi.DictType):
        return f"object of {describe(info.value_type)}"
    if isinstance(info, mi.StructType) and info.tag_field is not None:
        return f"object with {info.tag_field} {msgspec.json.encode(info.tag).decode()}"
    if isinstance(info, mi.StructType | mi.TypedDictType | mi.DataclassType):
        return "object"
    if isinstance(info, mi.DateTimeType):
        return "RFC 3339 datetime"
    simple = {
        mi.NoneType: "null", mi.BoolType: "bool", mi.AnyType: "any",
        mi.DateType: "date", mi.TimeType: "time", mi.UUIDType: "uuid",
        mi.BytesType: "base64 str", mi.DecimalType: "decimal",
    }
    return simple.get(type(info), type(info).__name__.removesuffix("Type").lower())
