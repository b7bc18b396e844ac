"""Old-school's round in a whole fight (`fracas.rulesets.fight.Procedure`).

- OS-1: each side rolls d6 every round (the ruleset's `fight_initiative`).
- OS-2: a side acts in phases, missile, magic, melee; OS one action: a combatant makes
  the strikes of one phase a round (tactic `action`; by default melee when it has a
  melee strike).
- OS-3: a combatant that declared flight is a fleeing target (+2, no shield in melee)
  until its side moves.
- OS-4: leaving the fight is declared before initiative ("the intention to flee from
  melee this Round must be declared"): a group whose morale broke flees (or surrenders,
  tactic `flee`), as does a combatant at its `flee_at`; it forfeits its action and
  leaves when its side moves. Morale triggers seen during the round are checked at its
  end, one 2d6 per morale unit and trigger.
- OS-5: a declared caster harmed this round, or that failed a saving throw, before its
  side acts loses its spell ("is successfully attacked or fails a Saving Throw before
  their side's initiative"). A combatant's `save_or` is an effect of its attacks (all of
  them, only its spell, or only its strikes: `by`) that forces a saving throw on their
  target, hit or miss, rolled with the attack as a save request is (one random event:
  a d20 + modifiers against the target's `save`, or its `saves` entry for the category;
  natural 20 saves, natural 1 fails), logged as a "save" event. fracas keeps no other
  effect of a failed save (what it does besides is the GM's).
"""

from __future__ import annotations

from array import array
from typing import Any, ClassVar, Literal, Optional, Union

from ...dice import Dice
from ...errors import RulesError, SchemaError
from ...requests import check_range
from ..base import Ruleset
from ..fight import FLED, STANDING, Field, Member, Procedure, SideView, Situation, defined_by
from . import morale, saving

#: The fields of a combatant's `save_or` (OS-5), and what `by` may say (its code in `saving`).
SAVE_OR_FIELDS = ("category", "modifier", "effect", "by")
SAVE_OR_BY = {"any": saving.BY_ANY, "attacks": saving.BY_ATTACKS, "spell": saving.BY_SPELL}


class OsMember(Member):
    __slots__ = ("failed_save",)

    failed_save: int  # the round in which it last failed a saving throw (OS-5), 0 none


class OsRound(Procedure):
    member = OsMember
    phases = ("missile", "magic", "melee")
    spell_phase = "magic"
    tactics = {"action": Field(Optional[Literal["melee", "missile"]], None, "OS one action", "the one action of a"
                               " round: its melee strikes in the melee phase or its missile strikes in the missile"
                               " phase (default: melee when it has a melee strike, else missile)")}
    fields = {
        "save": Field(Union[int, dict[str, int], None], None, "OS-5", "its saving throw target number, whatever the"
                      " category, or its table of them by category (e.g. {\"spells\": 15, \"breath\": 16}), as a"
                      " save request's"),
        "save_or": Field(Optional[dict[str, Any]], None, "OS-5", "an effect of its attacks that forces a saving throw"
                         " on their target, hit or miss: category, modifier, effect, by (any, attacks or spell); a"
                         " declared caster that fails it before its side acts loses its spell"),
    }
    compiled = "old-school"
    #: OS-4's Morale Check triggers by their bit in `morale.triggers`, as the log names them.
    TRIGGERS: ClassVar[tuple[str, ...]] = tuple(name for _bit, name in sorted({
        morale.FIRST_DEATH: "first death", morale.HALF_DEFEATED: "half the side defeated",
        morale.LONE_HARMED: "lone creature harmed", morale.LONE_QUARTER: "lone creature at 1/4 hp"}.items()))
    events = {"spell lost": "a caster harmed, or failing a saving throw, before its side acted loses its spell (OS-5)",
              "save": "a saving throw an effect of an attack forces on its target (OS-5)",
              "morale": "a morale check at the end of the round (OS-4)",
              "surrender": "a group whose morale broke surrenders (OS-4)",
              "flight": "a group whose morale broke declares flight (OS-4)"}
    #: The target fields of a combatant that declared flight (OS-3: +2 and no shield in melee).
    fleeing: ClassVar[tuple[tuple[str, Any], ...]] = (("fleeing", True),)

    @classmethod
    def compiled_for(cls, ruleset: Any) -> bool:
        """The compiled round rolls OS-1 side initiative and OS-4 morale, and deals each attack's total damage."""
        return (defined_by(ruleset, "fight_initiative", "fracas.rulesets.oldschool:OldSchool")
                and defined_by(ruleset, "roll_morale", "fracas.rulesets.oldschool:OldSchool")
                and type(ruleset).fight_outcome is Ruleset.fight_outcome)

    @classmethod
    def phase_of(cls, strike: dict[str, Any]) -> str:
        """OS-2: missile strikes in the missile phase, the rest in the melee phase."""
        return "missile" if strike.get("method") == "missile" else "melee"

    @classmethod
    def check_tactic(cls, ruleset: Any, spec: Any, phases: dict[str, list[int]], path: str) -> None:
        """OS one action: the tactic's `action` names a phase the combatant has strikes for;
        OS-5 its `save` and `save_or` (`check_fields`)."""
        super().check_tactic(ruleset, spec, phases, path)
        cls.check_fields(spec, path)
        action = spec.tactic.action
        if action is not None and action not in phases:
            raise RulesError(f"{path}.tactic.action", f"action {action!r}: this combatant has no {action} strike"
                                                      " (OS one action: a missile or a melee attack a round)")

    @classmethod
    def check_fields(cls, spec: Any, path: str) -> None:
        """OS-5: a combatant's `save` (a target number, or a table by category) and `save_or`."""
        from .save import TARGET_RANGE, MODIFIER_RANGE

        save = spec.save
        if isinstance(save, dict):
            if not save:
                raise SchemaError(f"{path}.save", "a table of saving throws needs at least one category")
            for name, value in save.items():
                if not name:
                    raise SchemaError(f"{path}.save", "a saving throw category is empty")
                check_range(value, *TARGET_RANGE, f"{path}.save.{name}", "save")
        elif save is not None:
            check_range(save, *TARGET_RANGE, f"{path}.save", "save")
        effect = spec.save_or
        if effect is None:
            return
        where = f"{path}.save_or"
        unknown = sorted(set(effect) - set(SAVE_OR_FIELDS))
        if unknown:
            raise SchemaError(f"{where}.{unknown[0]}", f"unknown field (save_or takes {', '.join(SAVE_OR_FIELDS)})")
        category = effect.get("category")
        if category is not None and (not isinstance(category, str) or not category):
            raise SchemaError(f"{where}.category", "a saving throw category: a name, or leave it out")
        modifier = effect.get("modifier", 0)
        if not isinstance(modifier, int) or isinstance(modifier, bool):
            raise SchemaError(f"{where}.modifier", "expected a whole number")
        check_range(modifier, *MODIFIER_RANGE, f"{where}.modifier", "modifier")
        if not isinstance(effect.get("effect", ""), str):
            raise SchemaError(f"{where}.effect", "expected a string: what the effect is, for the record")
        by = effect.get("by", "any")
        if not isinstance(by, str) or by not in SAVE_OR_BY:
            raise SchemaError(f"{where}.by", f"by {by!r}: one of {', '.join(SAVE_OR_BY)}")
        if by == "spell" and spec.spell is None:
            raise RulesError(f"{where}.by", "by spell: this combatant has no spell")
        if by == "attacks" and not spec.attacks:
            raise RulesError(f"{where}.by", "by attacks: this combatant has no attacks")

    @classmethod
    def check_scenario(cls, sc: Any) -> None:
        """OS-5: every enemy a `save_or` may reach has a saving throw for its category."""
        for g in sc.groups:
            effect = g.spec.save_or
            if effect is None:
                continue
            category = effect.get("category")
            for t in sc.groups:
                if t.side == g.side:
                    continue
                save = t.spec.save
                if save is None:
                    raise RulesError(f"{t.path}.save", f"{g.path}.save_or forces a saving throw on this combatant:"
                                                       " give its saving throw target number (OS-5)")
                if isinstance(save, dict) and (category is None or category not in save):
                    raise RulesError(f"{t.path}.save", f"{g.path}.save_or forces a saving throw"
                                                       + (f" of category {category!r}" if category else
                                                          " of no category")
                                                       + f" on this combatant; its table has {', '.join(save)} (OS-5)")

    @staticmethod
    def action_of(spec: Any, phases: dict[str, list[int]]) -> str:
        """OS one action: the phase whose strikes the combatant makes this round."""
        action: Optional[str] = spec.tactic.action
        return action or ("melee" if "melee" in phases else "missile")

    # -- the compiled twin -------------------------------------------------------------------

    #: Sides at most the compiled round plays (OS-1's side initiative limit).
    COMPILED_SIDES: ClassVar[int] = 64
    _PHASE: ClassVar[dict[str, int]] = {"missile": 0, "melee": 2}
    _FLEE: ClassVar[dict[str, int]] = {"never": morale.FLEE_NEVER, "broken": morale.FLEE_BROKEN,
                                       "surrender": morale.FLEE_SURRENDER}

    @classmethod
    def _action(cls, g: Any) -> Optional[str]:
        """OS one action: the phase whose strikes the group makes (turn's choice), or None."""
        phases = g.phases
        if not phases:
            return None
        action: str = next(iter(phases)) if len(phases) == 1 else cls.action_of(g.spec, phases)
        return action

    @classmethod
    def compiled_units(cls, sc: Any, g: Any) -> list[tuple[str, Optional[tuple[int, ...]]]]:
        action = cls._action(g)
        return [(action, tuple(g.phases[action]))] if action is not None else []

    @classmethod
    def compiled_variants(cls, sc: Any, g: Any, key: str, use: Optional[tuple[int, ...]], t: Any,
                          tables: dict[str, Any]) -> list[tuple[Optional[tuple[int, ...]], Situation]]:
        """At a target that declared flight or not (OS-3)."""
        return [(use, ()), (use, (("target", cls.fleeing),))]

    @classmethod
    def compiled_tables(cls, sc: Any, tables: dict[str, Any]) -> Optional[str]:
        """OS-1 setup, OS-2 phases and one action, OS-4 flight and morale units, OS-5 the
        saving throws of `save_or` (`_save_tables`)."""
        if sc.setup is None:
            return "the ruleset's round has procedures the compiled fight loop does not take"
        if any(set(g.phases) - set(cls._PHASE) for g in sc.groups):
            return "a strike in a phase other than missile or melee"
        if len(sc.sides) > cls.COMPILED_SIDES:
            return f"more than {cls.COMPILED_SIDES} sides"
        setup = sc.setup
        actions = [cls._action(g) for g in sc.groups]
        tables.update(rows=True, phased=True, has_morale=bool(sc.has_morale), morale_units=True,
                      os_ties=1 if setup["ties"] == "simultaneous" else 0,
                      os_side=array("q", [(1 if s in setup["surprised"] else 0) | (2 if s in setup["wait"] else 0)
                                          for s in sc.sides]),
                      os_phase=array("q", [cls._PHASE[a] if a is not None else -1 for a in actions]),
                      os_flee=array("q", [cls._FLEE[g.spec.tactic.flee] for g in sc.groups]))
        cls._save_tables(sc, tables)
        return None

    @classmethod
    def _save_tables(cls, sc: Any, tables: dict[str, Any]) -> None:
        """OS-5 for the compiled loop: per group its `save_or` as (category, by, modifier),
        the category an index into `os_save_num` (-1: no save_or), and per category and
        group the group's saving throw target number (0 on the forcing groups' own side,
        which their attacks never reach: `check_scenario`)."""
        categories: list[Optional[str]] = []
        save_or: list[int] = []
        for g in sc.groups:
            effect = g.spec.save_or
            if effect is None:
                save_or += [-1, 0, 0]
                continue
            category = effect.get("category")
            if category not in categories:
                categories.append(category)
            save_or += [categories.index(category), SAVE_OR_BY[effect.get("by", "any")], effect.get("modifier", 0)]
        numbers: list[int] = []
        for category in categories:
            for t in sc.groups:
                save = t.spec.save
                numbers.append(save if isinstance(save, int) else
                               save.get(category, 0) if isinstance(save, dict) and category is not None else 0)
        tables.update(os_save_or=array("q", save_or), os_save_num=array("q", numbers))

    # -- a round ---------------------------------------------------------------------------

    def start(self, m: Member) -> None:
        """OS-4: a group of Morale 12 fights to the death from the start (`morale.fights_to_death`)."""
        assert isinstance(m, OsMember)
        m.failed_save = 0
        level = self.sc.groups[m.group].spec.morale
        if level is not None and morale.fights_to_death(level, 0):
            self.fight.groups[m.group].to_death = True

    def declare(self) -> None:
        """OS-4: "they try to surrender or flee in the next Round", and "the intention to
        flee from melee this Round must be declared" before initiative. A broken group with
        `flee: "surrender"` gives up here and is out of the fight."""
        fight = self.fight
        surrender: dict[int, list[Member]] = {}
        leaving: dict[tuple[int, str], list[Member]] = {}
        for m in fight.members:
            m.leaving = ""
            if m.status != STANDING:
                continue
            tactic = self.sc.groups[m.group].spec.tactic
            said = morale.declaration(fight.groups[m.group].broken, self._FLEE[tactic.flee], m.hp,
                                      -1 if tactic.flee_at is None else tactic.flee_at)
            if said == morale.SURRENDERS:
                surrender.setdefault(m.group, []).append(m)
                continue
            if said == morale.FLEES_BROKEN:
                m.leaving = "its morale broke"
            elif said == morale.FLEES_HURT:
                m.leaving = f"hp {m.hp} <= flee_at {tactic.flee_at}"
            if m.leaving:
                leaving.setdefault((m.group, m.leaving), []).append(m)
        for g, members in surrender.items():
            fight.log({"type": "surrender", "group": self.sc.groups[g].spec.name, "who": [m.id for m in members],
                       "why": "its morale broke", "rule": "OS-4"})
            for m in members:
                m.status = FLED
                fight.fallen(m)
                fight.note(m.unit)
            fight.decide()
        for (g, why), members in leaving.items():
            fight.log({"type": "flight", "group": self.sc.groups[g].spec.name, "who": [m.id for m in members],
                       "why": why, "rule": "OS-4",
                       "note": "declared before initiative: no attacks this round; opponents in melee that act"
                               " first attack at +2 ignoring the shield (OS-3)"})

    def _leave(self, m: Member) -> None:
        why, m.leaving = f"{m.leaving}; leaves as its side moves, as declared", ""
        self.fight.leave(m, why=why, rule="OS-4")

    def slot_started(self, slot: list[Member], casting: set[int]) -> set[int]:
        """OS-2 movement: those who declared flight leave; OS-5: a caster harmed this round
        before its side acted loses its spell (and its action)."""
        fight = self.fight
        for m in slot:
            if m.leaving and m.status == STANDING:
                self._leave(m)
                if fight.over:
                    return set()
        busy = set()
        for m in slot:
            if m.index not in casting or m.status != STANDING:
                continue
            assert isinstance(m, OsMember)
            harmed, failed = m.hurt_round == fight.round, m.failed_save == fight.round
            if harmed or failed:
                casting.discard(m.index)
                m.spell_uses -= 1
                busy.add(m.index)
                spell = self.sc.groups[m.group].spec.spell
                why = " and ".join([*(["harmed"] if harmed else []), *(["failed a saving throw"] if failed else [])])
                fight.log({"type": "spell lost", "who": m.id, "spell": spell.name if spell else "",
                           "rule": "OS-5", "why": f"{why} this round before its side acted"})
        return busy

    def turn(self, m: Member, casting: bool) -> dict[str, list[int]]:
        """OS one action: the strikes of one phase."""
        g = self.sc.groups[m.group]
        phases: dict[str, list[int]] = g.phases
        if len(phases) > 1:
            action = self.action_of(g.spec, phases)
            return {action: phases[action]} if action in phases else dict([next(iter(phases.items()))])
        return phases

    def situation(self, m: Member, target: Member, key: str, use: Optional[tuple[int, ...]]) -> Situation:
        """OS-3: a target that declared flight is a fleeing target."""
        return (("target", self.fleeing),) if target.leaving else ()

    def attacked(self, m: Member, target: Member, key: str, use: Optional[tuple[int, ...]],
                 situation: Situation, result: Any) -> None:
        """OS-5: an attack whose combatant has a `save_or` (by this kind of attack) forces a
        saving throw on its standing target, hit or miss: one random event, rolled as a save
        request; a failure is remembered for the round (`slot_started`)."""
        effect = self.sc.groups[m.group].spec.save_or
        if effect is None or target.status != STANDING:
            return
        if not saving.forces(SAVE_OR_BY[effect.get("by", "any")], key == "spell"):
            return
        fight = self.fight
        save = self.sc.groups[target.group].spec.save
        saver: dict[str, Any] = {"id": target.id, **({"saves": save} if isinstance(save, dict) else {"save": save})}
        request: dict[str, Any] = {"ruleset": self.sc.ruleset.name, "targets": [saver],
                                   "modifier": effect.get("modifier", 0), "effect": effect.get("effect", "")}
        if effect.get("category") is not None:
            request["category"] = effect["category"]
        kind = self.sc.ruleset.kind("save")
        dice, seed = fight.stream()
        assert kind.roll is not None  # a rolled kind
        out = kind.roll(kind.compile(request), dice, seed).to_dict()  # small: a copy is cheap
        rolled = out["targets"][0]
        assert isinstance(target, OsMember)
        if not rolled["saved"]:
            target.failed_save = fight.round
        fight.log({"type": "save", "who": target.id, "by": m.id, "effect": out["effect"],
                   "category": out["category"], "seed": seed, "roll": rolled["roll"],
                   "modifier": rolled["total_modifier"], "total": rolled["total"], "save": rolled["save"],
                   "saved": rolled["saved"], "p_save": rolled["p_save"], "rule": "OS-5"})

    def harmed(self, target: Member) -> None:
        """OS-4: leaving at `flee_at` is declared at the start of the next round, not done now."""

    def round_ended(self) -> None:
        """Those who declared flight but never had a slot (surprised) are gone now; then
        OS-4 step 5, the morale checks."""
        fight = self.fight
        for m in fight.standing():
            if m.leaving and not fight.over:
                self._leave(m)
        if not fight.over:
            self.morale_step()

    def morale_triggers(self, side: SideView) -> list[str]:
        """OS-4 "When to check Morale: The first time a combatant on the same side is killed,
        and when half of the side has been killed or defeated. For a creature encountered
        alone, a Morale Check should be made when it is first harmed and when it is reduced
        to 1/4 or less Hit Points." Killed is down (a combatant that fled is defeated, not
        killed); a creature encountered alone is a side (or morale group) of one (`morale.triggers`,
        which the compiled loop runs too)."""
        lone = side.standing[0] if side.start == 1 and side.standing else None
        fired = morale.triggers(side.killed, side.defeated, side.start, len(side.standing),
                                lone is not None and bool(lone.harmed), lone.hp if lone else 0,
                                lone.hp_max if lone else 0)
        return [name for code, name in enumerate(self.TRIGGERS) if fired >> code & 1 and name not in side.fired]

    def morale_step(self) -> None:
        """OS-4 step 5: "The Referee makes a Morale Check for monsters and NPCs": each
        trigger noted this round, unit by unit in scenario order, is one check of the unit
        ("a single Morale Check is made for all members of a side"): one 2d6, one log
        event, read against each of its groups' Morale + modifier (a group of Morale 12,
        or that passed two checks, is not in it)."""
        fight, sc = self.fight, self.sc
        for u, noted in enumerate(fight.noted):
            name, side, groups = sc.morale_units[u]
            for trigger, _who in noted:
                checking = [g for g in groups if sc.groups[g].spec.morale is not None
                            and not fight.groups[g].broken and not fight.groups[g].to_death
                            and any(m.group == g and m.status == STANDING for m in fight.members)]
                if not checking:
                    continue
                dice, seed = fight.stream()
                faces: Optional[array[int]] = None
                verdicts = []
                total = 0
                for g in checking:
                    spec, st = sc.groups[g].spec, fight.groups[g]
                    assert spec.morale is not None  # `checking` holds groups with a Morale
                    check_kind = sc.ruleset.kind("morale")
                    plan = check_kind.compile({"ruleset": sc.ruleset.name, "morale": spec.morale,
                                               "modifier": spec.morale_modifier, "successes": st.successes})
                    roll_dice = dice if faces is None else Dice.from_seed(seed, faces)
                    assert check_kind.roll is not None  # a rolled kind
                    check = check_kind.roll(plan, roll_dice, seed).to_dict()  # small: a copy is cheap
                    if faces is None:
                        faces = array("i", check["dice"])
                    st.successes, st.to_death, st.broken = check["successes"], check["fights_to_death"], check["breaks"]
                    verdict = {"group": spec.name, "against": spec.morale + spec.morale_modifier,
                               "breaks": check["breaks"], "fights_to_death": st.to_death}
                    if check["breaks"]:
                        verdict["then"] = {"broken": "flees next round (declared before initiative)",
                                           "surrender": "surrenders next round",
                                           "never": "fights on (flee: never)"}[spec.tactic.flee]
                    verdicts.append(verdict)
                    total = check["total"]
                event = {"type": "morale", "group": verdicts[0]["group"] if len(verdicts) == 1 else name,
                         "side": sc.sides[side], "unit": name, "trigger": trigger, "when": "end of round",
                         "seed": seed, "dice": list(faces or []), "total": total,
                         "against": min(v["against"] for v in verdicts), "breaks": any(v["breaks"] for v in verdicts),
                         "fights_to_death": all(v["fights_to_death"] for v in verdicts), "rule": "OS-4",
                         "groups": verdicts}
                if len(verdicts) == 1 and "then" in verdicts[0]:
                    event["then"] = verdicts[0]["then"]
                fight.log(event)
