# cython: language_level=3
"""Whole fights in C: the compiled fight loop for the scenarios fracas.drive.fastfight
compiles (docs/ENCOUNTERS.md "Simulations"): Enchanted Realms, Worldwalker, Cartyrion and
old-school, and the plain round a plug-in ruleset on the row kernel gets (its initiative
called in Python once a round).

No rule of a round is written here. The loop is the round procedure files included below
(`rulesets/loop.py`: the shared steps; `rulesets/<ruleset>/loop.py`: each ruleset's round), in
Cython's pure Python mode, which `fracas.drive.pyloop` runs as Python too, and the rule
files they call; the round loop of fracas.drive.fight plays the same rules with each
attack logged, and tests/fights/test_fast_fights.py compares the two fight by fight. This
file holds what only C needs: the plan and the fight's state as two structs, `play_fights`
laying a plan out from fastfight's arrays (checking every table the loop trusts), and the
nearest-first enemy lists fastfight builds plans with. The round loop compiles in the very
strike kernels (`roll_attack` for ER, `xattack` for the strike-row rulesets) that a single
attack and the bulk API run: the dice of an attack in a fight are the dice
`fracas.resolve` rolls for it, by construction. The draw order is the round's: its k-th
random event (the initiative, each `random` target choice, each attack) draws from stream
k of the round seed, the seed of bulk chunk k (fracas.rng.chunk_seed).

Integer totals come back exactly as fracas.drive.simulate.play_batch adds them up, so
the two loops' results are compared number for number."""

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
# the rulesets package), in Cython's "pure Python mode", compiled here as inline C and imported as
# they are by the Python loop (docs/ENCOUNTERS.md, "Rules written once for both loops").
# These lines are the one list of them (setup.py reads it: fracas._pure.rules).
include "fracas/rulesets/pools.py"
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
cdef enum:
    #: OS-1: the sides an old-school fight may have (FightState's side scratch)
    OS_MAX_SIDES = 64
    #: Rows of members at most for a nearest pick to walk them (fastfight's nearest_lists)
    WALK_ROWS = 16
    #: ER-17: the creatures next to a target a shot may stray into (slots 1-8 of a d10)
    BY_MAX = 8


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
    bint init_called           # the plain round: the ruleset's initiative, called in Python each round
    void* init_call            # its call (a Python callable play_fights keeps alive: Procedure.initiative_call)
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
    const long long* init_mod  # per member: its initiative modifier (ER-18, WW-1)
    const long long* init_sub  # per member: what orders equal totals before roll-offs (WW-1: Dexterity modifier)
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
    const int* select8         # loop._select's table (pyloop.layout)


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
    int* order             # this round's initiative order (rolloffs.roll_order's types)
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
    long long* keys        # scratch: initiative sort keys
    long long* bucket      # scratch: the counting sort of initiative totals
    int* tie               # scratch: a roll-off group
    int* rolls             # scratch: roll_order's dice (as Python only; compiled, untouched)
    int64_t* out           # one attack's out rows
    int64_t stamp[1]
    int64_t sides_left
    bint over
    int64_t winner         # side index, -1 for a draw
    Dice dice              # the fight's stream (loop._dice)
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
    int32_t* eg_other      # per parity (eg_cap records each), per record: the other member
    int64_t* eg_next       # per parity, per record: the next record of its list (-1: none)
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
    # an attack's totals from the kernels (loop._er_roll, _row_roll): damage, injury (CT-4),
    # stamina cost; the kernel's log position
    int64_t dmg
    int64_t inj
    int64_t cost
    int64_t logpos
    long long got[4]       # a stray's check (strays.stray_check)
    # scratch for the dice a rule file reports (a negation's, a throw's pool, a shock save's)
    int faces[16]
    long long paid[1]      # negation.free_step's dice paid


#: A KeyboardInterrupt (or SystemExit) raised in the plain round's initiative call
#: (loop.py's _call_initiative) while the loop plays: the loop stops the fight, and
#: play_fights raises it once the loop has returned (C cannot carry it).
_STOPPED = []


# Round procedures: the loop's shared steps, then each ruleset's round, over the state above
# (Cython's pure Python mode, as the rule files above; fracas.drive.pyloop runs them as Python).
include "fracas/rulesets/loop.py"
include "fracas/rulesets/ct/loop.py"
include "fracas/rulesets/er/loop.py"
include "fracas/rulesets/oldschool/loop.py"


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
    # (the initiative modifiers as long long: what rolloffs.roll_order reads them as)
    cdef const long long[::1] init_sub = arrays["init_sub"], init_mod = arrays["init_mod"]
    cdef const int64_t[::1] units = arrays["units"], reserve = arrays["reserve"]
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
    cdef const int64_t[::1] near_off = arrays["near_off"]
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
    cdef bint side_turns = arrays["side_turns"]  # the side-turn round's group fields (CTG each), else none
    cdef int64_t width = XPLAN_WIDTH if rows else PLAN_WIDTH, n_rows = plans.shape[0] // width, u
    cdef int64_t n_units = 0
    if react_unit.shape[0] != groups or leave_draws.shape[0] != groups or engages.shape[0] != groups:
        raise ValueError("a fight plan's reaction tables disagree")
    for g in range(groups):
        n_units += units[3 * g + 1] + (units[3 * g + 2] >= 0) + (react_unit[g] >= 0)
    cdef int64_t n_variants = pair.shape[0] // 2
    if (units.shape[0] != 3 * groups or vbase.shape[0] != n_units * groups or vcount.shape[0] != n_units * groups or near_off.shape[0] != members + 1
            or focus_off.shape[0] != members + 1 or tinit.shape[0] != n_variants * XS_WIDTH
            or ct_group.shape[0] != (groups * CTG if side_turns else 0) or own_power.shape[0] != groups
            or parry_dims.shape[0] != 2 * groups
            or ct_init.shape[0] != 24):
        raise ValueError("a fight plan's tables disagree")
    for g in range(groups):
        if (units[3 * g] < 0 or units[3 * g] + units[3 * g + 1] > n_units or units[3 * g + 2] >= n_units
                or not -1 <= react_unit[g] < n_units):
            raise ValueError("a fight plan's units disagree")
        if (side_turns and not 0 <= ct_group[g * CTG + CTG_STRIKES] <= 16) or parry_dims[2 * g] < 0 or parry_dims[2 * g + 1] < 0:
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
    for i in range(members):
        if not 0 <= side[i] < sides:
            raise ValueError("a fight plan's sides disagree")
    from fracas.drive.pyloop import layout  # what the loop works out from the arrays, in both runs
    try:
        lay = layout(arrays)
    except (IndexError, KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"a fight plan's tables disagree ({exc!r})") from exc
    keep.append(lay)
    # (the layout is kept with the arrays: what the loop indexes with is checked against them)
    if len(lay["casters"]) > members or any(not 0 <= c < members for c in lay["casters"]):
        raise ValueError("a fight plan's layout disagrees with its casters")
    casters = _pyarray.array("q", [0]) + lay["casters"]  # (a first entry: never an empty view)
    keep.append(casters)
    cdef const int64_t[::1] casters_v = casters
    p.casters = &casters_v[1]
    p.casters_n = len(casters) - 1
    p.spells = p.casters_n > 0
    p.rows, p.init_once, p.init_die = rows, arrays["init_once"], arrays["init_die"]
    if p.init_die not in (10, 20):
        raise ValueError("the initiative die is a d10 or a d20")
    p.init_sub, p.units, p.reserve = &init_sub[0], &units[0], &reserve[0]
    p.side_turns = side_turns
    init_call = arrays["init_call"]
    if init_call is not None and (not callable(init_call) or p.init_once or p.side_turns or arrays["phased"]):
        raise ValueError("an initiative call is for a round of one combatant a slot, every round")
    p.init_called = init_call is not None
    keep.append(init_call)
    p.init_call = <void*>init_call  # held by `keep` while the fights play
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
    cdef const int32_t[::1] engages_uv = lay["engages_u"]
    if engages_uv.shape[0] < max(n_units, 1) or lay["eg_cap"] < 0:
        raise ValueError("a fight plan's layout disagrees with its units")
    p.engages_u = &engages_uv[0]
    p.reactions = lay["reactions"]
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
    p.ct_group = &ct_group[0] if side_turns else NULL
    p.own_power, p.parry_dims, p.ct_init = &own_power[0], &parry_dims[0], &ct_init[0]
    p.vbase = &vbase[0] if vbase.shape[0] else NULL
    p.vcount = &vcount[0] if vcount.shape[0] else NULL
    p.tinit = &tinit[0] if tinit.shape[0] else NULL
    p.init_low, p.init_span, p.sub_low, p.sub_span = lay["init_low"], lay["init_span"], lay["sub_low"], lay["sub_span"]
    if p.init_span * p.sub_span > (1 << 16):
        raise ValueError("initiative modifiers too far apart for the counting sort")
    for i in range(members):  # every total and sub inside the counting sort's ranges
        if (not p.init_low <= init_mod[i] + 1 or init_mod[i] + p.init_die > p.init_low + p.init_span - 1
                or not p.sub_low <= init_sub[i] < p.sub_low + p.sub_span):
            raise ValueError("a fight plan's layout disagrees with its initiative")
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
    f.order = <int*>_grab(keep, members * 4)
    f.keys = <long long*>_grab(keep, members * 8)
    f.tie = <int*>_grab(keep, members * 4)
    f.rolls = <int*>_grab(keep, members * 4)
    f.bucket = <long long*>_grab(keep, (p.init_span * p.sub_span + 1) * 8)
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
    f.eg_cap = lay["eg_cap"]
    f.eg_head = <int64_t*>_grab(keep, 2 * members * 8)
    f.eg_stamp = <int64_t*>_grab(keep, 2 * members * 8)  # zeros: before every epoch
    f.eg_other = <int32_t*>_grab(keep, 2 * f.eg_cap * 4)
    f.eg_next = <int64_t*>_grab(keep, 2 * f.eg_cap * 8)
    for i in range(2):
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
    # weakest and random: per side trees and bitsets (docs: targets in flat time)
    p.any_weakest, p.any_random = lay["any_weakest"], lay["any_random"]
    cdef const int64_t[::1] wk_off_v = lay["wk_off"], wk_size_v = lay["wk_size"], side_pos_v = lay["side_pos"]
    cdef const int32_t[::1] fw_init_v = lay["fw_init"]
    cdef const uint64_t[::1] eb_init_v = lay["eb_init"]
    cdef int64_t nodes = lay["wk_nodes"], fw_n = lay["fw_n"], fw_words = lay["fw_words"]
    cdef bint weakest = False, random = False
    for i in range(members):
        weakest = weakest or tactic[i] == TAC_WEAKEST
        random = random or tactic[i] == TAC_RANDOM
    if (weakest != p.any_weakest or random != p.any_random or wk_off_v.shape[0] != sides
            or wk_size_v.shape[0] != sides or side_pos_v.shape[0] != members or fw_words < 1 or fw_n < fw_words
            or fw_n % 8 or fw_init_v.shape[0] != sides * fw_n or eb_init_v.shape[0] != sides * fw_words
            or (random and fw_words * 64 < members)):
        raise ValueError("a fight plan's layout disagrees with its tactics")
    for g in range(sides):
        if wk_off_v[g] < 0 or wk_size_v[g] < 1 or wk_off_v[g] + 2 * wk_size_v[g] > nodes:
            raise ValueError("a fight plan's layout disagrees with its sides")
    for i in range(members):
        if not 0 <= side_pos_v[i] < wk_size_v[side[i]]:
            raise ValueError("a fight plan's layout disagrees with its sides")
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
    cdef const int[::1] select8_v = lay["select8"]
    if select8_v.shape[0] != 256 * 8:
        raise ValueError("a fight plan's layout has no select table")
    for i in range(256 * 8):
        if not 0 <= select8_v[i] < 8:
            raise ValueError("a fight plan's layout has no select table")
    p.select8 = &select8_v[0]
    seed_dice(&f.dice, seed)  # no injected faces; _stream sets the words of each stream
    tot = &totals[0]
    # totals: wins[sides], draws, survivors[sides], rounds histogram[max_rounds + 1],
    # then per member dealt, taken, survived, fled, down
    with nogil:
        for fight in range(first, first + count):
            rounds = _fight(&p, &f, _chunk_seed(seed, <uint64_t>fight))
            if rounds < 0:
                err = <int>-rounds
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
    if _STOPPED:  # a Ctrl-C in the plain round's initiative call (loop.py's _call_initiative)
        stop = _STOPPED.pop()
        _STOPPED.clear()
        raise stop
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
