"""The seam between the drivers and the game systems: the `Ruleset` protocol.

A driver (single attack, bulk, initiative, the bridge, the CLI) finds the request's
ruleset in the registry (`fracas.rulesets`) and runs it through these calls; it
never names a ruleset. A ruleset is one folder (`fracas/rulesets/<name>/`) that
subclasses `Ruleset`, overrides what it supports, and registers an instance.

    driver                          ruleset
    ──────                          ───────
    parse JSON, pick the ruleset
                                    decode(kind, request)   -> typed request (.seed, .rolls)
    check seed and rolls
                                    compile_attack(typed)   -> plan (rules checks, errors with paths)
    seed → Dice (or injected faces)
                                    roll_attack(plan, dice, seed) -> result (.to_dict())
    leftover injected faces?
                                    render(result_dict, style) -> text for the terminal

Bulk requests compile to a `BulkJob`, which the bulk driver rolls chunk by chunk. A
ruleset rarely writes these calls itself: one whose strikes fit the row kernel subclasses
`rows.RowRuleset`, any other `generic.StrikeRuleset` (how one strike compiles and rolls;
attacks, bulk jobs, results and error paths are the base's).

**Request kinds are objects** (`Kind`): the kinds every driver knows (`ATTACK`, `BULK`,
`INITIATIVE`) are here; a ruleset adds its own (a competition, an impalement, a morale
check) from its folder. A kind names its request type's key,
the ruleset calls that compile and roll it, its bridge method (journaled; on the Roll20
relay's allowlist with `relay`), its `fracas` function, its result schema and its CLI
command; the drivers, the spec and the CLI iterate over
kinds and never spell a call by string.

**What the protocol requires, written down** (`REQUIREMENTS`; `check_ruleset` checks
the static ones when a ruleset registers, `check_bulk_job` and `check_odds_plan` the
shapes its compiled objects must have the first time a driver sees them; each error
names the ruleset, the kind and what is missing):

- every kind the manifest lists has a msgspec request type with `seed` (and `rolls`,
  except bulk), and the ruleset's compile (and, except bulk, roll) call for it;
- a bulk job has `total`, `detail`, `groups` (3 ints per `attacks` entry: first strike
  row, end row, count), `group_info` ((profile, target, count) per entry), `gil_free`,
  `new_totals`, `roll_chunk`, `merge`, `roll_listed` and `result`
  (`fracas.drive.listed_rows` and the bridge's budget read `groups` and `group_info`);
- exact odds read the compiled attack's `plan.targets` (target ids in request order);
- each kind's result has its shape declared, a msgspec Struct in `result_types[name]`
  (and the attack's exact odds in `result_types["odds"]`, default
  `fracas.rulesets.results.OddsResult`): the spec writes the bridge's exact result
  schemas from them, and the conformance suite checks every result against them
  (`fracas.rulesets.results` has the shared parts);
- whole fights build `{"attacker", "strikes", "targets"}` attack requests
  (`fracas.drive.scenario`), so a ruleset that plays fights (overrides
  `fight_initiative`) has an attack request type with those three fields.
"""

from __future__ import annotations

import dataclasses
from array import array
from typing import Any, Callable, NamedTuple, Optional, Protocol

import msgspec

from ..errors import RequestError, RulesError
from ..requests import decode, say
# A ruleset that does not keep the protocol: defined beside the manifest reader, which raises
# it first (reading the manifests, all `fracas --help` needs, imports nothing of this module).
from .manifest import RulesetInvalid as RulesetInvalid


@dataclasses.dataclass(frozen=True)
class Kind:
    """One kind of request: what the drivers, the bridge, the spec and the CLI need to know
    of it. A ruleset supports a kind by listing it in its manifest's `kinds`, giving its
    request type in `request_types[name]` and defining the calls named here."""

    #: The key in `Ruleset.request_types` and in a manifest's `kinds`.
    name: str
    #: The bridge's JSON-RPC method for it.
    method: str
    #: The `fracas` function that runs it (`fracas.resolve`); `fracas.roll(name, ...)` too.
    call: str
    #: How a leftover-faces error names the roll: "3 faces given, but {what} used only 2".
    what: str
    #: How an unsupported kind is named: "does not resolve {label} requests".
    label: str
    #: The ruleset's calls: compile (request → plan) and roll (plan, dice, seed → result).
    compile: str
    roll: Optional[str]
    #: The result's JSON Schema in the protocol (`bridge/schema.json` $defs; None:
    #: `result.<method>`): the spec makes it from each ruleset's `result_types[name]`, the
    #: shape of the ruleset the result names in `ruleset`.
    result: Optional[str] = None
    #: The CLI command that runs it, "module:attribute" of a click command, if any.
    command: Optional[str] = None
    #: Bulk: compiled to a `BulkJob` the bulk driver rolls, not rolled by the ruleset.
    bulk: bool = False
    #: Whether the Roll20 relay extension carries `method` from the Mod script to the bridge:
    #: only what the Mod sends (attacks of a ruleset without a JavaScript port, mobs' bulk
    #: requests). The relay's allowlist is generated from this (fracas.spec); a test checks
    #: it against the Mod script's answer handlers. (A kind's method always rolls: the
    #: bridge journals it under its id.)
    relay: bool = False

    def bind(self, ruleset: "Ruleset") -> "BoundKind":
        """This kind's request type and calls of `ruleset` (looked up once, at registration)."""
        return BoundKind(self, ruleset.request_types[self.name], getattr(ruleset, self.compile),
                         getattr(ruleset, self.roll) if self.roll else None)


class BoundKind(NamedTuple):
    """A kind as one ruleset resolves it: the drivers call these."""

    kind: Kind
    request_type: type
    compile: Callable[[Any], Any]
    roll: Optional[Callable[[Any, Any, int], Any]]

    def decode(self, request: Any) -> Any:
        """The typed request (`seed`, `rolls`) from a mapping, JSON or a typed object."""
        return decode(request, self.request_type)


#: The kinds every driver knows; rulesets add their own (`Ruleset.own_kinds`).
ATTACK = Kind("attack", "attack.resolve", "resolve", "the attack", "attack", "compile_attack", "roll_attack",
              result="result.attack.resolve", command="fracas.cli.attack:attack", relay=True)
BULK = Kind("bulk", "attack.bulk", "resolve_bulk", "the bulk request", "bulk", "compile_bulk", None,
            result="result.attack.bulk", bulk=True, relay=True)
INITIATIVE = Kind("initiative", "initiative.roll", "roll_initiative", "initiative", "initiative",
                  "compile_initiative", "roll_initiative", result="result.initiative.roll",
                  command="fracas.cli.initiative:initiative", relay=True)  # !fracas init --ruleset
SHARED_KINDS: tuple[Kind, ...] = (ATTACK, BULK, INITIATIVE)

#: Saves: a kind more than one ruleset has, each by its own rules (a DC, or saving throw
#: target numbers), so declared once here ("a kind's name is one kind everywhere") and
#: listed in their `own_kinds`; `fracas save --ruleset NAME` is its command.
SAVE = Kind("save", "save.roll", "save", "the saves", "save", "compile_save", "roll_save",
            result="result.save.roll", command="fracas.cli.saves:save", relay=True)

#: The names of the kinds every driver knows (a ruleset's own kinds: `fracas.rulesets.kinds()`).
KINDS = tuple(kind.name for kind in SHARED_KINDS)

#: Every kind known to this process: the shared ones, `SAVE`, and those of registered
#: rulesets (the registry adds them), so a ruleset without a kind still names it in its
#: error. `SAVE` is known from the start: registering one ruleset that has it loads no other.
KNOWN_KINDS: dict[str, Kind] = {kind.name: kind for kind in (*SHARED_KINDS, SAVE)}

#: The protocol's requirements (module docstring), by what reads them.
REQUIREMENTS = {
    "kinds": "each kind listed has a request type with seed (and rolls, except bulk) and its compile/roll calls",
    "bulk": "a bulk job has total, detail, groups, group_info, gil_free, new_totals, roll_chunk, merge, "
            "roll_listed and result (drive.listed_rows and the bridge's budget read groups and group_info)",
    "odds": "a compiled attack has plan.targets (target ids in request order) for exact odds",
    "results": "each kind has its result's shape in result_types (a msgspec Struct; odds: result_types['odds'],"
               " default fracas.rulesets.results.OddsResult), from which the bridge schema is written",
    "fights": "a ruleset that plays fights has an attack request with attacker, strikes and targets fields",
}

_BULK_JOB = ("total", "detail", "groups", "group_info", "gil_free", "new_totals", "roll_chunk", "merge",
             "roll_listed", "result")


def _fields(request_type: type) -> tuple[str, ...]:
    fields: tuple[str, ...] = getattr(request_type, "__struct_fields__", ())
    return fields


def check_ruleset(ruleset: "Ruleset", where: str) -> None:
    """The protocol's static requirements (`REQUIREMENTS`), checked when `ruleset`
    registers; `where` names it (its folder or entry point) in the error."""
    if not ruleset.name:
        raise RulesetInvalid(f"{where}: a ruleset needs a name")
    for kind in ruleset.own_kinds:
        if not isinstance(kind, Kind):
            raise RulesetInvalid(f"{where}: own_kinds holds {kind!r}, not a fracas.rulesets.base.Kind")
    known = {kind.name: kind for kind in (*SHARED_KINDS, *ruleset.own_kinds)}
    for name in ruleset.request_types:
        if name not in known:
            raise RulesetInvalid(f"{where}: request_types[{name!r}] is no kind it knows (one of: "
                                 f"{', '.join(known)}); a kind of its own goes in own_kinds")
        kind = known[name]
        request_type = ruleset.request_types[name]
        fields = _fields(request_type)
        if not fields:
            raise RulesetInvalid(f"{where}: request_types[{name!r}] is {request_type!r}, not a msgspec Struct")
        for needed in ("seed",) if kind.bulk else ("seed", "rolls"):
            if needed not in fields:
                raise RulesetInvalid(f"{where}: the {name} request {request_type.__name__} has no {needed!r}"
                                     f" field (the driver reads it: {REQUIREMENTS['kinds']})")
        for call in (kind.compile, kind.roll):
            if call is None:
                continue
            own = getattr(type(ruleset), call, None)
            if own is None or own is getattr(Ruleset, call, None) or not callable(getattr(ruleset, call)):
                raise RulesetInvalid(f"{where}: the {name} kind needs the ruleset's {call}() call")
    for name, result_type in ruleset.result_types.items():
        if name != "odds" and name not in ruleset.request_types:
            raise RulesetInvalid(f"{where}: result_types[{name!r}] is no kind it resolves (one of: "
                                 f"{', '.join(ruleset.request_types)}, or 'odds')")
        if not (isinstance(result_type, type) and issubclass(result_type, msgspec.Struct)):
            raise RulesetInvalid(f"{where}: result_types[{name!r}] is {result_type!r}, not a msgspec Struct"
                                 f" ({REQUIREMENTS['results']})")
    missing = [name for name in ruleset.request_types if name not in ruleset.result_types]
    if missing:
        raise RulesetInvalid(f"{where}: no result shape for the kind(s) {', '.join(missing)}: "
                             f"{REQUIREMENTS['results']}")
    if type(ruleset).fight_initiative is not Ruleset.fight_initiative:
        attack = ruleset.request_types.get("attack")
        missing = [f for f in ("attacker", "strikes", "targets") if attack is None or f not in _fields(attack)]
        if missing:
            raise RulesetInvalid(f"{where}: it plays whole fights (fight_initiative), so its attack request needs"
                                 f" the field(s) {', '.join(missing)} ({REQUIREMENTS['fights']})")


def check_bulk_job(job: Any, ruleset: str) -> None:
    """A compiled bulk request has what the bulk driver reads (`REQUIREMENTS["bulk"]`)."""
    missing = [name for name in _BULK_JOB if not hasattr(job, name)]
    if missing:
        raise RulesetInvalid(f"the {ruleset} ruleset's bulk job {type(job).__name__} lacks {', '.join(missing)}"
                             f" ({REQUIREMENTS['bulk']})")


def check_odds_plan(plan: Any, ruleset: str) -> None:
    """A compiled attack has `targets`, which the odds driver reads (`REQUIREMENTS["odds"]`)."""
    if not hasattr(plan, "targets"):
        raise RulesetInvalid(f"the {ruleset} ruleset's compiled attack {type(plan).__name__} has no targets"
                             f" ({REQUIREMENTS['odds']})")


class Result(Protocol):
    """What every driver returns: a seed, a ruleset name and a JSON-ready dict."""

    seed: int
    ruleset: str

    def to_dict(self) -> dict[str, Any]: ...


class AttackOutcome(Result, Protocol):
    """What `fracas.resolve` returns for every ruleset: damage in all and per target."""

    @property
    def total_damage(self) -> int: ...

    @property
    def target_damage(self) -> dict[str, int]: ...


class BulkOutcome(Result, Protocol):
    """What `fracas.resolve_bulk` returns for every ruleset."""

    @property
    def total_damage(self) -> int: ...


class BulkJob(Protocol):
    """A compiled bulk request; the bulk driver owns chunks, streams and threads."""

    total: int          # attacks in all
    detail: str         # "summary", or a level that lists attacks one by one
    groups: array[int]  # per `attacks` entry: first strike row, end row, count
    group_info: list[tuple[str, Any, int]]  # per `attacks` entry: profile, target(s), count

    @property
    def gil_free(self) -> bool:
        """Whether `roll_chunk` releases the GIL (so threads run in parallel)."""

    def new_totals(self) -> Any:
        """Empty accumulators for one worker."""

    def roll_chunk(self, totals: Any, state: array[int], first: int, count: int) -> None:
        """Roll attacks first..first+count-1 from the generator `state` into `totals`."""

    # Optional: `lanes` (chunks rolled at once, default 1) and
    # `roll_chunks(totals, [(state, first, count), ...])`, the same totals as roll_chunk
    # on each (the ER job's lane kernel).

    def merge(self, parts: list[Any]) -> Any:
        """One set of totals from every worker's."""

    def roll_listed(self, state: array[int], first: int, count: int) -> list[dict[str, Any]]:
        """Attacks first..first+count-1 one by one (same dice as roll_chunk from `state`)."""

    def result(self, totals: Any, seed: int, threads: int, listed: Optional[list[Any]]) -> Any:
        """The result of the whole request (a `BulkOutcome`)."""


def moved(exc: RequestError, old: str, new: str) -> RequestError:
    """The same error (same class and reason) at `new` + the rest of its path after `old`:
    how a fight names the scenario field behind a request it built."""
    rest = exc.path[len(old):] if exc.path.startswith(old) else ""
    return type(exc)(new + rest, exc.reason)


def moved_combatant(exc: RequestError, actors: list[Any], fields: dict[str, str]) -> RequestError:
    """An error of a built initiative request at `$.combatants[i].field`, moved to the
    scenario field of actor i (`fields` maps request fields to scenario fields)."""
    import re

    m = re.match(r"\$\.combatants\[(\d+)\](?:\.(\w+))?", exc.path)
    if m is None or int(m.group(1)) >= len(actors):
        return exc
    field = fields.get(m.group(2) or "", "")
    return type(exc)(actors[int(m.group(1))].path + (f".{field}" if field else ""), exc.reason)


def merge_columns(parts: list[Any], longest: Optional[int] = None, width: int = 1) -> list[int]:
    """Workers' accumulators added element-wise (one worker's copied in C); with `longest`,
    every `width`-th entry from it on takes the largest instead: how the bulk jobs merge
    their per-target totals (the longest crit chain or run is a maximum, not a sum)."""
    total = list(parts[0])
    for other in parts[1:]:
        total = [a + b for a, b in zip(total, other)]
    if longest is not None and len(parts) > 1:
        for i in range(longest, len(total), width):
            total[i] = max(p[i] for p in parts)
    return total


class Actor(NamedTuple):
    """What a ruleset's initiative reads of a standing combatant (`fight_initiative`)."""

    id: str
    side: str
    attacker: dict[str, Any]
    initiative: int
    path: str


class Ruleset:
    """One game system. Subclasses set the class attributes and override the calls
    they support; the rest answer with a RulesError naming the ruleset."""

    #: The name requests give in `"ruleset"`.
    name: str = ""
    #: The name a person reads.
    title: str = ""
    #: Largest die the ruleset rolls: injected faces above it are refused up front.
    largest_die: int = 20
    #: Where the project documents its rules (a path from the top of the checkout).
    doc: str = ""
    #: msgspec Struct types of its requests, by kind name (`Kind.name`); the bridge schema uses them.
    request_types: dict[str, type] = {}
    #: msgspec Struct types of its results, by kind name, and "odds" for `fracas.odds`
    #: (`fracas.rulesets.results`); the bridge schema's exact result schemas are made from them.
    result_types: dict[str, type] = {}
    #: The kinds of request that are this ruleset's own (beyond `SHARED_KINDS`).
    own_kinds: tuple[Kind, ...] = ()
    #: Its manifest (`fracas.rulesets.manifest.Manifest`), set when it registers from one.
    manifest: Any = None

    @property
    def row_kernel(self) -> Optional[str]:
        """The compiled row kernel mode its attacks and bulk requests run on
        (`fracas.rulesets.rows.RowRuleset` says which), or None when it rolls on its own
        calls; a manifest's `row_kernel` must say the same."""
        return None

    @property
    def kinds(self) -> dict[str, BoundKind]:
        """The kinds it resolves, bound to its calls, in `request_types` order."""
        bound: Optional[dict[str, BoundKind]] = self.__dict__.get("_bound_kinds")
        if bound is None:
            known = {kind.name: kind for kind in (*SHARED_KINDS, *self.own_kinds)}
            bound = {name: known[name].bind(self) for name in self.request_types if name in known}
            self.__dict__["_bound_kinds"] = bound
        return bound

    def kind(self, name: str) -> BoundKind:
        """The kind `name` as this ruleset resolves it, or a RulesError at `$.ruleset`."""
        bound = self.kinds.get(name)
        if bound is None:
            known = KNOWN_KINDS.get(name)
            raise self._unsupported(known.label if known is not None else name)
        return bound

    def decode(self, kind: str, request: Any) -> Any:
        """The typed request of `kind`; it must have `seed` and `rolls` (or `seed` for bulk)."""
        return self.kind(kind).decode(request)

    def compile_attack(self, request: Any, /) -> Any:
        raise self._unsupported("attack")

    def roll_attack(self, plan: Any, dice: Any, seed: int, /) -> Any:
        raise self._unsupported("attack")

    def compile_bulk(self, request: Any, /) -> Any:
        raise self._unsupported("bulk")

    def compile_initiative(self, request: Any, /) -> Any:
        raise self._unsupported("initiative")

    def roll_initiative(self, plan: Any, dice: Any, seed: int, /) -> Any:
        raise self._unsupported("initiative")

    @property
    def has_odds(self) -> bool:
        """Whether it answers exact odds (`fracas.odds`): it overrides `odds`. Exact odds are
        optional; without them an odds request is a RulesError at `$.ruleset` naming it."""
        return type(self).odds is not Ruleset.odds

    def odds(self, plan: Any) -> tuple[dict[str, Any], Any, bool]:
        """Exact odds of a compiled attack: ({target id: Dist of (damage, hit, crit)},
        the probability counted short where chains are cut, whether it has crits). Each
        Dist sums to exactly 1 (`fracas.drive.odds`, the odds contract); with crits the
        result's odds shape (`result_types["odds"]`) has `p_crit` and `p_crit_exact` in
        each target after `p_hit_exact`."""
        raise self._unsupported("odds")

    def odds_total(self, plan: Any) -> Any:
        """The exact distribution of the total damage when the targets' damage is not
        independent (ER-17 strays), else None: the total is then the targets' convolution."""
        return None

    def odds_notes(self, plan: Any) -> dict[str, Any]:
        """Odds beyond the per-target distributions, merged into the odds result (e.g. ER-17
        stray shots per bystander); none by default."""
        return {}

    # -- whole fights (fracas.drive.fight: encounters and simulations) ----------------------

    def fight_procedure(self) -> type[Any]:
        """The ruleset's round in a whole fight: a `fracas.rulesets.fight.Procedure`
        subclass, written in the ruleset's folder (the plain round by default)."""
        from .fight import Procedure

        return Procedure

    def fight_setup(self, options: dict[str, Any], sides: list[str], path: str) -> Any:
        """A scenario's `initiative` options, checked (errors name `path`); none by default."""
        if options:
            name = next(iter(options))
            raise RulesError(f"{path}.{name}", f"the {self.title or self.name} ruleset takes no initiative"
                                               " options")
        return None

    def fight_initiative(self, setup: Any, actors: list[Any], sides: list[str], round_: int, dice: Any,
                         seed: int, /) -> tuple[list[list[str]], dict[str, Any]]:
        """Who acts when this round: slots of combatant ids (a slot acts at once: OS ties
        "simultaneous"), combatants missing from every slot are surprised; and the
        initiative result for the round log. `actors` are the standing combatants (`.id`,
        `.side`, `.attacker`, `.initiative`), `sides` the side names in scenario order."""
        raise self._unsupported("initiative")

    def fight_outcome(self, result: Any) -> tuple[int, int, int]:
        """(damage to the target's "hp", damage straight to its "injury", cost to the
        attacker's "hp") of a one-target attack result."""
        return result.total_damage, 0, 0

    def cli_options(self) -> list[Any]:
        """click options with which `fracas attack` describes one attack of this ruleset."""
        return []

    def request_from_flags(self, flags: dict[str, Any]) -> dict[str, Any]:
        """The request those options describe (`flags` holds every option's value)."""
        raise self._unsupported("command-line")

    def kind_cli_options(self, kind: str) -> list[Any]:
        """click options with which the command of a kind rulesets share (`fracas initiative`,
        `fracas save`) describes a request of this ruleset; none by default (a request file
        still works)."""
        return []

    def kind_from_flags(self, kind: str, flags: dict[str, Any]) -> dict[str, Any]:
        """The `kind` request those options describe (`flags`: every option's value)."""
        raise self._unsupported(f"command-line {kind}")

    def flag_hint(self, path: str, flags: dict[str, Any]) -> Optional[str]:
        """The option that sets the field at `path` of a request built from flags."""
        return None

    def request_from_profile(self, profile: dict[str, Any], flags: dict[str, Any]) -> dict[str, Any]:
        """`fracas attack --as NAME`: the request of a kept profile (attacker and strikes) at
        the target the flags describe."""
        raise self._unsupported("profile (--as)")

    def render(self, result: dict[str, Any], style: Optional[Callable[..., str]] = None) -> str:
        """Text for a terminal (the CLI); `style` is `click.style` or None for plain text."""
        import json

        return json.dumps(result, indent=2, ensure_ascii=False)

    def _unsupported(self, kind: str) -> RulesError:
        return RulesError("$.ruleset", say("ruleset_unsupported", title=self.title or self.name, kind=kind))

    def __repr__(self) -> str:
        return f"<ruleset {self.name}>"
