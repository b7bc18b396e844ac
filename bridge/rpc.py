"""JSON-RPC 2.0, the envelope and batch layer: text in, request objects or error objects out.

Nothing here knows a method's meaning, the journal or the engine: it parses a message,
checks each request object (``jsonrpc``, ``id``, ``method``, ``params``) and the batch
rules, and builds the response objects. Every refusal says where (``$.id``,
``$.params``) and why; see ``errors.py`` for the codes.

The rules kept here, from the JSON-RPC 2.0 specification (https://www.jsonrpc.org/specification):
a request object has exactly the members ``jsonrpc`` ("2.0"), ``method``, ``params``
and ``id``; an error about a request whose id cannot be read has id null; an empty
batch is one Invalid Request error, not an empty array; a batch is answered with an
array. The bridge adds: every request needs an id (no notifications), params are by
name, ids are bounded in length, and integers past 64 bits are refused rather than
echoed rounded.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from typing import Any, TypeGuard

import orjson
from fracas.requests import key_path

from . import errors
from .errors import BridgeError
from .journal import id_key

_ENVELOPE_MEMBERS = frozenset({"jsonrpc", "id", "method", "params"})


@dataclasses.dataclass(frozen=True)
class Call:
    """A well-formed request: its id, method and params, and the id's journal key."""

    id: int | str
    method: str
    params: dict[str, Any]
    #: ``id_key(id)``, made once per request: the claims, the journal, the log and errors use it.
    key: str


class Refused(Exception):
    """Not a usable request: answer ``error`` with ``request_id`` (None if unknown)."""

    def __init__(self, request_id: int | str | None, error: BridgeError) -> None:
        super().__init__(error.message)
        self.request_id = request_id
        self.error = error


def type_name(value: Any) -> str:
    """What a JSON value is, as an error message says it ("a string", "an array")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "a number"
    if isinstance(value, float):  # what the parser gives for 1.5, 1e3 and integers past 64 bits
        return "a number with a fraction or an exponent" if not value.is_integer() or abs(value) < 2**63 \
            else "an integer outside -2^63 … 2^64 - 1"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def success(request_id: int | str, result: Any) -> dict[str, Any]:
    """A response object carrying ``result``."""
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def failure(request_id: int | str | None, error: BridgeError) -> dict[str, Any]:
    """A response object carrying ``error`` (``request_id`` None when it could not be read)."""
    return {"jsonrpc": "2.0", "id": request_id, "error": error.to_error()}


def parse(message: str | bytes, max_depth: int) -> Any:
    """The JSON value of one websocket message; raise Refused if there is none to answer.

    A binary frame, text that is not JSON, and a value nested past ``max_depth`` are
    refused (the last with the request's id when it can be read, and -32602 when the
    culprit is inside params). In a batch, an entry nested too deep is refused alone (a
    :class:`TooDeep` in its place, which :func:`envelope` refuses with its own error and
    path): the other entries are answered."""
    if not isinstance(message, str):
        raise Refused(None, errors.InvalidRequest(
            "binary frames are not accepted: send JSON-RPC 2.0 as UTF-8 text frames"))
    try:
        document = orjson.loads(message)
    except orjson.JSONDecodeError as exc:
        raise Refused(None, errors.ParseError(f"parse error: {exc}")) from None
    if isinstance(document, list):
        # Each entry on its own, one level less (the batch array is the first).
        return [TooDeep(*deep) if (deep := _too_deep_request(entry, max_depth - 1, max_depth)) else entry
                for entry in document]
    deep = _too_deep_request(document, max_depth, max_depth) if isinstance(document, dict) else None
    if deep is not None:
        raise Refused(*deep)
    return document


class TooDeep:
    """A batch entry nested past max_depth, in its place: refused alone (see :func:`envelope`)."""

    __slots__ = ("request_id", "error")

    def __init__(self, request_id: int | str | None, error: BridgeError) -> None:
        self.request_id, self.error = request_id, error


def _too_deep_request(document: Any, limit: int, max_depth: int) -> tuple[int | str | None, BridgeError] | None:
    """(id, error) of a request nested past ``limit`` levels (its path from the request object), or None."""
    if not isinstance(document, (dict, list)):
        return None
    deep = too_deep(document, limit)
    if deep is None:
        return None
    request_id = document.get("id") if isinstance(document, dict) else None
    if isinstance(request_id, bool) or not isinstance(request_id, (int, str)):
        request_id = None
    error_class = errors.InvalidParams if deep.startswith("$.params") else errors.InvalidRequest
    return request_id, error_class.at(
        deep, f"nested deeper than {max_depth} levels of arrays and objects (max_depth)", limit=max_depth)


def too_deep(document: Any, limit: int) -> str | None:
    """The path of the first array or object nested past ``limit`` levels, or None.

    Iterative (no recursion to overflow), stops at the first one found, and builds
    a path only for that one (each container keeps a link to its parent).
    """
    stack: list[tuple[Any, int, Any]] = [(document, 1, None)]
    containers = (dict, list)
    while stack:
        value, depth, trail = stack.pop()
        if depth > limit:
            keys = []
            while trail is not None:
                trail, key = trail
                keys.append(key)
            path = "$"
            for key in reversed(keys):
                path = f"{path}[{key}]" if isinstance(key, int) else key_path(path, key)
            return path
        children = value.items() if isinstance(value, dict) else enumerate(value)
        for key, child in children:
            if isinstance(child, containers):
                stack.append((child, depth + 1, (trail, key)))
    return None


def check_batch(documents: list[Any], max_batch: int) -> BridgeError | None:
    """Why a batch (an array message) is refused whole, or None: empty, or past ``max_batch``."""
    if not documents:
        return errors.InvalidRequest.at("$", "empty batch")
    if len(documents) > max_batch:
        return errors.LimitExceeded.at(
            "$", f"batch of {len(documents)} requests is longer than the limit of {max_batch}", limit=max_batch)
    return None


def envelope(document: Any, methods: Collection[str], max_id_length: int, key: str | None = None) -> Call:
    """Check one JSON-RPC 2.0 request object; raise Refused if it is not one.

    ``methods`` are the names that exist (listed, in order, in the method-not-found
    error); ``key`` is the id's journal key when the caller has made it already."""
    if isinstance(document, TooDeep):
        raise Refused(document.request_id, document.error)
    if not isinstance(document, dict):
        raise Refused(None, errors.InvalidRequest.at(
            "$", f"expected a JSON-RPC request object, got {type_name(document)}"))
    request_id = _request_id(document, max_id_length)
    try:
        return Call(request_id, _method(document, methods), _params(document),
                    id_key(request_id) if key is None else key)
    except BridgeError as error:
        raise Refused(request_id, error) from None


def valid_id(value: Any) -> TypeGuard[int | str]:
    """Whether ``value`` can be an id: a string or an integer (not a boolean)."""
    return isinstance(value, (int, str)) and not isinstance(value, bool)


def _request_id(document: dict[str, Any], max_id_length: int) -> int | str:
    if "id" not in document:
        reason = "missing: every request needs an id (it is the idempotency key)"
        raise Refused(None, errors.InvalidRequest.at("$.id", reason))
    request_id = document["id"]
    if not valid_id(request_id):
        reason = f"must be a string or an integer, got {type_name(request_id)}"
        if isinstance(request_id, float) and request_id.is_integer() and abs(request_id) >= 2**63:
            # The parser keeps integers of -2^63 … 2^64 - 1 exactly; a larger one would be
            # echoed rounded (another id), so it is refused rather than answered under a wrong id.
            reason += " (integer ids must be -2^63 … 2^64 - 1 to be echoed exactly; use a string id)"
        raise Refused(None, errors.InvalidRequest.at("$.id", reason))
    if isinstance(request_id, str) and len(request_id) > max_id_length:
        reason = f"{len(request_id)} characters is longer than the limit of {max_id_length}"
        raise Refused(None, errors.InvalidRequest.at("$.id", reason))
    return request_id


def _method(document: dict[str, Any], methods: Collection[str]) -> str:
    for member in document:
        if member not in _ENVELOPE_MEMBERS:
            raise errors.InvalidRequest.at(key_path("$", member), "unknown member")
    if document.get("jsonrpc") != "2.0":
        raise errors.InvalidRequest.at("$.jsonrpc", 'must be "2.0"')
    if "method" not in document:
        raise errors.InvalidRequest.at("$.method", "missing")
    method = document["method"]
    if not isinstance(method, str):
        raise errors.InvalidRequest.at("$.method", f"must be a string, got {type_name(method)}")
    if method not in methods:
        raise errors.MethodNotFound(f"method not found: {method!r} (methods: {', '.join(methods)})", method=method)
    return method


def _params(document: dict[str, Any]) -> dict[str, Any]:
    params = document.get("params", {})
    if not isinstance(params, dict):
        raise errors.InvalidParams.at("$.params", f"must be an object (by-name params), got {type_name(params)}")
    return params


def only(params: dict[str, Any], allowed: Collection[str], *, required: Collection[str] = frozenset()) -> None:
    """Params of the bridge's own methods: no unknown names, none missing."""
    for name in params:
        if name not in allowed:
            raise errors.InvalidParams.at(key_path("$.params", name), "unknown parameter")
    for name in sorted(required):
        if name not in params:
            raise errors.InvalidParams.at(f"$.params.{name}", "missing")
