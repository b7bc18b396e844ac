"""Cartyrion's round in a whole fight (`fracas.rulesets.fight.Procedure`).

- CT-1: side initiative every round (the ruleset's `fight_initiative`).
- CT-4: melee damage draws down Stamina, ranged and sneak damage is Injury; a ranged
  attack costs the attacker Stamina; Stamina damage past 0 becomes Injury.
- CT-5: a power attack doubles the damage dice and breaks the weapon: it cannot be used
  again in that fight (the tactic's `power`: never, on its first turn, or when hurt).
- CT-6: parrying is the combatant's turn (tactic `parry`, from `parry_at` Stamina down):
  it makes no attack, and incoming damage is mitigated until its next turn; an exploding
  die shatters a parrying weapon once its magic is spent, a shield takes its points.
- CT-7: no sneak attack on a target the attacker attacked in the prior round.
"""

from __future__ import annotations

from array import array
from typing import Any, ClassVar, Literal, Optional

from ... import _layout as L
from ...errors import RulesError
from ...requests import check_range, say
from .. import rows
from ..fight import Field, Member, Procedure, Situation, defined_by
from . import turn as rules
from .sides import side_initiative


class CtMember(Member):
    __slots__ = ("broken", "parrying", "weapon_left", "shield_left", "turns")

    broken: list[int]    # strikes whose weapon broke or shattered (CT-5, CT-6)
    parrying: str        # "weapon" or "shield" until its next turn (CT-6)
    weapon_left: int     # explosions its parrying weapon takes
    shield_left: int     # its shield's points
    turns: int           # turns it has taken (CT-5 power "first")


class CtRound(Procedure):
    pools = ("hp", "injury")
    tactics = {
        "parry": Field(Optional[Literal["weapon", "shield"]], None, "CT-6", "parries its turn away with its weapon"
                       " (its first attack) or its shield, instead of attacking"),
        "parry_at": Field(Optional[int], None, "CT-6", "parries only on turns when its Stamina is at or below this"
                          " (every turn without it)"),
        "power": Field(Literal["never", "first", "hurt"], "never", "CT-5", "when it power-attacks, breaking the"
                       " weapon: never, first (its first turn), hurt (its turns at half Stamina or less)"),
    }
    fields = {"surprise_immune": Field(bool, False, "CT-1", "cannot be surprised: takes its turn in a round its"
                                       " side is surprised in, after the side that surprised it")}
    member = CtMember
    events = {"parry": "a combatant parries until its next turn (CT-6)",
              "no weapon": "every weapon a combatant attacks with is broken (CT-5)",
              "weapon broken": "a power attack broke the weapon (CT-5)",
              "weapon shattered": "an exploding die shattered the parrying weapon (CT-6)",
              "shield destroyed": "the parrying shield took its points (CT-6)",
              "not surprised": "combatants of a surprised side that cannot be surprised take their turns (CT-1)"}
    compiled = "cartyrion"
    #: Request changes of a power attack (CT-5) and of a sneak attack not allowed (CT-7).
    power_attack: ClassVar[tuple[tuple[str, Any], ...]] = (("power", True),)
    no_sneak: ClassVar[tuple[tuple[str, Any], ...]] = (("sneak", None),)

    @classmethod
    def compiled_for(cls, ruleset: Any) -> bool:
        """The compiled round rolls CT-1 side initiative."""
        return defined_by(ruleset, "fight_initiative", "fracas.rulesets.ct:Cartyrion")

    @classmethod
    def check_tactic(cls, ruleset: Any, spec: Any, phases: dict[str, list[int]], path: str) -> None:
        """CT-6 in a fight: the parrying combatant's tactic parries, not an attacker's strike;
        a shield parry needs shield points."""
        super().check_tactic(ruleset, spec, phases, path)
        for j, strike in enumerate(spec.attacks):
            if isinstance(strike, dict) and strike.get("parry") is not None:
                raise RulesError(f"{path}.attacks[{j}].parry", "in a fight the target parries on its own turn"
                                                               " (its tactic.parry), not in the attacker's strike"
                                                               " (CT-6)")
        tactic = spec.tactic
        if tactic.parry == "shield" and not (isinstance(spec.target, dict) and spec.target.get("shield")):
            raise RulesError(f"{path}.tactic.parry", say("ct_shield"))
        if tactic.parry_at is not None:
            check_range(tactic.parry_at, 0, 1_000_000, f"{path}.tactic.parry_at", "parry_at")

    @staticmethod
    def parry_state(target: dict[str, Any]) -> tuple[int, int]:
        """(explosions the parrying weapon takes before it shatters, shield points) (CT-6)."""
        return int(target.get("weapon_magic", 0)) + 1, int(target.get("shield") or 0)

    @staticmethod
    def parrying(kind: str, weapon_left: int, shield_left: int) -> tuple[tuple[str, Any], ...]:
        """The target fields of a combatant parrying with what it has left (CT-6)."""
        if kind == "weapon":
            return (("weapon_magic", weapon_left - 1),)
        return (("shield", shield_left),)

    @staticmethod
    def parry_left(result: Any) -> Optional[int]:
        """What the parry has left after an attack (explosions or shield points)."""
        left = None
        for s, meta in enumerate(result.plan.metas):
            if meta.facts["parry"]:
                left = rows.Out(result.out, s * L.XOUT_WIDTH).parry_left
        return left

    # -- the compiled twin -------------------------------------------------------------------

    #: Strikes at most of a combatant whose weapons can break (2^k situations each).
    COMPILED_BREAKABLE: ClassVar[int] = 6
    _PARRY: ClassVar[dict[Optional[str], int]] = {
        None: rules.PARRY_NONE, "": rules.PARRY_NONE, "weapon": rules.PARRY_WEAPON, "shield": rules.PARRY_SHIELD}
    _PARRIED: ClassVar[dict[int, str]] = {rules.PARRY_NONE: "", rules.PARRY_WEAPON: "weapon",
                                          rules.PARRY_SHIELD: "shield"}
    _POWER: ClassVar[dict[str, int]] = {"never": rules.POWER_NEVER, "first": rules.POWER_FIRST,
                                        "hurt": rules.POWER_HURT}

    @classmethod
    def _parry(cls, tactic: Any) -> tuple[int, int]:
        """A tactic's parry as `turn.parry_now` reads it: what it parries with, from what
        Stamina down (PARRY_ALWAYS: on every turn)."""
        return cls._PARRY[tactic.parry], rules.PARRY_ALWAYS if tactic.parry_at is None else tactic.parry_at

    @classmethod
    def _dims(cls, sc: Any) -> tuple[list[list[int]], list[tuple[int, int]]]:
        """Per group its compiled fields, and as a target its parry levels (weapon, shield)."""
        fields, parries = [], []
        for g in sc.groups:
            tactic, attacks = g.spec.tactic, g.spec.attacks
            sneak = sum(1 << i for i, a in enumerate(attacks) if a.get("sneak") is not None)
            breaks = tactic.power != "never" or any(a.get("power") for a in attacks) or tactic.parry == "weapon"
            fields.append([*cls._parry(tactic), cls._POWER[tactic.power], int(breaks),
                           2 if tactic.power != "never" else 1, 2 if sneak else 1, sneak, len(attacks),
                           int(g.spec.surprise_immune)])
            weapon, shield = cls.parry_state(g.spec.target)
            parries.append((weapon if tactic.parry == "weapon" else 0, shield if tactic.parry == "shield" else 0))
        return fields, parries

    @classmethod
    def _compiled_situation(cls, g: Any, use: tuple[int, ...], parry: tuple[str, int, int], power: bool,
                            no_sneak: bool) -> Situation:
        """`situation` of an attack: the target's parry (CT-6), a power attack (CT-5), no
        sneak attack at a target attacked the round before (CT-7)."""
        kind, weapon_left, shield_left = parry
        found: list[tuple[Any, tuple[tuple[str, Any], ...]]] = []
        if kind:
            found.append(("target", cls.parrying(kind, weapon_left, shield_left)))
        for i in use:
            changes: list[tuple[str, Any]] = []
            sneak = g.spec.attacks[i].get("sneak") is not None
            if kind:
                changes.append(("parry", kind))
            if sneak and no_sneak:
                changes.extend(cls.no_sneak)
            elif not sneak and power:
                changes.extend(cls.power_attack)
            if changes:
                found.append((("strike", i), tuple(changes)))
        return tuple(found)

    @classmethod
    def compiled_variants(cls, sc: Any, g: Any, key: str, use: Optional[tuple[int, ...]], t: Any,
                          tables: dict[str, Any]) -> list[tuple[Optional[tuple[int, ...]], Situation]]:
        """By broken strikes, power, no sneak, the target's parry and what it has left."""
        if key == "spell":
            return [(None, ())]
        fields, parries = tables["_ct_fields"], tables["_ct_parries"]
        k = len(g.spec.attacks)
        breaks, power_dim, sneak_dim = fields[g.index][3], fields[g.index][4], fields[g.index][5]
        weapon, shield = parries[t.index]
        parry = [("", 0, 0), *[("weapon", w, 0) for w in range(1, weapon + 1)],
                 *[("shield", 0, left) for left in range(1, shield + 1)]]
        out: list[tuple[Optional[tuple[int, ...]], Situation]] = []
        for mask in range(1 << k if breaks else 1):
            left = tuple(i for i in range(k) if not mask >> i & 1)
            for power in range(power_dim):
                for no_sneak in range(sneak_dim):
                    for state in parry:
                        out.append((left or None, cls._compiled_situation(g, left, state, bool(power), bool(no_sneak))
                                    if left else ()))
        return out

    @classmethod
    def compiled_tables(cls, sc: Any, tables: dict[str, Any]) -> Optional[str]:
        """CT-1 side initiative by d6 and ambush, CT-4..7 per group and member."""
        if sc.setup is None:
            return "the ruleset's round has procedures the compiled fight loop does not take"
        fields, parries = cls._dims(sc)
        for g in sc.groups:
            if fields[g.index][3] and len(g.spec.attacks) > cls.COMPILED_BREAKABLE:
                return f"{g.path}: more than {cls.COMPILED_BREAKABLE} strikes that can break (CT-5, CT-6)"
        setup = sc.setup
        init = array("q")
        for first_round in (True, False):  # per d6: the side acting first, the side surprised (-1: none)
            for roll in range(1, 7):
                first, surprised = side_initiative(roll, 1 if first_round else 2,
                                                   setup["ambush"] if first_round else "none")
                init.extend((sc.sides.index(setup[first]), sc.sides.index(setup[surprised]) if surprised else -1))
        state = [cls.parry_state(sc.groups[g].spec.target) for g in sc.member_group]
        tables.update(rows=True, side_turns=True, _ct_fields=fields, _ct_parries=parries, ct_init=init,
                      ct_group=array("q", [x for f in fields for x in f]),
                      own_power=array("q", [sum(1 << i for i, a in enumerate(g.spec.attacks) if a.get("power"))
                                             for g in sc.groups]),
                      parry_dims=array("q", [x for pd in parries for x in pd]),
                      weapon0=array("q", [w for w, _ in state]), shield0=array("q", [sh for _, sh in state]))
        return None

    # -- a member --------------------------------------------------------------------------

    def start(self, m: Member) -> None:
        assert isinstance(m, CtMember)
        m.broken, m.parrying, m.turns = [], "", 0
        m.weapon_left, m.shield_left = self.parry_state(self.sc.groups[m.group].spec.target)

    def saved(self, m: Member) -> dict[str, Any]:
        """CT-5/6/7: what later rounds remember."""
        assert isinstance(m, CtMember)
        return {"broken": list(m.broken), "parrying": m.parrying, "parry_weapon_left": m.weapon_left,
                "shield_left": m.shield_left, "attacked": list(m.attacking), "turns": m.turns}

    def load(self, m: Member, saved: dict[str, Any]) -> None:
        assert isinstance(m, CtMember)
        m.broken = list(saved.get("broken", m.broken))
        m.parrying = saved.get("parrying", m.parrying)
        m.weapon_left = saved.get("parry_weapon_left", m.weapon_left)
        m.shield_left = saved.get("shield_left", m.shield_left)
        m.attacking = list(saved.get("attacked", m.attacking))
        m.turns = saved.get("turns", m.turns)

    # -- a round ---------------------------------------------------------------------------

    def initiative(self) -> tuple[list[list[str]], Optional[dict[str, Any]]]:
        """CT-1 side initiative; in a round its side is surprised, a combatant that cannot
        be surprised ("these exceptions are individual, though") takes its turn after the
        side that surprised it."""
        fight = self.fight
        slots, record = fight.roll_initiative()
        surprised = record.get("surprised") if record else None
        if surprised:
            side = fight.sc.sides.index(self.sc.setup[surprised])
            awake = [m.id for m in fight.standing(side) if self.sc.groups[m.group].spec.surprise_immune]
            if awake:
                slots = [*slots, awake]
                fight.log({"type": "not surprised", "who": awake, "side": fight.sc.sides[side], "rule": "CT-1",
                           "why": "cannot be surprised: takes its turn after the side that surprised it"})
        return slots, record

    def turn(self, m: Member, casting: bool) -> dict[str, list[int]]:
        """The start of `m`'s turn: a parry ends (CT-6: "mitigated until their next combat
        turn"), or a new one takes the turn; its broken weapons make no strikes (CT-5)."""
        assert isinstance(m, CtMember)
        g = self.sc.groups[m.group]
        tactic = g.spec.tactic
        m.turns += 1
        phases = {phase: [i for i in strikes if i not in m.broken] for phase, strikes in g.phases.items()}
        phases = {phase: strikes for phase, strikes in phases.items() if strikes}
        m.parrying = self._PARRIED[rules.parry_now(*self._parry(tactic), m.hp, m.weapon_left, 0 in m.broken,
                                                   m.shield_left, casting)]
        if m.parrying:
            self.fight.log({"type": "parry", "who": m.id, "with": m.parrying, "rule": "CT-6",
                            "left": m.weapon_left if m.parrying == "weapon" else m.shield_left,
                            "note": "no attack this turn; incoming damage mitigated until its next turn"})
            return {}
        if not phases and not casting and g.phases:
            self.fight.log({"type": "no weapon", "who": m.id, "rule": "CT-5",
                            "why": "every weapon it attacks with is broken"})
        return phases

    def _power_now(self, m: CtMember) -> bool:
        """CT-5: the tactic's moment for a power attack."""
        return rules.power_now(self._POWER[self.sc.groups[m.group].spec.tactic.power], m.turns, m.hp, m.hp_max)

    def situation(self, m: Member, target: Member, key: str, use: Optional[tuple[int, ...]]) -> Situation:
        """A parry (CT-6), a power attack (CT-5), a sneak attack on a target attacked in the
        prior round (CT-7)."""
        assert isinstance(m, CtMember) and isinstance(target, CtMember)
        if key == "spell" or use is None:
            return ()
        found: list[tuple[Any, tuple[tuple[str, Any], ...]]] = []
        if target.parrying:
            found.append(("target", self.parrying(target.parrying, target.weapon_left, target.shield_left)))
        spec = self.sc.groups[m.group].spec
        for i in use:
            changes: list[tuple[str, Any]] = []
            sneak = spec.attacks[i].get("sneak") is not None
            if target.parrying:
                changes.append(("parry", target.parrying))
            if sneak and target.id in m.attacked:
                changes.extend(self.no_sneak)
            elif not sneak and self._power_now(m):
                changes.extend(self.power_attack)
            if changes:
                found.append((("strike", i), tuple(changes)))
        return tuple(found)

    def outcome(self, result: Any) -> tuple[int, int, int]:
        """CT-4: melee damage draws Stamina, ranged and sneak damage is Injury; ranged costs stamina."""
        stamina = injury = cost = 0
        for s, meta in enumerate(result.plan.metas):
            out = rows.Out(result.out, s * L.XOUT_WIDTH)
            if meta.facts["pool"] == "stamina":
                stamina += out.damage
            else:
                injury += out.damage
            cost += out.cost
        return stamina, injury, cost

    def attacked(self, m: Member, target: Member, key: str, use: Optional[tuple[int, ...]],
                 situation: Situation, result: Any) -> None:
        """A weapon broken by a power attack (CT-5), a parrying weapon shattered or a shield
        destroyed (CT-6)."""
        assert isinstance(m, CtMember) and isinstance(target, CtMember)
        if key == "spell" or use is None:
            return
        attacks = self.sc.groups[m.group].spec.attacks
        powered = {where[1] for where, changes in situation if where != "target" and ("power", True) in changes}
        log = self.fight.log
        for i in use:
            if i not in m.broken and rules.weapon_breaks(i in powered, attacks[i].get("sneak") is not None,
                                                         bool(attacks[i].get("power"))):
                m.broken.append(i)
                log({"type": "weapon broken", "who": m.id, "strike": i, "rule": "CT-5",
                     "why": "a power attack breaks the weapon: unusable for the rest of the fight"})
        if target.parrying:
            left = self.parry_left(result)
            if left is None:
                return
            parrying = self._PARRY[target.parrying]
            if target.parrying == "weapon":
                target.weapon_left = left
            else:
                target.shield_left = left
            if rules.shatters(parrying, left) and 0 not in target.broken:
                target.broken.append(0)
            after = self._PARRIED[rules.parry_after(parrying, left)]
            if not after and target.parrying == "weapon":
                log({"type": "weapon shattered", "who": target.id, "strike": 0, "rule": "CT-6",
                     "why": "an exploding die shattered the parrying weapon: no more parries with it"})
            elif not after:
                log({"type": "shield destroyed", "who": target.id, "rule": "CT-6",
                     "why": "the shield took its points in double damage"})
            target.parrying = after
