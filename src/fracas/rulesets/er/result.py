"""Results: the kernels' arrays turned back into what a game master reads.

`AttackResult.to_dict()` is the JSON-ready shape of docs/ENGINE.md §7, the same in
every backend (and in the JavaScript resolver) but for `backend`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from ... import _kernels
from ... import _layout as L
from ..._facts import ER_DEFENSE_DC
from . import strikes as _strikes
from .feats import Situation
from .plan import StrikeMeta, TargetInfo

#: The strike-entry builder by backend: its compiled build where setup.py made one, its
#: .py source on the pure-Python backend (the same file; see strikes.py).
_STRIKE_DICTS = {"compiled": _strikes.strike_dicts, "python": _kernels.pure_python(_strikes).strike_dicts}
_ATTACK_DICTS = {"compiled": _strikes.attack_dict, "python": _kernels.pure_python(_strikes).attack_dict}


@dataclass(slots=True)
class ShockSave:
    """ER-13 shock: a Resilience save called for by a heavy sneak attack."""

    dc: int
    roll: Optional[int] = None
    total: Optional[int] = None
    passed: Optional[bool] = None
    incapacitated_actions: Optional[int] = None
    #: ER-12/ER-14: the target's conditions on the save (None: a plain d20).
    situation: Optional[Situation] = None
    dice: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"dc": self.dc, "roll": self.roll, "total": self.total, "passed": self.passed,
                "incapacitated_actions": self.incapacitated_actions, "dice": list(self.dice),
                "situation": None if self.situation is None else self.situation.to_dict()}


class AttackResult:
    """One resolved attack: every die, every crit, damage per strike and per target."""

    __slots__ = ("seed", "ruleset", "backend", "injected", "strikes_meta", "targets_info",
                 "out", "log", "shock", "strays", "releases", "flee", "defense", "templates")

    def __init__(self, seed: int, ruleset: str, backend: str, injected: bool,
                 strikes_meta: list[StrikeMeta], targets_info: dict[str, TargetInfo],
                 out: Any, log: Any, shock: dict[str, ShockSave], strays: Optional[dict[int, Any]] = None,
                 releases: Optional[dict[str, Any]] = None, flee: Optional[dict[str, Any]] = None,
                 defense: bool = False, templates: Optional[list[dict[str, Any]]] = None) -> None:
        self.seed = seed
        self.ruleset = ruleset
        self.backend = backend
        self.injected = injected
        self.strikes_meta = strikes_meta
        self.targets_info = targets_info
        self.out = out
        self.log = log
        self.shock = shock
        #: ER-17: where missed shots under friendly fire went, by strike index.
        self.strays: dict[int, Any] = strays or {}
        #: ER-21: grapplers' Strength feats, by target id.
        self.releases = releases or {}
        self.flee = flee
        self.defense = defense
        #: The plan's strike templates (`strikes.strike_templates`), shared by every result
        #: of the plan: an empty list until the first `to_dict` of any of them fills it.
        self.templates = templates

    @property
    def total_damage(self) -> int:
        """Damage dealt to all targets together (stray shots included)."""
        out = self.out
        total: int = sum(out[s * L.OUT_WIDTH + L.O_DAMAGE] for s in range(len(self.strikes_meta)))
        strays: int = sum(stray.damage for stray in self.strays.values())
        return total + strays

    def __repr__(self) -> str:
        return f"<{self.ruleset} attack seed={self.seed} total_damage={self.total_damage}>"

    @property
    def target_damage(self) -> dict[str, int]:
        """Damage per target id, every target of the request (a fresh dict)."""
        damage = {tid: 0 for tid in self.targets_info}
        for s, meta in enumerate(self.strikes_meta):
            damage[meta.target] += self.out[s * L.OUT_WIDTH + L.O_DAMAGE]
        for stray in self.strays.values():
            if stray.creature is not None:
                damage[stray.creature] += stray.damage
        return damage

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready result (docs/ENGINE.md §7), built fresh on each call: changing
        it changes nothing here."""
        templates = self.templates
        if templates and not self.strays and not self.releases and not self.shock:
            # Most attacks, once their plan's templates are made: one compiled call.
            built: dict[str, Any] = _ATTACK_DICTS[_kernels.name()](
                self.ruleset, self.seed, self.backend, self.injected, self.strikes_meta, self.out, self.log,
                templates, self.targets_info, self.flee, self.defense, ER_DEFENSE_DC)
            return built
        return self._build()

    def _build(self) -> dict[str, Any]:
        out, log = self.out, self.log
        defense = self.defense
        templates = self.templates
        if templates is not None and len(templates) != len(self.strikes_meta):
            # The first result of its plan to be asked: make them once. Threads that get here
            # together each make the same list; the slice assignment is atomic under the GIL.
            templates[:] = _strikes.strike_templates(self.strikes_meta, defense, ER_DEFENSE_DC)
        if not self.strays and not self.releases and not self.shock:  # most attacks: strikes only, one call
            whole: dict[str, Any] = _ATTACK_DICTS[_kernels.name()](
                self.ruleset, self.seed, self.backend, self.injected, self.strikes_meta, out, log, templates,
                self.targets_info, self.flee, defense, ER_DEFENSE_DC)
            return whole
        strikes = _STRIKE_DICTS[_kernels.name()](self.strikes_meta, out, log, defense, ER_DEFENSE_DC, templates)
        targets: dict[str, dict[str, Any]] = {tid: {"damage": 0, "by_type": {}, "undodgeable": 0, "shock_save_dc": None,
                         "shock_save": None, "grapple_release": None} for tid in self.targets_info}
        for strike in strikes:
            damage = strike["damage"]
            entry = targets[strike["target"]]
            entry["damage"] += damage
            by_type = entry["by_type"]
            by_type[strike["damage_type"]] = by_type.get(strike["damage_type"], 0) + damage
            entry["undodgeable"] += strike["undodgeable"]
        for s, stray in self.strays.items():
            strikes[s]["stray"] = stray.to_dict()
            if stray.creature is not None and stray.hits:
                entry = targets[stray.creature]
                entry["damage"] += stray.damage
                entry["by_type"][stray.damage_type] = entry["by_type"].get(stray.damage_type, 0) + stray.damage
                entry["undodgeable"] += stray.undodgeable
        for tid, release in self.releases.items():
            targets[tid]["grapple_release"] = release.to_dict()
        for tid, shock in self.shock.items():
            targets[tid]["shock_save_dc"] = shock.dc
            if shock.passed is not None:
                targets[tid]["shock_save"] = shock.to_dict()
        return {
            "ruleset": self.ruleset, "seed": self.seed, "backend": self.backend,
            "injected": self.injected, "strikes": strikes, "targets": targets,
            "total_damage": sum(t["damage"] for t in targets.values()),
            "flee": dict(self.flee) if self.flee else None, "defense_rolls": defense,
        }
