"""The errors a user can cause, in one family.

    FracasError
     └── RequestError          a request fracas will not resolve; `.path` says where
          ├── SchemaError      malformed: wrong type, unknown field, value out of range
          ├── RulesError       well formed, but impossible by the rules (ER-14 …)
          ├── DiceError        injected `rolls` that do not fit the dice drawn
          └── LimitError       larger than the engine or the bridge accepts
     └── Cancelled             the caller asked a bulk request to stop (nothing is returned)

Every message names the field path (`$.strikes[1].dice`) and the reason, and
`str(error)` is `"<path>: <reason>"`. The CLI maps the family to exit code 2, the
bridge each class to a JSON-RPC error code (its one map: `fracas.bridge.errors.ENGINE_ERRORS`);
the engine itself knows no transport.
"""

from __future__ import annotations


class FracasError(Exception):
    """Base of every error fracas raises on purpose."""


class RequestError(FracasError, ValueError):
    """A request fracas will not resolve; `path` says where, `reason` why."""

    def __init__(self, path: str, reason: str):
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")

    def to_dict(self) -> dict[str, str]:
        """JSON-ready form: the kind, the path and the reason."""
        return {"type": type(self).__name__, "path": self.path, "reason": self.reason,
                "message": str(self)}


class SchemaError(RequestError):
    """Malformed request: a wrong type, an unknown field, a value out of range."""


class RulesError(RequestError):
    """A well-formed request the rules forbid (a stunned attacker, a sneak attack at disadvantage)."""


class DiceError(RequestError):
    """Injected `rolls` that run out, are left over, or do not fit their die."""


class LimitError(RequestError):
    """A request larger than fracas accepts (crit chain safety cap, bulk detail size)."""


class Cancelled(FracasError):
    """Work stopped because the caller's `cancel` event was set (a bulk request between chunks).

    Not a `RequestError`: the request was fine, whoever asked for it went away."""
