"""Worldwalker's round in a whole fight (`fracas.rulesets.fight.Procedure`).

- WW-1: initiative is rolled once, for the whole fight (d20 + Dexterity modifier +
  bonus); later rounds keep its order, less those who fell.
- WW-5: block and dodge spend complex actions held in reserve. A combatant's tactic
  `reserve` holds that many of its round's complex actions, each forgoing an attack
  (the off hand's bonus action first, WW-6); each strike is an attack of its own, so a
  defender spends a reserved action on each strike it blocks or dodges, and one with
  none left has no reaction.
"""

from __future__ import annotations

from array import array
from typing import Any, ClassVar, Optional

from ... import _layout as L
from ...errors import RulesError
from ...requests import check_range
from .. import rows
from ..base import Ruleset
from ..fight import Member, Procedure, Situation, defined_by


class WwMember(Member):
    __slots__ = ("reserve",)

    reserve: int  # reserved complex actions left this round (WW-5)


class WwRound(Procedure):
    tactics = {"reserve": "WW-5"}
    member = WwMember
    events = {"reserve": "complex actions held in reserve for blocks and dodges (WW-5)",
              "reserve spent": "reserved actions spent on blocks or dodges (WW-5)"}
    compiled = "worldwalker"
    #: A target that has no reserved action left cannot block or dodge (WW-5).
    no_reaction: ClassVar[tuple[tuple[str, Any], ...]] = (("reaction", None),)

    @classmethod
    def compiled_for(cls, ruleset: Any) -> bool:
        """The compiled round rolls WW-1 initiative and deals each attack's total damage."""
        return (defined_by(ruleset, "fight_initiative", "fracas.rulesets.ww:Worldwalker")
                and type(ruleset).fight_outcome is Ruleset.fight_outcome)

    @staticmethod
    def allotment(attacker: dict[str, Any]) -> int:
        """Complex actions a round: one, and a bonus one with two weapons or weapon and
        shield (WW-6: "a single bonus Complex action that must be used to make either an
        attack or a block attempt with the off hand weapon")."""
        return 1 + (1 if attacker.get("two_weapon") is not None else 0)

    @classmethod
    def forgone(cls, spec: Any) -> list[int]:
        """The strikes a combatant forgoes for its reserved actions: the off-hand's bonus
        action is reserved first, then the main one (WW-5, WW-6)."""
        reserve = spec.tactic.reserve
        if not reserve:
            return []
        off_reserved = cls.allotment(spec.attacker) > 1
        main_reserved = reserve >= (2 if off_reserved else 1)
        return [i for i, strike in enumerate(spec.attacks)
                if (off_reserved if strike.get("hand") == "off" else main_reserved)]

    @classmethod
    def check_tactic(cls, ruleset: Any, spec: Any, phases: dict[str, list[int]], path: str) -> None:
        """WW-5: a reserve of 0 up to the complex actions of a round, and a block or dodge
        (`target.reaction`) to spend it on."""
        super().check_tactic(ruleset, spec, phases, path)
        most = cls.allotment(spec.attacker if isinstance(spec.attacker, dict) else {})
        check_range(spec.tactic.reserve, 0, most, f"{path}.tactic.reserve", "reserve")
        if spec.tactic.reserve and not (isinstance(spec.target, dict) and spec.target.get("reaction")):
            raise RulesError(f"{path}.tactic.reserve", "reserved actions buy blocks or dodges: give the"
                                                       " combatant's target.reaction (kind and bonus, WW-5)")

    @classmethod
    def compiled_units(cls, sc: Any, g: Any) -> list[tuple[str, Optional[tuple[int, ...]]]]:
        """Each strike it does not forgo for its reserve is an attack (WW-5)."""
        forgone = set(cls.forgone(g.spec))
        return [("attack", (i,)) for i in g.phases.get("attack", []) if i not in forgone]

    @classmethod
    def compiled_variants(cls, sc: Any, g: Any, key: str, use: Optional[tuple[int, ...]], t: Any,
                          tables: dict[str, Any]) -> list[tuple[Optional[tuple[int, ...]], Situation]]:
        """With and without the target's reaction: a target with a block or dodge and no
        reserved action left has none (WW-5)."""
        no_reaction: Situation = (("target", cls.no_reaction),) if t.spec.target.get("reaction") else ()
        return [(use, ()), (use, no_reaction)]

    @classmethod
    def compiled_initiative(cls, sc: Any, specs: list[Any]) -> tuple[list[int], list[int], int]:
        """WW-1: d20 + Dexterity modifier + bonus; equal totals by the Dexterity modifier."""
        subs = [int(spec.attacker.get("dex_mod", 0)) for spec in specs]
        return [sub + spec.initiative for sub, spec in zip(subs, specs)], subs, 20

    @classmethod
    def compiled_tables(cls, sc: Any, tables: dict[str, Any]) -> Optional[str]:
        """Strike rows, initiative once (WW-1), reserves and reactions per member (WW-5)."""
        specs = [sc.groups[g].spec for g in sc.member_group]
        tables.update(rows=True, init_once=True,
                      reserve=array("q", [spec.tactic.reserve for spec in specs]),
                      reaction=array("i", [1 if spec.target.get("reaction") else 0 for spec in specs]))
        return None

    def start(self, m: Member) -> None:
        assert isinstance(m, WwMember)
        m.reserve = 0

    def round_started(self) -> None:
        groups = self.sc.groups
        for m in self.fight.members:
            m.reserve = groups[m.group].spec.tactic.reserve

    def initiative(self) -> tuple[list[list[str]], Optional[dict[str, Any]]]:
        """WW-1: rolled in the first round; later rounds keep its order."""
        fight = self.fight
        if fight.order is not None:
            alive = {m.id for m in fight.standing()}
            return [[mid for mid in slot if mid in alive] for slot in fight.order if any(i in alive for i in slot)], None
        slots, record = fight.roll_initiative()
        fight.order = slots
        return slots, record

    def turn(self, m: Member, casting: bool) -> dict[str, list[int]]:
        g = self.sc.groups[m.group]
        tactic = g.spec.tactic
        if not tactic.reserve:
            phases: dict[str, list[int]] = g.phases
            return phases
        forgone = set(self.forgone(g.spec))
        kept = {phase: [i for i in strikes if i not in forgone] for phase, strikes in g.phases.items()}
        if self.fight.logging:
            assert isinstance(m, WwMember)
            self.fight.log({"type": "reserve", "who": m.id, "reserved": tactic.reserve, "actions": m.reserve,
                            "forgoes": sorted(forgone), "rule": "WW-5",
                            "note": "held for blocks or dodges until the end of the round"})
        return {phase: strikes for phase, strikes in kept.items() if strikes}

    def parts(self, m: Member, use: Optional[tuple[int, ...]]) -> list[Optional[tuple[int, ...]]]:
        """WW-5: each strike is its own attack, so the defender spends a reserved action on each."""
        return [(i,) for i in use] if use is not None else [use]

    def situation(self, m: Member, target: Member, key: str, use: Optional[tuple[int, ...]]) -> Situation:
        assert isinstance(target, WwMember)
        if target.reserve <= 0 and self.sc.groups[target.group].spec.target.get("reaction"):
            return (("target", self.no_reaction),)
        return ()

    def attacked(self, m: Member, target: Member, key: str, use: Optional[tuple[int, ...]],
                 situation: Situation, result: Any) -> None:
        """WW-5: the blocks and dodges the attack rolled spend the target's reserve."""
        assert isinstance(target, WwMember)
        if target.reserve > 0:
            spent = sum(1 for s in range(len(result.plan.metas)) if rows.Out(result.out, s * L.XOUT_WIDTH).react_roll)
            if spent:
                target.reserve -= spent
                self.fight.log({"type": "reserve spent", "who": target.id, "spent": spent, "left": target.reserve,
                                "rule": "WW-5"})
