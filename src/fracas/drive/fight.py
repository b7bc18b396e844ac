"""A fight, round by round: the loop that encounters and simulations share.

It knows no ruleset. What it owns is what every ruleset's fight has: the members and
their health, the round's random events in order, targets chosen by tactic, attacks
rolled from their plans, damage applied, the end of the fight. What a ruleset's rules
change in a round is its procedure (`fracas.rulesets.fight.Procedure`, in the
ruleset's folder), which the round calls at each of its steps:

1. declarations before initiative (`declare`);
2. initiative (`initiative`: every round by default), which may leave combatants out
   of the round (surprised);
3. slot by slot in initiative order (a slot is one combatant, or a whole side where
   initiative is by side): the slot's start (`slot_started`: who leaves, who loses its
   action), each standing combatant's turn (`turn`: its strikes this turn by step),
   then step by step (the procedure's `phases`) each combatant picks a target by its
   tactic and makes its attacks (`parts`, `situation`, `outcome`, `attacked`), or casts
   its spell in the spell step; in a slot holding more than one side (simultaneous
   initiative) the damage of a step lands when the step ends, so everyone acts;
4. after each attack the damage is applied (`harmed`: a combatant may leave at once),
   defeated combatants are removed, and the morale triggers it causes are noted; the
   fight ends when at most one side stands;
5. the end of the round (`round_ended`: morale checks, where the ruleset has them).

**Dice.** A round has one seed. Its k-th random event (k = 0, 1, 2, …: the
initiative roll, each "random" target choice, each attack, each morale check at the
end of the round, in the order they happen) draws from its own stream, the seed of
bulk chunk k of the round seed (`fracas.rng.chunk_seed`); a procedure's own random
events draw from `stream()` in the order they happen. Every attack in a round log
carries its own seed and the `situation` the round put it in, so it replays alone with
`fracas replay`; the same state and round seed give the same round. A simulation's
fight i plays round r with seed chunk_seed(chunk_seed(seed, i), r).
"""

from __future__ import annotations

import heapq
import math
import weakref
from typing import Any, Optional

from ..dice import Dice
from ..rng import chunk_seed
from ..rulesets import pools
from ..rulesets.base import Actor as Actor  # what a ruleset's initiative reads (re-exported)
from ..rulesets.fight import DOWN, FLED, STANDING, Member, Procedure, SideView, Situation
from .scenario import Compiled, thawed

__all__ = ["DOWN", "EVENT_TYPES", "event_types", "FLED", "STANDING", "Actor", "Fight", "Member", "SideView"]

#: The kinds of event the driver logs (`{"type": …}`) and what each says; a ruleset's
#: procedure declares its own (`Procedure.events`). The protocol schema's encounter.round
#: result lists them all (`event_types`), and a test holds the lists to the events logged.
EVENT_TYPES = {
    "target": "who picks which enemy to attack (and the seed of the pick)",
    "attack": "an attack: who, at whom, in which phase, the damage",
    "spell": "a spell cast instead of an attack",
    "down": "a combatant out of the fight",
    "fled": "a combatant leaves the fight (flee_at, or a flight declared)",
    "end": "the fight is over: the winner, or a draw at max_rounds",
}


def event_types() -> dict[str, str]:
    """Every kind of event a round's log may hold: the driver's and those of every
    registered ruleset's procedure."""
    from .. import rulesets

    found = dict(EVENT_TYPES)
    for name in rulesets.names():
        found.update(rulesets.get(name).fight_procedure().events)
    return found

class GroupState:
    """Morale of one scenario group: checks passed, broken, fights to the death (what a
    group starts with is its procedure's: `Procedure.start`)."""

    __slots__ = ("successes", "broken", "to_death")

    def __init__(self) -> None:
        self.successes = 0
        self.broken = False
        self.to_death = False


class Fight:
    """The state of one fight of a compiled scenario, and the round that advances it."""

    def __init__(self, scenario: Compiled, state: Optional[dict[str, Any]] = None) -> None:
        sc = self.sc = scenario
        self.rules: Procedure = sc.ruleset.fight_procedure()(self)
        member, groups = self.rules.member, sc.groups
        self.members: list[Member] = []
        for i, (mid, g) in enumerate(zip(sc.member_ids, sc.member_group)):
            spec = groups[g].spec
            uses = spec.spell.uses if spec.spell is not None else 0
            self.members.append(member(i, mid, g, groups[g].side, spec.hp, spec.injury, uses, sc.positions[i]))
        self.by_id = {m.id: m for m in self.members}
        unit_of = {g: u for u, (_name, _side, groups) in enumerate(sc.morale_units) for g in groups}
        self.groups = [GroupState() for _ in sc.groups]
        for m in self.members:
            m.unit = unit_of[m.group]
            self.rules.start(m)
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
        self.noted: list[list[tuple[str, Optional[Member]]]] = [[] for _ in sc.morale_units]
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
        out.update(self.rules.saved(m))  # what the ruleset's round remembers
        return out

    def _load(self, state: dict[str, Any]) -> None:
        self.round, self.over, self.winner, self.order = state["round"], state["over"], state["winner"], state["order"]
        for m, saved in zip(self.members, state["members"]):
            if saved["id"] != m.id:
                raise ValueError(f"saved member {saved['id']!r} is not {m.id!r}: the state is of another scenario")
            m.status, m.hp, m.dealt, m.taken = saved["status"], saved["hp"], saved["dealt"], saved["taken"]
            m.injury = saved.get("injury", m.injury)
            m.spell_uses = saved.get("spell_uses", m.spell_uses)
            self.rules.load(m, saved)
        for g, st in zip(self.sc.groups, self.groups):
            saved = state["morale"].get(g.spec.name)
            if saved:
                st.successes, st.broken, st.to_death = saved["successes"], saved["broken"], saved["to_death"]
        for u, unit in enumerate(self.sc.morale_units):
            self.fired[u] = set(state["triggers"].get(unit[0], []))

    def standing(self, side: Optional[int] = None) -> list[Member]:
        return [m for m in self.members if m.status == STANDING and (side is None or m.side == side)]

    # -- what a ruleset's procedure calls --------------------------------------------------

    def stream(self) -> tuple[Dice, int]:
        """The round's next random event: its dice and its seed."""
        seed = chunk_seed(self._seed, self._k)
        self._k += 1
        return Dice.from_seed(seed), seed

    def log(self, event: dict[str, Any]) -> None:
        """An event of the round's log (dropped when the round keeps no log)."""
        if self._events is not None:
            self._events.append(event)

    @property
    def logging(self) -> bool:
        """Whether the round keeps a log (a procedure may skip building events without one)."""
        return self._events is not None

    def roll_initiative(self) -> tuple[list[list[str]], Optional[dict[str, Any]]]:
        """The ruleset's `fight_initiative` for the standing combatants: one random event."""
        sc = self.sc
        actors = [sc.actor(m.index) for m in self.standing()]
        dice, seed = self.stream()
        return sc.ruleset.fight_initiative(sc.setup, actors, sc.sides, self.round, dice, seed)

    def leave(self, m: Member, **event: Any) -> None:
        """`m` leaves the fight (it fled; `event`: the log's why and rule): out of the round,
        its unit's morale noted."""
        m.status = FLED
        self.fallen(m)
        self.log({"type": "fled", "who": m.id, **event})
        self.note(m.unit)
        self.decide()

    # -- a round ---------------------------------------------------------------------------

    def play_round(self, seed: int, *, log: bool = True) -> dict[str, Any]:
        """Play the next round from `seed`; returns its log (events only when `log`)."""
        if self.over:
            raise RuntimeError("the fight is over")
        sc = self.sc
        self.round += 1
        self._seed, self._k = seed, 0
        self._events = [] if log else None
        self.noted = [[] for _ in sc.morale_units]
        for m in self.members:
            m.hurt_round = 0
            m.attacked, m.attacking = m.attacking, []
        self.rules.round_started()
        self._book()
        try:
            return self._play_round(seed, log)
        finally:
            self._in_round = False

    def _play_round(self, seed: int, log: bool) -> dict[str, Any]:
        sc = self.sc
        self.rules.declare()
        if self.over:  # the last of a side gave up
            ended: dict[str, Any] = {"round": self.round, "seed": seed, "over": True, "winner": self.winner}
            if log:
                ended.update(initiative=None, order=[], surprised=[], events=self._events)
            self._events = None
            return ended
        slots, initiative = self.rules.initiative()
        acting = {mid for slot in slots for mid in slot}
        surprised = [m.id for m in self.standing() if m.id not in acting]
        casting = {m.index for m in self.standing() if m.spell_uses > 0 and m.id in acting and not m.leaving}
        for slot in slots:
            if self.over:
                break
            self._play_slot([self.by_id[mid] for mid in slot], casting)
        if not self.over:
            self.rules.round_ended()
        if not self.over and self.round >= sc.max_rounds:
            self.over = True
            self.log({"type": "end", "reason": f"max_rounds {sc.max_rounds} reached: a draw"})
        out: dict[str, Any] = {"round": self.round, "seed": seed, "over": self.over, "winner": self.winner}
        if log:
            out.update(initiative=initiative, order=slots, surprised=surprised, events=self._events)
        self._events = None
        return out

    def _play_slot(self, slot: list[Member], casting: set[int]) -> None:
        rules = self.rules
        together = len({m.side for m in slot}) > 1
        busy = rules.slot_started(slot, casting)
        if self.over:
            return
        able = [m for m in slot if m.status == STANDING and m.index not in busy]
        turns = {m.index: rules.turn(m, m.index in casting) for m in able}
        for phase in rules.phases:
            pending: list[tuple[Member, int, int]] = []
            for m in able:
                if self.over:
                    return
                if m.status != STANDING and not together:
                    continue
                if m.index in casting:
                    if phase != rules.spell_phase:
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
                for part in rules.parts(m, use):
                    if target.status != STANDING and not together:
                        break
                    if not rules.before_attack(m, target, key, part) or (m.status != STANDING and not together):
                        continue  # a reaction voided it, or struck the attacker down
                    hp, injury = self._attack(m, target, key, phase, part)
                    if together:
                        pending.append((target, hp, injury))
                    else:
                        self._harm(target, hp, injury)
            for target, hp, injury in pending:  # simultaneous: the phase's damage lands now
                if target.status == STANDING:
                    self._harm(target, hp, injury)

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
            dice, seed = self.stream()
            pick = self._kth(m.side, dice.die(enemies))
            self.log({"type": "target", "who": m.id, "target": pick.id, "seed": seed, "among": enemies})
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

    def fallen(self, m: Member) -> None:
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

    def hurt(self, m: Member) -> None:
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
    def reaction(self, m: Member, target: Member, strike: int, situation: Situation, why: dict[str, Any]) -> tuple[int, int]:
        """A procedure's reaction attack (an ER-20 flee attack): `m`'s strike `strike` at
        `target` in `situation`, one random event, logged as an attack with `why` as its
        `reaction`; returns its (hp, injury) damage, not yet applied."""
        return self._attack(m, target, "attack", "reaction", (strike,), situation, why)

    def _attack(self, m: Member, target: Member, key: str, phase: str,
                use: Optional[tuple[int, ...]] = None, situation: Optional[Situation] = None,
                reaction: Optional[dict[str, Any]] = None) -> tuple[int, int]:
        sc = self.sc
        rules = self.rules
        if situation is None:
            situation = rules.situation(m, target, key, use)
        plan = sc.plan(m.group, key, target.group, use, situation)
        dice, seed = self.stream()
        result = sc.ruleset.roll_attack(plan, dice, seed)
        hp, injury, cost = rules.outcome(result)
        m.dealt += hp + injury
        target.taken += hp + injury
        if cost:
            m.hp = max(0, m.hp - cost)
            self.hurt(m)
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
            if reaction:
                event["reaction"] = reaction
            if situation:
                event["situation"] = _situation_dict(situation)
            if injury:
                event["injury_damage"] = injury
            if cost:
                event["cost"] = cost
            event["result"] = _named(detail, rules.request_ids(m, target))
            self.log(event)
        rules.attacked(m, target, key, use, situation, result)
        return hp, injury

    def harm(self, target: Member, hp: int, injury: int) -> None:
        """Damage `target` now (a procedure's: a stray, ER-17), as an attack's damage lands."""
        if target.status == STANDING:
            self._harm(target, hp, injury)

    def _harm(self, target: Member, hp: int, injury: int) -> None:
        """Apply damage; a combatant at 0 is down. Damage to "hp" past 0 goes on to
        "injury" where the combatant has injury points (its procedure's `pools`): `pools`,
        which the compiled loop runs too."""
        if hp + injury <= 0:
            return
        target.hurt_round = self.round
        pooled = target.injury_max is not None
        target.hp, left = pools.after_damage(target.hp, target.injury or 0, pooled, hp, injury)
        if pooled:
            target.injury = left
        if pools.down(pooled, target.hp, left):
            target.status = DOWN
            self.log({"type": "down", "who": target.id})
        else:
            self.rules.harmed(target)
        if target.status == STANDING:
            self.hurt(target)
        else:
            self.fallen(target)
        target.harmed = True
        self.note(target.unit)
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
            self.log({"type": "end", "winner": self.winner,
                      "reason": "one side left standing" if standing_sides else "no one left standing"})

    # -- morale: triggers noted when losses happen, checked when a procedure says ------------

    def note(self, u: int) -> None:
        """Note the morale triggers a loss of unit `u` calls for (the procedure's
        `morale_triggers`); `morale_step` checks them."""
        if not self.sc.has_morale:
            return
        members = [m for m in self.members if m.unit == u]
        standing = [m for m in members if m.status == STANDING]
        killed = sum(1 for m in members if m.status == DOWN)
        view = SideView(self.start[u], self.start[u] - len(standing), standing, self.fired[u], killed)
        for trigger in self.rules.morale_triggers(view):
            self.fired[u].add(trigger)
            self.noted[u].append((trigger, standing[0] if trigger.startswith("lone") and standing else None))

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


def _named(detail: dict[str, Any], ids: dict[str, str]) -> dict[str, Any]:
    """An attack result as the round log shows it: the request's own target ids ("t", a
    bystander's "n0") replaced by the combatants' ids."""
    shown = dict(detail)
    targets = shown.get("targets")
    if isinstance(targets, dict):
        shown["targets"] = {ids.get(tid, tid): entry for tid, entry in targets.items()}
    strikes = []
    for st in shown.get("strikes", []):
        if st.get("target") in ids:
            st = dict(st, target=ids[st["target"]])
        stray = st.get("stray")
        if isinstance(stray, dict) and stray.get("creature") in ids:
            st = dict(st, stray=dict(stray, creature=ids[stray["creature"]]))
        strikes.append(st)
    shown["strikes"] = strikes
    return shown


def _situation_dict(situation: Situation) -> dict[str, Any]:
    """A round log's view of a situation: {"target": {field: value}, "strikes": {i: {...}},
    "request": {...}}."""
    out: dict[str, Any] = {}
    for where, changes in situation:
        fields = {name: thawed(value) for name, value in changes}
        if where in ("target", "request"):
            out.setdefault(where, {}).update(fields)
        else:
            out.setdefault("strikes", {}).setdefault(str(where[1]), {}).update(fields)
    return out
