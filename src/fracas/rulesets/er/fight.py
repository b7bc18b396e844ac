"""Enchanted Realms' round in a whole fight (`fracas.rulesets.fight.Procedure`).

- ER-18: every round each combatant rolls d10 + Agility modifier + bonus (the
  ruleset's `fight_initiative`), highest first.
- ER-13 sneak attacks: "the victim must have lost track of the one attempting the
  sneak attack during the previous round". A victim that fought the attacker in the
  prior round (the attacker attacked it, or it attacked the attacker) has not: the
  strike is made without its sneak dice (a "sneak" situation of None). In the first
  round nobody has been fought yet.
- ER-13 shock: a failed shock save (rolled by the attack when the target has
  `body_max` and `save_bonus`) incapacitates the victim for its next d3 actions: it
  loses that many turns, from its next slot on (the one of this round if it has not
  acted yet), each logged as an "incapacitated" event. A second failed save adds its
  actions to those left.
- A combatant leaves the fight when its Body falls to its tactic's `flee_at`.
"""

from __future__ import annotations

from typing import Any, ClassVar, Optional

from ..base import Ruleset
from ..fight import Member, Procedure, Situation, defined_by


class ErMember(Member):
    __slots__ = ("incapacitated",)

    incapacitated: int  # actions it still loses to a failed shock save (ER-13)


class ErRound(Procedure):
    member = ErMember
    compiled = "enchanted-realms"
    events = {"shocked": "a failed shock save incapacitates the victim for its next actions (ER-13)",
              "incapacitated": "an incapacitated combatant loses its action this round (ER-13)"}
    #: The strike change of a sneak attack at a victim that has not lost track of the attacker.
    no_sneak: ClassVar[tuple[tuple[str, Any], ...]] = (("sneak", None),)

    @classmethod
    def compiled_for(cls, ruleset: Any) -> bool:
        """The compiled round rolls ER-18 initiative and deals each attack's total damage."""
        return (defined_by(ruleset, "fight_initiative", "fracas.rulesets.er:EnchantedRealms")
                and type(ruleset).fight_outcome is Ruleset.fight_outcome)

    @classmethod
    def compiled_why(cls, sc: Any) -> Optional[str]:
        """The compiled round has no memory of who fought whom: a scenario with a sneak
        attack (ER-13) plays on the Python loop."""
        for g in sc.groups:
            for i, strike in enumerate(g.spec.attacks):
                if isinstance(strike, dict) and strike.get("sneak"):
                    return (f"{g.path}.attacks[{i}]: a sneak attack (ER-13: only at a victim that lost track of"
                            " the attacker in the prior round) plays on the Python loop")
        return None

    # -- a member --------------------------------------------------------------------------

    def start(self, m: Member) -> None:
        assert isinstance(m, ErMember)
        m.incapacitated = 0

    def saved(self, m: Member) -> dict[str, Any]:
        """ER-13: the actions a failed shock save still costs, and whom it fought last round."""
        assert isinstance(m, ErMember)
        return {"incapacitated": m.incapacitated, "attacked": list(m.attacking)}

    def load(self, m: Member, saved: dict[str, Any]) -> None:
        assert isinstance(m, ErMember)
        m.incapacitated = int(saved.get("incapacitated", 0))
        m.attacking = list(saved.get("attacked", m.attacking))

    # -- a round ---------------------------------------------------------------------------

    def slot_started(self, slot: list[Member], casting: set[int]) -> set[int]:
        """ER-13: an incapacitated combatant loses this action (a caster keeps its spell)."""
        busy = set()
        for m in slot:
            assert isinstance(m, ErMember)
            if m.incapacitated > 0 and m.status == "standing":
                m.incapacitated -= 1
                busy.add(m.index)
                self.fight.log({"type": "incapacitated", "who": m.id, "left": m.incapacitated, "rule": "ER-13",
                                "why": "a failed shock save: no action this round"})
        return busy

    def situation(self, m: Member, target: Member, key: str, use: Optional[tuple[int, ...]]) -> Situation:
        """ER-13: no sneak dice at a victim that fought the attacker in the prior round."""
        if key == "spell" or not (target.id in m.attacked or m.id in target.attacked):
            return ()
        attacks = self.sc.groups[m.group].spec.attacks
        indexes = use if use is not None else tuple(self.sc.groups[m.group].phases.get(key, ()))
        return tuple((("strike", i), self.no_sneak) for i in indexes if attacks[i].get("sneak"))

    def attacked(self, m: Member, target: Member, key: str, use: Optional[tuple[int, ...]],
                 situation: Situation, result: Any) -> None:
        """ER-13: a failed shock save costs the victim its next d3 actions."""
        save = getattr(result, "shock", {}).get("t")
        if save is None or not save.incapacitated_actions:
            return
        assert isinstance(target, ErMember)
        target.incapacitated += save.incapacitated_actions
        self.fight.log({"type": "shocked", "who": target.id, "by": m.id, "dc": save.dc,
                        "actions": save.incapacitated_actions, "rule": "ER-13",
                        "why": "a sneak attack dealt half its maximum Body or more and it failed its shock save"})
