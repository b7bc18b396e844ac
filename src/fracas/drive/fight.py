"""A fight, round by round: the loop that encounters and simulations share.

It knows no ruleset: initiative, phases, damage pools and morale triggers come
from the scenario's ruleset through the `Ruleset` fight calls
(`fracas.rulesets.base`). What it owns is the order of a round:

1. initiative (every round, or once where the ruleset says so: WW-1), which may
   leave a surprised side out of the round;
2. casters with a spell use left declare their spell;
3. slot by slot in initiative order (a slot is one combatant, or a whole side where
   initiative is by side), phase by phase (OS-2: missile, magic, melee), each
   combatant of the slot that still stands picks a target by its tactic and makes
   its strikes of that phase (or casts its spell in the spell phase); a caster
   harmed this round before its slot loses its spell where the rules say so (OS-5);
   in a slot holding more than one side (simultaneous initiative) the damage of a
   phase lands when the phase ends, so everyone in it acts;
4. after each attack the damage is applied, defeated combatants are removed, the
   target's side checks morale at the triggers its ruleset names (OS-4), and a
   broken group flees; the fight ends when at most one side stands.

**Dice.** A round has one seed. Its k-th random event (k = 0, 1, 2, …: the
initiative roll, each "random" target choice, each attack, each morale check, in
the order they happen) draws from its own stream, the seed of bulk chunk k of the
round seed (`fracas.rng.chunk_seed`). Every attack in a round log carries its own
seed, so it replays alone with `fracas replay`; the same state and round seed give
the same round. A simulation's fight i plays round r with seed
chunk_seed(chunk_seed(seed, i), r).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple, Optional

from ..dice import Dice
from ..rng import chunk_seed
from .scenario import Compiled

STANDING, DOWN, FLED = "standing", "down", "fled"


class Actor(NamedTuple):
    """What a ruleset's initiative reads of a standing combatant."""

    id: str
    side: str
    attacker: dict[str, Any]
    initiative: int
    path: str


class Member:
    """One combatant in the fight (a group of `count` has `count` members)."""

    __slots__ = ("index", "id", "group", "side", "hp", "hp_max", "injury", "injury_max", "status",
                 "spell_uses", "dealt", "taken", "harmed", "hurt_round", "x", "y")

    def __init__(self, index: int, id_: str, group: int, side: int, hp: int, injury: Optional[int],
                 spell_uses: int, position: tuple[float, float]) -> None:
        self.index, self.id, self.group, self.side = index, id_, group, side
        self.hp = self.hp_max = hp
        self.injury = self.injury_max = injury
        self.status = STANDING
        self.spell_uses = spell_uses
        self.dealt = self.taken = 0
        self.harmed = False
        self.hurt_round = 0
        self.x, self.y = position


class GroupState:
    """Morale of one scenario group (OS-4): checks passed, broken, fights to the death."""

    __slots__ = ("successes", "broken", "to_death")

    def __init__(self, morale: Optional[int]) -> None:
        self.successes = 0
        self.broken = False
        self.to_death = morale == 12


class SideView(NamedTuple):
    """What a ruleset's morale triggers read of a side."""

    start: int
    defeated: int
    standing: list[Member]
    fired: set[str]


class Fight:
    """The state of one fight of a compiled scenario, and the round that advances it."""

    def __init__(self, scenario: Compiled, state: Optional[dict[str, Any]] = None) -> None:
        sc = self.sc = scenario
        uses = [g.spec.spell.uses if g.spec.spell is not None else 0 for g in sc.groups]
        self.members = [Member(i, mid, g, sc.groups[g].side, sc.groups[g].spec.hp, sc.groups[g].spec.injury,
                               uses[g], sc.positions[i])
                        for i, (mid, g) in enumerate(zip(sc.member_ids, sc.member_group))]
        self.by_id = {m.id: m for m in self.members}
        self.groups = [GroupState(g.spec.morale) for g in sc.groups]
        self.fired: list[set[str]] = [set() for _ in sc.sides]
        self.start = [sum(1 for m in self.members if m.side == s) for s in range(len(sc.sides))]
        self.round = 0
        self.over = False
        self.winner: Optional[str] = None
        self.order: Optional[list[list[str]]] = None
        if state is not None:
            self._load(state)
        # per round
        self._seed = 0
        self._k = 0
        self._events: Optional[list[dict[str, Any]]] = None

    # -- state ---------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """Everything a later round depends on, as JSON-ready data (what encounters keep)."""
        return {
            "round": self.round, "over": self.over, "winner": self.winner, "order": self.order,
            "members": [{"id": m.id, "side": self.sc.sides[m.side], "group": self.sc.groups[m.group].spec.name,
                         "status": m.status, "hp": m.hp, "hp_max": m.hp_max,
                         **({"injury": m.injury, "injury_max": m.injury_max} if m.injury_max is not None else {}),
                         **({"spell_uses": m.spell_uses} if self.sc.groups[m.group].spec.spell else {}),
                         "dealt": m.dealt, "taken": m.taken}
                        for m in self.members],
            "morale": {g.spec.name: {"successes": st.successes, "broken": st.broken, "to_death": st.to_death}
                       for g, st in zip(self.sc.groups, self.groups) if g.spec.morale is not None},
            "triggers": {side: sorted(fired) for side, fired in zip(self.sc.sides, self.fired) if fired},
        }

    def _load(self, state: dict[str, Any]) -> None:
        self.round, self.over, self.winner, self.order = state["round"], state["over"], state["winner"], state["order"]
        for m, saved in zip(self.members, state["members"]):
            if saved["id"] != m.id:
                raise ValueError(f"saved member {saved['id']!r} is not {m.id!r}: the state is of another scenario")
            m.status, m.hp, m.dealt, m.taken = saved["status"], saved["hp"], saved["dealt"], saved["taken"]
            m.injury = saved.get("injury", m.injury)
            m.spell_uses = saved.get("spell_uses", m.spell_uses)
        for g, st in zip(self.sc.groups, self.groups):
            saved = state["morale"].get(g.spec.name)
            if saved:
                st.successes, st.broken, st.to_death = saved["successes"], saved["broken"], saved["to_death"]
        for s, side in enumerate(self.sc.sides):
            self.fired[s] = set(state["triggers"].get(side, []))

    def standing(self, side: Optional[int] = None) -> list[Member]:
        return [m for m in self.members if m.status == STANDING and (side is None or m.side == side)]

    # -- a round ---------------------------------------------------------------------------

    def _stream(self) -> tuple[Dice, int]:
        seed = chunk_seed(self._seed, self._k)
        self._k += 1
        return Dice.from_seed(seed), seed

    def _log(self, event: dict[str, Any]) -> None:
        if self._events is not None:
            self._events.append(event)

    def play_round(self, seed: int, *, log: bool = True) -> dict[str, Any]:
        """Play the next round from `seed`; returns its log (events only when `log`)."""
        if self.over:
            raise RuntimeError("the fight is over")
        sc = self.sc
        self.round += 1
        self._seed, self._k = seed, 0
        self._events = [] if log else None
        for m in self.members:
            m.hurt_round = 0
        slots, initiative = self._initiative()
        acting = {mid for slot in slots for mid in slot}
        surprised = [m.id for m in self.standing() if m.id not in acting]
        casting = {m.index for m in self.standing() if m.spell_uses > 0 and m.id in acting}
        for slot in slots:
            if self.over:
                break
            self._play_slot([self.by_id[mid] for mid in slot], casting)
        if not self.over and self.round >= sc.max_rounds:
            self.over = True
            self._log({"type": "end", "reason": f"max_rounds {sc.max_rounds} reached: a draw"})
        out: dict[str, Any] = {"round": self.round, "seed": seed, "over": self.over, "winner": self.winner}
        if log:
            out.update(initiative=initiative, order=slots, surprised=surprised, events=self._events)
        self._events = None
        return out

    def _initiative(self) -> tuple[list[list[str]], Optional[dict[str, Any]]]:
        sc = self.sc
        standing = self.standing()
        if sc.ruleset.initiative_once and self.order is not None:
            alive = {m.id for m in standing}
            return [[mid for mid in slot if mid in alive] for slot in self.order if any(i in alive for i in slot)], None
        actors = [Actor(m.id, sc.sides[m.side], sc.groups[m.group].attacker, sc.groups[m.group].initiative,
                        sc.groups[m.group].path) for m in standing]
        dice, seed = self._stream()
        slots, record = sc.ruleset.fight_initiative(sc.setup, actors, sc.sides, self.round, dice, seed)
        if sc.ruleset.initiative_once:
            self.order = slots
        return slots, record

    def _play_slot(self, slot: list[Member], casting: set[int]) -> None:
        sc = self.sc
        ruleset = sc.ruleset
        together = len({m.side for m in slot}) > 1
        busy = set()
        if ruleset.spell_disruption:
            for m in slot:
                if m.index in casting and m.hurt_round == self.round and m.status == STANDING:
                    casting.discard(m.index)
                    m.spell_uses -= 1
                    busy.add(m.index)
                    spell = sc.groups[m.group].spec.spell
                    self._log({"type": "spell lost", "who": m.id, "spell": spell.name if spell else "",
                               "rule": "OS-5", "why": "harmed this round before its side acted"})
        able = [m for m in slot if m.status == STANDING and m.index not in busy]
        for phase in ruleset.fight_phases:
            pending: list[tuple[Member, int, int]] = []
            for m in able:
                if self.over:
                    return
                if m.status != STANDING and not together:
                    continue
                if m.index in casting:
                    if phase != ruleset.spell_phase:
                        continue
                    key = "spell"
                    m.spell_uses -= 1
                elif phase in sc.groups[m.group].phases:
                    key = phase
                else:
                    continue
                target = self._choose(m)
                if target is None:
                    continue
                hp, injury = self._attack(m, target, key, phase)
                if together:
                    pending.append((target, hp, injury))
                else:
                    self._harm(target, hp, injury)
            for target, hp, injury in pending:  # simultaneous: the phase's damage lands now
                if target.status == STANDING:
                    self._harm(target, hp, injury)

    def _choose(self, m: Member) -> Optional[Member]:
        """The target of `m` by its tactic among the standing enemies (None: none left)."""
        enemies = [e for e in self.members if e.status == STANDING and e.side != m.side]
        if not enemies:
            return None
        tactic = self.sc.groups[m.group].spec.tactic
        how = tactic.target
        if how == "focus":
            focused = [e for e in enemies if e.id == tactic.focus or self.sc.groups[e.group].spec.name == tactic.focus]
            if focused:
                enemies = focused
            how = "nearest"
        if how == "weakest":
            return min(enemies, key=lambda e: (e.hp + (e.injury or 0), e.index))
        if how == "random":
            dice, seed = self._stream()
            pick = enemies[dice.die(len(enemies)) - 1]
            self._log({"type": "target", "who": m.id, "target": pick.id, "seed": seed, "among": len(enemies)})
            return pick
        return min(enemies, key=lambda e: (math.hypot(e.x - m.x, e.y - m.y), e.index))

    def _attack(self, m: Member, target: Member, key: str, phase: str) -> tuple[int, int]:
        sc = self.sc
        plan = sc.plan(m.group, key, target.group)
        dice, seed = self._stream()
        result = sc.ruleset.roll_attack(plan, dice, seed)
        hp, injury, cost = sc.ruleset.fight_outcome(result)
        m.dealt += hp + injury
        target.taken += hp + injury
        if cost:
            m.hp = max(0, m.hp - cost)
        if self._events is not None:
            event: dict[str, Any] = {"type": "spell" if key == "spell" else "attack", "who": m.id,
                                     "target": target.id, "phase": phase, "seed": seed, "damage": hp + injury}
            if key == "spell":
                event["spell"] = sc.groups[m.group].spec.spell.name  # type: ignore[union-attr]
            if injury:
                event["injury_damage"] = injury
            if cost:
                event["cost"] = cost
            detail = result.to_dict()
            detail["targets"] = {target.id: detail["targets"].pop("t")} if "t" in detail.get("targets", {}) else detail.get("targets")
            for strike in detail.get("strikes", []):
                if strike.get("target") == "t":
                    strike["target"] = target.id
            event["result"] = detail
            self._log(event)
        return hp, injury

    def _harm(self, target: Member, hp: int, injury: int) -> None:
        """Apply damage; a combatant at 0 is down. CT: Stamina damage past 0 becomes injury."""
        if hp + injury <= 0:
            return
        target.hurt_round = self.round
        if target.injury_max is not None:
            left = target.hp - hp
            target.hp = max(0, left)
            target.injury = max(0, (target.injury or 0) - injury - max(0, -left))
            down = target.injury == 0
        else:
            target.hp = max(0, target.hp - hp - injury)
            down = target.hp == 0
        if down:
            target.status = DOWN
            self._log({"type": "down", "who": target.id})
        else:
            flee_at = self.sc.groups[target.group].spec.tactic.flee_at
            if flee_at is not None and target.hp <= flee_at:
                target.status = FLED
                self._log({"type": "fled", "who": target.id, "why": f"hp {target.hp} <= flee_at {flee_at}"})
        target.harmed = True
        self._settle(target.side)
        target.harmed = False

    def _settle(self, side: Optional[int] = None) -> None:
        """Morale of `side` after a loss (all sides when None), then whether the fight is over."""
        sc = self.sc
        if sc.has_morale:
            for s in ([side] if side is not None else range(len(sc.sides))):
                self._morale(s)
        self.decide()

    def decide(self) -> None:
        """End the fight once at most one side stands: that side wins (none: a draw)."""
        standing_sides = {m.side for m in self.members if m.status == STANDING}
        if len(standing_sides) <= 1 and not self.over:
            self.over = True
            self.winner = self.sc.sides[next(iter(standing_sides))] if standing_sides else None
            self._log({"type": "end", "winner": self.winner,
                       "reason": "one side left standing" if standing_sides else "no one left standing"})

    def _morale(self, s: int) -> None:
        sc = self.sc
        standing = self.standing(s)
        view = SideView(self.start[s], self.start[s] - len(standing), standing, self.fired[s])
        for trigger in sc.ruleset.morale_triggers(view):
            self.fired[s].add(trigger)
            if trigger == "lone creature" and standing:
                groups = [standing[0].group]
            else:
                groups = sorted({m.group for m in standing})
            for g in groups:
                spec, st = sc.groups[g].spec, self.groups[g]
                if spec.morale is None or st.broken or st.to_death:
                    continue
                dice, seed = self._stream()
                plan = sc.ruleset.compile_morale({"ruleset": sc.ruleset.name, "morale": spec.morale,
                                                  "modifier": spec.morale_modifier, "successes": st.successes})
                check = sc.ruleset.roll_morale(plan, dice, seed).to_dict()  # small: a copy is cheap
                st.successes, st.to_death = check["successes"], check["fights_to_death"]
                self._log({"type": "morale", "group": spec.name, "side": sc.sides[s], "trigger": trigger,
                           "seed": seed, "dice": check["dice"], "total": check["total"],
                           "against": spec.morale + spec.morale_modifier, "breaks": check["breaks"],
                           "fights_to_death": st.to_death, "rule": "OS-4"})
                if check["breaks"]:
                    st.broken = True
                    if spec.tactic.flee == "broken":
                        for m in standing:
                            if m.group == g and m.status == STANDING:
                                m.status = FLED
                                self._log({"type": "fled", "who": m.id, "why": "morale broke"})
            standing = self.standing(s)
