"""The Enchanted Realms turn of the compiled fight loop: `ErRound`'s rules at a turn's start
and before its attack, played on the loop's flat state.

A round procedure file (`fracas._pure.rules` says what it may hold), included by
`cython_core/fights.pyx` and compiled as inline C over the loop's `FightPlan` and
`FightState`. What it plays: ER-13, a shocked combatant losing its actions, and the shock
save a sneak attack calls for; ER-15, defending a turn away; ER Throwing Items, an item
thrown instead of the turn's attack; ER Weapon Negation, a lock or disarm instead of it,
a locker's turn spent holding (with its shield-blitz), a locked weapon freed over turns, a
disarmed weapon picked up. ER-23 charges and ER-17 strays are still the loop's own
(fights.pyx: `_impale`, `_stray_shots`). `fracas.rulesets.er.fight.ErRound` plays the same
rules with results logged; the two loops' parity tests (tests/fights/test_fast_fights.py)
play them side by side.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the stand-in is what the type checker reads (Cython's module is untyped)
    from fracas._pure import cython
else:
    try:
        import cython
    except ImportError:  # Cython is a build dependency only: its names as plain Python
        from fracas._pure import cython
    if not cython.compiled:  # run as Python (fracas.drive.pyloop): always the stand-in, whose NULL is None
        from fracas._pure import cython

#: ER Weapon Negation: numbers per negator and victim group in FightPlan.neg_table
#: (ErRound._negation_tables): the feat's keep, total, the victim's AC, whether it may react;
#: the victim's keep, total; the attacker's keep, total; a disarm's Body cost; the victim's
#: resistance to a shield-blitz.
NEG_WIDTH = cython.declare(cython.const[cython.int], 10)
#: A group's negation mode (FightPlan.neg_mode; 0: none).
NEG_LOCK = cython.declare(cython.const[cython.int], 1)
NEG_DISARM = cython.declare(cython.const[cython.int], 2)
#: ER Throwing Items: numbers per item and target group in FightPlan.throw_plan
#: (ErRound._throw_tables): the pool's dice, to-hit, AC, disadvantage; damage dice, faces,
#: bonus; the target's resistance.
THROW_WIDTH = cython.declare(cython.const[cython.int], 8)

#: ER-23: numbers per charger and pikeman group in FightPlan.impale_at (ErRound._impale_tables):
#: the impalement's first row and rows (-1: none); a glaive's heavy impalement: its first row
#: (-1: not a glaive), its skill dice.
IMPALE_WIDTH = cython.declare(cython.const[cython.int], 4)

if not cython.compiled:  # compiled, these are the loop's own (cython_core/fights.pyx) and the kernels'
    from fracas._facts import ER_IMPALE_HEAVY_FACE as HEAVY_FACE
    from fracas._layout import (E_CHAIN_LIMIT, N_TYPES, O_DAMAGE, O_DISCARD, O_HITS, O_LOG, O_POOL, OUT_WIDTH,
                                P_DISADV, P_MOD, P_TO_HIT, P_TYPE, PLAN_WIDTH)
    from fracas._native import _resist as resist
    from fracas._pure.draws import Dice, draw_gen
    from fracas.rulesets.loop import (BY_SLOTS, E_FIGHT_TIES, ST_STANDING, _can_react, _dice, _er_roll, _harm,
                                   _note_target, _stream)
    from fracas.rulesets.loopstate import FightPlan, FightState, peek
    from fracas.rulesets.er.strays import GOT_CHAIN, GOT_HITS, stray_base, stray_check
    from fracas.rulesets.er.hurling import hurl, thrown_damage
    from fracas.rulesets.er.negation import (NEG_FREE_DICE, NEG_HELD, NEG_MISSED, NEG_TIES, NEG_WEAPON_AS_USUAL,
                                             NEG_WEAPON_OUT, free_step, negation_roll)
    from fracas.rulesets.er.shock import calls_for_save, shock_roll


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _neg_holds(f: cython.pointer[FightState], m: cython.longlong) -> cython.longlong:
    """ErRound._holds: the victim whose weapon m holds locked, while the lock lasts (-1: none)."""
    v: cython.longlong = f.neg_hold[m]
    if v >= 0 and f.status[m] == ST_STANDING and f.status[v] == ST_STANDING and f.neg_pin[v] == m:
        return v
    f.neg_hold[m] = -1
    return -1


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _neg_pinned(f: cython.pointer[FightState], m: cython.longlong) -> cython.longlong:
    """ErRound._pinned: the locker holding m's weapon, while the lock lasts (-1: none; a lock
    whose locker fell, left or let go is over)."""
    locker: cython.longlong = f.neg_pin[m]
    if locker >= 0 and f.status[m] == ST_STANDING and f.status[locker] == ST_STANDING and f.neg_hold[locker] == m:
        return locker
    f.neg_pin[m] = -1
    f.neg_free[m] = 0
    return -1


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _neg_busy(f: cython.pointer[FightState], m: cython.longlong) -> cython.bint:
    """ErRound._weapon_busy: its weapon locked, held in a lock, or on the ground: no reaction with it."""
    return f.neg_disarmed[m] or _neg_pinned(f, m) >= 0 or _neg_holds(f, m) >= 0


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _neg_release(f: cython.pointer[FightState], m: cython.longlong) -> cython.void:
    """ErRound._release: a locker whose own weapon is locked or disarmed lets its lock go."""
    v: cython.longlong = _neg_holds(f, m)
    if v >= 0:
        f.neg_hold[m] = -1
        f.neg_pin[v] = -1
        f.neg_free[v] = 0


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _lands(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], m: cython.longlong,
           t: cython.longlong, damage: cython.longlong) -> cython.int:
    """Damage m deals t at once, outside an attack's dice (a hold's shield-blitz, a disarm's
    cost, a thrown item, an impalement): counted as dealt and taken, then on t's health
    (`_harm`). Returns an error code (0: none)."""
    if not damage:
        return 0
    f.dealt[m] += damage
    f.taken[t] += damage
    return _harm(p, f, t, damage, 0)


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _neg_hold(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], m: cython.longlong,
              v: cython.longlong) -> cython.int:
    """ErRound._hold: a locker's turn is the hold, with its shield-blitz if it has one: a d20
    of blunt damage to the victim after its resistance (one random event, rolled as the lock
    kind's blitz is), landing at once."""
    g: cython.longlong = p.group[m]
    damage: cython.longlong
    if not p.neg_blitz[g]:
        return 0
    _stream(f)
    damage = resist(draw_gen(_dice(f), 20), cython.cast(cython.int, p.neg_table[NEG_WIDTH * (g * p.groups + p.group[v]) + 9]))
    return _lands(p, f, m, v, damage)


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _neg_free(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState],
              m: cython.longlong) -> cython.void:
    """ErRound._free: a locked weapon's wielder gives up dice of the weapon's strike to free
    it (`negation.free_step`); freed, its locker's hold ends. This turn its weapon's strike
    is left out (f.neg_ws NEG_WEAPON_OUT), or, freed with dice left, made with the rest
    (NEG_WEAPON_REST: `_freeing_dice`)."""
    g: cython.longlong = p.group[m]
    locker: cython.longlong = f.neg_pin[m]
    if p.neg_weapon[g] < 0:
        return
    f.neg_ws[m] = free_step(f.neg_free[m], p.neg_dice[g], f.paid)
    f.neg_free[m] -= f.paid[0]
    if f.neg_free[m] == 0:
        f.neg_pin[m] = -1
        f.neg_hold[locker] = -1


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _strike_left_out(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState],
                     m: cython.longlong) -> cython.bint:
    """ER Weapon Negation: m's locked weapon's strike is left out of this turn's attack and
    no other melee strike is left in it (it engages no one in melee, charges no one)."""
    return f.neg_ws[m] == NEG_WEAPON_OUT and not p.neg_melee[p.group[m]] & 4


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _turn_start(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState],
                m: cython.longlong) -> cython.int:
    """The start of m's turn, f.turn_done when it makes no attack: ER-13
    (ErRound.slot_started), shocked, it loses the action; then ErRound.turn: ER Weapon
    Negation, its weapon picked up from the ground, and a locker's turn is its hold; ER-15,
    at its defend_at it defends its turn away; a locked weapon's wielder frees it
    (`_neg_free`), its turn lost when the weapon was its attack's one strike. Returns an
    error code (0: none)."""
    v: cython.longlong
    f.turn_done = True
    if p.shock and f.incap[m] > 0:
        f.incap[m] -= 1
        return 0
    if p.negates:
        f.neg_disarmed[m] = 0
        f.neg_ws[m] = NEG_WEAPON_AS_USUAL
        if not f.casting[m]:
            v = _neg_holds(f, m)
            if v >= 0:
                return _neg_hold(p, f, m, v)
    if p.defends:
        f.defending[m] = not f.casting[m] and f.hp[m] <= p.defend_at[m]
        if f.defending[m]:
            f.no_react[m] = f.now + 1  # no reactions this round and the next
            return 0
    if p.negates and not f.casting[m] and _neg_pinned(f, m) >= 0:
        _neg_free(p, f, m)
        if f.neg_ws[m] == NEG_WEAPON_OUT and p.neg_melee[p.group[m]] & 8:
            return 0  # the weapon was its one strike: no attack this turn
    f.turn_done = False
    return 0


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _negates(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], m: cython.longlong,
             t: cython.longlong) -> cython.int:
    """ErRound._negates: m's weapon lock or disarm made instead of its turn's attack
    (f.turn_done), while it holds no lock and has its weapon, its turn's attack having a
    melee strike, at a target with a weapon not locked nor on the ground: one random event,
    rolled as the lock kind rolls it (`negation.negation_roll`), the target reacting when it
    may (its reaction left, its weapon free, `neg_table`'s static part). Locked: the locker
    holds the target's weapon (and the target lets go of any lock it held); disarmed: its
    weapon is on the ground until its next turn; a disarm's reaction costs the target Body."""
    g: cython.longlong = p.group[m]
    tg: cython.longlong = p.group[t]
    mode: cython.longlong = p.neg_mode[g]
    cost: cython.longlong = 0
    tab: cython.longlong
    reacts: cython.bint
    got: cython.int
    f.turn_done = False
    if mode == 0 or _neg_holds(f, m) >= 0 or f.neg_disarmed[m]:
        return 0
    if not p.neg_melee[g] & (2 if f.neg_ws[m] == NEG_WEAPON_OUT else 1):
        return 0  # no melee strike in this turn's attack
    if p.neg_weapon[tg] < 0 or _neg_pinned(f, t) >= 0 or f.neg_disarmed[t]:
        return 0
    f.turn_done = True
    tab = NEG_WIDTH * (g * p.groups + tg)
    reacts = p.neg_table[tab + 3] != 0 and _can_react(p, f, t) and not _neg_busy(f, t)
    if reacts:
        f.reacted[t] = f.now
    _stream(f)
    got = negation_roll(_dice(f), cython.cast(cython.int, p.neg_table[tab]), p.neg_table[tab + 1], p.neg_table[tab + 2],
                        reacts, cython.cast(cython.int, p.neg_table[tab + 4]), p.neg_table[tab + 5],
                        cython.cast(cython.int, p.neg_table[tab + 6]), p.neg_table[tab + 7], f.faces, cython.NULL)
    if got == NEG_TIES:
        return E_FIGHT_TIES
    if got == NEG_HELD:
        _neg_release(f, t)
        if mode == NEG_LOCK:
            f.neg_hold[m] = t
            f.neg_pin[t] = m
            f.neg_free[t] = NEG_FREE_DICE
        else:
            f.neg_disarmed[t] = 1
    if mode == NEG_DISARM and reacts and got != NEG_MISSED:
        cost = p.neg_table[tab + 8]
    return _lands(p, f, m, t, cost)


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _throw(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], m: cython.longlong,
           t: cython.longlong) -> cython.int:
    """ErRound._throws: m's next item thrown at t instead of its turn's attack, one random
    event rolled as the throw kind rolls it: the pool (`hurling.hurl`: the counted d20s,
    the one dropped at disadvantage), a hit when a counted die hits, then the damage dice;
    its damage, after resistance, lands at once."""
    g: cython.longlong = p.group[m]
    pl: cython.longlong = ((p.throw_off[g] + f.thrown[m]) * p.groups + p.group[t]) * THROW_WIDTH
    i: cython.longlong
    rolled: cython.longlong = 0
    damage: cython.longlong
    hits: cython.int
    f.thrown[m] += 1
    _stream(f)
    hits = hurl(_dice(f), cython.cast(cython.int, p.throw_plan[pl]), p.throw_plan[pl + 1], p.throw_plan[pl + 2],
                p.throw_plan[pl + 3] != 0, f.faces)
    if p.sneaks:
        _note_target(f, m, t)
    if not hits:
        return 0
    for i in range(p.throw_plan[pl + 4]):
        rolled += draw_gen(_dice(f), cython.cast(cython.uint, p.throw_plan[pl + 5]))
    damage = resist(thrown_damage(rolled, p.throw_plan[pl + 6]), cython.cast(cython.int, p.throw_plan[pl + 7]))
    return _lands(p, f, m, t, damage)


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _before_attack(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], m: cython.longlong,
                   t: cython.longlong) -> cython.int:
    """ErRound.before_attack for m's turn at t: ER-23 a charge's impalement, then ER
    Throwing Items, the item instead of the turn's attack, then ER Weapon Negation, a lock
    or disarm instead of it; f.turn_done: the turn ends here. Returns an error code."""
    err: cython.int
    f.turn_done = False
    if p.charges:
        err = _impale(p, f, m, t)
        if err or f.turn_done:
            return err
        if f.status[m] != ST_STANDING:
            f.turn_done = True
            return 0
    if p.throws and f.thrown[m] < p.throw_n[p.group[m]] and not (
            p.negates and (_neg_holds(f, m) >= 0 or _neg_pinned(f, m) >= 0)):  # hands busy: no throwing
        f.turn_done = True
        return _throw(p, f, m, t)
    if p.negates:
        return _negates(p, f, m, t)
    return 0


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _shock(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], t: cython.longlong,
           first: cython.longlong, n: cython.longlong) -> cython.void:
    """attack._shock_save for a fight's attack at t, after its strays (ErRound.attacked):
    the damage of its sneak strikes (rows flagged 4); at half t's maximum Body or more
    (`shock.calls_for_save`) its Resilience save, with t's own conditions (defending among
    them: ER-15), and on a failure the d3 actions it loses (ER-13)."""
    s: cython.longlong
    damage: cython.longlong = 0
    tg: cython.longlong = p.group[t]
    sv: cython.longlong
    for s in range(n):
        if p.row_info[2 * (first + s)] & 4:
            damage += f.out[s * OUT_WIDTH + O_DAMAGE]
    if not calls_for_save(damage, p.shock_body[tg]):
        return
    sv = 6 * tg + (3 if p.defends and f.defending[t] else 0)
    f.incap[t] += shock_roll(_dice(f), cython.cast(cython.int, p.shock_save[sv]),
                             cython.cast(cython.int, p.shock_save[sv + 1]), p.shock_save[sv + 2], damage, f.faces)


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _strays(flags: cython.longlong, hits: cython.longlong) -> cython.bint:
    """ER-17 (followups.stray_shots): a strike row's shot strays, its d10 slot rolled, when it
    is under the friendly-fire rule (flag 1) and missed, or was at full cover (flag 2)."""
    return (flags & 1) != 0 and ((flags & 2) != 0 or not hits)


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _stray_shots(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], first: cython.longlong,
                 n: cython.longlong, nb: cython.longlong) -> cython.int:
    """followups.stray_shots for a fight's attack (ER-17): strike by strike, a shot under the
    friendly-fire rule that missed (or was at a target behind full cover) rolls a d10 for
    the slot it strays into (the bystanders f.by, slots 1..nb); the creature there is
    checked with the pool's counting dice moved up against its own AC, a crit drawing its
    chain (`strays.stray_check`), ER-9 gives the attribute modifier to the first stray into each
    creature, ER-10 its resistance. The damage goes to f.by_dmg. Returns an error code."""
    s: cython.longlong
    k: cython.longlong
    e: cython.longlong
    bg: cython.longlong
    hits: cython.longlong
    chain: cython.longlong
    base: cython.longlong
    o: cython.longlong
    pr: cython.longlong
    dtype: cython.longlong
    taken: cython.longlong = 0
    flags: cython.longlong
    roll: cython.int
    only_chain: cython.bint
    pool: cython.p_int
    for k in range(nb):
        f.by_dmg[k] = 0
    for s in range(n):
        flags = p.row_info[2 * (first + s)]
        o = s * OUT_WIDTH
        if not _strays(flags, f.out[o + O_HITS]):
            continue
        roll = draw_gen(_dice(f), BY_SLOTS)
        if roll > nb:
            continue
        k = roll - 1
        e = f.by[k]
        bg = p.group[e]
        if p.stray_cond[bg] & 1:  # behind full cover: the shot hits nothing
            continue
        pr = (first + s) * PLAN_WIDTH
        dtype = p.plans[pr + P_TYPE]
        if cython.compiled:  # the strike's pool: its dice in the attack's log, two numbers each
            pool = cython.cast(cython.p_int, cython.address(f.slog[2 * f.out[o + O_LOG]]))
        else:
            pool = f.slog[2 * f.out[o + O_LOG]:]
        if stray_check(_dice(f), pool, 2, f.out[o + O_POOL], f.out[o + O_DISCARD], p.plans[pr + P_TO_HIT],
                       p.stray_ac[bg * N_TYPES + dtype], p.row_info[2 * (first + s) + 1], p.plans[pr + P_DISADV] != 0,
                       (p.stray_cond[bg] & 2) != 0, f.got, cython.NULL) < 0:
            return E_CHAIN_LIMIT
        hits, chain = f.got[GOT_HITS], f.got[GOT_CHAIN]
        only_chain = (p.stray_cond[bg] & 4) != 0
        base = stray_base(hits, chain, only_chain)
        if hits > 0 and not only_chain and not (taken >> k) & 1:
            taken |= cython.cast(cython.longlong, 1) << k
            base += p.plans[pr + P_MOD]
            if base < 0:
                base = 0
        f.by_dmg[k] += resist(base, cython.cast(cython.int, p.stray_resist[bg * N_TYPES + dtype]))
    return 0


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _heavy(f: cython.pointer[FightState], dice: cython.longlong) -> cython.bint:
    """ER-23: a glaive's impalement is heavy when one of its `dice` skill dice, read from a
    copy of the stream (impale.skill_faces), shows HEAVY_FACE or more."""
    i: cython.longlong
    d: cython.pointer[Dice]
    copy: Dice
    if cython.compiled:
        copy = f.dice
        d = cython.address(copy)
    else:
        d = peek(_dice(f))
    for i in range(dice):
        if draw_gen(d, 20) >= HEAVY_FACE:
            return True
    return False


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _impale(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], m: cython.longlong,
            t: cython.longlong) -> cython.int:
    """ErRound._charge: m's first melee attack is its charge (ER-23); at t set against
    charges (an impalement laid out for their groups) with its reaction left (not spent,
    not incapacitated, not defending: `_can_react`), t impales m first, one random event
    rolled as the impale kind rolls it, a glaive's at disadvantage when heavy (`_heavy`);
    its damage lands on m at once, and if it is m's Body or more the charge is void
    (f.turn_done). Returns an error code."""
    g: cython.longlong = p.group[m]
    at: cython.longlong
    first: cython.longlong
    err: cython.int
    f.turn_done = False
    if f.charged[m] or p.charge[g] < 0:
        return 0
    if p.negates and _strike_left_out(p, f, m):
        return 0  # its weapon locked, no melee strike left in its attack to charge with
    f.charged[m] = 1
    at = IMPALE_WIDTH * (g * p.groups + p.group[t])
    if p.impale_at[at] < 0 or not _can_react(p, f, t) or (p.negates and _neg_busy(f, t)):
        return 0
    f.reacted[t] = f.now
    _stream(f)
    first = p.impale_at[at]
    if p.impale_at[at + 2] >= 0 and _heavy(f, p.impale_at[at + 3]):  # a glaive
        first = p.impale_at[at + 2]
    err = _er_roll(p.impale_rows, p.impale_masks, f, first, p.impale_at[at + 1], False, False)
    if err:
        return err
    f.turn_done = f.dmg >= f.hp[m]
    return _lands(p, f, t, m, f.dmg)


if not cython.compiled:  # (as Python only: fastfight lays plans out in Python)
    def neutral_tables(sides: int, groups: int, members: int) -> dict[str, object]:
        """This round's plan tables as a fight of another round has them (the one loop takes
        every round's tables: `pyloop.neutral_tables` gathers each ruleset's): no sneak
        attacks (ER-13), shock saves (ER-13), defending (ER-15), thrown items, charges or
        impalements (ER-23), weapon locks or disarms, strays (ER-17)."""
        from array import array

        return {"sneaks": False, "sneaky": array("q", [0] * groups),
                "defend_at": array("q", [-1] * members), "can_defend": array("q", [0] * groups),
                "shock": False, "shock_body": array("q", [-1] * groups), "shock_save": array("q", [0] * 6 * groups),
                "throw_off": array("q", [0] * groups), "throw_n": array("q", [0] * groups), "throw_plan": array("q"),
                "charge": array("q", [-1] * groups), "impale_at": array("q"), "impale_rows": array("i"),
                "negates": False, "neg_table": array("q"),
                **{f"neg_{k}": array("q", [0] * groups) for k in ("mode", "blitz", "weapon", "dice", "melee", "blocks")},
                "strays": False, "shoots": array("q", [0] * groups), "by_off": array("q", [0] * (groups + 1)),
                "by_list": array("q"), "stray_ac": array("q", [0] * N_TYPES * groups),
                "stray_resist": array("q", [0] * N_TYPES * groups), "stray_cond": array("q", [0] * groups)}
