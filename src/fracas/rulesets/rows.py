"""What Worldwalker, Cartyrion and the old-school rules share: one strike-row kernel.

Each of the three compiles a strike into one `X_` row (`fracas._layout`): an optional
feint, an optional sneak check, an optional d20 attack roll against a number, an
optional block/dodge, damage dice (exploding or not) with bonuses and reductions,
a parry, a stamina cost. The kernels (`xroll_detail`, `xroll_summary`, compiled and
pure Python) roll rows; this module turns requests' rows into results, for single
attacks and for bulk requests, so a ruleset folder holds only its rules:

    compile_strike(strike, path, attacker, attacker_path, target, target_path) -> (row, meta)

A row is a list of the `X_` columns (`row(HIT=…, DICE=…)`, missing columns 0); `meta`
the strike's static facts for the result (`Meta`). Draw order: docs/ENGINE.md §2.

**Any ruleset may use it, built in or not** (`RowRuleset`, below): a dice-pool ruleset
compiles each strike with `pool_row` (the kernel's success-counting mode, `X_HIT_COUNT`)
and declares `kernel="success-count"` in its `Rules`, and its attacks, bulk requests and
exact odds run on the same compiled kernel as the built-in three (docs/ADDING_A_RULESET.md).
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Optional

import msgspec

from .. import _kernels
from .. import _layout as L
from ..dice import Dice, KernelError, kernel_info
from ..errors import DiceError, LimitError, RulesError, SchemaError
from ..requests import check_range, convert_mapping, decode, faces, key_path, say
from .._facts import CT_EXPLODE_LIMIT, MAX_STRIKES, MAX_TARGETS  # the spec's (facts.toml [enums.limits]), as for ER
from . import rolloffs
from .base import Ruleset, RulesetInvalid, merge_columns
from .manifest import ROW_KERNEL_MODES

MAX_ATTACKS = 10**10
MAX_GROUPS = 10_000
MAX_PROFILE_STRIKES = 64
MAX_DICE = 100
#: Largest request for each detail level (the per-attack output grows with it).
DETAIL_LIMITS = {"summary": MAX_ATTACKS, "attacks": 1_000_000, "dice": 10_000}
_LOG_PER_STRIKE = 32  # damage dice logged per strike before the log grows (explosions may need more)

_EXPRESSION = re.compile(r"^\s*(\d*)\s*[dD]\s*(\d+)\s*(?:([+-])\s*(\d+))?\s*$")


def group_index(groups: array[int]) -> list[int]:
    """The running attack counts of bulk groups (triples: first row, end row, count):
    attack number `a` belongs to group `bisect_right(index, a)`. Any ruleset's bulk job."""
    bounds, start = [], 0
    for g in range(len(groups) // 3):
        start += groups[3 * g + 2]
        bounds.append(start)
    return bounds


def row(**columns: int) -> list[int]:
    """An X_ row from column names (TARGET=…, HIT=…); the rest are 0."""
    out = [0] * L.XPLAN_WIDTH
    for name, value in columns.items():
        out[getattr(L, "X_" + name)] = int(value)
    return out


def parse_damage(text: str, path: str, allowed: tuple[int, ...], ruleset: str, rule: str) -> tuple[int, int, int]:
    """(dice, faces, modifier) of a damage expression like "1d8", "2d6+1", "d4-1"."""
    match = _EXPRESSION.match(text) if isinstance(text, str) else None
    if match is None:
        raise SchemaError(path, say("dice_expression", text=repr(text), rule=rule))
    count = int(match.group(1) or 1)
    sides = int(match.group(2))
    modifier = int(match.group(4) or 0) * (-1 if match.group(3) == "-" else 1)
    check_die(sides, path, allowed, ruleset, rule)
    check_range(count, 1, MAX_DICE, path, "dice")
    check_range(modifier, -100, 100, path, "modifier")
    return count, sides, modifier


_ONE_DIE = re.compile(r"^\s*1?\s*[dD]\s*(\d+)\s*$")


def parse_die(text: str, path: str, allowed: tuple[int, ...], ruleset: str, rule: str, code: str) -> int:
    """The faces of one die like "d6" or "1d8"; `code` is the message a text that is no die gets."""
    match = _ONE_DIE.match(text) if isinstance(text, str) else None
    if match is None:
        raise SchemaError(path, say(code, text=repr(text)))
    return check_die(int(match.group(1)), path, allowed, ruleset, rule)


def check_die(sides: int, path: str, allowed: tuple[int, ...], ruleset: str, rule: str) -> int:
    if sides not in allowed:
        raise RulesError(path, say("not_a_die", faces=sides, ruleset=ruleset,
                                   allowed=", ".join(f"d{n}" for n in allowed), rule=rule))
    return sides


#: Explosions one strike's dice may make on the row kernel (an exploding row, `EXPLODE=1`):
#: past it a maximum face adds no die. The bound the CT-3 decision set, public for plug-ins
#: whose own kernels or twins must stop where the row kernel does (the `explode_limit` of
#: the kernel's table that `fracas_rows.pxd` declares).
EXPLODE_LIMIT = CT_EXPLODE_LIMIT

#: The row kernel's modes (`Rules.kernel`, a manifest's `row_kernel`): "strike-rows", the
#: d20 attack modes (any hit mode); "success-count", every strike a dice pool (`pool_row`).
KERNEL_MODES = ROW_KERNEL_MODES


def pool_row(dice: int, faces: int, success_on: int, *, explode: bool = False, flat: int = 0, per_die: int = 0,
             reduce: int = 0, least: int = 0) -> list[int]:
    """A strike row of the success-counting mode (`X_HIT_COUNT`): a pool of `dice` dice of
    `faces` faces, each showing `success_on` or more one success (a maximum face rolls
    one more die with `explode`, as bounded as every explosion of the kernel). One
    success or more hits for the successes + `flat` + `per_die` x `dice` - `reduce`, at
    least `least`; no success is a miss (0 damage). No d20 is rolled, nor any feint,
    check, block or dodge (the compiled core refuses a pool row with them).

    The arguments are the ruleset's, after it checked the request: a value the kernel
    cannot roll is the ruleset's mistake (`RulesetInvalid`), not the user's."""
    if not 2 <= faces <= 1000:
        raise RulesetInvalid(f"pool_row: {faces} faces (a pool die has 2 to 1000)")
    if not 1 <= success_on <= faces:
        raise RulesetInvalid(f"pool_row: success on {success_on} of a d{faces} (1 to {faces})")
    if not 0 <= dice <= MAX_DICE:
        raise RulesetInvalid(f"pool_row: {dice} dice (0 to {MAX_DICE}; check the request's pool first)")
    return row(HIT=L.X_HIT_COUNT, DICE=dice, FACES=faces, TN=success_on, EXPLODE=int(explode), FLAT=flat,
               PER_DIE=per_die, REDUCE=reduce, MIN=least)


def _no_fields(entry: dict[str, Any], target: Any, strikes: list[Any]) -> None:
    """A target's result holds its damage only."""


@dataclass(slots=True)
class Meta:
    """A strike's static facts: its target, the path it came from, what the result shows."""

    target: str
    path: str
    facts: dict[str, Any]
    faces: int = 0


@dataclass(slots=True)
class Rules:
    """One ruleset's side of this module: its name, how it compiles and reports strikes."""

    name: str
    #: the rule that defines an attack (cited when a request has no strikes)
    attack_rule: str
    #: (strike, path, attacker, attacker path, target, target path) -> (row dict, Meta)
    compile_strike: Callable[..., tuple[list[int], Meta]]
    #: checks an attacker; returns it
    check_attacker: Callable[[Any, str], Any]
    #: checks a target; returns it
    check_target: Callable[[Any, str], Any]
    #: target type (msgspec Struct) and profile type for bulk requests
    target_type: type
    profile_type: type
    #: (meta, out row as a mapping of Y_ names, damage faces) -> the strike's result dict
    strike_result: Callable[[Meta, "Out", list[int]], dict[str, Any]]
    #: (target dict so far, target spec) -> None: extra per-target fields of a single attack
    target_result: Callable[[dict[str, Any], Any, list[tuple[Meta, "Out"]]], None] = _no_fields
    #: initial parry state (weapon explosions left, shield points) of a target
    parry_state: Callable[[Any], tuple[int, int]] = lambda target: (0, 0)
    #: per-target bulk totals this ruleset reports beyond the common ones
    bulk_fields: tuple[str, ...] = ()
    #: (result dict, [(meta, out)]) -> None: fields of a single attack's result beyond strikes and targets
    attack_result: Optional[Callable[[dict[str, Any], list[Any]], None]] = None
    #: the kernel mode its rows use (`KERNEL_MODES`); "success-count": every strike must
    #: compile to a `pool_row`, checked as it compiles (a manifest's `row_kernel` says the same)
    kernel: str = "strike-rows"

    def __post_init__(self) -> None:
        if self.kernel not in KERNEL_MODES:
            raise RulesetInvalid(f"the {self.name} rules table: kernel {self.kernel!r} is not one of "
                                 f"{', '.join(KERNEL_MODES)}")


#: Y_ column by the name `Out` reads it with (`damage` for Y_DAMAGE).
_Y = {name[2:].lower(): value for name, value in vars(L).items() if name.startswith("Y_")}


class Out:
    """One strike's kernel output, read by column name (`out.damage` is Y_DAMAGE): one
    property per column, made below from `_Y` (a `__getattr__`, which runs only after the
    normal lookup fails, took half of a Worldwalker result's `to_dict`)."""

    __slots__ = ("_buf", "_base")

    def __init__(self, buf: Any, base: int) -> None:
        self._buf, self._base = buf, base

    if TYPE_CHECKING:  # the columns, as the type checker sees them
        def __getattr__(self, name: str) -> int: ...


def _column(name: str, column: int) -> property:
    def read(out: Out) -> int:
        return int(out._buf[out._base + column])

    read.__name__ = name
    return property(read, doc=f"the strike's Y_{name.upper()} column")


for _name, _col in _Y.items():
    setattr(Out, _name, _column(_name, _col))
del _name, _col


# -- single attacks --------------------------------------------------------------------------

@dataclass(slots=True)
class Plan:
    """A checked attack of one of these rulesets, ready to roll."""

    rules: Rules
    rows: array[int]
    metas: list[Meta]
    targets: dict[str, Any]
    index: dict[str, int]
    tinit: array[int]
    request: Any


def check_targets(rules: Any, raw: Any, path: str = "$.targets") -> dict[str, Any]:
    """A request's targets typed (`rules.target_type`, each named by its id) and checked
    (`rules.check_target`); `rules` a `Rules` or a `generic.StrikeRuleset`."""
    targets: dict[str, Any] = convert_mapping(raw, rules.target_type, path)
    if not targets:
        raise SchemaError(path, say("no_targets"))
    if len(targets) > MAX_TARGETS:
        raise LimitError(path, say("too_many", count=len(targets), what="targets", most=MAX_TARGETS))
    for tid, target in targets.items():
        if not tid:
            raise SchemaError(path, say("empty_target_id"))
        rules.check_target(target, key_path(path, tid))
    return targets


def _tinit(rules: Rules, targets: dict[str, Any]) -> array[int]:
    tinit = array("q")
    for target in targets.values():
        tinit.extend(rules.parry_state(target))
    return tinit


def target_of(name: str, targets: dict[str, Any], path: str) -> Any:
    """The checked target a strike names, or a SchemaError at `path` listing the targets."""
    target = targets.get(name)
    if target is None:
        raise SchemaError(path, say("unknown_target", target=repr(name), targets=", ".join(targets)))
    return target


def check_attack(rules: Any, request_type: type, request: Any) -> tuple[Any, Any, dict[str, Any]]:
    """An attack request decoded and checked: (typed request, checked attacker, checked targets).
    `rules` is a `Rules` or anything with its `name`, `attack_rule`, `check_attacker`,
    `check_target` and `target_type` (a `generic.StrikeRuleset`)."""
    req: Any = decode(request, request_type)
    attacker = rules.check_attacker(req.attacker, "$.attacker")
    targets = check_targets(rules, req.targets)
    if not req.strikes:
        raise SchemaError("$.strikes", say("no_strikes_rule", rule=rules.attack_rule))
    if len(req.strikes) > MAX_STRIKES:
        raise LimitError("$.strikes", say("too_many", count=len(req.strikes), what="strikes", most=MAX_STRIKES))
    return req, attacker, targets


def aim(strikes: list[Any], targets: dict[str, Any]) -> Any:
    """(index, strike, its path, its target) of each strike of an attack, in request order; an
    unknown target is refused at `$.strikes[i].target` when its strike's turn comes (a strike
    before it compiles first: the same order of errors as a strike-by-strike check)."""
    for i, strike in enumerate(strikes):
        path = f"$.strikes[{i}]"
        yield i, strike, path, target_of(strike.target, targets, f"{path}.target")


def compile_attack(rules: Rules, request_type: type, request: Any) -> Plan:
    """Check an attack request of `rules` and compile its strikes into X_ rows."""
    req, attacker, targets = check_attack(rules, request_type, request)
    index = {tid: i for i, tid in enumerate(targets)}
    rows = array("i")
    metas = []
    for _i, strike, path, target in aim(req.strikes, targets):
        metas.append(_strike_row(rules, rows, strike, path, attacker, "$.attacker", target, strike.target, index))
    return Plan(rules, rows, metas, targets, index, _tinit(rules, targets), req)


def _strike_row(rules: Rules, rows: array[int], strike: Any, path: str, attacker: Any, attacker_path: str,
                target: Any, tid: str, index: dict[str, int]) -> Meta:
    """One strike compiled by the ruleset, aimed at target `tid`, appended to `rows`."""
    cols, meta = rules.compile_strike(strike, path, attacker, attacker_path, target, key_path("$.targets", tid))
    if rules.kernel == "success-count" and cols[L.X_HIT] != L.X_HIT_COUNT:
        raise RulesetInvalid(f"the {rules.name} rules table says kernel 'success-count', but {path} compiled to "
                             f"hit mode {cols[L.X_HIT]}, not a pool (rows.pool_row)")
    meta.target = tid
    cols[L.X_TARGET] = index[tid]
    rows.extend(cols)
    return meta


def kernel_error(code: int, where: int, position: int, die: int, rolls: Optional[array[int]],
                 strike_path: str) -> Exception:
    if code == L.E_ROLLS_SHORT:
        assert rolls is not None  # the kernel ran short of injected faces: there were some
        return DiceError("$.rolls", say("rolls_short", given=faces(len(rolls)), what=f"{strike_path}[{where}]",
                                        position=position))
    if code == L.E_ROLL_RANGE:
        assert rolls is not None
        return DiceError(f"$.rolls[{position}]", say("face_range_die", face=rolls[position], faces=die))
    return RuntimeError(f"kernel error {code}")


def _detail(rows: array[int], groups: array[int], n_targets: int, tinit: array[int], first: int, count: int,
            state: Any, rolls: Any, width: int, strike_path: Callable[[int], str], pos: int = 0) -> Any:
    """Roll attacks into (out, log, info), growing the log until every damage die fits."""
    kernel = _kernels.active()
    capacity = max(1, width * count * _LOG_PER_STRIKE)
    start = array("I", state)
    while True:
        state[:] = start
        out = array("q", bytes(8 * width * count * L.XOUT_WIDTH))
        log = array("i", bytes(4 * capacity))
        info = kernel_info(pos)
        err = kernel.xroll_detail(rows, groups, n_targets, tinit, first, count, state, rolls, out, log, info)
        if err != L.E_LOG_FULL:
            break
        capacity *= 4
    if err:
        raise kernel_error(err, info[L.I_STRIKE], info[L.I_ERROR_POS], info[L.I_ERROR_FACES], rolls,
                           strike_path(info[L.I_STRIKE]))
    return out, log, info


def roll_attack(plan: Plan, dice: Dice, seed: int) -> "AttackResult":
    """Roll a compiled attack from `dice` (the generator or injected faces)."""
    n = len(plan.metas)
    groups = array("q", (0, n, 1))
    out, log, info = _detail(plan.rows, groups, len(plan.targets), plan.tinit, 0, 1, dice.state, dice.rolls,
                             n, lambda _w: "$.strikes", dice.pos)
    dice.pos = info[L.I_POS]
    return AttackResult(plan, seed, _kernels.active().BACKEND, dice.injected, out, log)


def strike_faces(out: Any, log: Any, s: int) -> list[int]:
    o = s * L.XOUT_WIDTH
    first, n = out[o + L.Y_LOG], out[o + L.Y_NLOG]
    return list(log[first:first + n])


class AttackResult:
    """One attack's strikes and per-target damage; `to_dict()` is the wire shape."""

    __slots__ = ("plan", "seed", "ruleset", "backend", "injected", "out", "log")

    def __init__(self, plan: Plan, seed: int, backend: str, injected: bool, out: Any, log: Any) -> None:
        self.plan, self.seed, self.ruleset = plan, seed, plan.rules.name
        self.backend, self.injected, self.out, self.log = backend, injected, out, log

    @property
    def total_damage(self) -> int:
        return sum(self.out[s * L.XOUT_WIDTH + L.Y_DAMAGE] for s in range(len(self.plan.metas)))

    @property
    def target_damage(self) -> dict[str, int]:
        """Damage per target id, every target of the request (a fresh dict)."""
        damage = {tid: 0 for tid in self.plan.targets}
        for s, meta in enumerate(self.plan.metas):
            damage[meta.target] += self.out[s * L.XOUT_WIDTH + L.Y_DAMAGE]
        return damage

    def __repr__(self) -> str:
        return f"<{self.ruleset} attack seed={self.seed} total_damage={self.total_damage}>"

    def to_dict(self) -> dict[str, Any]:
        plan = self.plan
        rules = plan.rules
        strikes = []
        by_target: dict[str, list[Any]] = {tid: [] for tid in plan.targets}
        for s, meta in enumerate(plan.metas):
            out = Out(self.out, s * L.XOUT_WIDTH)
            strikes.append(rules.strike_result(meta, out, strike_faces(self.out, self.log, s)))
            by_target[meta.target].append((meta, out))
        targets = {}
        for tid, spec in plan.targets.items():
            entry: dict[str, Any] = {"damage": sum(out.damage for _m, out in by_target[tid])}
            rules.target_result(entry, spec, by_target[tid])
            targets[tid] = entry
        result = {"ruleset": rules.name, "seed": self.seed, "backend": self.backend, "injected": self.injected,
                  "strikes": strikes, "targets": targets,
                  "total_damage": sum(t["damage"] for t in targets.values())}
        if rules.attack_result is not None:
            rules.attack_result(result, [(meta, Out(self.out, s * L.XOUT_WIDTH)) for s, meta in enumerate(plan.metas)])
        return result


# -- bulk requests ---------------------------------------------------------------------------

class BulkJob:
    """A bulk request (profiles × targets × counts) of one of these rulesets, compiled once."""

    def __init__(self, rules: Rules):
        self.rules = rules
        self.rows = array("i")
        self.groups = array("q")
        self.metas: list[Meta] = []
        self.targets: dict[str, Any] = {}
        self.tinit = array("q")
        self.group_info: list[tuple[str, Any, int]] = []
        self.total = 0
        self.detail = "summary"
        self._bounds: Optional[list[int]] = None

    @property
    def gil_free(self) -> bool:
        return bool(_kernels.active().BACKEND != "python")

    def new_totals(self) -> Any:
        return (array("q", bytes(8 * len(self.targets) * L.U_WIDTH)),
                array("q", bytes(8 * len(self.group_info) * (L.K_WIDTH + L.HIST_BINS))))

    def roll_chunk(self, totals: Any, state: array[int], first: int, count: int) -> None:
        acc_t, acc_g = totals
        info = kernel_info()
        err = _kernels.active().xroll_summary(self.rows, self.groups, len(self.targets), self.tinit, first,
                                              count, state, acc_t, acc_g, info)
        if err:
            raise RuntimeError(f"kernel error {err}")

    def merge(self, parts: Any) -> Any:
        """Every worker's totals added up (the longest run: the largest), column by column."""
        return (merge_columns([p[0] for p in parts], L.U_LONGEST, L.U_WIDTH),
                merge_columns([p[1] for p in parts]))

    def group_of_attack(self, attack: int) -> int:
        if self._bounds is None:
            self._bounds = group_index(self.groups)
        return bisect_right(self._bounds, attack)

    def roll_listed(self, state: array[int], first: int, count: int) -> list[dict[str, Any]]:
        widest = max(self.groups[3 * g + 1] - self.groups[3 * g] for g in range(len(self.group_info)))
        out, log, _info = _detail(self.rows, self.groups, len(self.targets), self.tinit, first, count, state,
                                  None, widest, lambda _w: "$.profiles")
        listed = []
        row = 0
        for a in range(first, first + count):
            g = self.group_of_attack(a)
            begin, end = self.groups[3 * g], self.groups[3 * g + 1]
            damages = [out[(row + i) * L.XOUT_WIDTH + L.Y_DAMAGE] for i in range(end - begin)]
            entry: dict[str, Any] = {"group": g, "damage": sum(damages)}
            if self.detail == "dice":
                entry["strikes"] = [self.rules.strike_result(self.metas[begin + i],
                                                             Out(out, (row + i) * L.XOUT_WIDTH),
                                                             strike_faces(out, log, row + i))
                                    for i in range(end - begin)]
            else:
                entry["strikes"] = damages
            listed.append(entry)
            row += end - begin
        return listed

    def result(self, totals: Any, seed: int, threads: int, listed: Optional[list[Any]]) -> "BulkResult":
        return BulkResult(self, seed, _kernels.active().BACKEND, threads, totals, listed)


_COMMON = (("damage", "DAMAGE"), ("attacks", "ATTACKS"), ("attacks_hit", "ATTACKS_HIT"),
           ("strikes", "STRIKES"), ("strikes_hit", "STRIKES_HIT"))
BULK_FIELDS = {"negated": "NEGATED", "injury": "INJURY", "exploded": "EXPLODED", "longest_explosion": "LONGEST",
               "absorbed": "ABSORBED", "stamina_cost": "COST"}


class BulkResult:
    __slots__ = ("job", "seed", "ruleset", "backend", "threads", "acc_t", "acc_g", "attacks")

    def __init__(self, job: BulkJob, seed: int, backend: str, threads: int, totals: Any, attacks: Any) -> None:
        self.job, self.seed, self.ruleset, self.backend, self.threads = job, seed, job.rules.name, backend, threads
        self.acc_t, self.acc_g = totals
        self.attacks = attacks

    @property
    def total_damage(self) -> int:
        return sum(self.acc_t[t * L.U_WIDTH + L.U_DAMAGE] for t in range(len(self.job.targets)))

    def __repr__(self) -> str:
        return f"<{self.ruleset} bulk seed={self.seed} attacks={self.job.total} total_damage={self.total_damage}>"

    def to_dict(self) -> dict[str, Any]:
        job = self.job
        targets = {}
        for t, tid in enumerate(job.targets):
            base = t * L.U_WIDTH
            entry = {key: self.acc_t[base + getattr(L, "U_" + col)] for key, col in _COMMON}
            for key in job.rules.bulk_fields:
                if key == "stamina":
                    entry[key] = entry["damage"] - self.acc_t[base + L.U_INJURY]
                else:
                    entry[key] = self.acc_t[base + getattr(L, "U_" + BULK_FIELDS[key])]
            targets[tid] = entry
        stride = L.K_WIDTH + L.HIST_BINS
        groups = []
        for g, (profile, target, count) in enumerate(job.group_info):
            base = g * stride
            hist = list(self.acc_g[base + L.K_WIDTH: base + stride])
            while len(hist) > 1 and hist[-1] == 0:
                hist.pop()
            hit, damage = self.acc_g[base + L.K_ATTACKS_HIT], self.acc_g[base + L.K_DAMAGE]
            groups.append({"profile": profile, "target": target, "count": count, "attacks_hit": hit,
                           "hit_rate": hit / count if count else 0.0, "damage": damage,
                           "mean_damage": damage / count if count else 0.0,
                           "exploded": self.acc_g[base + L.K_EXPLODED], "histogram": hist})
        out = {"ruleset": job.rules.name, "seed": self.seed, "backend": self.backend, "detail": job.detail,
               "attacks_total": job.total, "targets": targets, "groups": groups,
               "total_damage": sum(t["damage"] for t in targets.values())}
        if self.attacks is not None:
            out["attacks"] = self.attacks
        return out


class BulkStrike(NamedTuple):
    """One strike of a bulk request's `attacks` entry, checked and aimed (`check_bulk`)."""

    strike: Any
    path: str
    attacker: Any
    attacker_path: str
    target: Any
    target_id: str
    #: the target's place among the request's targets (0 for the first)
    target_index: int


def check_bulk(rules: Any, request_type: type, request: Any, strike: Callable[[BulkStrike], None],
               group: Callable[[str, Any, int], None]) -> tuple[Any, dict[str, Any], int]:
    """A bulk request decoded and checked, with the same checks and paths as single attacks:
    (typed request, checked targets, attacks in all). Each `attacks` entry's strikes are
    passed to `strike` (checked and aimed, in request order), then the entry to
    `group(profile, target(s), count)`; the `detail` level's limit (`DETAIL_LIMITS`) and
    `MAX_ATTACKS` are checked last, before anything is rolled. `rules` as for
    `check_attack`, with `profile_type`."""
    req: Any = decode(request, request_type)
    check_detail(req.detail, 0)
    profiles: dict[str, Any] = convert_mapping(req.profiles, rules.profile_type, "$.profiles")
    if not profiles:
        raise SchemaError("$.profiles", "no profiles: give at least one")
    attackers = {}
    for pid, profile in profiles.items():
        ppath = key_path("$.profiles", pid)
        attackers[pid] = rules.check_attacker(profile.attacker, f"{ppath}.attacker")
        if not profile.strikes:
            raise SchemaError(f"{ppath}.strikes", "no strikes: a profile needs at least one")
        if len(profile.strikes) > MAX_PROFILE_STRIKES:
            raise LimitError(f"{ppath}.strikes", say("too_many", count=len(profile.strikes), what="strikes",
                                                     most=MAX_PROFILE_STRIKES))
    targets = check_targets(rules, req.targets)
    if not req.attacks:
        raise SchemaError("$.attacks", "no attacks: give at least one entry")
    if len(req.attacks) > MAX_GROUPS:
        raise LimitError("$.attacks", say("too_many", count=len(req.attacks), what="entries", most=MAX_GROUPS))
    index = {tid: i for i, tid in enumerate(targets)}
    total = 0
    for g, entry in enumerate(req.attacks):
        gpath = f"$.attacks[{g}]"
        profile = profiles.get(entry.profile)
        if profile is None:
            raise SchemaError(f"{gpath}.profile", f"unknown profile {entry.profile!r} "
                              f"(profiles: {', '.join(profiles)})")
        check_range(entry.count, 0, MAX_ATTACKS, f"{gpath}.count", "count")
        names = [entry.target] * len(profile.strikes) if isinstance(entry.target, str) else entry.target
        if len(names) != len(profile.strikes):
            raise SchemaError(f"{gpath}.target", f"{len(names)} targets for the {len(profile.strikes)} "
                              f"strikes of profile {entry.profile!r}: give one target, or one per strike")
        ppath = key_path("$.profiles", entry.profile)
        for i, (aimed, tid) in enumerate(zip(profile.strikes, names)):
            tpath = f"{gpath}.target" if isinstance(entry.target, str) else f"{gpath}.target[{i}]"
            strike(BulkStrike(aimed, f"{ppath}.strikes[{i}]", attackers[entry.profile], f"{ppath}.attacker",
                              target_of(tid, targets, tpath), tid, index[tid]))
        group(entry.profile, entry.target, entry.count)
        total += entry.count
    check_detail(req.detail, total)
    return req, targets, total


def check_detail(detail: str, total: int) -> None:
    """A bulk request's `detail` level is one of `DETAIL_LIMITS` and its `total` attacks are
    within that level's limit and `MAX_ATTACKS` (checked before anything is rolled)."""
    if detail not in DETAIL_LIMITS:  # a ruleset's own request type may give it as any str
        raise SchemaError("$.detail", say("unknown_name", what="detail", value=repr(detail),
                                          allowed=", ".join(DETAIL_LIMITS)))
    if total > DETAIL_LIMITS[detail]:
        raise LimitError("$.detail", f"detail {detail!r} is limited to {DETAIL_LIMITS[detail]:,} "
                         f"attacks and the request has {total:,}: use detail 'summary'")
    if total > MAX_ATTACKS:
        raise LimitError("$.attacks", f"{total:,} attacks, the most is {MAX_ATTACKS:,}")


def compile_bulk(rules: Rules, request_type: type, request: Any) -> BulkJob:
    """Check a bulk request of `rules` (same checks and paths as single attacks) and compile it."""
    job = BulkJob(rules)

    def strike(aimed: BulkStrike) -> None:
        job.metas.append(_strike_row(rules, job.rows, aimed.strike, aimed.path, aimed.attacker, aimed.attacker_path,
                                     aimed.target, aimed.target_id, {aimed.target_id: aimed.target_index}))

    def group(profile: str, target: Any, count: int) -> None:
        begin = job.groups[-2] if job.groups else 0
        job.groups.extend((begin, len(job.metas), count))
        job.group_info.append((profile, target, count))

    req, job.targets, job.total = check_bulk(rules, request_type, request, strike, group)
    job.detail = req.detail
    job.tinit = _tinit(rules, job.targets)
    return job


__all__ = ["Rules", "Meta", "Out", "Plan", "row", "pool_row", "KERNEL_MODES", "parse_damage", "check_die",
           "check_attack", "aim", "check_bulk", "check_detail", "BulkStrike", "target_of", "check_targets",
           "compile_attack", "roll_attack", "compile_bulk", "AttackResult", "BulkJob", "BulkResult", "group_index",
           "RowRuleset", "Rolled", "roll_or_say", "roll_off", "RequestTypes", "request_types"]


# -- request pieces the three share ------------------------------------------------------------


class RequestTypes(NamedTuple):
    """The request types of the row layout (`request_types`): what a plug-in would write."""

    attack: type
    profile: type
    group: type
    bulk: type


def request_types(module: str, ruleset: str, attacker: type, strike: type, target: type) -> RequestTypes:
    """The attack and bulk request types of the row layout, from a ruleset's own attacker,
    strike and target Structs, as msgspec Structs declared in `module` (the schema names
    them by ruleset): `AttackRequest` (`attacker`, `strikes`, `targets` by id, `ruleset`,
    `seed`, `rolls`), `Profile` (`attacker`, `strikes`), `Group` (`profile`, `target`,
    `count`) and `BulkRequest` (`profiles`, `targets`, `attacks`, `ruleset`, `seed`,
    `detail`); unknown fields refused. For a `RowRuleset` or a `generic.StrikeRuleset`
    (a strike of a bulk profile takes its target from the `attacks` entry: give the
    strike's `target` a default)."""
    # Types made from the arguments at run time (GenericAlias: a checker sees no type here).
    from types import GenericAlias

    strikes, targets = GenericAlias(list, (strike,)), GenericAlias(dict, (str, target))
    options: dict[str, Any] = {"module": module, "forbid_unknown_fields": True}
    profile = msgspec.defstruct("Profile", [("attacker", attacker), ("strikes", strikes)], **options)
    group = msgspec.defstruct("Group", [("profile", str), ("target", str), ("count", int)], **options)
    attack = msgspec.defstruct("AttackRequest", [
        ("attacker", attacker), ("strikes", strikes), ("targets", targets), ("ruleset", str, ruleset),
        ("seed", Optional[int], None), ("rolls", Optional[list[int]], None)], kw_only=True, **options)
    bulk = msgspec.defstruct("BulkRequest", [
        ("profiles", GenericAlias(dict, (str, profile))), ("targets", targets),
        ("attacks", GenericAlias(list, (group,))), ("ruleset", str, ruleset), ("seed", Optional[int], None),
        ("detail", str, "summary")], kw_only=True, **options)
    return RequestTypes(attack, profile, group, bulk)


class Spec(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass


class AttackGroup(Spec):
    """`count` attacks of one profile at the given target(s)."""

    profile: str
    target: Any  # str, or one target per strike: list[str]
    count: int = 1


MAX_ROLL_OFFS: int = rolloffs.LIMIT


def roll_or_say(dice: Dice, faces_: int, what: str) -> int:
    """One die for `what` (initiative, morale); injected faces that run out or do not fit name it."""
    try:
        return dice.die(faces_)
    except KernelError as exc:
        raise dice_error(dice, exc, faces_, what) from None


def dice_error(dice: Dice, exc: KernelError, faces_: int, what: str) -> DiceError:
    """Injected faces that ran out, or one that does not fit a die of `faces_`, drawn for `what`."""
    assert dice.rolls is not None  # only injected faces can run short or out of range
    if exc.code == L.E_ROLLS_SHORT:
        return DiceError("$.rolls", say("rolls_short", given=faces(len(dice.rolls)), what=what,
                                        position=exc.position))
    return DiceError(f"$.rolls[{exc.position}]", say("face_range_die", face=dice.rolls[exc.position], faces=faces_))


def roll_off(tied: list[dict[str, Any]], dice: Dice, die: int, what: str, path: str) -> list[dict[str, Any]]:
    """Tied entries in their order after roll-offs on a `die` (`rolloffs.roll_offs`, the
    compiled fight loop's too), highest first; each entry's `tiebreaks` list gets its
    faces. Injected faces that run out or do not fit say so for `what`; a tie that still
    stands after MAX_ROLL_OFFS rounds is a LimitError at `path`."""
    n = len(tied)
    order = [0] * n
    try:
        placed = rolloffs.roll_offs(dice, die, list(range(n)), 0, n, 0, order, 0, [e["tiebreaks"] for e in tied])
    except KernelError as exc:
        raise dice_error(dice, exc, die, what) from None
    if placed < 0:
        raise LimitError(path, say("tie_limit", limit=MAX_ROLL_OFFS))
    return [tied[i] for i in order]


def roll_order(mods: list[int], subs: list[int], dice: Dice, die: int, path: str) -> tuple[list[int], list[int],
                                                                                         list[list[int]]]:
    """ER-18 and WW-1 initiative (`rolloffs.roll_order`, the compiled fight loop's too): a
    `die` per combatant in listed order plus mods[k], highest total first, then the higher
    subs[k], then roll-offs. Returns the order (combatant numbers), each one's die and its
    roll-off faces. Injected faces that run out or do not fit raise the KernelError (its
    position: the dice are drawn in order, one per combatant, then the roll-offs); a tie
    that still stands after MAX_ROLL_OFFS rounds is a LimitError at `path`."""
    n = len(mods)
    marks: list[list[int]] = [[] for _ in range(n)]
    order, rolls = [0] * n, [0] * n
    if n:
        low, sub_low = min(mods) + 1, min(subs)
        span, sub_span = max(mods) + die - low + 1, max(subs) - sub_low + 1
        placed = rolloffs.roll_order(dice, die, list(range(n)), n, mods, subs, low, span, sub_low, sub_span,
                                     [0] * (span * sub_span + 1), [0] * n, [0] * n, order, rolls, marks)
        if placed < 0:
            raise LimitError(path, say("tie_limit", limit=MAX_ROLL_OFFS))
    return order, rolls, marks


def failures(chances: list[Fraction]) -> list[Fraction]:
    """P(exactly k of independent saves fail), k = 0 … len(chances), each saving with its
    chance (Enchanted Realms and old-school saves). Whole numbers over the product of the
    denominators (20, 400 or 1) until the end: no gcd per step."""
    dist = [1]
    den = 1
    for p in chances:
        a, d = p.numerator, p.denominator
        nxt = [0] * (len(dist) + 1)
        for k, x in enumerate(dist):
            nxt[k] += x * a
            nxt[k + 1] += x * (d - a)
        dist, den = nxt, den * d
    return [Fraction(x, den) for x in dist]


class Rolled:
    """A result that is a plain dict (initiative, morale): `to_dict()` returns it."""

    __slots__ = ("seed", "ruleset", "data")

    def __init__(self, seed: int, ruleset: str, data: dict[str, Any]):
        self.seed, self.ruleset, self.data = seed, ruleset, data

    def to_dict(self) -> dict[str, Any]:
        """A fresh dict each call (changing it changes nothing here)."""
        import copy

        return copy.deepcopy(self.data)

    def __repr__(self) -> str:
        return f"<{self.ruleset} roll seed={self.seed}>"


class RowRuleset(Ruleset):
    """A ruleset on the shared row kernel: Worldwalker, Cartyrion, old-school, and any
    other ruleset, built in or installed as its own package, whose strikes fit a row.

    A subclass names its rules table (`rules`, a `Rules`: how a strike compiles to a row
    and how a rolled row reads as a result) and its `request_types`; compiling, rolling
    single attacks and bulk requests (on the compiled core when it is built: a bulk
    result's `backend` says which), exact odds (`rows_odds`) and rendering are this
    class's. Optional: `cli_module` (a module with `options`, `request_from_flags` and
    `flag_hint`: `fracas attack --ruleset …` flags, and `kind_options(kind)` and
    `kind_from_flags(kind, flags)`: the flags of the commands of shared kinds, `fracas
    initiative --ruleset …`; without it, request files only) and
    `strike_line` (one strike as text; without it the terminal shows the result's JSON).
    A dice pool: `rules = Rules(..., kernel="success-count")` and `pool_row` strikes."""

    #: The ruleset's row compiler table (its `Rules`).
    rules: Rules
    #: The module with its `options`, `request_from_flags` and `flag_hint` (imported on use).
    cli_module: str = ""
    #: One strike of a result as text (the ruleset's own wording), or None: a line, or a
    #: heading and its rows (`render_rows.StrikeText`).
    strike_line: Optional[Callable[[dict[str, Any]], Any]] = None
    #: What a target's result adds to its damage, in words (None: its fields as they are).
    target_line: Optional[Callable[[dict[str, Any]], str]] = None
    #: What the attack did to the attacker, in words, or None to say nothing.
    attacker_line: Optional[Callable[[dict[str, Any]], Optional[str]]] = None

    @property
    def row_kernel(self) -> Optional[str]:
        """The kernel mode its rows use (`Rules.kernel`): what its manifest's `row_kernel` says."""
        return self.rules.kernel

    def compile_attack(self, request: Any) -> Plan:
        return compile_attack(self.rules, self.request_types["attack"], request)

    def roll_attack(self, plan: Plan, dice: Dice, seed: int) -> "AttackResult":
        return roll_attack(plan, dice, seed)

    def compile_bulk(self, request: Any) -> BulkJob:
        return compile_bulk(self.rules, self.request_types["bulk"], request)

    def odds(self, plan: Any) -> Any:
        from . import rows_odds

        return rows_odds.odds(plan), rows_odds.cut(plan), False

    def _cli(self) -> Any:
        import importlib

        return importlib.import_module(self.cli_module)

    def cli_options(self) -> Any:
        return self._cli().options() if self.cli_module else super().cli_options()

    def request_from_flags(self, flags: dict[str, Any]) -> dict[str, Any]:
        if not self.cli_module:
            return super().request_from_flags(flags)
        request: dict[str, Any] = self._cli().request_from_flags(flags)
        return request

    def kind_cli_options(self, kind: str) -> list[Any]:
        """The cli module's `kind_options(kind)`, if it has one."""
        made = getattr(self._cli(), "kind_options", None) if self.cli_module else None
        return super().kind_cli_options(kind) if made is None else list(made(kind))

    def kind_from_flags(self, kind: str, flags: dict[str, Any]) -> dict[str, Any]:
        made = getattr(self._cli(), "kind_from_flags", None) if self.cli_module else None
        if made is None:
            return super().kind_from_flags(kind, flags)
        request: dict[str, Any] = made(kind, flags)
        return request

    def flag_hint(self, path: str, flags: dict[str, Any]) -> Optional[str]:
        if not self.cli_module:
            return None
        hint: Optional[str] = self._cli().flag_hint(path, flags)
        return hint

    def render(self, result: dict[str, Any], style: Optional[Callable[..., str]] = None) -> str:
        line = type(self).strike_line
        if line is None:
            return super().render(result, style)
        from .render_rows import render

        return render(result, style, self.title, line, type(self).target_line, type(self).attacker_line)
