"""Worldwalker's round in a whole fight (`fracas.rulesets.fight.Procedure`).

- WW-1: initiative is rolled once, for the whole fight (d20 + Dexterity modifier +
  bonus); later rounds keep its order, less those who fell.
- WW-5: block and dodge spend complex actions held in reserve. A combatant's tactic
  `reserve` holds that many of its round's complex actions, each forgoing an attack
  (the off hand's bonus action first, WW-6); each strike is an attack of its own, so a
  defender spends a reserved action on each strike it blocks or dodges, and one with
  none left has no reaction.
- WW-5, ranged weapons in melee: a defender holding a ranged weapon (one of its
  `attacks` is ranged) blocks and dodges a melee attack at −6 (the strike's `engaged`);
  "engaged in melee" is being attacked in melee. A static property of the attacker's
  strike and the target, so the compiled loop compiles it up front (`engaged`).
- WW-7: a feint spends its complex action. A strike with a `feint` takes two of its
  hand's actions: in one round its combatant feints (a `feint` event, no attack), and
  the attack the feint sets up comes with the hand's next complex action, the next
  round (the feint's contest is rolled with that attack, at that attack's target); then
  it feints again. The off hand's bonus action may only attack or block (WW-6): an
  off-hand strike cannot feint.
- Attacks of opportunity: a combatant leaving the fight (its `flee_at`) provokes one
  attack from each standing enemy that threatens it, an enemy engaged with it in melee
  this round or the last (either attacked the other in melee) that has a melee strike;
  an enemy makes one a round ("you can only make one per round"). They are made in
  member order, each one random event (`fight.stream()`), before it leaves; one that
  downs it leaves it down, not fled.
"""

from __future__ import annotations

from array import array
from typing import Any, ClassVar, Optional

from ... import _layout as L
from ...errors import RulesError
from ...requests import check_range
from .. import rows
from ..base import Ruleset
from ..fight import DOWN, STANDING, Field, Member, Procedure, Situation, defined_by


class WwMember(Member):
    __slots__ = ("reserve", "feinted", "engaged", "engaged_before", "opportunity", "fleeing")

    reserve: int  # reserved complex actions left this round (WW-5)
    feinted: set[int]  # strikes whose feint is made: their attack comes with the next action (WW-7)
    engaged: set[int]  # members engaged with it in melee this round (attacks of opportunity)
    engaged_before: set[int]  # and in the round before
    opportunity: int  # the round of its last attack of opportunity (one a round)
    fleeing: bool  # leaving: the attacks of opportunity it provokes are being made


class WwRound(Procedure):
    tactics = {"reserve": Field(int, 0, "WW-5", "complex actions held in reserve each round for blocks or"
                                " dodges; each forgoes an attack (the off-hand's bonus action first, WW-6)",
                                {"minimum": 0, "maximum": 2})}
    member = WwMember
    events = {"reserve": "complex actions held in reserve for blocks and dodges (WW-5)",
              "reserve spent": "reserved actions spent on blocks or dodges (WW-5)",
              "feint": "a feint spends a complex action; the attack it sets up comes with the next (WW-7)",
              "attack of opportunity": "a free melee attack at a combatant leaving an enemy's threatened square"
                                       " (Worldwalker Attacks of Opportunity)"}
    compiled = "worldwalker"
    #: A target that has no reserved action left cannot block or dodge (WW-5).
    no_reaction: ClassVar[tuple[tuple[str, Any], ...]] = (("reaction", None),)
    #: A melee strike at a target holding a ranged weapon: −6 to its block or dodge (WW-5).
    engaged_strike: ClassVar[tuple[tuple[str, Any], ...]] = (("engaged", True),)
    #: An attack of opportunity is "a single melee attack": no feint before it.
    no_feint: ClassVar[tuple[tuple[str, Any], ...]] = (("feint", None),)

    def __init__(self, fight: Any) -> None:
        super().__init__(fight)
        #: whether anyone can provoke an attack of opportunity (engagement is kept only then)
        self.watch = self.opportunities(self.sc)
        self.feints = any(self.feinting(g.spec) for g in self.sc.groups)

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

    @staticmethod
    def feinting(spec: Any) -> list[int]:
        """The strikes of a combatant's `attacks` that feint first (WW-7)."""
        return [i for i, strike in enumerate(spec.attacks) if strike.get("feint") is not None]

    @staticmethod
    def ranged(spec: Any) -> bool:
        """Whether a combatant holds a ranged weapon: one of its `attacks` is ranged (WW-5)."""
        return any(strike.get("method") == "ranged" for strike in spec.attacks)

    @staticmethod
    def melee(spec: Any) -> Optional[int]:
        """Its attack of opportunity ("a single melee attack"): its first melee strike (None: none)."""
        return next((i for i, strike in enumerate(spec.attacks) if strike.get("method") == "melee"), None)

    @classmethod
    def opportunities(cls, sc: Any) -> bool:
        """Whether an attack of opportunity can happen: a combatant with a `flee_at` has an
        enemy with a melee strike."""
        groups = sc.groups
        melee = {g.side for g in groups if cls.melee(g.spec) is not None}  # sides with a melee strike
        return any(g.spec.tactic.flee_at is not None and melee - {g.side} for g in groups)

    @classmethod
    def engaged(cls, g: Any, key: str, use: Optional[tuple[int, ...]], t: Any) -> Situation:
        """WW-5: group `g`'s melee strikes (of `key`, those of `use`) at a member of group `t`
        that holds a ranged weapon and may block or dodge: each with `engaged`, −6 to the
        reaction. What `situation` adds, and the compiled loop's variants (`fastfight`)."""
        if not (t.spec.target.get("reaction") and cls.ranged(t.spec)):
            return ()
        if key == "spell":
            strikes = g.spec.spell.strikes
            indexes: Any = range(len(strikes))
        else:
            strikes = g.spec.attacks
            indexes = use if use is not None else g.phases[key]
        return tuple((("strike", i), cls.engaged_strike) for i in indexes if strikes[i].get("method") == "melee")

    @classmethod
    def check_tactic(cls, ruleset: Any, spec: Any, phases: dict[str, list[int]], path: str) -> None:
        """WW-5: a reserve of 0 up to the complex actions of a round, and a block or dodge
        (`target.reaction`) to spend it on. WW-7: no feint with the off hand's bonus action."""
        super().check_tactic(ruleset, spec, phases, path)
        most = cls.allotment(spec.attacker if isinstance(spec.attacker, dict) else {})
        check_range(spec.tactic.reserve, 0, most, f"{path}.tactic.reserve", "reserve")
        if spec.tactic.reserve and not (isinstance(spec.target, dict) and spec.target.get("reaction")):
            raise RulesError(f"{path}.tactic.reserve", "reserved actions buy blocks or dodges: give the"
                                                       " combatant's target.reaction (kind and bonus, WW-5)")
        for i in cls.feinting(spec):
            if spec.attacks[i].get("hand") == "off":
                raise RulesError(f"{path}.attacks[{i}].feint", "the off hand's bonus action may only attack or"
                                 " block (WW-6), so it cannot feint in a fight (WW-7): feint with the main hand")

    # -- the compiled twin ----------------------------------------------------------------------

    @classmethod
    def compiled_units(cls, sc: Any, g: Any) -> list[tuple[str, Optional[tuple[int, ...]]]]:
        """Each strike it does not forgo for its reserve is an attack (WW-5)."""
        forgone = set(cls.forgone(g.spec))
        return [("attack", (i,)) for i in g.phases.get("attack", []) if i not in forgone]

    @classmethod
    def compiled_variants(cls, sc: Any, g: Any, key: str, use: Optional[tuple[int, ...]], t: Any,
                          tables: dict[str, Any]) -> list[tuple[Optional[tuple[int, ...]], Situation]]:
        """With and without the target's reaction: a target with a block or dodge and no
        reserved action left has none (WW-5); a melee strike at a target holding a ranged
        weapon puts its block or dodge at -6 (WW-5, `engaged`)."""
        no_reaction: Situation = (("target", cls.no_reaction),) if t.spec.target.get("reaction") else ()
        engaged = cls.engaged(g, key, use, t)
        return [(use, engaged), (use, (*no_reaction, *engaged))]

    @classmethod
    def compiled_initiative(cls, sc: Any, specs: list[Any]) -> tuple[list[int], list[int], int]:
        """WW-1: d20 + Dexterity modifier + bonus; equal totals by the Dexterity modifier."""
        subs = [int(spec.attacker.get("dex_mod", 0)) for spec in specs]
        return [sub + spec.initiative for sub, spec in zip(subs, specs)], subs, 20

    @classmethod
    def compiled_tables(cls, sc: Any, tables: dict[str, Any]) -> Optional[str]:
        """Strike rows, initiative once (WW-1), reserves and reactions per member (WW-5); per
        group the units of its turn (`compiled_units`, a strike each) that feint first
        (WW-7: bit j for unit j)."""
        specs = [sc.groups[g].spec for g in sc.member_group]
        feint_units, engages = array("q"), array("q")
        for g in sc.groups:
            feinting = set(cls.feinting(g.spec))
            units = cls.compiled_units(sc, g)
            if len(units) > 62:
                return f"{g.path}: more than 62 strikes a turn"
            feint_units.append(sum(1 << j for j, (_key, use) in enumerate(units) if use and use[0] in feinting))
            engages.append(sum(1 << j for j, (_key, use) in enumerate(units)
                               if use and g.spec.attacks[use[0]].get("method") == "melee"))
        watch = cls.opportunities(sc)  # attacks of opportunity: a leaving member provokes them
        tables.update(rows=True, init_once=True,
                      reserve=array("q", [spec.tactic.reserve for spec in specs]),
                      reaction=array("i", [1 if spec.target.get("reaction") else 0 for spec in specs]),
                      feint_units=feint_units, engages=engages,
                      leave_draws=array("q", [1 if watch and g.spec.tactic.flee_at is not None else 0
                                              for g in sc.groups]))
        return None

    @classmethod
    def compiled_reaction(cls, sc: Any, g: Any) -> Optional[tuple[str, tuple[int, ...]]]:
        """Its attack of opportunity ("a single melee attack"): its first melee strike."""
        i = cls.melee(g.spec)
        return None if i is None else ("attack", (i,))

    @classmethod
    def compiled_reaction_variants(cls, sc: Any, g: Any, key: str, use: tuple[int, ...], t: Any,
                                   tables: dict[str, Any]) -> list[tuple[Optional[tuple[int, ...]], Situation]]:
        """An attack of opportunity at a leaving member of `t`, in the attack's usual
        situation (`_opportunity`): with and without the target's reaction (WW-5), the
        −6 of `engaged`, and no feint before it."""
        if not tables["leave_draws"][t.index]:
            return [(None, ())]
        no_feint: Situation = tuple((("strike", i), cls.no_feint) for i in use
                                    if g.spec.attacks[i].get("feint") is not None)
        return [(use, situation + no_feint) for _use, situation in cls.compiled_variants(sc, g, key, use, t, tables)]

    # -- a member ------------------------------------------------------------------------------

    def start(self, m: Member) -> None:
        assert isinstance(m, WwMember)
        m.reserve = 0
        m.feinted, m.engaged, m.engaged_before = set(), set(), set()
        m.opportunity, m.fleeing = 0, False

    def saved(self, m: Member) -> dict[str, Any]:
        """WW-7: the feints made whose attack is still to come; attacks of opportunity: whom
        it was engaged with in melee this round (kept only where they can matter)."""
        assert isinstance(m, WwMember)
        out: dict[str, Any] = {}
        if self.feints:
            out["feinted"] = sorted(m.feinted)
        if self.watch:
            out["engaged"] = [self.fight.members[i].id for i in sorted(m.engaged)]
        return out

    def load(self, m: Member, saved: dict[str, Any]) -> None:
        assert isinstance(m, WwMember)
        m.feinted = set(saved.get("feinted", ()))
        m.engaged = {self.fight.by_id[mid].index for mid in saved.get("engaged", ())}

    # -- a round ---------------------------------------------------------------------------------

    def round_started(self) -> None:
        groups = self.sc.groups
        for m in self.fight.members:
            assert isinstance(m, WwMember)
            m.reserve = groups[m.group].spec.tactic.reserve
            if self.watch:
                m.engaged_before, m.engaged = m.engaged, set()

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
        assert isinstance(m, WwMember)
        g = self.sc.groups[m.group]
        tactic = g.spec.tactic
        phases: dict[str, list[int]] = g.phases
        if not tactic.reserve and not self.feints:
            return phases
        forgone = set(self.forgone(g.spec))
        if tactic.reserve and self.fight.logging:
            self.fight.log({"type": "reserve", "who": m.id, "reserved": tactic.reserve, "actions": m.reserve,
                            "forgoes": sorted(forgone), "rule": "WW-5",
                            "note": "held for blocks or dodges until the end of the round"})
        if self.feints and not casting:  # WW-7: a strike whose feint is to be made makes it, not its attack
            feints = [i for i in self.feinting(g.spec) if i not in forgone and i not in m.feinted]
            for i in feints:
                m.feinted.add(i)
                self.fight.log({"type": "feint", "who": m.id, "strike": i, "rule": "WW-7",
                                "note": "a complex action: the attack it sets up comes with the next one"})
            forgone.update(feints)
        if not forgone:
            return phases
        kept = {phase: [i for i in strikes if i not in forgone] for phase, strikes in phases.items()}
        return {phase: strikes for phase, strikes in kept.items() if strikes}

    def parts(self, m: Member, use: Optional[tuple[int, ...]]) -> list[Optional[tuple[int, ...]]]:
        """WW-5: each strike is its own attack, so the defender spends a reserved action on each."""
        return [(i,) for i in use] if use is not None else [use]

    def situation(self, m: Member, target: Member, key: str, use: Optional[tuple[int, ...]]) -> Situation:
        assert isinstance(target, WwMember)
        groups = self.sc.groups
        t = groups[target.group]
        engaged = self.engaged(groups[m.group], key, use, t)
        if target.reserve <= 0 and t.spec.target.get("reaction"):
            return (("target", self.no_reaction), *engaged)
        return engaged

    def attacked(self, m: Member, target: Member, key: str, use: Optional[tuple[int, ...]],
                 situation: Situation, result: Any) -> None:
        """WW-5: the blocks and dodges the attack rolled spend the target's reserve; WW-7: a
        feint's attack is made; a melee attack engages the two (attacks of opportunity)."""
        assert isinstance(m, WwMember) and isinstance(target, WwMember)
        self._spend(target, result)
        if key == "spell" or use is None:
            return
        if self.feints:
            m.feinted.difference_update(use)
        if self.watch and any(self.sc.groups[m.group].spec.attacks[i].get("method") == "melee" for i in use):
            m.engaged.add(target.index)
            target.engaged.add(m.index)

    def _spend(self, target: WwMember, result: Any) -> None:
        if target.reserve > 0:
            spent = sum(1 for s in range(len(result.plan.metas)) if rows.Out(result.out, s * L.XOUT_WIDTH).react_roll)
            if spent:
                target.reserve -= spent
                self.fight.log({"type": "reserve spent", "who": target.id, "spent": spent, "left": target.reserve,
                                "rule": "WW-5"})

    def harmed(self, target: Member) -> None:
        """`target` took damage and stands: at or below its `flee_at` it leaves, provoking an
        attack of opportunity from each standing enemy that threatens it (the module's
        docstring), in member order, before it goes."""
        assert isinstance(target, WwMember)
        flee_at = self.sc.groups[target.group].spec.tactic.flee_at
        if target.fleeing or flee_at is None or target.hp > flee_at:
            return
        if self.watch:
            target.fleeing = True
            try:
                for i in sorted(target.engaged | target.engaged_before):
                    if target.status != STANDING:
                        break
                    enemy = self.fight.members[i]
                    assert isinstance(enemy, WwMember)
                    if enemy.status == STANDING and enemy.side != target.side and enemy.opportunity != self.fight.round:
                        self._opportunity(enemy, target)
            finally:
                target.fleeing = False
            if target.status != STANDING:
                return
        super().harmed(target)  # it leaves: the driver's "fled"

    def _opportunity(self, m: WwMember, target: WwMember) -> None:
        """`m`'s attack of opportunity at `target`: its first melee strike, without a feint,
        in the attack's usual situation (the target's reserve, WW-5's −6); one random event."""
        g = self.sc.groups[m.group]
        i = self.melee(g.spec)
        if i is None:
            return
        m.opportunity = self.fight.round
        use = (i,)
        situation = self.situation(m, target, "attack", use)
        if g.spec.attacks[i].get("feint") is not None:
            situation = (*situation, (("strike", i), self.no_feint))
        plan = self.sc.plan(m.group, "attack", target.group, use, situation)
        dice, seed = self.fight.stream()
        result = self.ruleset.roll_attack(plan, dice, seed)
        hp, injury, _cost = self.outcome(result)
        damage = hp + injury
        m.dealt += damage
        target.taken += damage
        if self.fight.logging:
            shown = result.to_dict()  # the plan's target "t" by its id, as attack events show it
            shown["targets"] = {target.id: shown["targets"]["t"]}
            shown["strikes"] = [{**strike, "target": target.id} for strike in shown["strikes"]]
            event: dict[str, Any] = {"type": "attack of opportunity", "who": m.id, "target": target.id,
                                     "strikes": [i], "seed": seed, "damage": damage,
                                     "rule": "Worldwalker Attacks of Opportunity"}
            if situation:
                changed: dict[str, Any] = {}
                for where, changes in situation:  # the attack events' view of a situation
                    into = changed.setdefault("target", {}) if where == "target" else \
                        changed.setdefault("strikes", {}).setdefault(str(where[1]), {})
                    into.update(changes)
                event["situation"] = changed
            event["result"] = shown
            self.fight.log(event)
        self._spend(target, result)
        if damage > 0:
            target.hurt_round = self.fight.round
            target.hp = max(0, target.hp - damage)
            if target.hp == 0:
                target.status = DOWN  # the driver counts it out once harmed returns
                self.fight.log({"type": DOWN, "who": target.id})  # the driver's own event

