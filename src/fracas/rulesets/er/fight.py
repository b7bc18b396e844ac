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
- ER-20 flee attacks: a combatant leaves the fight when its Body falls to its tactic's
  `flee_at`, moving `flee_move` feet (default 30). Under 20 ft (a cautious move) it
  draws nothing; otherwise each standing enemy engaged with it in melee (either made a
  melee or savage strike at the other this round or the round before) that has its
  reaction left and is not defending makes a flee attack, in member order: one strike,
  its first melee or savage strike (its primary hand), never a sneak attack, with one
  d20 against a rapid mover (75 ft or more), as a single flee attack is resolved. Each
  costs the attacker its reaction for the round (one a round). A mover brought to 0 by
  them is down, not fled; one that is defending leaves without drawing flee attacks.
- ER-15 defending: a combatant whose tactic's `defend_at` is reached (its health at or
  below it at its turn) defends instead of attacking ("defend" in the log): until its
  next turn, attacks at it have the target condition `defending` (disadvantage when it
  can see them, as a single attack resolves it), and defending "removes all reactions
  for both rounds": it makes no flee attack this round or the next, and leaves without
  drawing flee attacks while defending.
- ER-17 friendly fire: a combatant's `nearby` names who stands next to each of its
  members (combatant ids or group names). A ranged attack at it lists the standing ones
  (not the attacker; up to 8, in member order) as the target's `nearby` creatures, so a
  shot under the friendly-fire rule that misses may stray into one of them, exactly as a
  single attack resolves it; a stray's damage lands on that combatant. Without `nearby`
  no shot can stray: an attack under three-quarters cover (where a single attack with
  creatures nearby would be under the rule) says so in the log ("strays left out").
- ER-23 impalement: a combatant whose tactic has `charge: FEET` makes its first melee
  attack of the fight as a charge. At a target that sets a pole-arm against charges
  (`impale`: the impale request's weapon), with its reaction left (not defending, not
  incapacitated), when it closed 25 ft or more, the target impales it first: one
  random event, resolved as an impale request is (the charger's current Body); its
  damage lands first, and if it incapacitates the charger the charging attack is void.
"""

from __future__ import annotations

from typing import Any, ClassVar, Optional

from ..._facts import ER_FLEE_NORMAL
from ..base import Ruleset
from ..fight import DOWN, FLED, STANDING, Member, Procedure, Situation, defined_by, frozen

#: The strike methods that engage in melee (and that a flee attack is made with).
MELEE = ("melee", "savage")
#: A fleeing combatant's move when its tactic gives none (a normal move, ER-20).
FLEE_MOVE = 30


class ErMember(Member):
    __slots__ = ("incapacitated", "reacted", "engaged", "engaged_before", "defending", "no_reactions", "charged")

    incapacitated: int  # actions it still loses to a failed shock save (ER-13)
    reacted: bool  # its reaction of the round is spent (ER-20 flee attack)
    engaged: set[str]  # whom it exchanged melee strikes with this round (ER-20)
    engaged_before: set[str]  # ... and the round before
    defending: bool  # defends until its next turn (ER-15)
    no_reactions: int  # the last round in which defending leaves it no reaction (ER-15)
    charged: bool  # it has made its charge (ER-23)


class ErRound(Procedure):
    member = ErMember
    compiled = "enchanted-realms"
    tactics = {"flee_move": "ER-20", "defend_at": "ER-15", "charge": "ER-23"}
    fields = {"nearby": "ER-17", "impale": "ER-23"}
    events = {"shocked": "a failed shock save incapacitates the victim for its next actions (ER-13)",
              "incapacitated": "an incapacitated combatant loses its action this round (ER-13)",
              "defend": "a combatant defends instead of attacking, until its next turn (ER-15)",
              "stray": "a missed shot strays into a combatant next to its target (ER-17)",
              "strays left out": "a target in three-quarters cover with no one named nearby: no shot strays (ER-17)",
              "impalement": "a pikeman impales a charger before its charge (ER-23)"}
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
        for g in sc.groups:
            if g.spec.impale is not None or g.spec.tactic.charge is not None:
                return f"{g.path}: charges and impalements (ER-23) play on the Python loop"
            if g.spec.nearby:
                return f"{g.path}.nearby: friendly fire (ER-17) plays on the Python loop"
            if g.spec.tactic.defend_at is not None:
                return f"{g.path}.tactic.defend_at: defending (ER-15) plays on the Python loop"
            if g.spec.tactic.flee_at is not None:
                return (f"{g.path}.tactic.flee_at: leaving the fight draws flee attacks (ER-20), which play on the"
                        " Python loop")
        return None

    @classmethod
    def compiled_initiative(cls, sc: Any, specs: list[Any]) -> tuple[list[int], list[int], int]:
        """ER-18: d10 + Agility modifier + bonus (a modifier per group: its members share it)."""
        from . import initiative

        request = {"combatants": [{"id": g.spec.name, "agility": g.spec.attacker.get("agility"),
                                   "agility_mod": g.spec.attacker.get("agility_mod"), "bonus": g.spec.initiative}
                                  for g in sc.groups]}
        by_group = initiative.compile_initiative(request).mods
        return [by_group[g] for g in sc.member_group], [0] * len(specs), 10

    @classmethod
    def compiled_unfit(cls, plan: Any) -> Optional[str]:
        from .attack import AttackPlan

        if not isinstance(plan, AttackPlan) or plan.defense or plan.flee is not None or plan.follow_ups:
            return ("has follow-up dice (a sneak attack at a target with body_max, friendly fire, a grapple) or"
                    " defense rolls")
        return None

    # -- a member --------------------------------------------------------------------------

    def __init__(self, fight: Any) -> None:
        super().__init__(fight)
        #: (attacker, target) → the bystanders of the attack being made (ER-17)
        self._near: dict[tuple[int, int], list[Member]] = {}
        #: groups whose missing `nearby` the log has said (once a fight)
        self._unlisted: set[int] = set()

    def start(self, m: Member) -> None:
        assert isinstance(m, ErMember)
        m.incapacitated = 0
        m.reacted = False
        m.engaged, m.engaged_before = set(), set()
        m.defending, m.no_reactions = False, 0
        m.charged = False

    def saved(self, m: Member) -> dict[str, Any]:
        """ER-13: the actions a failed shock save still costs, and whom it fought last round
        (ER-20: whom it was engaged with in melee)."""
        assert isinstance(m, ErMember)
        return {"incapacitated": m.incapacitated, "attacked": list(m.attacking), "engaged": sorted(m.engaged),
                "defending": m.defending, "no_reactions_until": m.no_reactions, "charged": m.charged}

    def load(self, m: Member, saved: dict[str, Any]) -> None:
        assert isinstance(m, ErMember)
        m.incapacitated = int(saved.get("incapacitated", 0))
        m.attacking = list(saved.get("attacked", m.attacking))
        m.engaged = set(saved.get("engaged", ()))
        m.defending = bool(saved.get("defending", False))
        m.no_reactions = int(saved.get("no_reactions_until", 0))
        m.charged = bool(saved.get("charged", False))

    # -- a round ---------------------------------------------------------------------------

    def round_started(self) -> None:
        for m in self.fight.members:
            assert isinstance(m, ErMember)
            m.reacted = False
            m.engaged_before, m.engaged = m.engaged, set()

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

    def turn(self, m: Member, casting: bool) -> dict[str, list[int]]:
        """ER-15: at its `defend_at`, the combatant defends its turn away."""
        assert isinstance(m, ErMember)
        g = self.sc.groups[m.group]
        m.defending = False
        defend_at = g.spec.tactic.defend_at
        if defend_at is not None and m.hp <= defend_at and not casting:
            m.defending = True
            m.no_reactions = self.fight.round + 1
            self.fight.log({"type": "defend", "who": m.id, "rule": "ER-15",
                            "note": "no attack; attackers it can see are at disadvantage until its next turn;"
                                    " no reactions this round and the next"})
            return {}
        phases: dict[str, list[int]] = g.phases
        return phases

    @classmethod
    def check_tactic(cls, ruleset: Any, spec: Any, phases: dict[str, list[int]], path: str) -> None:
        """ER-23: a charge closes ground (0 ft or more); a pikeman's `impale` is an impale
        request's weapon, checked as one (its errors name `impale`)."""
        from ...errors import RequestError, RulesError

        charge = spec.tactic.charge
        if charge is not None and charge < 0:
            raise RulesError(f"{path}.tactic.charge", f"a charge closes 0 ft or more, not {charge} (ER-23)")
        if spec.impale is not None:
            request = {"pikeman": spec.attacker, "weapon": spec.impale,
                       "charger": {"id": "charger", "ac": 10, "body": 1, "closed": 25}}
            try:
                ruleset.kind("impale").compile(request)
            except RequestError as exc:
                where = exc.path.replace("$.weapon", f"{path}.impale").replace("$.pikeman", f"{path}.attacker")
                raise type(exc)(where, exc.reason) from None

    def before_attack(self, m: Member, target: Member, key: str, use: Optional[tuple[int, ...]]) -> bool:
        """ER-23: a charger's first melee attack, at a pikeman set against charges: the
        impalement comes first, and voids the charge when it incapacitates the charger."""
        assert isinstance(m, ErMember) and isinstance(target, ErMember)
        charge = self.sc.groups[m.group].spec.tactic.charge
        if charge is None or m.charged or key == "spell" or use is None:
            return True
        attacks = self.sc.groups[m.group].spec.attacks
        if not any(attacks[i].get("method") in MELEE for i in use):
            return True
        m.charged = True
        weapon = self.sc.groups[target.group].spec.impale
        if (weapon is None or charge < 25 or target.reacted or target.incapacitated
                or target.no_reactions >= self.fight.round or target.defending):
            return True
        target.reacted = True
        fight = self.fight
        impale = self.sc.ruleset.kind("impale")
        plan = impale.compile({"pikeman": self.sc.groups[target.group].spec.attacker, "weapon": weapon,
                               "charger": dict(self.sc.groups[m.group].spec.target, id=m.id, body=m.hp,
                                               closed=charge)})
        dice, seed = fight.stream()
        assert impale.roll is not None  # a rolled kind
        result = impale.roll(plan, dice, seed).to_dict()
        damage, void = result["charger"]["damage"], result["charge_void"]
        target.dealt += damage
        m.taken += damage
        fight.log({"type": "impalement", "who": target.id, "target": m.id, "seed": seed, "closed": charge,
                   "damage": damage, "charge_void": void, "rule": "ER-23", "result": result})
        if damage:
            fight.harm(m, damage, 0)
        return not void

    def situation(self, m: Member, target: Member, key: str, use: Optional[tuple[int, ...]]) -> Situation:
        """ER-15: a defending target; ER-13: no sneak dice at a victim that fought the
        attacker in the prior round."""
        assert isinstance(target, ErMember)
        found: Situation = ()
        tspec = self.sc.groups[target.group].spec
        if key != "spell" and use is not None:
            attacks = self.sc.groups[m.group].spec.attacks
            if any(attacks[i].get("method") == "range" for i in use):
                if tspec.nearby:
                    found += self._bystanders(m, target)
                elif tspec.target.get("cover") == "three-quarters" and target.group not in self._unlisted:
                    self._unlisted.add(target.group)
                    self.fight.log({"type": "strays left out", "target": target.id, "rule": "ER-17",
                                    "why": f"the scenario names no one nearby for {tspec.name}: a shot at it that"
                                           " misses under three-quarters cover cannot stray (give its nearby)"})
        if target.defending:
            conditions = self.sc.groups[target.group].spec.target.get("conditions") or []
            if "defending" not in conditions:
                found += (("target", (("conditions", (*conditions, "defending")),)),)
        if key == "spell" or not (target.id in m.attacked or m.id in target.attacked):
            return found
        attacks = self.sc.groups[m.group].spec.attacks
        indexes = use if use is not None else tuple(self.sc.groups[m.group].phases.get(key, ()))
        return found + tuple((("strike", i), self.no_sneak) for i in indexes if attacks[i].get("sneak"))

    def _bystanders(self, m: Member, target: Member) -> Situation:
        """ER-17: the request's targets with the standing combatants next to `target` as
        its `nearby` creatures ("n0", "n1", ...; who is who kept for `attacked`)."""
        sc = self.sc
        names = set(sc.groups[target.group].spec.nearby)
        near = [e for e in self.fight.members if e.status == STANDING and e is not target and e is not m
                and (e.id in names or sc.groups[e.group].spec.name in names)][:8]
        if not near:
            return ()
        self._near[(m.index, target.index)] = near
        targets = {"t": dict(sc.groups[target.group].spec.target, nearby=[f"n{k}" for k in range(len(near))])}
        for k, e in enumerate(near):
            targets[f"n{k}"] = dict(sc.groups[e.group].spec.target)
        return (("request", (("targets", frozen(targets)),)),)

    def request_ids(self, m: Member, target: Member) -> dict[str, str]:
        """The target and its bystanders (ER-17) by their combatant ids."""
        ids = {"t": target.id}
        for k, e in enumerate(self._near.get((m.index, target.index), ())):
            ids[f"n{k}"] = e.id
        return ids

    def outcome(self, result: Any) -> tuple[int, int, int]:
        """The target's damage: a stray's is its bystander's (ER-17, `attacked`)."""
        if getattr(result, "strays", None):
            return result.to_dict()["targets"]["t"]["damage"], 0, 0
        return super().outcome(result)

    def attacked(self, m: Member, target: Member, key: str, use: Optional[tuple[int, ...]],
                 situation: Situation, result: Any) -> None:
        """ER-20: melee strikes engage both; ER-13: a failed shock save costs the victim its
        next d3 actions."""
        assert isinstance(m, ErMember) and isinstance(target, ErMember)
        if key != "spell" and use is not None:
            attacks = self.sc.groups[m.group].spec.attacks
            if any(attacks[i].get("method") in MELEE for i in use):
                m.engaged.add(target.id)
                target.engaged.add(m.id)
        near = self._near.pop((m.index, target.index), None)
        if near and getattr(result, "strays", None):
            hit = result.to_dict()["targets"]
            for k, e in enumerate(near):
                damage = hit.get(f"n{k}", {}).get("damage", 0)
                if damage and e.status == STANDING:
                    m.dealt += damage
                    e.taken += damage
                    self.fight.log({"type": "stray", "who": m.id, "target": e.id, "damage": damage, "rule": "ER-17",
                                    "why": f"a shot at {target.id} missed and strayed"})
                    self.fight.harm(e, damage, 0)
        save = getattr(result, "shock", {}).get("t")
        if save is None or not save.incapacitated_actions:
            return
        target.incapacitated += save.incapacitated_actions
        self.fight.log({"type": "shocked", "who": target.id, "by": m.id, "dc": save.dc,
                        "actions": save.incapacitated_actions, "rule": "ER-13",
                        "why": "a sneak attack dealt half its maximum Body or more and it failed its shock save"})

    def harmed(self, target: Member) -> None:
        """ER-20: at its `flee_at` the combatant leaves, drawing flee attacks (module docstring)."""
        assert isinstance(target, ErMember)
        tactic = self.sc.groups[target.group].spec.tactic
        if tactic.flee_at is None or target.hp > tactic.flee_at:
            return
        fight = self.fight
        why = f"hp {target.hp} <= flee_at {tactic.flee_at}"
        moved = FLEE_MOVE if tactic.flee_move is None else tactic.flee_move
        defending = target.defending or "defending" in (self.sc.groups[target.group].spec.target.get("conditions")
                                                        or ())
        if moved >= ER_FLEE_NORMAL and not defending:
            for e in fight.members:
                assert isinstance(e, ErMember)
                if (e.status != STANDING or e.side == target.side or e.reacted or e.incapacitated
                        or e.no_reactions >= fight.round
                        or not (target.id in e.engaged or target.id in e.engaged_before)):
                    continue
                spec = self.sc.groups[e.group].spec
                strike = next((i for i, a in enumerate(spec.attacks) if a.get("method") in MELEE), None)
                if strike is None or "defending" in (spec.attacker.get("conditions") or ()):
                    continue  # ER-15: defending "removes all reactions for both rounds"
                e.reacted = True
                situation: Situation = (("request", (("flee", (("moved", moved),)),)),)
                if spec.attacks[strike].get("sneak"):  # a flee attack is a reaction, never a sneak attack
                    situation += ((("strike", strike), self.no_sneak),)
                hp, injury = fight.reaction(e, target, strike, situation,
                                            {"kind": "flee attack", "moved": moved, "rule": "ER-20"})
                if hp + injury:
                    target.hp = max(0, target.hp - hp - injury)
                    target.hurt_round = fight.round
                if target.hp == 0:
                    target.status = DOWN
                    fight.log({"type": "down", "who": target.id})
                    return
        target.status = FLED
        fight.log({"type": "fled", "who": target.id, "why": why})
