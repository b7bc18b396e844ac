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
- ER Weapon Negation: a combatant whose tactic has `negate` ("lock" or "disarm"), with
  its skill in `negation`, makes its first melee attack of a turn, while it holds no lock,
  at an armed target (one with a melee strike, not already pinned or disarmed) a weapon
  lock or disarm instead: one random event, resolved as a lock request is, and the feat is
  that turn's attack (its other attacks of the turn are given up). The target reacts when
  it has its reaction left (not defending, not incapacitated, able to act) and the
  scenario gives the competition's attribute (Strength to pull a lock free, Agility to
  resist a disarm, paying the disarm's Body cost). A locked weapon is its wielder's first
  melee strike: it makes no reaction with it (flee attacks, impalement) and at each of its
  turns gives up 2 attack dice of that strike to free it (a 2-die strike: that attack; 3
  or more: it strikes with the rest; 1 die: over two turns); its other strikes are made as
  usual. The locker's hands are busy holding: while the lock holds, its turn is the hold
  (plus its shield-blitz, a d20 of blunt damage to the victim, when its negation has
  `shield_blitz`) and it makes no reaction with its weapon. The lock ends when the weapon
  is freed, when either of the two falls or leaves, or when the locker's own weapon is
  locked or disarmed (a third party's lock frees the first, the text says). A disarmed
  combatant picks its weapon up at its next turn (10 ft of movement and no action, as the
  text says) and attacks as usual; until then it makes no melee reaction.
- ER Throwing Items: a combatant's `throws` are thrown first, one a turn instead of its
  attack (its other attacks of the turn given up), in the order and number listed, at the
  target the driver picked: one random event each, resolved as a throw request is; then
  it fights with its attacks. A locked or locking combatant throws nothing.
"""

from __future__ import annotations

from array import array
from operator import attrgetter
from typing import Any, ClassVar, Literal, Optional

from ..._facts import CANNOT_ATTACK, ER_FLEE_NORMAL, ER_IMPALE_DICE, ER_LOCK_FREE_DICE
from .negation import NEG_WEAPON_REST, free_step
from ..base import Ruleset
from ..fight import DOWN, FLED, STANDING, Field, Member, Procedure, Situation, defined_by, frozen

#: The strike methods that engage in melee (and that a flee attack is made with).
MELEE = ("melee", "savage")
#: A fleeing combatant's move when its tactic gives none (a normal move, ER-20).
FLEE_MOVE = 30
#: ER-23: the compiled loop's numbers per charger and pikeman group (fights.pyx's IMPALE_WIDTH)
IMPALE_WIDTH = 4
#: ER Weapon Negation: the compiled loop's numbers per negator and victim group (fights.pyx's NEG_WIDTH)
NEG_WIDTH = 10


class ErMember(Member):
    __slots__ = ("incapacitated", "reacted", "engaged", "engaged_before", "defending", "no_reactions", "charged",
                 "holding", "pinned_by", "free_left", "disarmed", "spent", "freed_at", "thrown")

    incapacitated: int  # actions it still loses to a failed shock save (ER-13)
    reacted: bool  # its reaction of the round is spent (ER-20 flee attack)
    engaged: set[str]  # whom it exchanged melee strikes with this round (ER-20)
    engaged_before: set[str]  # ... and the round before
    defending: bool  # defends until its next turn (ER-15)
    no_reactions: int  # the last round in which defending leaves it no reaction (ER-15)
    charged: bool  # it has made its charge (ER-23)
    holding: Optional[str]  # the member whose weapon it holds locked (ER Weapon Negation)
    pinned_by: Optional[str]  # the member holding its weapon locked
    free_left: int  # the attack dice it still gives up to free its weapon
    disarmed: bool  # its weapon is on the ground until its next turn
    spent: int  # the round whose turn it spent on a lock, a disarm or a throw (0: none)
    thrown: int  # the items of its `throws` it has thrown (ER Throwing Items)
    freed_at: int  # the round in which it freed its weapon with attack dice to spare


class ErRound(Procedure):
    member = ErMember
    compiled = "enchanted-realms"
    tactics = {
        "flee_move": Field(Optional[int], None, "ER-20", "the feet it moves when it leaves: under 20 a cautious"
                           " move that draws no flee attacks, 20-74 a normal move, 75 or more a rapid move (flee"
                           " attacks of one d20); default 30"),
        "defend_at": Field(Optional[int], None, "ER-15", "defends its turn away at or below this health: no"
                           " attack; attackers it can see are at disadvantage until its next turn; no reactions"
                           " this round and the next"),
        "charge": Field(Optional[int], None, "ER-23", "its first melee attack of the fight is a charge, having"
                        " closed this many feet (from 25 ft a pikeman set against charges may impale it first)"),
        "negate": Field(Optional[Literal["lock", "disarm"]], None, "ER Weapon Negation", "lock or disarm an armed"
                        " target's weapon instead of its melee attack, with the combatant's negation"),
    }
    fields = {
        "nearby": Field(list[str], [], "ER-17", "who stands next to its members (combatant ids or group names), for"
                        " friendly fire: a shot at it that misses may stray into one of them"),
        "impale": Field(Optional[dict[str, Any]], None, "ER-23", "the pole-arm it sets against charges (the impale"
                        " request's weapon)"),
        "negation": Field(Optional[dict[str, Any]], None, "ER Weapon Negation", "its weapon lock or disarm for the"
                          " tactic's negate (the lock request's attacker fields, and shield_blitz)"),
        "throws": Field(list[dict[str, Any]], [], "ER Throwing Items", "the items it throws, one a turn instead of"
                        " its attack, before it fights with its attacks: each a throw request's item, skill, damage,"
                        " bonus, advantage and disadvantage, and its count (default 1)"),
    }
    events = {"shocked": "a failed shock save incapacitates the victim for its next actions (ER-13)",
              "incapacitated": "an incapacitated combatant loses its action this round (ER-13)",
              "defend": "a combatant defends instead of attacking, until its next turn (ER-15)",
              "stray": "a missed shot strays into a combatant next to its target (ER-17)",
              "strays left out": "a target in three-quarters cover with no one named nearby: no shot strays (ER-17)",
              "impalement": "a pikeman impales a charger before its charge (ER-23)",
              "negation": "a weapon lock or disarm instead of a melee attack (ER Weapon Negation)",
              "lock held": "a locker's turn spent holding the lock, with its shield-blitz if it has one",
              "freeing": "a locked weapon's wielder gives up attack dice to free it",
              "freed": "a locked weapon is free again (freed, or its locker fell, left or lost its weapon)",
              "retrieves": "a disarmed combatant picks its weapon up at its turn",
              "throw": "an item or a spell thrown instead of an attack (ER Throwing Items)"}
    #: The strike change of a sneak attack at a victim that has not lost track of the attacker.
    no_sneak: ClassVar[tuple[tuple[str, Any], ...]] = (("sneak", None),)

    @classmethod
    def compiled_for(cls, ruleset: Any) -> bool:
        """The compiled round rolls ER-18 initiative, or calls a variant's own (a ruleset
        deriving from Enchanted Realms with its own `fight_initiative`: `_own_initiative`),
        and deals each attack's total damage."""
        return type(ruleset).fight_outcome is Ruleset.fight_outcome

    @staticmethod
    def _own_initiative(ruleset: Any) -> bool:
        """Whether `ruleset` rolls an initiative of its own rather than ER-18's."""
        return not defined_by(ruleset, "fight_initiative", "fracas.rulesets.er:EnchantedRealms")

    @classmethod
    def compiled_why(cls, sc: Any) -> Optional[str]:
        """The compiled round keeps who engaged whom in melee (ER-20 flee attacks), whom
        each attacked in the prior round (ER-13 sneak attacks) and who defends (ER-15);
        charges and their impalements (ER-23) too, a glaive's heavy property read from a
        copy of the stream (`_impale_tables`), and weapon locks and disarms with the state
        they leave (`_negation_tables`). A grappling target's release feats (ER-21)
        are the last dice of the attack that rolls them and change nothing the round keeps (the log shows them), so
        the compiled loop leaves them unrolled: the next random event has its own stream."""
        return None

    @classmethod
    def _flee_move(cls, g: Any) -> int:
        return FLEE_MOVE if g.spec.tactic.flee_move is None else g.spec.tactic.flee_move

    @classmethod
    def _draws_flee_attacks(cls, g: Any) -> bool:
        """ER-20: a member of `g` leaving at its flee_at draws flee attacks (a normal or rapid
        move, not defending: ER-15)."""
        return (g.spec.tactic.flee_at is not None and cls._flee_move(g) >= ER_FLEE_NORMAL
                and "defending" not in (g.spec.target.get("conditions") or ()))

    @classmethod
    def compiled_tables(cls, sc: Any, tables: dict[str, Any]) -> Optional[str]:
        """ER-20 for the compiled loop: per group whether its leaving draws flee attacks
        (`leave_draws`) and whether its turn's attack engages its target in melee
        (`engages`: a melee or savage strike among them). ER-17: per group whether its
        turn's attack has a ranged strike (`shoots`), who may stand next to its members
        (`by_off`, `by_list`: the members its `nearby` names, in member order), and what a
        stray into one of its members meets: AC by damage type with cover (`stray_ac`),
        resistance by damage type (`stray_resist`), full cover, paralyzed, petrified
        (`stray_cond` bits 1, 2, 4)."""
        from ...requests import convert_mapping
        from ..._facts import COVER_AC, DAMAGE_TYPES
        from .plan import resistance_state
        from .schema import Target

        def attack_has(g: Any, methods: tuple[str, ...]) -> int:
            return 1 if any(g.spec.attacks[i].get("method") in methods for i in g.phases.get("attack", ())) else 0

        if cls._own_initiative(sc.ruleset):  # called each round; a slot holds one combatant
            tables["init_call"] = cls.initiative_call(sc, alone=True)  # (ER-13's lost action is per slot)
        sneaky = [1 if cls._sneak_strikes(g, g.phases.get("attack")) else 0 for g in sc.groups]
        specs = [sc.groups[g].spec for g in sc.member_group]
        tables.update(defend_at=array("q", [-1 if spec.tactic.defend_at is None else spec.tactic.defend_at
                                            for spec in specs]),  # -1: never (a standing member has hp)
                      can_defend=array("q", [0 if g.spec.tactic.defend_at is None else 1 for g in sc.groups]))
        tables.update(leave_draws=array("q", [1 if cls._draws_flee_attacks(g) else 0 for g in sc.groups]),
                      engages=array("q", [attack_has(g, MELEE) for g in sc.groups]),
                      sneaks=any(sneaky), sneaky=array("q", sneaky))
        cls._shock_tables(sc, tables)
        why = cls._throw_tables(sc, tables) or cls._impale_tables(sc, tables) or cls._negation_tables(sc, tables)
        if why is not None:
            return why
        if not any(g.spec.nearby for g in sc.groups):
            return None
        by_off, by_list = array("q", [0]), array("q")
        for g in sc.groups:
            by_list.extend(cls._by_candidates(sc, g))
            by_off.append(len(by_list))
        ac, resist, cond = array("q"), array("q"), array("q")
        for g in sc.groups:
            spec = convert_mapping({"t": g.spec.target}, Target, f"{g.path}.target")["t"]
            for dtype in DAMAGE_TYPES:
                ac.append(spec.ac_by_type.get(dtype, spec.ac) + COVER_AC[spec.cover])
                resist.append(resistance_state(spec, dtype))
            cond.append((1 if spec.cover == "full" else 0) | (2 if "paralyzed" in spec.conditions else 0)
                        | (4 if "petrified" in spec.conditions else 0))
        tables.update(strays=True, shoots=array("q", [attack_has(g, ("range",)) for g in sc.groups]),
                      by_off=by_off, by_list=by_list, stray_ac=ac, stray_resist=resist, stray_cond=cond)
        return None

    #: Thrown items the compiled loop lays out at most (one table row per item, target group).
    COMPILED_THROWS: ClassVar[int] = 20_000

    @classmethod
    def _throw_tables(cls, sc: Any, tables: dict[str, Any]) -> Optional[str]:
        """ER Throwing Items for the compiled loop: per group its items, one per throw in the
        order thrown (`throw_off`, `throw_n`), and per item and target group the throw as
        the throw kind compiles it (`throw_plan`, 8 numbers: counted d20s, added to each,
        the AC, whether the highest is dropped, the damage dice, their faces, the flat
        bonus, the resistance); None, or why the loop cannot lay them out."""
        from ...errors import RequestError
        from .throw import ThrowPlan

        off, count, table = array("q"), array("q"), array("q")
        items = 0
        for g in sc.groups:
            off.append(items)
            count.append(_item_count(g.spec.throws))
            items += count[-1]
        if not items:
            return None
        if items * len(sc.groups) > cls.COMPILED_THROWS:
            return f"more than {cls.COMPILED_THROWS} thrown items by target group to lay out"
        kind = sc.ruleset.kind("throw")
        for g in sc.groups:
            for k in range(count[g.index]):
                item = _item(g.spec.throws, k)
                for t in sc.groups:
                    if t.side == g.side:
                        table.extend([0] * 8)
                        continue
                    try:
                        plan = kind.compile(_throw_request(g.spec, item, "t", t.spec.target))
                    except RequestError as exc:  # thrown at it on the Python loop, the same error
                        return f"{g.path}.throws: at {t.path}: {exc.path}: {exc.reason}"
                    assert isinstance(plan, ThrowPlan)
                    dcount, faces, flat, _dtype, _note = plan.damage
                    table.extend((plan.n, plan.to_hit, plan.ac, 1 if plan.disadvantage else 0, dcount,
                                  faces if dcount else 0, flat, plan.resistance))
        tables.update(throw_off=off, throw_n=count, throw_plan=table)
        return None

    @classmethod
    def _impale_tables(cls, sc: Any, tables: dict[str, Any]) -> Optional[str]:
        """ER-23 for the compiled loop: per group the feet its charge closes (`charge`, -1:
        it makes none, or its attack has no melee strike to charge with), and per charger
        and pikeman group (`impale_at`, where a group charges, IMPALE_WIDTH numbers: first
        row and rows in `impale_rows`, -1 none; a glaive's impalement at disadvantage, its
        heavy property: first row, -1 not a glaive; its skill dice, which the loop reads
        from a copy of the stream as `impale.skill_faces` does) the impalement as the
        impale kind compiles it, set against a charge of 25 ft or more; None, or why the
        loop cannot lay them out."""
        from ... import _layout as L
        from ...errors import RequestError
        from .impale import ImpalePlan

        n = len(sc.groups)
        charge = array("q", [-1] * n)
        at, rows = array("q", [-1, 0, -1, 0] * n * n), array("i")
        kind = sc.ruleset.kind("impale")
        for c in sc.groups:
            feet = c.spec.tactic.charge
            if feet is None or not any(c.spec.attacks[i].get("method") in MELEE for i in c.phases.get("attack", ())):
                continue
            charge[c.index] = feet
            for pike in sc.groups:
                if pike.side == c.side or pike.spec.impale is None or feet < 25:
                    continue
                try:
                    plan = kind.compile({"pikeman": pike.spec.attacker, "weapon": pike.spec.impale,
                                         "charger": dict(c.spec.target, id="c", body=1, closed=feet)})
                except RequestError as exc:  # impaled on the Python loop, the same error
                    return f"{pike.path}.impale: at {c.path}: {exc.path}: {exc.reason}"
                assert isinstance(plan, ImpalePlan)
                k = IMPALE_WIDTH * (c.index * n + pike.index)
                at[k], at[k + 1] = len(rows) // L.PLAN_WIDTH, len(plan.impalement.metas)
                rows.extend(plan.impalement.plan)
                if plan.heavy is not None:  # a glaive: the same strike at disadvantage
                    assert len(plan.heavy.metas) == len(plan.impalement.metas)
                    at[k + 2], at[k + 3] = len(rows) // L.PLAN_WIDTH, ER_IMPALE_DICE[plan.request.weapon.forte]
                    rows.extend(plan.heavy.plan)
        if any(feet >= 0 for feet in charge):
            tables.update(charge=charge, impale_at=at, impale_rows=rows)
        return None

    @classmethod
    def _pinnable(cls, sc: Any, g: Any) -> bool:
        """ER Weapon Negation: a member of `g` may have its weapon locked, which changes its
        turn's attack (the weapon's strike left out, or made with fewer dice the turn it is
        freed): it has a weapon in its attack and an enemy group locks."""
        weapon = cls._weapon(g.spec)
        return (weapon is not None and weapon in g.phases.get("attack", ())
                and any(e.side != g.side and e.spec.tactic.negate == "lock" for e in sc.groups))

    @staticmethod
    def _weapon(spec: Any) -> Optional[int]:
        """The weapon of a combatant of `spec`: its first melee strike (None: it has none)."""
        return next((i for i, a in enumerate(spec.attacks) if a.get("method") == "melee"), None)

    @classmethod
    def _negation_tables(cls, sc: Any, tables: dict[str, Any]) -> Optional[str]:
        """ER Weapon Negation for the compiled loop: per group its tactic's `negate` (0 none, 1
        lock, 2 disarm), its shield-blitz, its weapon (`_armed`: -1 none) and the weapon's
        dice, what its attack holds (`neg_melee` bits: 1 a melee strike, 2 one besides the
        weapon, 4 a melee or savage strike besides it, 8 the weapon alone), whether its
        attack's variants come in three blocks (`_pinnable`: as usual, the weapon left out,
        the weapon with the dice its freeing left); and per negator and victim group
        (`neg_table`, NEG_WIDTH numbers) the lock request as the lock kind compiles it: the
        feat's keep, total and AC, whether the victim may react at all (the competition's
        attribute given, no condition that stops it), the victim's and the negator's keep
        and total in the competition, a disarm's Body cost after resistance, and the
        shield-blitz's resistance. None, or why the loop cannot lay them out."""
        from ...errors import RequestError
        from ..._facts import ER_DISARM_COST
        from .followups import resist
        from .feats import keep_code
        from .lock import LockPlan

        groups = sc.groups
        n = len(groups)
        if not any(g.spec.tactic.negate for g in groups):
            return None
        mode, blitz, weapon, dice, melee, blocks = (array("q", [0] * n) for _ in range(6))
        table = array("q", [0] * NEG_WIDTH * n * n)
        for g in groups:
            mode[g.index] = {None: 0, "lock": 1, "disarm": 2}[g.spec.tactic.negate]
            blitz[g.index] = 1 if (g.spec.negation or {}).get("shield_blitz") else 0
            w = cls._weapon(g.spec)
            weapon[g.index] = -1 if w is None else w
            dice[g.index] = 0 if w is None else int(g.spec.attacks[w].get("dice", 1))
            use = tuple(g.phases.get("attack", ()))
            rest = [g.spec.attacks[i].get("method") for i in use if i != w]
            melee[g.index] = ((1 if any(g.spec.attacks[i].get("method") == "melee" for i in use) else 0)
                              | (2 if "melee" in rest else 0) | (4 if any(m in MELEE for m in rest) else 0)
                              | (8 if w is not None and use == (w,) else 0))
            blocks[g.index] = 3 if cls._pinnable(sc, g) else 1
        kind = sc.ruleset.kind("lock")
        for g in groups:
            if not mode[g.index]:
                continue
            how = g.spec.tactic.negate
            attribute = "strength" if how == "lock" else "agility"
            for t in groups:
                if t.side == g.side or weapon[t.index] < 0:
                    continue
                reacts = cls._knows(t.spec, attribute) and not set(cls._conditions_of(t.spec)) & set(CANNOT_ATTACK)
                conditions = cls._conditions_of(g.spec), cls._conditions_of(t.spec)
                try:
                    plan = kind.compile(cls._lock_request(g.spec, "a", t.spec, "v", how, reacts, *conditions))
                    res = (kind.compile(cls._lock_request(g.spec, "a", t.spec, "v", "blitz", False, *conditions))
                           if blitz[g.index] and how == "lock" else None)
                except RequestError as exc:  # negated on the Python loop, the same error
                    return f"{g.path}.negation: at {t.path}: {exc.path}: {exc.reason}"
                assert isinstance(plan, LockPlan) and (res is None or isinstance(res, LockPlan))
                k = NEG_WIDTH * (g.index * n + t.index)
                table[k:k + 4] = array("q", [keep_code(plan.feat), plan.feat_total, plan.request.victim.ac or 0,
                                             1 if reacts else 0])
                if plan.sides is not None:
                    table[k + 4:k + 8] = array("q", [keep_code(plan.sides[0][2]), plan.totals[0],
                                                     keep_code(plan.sides[1][2]), plan.totals[1]])
                if how == "disarm":
                    table[k + 8] = resist(ER_DISARM_COST[plan.request.attacker.weapon], plan.resistance)
                table[k + 9] = res.resistance if res is not None else 0
        tables.update(negates=True, neg_mode=mode, neg_blitz=blitz, neg_weapon=weapon, neg_dice=dice,
                      neg_melee=melee, neg_blocks=blocks, neg_table=table)
        return None

    @staticmethod
    def _conditions_of(spec: Any) -> list[str]:
        """A combatant's conditions (`spec`'s): its attacker's, then its target's others."""
        own = list(spec.attacker.get("conditions") or [])
        return own + [c for c in spec.target.get("conditions") or [] if c not in own]

    @staticmethod
    def _knows(spec: Any, attribute: str) -> bool:
        """Whether a combatant of `spec` has the attribute (its score or modifier)."""
        return spec.attacker.get(attribute) is not None or spec.attacker.get(f"{attribute}_mod") is not None

    @classmethod
    def _shock_tables(cls, sc: Any, tables: dict[str, Any]) -> None:
        """ER-13 shock for the compiled loop: per group its maximum Body (-1: none, never
        shocked) and its shock save as `attack._shock_save` rolls it with its own conditions
        (ER-12/ER-14), then the same defending (ER-15): `shock.shock_roll`'s how, keep and
        added (`attack.shock_save_how`). `shock`: a sneak strike may meet a target with
        maximum Body (the sneak strikes' rows carry bit 4 in `compiled_row_info`)."""
        from ...requests import convert_mapping
        from .attack import shock_save_how
        from .feats import situation
        from .schema import Target

        body, save = array("q"), array("q")
        for g in sc.groups:
            spec = convert_mapping({"t": g.spec.target}, Target, f"{g.path}.target")["t"]
            body.append(-1 if spec.body_max is None else spec.body_max)
            for conditions in (spec.conditions, [*spec.conditions, "defending"]):  # ER-15: saves at advantage
                save.extend(shock_save_how(situation(conditions, "save"), spec.save_bonus))
        shock = any(tables["sneaky"][g.index] and any(body[t.index] >= 0 for t in sc.groups if t.side != g.side)
                    for g in sc.groups)
        tables.update(shock=shock, shock_body=body, shock_save=save)

    @classmethod
    def _by_candidates(cls, sc: Any, g: Any) -> list[int]:
        """ER-17: the members `g`'s nearby names (its bystanders are the first 8 of them standing)."""
        names = set(g.spec.nearby)
        return [e for e, (mid, eg) in enumerate(zip(sc.member_ids, sc.member_group))
                if names and (mid in names or sc.groups[eg].spec.name in names)]

    @classmethod
    def compiled_variants(cls, sc: Any, g: Any, key: str, use: Optional[tuple[int, ...]], t: Any,
                          tables: dict[str, Any]) -> list[tuple[Optional[tuple[int, ...]], Situation]]:
        """ER-17: a ranged attack at a target with someone standing next to it (variant 1):
        the request with bystanders, whose rows are those of any bystanders (the compiled
        loop rolls the strays into the ones standing); variant 0: no one there. ER-13: an
        attack with sneak strikes has twice as many, the second half without the sneak dice
        (at a victim that fought the attacker in the prior round: `situation`), after ER-15's
        doubling at a target that may defend, the second half at it defending. The compiled
        loop's index: stray + 2 × defending + (4 or 2) × no sneak dice."""
        found: list[Situation] = [(), ()]
        if key != "spell" and use is not None and tables.get("strays") and t.spec.nearby and any(
                g.spec.attacks[i].get("method") == "range" for i in use):
            near = [e for e in cls._by_candidates(sc, t) if sc.member_group[e] != t.index or t.spec.count > 1]
            if near:
                targets = {"t": dict(t.spec.target, nearby=["n0"]),
                           "n0": dict(sc.groups[sc.member_group[near[0]]].spec.target)}
                found[1] = (("request", (("targets", frozen(targets)),)),)
        plain = len(found)
        if t.spec.tactic.defend_at is not None:
            found += [situation + cls._defending(t) for situation in found]
        sneaks = cls._sneak_strikes(g, use) if key != "spell" else ()
        if sneaks:
            no_sneak = tuple((("strike", i), cls.no_sneak) for i in sneaks)
            watched = cls._watches(g, t)  # at it defending: no sneak dice, fought or not
            found = ([s + no_sneak if watched and k >= plain else s for k, s in enumerate(found)]
                     + [s + no_sneak for s in found])
        out = [(use, situation) for situation in found]
        if key == "spell" or use is None or not tables.get("negates") or tables["neg_blocks"][g.index] == 1:
            return out
        # ER Weapon Negation: the weapon locked (its strike left out: `_free`), then the turn
        # it is freed with dice left (`_freeing_dice`: the strike made with 2 dice fewer)
        weapon = tables["neg_weapon"][g.index]
        left = tuple(i for i in use if i != weapon) or None
        out += [(left, tuple(c for c in s if c[0] != ("strike", weapon)) if left else ()) for s in found]
        dice = tables["neg_dice"][g.index]
        freeing: Situation = ((("strike", weapon), (("dice", dice - ER_LOCK_FREE_DICE),)),)
        out += [(use, s + freeing if dice > ER_LOCK_FREE_DICE else s) for s in found]
        return out

    @staticmethod
    def _defending(t: Any) -> Situation:
        """ER-15: the situation of an attack at a defending member of group `t`: the target
        condition `defending` (nothing to add where its conditions have it already)."""
        conditions = t.spec.target.get("conditions") or []
        return () if "defending" in conditions else (("target", (("conditions", (*conditions, "defending")),)),)

    @staticmethod
    def _watches(g: Any, t: Any) -> bool:
        """ER-13 with ER-15: a defending member of group `t` watches its attackers of group
        `g` when it can see them (`defender_sees`); "a sneak attack cannot be made at
        disadvantage", which its defending gives, so the decision: their sneak strikes at it
        are made without their sneak dice, as at a victim that has not lost track of them."""
        from .plan import defender_sees

        return defender_sees(t.spec.target.get("conditions") or [],
                             frozenset(g.spec.attacker.get("conditions") or ()))

    @staticmethod
    def _sneak_strikes(g: Any, use: Optional[tuple[int, ...]]) -> tuple[int, ...]:
        """ER-13: the sneak strikes among `use`."""
        return tuple(i for i in use or () if g.spec.attacks[i].get("sneak"))

    @classmethod
    def compiled_row_info(cls, plan: Any) -> list[int]:
        """ER-17 per strike row: flags (1 a shot under the friendly-fire rule, 2 at a target
        behind full cover; ER-13: 4 a sneak strike, whose damage may shock) and its crit
        threshold (0: none)."""
        return [x for meta in plan.metas
                for x in ((1 if meta.friendly_fire else 0) | (2 if meta.full_cover else 0)
                          | (4 if meta.sneak is not False else 0), meta.crit_range or 0)]

    @classmethod
    def compiled_reaction(cls, sc: Any, g: Any) -> Optional[tuple[str, tuple[int, ...]]]:
        """ER-20: its flee attack, its first melee or savage strike (none when it has none,
        or when it is defending: ER-15 "removes all reactions")."""
        strike = next((i for i, a in enumerate(g.spec.attacks) if a.get("method") in MELEE), None)
        if strike is None or "defending" in (g.spec.attacker.get("conditions") or ()):
            return None
        return "attack", (strike,)

    @classmethod
    def compiled_reaction_variants(cls, sc: Any, g: Any, key: str, use: tuple[int, ...], t: Any,
                                   tables: dict[str, Any]) -> list[tuple[Optional[tuple[int, ...]], Situation]]:
        """ER-20: a flee attack at a member of `t`, which moved its flee_move (harmed's situation)."""
        if not cls._draws_flee_attacks(t):
            return [(None, ())]
        situation: Situation = (("request", (("flee", (("moved", cls._flee_move(t)),)),)),)
        situation += tuple((("strike", i), cls.no_sneak) for i in cls._sneak_strikes(g, use))  # never a sneak
        return [(use, situation)]

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

        if not isinstance(plan, AttackPlan) or plan.defense:
            return "has defense rolls"
        return None

    # -- a member --------------------------------------------------------------------------

    def __init__(self, fight: Any) -> None:
        super().__init__(fight)
        #: (attacker, target) → the bystanders of the attack being made (ER-17)
        self._near: dict[tuple[int, int], list[Member]] = {}
        #: groups whose missing `nearby` the log has said (once a fight)
        self._unlisted: set[int] = set()
        #: members by id (weapon negation names the locker and its victim by id)
        self._by_id: dict[str, Member] = {}

    def start(self, m: Member) -> None:
        assert isinstance(m, ErMember)
        m.incapacitated = 0
        m.reacted = False
        m.engaged, m.engaged_before = set(), set()
        m.defending, m.no_reactions = False, 0
        m.charged = False
        m.holding = m.pinned_by = None
        m.free_left = 0
        m.disarmed = False
        m.spent = m.freed_at = m.thrown = 0

    def saved(self, m: Member) -> dict[str, Any]:
        """ER-13: the actions a failed shock save still costs, and whom it fought last round
        (ER-20: whom it was engaged with in melee)."""
        assert isinstance(m, ErMember)
        return {"incapacitated": m.incapacitated, "attacked": list(m.attacking), "engaged": sorted(m.engaged),
                "defending": m.defending, "no_reactions_until": m.no_reactions, "charged": m.charged,
                "holding": m.holding, "pinned_by": m.pinned_by, "free_left": m.free_left, "disarmed": m.disarmed,
                "spent": m.spent, "freed_at": m.freed_at, "thrown": m.thrown}

    def load(self, m: Member, saved: dict[str, Any]) -> None:
        assert isinstance(m, ErMember)
        m.incapacitated = int(saved.get("incapacitated", 0))
        m.attacking = list(saved.get("attacked", m.attacking))
        m.engaged = set(saved.get("engaged", ()))
        m.defending = bool(saved.get("defending", False))
        m.no_reactions = int(saved.get("no_reactions_until", 0))
        m.charged = bool(saved.get("charged", False))
        m.holding, m.pinned_by = saved.get("holding"), saved.get("pinned_by")
        m.free_left = int(saved.get("free_left", 0))
        m.disarmed = bool(saved.get("disarmed", False))
        m.spent = int(saved.get("spent", 0))
        m.thrown = int(saved.get("thrown", 0))
        m.freed_at = int(saved.get("freed_at", 0))

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
        """ER-15: at its `defend_at`, the combatant defends its turn away; ER Weapon
        Negation: a locker's turn is its hold, a locked weapon's wielder frees it, a
        disarmed one picks its weapon up (module docstring)."""
        assert isinstance(m, ErMember)
        g = self.sc.groups[m.group]
        if m.disarmed:
            m.disarmed = False
            self.fight.log({"type": "retrieves", "who": m.id, "rule": "ER Weapon Negation",
                            "note": "picks its weapon up: 10 ft of movement, no action"})
        if self._holds(m) is not None and not casting:
            self._hold(m)
            return {}
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
        if self._pinned(m) is not None and not casting:
            return self._free(m, phases)
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
        cls._check_negation(ruleset, spec, path)
        cls._check_throws(ruleset, spec, path)

    @classmethod
    def _check_throws(cls, ruleset: Any, spec: Any, path: str) -> None:
        """ER Throwing Items: each of `throws` is a throw request's item fields and a count
        (1-100), checked as a throw by the combatant at an AC 10 target (its errors name
        `throws[i]`, or `attacker` for the thrower's own fields)."""
        from ...errors import RequestError, SchemaError

        for i, entry in enumerate(spec.throws):
            where = f"{path}.throws[{i}]"
            if not isinstance(entry, dict):
                raise SchemaError(where, "a thrown item is an object: item, skill, damage ..., count")
            count = entry.get("count", 1)
            if type(count) is not int or not 1 <= count <= 100:
                raise SchemaError(f"{where}.count", f"a count of 1 to 100 items, not {count!r}")
            for name in ("thrower", "target", "seed", "rolls", "ruleset"):
                if name in entry:
                    raise SchemaError(f"{where}.{name}", f"{name} comes from the scenario, not from the item")
            item = {n: v for n, v in entry.items() if n != "count"}
            try:
                ruleset.kind("throw").compile(_throw_request(spec, item, "target", {"ac": 10}))
            except RequestError as exc:
                sub = exc.path.removeprefix("$")
                moved = (f"{path}.attacker{sub.removeprefix('.thrower')}" if sub.startswith(".thrower")
                         else f"{where}{sub}")
                raise type(exc)(moved, exc.reason) from None

    @classmethod
    def check_scenario(cls, sc: Any) -> None:
        """ER-17: each `nearby` name is a combatant or a group of the scenario."""
        from ...errors import SchemaError

        names = set(sc.member_ids) | {g.spec.name for g in sc.groups}
        for g in sc.groups:
            for j, other in enumerate(g.spec.nearby):
                if other not in names:
                    raise SchemaError(f"{g.path}.nearby[{j}]", f"no combatant or group is named {other!r}")

    @classmethod
    def _check_negation(cls, ruleset: Any, spec: Any, path: str) -> None:
        """ER Weapon Negation: `tactic.negate` needs the combatant's `negation`, checked as a
        lock request's attacker (its errors name `negation`, or `attacker` for its scores)."""
        from ...errors import RequestError, RulesError, SchemaError

        mode = spec.tactic.negate
        if spec.negation is None:
            if mode is not None:
                raise RulesError(f"{path}.negation", f"tactic.negate {mode!r} needs the combatant's negation: its"
                                 " weapon lock or disarm (to_hit, weapon, damage_type ...; ER Weapon Negation)")
            return
        if not isinstance(spec.negation.get("shield_blitz", False), bool):
            raise SchemaError(f"{path}.negation.shield_blitz", "shield_blitz is true or false")
        if "id" in spec.negation or "conditions" in spec.negation:
            name = "id" if "id" in spec.negation else "conditions"
            raise SchemaError(f"{path}.negation.{name}", f"the combatant's {name} comes from the scenario, not from"
                              " its negation")
        attribute = "strength" if mode in (None, "lock") else "agility"
        vspec = type(spec)(name="victim", hp=1, attacker={attribute: 10}, target={"ac": 10})
        request = cls._lock_request(spec, "a", vspec, "v", mode or "lock", True, cls._conditions_of(spec), [])
        try:
            ruleset.kind("lock").compile(request)
        except RequestError as exc:
            field = exc.path.removeprefix("$.attacker")
            own = field.lstrip(".").split(".")[0].split("[")[0]
            if own == "conditions":  # ER-14: a condition of its own (its attacker's or its target's) stops it
                side = "attacker" if set(spec.attacker.get("conditions") or ()) & set(CANNOT_ATTACK) else "target"
                where = f"{path}.{side}.conditions"
            else:
                where = (f"{path}.attacker{field}" if own in ("strength", "agility", "strength_mod", "agility_mod")
                         else f"{path}.negation{field}" if exc.path.startswith("$.attacker") else path)
            raise type(exc)(where, exc.reason) from None

    def before_attack(self, m: Member, target: Member, key: str, use: Optional[tuple[int, ...]]) -> bool:
        """ER-23 a charge's impalement, then ER Weapon Negation: a lock or disarm made
        instead of the turn's melee attack (the turn's other attacks given up)."""
        assert isinstance(m, ErMember) and isinstance(target, ErMember)
        if key != "spell" and m.spent == self.fight.round:
            return False  # the feat or the throw was this turn's attack
        if not self._charge(m, target, key, use) or m.status != STANDING:
            return False  # a void charge, or an impalement that sent the charger off (ER-23): no throw either
        return not (self._throws(m, target, key, use) or self._negates(m, target, key, use))

    def _charge(self, m: ErMember, target: ErMember, key: str, use: Optional[tuple[int, ...]]) -> bool:
        """ER-23: a charger's first melee attack, at a pikeman set against charges: the
        impalement comes first, and voids the charge when it incapacitates the charger."""
        charge = self.sc.groups[m.group].spec.tactic.charge
        if charge is None or m.charged or key == "spell" or use is None:
            return True
        attacks = self.sc.groups[m.group].spec.attacks
        if not any(attacks[i].get("method") in MELEE for i in use):
            return True
        m.charged = True
        weapon = self.sc.groups[target.group].spec.impale
        if (weapon is None or charge < 25 or not self._can_react(target) or self._weapon_busy(target)):
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

    # -- thrown items (ER Throwing Items) -----------------------------------------------------

    def _throws(self, m: ErMember, target: ErMember, key: str, use: Optional[tuple[int, ...]]) -> bool:
        """Its next item thrown at `target` instead of this turn's attack (True: it was)."""
        spec = self.sc.groups[m.group].spec
        if key == "spell" or use is None or m.thrown >= _item_count(spec.throws):
            return False
        if self._holds(m) is not None or self._pinned(m) is not None:
            return False  # its hands hold a lock or its weapon is pinned: no throwing
        m.spent = self.fight.round
        item = _item(spec.throws, m.thrown)
        m.thrown += 1
        kind = self.sc.ruleset.kind("throw")
        plan = kind.compile(_throw_request(spec, item, target.id, self.sc.groups[target.group].spec.target))
        dice, seed = self.fight.stream()
        assert kind.roll is not None  # a rolled kind
        result: dict[str, Any] = kind.roll(plan, dice, seed).to_dict()
        damage = (result.get("damage") or {}).get("damage", 0) if result["hit"] else 0
        if target.id not in m.attacking:
            m.attacking.append(target.id)
        self.fight.log({"type": "throw", "who": m.id, "target": target.id, "item": result["item"], "hit": result["hit"],
                        "damage": damage, "seed": seed, "rule": "ER Throwing Items", "result": result})
        if damage:
            m.dealt += damage
            target.taken += damage
            self.fight.harm(target, damage, 0)
        return True

    # -- weapon negation (ER Weapon Negation) ---------------------------------------------

    def _member(self, id_: str) -> ErMember:
        found = self._by_id.get(id_)
        if found is None:
            self._by_id = {e.id: e for e in self.fight.members}
            found = self._by_id[id_]
        assert isinstance(found, ErMember)
        return found

    def _can_react(self, m: ErMember) -> bool:
        """Its reaction of the round is left: not spent, not incapacitated (ER-13), not
        taken away by defending (ER-15)."""
        return not (m.reacted or m.incapacitated or m.defending or m.no_reactions >= self.fight.round)

    def _holds(self, m: ErMember) -> Optional[ErMember]:
        """The victim whose weapon `m` holds locked, while the lock lasts."""
        if m.holding is None:
            return None
        v = self._member(m.holding)
        if m.status == STANDING and v.status == STANDING and v.pinned_by == m.id:
            return v
        m.holding = None
        return None

    def _pinned(self, m: ErMember) -> Optional[ErMember]:
        """The locker holding `m`'s weapon, while the lock lasts (else the lock is over:
        its locker fell, left or lost its own weapon, and the log says so)."""
        if m.pinned_by is None:
            return None
        locker = self._member(m.pinned_by)
        if m.status == STANDING and locker.status == STANDING and locker.holding == m.id:
            return locker
        m.pinned_by, m.free_left = None, 0
        if m.status == STANDING:
            self.fight.log({"type": "freed", "who": m.id, "by": locker.id, "rule": "ER Weapon Negation",
                            "why": "its locker no longer holds the lock"})
        return None

    def _weapon_busy(self, m: ErMember) -> bool:
        """Its melee weapon is locked, held in a lock, or on the ground: no reaction with it."""
        return m.disarmed or self._pinned(m) is not None or self._holds(m) is not None

    def _armed(self, m: ErMember) -> Optional[int]:
        """Its weapon: its first melee strike (None: it has none)."""
        return self._weapon(self.sc.groups[m.group].spec)

    def _hold(self, m: ErMember) -> None:
        """A locker's turn: the hold, and its shield-blitz if it has one."""
        victim = self._holds(m)
        assert victim is not None
        negation = self.sc.groups[m.group].spec.negation or {}
        fight = self.fight
        if not negation.get("shield_blitz"):
            fight.log({"type": "lock held", "who": m.id, "target": victim.id, "rule": "ER Weapon Negation"})
            return
        result = self._lock(m, victim, "blitz")
        damage = result["blitz"]["damage"]
        fight.log({"type": "lock held", "who": m.id, "target": victim.id, "damage": damage, "rule": "ER Weapon Negation",
                   "result": result})
        if damage:
            m.dealt += damage
            victim.taken += damage
            fight.harm(victim, damage, 0)

    def _free(self, m: ErMember, phases: dict[str, list[int]]) -> dict[str, list[int]]:
        """A locked weapon's wielder gives up attack dice of the weapon's strike (2 in all)."""
        locker = self._pinned(m)
        assert locker is not None
        weapon = self._armed(m)
        if weapon is None:  # nothing left to free (a scenario's weapon cannot vanish; kept safe)
            return phases
        dice = int(self.sc.groups[m.group].spec.attacks[weapon].get("dice", 1))
        spent = [0]
        now = free_step(m.free_left, dice, spent)
        paid = spent[0]
        m.free_left -= paid
        event: dict[str, Any] = {"type": "freeing", "who": m.id, "by": locker.id, "dice": paid,
                                 "left": m.free_left, "rule": "ER Weapon Negation"}
        if m.free_left == 0:
            m.pinned_by = None
            locker.holding = None
            event["type"] = "freed"
        self.fight.log(event)
        if now == NEG_WEAPON_REST:
            m.freed_at = self.fight.round  # its weapon strikes this turn with the dice left
            return phases
        return {phase: [i for i in use if i != weapon] for phase, use in phases.items() if use != [weapon]}

    def _freeing_dice(self, m: ErMember, use: tuple[int, ...]) -> Situation:
        """The dice left to the weapon's strike in the turn its wielder freed it."""
        if m.freed_at != self.fight.round:
            return ()
        weapon = self._armed(m)
        if weapon is None or weapon not in use:
            return ()
        dice = int(self.sc.groups[m.group].spec.attacks[weapon].get("dice", 1))
        return ((("strike", weapon), (("dice", dice - ER_LOCK_FREE_DICE),)),)

    def _negates(self, m: ErMember, target: ErMember, key: str, use: Optional[tuple[int, ...]]) -> bool:
        """Its weapon lock or disarm, made instead of this melee attack (True: it was)."""
        mode = self.sc.groups[m.group].spec.tactic.negate
        if mode is None or key == "spell" or use is None or self._holds(m) is not None or m.disarmed:
            return False
        attacks = self.sc.groups[m.group].spec.attacks
        if (not any(attacks[i].get("method") == "melee" for i in use) or self._armed(target) is None
                or self._pinned(target) is not None or target.disarmed):
            return False
        m.spent = self.fight.round
        attribute = "strength" if mode == "lock" else "agility"
        reacts = (self._can_react(target) and not self._weapon_busy(target)
                  and self._attribute_known(target, attribute)
                  and not set(self._conditions(target)) & set(CANNOT_ATTACK))
        if reacts:
            target.reacted = True
        result = self._lock(m, target, mode, reacts)
        outcome = result["outcome"]
        fight = self.fight
        event: dict[str, Any] = {"type": "negation", "who": m.id, "target": target.id, "mode": mode,
                                 "outcome": outcome, "rule": "ER Weapon Negation", "result": result}
        reaction = result.get("reaction") or {}
        cost = (reaction.get("body_cost") or {}).get("points", 0)
        if cost:
            event["damage"] = cost
        fight.log(event)
        if outcome == "locked":
            self._release(target)
            m.holding, target.pinned_by, target.free_left = target.id, m.id, ER_LOCK_FREE_DICE
        elif outcome == "disarmed":
            self._release(target)
            target.disarmed = True
        if cost:
            m.dealt += cost
            target.taken += cost
            fight.harm(target, cost, 0)
        return True

    def _release(self, m: ErMember) -> None:
        """A locker whose own weapon is locked or disarmed lets its lock go."""
        victim = self._holds(m)
        if victim is not None:
            m.holding = None
            victim.pinned_by, victim.free_left = None, 0
            self.fight.log({"type": "freed", "who": victim.id, "by": m.id, "rule": "ER Weapon Negation",
                            "why": "its locker's own weapon was locked or disarmed"})

    def _conditions(self, m: ErMember) -> list[str]:
        return self._conditions_of(self.sc.groups[m.group].spec)

    def _attribute_known(self, m: ErMember, attribute: str) -> bool:
        return self._knows(self.sc.groups[m.group].spec, attribute)

    def _lock(self, m: ErMember, victim: ErMember, mode: str, reacts: bool = False) -> dict[str, Any]:
        """One lock request (a random event): `m`'s negation at `victim`."""
        kind = self.sc.ruleset.kind("lock")
        dice, seed = self.fight.stream()
        plan = kind.compile(self._lock_request(self.sc.groups[m.group].spec, m.id,
                                               self.sc.groups[victim.group].spec, victim.id, mode, reacts,
                                               self._conditions(m), self._conditions(victim)))
        assert kind.roll is not None  # a rolled kind
        result: dict[str, Any] = kind.roll(plan, dice, seed).to_dict()
        return result

    @staticmethod
    def _lock_request(spec: Any, id_: str, vspec: Any, vid: str, mode: str, reacts: bool,
                      conditions: list[str], vconditions: list[str]) -> dict[str, Any]:
        negation = {k: v for k, v in (spec.negation or {}).items() if k != "shield_blitz"}
        attacker = {k: spec.attacker[k] for k in ("strength", "agility", "strength_mod", "agility_mod")
                    if spec.attacker.get(k) is not None}
        victim = {k: vspec.attacker[k] for k in ("strength", "agility", "strength_mod", "agility_mod")
                  if vspec.attacker.get(k) is not None}
        for name in ("resistant", "vulnerable", "immune"):
            if vspec.target.get(name):
                victim[name] = vspec.target[name]
        return {"mode": mode,
                "attacker": {**attacker, **negation, "id": id_, "conditions": conditions},
                "victim": {**victim, "id": vid, "ac": vspec.target.get("ac"), "reacts": reacts,
                           "conditions": vconditions}}

    def situation(self, m: Member, target: Member, key: str, use: Optional[tuple[int, ...]]) -> Situation:
        """ER-15: a defending target; ER-13: no sneak dice at a victim that fought the
        attacker in the prior round, nor at one defending that sees it (`_watches`)."""
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
        if use is not None and key != "spell":
            assert isinstance(m, ErMember)
            found += self._freeing_dice(m, use)
        if target.defending:
            found += self._defending(self.sc.groups[target.group])
        g = self.sc.groups[m.group]
        if key == "spell" or not (target.id in m.attacked or m.id in target.attacked
                                  or target.defending and self._watches(g, self.sc.groups[target.group])):
            return found
        return found + tuple((("strike", i), self.no_sneak)
                             for i in self._sneak_strikes(g, use if use is not None else tuple(g.phases.get(key, ()))))

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
            # those engaged with it this round or the last, in member order (engagement goes both ways)
            for e in sorted((self._member(i) for i in target.engaged | target.engaged_before), key=attrgetter("index")):
                if e.status != STANDING or e.side == target.side or not self._can_react(e) or self._weapon_busy(e):
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


#: The target fields a throw request reads (`ThrowTarget`), from a combatant's `target`.
_THROW_TARGET = ("ac", "ac_by_type", "cover", "resistant", "vulnerable", "immune", "conditions")


def _item_count(throws: list[dict[str, Any]]) -> int:
    return sum(int(t.get("count", 1)) for t in throws)


def _item(throws: list[dict[str, Any]], k: int) -> dict[str, Any]:
    """The `k`-th item thrown (counts taken in list order), without its count."""
    for entry in throws:
        k -= int(entry.get("count", 1))
        if k < 0:
            return {n: v for n, v in entry.items() if n != "count"}
    raise IndexError(k)


def _throw_request(spec: Any, item: dict[str, Any], target_id: str, target: dict[str, Any]) -> dict[str, Any]:
    """The throw request of one of a combatant's items at a target (its `target` fields)."""
    return {**item, "thrower": spec.attacker,
            "target": {"id": target_id, **{k: target[k] for k in _THROW_TARGET if k in target}}}
