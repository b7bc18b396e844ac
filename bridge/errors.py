"""Errors the bridge answers with, as JSON-RPC 2.0 error objects.

Every error a client can cause becomes one reply; none of them closes the
connection except a failed authentication.

    BridgeError                       code      when
    ├── ParseError                    -32700    the message is not JSON
    ├── InvalidRequest                -32600    not a JSON-RPC 2.0 request object
    ├── MethodNotFound                -32601    no such method
    ├── InvalidParams                 -32602    params malformed (engine SchemaError too)
    ├── InternalError                 -32603    a bug: logged, never crashes the bridge
    ├── RulesError                    -32001    an impossible attack (engine RulesError)
    ├── DiceError                     -32002    injected rolls wrong (engine DiceError)
    ├── LimitExceeded                 -32003    too large (bridge limits, engine LimitError)
    ├── AuthenticationFailed          -32004    no, wrong or late auth
    ├── IdReused                      -32005    same id, different request
    ├── NotInJournal                  -32006    journal.get / journal.replay of an unknown id
    └── ShuttingDown                  -32010    the bridge is draining; nothing was done

An error about one place says where and why: the message is ``"<path>: <reason>"``
and ``data`` has ``path`` and ``reason``. The path locates the culprit inside the
JSON-RPC request object (``$.params.strikes[1].dice``, ``$.id``); engine paths,
which are relative to the engine request, are re-rooted under ``$.params``.
"""

from __future__ import annotations

from typing import Any

from fracas import errors as engine
from fracas._facts import (  # noqa: F401 - the codes, from the shared spec
    AUTHENTICATION_FAILED, DICE_ERROR, ID_REUSED, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST,
    LIMIT_EXCEEDED, METHOD_NOT_FOUND, NOT_IN_JOURNAL, PARSE_ERROR, RULES_ERROR, SHUTTING_DOWN,
)


class BridgeError(Exception):
    """A JSON-RPC error reply: ``code``, a short message, optional ``data``."""

    code = INTERNAL_ERROR

    def __init__(self, message: str, *, path: str | None = None, **data: Any) -> None:
        super().__init__(message)
        self.message = message
        self.data: dict[str, Any] = {} if path is None else {"path": path}
        self.data.update(data)

    @classmethod
    def at(cls, path: str, reason: str, **data: Any) -> BridgeError:
        """An error about one place: message ``"<path>: <reason>"``, both also in data."""
        return cls(f"{path}: {reason}", path=path, reason=reason, **data)

    def to_error(self) -> dict[str, Any]:
        """The JSON-RPC ``error`` member."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data:
            error["data"] = self.data
        return error


class ParseError(BridgeError):
    code = PARSE_ERROR


class InvalidRequest(BridgeError):
    code = INVALID_REQUEST


class MethodNotFound(BridgeError):
    code = METHOD_NOT_FOUND


class InvalidParams(BridgeError):
    code = INVALID_PARAMS


class InternalError(BridgeError):
    code = INTERNAL_ERROR


class RulesError(BridgeError):
    code = RULES_ERROR


class DiceError(BridgeError):
    code = DICE_ERROR


class LimitExceeded(BridgeError):
    code = LIMIT_EXCEEDED


class AuthenticationFailed(BridgeError):
    code = AUTHENTICATION_FAILED


class IdReused(BridgeError):
    code = ID_REUSED


class NotInJournal(BridgeError):
    code = NOT_IN_JOURNAL


class ShuttingDown(BridgeError):
    code = SHUTTING_DOWN


#: The one map from the engine's request errors (fracas.errors) to the bridge's, and so to
#: JSON-RPC codes: most specific first (every engine request error is a RequestError).
ENGINE_ERRORS: tuple[tuple[type[engine.RequestError], type[BridgeError]], ...] = (
    (engine.SchemaError, InvalidParams),
    (engine.RulesError, RulesError),
    (engine.DiceError, DiceError),
    (engine.LimitError, LimitExceeded),
    (engine.RequestError, InvalidParams),
)


def from_engine(error: engine.RequestError) -> BridgeError:
    """The reply to a request the engine refused: same reason, its path under ``$.params``."""
    bridge_class = next(bridge for engine_class, bridge in ENGINE_ERRORS if isinstance(error, engine_class))
    return bridge_class.at(params_path(error.path), error.reason)


def params_path(engine_path: str) -> str:
    """Re-root an engine path (``$.strikes[0]``) under the request's params."""
    if engine_path == "$":
        return "$.params"
    if engine_path.startswith("$"):
        return "$.params" + engine_path[1:]
    return "$.params." + engine_path
