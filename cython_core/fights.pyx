# cython: language_level=3
"""Whole fights in C: the compiled twin of fracas.drive.fight.Fight for the scenarios
fracas.drive.fastfight compiles (docs/ENCOUNTERS.md "Simulations"): Enchanted Realms,
Worldwalker, Cartyrion and old-school.

The round loop compiles in the very strike kernels
(`roll_attack` for ER, `xattack` for the strike-row rulesets) that a single attack and
the bulk API run: the dice of an attack in a fight are the dice `fracas.resolve` rolls
for it, by construction. Each round follows Fight.play_round step for step for these
scenarios (one phase, no morale): ER-18 initiative every round, or WW-1 initiative once
for the fight, one combatant per slot; ErRound's turn (`_turn_start`, `_before_attack`):
ER-13 shock and sneak attacks, ER-15 defending, thrown items, ER-23 charges and
impalements, ER Weapon Negation (locks held across turns, their holds and freeing,
disarms); WW-5 reserved actions, each Worldwalker strike its own attack, WW-7 feints; CT-1 side initiative (a slot per side), CT-4 Stamina then Injury, CT-5
broken weapons, CT-6 parries, CT-7 no repeated sneak attack; old-school (_os_round):
OS-4 flight and surrender declared, OS-1 side initiative, OS-5 saving throws and spells lost, OS-2 phases
with one action each (a slot of tied sides lands a phase's damage at its end), OS-3
fleeing targets, OS-4 morale at the end of the round (its 2d6 is a random event too); with the tables a
procedure's compiled hooks give, reactions at a leaving enemy (ER-20 flee attacks: the
procedure's `harmed`) and missed shots straying into the combatants next to a target
(ER-17: followups.stray_shots, from the attack's own stream). The draw order is the round's: its k-th random event (the initiative,
each `random` target choice, each attack) draws from stream k of the round seed, the
seed of bulk chunk k (fracas.rng.chunk_seed).

Integer totals come back exactly as fracas.drive.simulate.play_batch adds them up, so
the two loops' results are compared number for number (tests/fights/test_fast_fights.py).
Some rules are not twins but one source: the rule files included below, which the Python
loop imports. The Cartyrion and old-school rounds and the Enchanted Realms turn are their
rulesets' own round procedure files (`rulesets/ct/loop.py`, `rulesets/oldschool/loop.py`,
`rulesets/er/loop.py`), included after the state."""

from libc.stdint cimport uint8_t, uint32_t, uint64_t, int32_t, int64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset
import array as _pyarray

from _layout cimport *
from _generator cimport *
from _er cimport *
from _rows cimport *

# The layout table (generated): the stale-core check compares it with fracas._layout.
include "_layout.pxi"

# Rules written once for both fight loops: plain-Python files in the rulesets' folders (and
# the driver's), in Cython's "pure Python mode", compiled here as inline C and imported as
# they are by the Python loop (docs/ENCOUNTERS.md, "Rules written once for both loops").
# These lines are the one list of them (setup.py reads it: fracas._pure.rules).
include "fracas/drive/pools.py"
include "fracas/rulesets/ct/turn.py"
include "fracas/rulesets/er/hurling.py"
include "fracas/rulesets/er/shock.py"
include "fracas/rulesets/er/negation.py"
include "fracas/rulesets/er/strays.py"
include "fracas/rulesets/oldschool/morale.py"
include "fracas/rulesets/oldschool/saving.py"
include "fracas/rulesets/rolloffs.py"

cdef extern from *:
    """
    #ifndef FRACAS_RULES_DIGEST
    #define FRACAS_SHARED_RULES ""
    #define FRACAS_RULES_DIGEST ""
    #endif
    """
    const char* FRACAS_SHARED_RULES
    const char* FRACAS_RULES_DIGEST

#: The rule files included above and the digest of their text when this module was built
#: (setup.py): the stale-core check (fracas._kernels.stale_reason) compares it with the
#: installed files', so that the loop never plays other rules than the Python rounds.
SHARED_RULES = tuple(path for path in FRACAS_SHARED_RULES.decode("ascii").split(",") if path)
RULES_DIGEST = FRACAS_RULES_DIGEST.decode("ascii")

from fracas._facts import CT_EXPLODE_LIMIT as _CT_EXPLODE_LIMIT, ER_IMPALE_HEAVY_FACE as _HEAVY_FACE
# CT-3 decision (see rows.pyx): the explosions one Cartyrion strike may add.
cdef int64_t CT_EXPLODE_LIMIT = _CT_EXPLODE_LIMIT
# ER-23: a glaive's skill die this high or higher puts its impalement at disadvantage (impale.py).
cdef int HEAVY_FACE = _HEAVY_FACE
#: weakest: the key of no member (a side's tree with no one standing)
cdef int64_t WK_NONE = 0x7FFFFFFFFFFFFFFF


cdef enum:
    TAC_NEAREST = 0
    TAC_WEAKEST = 1
    TAC_RANDOM = 2
    TAC_FOCUS = 3
    ST_STANDING = 0
    ST_DOWN = 1
    ST_FLED = 2
    E_FIGHT_PLAN = 101
    #: A tie still unbroken after rolloffs.LIMIT roll-offs: the fight stops and the Python
    #: loop reports the LimitError.
    E_FIGHT_TIES = 100
    OS_MAX_SIDES = 64
    #: Rows of members at most for a nearest pick to walk them (fastfight's nearest_lists)
    WALK_ROWS = 16
    #: weakest: a tree key is health << WK_SHIFT | member (members < 1 << 20, health < 1 << 42)
    WK_SHIFT = 21
    #: ER-17: the creatures next to a target a shot may stray into (slots 1-8 of a d10)
    BY_MAX = 8
    BY_SLOTS = 10
    #: log entries per strike kept for its strays (its pool and a crit chain this long)
    SLOG_STRIKE = 8 + 2 * 64
    #: ER-23: numbers per charger and pikeman group (ErRound._impale_tables)
    IMPALE_WIDTH = 4


cdef inline uint64_t _chunk_seed(uint64_t seed, uint64_t chunk) noexcept nogil:
    """fracas.rng.chunk_seed in C."""
    if chunk == 0:
        return seed
    cdef uint64_t sm = seed ^ (chunk * <uint64_t>0xD6E8FEB86659FD93)
    return splitmix64(&sm)


cdef struct FightPlan:
    # The scenario, flat (fastfight.FastPlan builds the arrays).
    bint rows                  # the strike-row kernel (Worldwalker), else the ER kernel
    bint spells                # some member has spell uses
    int64_t casters_n          # the members with spell uses, casters[0:casters_n]
    const int64_t* casters
    bint init_once             # WW-1: initiative once for the fight, else every round (ER-18)
    bint side_turns            # a slot per side, two health pools, breakable weapons and parries (Cartyrion: CT-1, CT-4..7)
    int init_die               # the initiative die: d10 (ER-18) or d20 (WW-1)
    int64_t members
    int64_t groups
    int64_t sides
    int64_t max_rounds
    const int32_t* side        # per member
    const int32_t* group       # per member
    const int64_t* hp          # per member: its starting health
    const int64_t* flee_at     # per member: leaves at or below this (INT64_MIN: never)
    const int64_t* spell_uses  # per member
    const int32_t* tactic      # per member: TAC_*
    const int64_t* init_mod    # per member: its initiative modifier (ER-18, WW-1)
    const int64_t* init_sub    # per member: what orders equal totals before roll-offs (WW-1: Dexterity modifier)
    int64_t init_low           # the lowest initiative total (the lowest modifier + 1)
    int64_t init_span          # totals from init_low to init_low + init_span - 1
    int64_t sub_low            # init_sub from sub_low to sub_low + sub_span - 1
    int64_t sub_span
    const int64_t* units       # per group: its first attack unit, attack units, spell unit (-1: none)
    const int64_t* reserve     # per member: complex actions it holds each round (WW-5)
    const int32_t* reaction    # per member: 1 when it has a block or dodge to spend them on
    const int64_t* injury      # per member: its Injury Points (CT-4), -1: none
    const int64_t* weapon0     # per member: explosions its parrying weapon takes (CT-6)
    const int64_t* shield0     # per member: its shield's points (CT-6)
    const int64_t* ct_group    # per group: CTG fields
    const int64_t* own_power   # per group: its strikes marked power (bits)
    const int64_t* parry_dims  # per group, as a target: weapon parry levels, shield parry levels
    const int64_t* ct_init     # CT-1 by (round 1 or later, d6): first side, surprised side (-1)
    # Reactions at a leaving enemy (ER-20 flee attacks): tables of the procedure's compiled hooks
    bint reactions             # some group's leaving draws reactions and some group makes them
    const int64_t* react_unit  # per group: its reaction's attack unit (-1: none)
    const int64_t* leave_draws # per group: its members leaving at flee_at draw reactions
    const int64_t* engages     # per group, bit j: its turn's unit j engages its target in melee
    const int32_t* engages_u   # the same per unit (play_fights lays it out from `engages`)
    bint er_extra              # ER-13 sneaks or shock, ER-15 defends: the variants read more state
    bint throws                # ER Throwing Items: some group throws items first
    bint charges               # ER-23: some group charges with its first melee attack
    const int64_t* charge      # per group: the feet its charge closes (-1: none)
    const int64_t* impale_at   # per charger and pikeman group, IMPALE_WIDTH: first impale row, rows (-1:
                               # none); a glaive's heavy impalement: its first row (-1: not a glaive), its
                               # skill dice
    const int32_t* impale_rows # the impalements' ER plan rows
    bint negates               # ER Weapon Negation: some group locks or disarms (ErRound._negation_tables)
    const int64_t* neg_mode    # per group: NEG_LOCK, NEG_DISARM or 0
    const int64_t* neg_blitz   # per group: its lock's shield-blitz
    const int64_t* neg_weapon  # per group: its weapon, its first melee strike (-1: none)
    const int64_t* neg_dice    # per group: the weapon's dice
    const int64_t* neg_melee   # per group: its attack's melee strikes (bits: ErRound._negation_tables)
    const int64_t* neg_blocks  # per group: 3 where its attack's variants are by its weapon's state, else 1
    const int64_t* neg_table   # per negator and victim group: NEG_WIDTH numbers
    const uint32_t* impale_masks
    const int64_t* throw_off   # per group: its first item in the item order
    const int64_t* throw_n     # per group: its items, one a throw
    const int64_t* throw_plan  # per item and target group: THROW_WIDTH numbers (ErRound._throw_tables)
    bint sneaks                # ER-13: some group's attack has sneak strikes
    bint feints                # WW-7: some group's strikes feint first
    bint defends               # ER-15: some member defends at its defend_at
    bint shock                 # ER-13: a sneak strike may meet a target with maximum Body
    const int64_t* shock_body  # per group: its maximum Body (-1: none, never shocked)
    const int64_t* shock_save  # per group: its shock save (how, die kept, added), then the same defending
    const int64_t* defend_at   # per member: defends its turn away at or below this hp (-1: never)
    const int64_t* can_defend  # per group: its members may defend (its attackers' variants double)
    const int64_t* feint_units # per group: bit j, its turn's unit j (a strike) feints first
    const int64_t* sneaky      # per group: its turn's attack has sneak strikes (variants 2, 3: without their dice)
    # Stray shots into those next to a target (ER-17 friendly fire), from the hooks' tables
    bint strays
    const int64_t* shoots      # per group: its turn's attack has a ranged strike
    const int64_t* by_off      # per group: who its `nearby` names, by_list[by_off[g]:by_off[g + 1]]
    const int64_t* by_list
    const int64_t* stray_ac    # per (group, damage type): a stray's AC there, cover included
    const int64_t* stray_resist  # per (group, damage type): its resistance state
    const int64_t* stray_cond  # per group: 1 full cover, 2 paralyzed, 4 petrified
    const int64_t* row_info    # per plan row: 1 under the friendly-fire rule | 2 at full cover; crit threshold
    const int64_t* vbase       # per (attack unit, target group): its first variant
    const int64_t* vcount      # per (attack unit, target group): its variants
    const int64_t* near_off    # per member: its enemies nearest first, in near[...]
    const int32_t* near
    const int64_t* focus_off   # per member: its focus's members nearest first
    const int32_t* focus
    const int32_t* plans       # strike rows (PLAN_WIDTH or XPLAN_WIDTH each)
    const uint32_t* masks      # ER: two words per strike row
    const int64_t* tinit       # rows: XS_WIDTH words per variant (the target's parry state)
    # per variant (vbase + the situation's index): first row, rows
    const int64_t* pair
    # Old-school (OS-1..5)
    bint phased                # declared flight, side initiative, phases of one action each, morale (_os_round)
    bint has_morale
    int64_t os_ties            # OS-1: 0 re-roll ties, 1 tied sides act together
    int64_t units_n            # morale units (a side, or a morale_group)
    const int64_t* os_side     # per side: bit 0 surprised in round 1, bit 1 waits
    const int64_t* os_phase    # per group: its one action's phase (0 missile, 2 melee), -1: none
    const int64_t* os_flee     # per group: morale.FLEE_*
    bint os_saves              # OS-5: some group's attacks force saving throws
    const int64_t* os_save_or  # per group: its save_or's category (-1: none), saving.BY_*, modifier
    const int64_t* os_save_num # per category and group: the group's saving throw target number
    const int64_t* morale      # per group: Morale (-1: none)
    const int64_t* morale_mod  # per group: its modifier
    const int64_t* group_unit  # per group: its morale unit
    const int64_t* unit_start  # per unit: members at the start
    const int64_t* unit_first  # per unit: its first member (the lone creature of a unit of one)
    const int32_t* member_unit # per member
    # Targets in time flat in the number of combatants (fastfight: weakest, random)
    bint any_weakest           # some member's tactic is weakest: the per-side trees are kept
    bint any_random            # some member's tactic is random: the standing counts are kept
    int64_t fw_n               # the prefix counts' length per side: fw_words rounded up to 8 (padded)
    int64_t fw_words           # the enemy bitsets' words (64 members a word)
    const int64_t* wk_off      # per side: its tree's first node in FightState.wk
    const int64_t* wk_size     # per side: its tree's leaves (a power of two)
    const int64_t* side_pos    # per member: its leaf in its side's tree (its rank on its side)
    const int32_t* fw_init     # per side the prefix counts of its enemies at a fight's start (by word)
    const uint64_t* eb_init    # per side the bitset of its enemies at a fight's start
    # nearest and focus by walking rows: members stand in rows (one side, one y, x rising);
    # a member's nearest standing enemy in a row is the first standing one either way from
    # its x, found through "next standing" links, and the least of those few is the pick
    bint any_walk
    int64_t rows_n
    const int64_t* rows_at     # per row: first, end member
    const int32_t* walk        # per member: its picks walk (else its nearest-first list)
    const int64_t* split       # per (member, row): the row's first member with x above its x
    const int64_t* focus_lo    # per member: its focus group's members, first .. end (-1: a list)
    const int64_t* focus_hi
    const double* xs
    const double* ys


cdef struct FightState:
    int64_t* hp
    int32_t* status
    int64_t* spell
    int64_t* dealt
    int64_t* taken
    int64_t* near_at       # per member: where its nearest search starts (statuses only ever leave standing)
    int64_t* focus_at
    int64_t* side_standing
    int32_t* casting
    int32_t* order         # this round's initiative order
    int32_t* once          # WW-1: the order of the fight (once_n combatants)
    int64_t once_n
    int64_t* reserve       # per member: reserved actions left this round (WW-5)
    int64_t* injury        # per member: Injury Points left (CT-4)
    int64_t* broken        # per member: its broken strikes, as bits (CT-5, CT-6)
    int32_t* parrying      # per member: PARRY_* until its next turn (CT-6)
    int64_t* weapon_left
    int64_t* shield_left
    int64_t* turns         # per member: turns taken (CT-5 power "first")
    int64_t ct_broken      # this attack's: the weapons broken it was chosen by (CT-5)
    bint ct_power          # this attack's: a power attack (CT-5)
    int32_t* acts          # per member: it attacks this turn (CT)
    int64_t epoch          # this fight's first stamp: stamps of earlier fights never match
    int64_t slot_end[3]     # Cartyrion: a slot per side, then those who cannot be surprised (CT-1)
    int64_t tstate[2]      # the row kernel's target state (XS_WIDTH)
    int64_t* keys          # scratch: initiative sort keys, random target candidates
    int64_t* bucket        # scratch: the counting sort of initiative totals
    int32_t* tie           # scratch: a roll-off group
    int64_t* out           # one attack's out rows
    int64_t stamp[1]
    int64_t sides_left
    bint over
    int64_t winner         # side index, -1 for a draw
    Dice dice
    Dice* d                # &dice: the stream the round procedures draw from
    uint64_t round_seed
    uint64_t k
    # Old-school
    int32_t* leaving       # per member: declared flight this round (OS-4)
    int32_t* hurt          # per member: harmed this round (OS-5)
    int64_t* g_standing    # per group: members standing
    int64_t* g_succ        # per group: morale checks passed (OS-4)
    int32_t* g_broken
    int32_t* g_death       # fights to the death
    int64_t* u_standing    # per unit: members standing
    int64_t* u_killed      # per unit: members down
    int64_t* u_fired       # per unit: triggers noted in the fight (bits)
    int64_t* u_noted       # per unit: this round's triggers (TRIGGERS + 1 each: count, codes)
    int64_t* os_slot_end   # per slot: the end of its members in f.order
    int32_t* os_together   # per slot: it holds more than one side (simultaneous)
    int32_t* os_able
    int32_t* os_failed     # per member: failed a saving throw this round (OS-5)
    bint defer
    int64_t pend_n
    int64_t* pend_t        # a simultaneous phase's damage, landing at its end
    int64_t* pend_d
    # OS-1 side initiative's scratch (rolloffs.side_order), per side
    int os_present[OS_MAX_SIDES]
    int os_waits[OS_MAX_SIDES]
    int os_faces[OS_MAX_SIDES]
    int os_tied[OS_MAX_SIDES]
    int os_ranked[OS_MAX_SIDES]
    int os_slot_in[OS_MAX_SIDES]
    int os_tog[OS_MAX_SIDES]
    int os_slot_of[OS_MAX_SIDES]
    # weakest: per side a tournament tree over its members (a node holds the least key
    # health << 21 | index of the standing members below it, WK_NONE: none), so a pick reads
    # one root per side
    int64_t* wk
    # random: per side a bitset of its enemies that stand, over member indexes, and the
    # prefix counts of its words (fw[w]: the standing enemies in words before w; the padding
    # past fw_words is 2^31 - 1); the k-th standing enemy's word is the count of prefixes
    # below k, compared all at once (no chain of dependent loads), then a select within it
    int32_t* fw
    uint64_t* eb
    int64_t* next_up       # walk: a standing member at or above i (itself when it stands; members: none)
    int64_t* next_down     # walk, shifted by one: at or below i - 1 (0: none)
    int64_t attacks        # attacks (and spells) rolled in the call: `fracas bench`'s per-attack time
    # reactions (p.reactions): stamps epoch + round, so nothing is cleared between rounds or fights
    int64_t now            # this round's stamp
    # who engaged whom in melee (p.reactions), kept for this round and the one before: per
    # member and round parity a list of records (the other member) in that parity's pool,
    # valid while its stamp is the round's; a pool starts afresh with its round
    int64_t* eg_head       # 2 × members: a member's first record (-1: none)
    int64_t* eg_stamp      # 2 × members: the round stamp its list was made in
    int32_t* eg_other[2]   # per parity, per record: the other member
    int64_t* eg_next[2]    # per parity, per record: the next record of its list (-1: none)
    int64_t eg_used[2]
    int64_t eg_pool[2]     # the stamp of the round each pool holds
    int64_t eg_cap         # records a pool holds: two an attack or reaction a round can make
    int64_t* eg_mark       # per member: the reaction gathering that listed it last
    int64_t eg_token
    int32_t* eg_list       # scratch: the enemies engaged with a leaving member
    int64_t* feinted       # WW-7 (p.feints): per member, bit j: unit j's feint is made, its attack to come
    int32_t* defending     # ER-15 (p.defends): per member, defending until its next turn
    int64_t* incap         # ER-13 (p.shock): per member, the actions it still loses to a failed shock save
    int64_t* thrown        # ER Throwing Items (p.throws): per member, the items it has thrown
    int32_t* charged       # ER-23 (p.charges): per member, it has made its charge
    # ER Weapon Negation (p.negates), per member: the victim whose weapon it holds locked and
    # the locker holding its own (-1: none; a lock lasts while both stand and point at each
    # other), the dice its freeing still costs, its weapon on the ground, and this turn's
    # weapon (negation.NEG_WEAPON_*: as usual, its strike left out, made with the dice left)
    int64_t* neg_hold
    int64_t* neg_pin
    int64_t* neg_free
    int32_t* neg_disarmed
    int32_t* neg_ws
    int64_t* no_react      # ER-15: per member, no reaction up to this stamp (epoch + round)
    # ER-13 (p.sneaks) and CT-7 (p.side_turns): per member whom its turn's attack was at in
    # its last two rounds that had one (a turn makes one attack, at one target), and when
    # (epoch + round)
    int64_t* fo_t
    int64_t* fo_r
    int64_t* fo_pt
    int64_t* fo_pr
    int64_t* reacted       # per member: the round it spent its reaction in
    # strays: the attack's bystanders (member, damage), the kernel's log of its dice
    int64_t by[BY_MAX]
    int64_t by_dmg[BY_MAX]
    int32_t* slog
    int64_t slog_cap
    # a turn's outcome for the round procedures: it ends here (no attack, or no more of it)
    bint turn_done
    # scratch for the dice a rule file reports (a negation's, a throw's pool, a shock save's)
    int faces[16]
    long long paid[1]      # negation.free_step's dice paid


# Round procedures: each ruleset's round over the state above, in its own folder (Cython's
# pure Python mode, as the rule files above).
include "fracas/rulesets/ct/loop.py"
include "fracas/rulesets/er/loop.py"
include "fracas/rulesets/oldschool/loop.py"

#: The fields of a group in FightPlan.ct_group (ct/loop.py's CTG): fastfight sizes its neutral table by it.
CT_FIELDS = CTG


cdef inline void _stream(FightState* f) noexcept nogil:
    """The round's next random event draws from stream k (Fight._stream). Only the words
    change: a fight injects no faces, so the rest of f.dice stays as play_fights set it."""
    seed_words(&f.dice, _chunk_seed(f.round_seed, f.k))
    f.k += 1


cdef int _initiative(const FightPlan* p, FightState* f, int64_t* count) noexcept nogil:
    """ER-18, WW-1 (`rolloffs.roll_order`, as the initiative kinds roll it): a die per
    standing combatant in scenario order plus its modifier, totals highest first (WW-1:
    then the higher Dexterity modifier), ties broken by d20 roll-offs. Fills f.order."""
    cdef int64_t i, n = 0
    if p.init_once and f.once_n:  # WW-1: the fight's order, without the fallen; no dice
        for i in range(f.once_n):
            if f.status[f.once[i]] == ST_STANDING:
                f.order[n] = f.once[i]
                n += 1
        count[0] = n
        return 0
    _stream(f)
    for i in range(p.members):  # the standing, in scenario order: rolled for in that order
        if f.status[i] == ST_STANDING:
            f.order[n] = <int32_t>i
            n += 1
    if roll_order(&f.dice, p.init_die, <int*>f.order, n, <long long*>p.init_mod, <long long*>p.init_sub, p.init_low,
                  p.init_span, p.sub_low, p.sub_span, <long long*>f.bucket, <long long*>f.keys, <int*>f.tie,
                  <int*>f.order, NULL, NULL) < 0:
        return E_FIGHT_TIES
    if p.init_once:
        for i in range(n):
            f.once[i] = f.order[i]
        f.once_n = n
    count[0] = n
    return 0


cdef inline int64_t _first_standing(const FightState* f, const int32_t* lst, int64_t* at, int64_t end) noexcept nogil:
    while at[0] < end and f.status[lst[at[0]]] != ST_STANDING:
        at[0] += 1
    return lst[at[0]] if at[0] < end else -1


cdef int64_t _choose(const FightPlan* p, FightState* f, int64_t m) noexcept nogil:
    """Fight._choose: the target of m by its tactic among the standing enemies (-1: none)."""
    cdef int64_t e, n, best, best_health, health
    cdef int tactic = p.tactic[m]
    cdef int32_t side = p.side[m]
    if tactic == TAC_FOCUS:
        if p.walk[m] and p.focus_lo[m] >= 0:
            e = _walk(p, f, m, p.focus_lo[m], p.focus_hi[m])
        else:
            e = _first_standing(f, p.focus, &f.focus_at[m], p.focus_off[m + 1])
        if e >= 0:
            return e
        tactic = TAC_NEAREST
    if tactic == TAC_NEAREST:
        if p.walk[m]:
            return _walk(p, f, m, 0, p.members)
        return _first_standing(f, p.near, &f.near_at[m], p.near_off[m + 1])
    if tactic == TAC_WEAKEST:
        # the least (health, index) among the standing enemies: the root of each enemy side's
        # tree (Fight._choose's `min` over them all)
        best = WK_NONE
        for n in range(p.sides):
            if n != side:
                best = _wk_min(best, f.wk[p.wk_off[n] + 1])
        return -1 if best == WK_NONE else best & ((<int64_t>1 << WK_SHIFT) - 1)
    # random: the k-th of the standing enemies in member order, k rolled on their count
    # (Fight._choose: dice.die(len(enemies))), found from the prefix counts of its bitset
    n = 0
    for e in range(p.sides):
        if e != side:
            n += f.side_standing[e]
    if n == 0:
        return -1
    _stream(f)
    n = draw_gen(&f.dice, <uint32_t>n)
    return _fw_kth(p, f, side, n)


cdef inline int64_t _up(FightState* f, int64_t i) noexcept nogil:
    """The first standing member at or above i (p.members: none), halving the path."""
    while f.next_up[i] != i:
        f.next_up[i] = f.next_up[f.next_up[i]]
        i = f.next_up[i]
    return i


cdef inline int64_t _down(FightState* f, int64_t i) noexcept nogil:
    """The last standing member at or below i (-1: none), halving the path."""
    cdef int64_t k = i + 1
    while f.next_down[k] != k:
        f.next_down[k] = f.next_down[f.next_down[k]]
        k = f.next_down[k]
    return k - 1


cdef int64_t _walk(const FightPlan* p, FightState* f, int64_t m, int64_t lo, int64_t hi) noexcept nogil:
    """m's nearest standing enemy among members lo..hi-1, as its nearest-first list has it:
    in each enemy row the first standing one either way from m's x, the least (key, index)
    of those (nearest_lists vouched that these keys order as math.hypot does)."""
    cdef int64_t r, a, b, sp, e, best = -1, k
    cdef double key, best_key = 0, dx, dy
    cdef int32_t side = p.side[m]
    for r in range(p.rows_n):
        a, b = p.rows_at[2 * r], p.rows_at[2 * r + 1]
        if p.side[a] == side:
            continue
        a = a if a > lo else lo
        b = b if b < hi else hi
        if a >= b:
            continue
        sp = p.split[m * p.rows_n + r]
        sp = a if sp < a else (b if sp > b else sp)
        for k in range(2):
            if k == 0:
                if sp <= a:
                    continue
                e = _down(f, sp - 1)
                if e < a:
                    continue
            else:
                if sp >= b:
                    continue
                e = _up(f, sp)
                if e >= b:
                    continue
            dx, dy = p.xs[e] - p.xs[m], p.ys[e] - p.ys[m]
            key = dx * dx + dy * dy
            if best < 0 or key < best_key or (key == best_key and e < best):
                best, best_key = e, key
    return best


cdef inline int64_t _wk_key(const FightPlan* p, const FightState* f, int64_t e) noexcept nogil:
    """What the weakest tactic compares: hp, plus Injury Points left (CT-4), then the index."""
    return ((f.hp[e] + (f.injury[e] if p.injury[e] >= 0 else 0)) << WK_SHIFT) | e


cdef inline int64_t _wk_min(int64_t a, int64_t b) noexcept nogil:
    return a if a < b else b


cdef void _wk_build(const FightPlan* p, FightState* f) noexcept nogil:
    """Every side's tree at a fight's start: each leaf its member's key (all stand), WK_NONE past them."""
    cdef int64_t s, i, base, size
    for s in range(p.sides):
        base, size = p.wk_off[s], p.wk_size[s]
        for i in range(size, 2 * size):
            f.wk[base + i] = WK_NONE
    for i in range(p.members):
        f.wk[p.wk_off[p.side[i]] + p.wk_size[p.side[i]] + p.side_pos[i]] = _wk_key(p, f, i)
    for s in range(p.sides):
        base, size = p.wk_off[s], p.wk_size[s]
        for i in range(size - 1, 0, -1):
            f.wk[base + i] = _wk_min(f.wk[base + 2 * i], f.wk[base + 2 * i + 1])


cdef void _moved(const FightPlan* p, FightState* f, int64_t t) noexcept nogil:
    """t's health or status changed: its side's tree again from its leaf up (weakest), as
    far as a node changes (the nodes above one that keeps its key keep theirs)."""
    cdef int64_t base, i, key
    if not p.any_weakest:
        return
    base = p.wk_off[p.side[t]]
    i = p.wk_size[p.side[t]] + p.side_pos[t]
    f.wk[base + i] = _wk_key(p, f, t) if f.status[t] == ST_STANDING else WK_NONE
    i >>= 1
    while i >= 1:
        key = _wk_min(f.wk[base + 2 * i], f.wk[base + 2 * i + 1])
        if f.wk[base + i] == key:
            break
        f.wk[base + i] = key
        i >>= 1


cdef void _fallen(const FightPlan* p, FightState* f, int64_t t) noexcept nogil:
    """t no longer stands: out of its enemies' bitsets and prefix counts (random), its
    side's tree (weakest), the walks' links (nearest, focus)."""
    cdef int64_t i, s
    cdef int32_t* pre
    if p.any_walk:
        f.next_up[t] = t + 1
        f.next_down[t + 1] = t
    if p.any_random:
        for s in range(p.sides):
            if s != p.side[t]:
                f.eb[s * p.fw_words + (t >> 6)] &= ~(<uint64_t>1 << (t & 63))
                pre = f.fw + s * p.fw_n
                for i in range((t >> 6) + 1, p.fw_words):  # the words after t's count one fewer
                    pre[i] -= 1
    _moved(p, f, t)


#: _select: per byte value and k (0..7), the place of the byte's (k + 1)-th set bit
cdef uint8_t SELECT8[256 * 8]
cdef int _b, _k, _bit
for _b in range(256):
    _k = 0
    for _bit in range(8):
        if (_b >> _bit) & 1:
            SELECT8[_b * 8 + _k] = _bit
            _k += 1


cdef inline int64_t _select(uint64_t x, int64_t k) noexcept nogil:
    """The place of the k-th (from 1, k <= its bits) set bit of x, in constant time: the
    bytes' bit counts summed up to each byte, the byte where the sum reaches k found by
    comparing all eight sums at once, the bit in it from a table."""
    cdef uint64_t L = <uint64_t>0x0101010101010101, H = <uint64_t>0x8080808080808080
    cdef uint64_t c = x - ((x >> 1) & <uint64_t>0x5555555555555555)
    c = (c & <uint64_t>0x3333333333333333) + ((c >> 2) & <uint64_t>0x3333333333333333)
    c = ((c + (c >> 4)) & <uint64_t>0x0F0F0F0F0F0F0F0F) * L  # byte i: the bits of bytes 0..i
    # bytes whose sum is below k (every sum <= 64 < 128 and k <= 64: no borrow between bytes)
    cdef uint64_t below = ((((c | H) - <uint64_t>k * L) & H) >> 7) ^ L
    cdef int64_t b = <int64_t>((below * L) >> 56)  # the byte holding the k-th bit
    k -= <int64_t>(((c << 8) >> (8 * b)) & 0xFF)  # the bits before that byte
    return 8 * b + SELECT8[((x >> (8 * b)) & 0xFF) * 8 + k - 1]


cdef inline int64_t _fw_kth(const FightPlan* p, const FightState* f, int32_t side, int64_t k) noexcept nogil:
    """The k-th (from 1, k <= their count) standing member not of `side`, in member order:
    its word is the last whose prefix count is below k (the prefixes rise, pre[0] = 0 < k:
    the number of those below k, less one, counted without branches over all words at once),
    then the bit in that word."""
    cdef const int32_t* pre = f.fw + side * p.fw_n
    cdef int32_t below = <int32_t>k
    cdef int64_t w, pos = 0
    if p.fw_words > 1:  # (64 enemies or fewer: the first word)
        for w in range(1, p.fw_n):
            pos += pre[w] < below
    return 64 * pos + _select(f.eb[side * p.fw_words + pos], k - pre[pos])


cdef inline void _decide(const FightPlan* p, FightState* f) noexcept nogil:
    """Fight.decide: over once at most one side stands."""
    cdef int64_t s
    if f.sides_left <= 1 and not f.over:
        f.over = True
        f.winner = -1
        for s in range(p.sides):
            if f.side_standing[s]:
                f.winner = s


cdef inline int _plain_roll(const FightPlan* p, FightState* f, int64_t first, int64_t n,
                           int64_t* damage) noexcept nogil:
    """An attack's n rows from `first` on the ER kernel, nothing logged: its damage added to `damage`."""
    cdef int64_t logpos = 0
    f.stamp[0] = -1
    return roll_attack(p.plans + first * PLAN_WIDTH, p.masks + 2 * first, 0, n, &f.dice, f.stamp, 0, NULL,
                       NULL, 0, &logpos, 0, damage)


cdef inline int _row_roll(const FightPlan* p, FightState* f, int64_t t, int64_t at, int64_t* damage, int64_t* injury,
                          int64_t* cost) noexcept nogil:
    """Variant `at`'s attack at t on the strike-row kernel: its damage added to `damage` (CT-4:
    a pool strike's to `injury`), its stamina cost to `cost`; the blocks and dodges it
    rolled spend t's reserve (WW-5)."""
    cdef int64_t first = p.pair[2 * at], n = p.pair[2 * at + 1], logpos = 0, s, reacted = 0
    cdef int err = xattack(p.plans, first, first + n, &f.dice, p.tinit + at * XS_WIDTH, f.tstate, XS_WIDTH,
                           f.out, NULL, 0, &logpos, True, CT_EXPLODE_LIMIT)
    if err:
        return err
    for s in range(n):
        if p.side_turns and p.plans[(first + s) * XPLAN_WIDTH + X_POOL]:
            injury[0] += f.out[s * XOUT_WIDTH + Y_DAMAGE]
        else:
            damage[0] += f.out[s * XOUT_WIDTH + Y_DAMAGE]
        cost[0] += f.out[s * XOUT_WIDTH + Y_COST]
        reacted += f.out[s * XOUT_WIDTH + Y_REACT_ROLL] != 0
    if f.reserve[t] > 0:
        f.reserve[t] -= reacted
    return 0


cdef inline int _engage(FightState* f, int64_t a, int64_t b) noexcept nogil:
    """ER-20 flee attacks, Worldwalker attacks of opportunity: a and b engaged each other in
    melee this round: a record in each one's list of this round's parity (the two always
    together, so a pair already at the head of a's list is recorded both ways)."""
    cdef int64_t q = f.now & 1, ha = 2 * a + q, hb = 2 * b + q, rec
    cdef int32_t* other = f.eg_other[q]
    cdef int64_t* after = f.eg_next[q]
    if f.eg_pool[q] != f.now:  # the pool's first records this round: the round two before is gone
        f.eg_pool[q] = f.now
        f.eg_used[q] = 0
    if f.eg_stamp[ha] != f.now:
        f.eg_stamp[ha] = f.now
        f.eg_head[ha] = -1
    elif other[f.eg_head[ha]] == b:
        return 0  # the same pair again (Worldwalker's strikes, each its own attack)
    if f.eg_stamp[hb] != f.now:
        f.eg_stamp[hb] = f.now
        f.eg_head[hb] = -1
    rec = f.eg_used[q]
    if rec + 2 > f.eg_cap:
        return E_FIGHT_PLAN  # more engagements in a round than its attacks and reactions can make
    f.eg_used[q] = rec + 2
    other[rec], after[rec], f.eg_head[ha] = <int32_t>b, f.eg_head[ha], rec
    other[rec + 1], after[rec + 1], f.eg_head[hb] = <int32_t>a, f.eg_head[hb], rec + 1
    return 0


cdef int64_t _engaged(FightState* f, int64_t t) noexcept nogil:
    """The members engaged with t in melee this round or the round before, each once, in
    member order, into f.eg_list; returns their count (flat in the fight's size: t's own
    records only)."""
    cdef int64_t n = 0, stamp, h, rec, q, j
    cdef int32_t e
    f.eg_token += 1
    for stamp in range(f.now - 1, f.now + 1):
        q = stamp & 1
        h = 2 * t + q
        if f.eg_stamp[h] != stamp or f.eg_pool[q] != stamp:
            continue
        rec = f.eg_head[h]
        while rec >= 0:
            e = f.eg_other[q][rec]
            if f.eg_mark[e] != f.eg_token:
                f.eg_mark[e] = f.eg_token
                j = n  # insertion sort: a handful of enemies
                while j > 0 and f.eg_list[j - 1] > e:
                    f.eg_list[j] = f.eg_list[j - 1]
                    j -= 1
                f.eg_list[j] = e
                n += 1
            rec = f.eg_next[q][rec]
    return n


cdef int _reactions(const FightPlan* p, FightState* f, int64_t t) noexcept nogil:
    """The procedure's `harmed` for a leaving combatant whose leaving draws reactions (ER-20
    flee attacks, Worldwalker attacks of opportunity): each standing enemy engaged with it
    in melee this round or the round before (`_engaged`), with its reaction left (one a
    round) and a reaction unit, in member order, makes its reaction (one random event), its
    damage landing at once; it stops when t is at 0. On strike rows (Worldwalker) the
    variant is the target's reaction left or not, and its blocks and dodges spend its
    reserve (WW-5)."""
    cdef int64_t e, unit, at, first, n, damage, injury, cost, v, k, engaged
    cdef int err
    cdef int64_t tg = p.group[t]
    engaged = _engaged(f, t)
    for k in range(engaged):
        e = f.eg_list[k]
        if f.status[e] != ST_STANDING or p.side[e] == p.side[t] or not _can_react(p, f, e):
            continue  # its reaction spent, or taken away (ER-13 shock, ER-15 defending)
        if p.negates and _neg_busy(f, e):
            continue  # ER Weapon Negation: its weapon locked, holding a lock, or on the ground
        unit = p.react_unit[p.group[e]]
        if unit < 0:
            continue
        f.reacted[e] = f.now
        v = p.rows and p.reaction[t] and f.reserve[t] <= 0
        if not v < p.vcount[unit * p.groups + tg]:
            return E_FIGHT_PLAN
        at = p.vbase[unit * p.groups + tg] + v
        first, n = p.pair[2 * at], p.pair[2 * at + 1]
        if n <= 0:
            return E_FIGHT_PLAN
        _stream(f)
        f.attacks += 1
        damage = injury = cost = 0  # (a reaction's stamina cost and injury: CT rounds make none)
        err = _row_roll(p, f, t, at, &damage, &injury, &cost) if p.rows else _plain_roll(p, f, first, n, &damage)
        if err:
            return err
        f.dealt[e] += damage
        f.taken[t] += damage
        err = _engage(f, e, t)
        if err:
            return err
        if damage:
            f.hp[t] = f.hp[t] - damage if f.hp[t] > damage else 0
        if f.hp[t] == 0:
            return 0
    return 0


cdef inline int _harm(const FightPlan* p, FightState* f, int64_t t, int64_t damage, int64_t injury) noexcept nogil:
    """Fight._harm: down at 0 (with Injury Points, CT-4: Stamina damage past 0 becomes
    injury, down when they are gone), else fled at its flee_at, after the reactions its
    leaving draws (down if they bring it to 0)."""
    cdef bint pooled = p.injury[t] >= 0, out
    cdef int err
    if damage + injury <= 0:
        return 0
    f.hp[t], f.injury[t] = after_damage(f.hp[t], f.injury[t], pooled, damage, injury)
    out = down(pooled, f.hp[t], f.injury[t])
    if out:
        f.status[t] = ST_DOWN
    elif f.hp[t] <= p.flee_at[t]:
        out = False
        if p.reactions and p.leave_draws[p.group[t]] and not (p.defends and f.defending[t]):
            err = _reactions(p, f, t)
            if err:
                return err
            out = f.hp[t] == 0  # the reactions brought it down: down, not fled
        f.status[t] = ST_DOWN if out else ST_FLED
    else:
        _moved(p, f, t)
        return 0
    _fallen(p, f, t)
    f.side_standing[p.side[t]] -= 1
    if f.side_standing[p.side[t]] == 0:
        f.sides_left -= 1
    _decide(p, f)
    return 0


cdef inline bint _strays(int64_t flags, int64_t hits) noexcept nogil:
    """ER-17 (followups.stray_shots): a strike row's shot strays, its d10 slot rolled, when it
    is under the friendly-fire rule (flag 1) and missed, or was at full cover (flag 2)."""
    return flags & 1 and (flags & 2 or not hits)


cdef int _stray_shots(const FightPlan* p, FightState* f, int64_t first, int64_t n, int64_t nb) noexcept nogil:
    """followups.stray_shots for a fight's attack (ER-17): strike by strike, a shot under the
    friendly-fire rule that missed (or was at a target behind full cover) rolls a d10 for
    the slot it strays into (the bystanders f.by, slots 1..nb); the creature there is
    checked with the pool's counting dice moved up against its own AC, a crit drawing its
    chain (`strays.stray_check`), ER-9 gives the attribute modifier to the first stray into each
    creature, ER-10 its resistance. The damage goes to f.by_dmg."""
    cdef int64_t s, k, e, bg, hits, chain, base
    cdef int64_t taken = 0, flags, dtype
    cdef long long got[4]
    cdef int roll
    cdef bint only_chain
    cdef const int32_t* pr
    cdef int64_t* o
    for k in range(nb):
        f.by_dmg[k] = 0
    for s in range(n):
        flags = p.row_info[2 * (first + s)]
        o = f.out + s * OUT_WIDTH
        if not _strays(flags, o[O_HITS]):
            continue
        roll = draw_gen(&f.dice, BY_SLOTS)
        if roll > nb:
            continue
        k = roll - 1
        e = f.by[k]
        bg = p.group[e]
        if p.stray_cond[bg] & 1:  # behind full cover: the shot hits nothing
            continue
        pr = p.plans + (first + s) * PLAN_WIDTH
        dtype = pr[P_TYPE]
        if stray_check(&f.dice, <int*>f.slog + 2 * o[O_LOG], 2, o[O_POOL], o[O_DISCARD], pr[P_TO_HIT],
                       p.stray_ac[bg * N_TYPES + dtype], p.row_info[2 * (first + s) + 1], pr[P_DISADV] != 0,
                       (p.stray_cond[bg] & 2) != 0, got, NULL) < 0:
            return E_CHAIN_LIMIT
        hits, chain = got[GOT_HITS], got[GOT_CHAIN]
        only_chain = (p.stray_cond[bg] & 4) != 0
        base = stray_base(hits, chain, only_chain)
        if hits > 0 and not only_chain and not (taken >> k) & 1:
            taken |= <int64_t>1 << k
            base += pr[P_MOD]
            if base < 0:
                base = 0
        f.by_dmg[k] += resist(base, <int>p.stray_resist[bg * N_TYPES + dtype])
    return 0


cdef inline bint _can_react(const FightPlan* p, const FightState* f, int64_t t) noexcept nogil:
    """ErRound._can_react: its reaction of the round left: not spent, not incapacitated
    (ER-13), not taken away by defending (ER-15)."""
    return not (f.reacted[t] == f.now or (p.shock and f.incap[t] > 0)
                or (p.defends and (f.defending[t] or f.no_react[t] >= f.now)))


cdef int _impale(const FightPlan* p, FightState* f, int64_t m, int64_t t) noexcept nogil:
    """ErRound._charge: m's first melee attack is its charge (ER-23); at t set against
    charges (an impalement laid out for their groups) with its reaction left (not spent,
    not incapacitated, not defending: `_can_react`), t impales m first, one random event
    rolled as the impale kind rolls it: a glaive's skill dice, read from a copy of the
    stream (impale.skill_faces), put it at disadvantage when one shows HEAVY_FACE or more
    (its heavy property); its damage lands on m at once, and if it is m's Body or more the
    charge is void (f.turn_done)."""
    cdef int64_t g = p.group[m], tg = p.group[t], damage = 0, logpos = 0, first, i
    cdef const int64_t* at
    cdef Dice peek
    cdef int err
    f.turn_done = False
    if f.charged[m] or p.charge[g] < 0:
        return 0
    if p.negates and f.neg_ws[m] == NEG_WEAPON_OUT and not p.neg_melee[g] & 4:
        return 0  # its weapon locked, no melee strike left in its attack to charge with
    f.charged[m] = 1
    at = p.impale_at + IMPALE_WIDTH * (g * p.groups + tg)
    if at[0] < 0 or not _can_react(p, f, t) or (p.negates and _neg_busy(f, t)):
        return 0
    f.reacted[t] = f.now
    _stream(f)
    first = at[0]
    if at[2] >= 0:  # a glaive
        peek = f.dice
        for i in range(at[3]):
            if draw_gen(&peek, 20) >= HEAVY_FACE:
                first = at[2]
                break
    f.stamp[0] = -1
    err = roll_attack(p.impale_rows, p.impale_masks, first, first + at[1], &f.dice, f.stamp, 0, NULL, NULL, 0,
                      &logpos, 0, &damage)
    if err:
        return err
    f.turn_done = damage >= f.hp[m]
    return _lands(p, f, t, m, damage)


cdef inline void _note_target(FightState* f, int64_t m, int64_t t) noexcept nogil:
    """ER-13, CT-7: whom m's turn attacked (or threw at): this round's target, the last round's kept."""
    if f.fo_r[m] != f.now:
        f.fo_pt[m], f.fo_pr[m] = f.fo_t[m], f.fo_r[m]
        f.fo_t[m], f.fo_r[m] = t, f.now


cdef inline bint _attacked_prior(const FightState* f, int64_t m, int64_t t) noexcept nogil:
    """CT-7: m attacked t in the prior round."""
    cdef int64_t prior = f.now - 1
    return (f.fo_r[m] == prior and f.fo_t[m] == t) or (f.fo_pr[m] == prior and f.fo_pt[m] == t)


cdef inline bint _fought(const FightState* f, int64_t m, int64_t t) noexcept nogil:
    """ER-13 (ErRound.situation): m attacked t, or t attacked m, in the prior round."""
    return _attacked_prior(f, m, t) or _attacked_prior(f, t, m)


cdef int _attack(const FightPlan* p, FightState* f, int64_t m, int64_t t, int64_t unit, bint spell,
                 int64_t r) noexcept nogil:
    """Fight._attack and _after_attack: m's attack `unit` at t from the next stream, in the
    situation the round puts it in: a target with no reserved action left cannot block or
    dodge (WW-5); CT: the weapons m has left, a power attack (CT-5), the target's parry
    (CT-6), no sneak attack at a target m attacked the round before (CT-7)."""
    cdef int64_t g = p.group[m], tg = p.group[t], v = 0, first, n, s, at
    cdef int64_t damage = 0, injury = 0, cost = 0, logpos = 0, nb = 0, i, e
    cdef const int64_t* sv
    cdef bint shocking = False
    cdef int err
    if p.side_turns and not spell:
        v = _ct_variant(p, f, m, t)
        if v < 0:
            return E_FIGHT_PLAN
    elif p.phased:
        v = f.leaving[t] != 0  # OS-3: a target that declared flight is a fleeing target
    elif not p.side_turns:
        v = p.reaction[t] and f.reserve[t] <= 0
        if p.strays and not spell and p.shoots[g]:  # ER-17: who stands next to the target (variant 1)
            for i in range(p.by_off[tg], p.by_off[tg + 1]):
                e = p.by_list[i]
                if e != t and e != m and f.status[e] == ST_STANDING:
                    f.by[nb] = e
                    nb += 1
                    if nb == BY_MAX:
                        break
            v = nb > 0
        if p.er_extra:
            i = 2  # the next variant bit
            if p.defends and p.can_defend[tg]:  # ER-15: at a defending target
                v += 2 * f.defending[t]
                i = 4
            if p.sneaks:
                if not spell and p.sneaky[g] and _fought(f, m, t):  # ER-13: t has not lost track of m
                    v += i
                _note_target(f, m, t)
            shocking = p.shock and p.shock_body[tg] >= 0  # ER-13: its sneak strikes may shock t
        if p.negates and not spell and p.neg_blocks[g] == 3:  # the block of its weapon's state this turn
            v += f.neg_ws[m] * (p.vcount[unit * p.groups + tg] // 3)
    if not 0 <= v < p.vcount[unit * p.groups + tg]:
        return E_FIGHT_PLAN
    at = p.vbase[unit * p.groups + tg] + v
    first, n = p.pair[2 * at], p.pair[2 * at + 1]
    if n <= 0:
        return E_FIGHT_PLAN
    _stream(f)
    f.attacks += 1
    if p.rows:
        err = _row_roll(p, f, t, at, &damage, &injury, &cost)
        if err:
            return err
    elif nb:  # the strikes with their dice logged and their rows out, then the strays (and the shock save)
        f.stamp[0] = -1
        if n * SLOG_STRIKE > f.slog_cap:
            return E_FIGHT_PLAN
        err = roll_attack(p.plans + first * PLAN_WIDTH, p.masks + 2 * first, 0, n, &f.dice, f.stamp, 0, f.out,
                          f.slog, f.slog_cap, &logpos, 0, NULL)
        if err:
            return err
        for s in range(n):
            damage += f.out[s * OUT_WIDTH + O_DAMAGE]
        err = _stray_shots(p, f, first, n, nb)
        if err:
            return err
        if shocking:
            _shock(p, f, t, first, n)
    elif shocking:  # the strikes with their rows out, then the shock save
        f.stamp[0] = -1
        err = roll_attack(p.plans + first * PLAN_WIDTH, p.masks + 2 * first, 0, n, &f.dice, f.stamp, 0, f.out,
                          NULL, 0, &logpos, 0, NULL)
        if err:
            return err
        for s in range(n):
            damage += f.out[s * OUT_WIDTH + O_DAMAGE]
            if _strays(p.row_info[2 * (first + s)], f.out[s * OUT_WIDTH + O_HITS]):
                draw_gen(&f.dice, BY_SLOTS)  # ER-17: a missed shot's stray slot, with no one next to t: empty
        _shock(p, f, t, first, n)
    else:
        err = _plain_roll(p, f, first, n, &damage)
        if err:
            return err
    f.dealt[m] += damage + injury
    f.taken[t] += damage + injury
    if p.side_turns:
        _ct_attacked(p, f, m, t, spell, n, cost)
    if p.phased:
        sv = p.os_save_or + 3 * g
        if p.os_saves and sv[0] >= 0 and forces(<int>sv[1], spell) and f.status[t] == ST_STANDING:
            # OS-5 (OsRound.attacked): the save_or's saving throw, hit or miss, the next random event
            _stream(f)
            if not saves(draw_gen(&f.dice, 20), sv[2], p.os_save_num[sv[0] * p.groups + tg]):
                f.os_failed[t] = 1
        # a slot of several sides lands a phase's damage when the phase ends
        if f.defer:
            f.pend_t[f.pend_n] = t
            f.pend_d[f.pend_n] = damage
            f.pend_n += 1
        else:
            _os_harm(p, f, t, damage)
        return 0
    if p.reactions and not spell and p.engages_u[unit] and not (
            p.negates and f.neg_ws[m] == NEG_WEAPON_OUT and not p.neg_melee[g] & 4):  # its weapon's strike left out
        # engaged in melee, both ways (ER-20 flee attacks, Worldwalker attacks of opportunity)
        err = _engage(f, m, t)
        if err:
            return err
    for i in range(nb):  # ER-17: a stray's damage lands on its bystander, in bystander order
        e = f.by[i]
        if f.by_dmg[i] and f.status[e] == ST_STANDING:
            f.dealt[m] += f.by_dmg[i]
            f.taken[e] += f.by_dmg[i]
            err = _harm(p, f, e, f.by_dmg[i], 0)
            if err:
                return err
    return _harm(p, f, t, damage, injury)


cdef int _fight(const FightPlan* p, FightState* f, uint64_t fight_seed, int64_t* rounds) noexcept nogil:
    """One whole fight (Fight + simulate.play_batch's loop); returns an error code."""
    cdef int64_t i, m, t, n, r = 0, slot, g, u, first, count, skip
    cdef int err
    # read once: the writes to f below could alias the plan's flags for the C compiler
    cdef bint feints = p.feints
    cdef bint extras = feints or p.shock or p.defends or p.throws or p.charges or p.negates  # one test a turn where none is
    f.sides_left = 0
    for i in range(p.sides):
        f.side_standing[i] = 0
    # Every member afresh, in bulk copies: a horde's fight is short next to its 300 members
    # (ST_STANDING and PARRY_NONE are 0).
    memcpy(f.hp, p.hp, p.members * sizeof(int64_t))
    memset(f.status, 0, p.members * sizeof(int32_t))
    memcpy(f.spell, p.spell_uses, p.members * sizeof(int64_t))
    memset(f.dealt, 0, p.members * sizeof(int64_t))
    memset(f.taken, 0, p.members * sizeof(int64_t))
    memcpy(f.near_at, p.near_off, p.members * sizeof(int64_t))
    memcpy(f.focus_at, p.focus_off, p.members * sizeof(int64_t))
    memcpy(f.injury, p.injury, p.members * sizeof(int64_t))
    memset(f.casting, 0, p.members * sizeof(int32_t))
    if p.side_turns:
        memset(f.broken, 0, p.members * sizeof(int64_t))
        memset(f.parrying, 0, p.members * sizeof(int32_t))
        memcpy(f.weapon_left, p.weapon0, p.members * sizeof(int64_t))
        memcpy(f.shield_left, p.shield0, p.members * sizeof(int64_t))
        memset(f.turns, 0, p.members * sizeof(int64_t))
    for i in range(p.members):
        f.side_standing[p.side[i]] += 1
    for i in range(p.sides):
        if f.side_standing[i]:
            f.sides_left += 1
    f.over = False
    f.winner = -1
    f.once_n = 0
    f.epoch += p.max_rounds + 2  # a new fight: no one attacked anyone the round before its first
    if p.feints:
        memset(f.feinted, 0, p.members * sizeof(int64_t))
    if p.defends:
        memset(f.defending, 0, p.members * sizeof(int32_t))
    if p.shock:
        memset(f.incap, 0, p.members * sizeof(int64_t))
    if p.throws:
        memset(f.thrown, 0, p.members * sizeof(int64_t))
    if p.charges:
        memset(f.charged, 0, p.members * sizeof(int32_t))
    if p.negates:
        for i in range(p.members):
            f.neg_hold[i] = f.neg_pin[i] = -1
        memset(f.neg_free, 0, p.members * sizeof(int64_t))
        memset(f.neg_disarmed, 0, p.members * sizeof(int32_t))
        memset(f.neg_ws, 0, p.members * sizeof(int32_t))
    if p.any_weakest:
        _wk_build(p, f)
    if p.any_walk:
        for i in range(p.members + 1):
            f.next_up[i] = i
            f.next_down[i] = i
    if p.any_random:
        memcpy(f.fw, p.fw_init, p.sides * p.fw_n * sizeof(int32_t))
        memcpy(f.eb, p.eb_init, p.sides * p.fw_words * sizeof(uint64_t))
    if p.phased:  # OS-4: every group's morale afresh, each unit's counts
        for g in range(p.groups):
            f.g_standing[g] = 0
            f.g_succ[g] = 0
            f.g_broken[g] = 0
            f.g_death[g] = fights_to_death(p.morale[g], 0)
        for u in range(p.units_n):
            f.u_standing[u] = 0
            f.u_killed[u] = 0
            f.u_fired[u] = 0
        for i in range(p.members):
            f.g_standing[p.group[i]] += 1
            f.u_standing[p.member_unit[i]] += 1
    while not f.over:
        r += 1
        f.round_seed = _chunk_seed(fight_seed, <uint64_t>r)
        f.k = 0
        f.now = f.epoch + r
        if p.rows or r == 1:  # WW-5: actions held in reserve, for this round (spent on the strike-row kernel only)
            memcpy(f.reserve, p.reserve, p.members * sizeof(int64_t))
        if p.phased:
            err = _os_round(p, f, r)
            if err:
                return err
            if not f.over and r >= p.max_rounds:
                f.over = True
            continue
        if p.side_turns:
            err = _ct_round(p, f, r)
            if err:
                return err
            if not f.over and r >= p.max_rounds:
                f.over = True
            continue
        err = _initiative(p, f, &n)
        if err:
            return err
        if p.spells:  # casters with a use left cast this round (the others never do: 0 since the fight began)
            for i in range(p.casters_n):
                m = p.casters[i]
                f.casting[m] = f.status[m] == ST_STANDING and f.spell[m] > 0
        for slot in range(n):
            if f.over:
                break
            m = f.order[slot]
            if f.status[m] != ST_STANDING:
                continue
            g = p.group[m]
            if extras:
                err = _turn_start(p, f, m)
                if err:
                    return err
                if f.turn_done:
                    continue
            if f.casting[m]:
                f.spell[m] -= 1
                t = _choose(p, f, m)
                if t >= 0:
                    err = _attack(p, f, m, t, p.units[3 * g + 2], True, r)
            elif p.units[3 * g + 1]:
                first, count, skip = p.units[3 * g], p.units[3 * g + 1], 0
                if extras and feints:  # WW-7 (WwRound.turn): a strike to feint feints, no attack
                    skip = p.feint_units[g] & ~f.feinted[m]
                    f.feinted[m] |= skip
                    if skip == (<int64_t>1 << count) - 1:
                        continue  # every strike feints this turn: no attack, no target
                t = _choose(p, f, m)
                if extras and t >= 0:
                    err = _before_attack(p, f, m, t)
                    if err:
                        return err
                    if f.turn_done:
                        continue
                # one attack, or (WW-5) one per strike while the target stands
                for u in range(first, first + count):
                    if skip and (skip >> (u - first)) & 1:
                        continue
                    if t < 0 or f.status[t] != ST_STANDING:
                        break
                    err = _attack(p, f, m, t, u, False, r)
                    if err:
                        break
                    if extras and feints:
                        f.feinted[m] &= ~(<int64_t>1 << (u - first))  # WW-7: the feint's attack is made
            if err:
                return err
        if not f.over and r >= p.max_rounds:
            f.over = True  # max_rounds: a draw
    rounds[0] = r
    return 0


cdef void* _grab(list keep, Py_ssize_t nbytes) except NULL:
    buf = bytearray(max(nbytes, 8))
    keep.append(buf)
    return <void*><char*>buf


def play_fights(dict arrays, uint64_t seed, int64_t first, int64_t count, int64_t[::1] totals):
    """Fights first..first+count-1 of a scenario compiled by fastfight.FastPlan, added to
    `totals` (laid out as FastPlan.play reads it). Returns (fights played, error code, the
    fight that stopped): on an error (a crit chain or tie past its limit) the fights before
    it are in `totals` and the Python loop plays that fight again to report the error as
    it always has; and the attacks (and spells) the fights played rolled."""
    cdef const int32_t[::1] side = arrays["side"], group = arrays["group"], tactic = arrays["tactic"]
    cdef const int32_t[::1] reaction = arrays["reaction"]
    cdef const int64_t[::1] init_sub = arrays["init_sub"], units = arrays["units"], reserve = arrays["reserve"]
    cdef const int64_t[::1] tinit = arrays["tinit"], vbase = arrays["vbase"], injury = arrays["injury"]
    cdef const int64_t[::1] vcount = arrays["vcount"]
    cdef const int64_t[::1] weapon0 = arrays["weapon0"], shield0 = arrays["shield0"], ct_group = arrays["ct_group"]
    cdef const int64_t[::1] own_power = arrays["own_power"], parry_dims = arrays["parry_dims"]
    cdef const int64_t[::1] ct_init = arrays["ct_init"]
    cdef const int64_t[::1] react_unit = arrays["react_unit"], leave_draws = arrays["leave_draws"]
    cdef const int64_t[::1] engages = arrays["engages"]
    cdef const int64_t[::1] shoots = arrays["shoots"], by_off = arrays["by_off"], by_list = arrays["by_list"]
    cdef const int64_t[::1] stray_ac = arrays["stray_ac"], stray_resist = arrays["stray_resist"]
    cdef const int64_t[::1] stray_cond = arrays["stray_cond"], row_info = arrays["row_info"]
    cdef const int32_t[::1] near = arrays["near"], focus = arrays["focus"], plans = arrays["plans"]
    cdef const int64_t[::1] hp = arrays["hp"], flee_at = arrays["flee_at"], spell_uses = arrays["spell_uses"]
    cdef const int64_t[::1] init_mod = arrays["init_mod"], near_off = arrays["near_off"]
    cdef const int64_t[::1] focus_off = arrays["focus_off"], pair = arrays["pair"]
    cdef const int64_t[::1] os_side = arrays["os_side"], os_phase = arrays["os_phase"], os_flee = arrays["os_flee"]
    cdef const int64_t[::1] os_save_or = arrays["os_save_or"], os_save_num = arrays["os_save_num"]
    cdef const int64_t[::1] morale = arrays["morale"], morale_mod = arrays["morale_mod"]
    cdef const int64_t[::1] group_unit = arrays["group_unit"], unit_start = arrays["unit_start"]
    cdef const int64_t[::1] unit_first = arrays["unit_first"]
    cdef const int32_t[::1] member_unit = arrays["member_unit"]
    cdef FightPlan p
    cdef FightState f
    cdef int64_t members = side.shape[0], groups = arrays["groups"], sides = arrays["sides"]
    cdef int64_t max_rounds = arrays["max_rounds"], widest = arrays["widest"]
    cdef int64_t i, g, fight, rounds = 0, played = 0
    cdef int err = 0
    cdef int64_t* tot
    cdef list keep = []
    if (members < 2 or members >= (1 << 20) or group.shape[0] != members or hp.shape[0] != members
            or reaction.shape[0] != members or tactic.shape[0] != members or init_mod.shape[0] != members
            or flee_at.shape[0] != members or spell_uses.shape[0] != members or init_sub.shape[0] != members
            or reserve.shape[0] != members or injury.shape[0] != members or weapon0.shape[0] != members
            or shield0.shape[0] != members):
        raise ValueError("a fight plan's member arrays disagree")
    for i in range(members):  # weakest: health << WK_SHIFT | index stays an int64
        if not 0 < hp[i] < (<int64_t>1 << 40) or not -1 <= injury[i] < (<int64_t>1 << 40):
            raise ValueError("a fight plan's hp or injury is out of range")
    cdef bint rows = arrays["rows"]
    cdef int64_t width = XPLAN_WIDTH if rows else PLAN_WIDTH, n_rows = plans.shape[0] // width, u
    cdef int64_t n_units = 0
    if react_unit.shape[0] != groups or leave_draws.shape[0] != groups or engages.shape[0] != groups:
        raise ValueError("a fight plan's reaction tables disagree")
    for g in range(groups):
        n_units += units[3 * g + 1] + (units[3 * g + 2] >= 0) + (react_unit[g] >= 0)
    cdef int64_t n_variants = pair.shape[0] // 2
    if (units.shape[0] != 3 * groups or vbase.shape[0] != n_units * groups or vcount.shape[0] != n_units * groups or near_off.shape[0] != members + 1
            or focus_off.shape[0] != members + 1 or tinit.shape[0] != n_variants * XS_WIDTH
            or ct_group.shape[0] != groups * CTG or own_power.shape[0] != groups or parry_dims.shape[0] != 2 * groups
            or ct_init.shape[0] != 24):
        raise ValueError("a fight plan's tables disagree")
    for g in range(groups):
        if (units[3 * g] < 0 or units[3 * g] + units[3 * g + 1] > n_units or units[3 * g + 2] >= n_units
                or not -1 <= react_unit[g] < n_units):
            raise ValueError("a fight plan's units disagree")
        if not 0 <= ct_group[g * CTG + CTG_STRIKES] <= 16 or parry_dims[2 * g] < 0 or parry_dims[2 * g + 1] < 0:
            raise ValueError("a fight plan's Cartyrion fields disagree")
    for u in range(n_units * groups):  # _attack checks its variant against vcount
        if vbase[u] < 0 or vcount[u] < 0 or vbase[u] + vcount[u] > n_variants:
            raise ValueError("a fight plan's variant table is out of range")
    for u in range(n_variants):
        if pair[2 * u] < 0 or pair[2 * u + 1] < 0 or pair[2 * u] + pair[2 * u + 1] > n_rows:
            raise ValueError("a fight plan's pair table is out of its rows")
    if near_off[members] != near.shape[0] or focus_off[members] != focus.shape[0]:
        raise ValueError("a fight plan's target lists disagree")
    if totals.shape[0] != 2 * sides + 1 + max_rounds + 1 + 5 * members:
        raise ValueError("the totals buffer has the wrong length")
    if rows:
        if n_rows:
            check_xplan(plans, _pyarray.array("q", [0, n_rows, 1]), 1, _pyarray.array("q", [0] * XS_WIDTH))
        masks_obj = plan_masks(_pyarray.array("i"))
    else:
        check_rows(plans, n_rows, 1)
        masks_obj = plan_masks(plans)
    cdef const uint32_t[::1] masks = masks_obj
    p.members, p.groups, p.sides, p.max_rounds = members, groups, sides, max_rounds
    p.side, p.group, p.hp, p.flee_at = &side[0], &group[0], &hp[0], &flee_at[0]
    p.spell_uses, p.tactic, p.init_mod, p.reaction = &spell_uses[0], &tactic[0], &init_mod[0], &reaction[0]
    casters = _pyarray.array("q", [0])
    for i in range(members):
        if spell_uses[i] > 0:
            casters.append(i)
    keep.append(casters)
    cdef const int64_t[::1] casters_v = casters
    p.casters = &casters_v[1]
    p.casters_n = len(casters) - 1
    p.spells = p.casters_n > 0
    p.rows, p.init_once, p.init_die = rows, arrays["init_once"], arrays["init_die"]
    if p.init_die not in (10, 20):
        raise ValueError("the initiative die is a d10 or a d20")
    p.init_sub, p.units, p.reserve = &init_sub[0], &units[0], &reserve[0]
    p.side_turns = arrays["side_turns"]
    p.phased = arrays["phased"]
    p.has_morale = arrays["has_morale"]
    p.os_ties = arrays["os_ties"]
    p.units_n = unit_start.shape[0]
    if p.phased and (p.side_turns or not p.rows or sides > OS_MAX_SIDES):
        raise ValueError("an old-school fight plan is of strike rows and at most 64 sides")
    if (os_side.shape[0] != sides or os_phase.shape[0] != groups or os_flee.shape[0] != groups
            or morale.shape[0] != groups or morale_mod.shape[0] != groups or group_unit.shape[0] != groups
            or unit_first.shape[0] != p.units_n or member_unit.shape[0] != members or p.units_n < 1):
        raise ValueError("a fight plan's old-school tables disagree")
    for g in range(groups):
        if not 0 <= group_unit[g] < p.units_n:
            raise ValueError("a fight plan's morale units disagree")
    if os_save_or.shape[0] != 3 * groups or os_save_num.shape[0] % groups:
        raise ValueError("a fight plan's saving throw tables disagree")
    p.os_saves = False
    for g in range(groups):
        if (not -1 <= os_save_or[3 * g] < os_save_num.shape[0] // groups
                or not BY_ANY <= os_save_or[3 * g + 1] <= BY_SPELL):
            raise ValueError("a fight plan's saving throw tables disagree")
        p.os_saves = p.os_saves or os_save_or[3 * g] >= 0
    if p.os_saves and not p.phased:
        raise ValueError("saving throws (OS-5) are an old-school fight plan's")
    p.os_save_or = &os_save_or[0]
    p.os_save_num = &os_save_num[0] if os_save_num.shape[0] else NULL
    for i in range(members):
        if not 0 <= member_unit[i] < p.units_n or member_unit[i] != group_unit[group[i]]:
            raise ValueError("a fight plan's morale units disagree")
    for i in range(p.units_n):
        if not 0 <= unit_first[i] < members or unit_start[i] < 1:
            raise ValueError("a fight plan's morale units disagree")
    p.os_side, p.os_phase, p.os_flee = &os_side[0], &os_phase[0], &os_flee[0]
    p.morale, p.morale_mod, p.group_unit = &morale[0], &morale_mod[0], &group_unit[0]
    p.unit_start, p.unit_first, p.member_unit = &unit_start[0], &unit_first[0], &member_unit[0]
    if p.side_turns and (sides != 2 or members > 2048):
        raise ValueError("a Cartyrion fight plan is for two sides and at most 2,048 combatants")
    p.injury, p.weapon0, p.shield0 = &injury[0], &weapon0[0], &shield0[0]
    p.react_unit, p.leave_draws, p.engages = &react_unit[0], &leave_draws[0], &engages[0]
    engages_u = _pyarray.array("i", [0] * max(n_units, 1))
    for g in range(groups):
        for u in range(units[3 * g + 1]):
            engages_u[units[3 * g] + u] = (engages[g] >> u) & 1
    keep.append(engages_u)
    cdef const int32_t[::1] engages_uv = engages_u
    p.engages_u = &engages_uv[0]
    p.reactions = False
    for g in range(groups):
        p.reactions = p.reactions or (leave_draws[g] != 0)
    if p.reactions:
        p.reactions = False
        for g in range(groups):
            p.reactions = p.reactions or react_unit[g] >= 0
    if p.reactions and (p.side_turns or p.phased):
        raise ValueError("reactions at a leaving enemy are for one combatant a slot")
    cdef const int64_t[::1] sneaky = arrays["sneaky"], feint_units = arrays["feint_units"]
    cdef const int64_t[::1] defend_at = arrays["defend_at"], can_defend = arrays["can_defend"]
    cdef const int64_t[::1] shock_body = arrays["shock_body"], shock_save = arrays["shock_save"]
    if shock_body.shape[0] != groups or shock_save.shape[0] != 6 * groups:
        raise ValueError("a fight plan's shock tables disagree")
    for g in range(6 * groups):
        if not 0 <= shock_save[g] <= 2 and g % 3 != 2:
            raise ValueError("a fight plan's shock tables disagree")
    p.shock, p.shock_body, p.shock_save = arrays["shock"], &shock_body[0], &shock_save[0]
    if p.shock and (rows or p.side_turns or p.phased or row_info.shape[0] != 2 * n_rows):
        raise ValueError("ER-13 shock is an Enchanted Realms round's, with its rows' flags")
    if defend_at.shape[0] != members or can_defend.shape[0] != groups:
        raise ValueError("a fight plan's defend tables disagree")
    p.defend_at, p.can_defend, p.defends = &defend_at[0], &can_defend[0], False
    for g in range(groups):
        p.defends = p.defends or can_defend[g] != 0
    if p.defends and (rows or p.side_turns or p.phased):
        raise ValueError("ER-15 defending is an Enchanted Realms round's")
    if sneaky.shape[0] != groups or feint_units.shape[0] != groups:
        raise ValueError("a fight plan's sneak or feint table disagrees")
    p.feints, p.feint_units = False, &feint_units[0]
    for g in range(groups):
        if feint_units[g] < 0 or units[3 * g + 1] > 62 or feint_units[g] >> units[3 * g + 1]:
            raise ValueError("a fight plan's feint table disagrees with its units")
        p.feints = p.feints or feint_units[g] != 0
    if p.feints and not rows:
        raise ValueError("WW-7 feints are rolled on the strike-row kernel")
    p.sneaks, p.sneaky = arrays["sneaks"], &sneaky[0]
    if p.sneaks and (rows or p.side_turns or p.phased):
        raise ValueError("ER-13 sneak attacks are rolled on the ER kernel")
    p.er_extra = p.sneaks or p.defends or p.shock
    cdef const int64_t[::1] throw_off = arrays["throw_off"], throw_n = arrays["throw_n"]
    cdef const int64_t[::1] throw_plan = arrays["throw_plan"]
    cdef int64_t items = 0
    if throw_off.shape[0] != groups or throw_n.shape[0] != groups:
        raise ValueError("a fight plan's throw tables disagree")
    for g in range(groups):
        if throw_off[g] != items or throw_n[g] < 0:
            raise ValueError("a fight plan's throw tables disagree")
        items += throw_n[g]
    if throw_plan.shape[0] != items * groups * THROW_WIDTH:
        raise ValueError("a fight plan's throw tables disagree")
    for i in range(items * groups):
        if (not 0 <= throw_plan[i * THROW_WIDTH] <= 8 or not 0 <= throw_plan[i * THROW_WIDTH + 3] <= 1
                or not 0 <= throw_plan[i * THROW_WIDTH + 4] <= 100 or not 0 <= throw_plan[i * THROW_WIDTH + 5] <= 1000
                or not 0 <= throw_plan[i * THROW_WIDTH + 7] <= 3):
            raise ValueError("a fight plan's throw is out of range")
    p.throws, p.throw_off, p.throw_n = items > 0, &throw_off[0], &throw_n[0]
    p.throw_plan = &throw_plan[0] if items else NULL
    if p.throws and (rows or p.side_turns or p.phased):
        raise ValueError("thrown items are an Enchanted Realms round's")
    cdef const int64_t[::1] charge = arrays["charge"], impale_at = arrays["impale_at"]
    cdef const int32_t[::1] impale_rows = arrays["impale_rows"]
    p.charges = impale_at.shape[0] > 0
    if charge.shape[0] != groups or (p.charges and impale_at.shape[0] != IMPALE_WIDTH * groups * groups):
        raise ValueError("a fight plan's charge tables disagree")
    if p.charges:
        if rows or p.side_turns or p.phased:
            raise ValueError("ER-23 charges are an Enchanted Realms round's")
        check_rows(impale_rows, impale_rows.shape[0] // PLAN_WIDTH, 1)
        for i in range(0, IMPALE_WIDTH * groups * groups, IMPALE_WIDTH):
            if impale_at[i] >= 0 and (impale_at[i + 1] <= 0 or impale_at[i] + impale_at[i + 1]
                                      > impale_rows.shape[0] // PLAN_WIDTH
                                      or (impale_at[i + 2] >= 0 and (impale_at[i + 2] + impale_at[i + 1]
                                                                     > impale_rows.shape[0] // PLAN_WIDTH
                                                                     or not 0 < impale_at[i + 3] <= 8))):
                raise ValueError("a fight plan's impalement is out of its rows")
        impale_masks_obj = plan_masks(impale_rows)
        keep.append(impale_masks_obj)
    cdef const uint32_t[::1] impale_masks = impale_masks_obj if p.charges else masks
    cdef const int64_t[::1] neg_mode = arrays["neg_mode"], neg_blitz = arrays["neg_blitz"]
    cdef const int64_t[::1] neg_weapon = arrays["neg_weapon"], neg_dice = arrays["neg_dice"]
    cdef const int64_t[::1] neg_melee = arrays["neg_melee"], neg_blocks = arrays["neg_blocks"]
    cdef const int64_t[::1] neg_table = arrays["neg_table"]
    p.negates = arrays["negates"]
    if (neg_mode.shape[0] != groups or neg_blitz.shape[0] != groups or neg_weapon.shape[0] != groups
            or neg_dice.shape[0] != groups or neg_melee.shape[0] != groups or neg_blocks.shape[0] != groups
            or neg_table.shape[0] != (NEG_WIDTH * groups * groups if p.negates else 0)):
        raise ValueError("a fight plan's negation tables disagree")
    if p.negates:
        if rows or p.side_turns or p.phased:
            raise ValueError("weapon negation is an Enchanted Realms round's")
        for g in range(groups):
            if (not 0 <= neg_mode[g] <= NEG_DISARM or not -1 <= neg_weapon[g] < 64 or neg_blocks[g] not in (1, 3)
                    or not 0 <= neg_dice[g] <= 100):
                raise ValueError("a fight plan's negation tables disagree")
            for u in range(units[3 * g], units[3 * g] + units[3 * g + 1]):
                for i in range(groups):
                    if neg_blocks[g] == 3 and vcount[u * groups + i] % 3:
                        raise ValueError("a fight plan's negation variants disagree")
        for i in range(0, NEG_WIDTH * groups * groups, NEG_WIDTH):
            if (not 0 <= neg_table[i] <= 2 or not 0 <= neg_table[i + 4] <= 2 or not 0 <= neg_table[i + 6] <= 2
                    or not 0 <= neg_table[i + 9] <= 3):
                raise ValueError("a fight plan's negation table is out of range")
    p.neg_mode, p.neg_blitz, p.neg_weapon = &neg_mode[0], &neg_blitz[0], &neg_weapon[0]
    p.neg_dice, p.neg_melee, p.neg_blocks = &neg_dice[0], &neg_melee[0], &neg_blocks[0]
    p.neg_table = &neg_table[0] if p.negates else NULL
    p.charge, p.impale_at = &charge[0], &impale_at[0] if p.charges else NULL
    p.impale_rows = &impale_rows[0] if impale_rows.shape[0] else NULL
    p.impale_masks = &impale_masks[0]
    p.strays = arrays["strays"]
    if (shoots.shape[0] != groups or by_off.shape[0] != groups + 1 or stray_ac.shape[0] != groups * N_TYPES
            or stray_resist.shape[0] != groups * N_TYPES or stray_cond.shape[0] != groups
            or row_info.shape[0] != 2 * n_rows or by_off[0] != 0 or by_off[groups] != by_list.shape[0]):
        raise ValueError("a fight plan's stray tables disagree")
    if p.strays and (rows or p.side_turns or p.phased):
        raise ValueError("stray shots are rolled on the ER kernel")
    for g in range(groups):
        if by_off[g] > by_off[g + 1]:
            raise ValueError("a fight plan's stray tables disagree")
        for i in range(N_TYPES):
            if not 0 <= stray_resist[g * N_TYPES + i] <= 3:
                raise ValueError("a fight plan's stray tables disagree")
    for i in range(by_list.shape[0]):
        if not 0 <= by_list[i] < members:
            raise ValueError("a fight plan's stray tables disagree")
    p.shoots, p.by_off, p.stray_ac, p.stray_resist = &shoots[0], &by_off[0], &stray_ac[0], &stray_resist[0]
    p.by_list = &by_list[0] if by_list.shape[0] else NULL
    p.stray_cond = &stray_cond[0]
    p.row_info = &row_info[0] if row_info.shape[0] else NULL
    p.ct_group, p.own_power, p.parry_dims, p.ct_init = &ct_group[0], &own_power[0], &parry_dims[0], &ct_init[0]
    p.vbase = &vbase[0] if vbase.shape[0] else NULL
    p.vcount = &vcount[0] if vcount.shape[0] else NULL
    p.tinit = &tinit[0] if tinit.shape[0] else NULL
    p.init_low = min(arrays["init_mod"]) + 1
    p.init_span = max(arrays["init_mod"]) - min(arrays["init_mod"]) + p.init_die
    p.sub_low = min(arrays["init_sub"])
    p.sub_span = max(arrays["init_sub"]) - p.sub_low + 1
    if p.init_span * p.sub_span > (1 << 16):
        raise ValueError("initiative modifiers too far apart for the counting sort")
    p.near_off = &near_off[0]
    p.near = &near[0] if near.shape[0] else NULL
    p.focus_off = &focus_off[0]
    p.focus = &focus[0] if focus.shape[0] else NULL
    p.plans = &plans[0] if plans.shape[0] else NULL
    p.masks = &masks[0]
    p.pair = &pair[0] if pair.shape[0] else NULL
    f.hp = <int64_t*>_grab(keep, members * 8)
    f.status = <int32_t*>_grab(keep, members * 4)
    f.spell = <int64_t*>_grab(keep, members * 8)
    f.dealt = <int64_t*>_grab(keep, members * 8)
    f.taken = <int64_t*>_grab(keep, members * 8)
    f.near_at = <int64_t*>_grab(keep, members * 8)
    f.focus_at = <int64_t*>_grab(keep, members * 8)
    f.side_standing = <int64_t*>_grab(keep, sides * 8)
    f.casting = <int32_t*>_grab(keep, members * 4)
    f.order = <int32_t*>_grab(keep, members * 4)
    f.keys = <int64_t*>_grab(keep, members * 8)
    f.tie = <int32_t*>_grab(keep, members * 4)
    f.bucket = <int64_t*>_grab(keep, (p.init_span * p.sub_span + 1) * 8)
    f.out = <int64_t*>_grab(keep, max(widest, 1) * max(OUT_WIDTH, XOUT_WIDTH) * 8)
    f.once = <int32_t*>_grab(keep, members * 4)
    f.reserve = <int64_t*>_grab(keep, members * 8)
    f.injury = <int64_t*>_grab(keep, members * 8)
    f.broken = <int64_t*>_grab(keep, members * 8)
    f.parrying = <int32_t*>_grab(keep, members * 4)
    f.weapon_left = <int64_t*>_grab(keep, members * 8)
    f.shield_left = <int64_t*>_grab(keep, members * 8)
    f.turns = <int64_t*>_grab(keep, members * 8)
    f.acts = <int32_t*>_grab(keep, members * 4)
    # who engaged whom (reactions): a round's records are two for each attack its members'
    # turns make (one turn each, a spell engages no one) and each reaction (one each)
    f.eg_cap = 0
    if p.reactions:
        for i in range(members):
            f.eg_cap += 2 * (max(units[3 * group[i] + 1], 1) + 1)
    f.eg_head = <int64_t*>_grab(keep, 2 * members * 8)
    f.eg_stamp = <int64_t*>_grab(keep, 2 * members * 8)  # zeros: before every epoch
    for i in range(2):
        f.eg_other[i] = <int32_t*>_grab(keep, f.eg_cap * 4)
        f.eg_next[i] = <int64_t*>_grab(keep, f.eg_cap * 8)
        f.eg_used[i] = f.eg_pool[i] = 0
    f.eg_mark = <int64_t*>_grab(keep, members * 8)
    f.eg_token = 0
    f.eg_list = <int32_t*>_grab(keep, members * 4)
    f.feinted = <int64_t*>_grab(keep, members * 8)
    f.defending = <int32_t*>_grab(keep, members * 4)
    f.incap = <int64_t*>_grab(keep, members * 8)
    f.thrown = <int64_t*>_grab(keep, members * 8)
    f.charged = <int32_t*>_grab(keep, members * 4)
    f.neg_hold = <int64_t*>_grab(keep, members * 8)
    f.neg_pin = <int64_t*>_grab(keep, members * 8)
    f.neg_free = <int64_t*>_grab(keep, members * 8)
    f.neg_disarmed = <int32_t*>_grab(keep, members * 4)
    f.neg_ws = <int32_t*>_grab(keep, members * 4)
    f.no_react = <int64_t*>_grab(keep, members * 8)  # zeros: before every epoch
    f.fo_t = <int64_t*>_grab(keep, members * 8)  # zeros: before every epoch
    f.fo_r = <int64_t*>_grab(keep, members * 8)
    f.fo_pt = <int64_t*>_grab(keep, members * 8)
    f.fo_pr = <int64_t*>_grab(keep, members * 8)
    f.reacted = <int64_t*>_grab(keep, members * 8)
    f.slog_cap = max(widest, 1) * SLOG_STRIKE if p.strays else 0
    f.slog = <int32_t*>_grab(keep, f.slog_cap * 2 * 4)
    f.now = 0
    f.epoch = 0
    f.leaving = <int32_t*>_grab(keep, members * 4)
    f.hurt = <int32_t*>_grab(keep, members * 4)
    f.os_able = <int32_t*>_grab(keep, members * 4)
    f.os_failed = <int32_t*>_grab(keep, members * 4)
    f.g_standing = <int64_t*>_grab(keep, groups * 8)
    f.g_succ = <int64_t*>_grab(keep, groups * 8)
    f.g_broken = <int32_t*>_grab(keep, groups * 4)
    f.g_death = <int32_t*>_grab(keep, groups * 4)
    f.u_standing = <int64_t*>_grab(keep, p.units_n * 8)
    f.u_killed = <int64_t*>_grab(keep, p.units_n * 8)
    f.u_fired = <int64_t*>_grab(keep, p.units_n * 8)
    f.u_noted = <int64_t*>_grab(keep, p.units_n * (TRIGGERS + 1) * 8)
    f.os_slot_end = <int64_t*>_grab(keep, sides * 8)
    f.os_together = <int32_t*>_grab(keep, sides * 4)
    f.pend_t = <int64_t*>_grab(keep, members * 8)
    f.pend_d = <int64_t*>_grab(keep, members * 8)
    f.defer = False
    # weakest and random: per side trees, laid out here once (docs: targets in flat time)
    p.any_weakest = p.any_random = False
    for i in range(members):
        p.any_weakest = p.any_weakest or tactic[i] == TAC_WEAKEST
        p.any_random = p.any_random or tactic[i] == TAC_RANDOM
    wk_off = _pyarray.array("q", bytes(8 * sides))
    wk_size = _pyarray.array("q", bytes(8 * sides))
    side_pos = _pyarray.array("q", bytes(8 * members))
    on_side = [0] * sides
    for i in range(members):
        if not 0 <= side[i] < sides:
            raise ValueError("a fight plan's sides disagree")
        side_pos[i] = on_side[side[i]]
        on_side[side[i]] += 1
    cdef int64_t nodes = 0, size
    for g in range(sides):
        size = 1
        while size < on_side[g]:
            size <<= 1
        wk_off[g], wk_size[g] = nodes, size
        nodes += 2 * size
    cdef int64_t fw_words = (members + 63) >> 6 if p.any_random else 1, fw_n = (fw_words + 7) & ~7
    fw_init = _pyarray.array("i", bytes(4 * sides * fw_n))
    eb_init = _pyarray.array("Q", bytes(8 * sides * fw_words))
    cdef int32_t[::1] fw_init_v = fw_init
    cdef uint64_t[::1] eb_init_v = eb_init
    cdef int64_t j, tree
    if p.any_random:
        for i in range(members):  # in the bitset of every side but its own, counted by the words after its own
            for tree in range(sides):
                if tree != side[i]:
                    eb_init_v[tree * fw_words + (i >> 6)] |= <uint64_t>1 << (i & 63)
                    if (i >> 6) + 1 < fw_words:
                        fw_init_v[tree * fw_n + (i >> 6) + 1] += 1
        for tree in range(sides):  # the prefix counts of each side's words; never below k past them
            for j in range(1, fw_n):
                if j < fw_words:
                    fw_init_v[tree * fw_n + j] += fw_init_v[tree * fw_n + j - 1]
                else:
                    fw_init_v[tree * fw_n + j] = 0x7FFFFFFF
    keep.extend((wk_off, wk_size, side_pos, fw_init, eb_init))
    cdef const int64_t[::1] wk_off_v = wk_off, wk_size_v = wk_size, side_pos_v = side_pos
    p.wk_off, p.wk_size, p.side_pos, p.fw_init = &wk_off_v[0], &wk_size_v[0], &side_pos_v[0], &fw_init_v[0]
    p.eb_init = &eb_init_v[0]
    p.fw_n, p.fw_words = fw_n, fw_words
    f.wk = <int64_t*>_grab(keep, nodes * 8)
    f.fw = <int32_t*>_grab(keep, sides * fw_n * 4)
    f.eb = <uint64_t*>_grab(keep, sides * fw_words * 8)
    f.attacks = 0
    cdef const int32_t[::1] walk_v = arrays["walk"]
    cdef const int64_t[::1] split_v = arrays["split"], rows_v = arrays["rows_at"]
    cdef const int64_t[::1] focus_lo_v = arrays["focus_lo"], focus_hi_v = arrays["focus_hi"]
    cdef const double[::1] xs_v = arrays["xs"], ys_v = arrays["ys"]
    p.rows_n = rows_v.shape[0] // 2
    if (walk_v.shape[0] != members or focus_lo_v.shape[0] != members or focus_hi_v.shape[0] != members
            or xs_v.shape[0] != members or ys_v.shape[0] != members or rows_v.shape[0] % 2):
        raise ValueError("a fight plan's walk tables disagree")
    p.any_walk = False
    for i in range(members):
        if walk_v[i]:
            p.any_walk = True
            if split_v.shape[0] != members * p.rows_n or p.rows_n > WALK_ROWS:
                raise ValueError("a fight plan's walk tables disagree")
        if focus_lo_v[i] >= 0 and not 0 <= focus_lo_v[i] < focus_hi_v[i] <= members:
            raise ValueError("a fight plan's focus ranges disagree")
    for i in range(p.rows_n):
        if not 0 <= rows_v[2 * i] < rows_v[2 * i + 1] <= members:
            raise ValueError("a fight plan's rows disagree")
    for i in range(split_v.shape[0]):
        if not 0 <= split_v[i] <= members:
            raise ValueError("a fight plan's splits disagree")
    p.walk, p.focus_lo, p.focus_hi = &walk_v[0], &focus_lo_v[0], &focus_hi_v[0]
    p.split = &split_v[0] if split_v.shape[0] else NULL
    p.rows_at = &rows_v[0] if rows_v.shape[0] else NULL
    p.xs, p.ys = &xs_v[0], &ys_v[0]
    f.next_up = <int64_t*>_grab(keep, (members + 1) * 8)
    f.next_down = <int64_t*>_grab(keep, (members + 1) * 8)
    f.d = &f.dice
    seed_dice(&f.dice, seed)  # no injected faces; _stream sets the words of each stream
    tot = &totals[0]
    # totals: wins[sides], draws, survivors[sides], rounds histogram[max_rounds + 1],
    # then per member dealt, taken, survived, fled, down
    with nogil:
        for fight in range(first, first + count):
            err = _fight(&p, &f, _chunk_seed(seed, <uint64_t>fight), &rounds)
            if err:
                break
            played += 1
            if f.winner < 0:
                tot[sides] += 1
            else:
                tot[f.winner] += 1
            tot[2 * sides + 1 + rounds] += 1
            for i in range(members):
                tot[2 * sides + 2 + max_rounds + i] += f.dealt[i]
                tot[2 * sides + 2 + max_rounds + members + i] += f.taken[i]
                if f.status[i] == ST_STANDING:
                    tot[2 * sides + 2 + max_rounds + 2 * members + i] += 1
                    tot[sides + 1 + p.side[i]] += 1
                elif f.status[i] == ST_FLED:
                    tot[2 * sides + 2 + max_rounds + 3 * members + i] += 1
                else:
                    tot[2 * sides + 2 + max_rounds + 4 * members + i] += 1
    return played, err, first + played if err else -1, f.attacks


# -- nearest-first enemy lists (fastfight._make) ---------------------------------------------

from libc.math cimport fabs
from libc.stdlib cimport qsort

cdef struct Near:
    double key
    int32_t e


cdef int _near_cmp(const void* a, const void* b) noexcept nogil:
    cdef const Near* x = <const Near*>a
    cdef const Near* y = <const Near*>b
    if x.key < y.key:
        return -1
    if x.key > y.key:
        return 1
    return (x.e > y.e) - (x.e < y.e)


cdef inline bint _plain(double d) noexcept nogil:
    """A coordinate difference whose square loses nothing to overflow or underflow."""
    d = fabs(d)
    return d == 0 or (1e-150 < d < 1e150)


def nearest_lists(const double[::1] xs, const double[::1] ys, const int32_t[::1] side, const int32_t[::1] need):
    """Each member's enemies nearest first, ties by member index: the order Fight._choose's
    `min` by (math.hypot(dx, dy), index) finds, as fastfight.FastPlan's `near` and `near_off`.

    Members stand in rows (consecutive members of a side on one y, x increasing: a side's
    default line, or a group's `position`); a member's enemies in a row, walked outward from
    its x, come nearer-first already, so each list is a merge of a few runs, not a sort. The
    keys are dx*dx + dy*dy (monotone in |dx|, IEEE: each operation rounds monotonically); the
    order of their square roots may differ from math.hypot's in the last bits, so the entries whose keys lie within 1e-12 of each other and whose
    |dx|, |dy| differ are returned as `close` (member, first, end) for the caller to order by
    math.hypot itself, and a member with a difference too large or too small to square is
    returned in `python` (the caller sorts its list as Fight._choose would).

    Also, for the fight loop's walk (`_walk`): per member whether its picks may walk the
    rows instead of its list (a few rows, WALK_ROWS at most; no equal keys along a walk, no
    entries math.hypot orders), where its x splits each row, and the rows (first, end). A
    member whose picks walk has an empty list unless `need` says its list is wanted."""
    cdef Py_ssize_t members = side.shape[0]
    if xs.shape[0] != members or ys.shape[0] != members or need.shape[0] != members:
        raise ValueError("positions and sides disagree")
    cdef int64_t m, e, i, j, a, b, total = 0, n, r, rows_n = 0, k, best, lo, hi, mid
    cdef int64_t[::1] count = _pyarray.array("q", bytes(8 * 66))
    cdef int32_t s
    for m in range(members):
        if not 0 <= side[m] < 64:
            raise ValueError("a side index out of range")
        count[side[m]] += 1
    for m in range(members):
        total += members - count[side[m]]
    near_obj = _pyarray.array("i", bytes(4 * total))
    off_obj = _pyarray.array("q", bytes(8 * (members + 1)))
    cdef int32_t[::1] near = near_obj
    cdef int64_t[::1] off = off_obj
    # rows: maximal runs of consecutive members of one side and one y, x strictly increasing
    row_obj = _pyarray.array("q", bytes(16 * members))
    cdef int64_t[::1] row = row_obj
    a = 0
    for m in range(1, members + 1):
        if m == members or side[m] != side[m - 1] or ys[m] != ys[m - 1] or not xs[m] > xs[m - 1]:
            row[2 * rows_n], row[2 * rows_n + 1] = a, m
            rows_n += 1
            a = m
    # per member whether a pick may walk the rows (fights' _walk), and where its x splits each row
    walk_obj = _pyarray.array("i", bytes(4 * members))
    split_obj = _pyarray.array("q", bytes(8 * members * rows_n if rows_n <= WALK_ROWS else 0))
    cdef int32_t[::1] walk = walk_obj
    cdef int64_t[::1] split = split_obj
    cdef double last_key[2 * WALK_ROWS]
    cdef Near* buf = <Near*>malloc(max(members, 1) * sizeof(Near))
    cdef int64_t* heads = <int64_t*>malloc(max(8 * rows_n, 1) * sizeof(int64_t))  # (at, end, step) per run, two runs a row
    cdef double* headkey = <double*>malloc(max(2 * rows_n, 1) * sizeof(double))
    if buf == NULL or heads == NULL or headkey == NULL:
        free(buf)
        free(heads)
        free(headkey)
        raise MemoryError()
    close, python = [], []
    cdef double x, y, dx, dy, key, gap
    cdef bint ok, sorted_ok = True
    cdef int64_t runs
    try:
        with nogil:
            for m in range(members):
                x, y, s = xs[m], ys[m], side[m]
                n = 0
                ok = True
                runs = 0
                for r in range(rows_n):  # the runs: each enemy row, left of x going left, right going right
                    a, b = row[2 * r], row[2 * r + 1]
                    if side[a] == s:
                        continue
                    if not _plain(ys[a] - y):
                        ok = False
                    lo, hi = a, b  # the first member of the row with x > x (a binary search)
                    while lo < hi:
                        mid = (lo + hi) // 2
                        if xs[mid] > x:
                            hi = mid
                        else:
                            lo = mid + 1
                    if rows_n <= WALK_ROWS:
                        split[m * rows_n + r] = lo
                    if lo > a:
                        heads[4 * runs], heads[4 * runs + 1], heads[4 * runs + 2] = lo - 1, a - 1, -1
                        runs += 1
                    if lo < b:
                        heads[4 * runs], heads[4 * runs + 1], heads[4 * runs + 2] = lo, b, 1
                        runs += 1
                walk[m] = rows_n <= WALK_ROWS
                if ok:
                    for r in range(runs):
                        if r < 2 * WALK_ROWS:
                            last_key[r] = -1
                        e = heads[4 * r]
                        dx, dy = xs[e] - x, ys[e] - y
                        headkey[r] = dx * dx + dy * dy
                    while True:  # a merge of the runs: the least (key, index) head next
                        best = -1
                        for r in range(runs):
                            if heads[4 * r] == heads[4 * r + 1]:
                                continue
                            if best < 0 or headkey[r] < headkey[best] or (
                                    headkey[r] == headkey[best] and heads[4 * r] < heads[4 * best]):
                                best = r
                        if best < 0:
                            break
                        e = heads[4 * best]
                        dx = xs[e] - x
                        if not _plain(dx):
                            ok = False
                        if best < 2 * WALK_ROWS:  # a walk meets equal keys: its first may not be the least index
                            if headkey[best] == last_key[best]:
                                walk[m] = 0
                            last_key[best] = headkey[best]
                        buf[n].key, buf[n].e = headkey[best], <int32_t>e
                        n += 1
                        e += heads[4 * best + 2]
                        heads[4 * best] = e
                        if e != heads[4 * best + 1]:
                            dx, dy = xs[e] - x, ys[e] - y
                            headkey[best] = dx * dx + dy * dy
                if not ok:
                    n = 0
                    for e in range(members):
                        if side[e] != s:
                            buf[n].key, buf[n].e = 0, <int32_t>e
                            n += 1
                else:
                    sorted_ok = True
                    for i in range(1, n):  # a run with equal keys out of index order: sort
                        if buf[i].key < buf[i - 1].key or (buf[i].key == buf[i - 1].key and buf[i].e < buf[i - 1].e):
                            sorted_ok = False
                            break
                    if not sorted_ok:
                        qsort(buf, n, sizeof(Near), _near_cmp)
                for i in range(n):
                    near[off[m] + i] = buf[i].e
                off[m + 1] = off[m] + n
                if not ok:
                    walk[m] = 0
                    with gil:
                        python.append(m)
                    continue
                if not sorted_ok:
                    walk[m] = 0
                i = 0
                while i < n:  # keys within 1e-12 of each other: math.hypot may order them otherwise
                    j = i + 1
                    while j < n and buf[j].key - buf[j - 1].key <= 1e-12 * buf[j].key:
                        j += 1
                    if j - i > 1:
                        dx, dy = fabs(xs[buf[i].e] - x), fabs(ys[buf[i].e] - y)
                        for k in range(i + 1, j):
                            if fabs(xs[buf[k].e] - x) != dx or fabs(ys[buf[k].e] - y) != dy:
                                walk[m] = 0  # math.hypot orders these: the walk's keys cannot
                                with gil:
                                    close.append((m, off[m] + i, off[m] + j))
                                break
                    i = j
                if walk[m] and not need[m]:  # its picks walk: no list (the next member's goes here)
                    off[m + 1] = off[m]
    finally:
        free(buf)
        free(heads)
        free(headkey)
    return near_obj[:off[members]], off_obj, close, python, walk_obj, split_obj, row_obj[:2 * rows_n]


def focus_lists(const int32_t[::1] near, const int64_t[::1] near_off, const int32_t[::1] focus_of,
                const unsigned char[::1] match):
    """Each member's focus (fastfight.FastPlan's `focus`, `focus_off`): the enemies of its
    nearest-first list that its tactic's focus names, in that order. focus_of[m] is the row of
    `match` (members bytes each, 1 where the focus names that member) of m's focus, -1: none."""
    cdef Py_ssize_t members = focus_of.shape[0]
    cdef int64_t m, i, c, total = 0, rows_n
    if near_off.shape[0] != members + 1 or near_off[members] != near.shape[0] or members == 0:
        raise ValueError("the nearest-first lists disagree")
    rows_n = match.shape[0] // members
    for m in range(members):
        if not -1 <= focus_of[m] < rows_n or not 0 <= near_off[m] <= near_off[m + 1] <= near.shape[0]:
            raise ValueError("a focus out of range")
    for i in range(near.shape[0]):
        if not 0 <= near[i] < members:
            raise ValueError("a nearest-first entry out of range")
    for m in range(members):
        c = focus_of[m]
        if c >= 0:
            for i in range(near_off[m], near_off[m + 1]):
                total += match[c * members + near[i]]
    out_obj = _pyarray.array("i", bytes(4 * total))
    off_obj = _pyarray.array("q", bytes(8 * (members + 1)))
    cdef int32_t[::1] out = out_obj
    cdef int64_t[::1] off = off_obj
    cdef int64_t n = 0
    for m in range(members):
        c = focus_of[m]
        if c >= 0:
            for i in range(near_off[m], near_off[m + 1]):
                if match[c * members + near[i]]:
                    out[n] = near[i]
                    n += 1
        off[m + 1] = n
    return out_obj, off_obj
