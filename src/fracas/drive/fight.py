"""A fight, round by round: the loop that encounters and simulations share.

It knows no ruleset: initiative, phases, damage pools, morale triggers and the
procedures of a ruleset's round come from the scenario's ruleset through the
`Ruleset` fight calls and flags (`fracas.rulesets.base`). What it owns is the
order of a round:

1. declarations: a combatant leaving the fight declares flight (`flight_declared`,
   OS-4: its morale broke, or it is at its `flee_at`); casters with a spell use
   left declare their spell;
2. initiative (every round, or once where the ruleset says so: WW-1), which may
   leave a surprised side out of the round;
3. slot by slot in initiative order (a slot is one combatant, or a whole side where
   initiative is by side): combatants of the slot that declared flight leave (until
   then opponents attack them as fleeing targets, OS-3); each standing combatant
   starts its turn (CT-6: a parry ends, or a new one takes the turn; WW-5: actions
   held in reserve; OS one action: its phase), then phase by phase (OS-2: missile,
   magic, melee) it picks a target by its tactic and makes its strikes of that phase
   (or casts its spell in the spell phase); a caster harmed this round before its
   slot loses its spell (OS-5); in a slot holding more than one side (simultaneous
   initiative) the damage of a phase lands when the phase ends, so everyone acts;
4. after each attack the damage is applied, defeated combatants are removed, and the
   morale triggers it causes (OS-4) are noted; the fight ends when at most one side
   stands;
5. morale (OS-4): the triggers noted during the round are checked, one 2d6 per
   morale unit (a side, or a scenario's `morale_group`) and trigger; a unit that
   breaks declares flight in the next round.

**Dice.** A round has one seed. Its k-th random event (k = 0, 1, 2, …: the
initiative roll, each "random" target choice, each attack — a Worldwalker strike is
an attack of its own, WW-5 —, each morale check at the end of the round, in the
order they happen) draws from its own stream, the seed of bulk chunk k of the round
seed (`fracas.rng.chunk_seed`). Declarations, parries, reserves and flights draw
nothing. Every attack in a round log carries its own seed and the `situation` the
round put it in, so it replays alone with `fracas replay`; the same state and round
seed give the same round. A simulation's fight i plays round r with seed
chunk_seed(chunk_seed(seed, i), r).
"""

from __future__ import annotations

import heapq
import math
import weakref
from array import array
from typing import Any, NamedTuple, Optional

from ..dice import Dice
from ..rng import chunk_seed
from ..rulesets.base import Actor as Actor  # what a ruleset's initiative reads (re-exported)
from .scenario import Compiled, Situation

STANDING, DOWN, FLED = "standing", "down", "fled"

#: Every kind of event a round's log holds (`{"type": …}`), and what it says: the protocol
#: schema's encounter.round result lists these names (`fracas.spec`), and a test holds
#: the list to the events this module logs.
EVENT_TYPES = {
    "target": "who picks which enemy to attack (and the seed of the pick)",
    "attack": "an attack: who, at whom, in which phase, the damage",
    "spell": "a spell cast instead of an attack (OS-5)",
    "spell lost": "a caster harmed before its side acted loses its spell (OS-5)",
    "down": "a combatant out of the fight",
    "fled": "a combatant leaves the fight (flee_at, or a flight declared: OS-4)",
    "morale": "a morale check at the end of the round (OS-4)",
    "surrender": "a group whose morale broke surrenders (OS-4)",
    "flight": "a group whose morale broke declares flight (OS-4)",
    "reserve": "complex actions held in reserve for blocks and dodges (WW-5)",
    "reserve spent": "reserved actions spent on blocks or dodges (WW-5)",
    "parry": "a combatant parries until its next turn (CT-6)",
    "no weapon": "every weapon a combatant attacks with is broken (CT-5)",
    "weapon broken": "a power attack broke the weapon (CT-5)",
    "weapon shattered": "an exploding die shattered the parrying weapon (CT-6)",
    "shield destroyed": "the parrying shield took its points (CT-6)",
    "end": "the fight is over: the winner, or a draw at max_rounds",
}


class Member:
    """One combatant in the fight (a group of `count` has `count` members)."""

    __slots__ = ("index", "id", "group", "side", "unit", "hp", "hp_max", "injury", "injury_max", "status",
                 "spell_uses", "dealt", "taken", "harmed", "hurt_round", "x", "y", "leaving", "reserve",
                 "broken", "parrying", "weapon_left", "shield_left", "attacked", "attacking", "turns")

    def __init__(self, index: int, id_: str, group: int, side: int, hp: int, injury: Optional[int],
                 spell_uses: int, position: tuple[float, float]) -> None:
        self.index, self.id, self.group, self.side = index, id_, group, side
        self.unit = 0
        self.hp = self.hp_max = hp
        self.injury = self.injury_max = injury
        self.status = STANDING
        self.spell_uses = spell_uses
        self.dealt = self.taken = 0
        self.harmed = False
        self.hurt_round = 0
        self.x, self.y = position
        self.leaving = ""           # why it declared flight this round (OS-4), "" when it did not
        self.reserve = 0            # reserved complex actions left this round (WW-5)
        self.broken: list[int] = []  # strikes whose weapon broke or shattered (CT-5, CT-6)
        self.parrying = ""          # "weapon" or "shield" until its next turn (CT-6)
        self.weapon_left = self.shield_left = 0  # explosions its parrying weapon takes; shield points
        self.attacked: list[str] = []   # whom it attacked in the prior round (CT-7)
        self.attacking: list[str] = []  # whom it attacks this round
        self.turns = 0              # turns it has taken (CT-5 power "first")


class GroupState:
    """Morale of one scenario group (OS-4): checks passed, broken, fights to the death."""

    __slots__ = ("successes", "broken", "to_death")

    def __init__(self, morale: Optional[int]) -> None:
        self.successes = 0
        self.broken = False
        self.to_death = morale == 12


class SideView(NamedTuple):
    """What a ruleset's morale triggers read of a side (or morale unit)."""

    start: int
    defeated: int
    standing: list[Member]
    fired: set[str]
    killed: int


class Fight:
    """The state of one fight of a compiled scenario, and the round that advances it."""

    def __init__(self, scenario: Compiled, state: Optional[dict[str, Any]] = None) -> None:
        sc = self.sc = scenario
        uses = [g.spec.spell.uses if g.spec.spell is not None else 0 for g in sc.groups]
        self.members = [Member(i, mid, g, sc.groups[g].side, sc.groups[g].spec.hp, sc.groups[g].spec.injury,
                               uses[g], sc.positions[i])
                        for i, (mid, g) in enumerate(zip(sc.member_ids, sc.member_group))]
        self.by_id = {m.id: m for m in self.members}
        unit_of = {g: u for u, (_name, _side, groups) in enumerate(sc.morale_units) for g in groups}
        for m in self.members:
            m.unit = unit_of[m.group]
            if sc.ruleset.weapon_memory:
                m.weapon_left, m.shield_left = sc.ruleset.fight_parry_state(sc.groups[m.group].spec.target)
        self.groups = [GroupState(g.spec.morale) for g in sc.groups]
        self.fired: list[set[str]] = [set() for _ in sc.morale_units]
        self.start = [sum(1 for m in self.members if m.unit == u) for u in range(len(sc.morale_units))]
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
        self._noted: list[list[tuple[str, Optional[Member]]]] = [[] for _ in sc.morale_units]
        # target bookkeeping, kept through a round (_book): who stands per side, the weakest
        # by side (heaps of (health, index), stale entries dropped when read), the random
        # tactic's Fenwick trees of each side's standing enemies, each member's place in its
        # nearest-first list
        self._in_round = False
        self._count: list[int] = []
        self._heaps: list[list[tuple[int, int]]] = []
        self._trees: list[list[int]] = []
        self._near_at: Optional[list[int]] = None
        self._gone: list[bool] = [False] * len(self.members)

    # -- state ---------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """Everything a later round depends on, as JSON-ready data (what encounters keep)."""
        return {
            "round": self.round, "over": self.over, "winner": self.winner, "order": self.order,
            "members": [self._member_state(m) for m in self.members],
            "morale": {g.spec.name: {"successes": st.successes, "broken": st.broken, "to_death": st.to_death}
                       for g, st in zip(self.sc.groups, self.groups) if g.spec.morale is not None},
            "triggers": {unit[0]: sorted(fired) for unit, fired in zip(self.sc.morale_units, self.fired) if fired},
        }

    def _member_state(self, m: Member) -> dict[str, Any]:
        spec = self.sc.groups[m.group].spec
        out: dict[str, Any] = {"id": m.id, "side": self.sc.sides[m.side], "group": spec.name, "status": m.status,
                               "hp": m.hp, "hp_max": m.hp_max}
        if m.injury_max is not None:
            out.update(injury=m.injury, injury_max=m.injury_max)
        if spec.spell:
            out["spell_uses"] = m.spell_uses
        out.update(dealt=m.dealt, taken=m.taken)
        if self.sc.ruleset.weapon_memory:  # CT-5/6/7: what later rounds remember
            out.update(broken=list(m.broken), parrying=m.parrying, parry_weapon_left=m.weapon_left,
                       shield_left=m.shield_left, attacked=list(m.attacking), turns=m.turns)
        return out

    def _load(self, state: dict[str, Any]) -> None:
        self.round, self.over, self.winner, self.order = state["round"], state["over"], state["winner"], state["order"]
        for m, saved in zip(self.members, state["members"]):
            if saved["id"] != m.id:
                raise ValueError(f"saved member {saved['id']!r} is not {m.id!r}: the state is of another scenario")
            m.status, m.hp, m.dealt, m.taken = saved["status"], saved["hp"], saved["dealt"], saved["taken"]
            m.injury = saved.get("injury", m.injury)
            m.spell_uses = saved.get("spell_uses", m.spell_uses)
            m.broken = list(saved.get("broken", m.broken))
            m.parrying = saved.get("parrying", m.parrying)
            m.weapon_left = saved.get("parry_weapon_left", m.weapon_left)
            m.shield_left = saved.get("shield_left", m.shield_left)
            m.attacking = list(saved.get("attacked", m.attacking))
            m.turns = saved.get("turns", m.turns)
        for g, st in zip(self.sc.groups, self.groups):
            saved = state["morale"].get(g.spec.name)
            if saved:
                st.successes, st.broken, st.to_death = saved["successes"], saved["broken"], saved["to_death"]
        for u, unit in enumerate(self.sc.morale_units):
            self.fired[u] = set(state["triggers"].get(unit[0], []))

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
        self._noted = [[] for _ in sc.morale_units]
        for m in self.members:
            m.hurt_round = 0
            m.attacked, m.attacking = m.attacking, []
            m.reserve = sc.groups[m.group].spec.tactic.reserve if sc.ruleset.reserve_actions else 0
        self._book()
        try:
            return self._play_round(seed, log)
        finally:
            self._in_round = False

    def _play_round(self, seed: int, log: bool) -> dict[str, Any]:
        sc = self.sc
        self._declare_flight()
        if self.over:  # the last of a side surrendered
            ended: dict[str, Any] = {"round": self.round, "seed": seed, "over": True, "winner": self.winner}
            if log:
                ended.update(initiative=None, order=[], surprised=[], events=self._events)
            self._events = None
            return ended
        slots, initiative = self._initiative()
        acting = {mid for slot in slots for mid in slot}
        surprised = [m.id for m in self.standing() if m.id not in acting]
        casting = {m.index for m in self.standing() if m.spell_uses > 0 and m.id in acting and not m.leaving}
        for slot in slots:
            if self.over:
                break
            self._play_slot([self.by_id[mid] for mid in slot], casting)
        for m in self.standing():  # declared flight but never had a slot (surprised): gone now
            if m.leaving and not self.over:
                self._leave(m)
        if not self.over:
            self._morale_step()
        if not self.over and self.round >= sc.max_rounds:
            self.over = True
            self._log({"type": "end", "reason": f"max_rounds {sc.max_rounds} reached: a draw"})
        out: dict[str, Any] = {"round": self.round, "seed": seed, "over": self.over, "winner": self.winner}
        if log:
            out.update(initiative=initiative, order=slots, surprised=surprised, events=self._events)
        self._events = None
        return out

    def _declare_flight(self) -> None:
        """OS-4 / OS declarations: "they try to surrender or flee in the next Round", and
        "the intention to flee from melee this Round must be declared" before initiative.
        A broken group with `flee: "surrender"` gives up here and is out of the fight."""
        if not self.sc.ruleset.flight_declared:
            return
        surrender: dict[int, list[Member]] = {}
        leaving: dict[tuple[int, str], list[Member]] = {}
        for m in self.members:
            m.leaving = ""
            if m.status != STANDING:
                continue
            tactic = self.sc.groups[m.group].spec.tactic
            if self.groups[m.group].broken and tactic.flee == "surrender":
                surrender.setdefault(m.group, []).append(m)
                continue
            if self.groups[m.group].broken and tactic.flee == "broken":
                m.leaving = "its morale broke"
            elif tactic.flee_at is not None and m.hp <= tactic.flee_at:
                m.leaving = f"hp {m.hp} <= flee_at {tactic.flee_at}"
            if m.leaving:
                leaving.setdefault((m.group, m.leaving), []).append(m)
        for g, members in surrender.items():
            self._log({"type": "surrender", "group": self.sc.groups[g].spec.name, "who": [m.id for m in members],
                       "why": "its morale broke", "rule": "OS-4"})
            for m in members:
                m.status = FLED
                self._fallen(m)
                self._note(m.unit)
            self.decide()
        for (g, why), members in leaving.items():
            self._log({"type": "flight", "group": self.sc.groups[g].spec.name, "who": [m.id for m in members],
                       "why": why, "rule": "OS-4",
                       "note": "declared before initiative: no attacks this round; opponents in melee that act"
                               " first attack at +2 ignoring the shield (OS-3)"})

    def _leave(self, m: Member) -> None:
        m.status = FLED
        self._fallen(m)
        self._log({"type": "fled", "who": m.id, "why": f"{m.leaving}; leaves as its side moves, as declared",
                   "rule": "OS-4"})
        m.leaving = ""
        self._note(m.unit)
        self.decide()

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
        for m in slot:  # movement: those who declared flight leave (OS-2 movement, OS-4)
            if m.leaving and m.status == STANDING:
                self._leave(m)
                if self.over:
                    return
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
        turns = {m.index: self._turn(m, m.index in casting) for m in able}
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
                    key, use = "spell", None
                    m.spell_uses -= 1
                elif phase in turns[m.index]:
                    key, use = phase, tuple(turns[m.index][phase])
                else:
                    continue
                target = self._choose(m)
                if target is None:
                    continue
                # WW-5: each strike is its own attack, so the defender spends a reserved action on each
                for part in ([(i,) for i in use] if use is not None and ruleset.reserve_actions else [use]):
                    if target.status != STANDING and not together:
                        break
                    hp, injury = self._attack(m, target, key, phase, part)
                    if together:
                        pending.append((target, hp, injury))
                    else:
                        self._harm(target, hp, injury)
            for target, hp, injury in pending:  # simultaneous: the phase's damage lands now
                if target.status == STANDING:
                    self._harm(target, hp, injury)

    def _turn(self, m: Member, casting: bool) -> dict[str, list[int]]:
        """The start of `m`'s turn: the strikes it makes this turn, by phase (none: it
        parries, CT-6, or casts)."""
        sc = self.sc
        ruleset = sc.ruleset
        g = sc.groups[m.group]
        tactic = g.spec.tactic
        m.turns += 1
        if not (m.broken or ruleset.weapon_memory or (ruleset.one_action and len(g.phases) > 1)
                or (ruleset.reserve_actions and tactic.reserve)):
            return g.phases  # no procedure changes the strikes of this turn: read only
        phases = {phase: [i for i in strikes if i not in m.broken] for phase, strikes in g.phases.items()}
        phases = {phase: strikes for phase, strikes in phases.items() if strikes}
        if ruleset.weapon_memory:
            m.parrying = ""  # CT-6: "mitigated until their next combat turn"
            if not casting and tactic.parry and (tactic.parry_at is None or m.hp <= tactic.parry_at):
                can = m.weapon_left > 0 and 0 not in m.broken if tactic.parry == "weapon" else m.shield_left > 0
                if can:
                    m.parrying = tactic.parry
                    self._log({"type": "parry", "who": m.id, "with": tactic.parry, "rule": "CT-6",
                               "left": m.weapon_left if tactic.parry == "weapon" else m.shield_left,
                               "note": "no attack this turn; incoming damage mitigated until its next turn"})
                    return {}
            if not phases and not casting and g.phases:
                self._log({"type": "no weapon", "who": m.id, "rule": "CT-5",
                           "why": "every weapon it attacks with is broken"})
        if ruleset.one_action and phases:
            action = ruleset.fight_action(g.spec, phases)
            phases = {action: phases[action]} if action in phases else dict([next(iter(phases.items()))])
        if ruleset.reserve_actions and tactic.reserve:
            forgone = set(ruleset.fight_forgone(g.spec))
            phases = {phase: [i for i in strikes if i not in forgone] for phase, strikes in phases.items()}
            if self._events is not None:
                self._log({"type": "reserve", "who": m.id, "reserved": tactic.reserve, "actions": m.reserve,
                           "forgoes": sorted(forgone), "rule": "WW-5",
                           "note": "held for blocks or dodges until the end of the round"})
        return {phase: strikes for phase, strikes in phases.items() if strikes}

    def _choose(self, m: Member) -> Optional[Member]:
        """The target of `m` by its tactic among the standing enemies (None: none left):
        `weakest` the least hp + injury, then the first listed; `random` the k-th standing
        enemy in member order, k a die of their count (one random event); `nearest` the
        least distance, then the first listed; `focus` the nearest of those it names while
        one stands, else the nearest. Read from the round's bookkeeping (`_book`), not a
        scan of every member."""
        enemies = sum(self._count) - self._count[m.side]
        if not enemies:
            return None
        tactic = self.sc.groups[m.group].spec.tactic
        how = tactic.target
        if how == "weakest":
            return self._weakest(m.side)
        if how == "random":
            dice, seed = self._stream()
            pick = self._kth(m.side, dice.die(enemies))
            self._log({"type": "target", "who": m.id, "target": pick.id, "seed": seed, "among": enemies})
            return pick
        assert self._near_at is not None
        members = self.members
        if how == "focus":
            focus = _focus(self.sc, m.index)
            at, end = self._near_at[len(members) + m.index], len(focus)
            while at < end and members[focus[at]].status != STANDING:
                at += 1
            self._near_at[len(members) + m.index] = at
            if at < end:
                named: int = focus[at]
                return members[named]
        near = _near(self.sc, m.index)
        at = self._near_at[m.index]
        while members[near[at]].status != STANDING:  # an enemy stands: the list holds it
            at += 1
        self._near_at[m.index] = at
        index: int = near[at]
        return members[index]

    # -- target bookkeeping ---------------------------------------------------------------

    def _book(self) -> None:
        """The round's target bookkeeping afresh from the members (a table may have changed
        their health between rounds): standing counts per side; with the weakest tactic, a
        heap per side; with random, per side a Fenwick tree of its standing enemies; the
        places in the nearest-first lists, kept from round to round unless someone stands
        again."""
        sides = len(self.sc.sides)
        members = self.members
        self._count = [0] * sides
        for m in members:
            if m.status == STANDING:
                self._count[m.side] += 1
        tactics = {g.spec.tactic.target for g in self.sc.groups}
        if "weakest" in tactics:
            self._heaps = [[] for _ in range(sides)]
            for m in members:
                if m.status == STANDING:
                    self._heaps[m.side].append((m.hp + (m.injury or 0), m.index))
            for heap in self._heaps:
                heapq.heapify(heap)
        if "random" in tactics:
            n = len(members)
            self._trees = []
            for side in range(sides):
                tree = [0] * (n + 1)
                for m in members:
                    if m.status == STANDING and m.side != side:
                        tree[m.index + 1] = 1
                for i in range(1, n + 1):  # a Fenwick tree in one pass
                    j = i + (i & -i)
                    if j <= n:
                        tree[j] += tree[i]
                self._trees.append(tree)
        if tactics & {"nearest", "focus"}:
            again = any(gone and m.status == STANDING for m, gone in zip(members, self._gone))
            if self._near_at is None or again:  # the places: at the start of each list
                self._near_at = [0] * (2 * len(members))
        self._gone = [m.status != STANDING for m in members]
        self._in_round = True

    def _fallen(self, m: Member) -> None:
        """`m` no longer stands (down, fled, surrendered): out of the round's bookkeeping."""
        if not self._in_round:
            return
        self._gone[m.index] = True
        self._count[m.side] -= 1
        n = len(self.members)
        for side, tree in enumerate(self._trees):
            if side != m.side:
                i = m.index + 1
                while i <= n:
                    tree[i] -= 1
                    i += i & -i

    def _hurt(self, m: Member) -> None:
        """`m`'s health changed and it stands: its new health on its side's heap (weakest)."""
        if self._in_round and self._heaps:
            heapq.heappush(self._heaps[m.side], (m.hp + (m.injury or 0), m.index))

    def _weakest(self, side: int) -> Optional[Member]:
        """The standing enemy of `side` with the least hp + injury, the first listed among equals."""
        best: Optional[tuple[int, int]] = None
        for s, heap in enumerate(self._heaps):
            if s == side:
                continue
            while heap:  # drop entries of the fallen and of health since changed
                health, index = heap[0]
                e = self.members[index]
                if e.status == STANDING and e.hp + (e.injury or 0) == health:
                    break
                heapq.heappop(heap)
            if heap and (best is None or heap[0] < best):
                best = heap[0]
        return None if best is None else self.members[best[1]]

    def _kth(self, side: int, k: int) -> Member:
        """The k-th (from 1) standing member not of `side`, in member order."""
        tree = self._trees[side]
        n = len(tree) - 1
        pos, step = 0, 1 << n.bit_length()
        while step:
            if pos + step <= n and tree[pos + step] < k:
                pos += step
                k -= tree[pos]
            step >>= 1
        return self.members[pos]

    def _situation(self, m: Member, target: Member, key: str, use: Optional[tuple[int, ...]]) -> Situation:
        """What the round changes in `m`'s attack at `target`: a fleeing target (OS-3), no
        reserved action left to block with (WW-5), a parry (CT-6), a power attack (CT-5), a
        sneak attack on a target attacked in the prior round (CT-7)."""
        ruleset = self.sc.ruleset
        found: list[tuple[Any, tuple[tuple[str, Any], ...]]] = []
        if target.leaving and ruleset.fleeing_target:
            found.append(("target", ruleset.fleeing_target))
        if ruleset.reserve_actions and target.reserve <= 0 and self.sc.groups[target.group].spec.target.get("reaction"):
            found.append(("target", ruleset.no_reaction))
        if ruleset.weapon_memory and key != "spell" and use is not None:
            if target.parrying:
                found.append(("target", ruleset.fight_parrying(target.parrying, target.weapon_left,
                                                               target.shield_left)))
            spec = self.sc.groups[m.group].spec
            for i in use:
                changes: list[tuple[str, Any]] = []
                sneak = spec.attacks[i].get("sneak") is not None
                if target.parrying:
                    changes.append(("parry", target.parrying))
                if sneak and target.id in m.attacked:
                    changes.extend(ruleset.no_sneak)
                elif not sneak and self._power_now(m):
                    changes.extend(ruleset.power_attack)
                if changes:
                    found.append((("strike", i), tuple(changes)))
        return tuple(found)

    def _power_now(self, m: Member) -> bool:
        """CT-5: the tactic's moment for a power attack."""
        power = self.sc.groups[m.group].spec.tactic.power
        return (power == "first" and m.turns == 1) or (power == "hurt" and 2 * m.hp <= m.hp_max)

    def _attack(self, m: Member, target: Member, key: str, phase: str,
                use: Optional[tuple[int, ...]] = None) -> tuple[int, int]:
        sc = self.sc
        situation = self._situation(m, target, key, use)
        plan = sc.plan(m.group, key, target.group, use, situation)
        dice, seed = self._stream()
        result = sc.ruleset.roll_attack(plan, dice, seed)
        hp, injury, cost = sc.ruleset.fight_outcome(result)
        m.dealt += hp + injury
        target.taken += hp + injury
        if cost:
            m.hp = max(0, m.hp - cost)
            self._hurt(m)
        if target.id not in m.attacking:
            m.attacking.append(target.id)
        if self._events is not None:
            detail = result.to_dict()
            event: dict[str, Any] = {"type": "spell" if key == "spell" else "attack", "who": m.id,
                                     "target": target.id, "phase": phase, "seed": seed, "damage": hp + injury}
            if key == "spell":
                event["spell"] = sc.groups[m.group].spec.spell.name  # type: ignore[union-attr]
            if use is not None and list(use) != sc.groups[m.group].phases.get(key):
                event["strikes"] = list(use)
            if situation:
                event["situation"] = _situation_dict(situation)
            if injury:
                event["injury_damage"] = injury
            if cost:
                event["cost"] = cost
            shown = dict(detail)
            shown["targets"] = ({target.id: shown["targets"]["t"]} if "t" in shown.get("targets", {})
                                else shown.get("targets"))
            shown["strikes"] = [dict(st, target=target.id) if st.get("target") == "t" else st
                                for st in shown.get("strikes", [])]
            event["result"] = shown
            self._log(event)
        if sc.ruleset.reserve_actions or sc.ruleset.weapon_memory:
            self._after_attack(m, target, key, use, situation, result)
        return hp, injury

    def _after_attack(self, m: Member, target: Member, key: str, use: Optional[tuple[int, ...]],
                      situation: Situation, result: Any) -> None:
        """What an attack leaves behind: a reserved action spent (WW-5), a weapon broken by a
        power attack (CT-5), a parrying weapon shattered or a shield destroyed (CT-6)."""
        ruleset = self.sc.ruleset
        if ruleset.reserve_actions and target.reserve > 0:
            spent = ruleset.fight_reactions(result)
            if spent:
                target.reserve -= spent
                self._log({"type": "reserve spent", "who": target.id, "spent": spent, "left": target.reserve,
                           "rule": "WW-5"})
        if not ruleset.weapon_memory or key == "spell" or use is None:
            return
        attacks = self.sc.groups[m.group].spec.attacks
        powered = {where[1] for where, changes in situation if where != "target" and ("power", True) in changes}
        for i in use:
            if (i in powered or attacks[i].get("power")) and i not in m.broken:
                m.broken.append(i)
                self._log({"type": "weapon broken", "who": m.id, "strike": i, "rule": "CT-5",
                           "why": "a power attack breaks the weapon: unusable for the rest of the fight"})
        if target.parrying:
            left = ruleset.fight_parry_left(result)
            if left is None:
                return
            if target.parrying == "weapon":
                target.weapon_left = left
                if left == 0:
                    if 0 not in target.broken:
                        target.broken.append(0)
                    target.parrying = ""
                    self._log({"type": "weapon shattered", "who": target.id, "strike": 0, "rule": "CT-6",
                               "why": "an exploding die shattered the parrying weapon: no more parries with it"})
            else:
                target.shield_left = left
                if left == 0:
                    target.parrying = ""
                    self._log({"type": "shield destroyed", "who": target.id, "rule": "CT-6",
                               "why": "the shield took its points in double damage"})

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
        elif not self.sc.ruleset.flight_declared:
            flee_at = self.sc.groups[target.group].spec.tactic.flee_at
            if flee_at is not None and target.hp <= flee_at:
                target.status = FLED
                self._log({"type": "fled", "who": target.id, "why": f"hp {target.hp} <= flee_at {flee_at}"})
        if target.status == STANDING:
            self._hurt(target)
        else:
            self._fallen(target)
        target.harmed = True
        self._note(target.unit)
        target.harmed = False
        self.decide()

    def decide(self) -> None:
        """End the fight once at most one side stands: that side wins (none: a draw)."""
        if self._in_round:  # the round's bookkeeping counts them
            standing_sides = {side for side, count in enumerate(self._count) if count}
        else:  # between rounds (a table's edits): from the members
            standing_sides = {m.side for m in self.members if m.status == STANDING}
        if len(standing_sides) <= 1 and not self.over:
            self.over = True
            self.winner = self.sc.sides[next(iter(standing_sides))] if standing_sides else None
            self._log({"type": "end", "winner": self.winner,
                       "reason": "one side left standing" if standing_sides else "no one left standing"})

    # -- morale (OS-4) ----------------------------------------------------------------------

    def _note(self, u: int) -> None:
        """Note the morale triggers a loss of unit `u` calls for; they are checked at the
        end of the round (OS-4: step 5)."""
        if not self.sc.has_morale:
            return
        members = [m for m in self.members if m.unit == u]
        standing = [m for m in members if m.status == STANDING]
        killed = sum(1 for m in members if m.status == DOWN)
        view = SideView(self.start[u], self.start[u] - len(standing), standing, self.fired[u], killed)
        for trigger in self.sc.ruleset.morale_triggers(view):
            self.fired[u].add(trigger)
            self._noted[u].append((trigger, standing[0] if trigger.startswith("lone") and standing else None))

    def _morale_step(self) -> None:
        """OS-4 step 5: "The Referee makes a Morale Check for monsters and NPCs": each
        trigger noted this round, unit by unit in scenario order, is one check of the unit
        ("a single Morale Check is made for all members of a side"): one 2d6, one log
        event, read against each of its groups' Morale + modifier (a group of Morale 12,
        or that passed two checks, is not in it)."""
        sc = self.sc
        for u, noted in enumerate(self._noted):
            name, side, groups = sc.morale_units[u]
            for trigger, _who in noted:
                checking = [g for g in groups if sc.groups[g].spec.morale is not None
                            and not self.groups[g].broken and not self.groups[g].to_death
                            and any(m.group == g and m.status == STANDING for m in self.members)]
                if not checking:
                    continue
                dice, seed = self._stream()
                faces: Optional[array[int]] = None
                verdicts = []
                total = 0
                for g in checking:
                    spec, st = sc.groups[g].spec, self.groups[g]
                    assert spec.morale is not None  # `checking` holds groups with a Morale
                    morale = sc.ruleset.kind("morale")
                    plan = morale.compile({"ruleset": sc.ruleset.name, "morale": spec.morale,
                                           "modifier": spec.morale_modifier, "successes": st.successes})
                    roll_dice = dice if faces is None else Dice.from_seed(seed, faces)
                    assert morale.roll is not None  # a rolled kind
                    check = morale.roll(plan, roll_dice, seed).to_dict()  # small: a copy is cheap
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
                self._log(event)


_NEAR: "weakref.WeakKeyDictionary[Compiled, list[Any]]" = weakref.WeakKeyDictionary()
_FOCUS: "weakref.WeakKeyDictionary[Compiled, list[Any]]" = weakref.WeakKeyDictionary()


def _near(sc: Compiled, m: int) -> Any:
    """Member m's enemies nearest first, ties by member index (the order of (math.hypot of
    the positions' differences, index)); kept per scenario. The compiled core builds every
    member's at once (`fastfight.nearest_first`); the pure-Python kernels sort each when first
    asked."""
    lists = _NEAR.get(sc)
    if lists is None:
        from . import fastfight

        built = fastfight.nearest_first(sc)
        lists = _NEAR[sc] = built[0] if built else [None] * len(sc.member_ids)
        _FOCUS[sc] = built[1] if built else [None] * len(sc.member_ids)
    made = lists[m]
    if made is None:
        positions = sc.positions
        x, y = positions[m]
        side = sc.groups[sc.member_group[m]].side
        made = lists[m] = sorted((e for e, g in enumerate(sc.member_group) if sc.groups[g].side != side),
                                 key=lambda e: (math.hypot(positions[e][0] - x, positions[e][1] - y), e))
    return made


def _focus(sc: Compiled, m: int) -> Any:
    """Member m's focus (the enemies its tactic names: one, or a group's members) in its
    nearest-first order; kept per scenario (built with the nearest-first lists in C)."""
    lists = _FOCUS.get(sc)
    if lists is None:
        _near(sc, m)
        lists = _FOCUS[sc]
    made: Any = lists[m]
    if made is None:
        name = sc.groups[sc.member_group[m]].spec.tactic.focus
        made = lists[m] = [e for e in _near(sc, m)
                           if sc.member_ids[e] == name or sc.groups[sc.member_group[e]].spec.name == name]
    return made


def _situation_dict(situation: Situation) -> dict[str, Any]:
    """A round log's view of a situation: {"target": {field: value}, "strikes": {i: {...}}}."""
    out: dict[str, Any] = {}
    for where, changes in situation:
        fields = {name: value for name, value in changes}
        if where == "target":
            out.setdefault("target", {}).update(fields)
        else:
            out.setdefault("strikes", {}).setdefault(str(where[1]), {}).update(fields)
    return out
