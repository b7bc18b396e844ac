"""Initiative order and roll-offs, written once for every reader.

`roll_order` is ER-18's and WW-1's initiative: a die per combatant in listed order, plus its
modifier, the totals highest first (WW-1: equal totals by the higher Dexterity modifier),
what is still tied rolled off. `side_order` is OS-1's side initiative. `roll_offs` puts
tied entries in order by rolling again:

ER-18 and WW-1 break equal initiative totals with d20 roll-offs, OS-1 re-rolls tied sides'
d6 (its "reroll" ties): each tied entry rolls one die, in listed order; the entries are
ranked from the highest face down, entries that rolled the same face roll off again among
themselves (depth-first, the higher face's group first), and a lone entry takes its place.
After LIMIT rounds of roll-offs a tie that still stands is an error (the kinds say
`tie_limit`, the compiled loop stops the fight).

A shared rule file (`fracas._pure.rules` says what it may hold), and the first that draws
dice: the compiled fight loop includes it as C (`draw_gen` is then the inline generator of
`_generator.pxd`, `d` the loop's stream), and the initiative kinds of the three rulesets
(`rows.roll_off`, `rows.roll_order`), which the Python fight rounds call, import it as
Python (`d` a `fracas.dice.Dice`, each entry's faces recorded in `marks`). What only one side does sits
behind `if cython.compiled`, which Cython folds away before it reads the other branch.

The order of the draws is the simple recursion's (every entry of a group, then each face's
group from the highest face down), taken without waste: a pair redraws in a loop while its
faces are equal, a few entries are sorted by insertion, more by counting their faces, and a
group whose faces are all equal rolls again in a loop (no deeper call: a tie can last LIMIT
rounds, deeper than Python lets a function call itself).
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the stand-in is what the type checker reads (Cython's module is untyped)
    from fracas._pure import cython
else:
    try:
        import cython
    except ImportError:  # Cython is a build dependency only: its names as plain Python
        from fracas._pure import cython

#: Rounds of roll-offs after which a tie that still stands is an error.
LIMIT = cython.declare(cython.const[cython.int], 1000)
#: Groups this small are sorted by insertion, larger ones by counting their faces.
FEW = cython.declare(cython.const[cython.int], 16)

if not cython.compiled:  # the compiled loop draws with the generator's inline C
    from fracas._pure.draws import Dice, draw_gen, draw_many


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _face(d: cython.pointer[Dice], die: cython.int, drawn: cython.p_void, i: cython.longlong) -> cython.int:
    """The i-th die of a group: drawn here in C; as Python, read from the group's dice drawn
    in one call before (`drawn`, from `draw_many`: the same faces)."""
    if cython.compiled:
        return draw_gen(d, die)
    else:
        face: int = drawn[i]
        return face


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def roll_offs(d: cython.pointer[Dice], die: cython.int, tied: cython.p_int, at: cython.longlong,
              n: cython.longlong, depth: cython.longlong, order: cython.p_int, placed: cython.longlong,
              marks: cython.p_void) -> cython.longlong:
    """The n entries tied[at:at + n] (n >= 1) in their order after roll-offs on a `die`,
    written to order[placed:placed + n]; returns placed + n, or -1 when a tie still stands
    after LIMIT rounds. `depth`: the rounds already rolled. As Python, `marks[entry]` (a
    list per entry, when `marks` is not None) gets each face the entry rolls."""
    i: cython.longlong
    j: cython.longlong
    end: cython.longlong
    sub: cython.longlong
    face: cython.int
    other: cython.int
    if cython.compiled:  # as Python, each path makes the lists it uses
        buf = cython.declare(cython.int[128])
        count = cython.declare(cython.longlong[24])
        faces = cython.declare(cython.p_int)
        drawn = cython.declare(cython.p_void, cython.NULL)
    while n == 2:  # a pair: the higher face first; equal faces roll off again, in listed order
        if depth >= LIMIT:
            return -1
        face = draw_gen(d, die)
        other = draw_gen(d, die)
        if not cython.compiled:
            if marks is not None:
                marks[tied[at]].append(face)
                marks[tied[at + 1]].append(other)
        if face != other:
            order[placed] = tied[at] if face > other else tied[at + 1]
            order[placed + 1] = tied[at + 1] if face > other else tied[at]
            return placed + 2
        depth += 1
    if n == 1:
        order[placed] = tied[at]
        return placed + 1
    if n <= FEW:  # an insertion sort into buf, faces then entries, highest face first, listed order kept
        if not cython.compiled:
            buf = [0] * (2 * FEW)
        while True:  # all n faces equal: the same entries roll off again, in the same order
            if depth >= LIMIT:
                return -1
            if not cython.compiled:  # as Python, the group's dice in one call
                drawn = draw_many(d, die, n)
            for i in range(n):
                face = _face(d, die, drawn, i)
                if not cython.compiled:
                    if marks is not None:
                        marks[tied[at + i]].append(face)
                j = i
                while j > 0 and buf[j - 1] < face:
                    buf[j] = buf[j - 1]
                    buf[FEW + j] = buf[FEW + j - 1]
                    j -= 1
                buf[j] = face
                buf[FEW + j] = tied[at + i]
            if buf[0] != buf[n - 1]:
                break
            depth += 1
        i = 0
        while i < n:
            end = i + 1
            while end < n and buf[end] == buf[i]:
                end += 1
            if end == i + 1:
                order[placed] = buf[FEW + i]
                placed += 1
            else:
                placed = roll_offs(d, die, buf, FEW + i, end - i, depth + 1, order, placed, marks)
                if placed < 0:
                    return -1
            i = end
        return placed
    # more: a stable counting sort of the faces, highest first; faces[0:n] the faces,
    # faces[n:2n] the entries sorted
    if cython.compiled:
        if n <= 64:
            faces = buf
        else:
            faces = cython.cast(cython.p_int, malloc(2 * n * cython.sizeof(cython.int)))
            if faces == cython.NULL:
                return -1
    else:
        faces = [0] * (2 * n)
        count = [0] * (die + 2)
    sub = n
    while True:  # all n faces equal: the same entries roll off again, in the same order
        if depth >= LIMIT:
            placed = -1
            break
        for i in range(die + 1):
            count[i] = 0
        if not cython.compiled:  # as Python, the group's dice in one call
            drawn = draw_many(d, die, n)
        for i in range(n):
            faces[i] = _face(d, die, drawn, i)
            if not cython.compiled:
                if marks is not None:
                    marks[tied[at + i]].append(faces[i])
            count[die + 1 - faces[i]] += 1  # runs from the highest face (slot 1) down to 1 (slot die)
        if count[die + 1 - faces[0]] != n:
            break
        depth += 1
    if placed >= 0:
        for i in range(1, die + 1):
            count[i] += count[i - 1]
        for i in range(n):
            faces[sub + count[die - faces[i]]] = tied[at + i]
            count[die - faces[i]] += 1
        i = 0
        for j in range(die):  # count[j] is now the end of the run of face die - j
            end = count[j]
            if end == i + 1:
                order[placed] = faces[sub + i]
                placed += 1
            elif end > i:
                placed = roll_offs(d, die, faces, sub + i, end - i, depth + 1, order, placed, marks)
                if placed < 0:
                    break
            i = end
    if cython.compiled:
        if n > 64:
            free(faces)
    return placed


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def roll_order(d: cython.pointer[Dice], die: cython.int, who: cython.p_int, n: cython.longlong,
               mods: cython.p_longlong, subs: cython.p_longlong, low: cython.longlong, span: cython.longlong,
               sub_low: cython.longlong, sub_span: cython.longlong, bucket: cython.p_longlong,
               keys: cython.p_longlong, tie: cython.p_int, order: cython.p_int, rolls: cython.p_int,
               marks: cython.p_void) -> cython.longlong:
    """ER-18, WW-1: the n combatants who[0:n] (member numbers below 2^20), in that order,
    each roll a `die` + mods[member]; order[0:n] gets them by total, highest first, equal
    totals by subs[member] (WW-1's Dexterity modifier; all 0: none), highest first, and
    what is still tied rolled off (`roll_offs`, a d20 each). The totals lie in low ..
    low + span - 1, the subs in sub_low .. sub_low + sub_span - 1. `bucket` (span *
    sub_span + 1 entries), `keys` (n) and `tie` (n) are scratch; `who` may be `order`.
    Returns n, or -1 when a tie stands after LIMIT roll-offs. As Python, rolls[k] gets
    who[k]'s die and `marks` its roll-off faces."""
    k: cython.longlong
    v: cython.longlong
    a: cython.longlong
    b: cython.longlong
    placed: cython.longlong = 0
    face: cython.int
    runs: cython.longlong = span * sub_span
    # A counting sort of the totals and subs, highest first and in listed order within a
    # run: the order ties roll off in.
    for v in range(runs + 1):
        bucket[v] = 0
    if cython.compiled:
        drawn = cython.declare(cython.p_void, cython.NULL)
    else:  # as Python, the dice in one call
        drawn = draw_many(d, die, n)
    for k in range(n):
        face = _face(d, die, drawn, k)
        if not cython.compiled:
            rolls[k] = face
        v = low + span - 1 - (face + mods[who[k]])
        v = v * sub_span + sub_low + sub_span - 1 - subs[who[k]]
        keys[k] = v * 1048576 + who[k]
        bucket[v + 1] += 1
    for v in range(runs):
        bucket[v + 1] += bucket[v]
    for k in range(n):
        v = keys[k] >> 20
        tie[bucket[v]] = keys[k] & 0xFFFFF
        bucket[v] += 1
    a = 0
    for v in range(runs):  # bucket[v] is now the end of run v
        b = bucket[v]
        if b == a + 1:  # a lone total: placed where it is found
            order[placed] = tie[a]
            placed += 1
        elif b > a:
            placed = roll_offs(d, 20, tie, a, b - a, 0, order, placed, marks)
            if placed < 0:
                return -1
        a = b
    return placed


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def side_order(d: cython.pointer[Dice], n: cython.longlong, waits: cython.p_int, together_ties: cython.bint,
               faces: cython.p_int, tied: cython.p_int, ranked: cython.p_int, slot_of: cython.p_int,
               together: cython.p_int, marks: cython.p_void) -> cython.longlong:
    """OS-1 for n sides (numbered 0..n-1 in listed order; waits[i]: side i waits): a d6 per
    side that does not wait, in order (faces[i]; 0 for a waiting side), the highest face's
    sides first; sides with equal faces act together in one slot (`together_ties`) or
    re-roll a d6 each until their tie is broken (`roll_offs`: a slot each); waiting sides
    last, a slot each in order. slot_of[i] gets side i's slot, together[slot] whether
    several sides share it; `tied` and `ranked` (n each) are scratch. Returns the slots,
    or -1 when a tie stands after LIMIT re-rolls. As Python, marks[i] gets side i's
    re-rolls."""
    i: cython.longlong
    k: cython.longlong
    slots: cython.longlong = 0
    face: cython.int
    for i in range(n):
        faces[i] = 0 if waits[i] else draw_gen(d, 6)
    for face in range(6, 0, -1):
        k = 0
        for i in range(n):
            if faces[i] == face:
                tied[k] = i
                k += 1
        if k == 0:
            continue
        if together_ties or k == 1:
            for i in range(k):
                slot_of[tied[i]] = slots
            together[slots] = k > 1
            slots += 1
            continue
        if roll_offs(d, 6, tied, 0, k, 0, ranked, 0, marks) < 0:
            return -1
        for i in range(k):
            slot_of[ranked[i]] = slots
            together[slots] = 0
            slots += 1
    for i in range(n):  # waiting sides act last, in listed order
        if waits[i]:
            slot_of[i] = slots
            together[slots] = 0
            slots += 1
    return slots
