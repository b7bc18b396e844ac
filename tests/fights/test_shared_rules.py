"""Rules written once for both fight loops (issue 41 item 2): the plain-Python rule files the
compiled loop includes as source (cython_core/fights.pyx) and the Python rounds import.

- Each file is the rule as the texts state it (CT-4, CT-5, CT-6, ER-13, ER-17, ER-18, OS-1, OS-4,
  OS-5, WW-1), tested here on its own.
- The compiled loop's include lines are the one list of them: setup.py builds from it, and a
  loop built from other rule files than the installed ones is a stale core, never used.
- Each keeps to what an included file may hold.
- Without Cython installed (a wheel's users), each runs on `fracas._pure.cython` and gives
  what it gives with Cython's own module.
- That the compiled loop and the Python rounds play the same fights with them is
  test_fast_fights.py's work (compiled against Python on every example and on generated
  scenarios, Cartyrion and old-school included).
"""

from __future__ import annotations

import ast
from array import array
import importlib.util
import itertools
import shutil
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from fracas import _facts, _kernels
from fracas._pure import rules
from fracas.rulesets import pools
from fracas.dice import Dice
from fracas.errors import DiceError, LimitError
from fracas.rulesets import rolloffs, rows
from fracas.rulesets.ct import turn
from fracas.rulesets.er import hurling, negation, shock, strays
from fracas.rulesets.oldschool import morale, saving

ROOT = Path(__file__).resolve().parents[2]
SHARED = [ROOT / "src/fracas/rulesets/pools.py", ROOT / "src/fracas/rulesets/ct/turn.py",
          ROOT / "src/fracas/rulesets/er/hurling.py", ROOT / "src/fracas/rulesets/er/negation.py",
          ROOT / "src/fracas/rulesets/er/shock.py",
          ROOT / "src/fracas/rulesets/er/strays.py", ROOT / "src/fracas/rulesets/oldschool/morale.py",
          ROOT / "src/fracas/rulesets/oldschool/saving.py", ROOT / "src/fracas/rulesets/rolloffs.py"]
#: Round procedure files: a ruleset's round of the compiled loop, in its own folder, over the
#: loop's FightPlan and FightState (fracas._pure.rules).
PROCEDURES = [ROOT / "src/fracas/rulesets/loop.py", ROOT / "src/fracas/rulesets/ct/loop.py", ROOT / "src/fracas/rulesets/er/loop.py",
              ROOT / "src/fracas/rulesets/oldschool/loop.py"]


def _shared(stem: str) -> Path:
    (path,) = [p for p in SHARED if p.stem == stem]
    return path


def _included() -> list[str]:
    return rules.included((ROOT / "cython_core/fights.pyx").read_text(encoding="utf-8"))


def test_the_include_lines_are_the_list_of_shared_rule_files() -> None:
    assert sorted(f"src/{path}" for path in _included()) == sorted(
        str(p.relative_to(ROOT)) for p in SHARED + PROCEDURES)


def test_the_round_procedures_come_after_the_rule_files_and_the_loop_state() -> None:
    """A round procedure reads the loop's FightPlan and FightState and calls the rule files:
    it is included after both (the rule files never read the loop's state)."""
    pyx = (ROOT / "cython_core/fights.pyx").read_text(encoding="utf-8")
    procedures = [f'include "{p.relative_to(ROOT / "src")}"' for p in PROCEDURES]
    rule_files = [f'include "{p.relative_to(ROOT / "src")}"' for p in SHARED]
    first = min(pyx.index(line) for line in procedures)
    assert max(pyx.index(line) for line in rule_files) < pyx.index("cdef struct FightState:") < first
    for path in SHARED:
        text = path.read_text(encoding="utf-8")
        assert "FightState" not in text and "FightPlan" not in text, f"{path.name} reads the loop's state"


def test_the_built_loop_carries_its_rule_files_and_their_digest() -> None:
    if _kernels.compiled is None:
        pytest.skip(f"no compiled core in use here ({_kernels.stale or 'pure-Python install'})")
    fights = _kernels.compiled.fights
    assert list(fights.SHARED_RULES) == _included()
    assert fights.RULES_DIGEST == rules.digest(ROOT / "src", _included())
    assert _kernels.stale_reason(_kernels.compiled) is None
    # the same core, its fight loop built from other rule files: stale, and the reason says so
    other = SimpleNamespace(__name__="fracas._core.fights", LAYOUT=fights.LAYOUT, SHARED_RULES=fights.SHARED_RULES,
                            RULES_DIGEST="0" * 16)
    core = SimpleNamespace(**{**vars(_kernels.compiled), "MODULES": (other,)})
    why = _kernels.stale_reason(core)  # type: ignore[arg-type]
    assert why is not None and why.startswith("its fight loop was built from other rule files")
    assert why.endswith("in fracas._core.fights")


def test_a_loop_built_from_other_rule_files_is_stale(tmp_path: Path) -> None:
    """Edit a shared rule file and not rebuild: the compiled core is refused (both loops
    keep playing the same rules: the Python loop's), and the reason names the files."""
    paths = _included()
    built = rules.digest(ROOT / "src", paths)
    assert _kernels.rules_stale(paths, built) is None
    for rel in paths:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / "src" / rel, tmp_path / rel)
    assert rules.digest(tmp_path, paths) == built
    with (tmp_path / paths[-1]).open("a", encoding="utf-8") as out:
        out.write("# an edit\n")
    assert rules.digest(tmp_path, paths) != built
    why = _kernels.rules_stale(paths, "0" * 16)
    assert why is not None and "other rule files" in why and paths[0] in why
    assert "not installed" in (_kernels.rules_stale(["fracas/none.py"], built) or "")
    assert "names no rule files" in (_kernels.rules_stale((), "") or "")


@pytest.mark.parametrize("path", SHARED + PROCEDURES, ids=lambda p: str(p.relative_to(ROOT / "src/fracas")))
def test_a_shared_file_holds_only_what_an_included_file_may(path: Path) -> None:
    """Included text cannot start a module (no `from __future__`), and its C constants are
    declared (a plain module-level assignment would be a Python global, unreadable without
    the GIL); one with a literal value is `cython.const`, a C constant the compiler folds
    into the code (a plain C variable is read from memory at each use)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        assert not (isinstance(node, ast.ImportFrom) and node.module == "__future__"), f"{path.name}: __future__"
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            value = node.value
            where = f"{path.name}:{node.lineno}"
            assert (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                    and value.func.attr == "declare"), f"{where}: a constant not cython.declare'd"
            try:
                eval(compile(ast.Expression(value.args[1]), where, "eval"), {"__builtins__": {}})
            except NameError:
                continue  # a value read when the module loads (a manifest's fact): a C variable
            kind = value.args[0]
            assert isinstance(kind, ast.Subscript) and getattr(kind.value, "attr", "") == "const", (
                f"{where}: a literal constant not declared cython.const[...]")


def _without_cython(path: Path) -> ModuleType:
    """`path` imported afresh as if Cython were not installed."""
    saved = sys.modules.get("cython")
    sys.modules["cython"] = None  # type: ignore[assignment]  # an import of it now fails
    try:
        spec = importlib.util.spec_from_file_location(f"_no_cython_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        if saved is None:
            del sys.modules["cython"]
        else:
            sys.modules["cython"] = saved
    return module


def test_the_rules_run_without_cython_as_with_it() -> None:
    bare = _without_cython(_shared("pools"))
    assert bare.cython.__name__ == "fracas._pure.cython"
    for args in itertools.product((0, 3, 10), (0, 2, 5), (False, True), (0, 4, 12), (0, 1, 6)):
        assert bare.after_damage(*args) == pools.after_damage(*args)
        assert bare.down(*args[2::-1]) == pools.down(*args[2::-1])
    bare = _without_cython(_shared("turn"))
    values = (0, 1, 2, 5, 1 << 62)
    for args in itertools.product((0, 1, 2), (0, 5, 1 << 62), (0, 5, 9), (0, 1), (False, True), (0, 3), (False, True)):
        assert bare.parry_now(*args) == turn.parry_now(*args)
    for args in itertools.product((0, 1, 2), (1, 2), values, (1, 10)):
        assert bare.power_now(*args) == turn.power_now(*args)
    for args in itertools.product((False, True), repeat=3):
        assert bare.weapon_breaks(*args) == turn.weapon_breaks(*args)
    for args in itertools.product((0, 1, 2), (0, 1, 3)):
        assert bare.parry_after(*args) == turn.parry_after(*args)
        assert bare.shatters(*args) == turn.shatters(*args)
    bare = _without_cython(_shared("strays"))
    for face in range(1, 21):
        assert bare.stray_face(face) == strays.stray_face(face)
        for to_hit, ac in itertools.product((-3, 0, 4), (10, 15, 22)):
            assert bare.stray_hits(face, to_hit, ac) == strays.stray_hits(face, to_hit, ac)
    for args in itertools.product((0, 1, 3), (False, True), (False, True), (False, True)):
        assert bare.stray_crits(*args) == strays.stray_crits(*args)
    for args in itertools.product((0, 1, 3), (0, 2), (False, True)):
        assert bare.stray_base(*args) == strays.stray_base(*args)
    for seed, disadvantage, paralyzed in itertools.product(range(6), (False, True), (False, True)):
        pool = [20, 19, 3, 18, 1]
        got, want, log_got, log_want = [0] * 4, [0] * 4, [], []
        one, two = Dice.from_seed(seed), Dice.from_seed(seed)
        assert bare.stray_check(one, pool, 1, 5, 2, 1, 12, 18, disadvantage, paralyzed, got, log_got) == \
            strays.stray_check(two, pool, 1, 5, 2, 1, 12, 18, disadvantage, paralyzed, want, log_want)
        assert (got, log_got, list(one.s)) == (want, log_want, list(two.s))
    bare = _without_cython(_shared("morale"))
    for args in itertools.product((False, True), (0, 1, 2), (0, 3, 9), (-1, 3, 9)):
        assert bare.declaration(*args) == morale.declaration(*args)
    for args in itertools.product((0, 1), (0, 1, 2), (1, 2, 4), (0, 1), (False, True), (1, 3), (12,)):
        assert bare.triggers(*args) == morale.triggers(*args)
    for args in itertools.product(range(2, 13), (7, 12), (-2, 0, 2)):
        assert bare.breaks(*args) == morale.breaks(*args)
        assert bare.fights_to_death(args[1], args[2] + 2) == morale.fights_to_death(args[1], args[2] + 2)
    bare = _without_cython(_shared("hurling"))
    for args in itertools.product(range(1, 21), (-3, 0, 4), (8, 15, 25)):
        assert bare.face_hits(*args) == hurling.face_hits(*args)
    for args in itertools.product((0, 3, 9), (-10, -3, 0, 2)):
        assert bare.thrown_damage(*args) == hurling.thrown_damage(*args)
    for n, disadvantage in itertools.product((1, 3, 8), (False, True)):
        got, want = [0] * 10, [0] * 10
        one, two = Dice.from_seed(n), Dice.from_seed(n)
        assert bare.hurl(one, n, 2, 14, disadvantage, got) == hurling.hurl(two, n, 2, 14, disadvantage, want)
        assert got == want and list(one.s) == list(two.s)
    bare = _without_cython(_shared("shock"))
    for args in itertools.product((-1, 0, 5, 6, 7), (1, 10, 12, 13)):
        assert bare.calls_for_save(*args) == shock.calls_for_save(*args)
        assert bare.save_dc(args[0]) == shock.save_dc(args[0])
    for how, keep, added, damage in itertools.product((0, 1, 2), (0, 1, 2), (-2, 3), (1, 9)):
        got, want = [0] * 3, [0] * 3
        one, two = Dice.from_seed(damage + added + 3), Dice.from_seed(damage + added + 3)
        assert bare.shock_roll(one, how, keep, added, damage, got) == shock.shock_roll(two, how, keep, added, damage,
                                                                                      want)
        assert got == want and list(one.s) == list(two.s)
    bare = _without_cython(_shared("negation"))
    for seed, keep, reacts in itertools.product(range(8), (0, 1, 2), (False, True)):
        got, want, rounds_got, rounds_want = [0] * 3, [0] * 3, [], []
        one, two = Dice.from_seed(seed), Dice.from_seed(seed)
        assert (bare.negation_roll(one, keep, 3, 12, reacts, keep, 1, 1, 1, got, rounds_got)
                == negation.negation_roll(two, keep, 3, 12, reacts, keep, 1, 1, 1, want, rounds_want))
        assert (got, rounds_got, list(one.s)) == (want, rounds_want, list(two.s))
    for owed, dice in itertools.product((1, 2), (1, 2, 3, 5)):
        got, want = [0], [0]
        assert bare.free_step(owed, dice, got) == negation.free_step(owed, dice, want) and got == want
    bare = _without_cython(_shared("saving"))
    for args in itertools.product(range(1, 21), (-3, 0, 2), (1, 10, 14, 30)):
        assert bare.saves(*args) == saving.saves(*args)
    for args in itertools.product((saving.BY_ANY, saving.BY_ATTACKS, saving.BY_SPELL), (False, True)):
        assert bare.forces(*args) == saving.forces(*args)
    bare = _without_cython(_shared("rolloffs"))
    for die, n in itertools.product((6, 20), (2, 3, 17, 70)):
        got, want = ([0] * n, [0] * n), ([0] * n, [0] * n)
        for module, (order, marks) in ((bare, got), (rolloffs, want)):
            dice = Dice.from_seed(n)
            marks = [[] for _ in range(n)]
            assert module.roll_offs(dice, die, list(range(n)), 0, n, 0, order, 0, marks) == n
            order.append((marks, list(dice.s)))
        assert got == want


# -- the rules themselves -------------------------------------------------------------------

def test_one_pool_damage_comes_off_hit_points_down_at_0() -> None:
    # after_damage(hp, injury, pooled, to_hp, to_injury)
    assert pools.after_damage(10, 0, False, 3, 2) == (5, 0)
    assert pools.after_damage(4, 0, False, 3, 2) == (0, 0)       # never below 0
    assert pools.down(False, 0, 0) and not pools.down(False, 1, 0)


def test_ct4_stamina_damage_past_0_becomes_injury_down_when_injury_is_gone() -> None:
    assert pools.after_damage(10, 6, True, 3, 0) == (7, 6)       # melee: Stamina
    assert pools.after_damage(10, 6, True, 0, 2) == (10, 4)      # ranged or sneak: Injury
    assert pools.after_damage(2, 6, True, 5, 1) == (0, 2)        # 3 past 0 go on to Injury
    assert pools.after_damage(0, 2, True, 4, 0) == (0, 0)        # never below 0
    assert pools.down(True, 0, 0) and not pools.down(True, 0, 1)  # at 0 Stamina, still standing


def test_er17_a_strays_counting_dice_move_up_by_2_at_most_20() -> None:
    assert [strays.stray_face(f) for f in (1, 9, 17, 18, 19, 20)] == [3, 11, 19, 20, 20, 20]
    assert strays.stray_hits(20, -10, 30)                       # a (moved-up) 20 always hits
    assert strays.stray_hits(13, 2, 15) and not strays.stray_hits(12, 2, 15)


def test_er17_a_stray_crits_as_an_attack_does_and_deals_a_point_a_hitting_die() -> None:
    # stray_crits(hits, disadvantage, crit_face, paralyzed)
    assert strays.stray_crits(1, False, True, False)
    assert strays.stray_crits(2, False, False, True)            # a hit on a paralyzed creature
    assert not strays.stray_crits(2, True, True, True)          # never with disadvantage
    assert not strays.stray_crits(0, False, True, True)         # no hit, no crit
    # stray_base(hits, chain, only_chain): a shot at range has no weight (ER-4)
    assert strays.stray_base(2, 3, False) == 5
    assert strays.stray_base(2, 3, True) == 3                   # petrified: only the chain
    assert strays.stray_base(0, 3, False) == 0


def test_os4_declarations_before_initiative() -> None:
    # declaration(broken, flee, hp, flee_at)
    assert morale.declaration(True, morale.FLEE_SURRENDER, 9, -1) == morale.SURRENDERS
    assert morale.declaration(True, morale.FLEE_BROKEN, 9, -1) == morale.FLEES_BROKEN
    assert morale.declaration(True, morale.FLEE_NEVER, 9, -1) == morale.STAYS       # fights on
    assert morale.declaration(True, morale.FLEE_NEVER, 3, 3) == morale.FLEES_HURT   # at its flee_at
    assert morale.declaration(False, morale.FLEE_SURRENDER, 3, 2) == morale.STAYS
    assert morale.declaration(False, morale.FLEE_BROKEN, 0, -1) == morale.STAYS     # no flee_at: never


def test_ct6_a_parry_is_the_turn_of_a_combatant_at_or_below_parry_at() -> None:
    weapon, shield, none = turn.PARRY_WEAPON, turn.PARRY_SHIELD, turn.PARRY_NONE
    # parry_now(parry, parry_at, stamina, weapon_left, weapon_broken, shield_left, casting)
    assert turn.parry_now(weapon, turn.PARRY_ALWAYS, 30, 1, False, 0, False) == weapon
    assert turn.parry_now(weapon, 10, 10, 1, False, 0, False) == weapon      # at parry_at
    assert turn.parry_now(weapon, 10, 11, 1, False, 0, False) == none        # above it: attacks
    assert turn.parry_now(none, turn.PARRY_ALWAYS, 1, 1, False, 5, False) == none
    assert turn.parry_now(weapon, turn.PARRY_ALWAYS, 5, 1, False, 0, True) == none   # casting instead


def test_ct6_a_shattered_weapon_or_a_destroyed_shield_parries_no_more() -> None:
    weapon, shield, none = turn.PARRY_WEAPON, turn.PARRY_SHIELD, turn.PARRY_NONE
    assert turn.parry_now(weapon, turn.PARRY_ALWAYS, 5, 0, False, 9, False) == none  # no explosions left
    assert turn.parry_now(weapon, turn.PARRY_ALWAYS, 5, 2, True, 9, False) == none   # CT-5: broken
    assert turn.parry_now(shield, turn.PARRY_ALWAYS, 5, 0, True, 3, False) == shield
    assert turn.parry_now(shield, turn.PARRY_ALWAYS, 5, 2, False, 0, False) == none  # destroyed


def test_ct6_a_parry_goes_on_while_its_weapon_or_shield_has_something_left() -> None:
    weapon, shield, none = turn.PARRY_WEAPON, turn.PARRY_SHIELD, turn.PARRY_NONE
    assert turn.parry_after(weapon, 1) == weapon and turn.parry_after(shield, 3) == shield
    assert turn.parry_after(weapon, 0) == none and turn.parry_after(shield, 0) == none
    # a shattered weapon stays shattered: a broken weapon (CT-5); a destroyed shield is no weapon
    assert turn.shatters(weapon, 0) and not turn.shatters(weapon, 1) and not turn.shatters(shield, 0)


def test_ct5_the_moment_of_a_power_attack() -> None:
    assert turn.power_now(turn.POWER_FIRST, 1, 10, 10)
    assert not turn.power_now(turn.POWER_FIRST, 2, 10, 10)
    assert turn.power_now(turn.POWER_HURT, 3, 5, 10)          # half or less
    assert not turn.power_now(turn.POWER_HURT, 3, 6, 10)
    assert turn.power_now(turn.POWER_HURT, 1, 5, 11)          # 5 of 11 is less than half
    assert not turn.power_now(turn.POWER_NEVER, 1, 0, 10)


def test_ct5_a_power_attack_breaks_its_weapon_a_sneak_strike_is_none() -> None:
    # weapon_breaks(powered, sneak, marked_power)
    assert turn.weapon_breaks(True, False, False)
    assert not turn.weapon_breaks(True, True, False)     # the tactic's power attack is never a sneak strike's
    assert turn.weapon_breaks(False, True, True)         # a strike the scenario marks power
    assert not turn.weapon_breaks(False, False, False)


def test_os4_the_triggers_of_a_morale_check() -> None:
    bit = {name: 1 << code for name, code in (("first death", morale.FIRST_DEATH),
                                               ("half", morale.HALF_DEFEATED),
                                               ("lone harmed", morale.LONE_HARMED),
                                               ("lone quarter", morale.LONE_QUARTER))}
    # triggers(killed, defeated, start, standing, lone_harmed, lone_hp, lone_hp_max)
    assert morale.triggers(0, 0, 6, 6, False, 0, 0) == 0
    assert morale.triggers(0, 1, 6, 5, False, 0, 0) == 0                  # fled: defeated, not killed
    assert morale.triggers(1, 1, 6, 5, False, 0, 0) == bit["first death"]
    assert morale.triggers(1, 3, 6, 3, False, 0, 0) == bit["first death"] | bit["half"]
    assert morale.triggers(0, 0, 1, 1, True, 8, 8) == bit["lone harmed"]
    assert morale.triggers(0, 0, 1, 1, True, 2, 8) == bit["lone harmed"] | bit["lone quarter"]  # 1/4 or less
    assert morale.triggers(0, 0, 1, 1, True, 3, 8) == bit["lone harmed"]
    assert morale.triggers(0, 0, 2, 2, True, 1, 8) == 0                   # not alone
    assert morale.TRIGGERS == len(bit)


def test_os4_2d6_above_morale_plus_modifier_breaks() -> None:
    assert morale.breaks(8, 7, 0) and not morale.breaks(7, 7, 0)
    assert not morale.breaks(9, 7, 2) and morale.breaks(8, 7, -1)


def test_er6_a_hurled_d20_hits_on_a_raw_20_never_on_a_raw_1_else_by_its_total() -> None:
    assert hurling.face_hits(20, -30, 40) and not hurling.face_hits(1, 30, 2)
    assert hurling.face_hits(10, 3, 13) and not hurling.face_hits(10, 2, 13)
    assert hurling.thrown_damage(3, -5) == 0 and hurling.thrown_damage(3, 1) == 4  # never below 0


def test_er13_a_sneak_attack_of_half_the_victims_body_calls_for_a_shock_save_dc_5_plus_damage() -> None:
    assert shock.calls_for_save(6, 12) and shock.calls_for_save(7, 12) and not shock.calls_for_save(5, 12)
    assert not shock.calls_for_save(0, 1)  # no damage, no shock
    assert shock.save_dc(6) == 11


def test_os5_a_saving_throw_meets_or_beats_its_number_natural_20_saves_natural_1_fails() -> None:
    assert saving.saves(12, 1, 13) and not saving.saves(11, 1, 13)   # d20 + total >= the number
    assert saving.saves(20, -5, 30) and not saving.saves(1, 15, 2)   # naturals, as attack rolls (OS-6)


def test_os5_by_says_which_attacks_force_a_save_or() -> None:
    assert saving.forces(saving.BY_ANY, False) and saving.forces(saving.BY_ANY, True)
    assert saving.forces(saving.BY_ATTACKS, False) and not saving.forces(saving.BY_ATTACKS, True)
    assert saving.forces(saving.BY_SPELL, True) and not saving.forces(saving.BY_SPELL, False)


def test_os4_morale_12_or_two_checks_passed_fight_to_the_death() -> None:
    assert morale.fights_to_death(12, 0)
    assert morale.fights_to_death(7, 2) and not morale.fights_to_death(7, 1)


def test_fights_and_strays_play_the_same_without_cython_installed() -> None:
    """A wheel's users have no Cython: the Python loop and a single attack's strays then run
    the rule files on `fracas._pure.cython`, and give what they give here."""
    import subprocess

    import orjson

    import fracas
    from fracas.drive.scenario import example

    names = ("ct-hill-giant", "os-goblin-ambush", "er-bandit-rout")
    keep = ("sides", "draws", "rounds", "combatants")
    here = {name: {k: v for k, v in fracas.simulate(example(name), runs=12, seed=5, loop="python").to_dict().items()
                   if k in keep} for name in names}
    code = ("import sys, orjson; sys.modules['cython'] = None\n"
            "import fracas\nfrom fracas.drive.scenario import example\n"
            "import fracas.rulesets.er.strays as s\nassert s.cython.__name__ == 'fracas._pure.cython'\n"
            f"keep = {keep!r}\n"
            f"print(orjson.dumps({{n: {{k: v for k, v in fracas.simulate(example(n), runs=12, seed=5, loop='python')"
            f".to_dict().items() if k in keep}} for n in {names!r}}}).decode())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert orjson.loads(done.stdout) == here


# -- roll-offs (ER-18, WW-1: d20; OS-1 re-rolled side ties: d6) -----------------------------

def _plain_roll_offs(tied: list[int], roll: Any, marks: list[list[int]]) -> list[int]:
    """The texts' roll-offs, plainly: each tied entry rolls in listed order, the entries go
    from the highest face down, those of one face roll off again among themselves."""
    if len(tied) == 1:
        return tied
    rolled = []
    for entry in tied:
        face = roll()
        marks[entry].append(face)
        rolled.append((face, entry))
    ranked: list[int] = []
    for face in sorted({f for f, _ in rolled}, reverse=True):
        ranked += _plain_roll_offs([e for f, e in rolled if f == face], roll, marks)
    return ranked


@pytest.mark.parametrize("die", [6, 20])
@pytest.mark.parametrize("n", [1, 2, 3, 15, 16, 17, 40, 64, 65, 300])
def test_roll_offs_draw_the_plain_recursions_dice_in_its_order(die: int, n: int) -> None:
    # rolloffs.roll_offs takes a pair, a few (insertion) and more (counting, past 64 its
    # faces in a buffer of their own) its own ways: the same faces, the same order, the same
    # generator state after as the plain recursion, each entry's faces recorded
    for seed in range(8):
        dice, plain = Dice.from_seed(seed), Dice.from_seed(seed)
        order, marks, want_marks = [0] * (n + 3), [[] for _ in range(n + 3)], [[] for _ in range(n + 3)]
        tied = [9, 9, 9] + list(range(n))  # from an offset: the entries tied[3:3 + n]
        assert rolloffs.roll_offs(dice, die, tied, 3, n, 0, order, 1, marks) == n + 1
        want = _plain_roll_offs(list(range(n)), lambda: plain.die(die), want_marks)
        assert order[1:n + 1] == want and marks == want_marks
        assert list(dice.s) == list(plain.s)


def test_a_tie_that_stands_limit_rounds_is_an_error_naming_the_limit() -> None:
    # a pair, three (insertion) and 20 (counting) entries whose injected faces never differ
    for n in (2, 3, 20):
        tied = [{"id": i, "tiebreaks": []} for i in range(n)]
        dice = Dice.from_seed(0, array("i", [7] * (n * rolloffs.LIMIT)))
        with pytest.raises(LimitError) as caught:
            rows.roll_off(tied, dice, 20, "an initiative roll-off", "$.combatants")
        assert caught.value.path == "$.combatants" and str(rolloffs.LIMIT) in caught.value.reason
        assert all(len(e["tiebreaks"]) == rolloffs.LIMIT for e in tied)
        dice = Dice.from_seed(0, array("i", [7] * (n * (rolloffs.LIMIT - 1)) + list(range(1, n + 1))))  # broken at the last
        assert [e["id"] for e in rows.roll_off(tied, dice, 20, "x", "$")] == list(range(n))[::-1]


def test_roll_off_names_what_injected_faces_were_for() -> None:
    tied = [{"id": i, "tiebreaks": []} for i in range(3)]
    with pytest.raises(DiceError) as caught:
        rows.roll_off(tied, Dice.from_seed(0, array("i", [4, 4])), 6, "a side initiative re-roll", "$.sides")
    assert caught.value.path == "$.rolls" and "a side initiative re-roll" in caught.value.reason
    with pytest.raises(DiceError) as caught:
        rows.roll_off(tied, Dice.from_seed(0, array("i", [4, 7, 2])), 6, "a side initiative re-roll", "$.sides")
    assert caught.value.path == "$.rolls[1]" and "7" in caught.value.reason


# -- ER-13 shock saves -----------------------------------------------------------------------

@pytest.mark.parametrize("keep", [shock.KEEP_ONE, shock.KEEP_HIGHER, shock.KEEP_LOWER])
def test_er13_a_shock_save_is_a_d20_kept_plus_its_bonus_against_5_plus_the_damage(keep: int) -> None:
    # ER-13: a failed save costs d3 actions; ER-12 two d20 at advantage or disadvantage, the
    # first drawn first, the better or worse kept (feats.roll_kept, drawn plainly here)
    for seed, added, damage in itertools.product(range(30), (-3, 0, 4), (2, 9, 15)):
        dice, plain = Dice.from_seed(seed), Dice.from_seed(seed)
        faces = [9, 9, 9]
        lost = shock.shock_roll(dice, shock.SAVE_ROLLED, keep, added, damage, faces)
        drawn = [plain.die(20)] + ([plain.die(20)] if keep != shock.KEEP_ONE else [])
        kept = max(drawn) if keep == shock.KEEP_HIGHER else min(drawn)
        assert faces == [drawn[0], drawn[1] if len(drawn) == 2 else 0, kept]
        if kept + added >= 5 + damage:
            assert lost == 0
        else:
            assert lost == plain.die(3) and 1 <= lost <= 3
        assert list(dice.s) == list(plain.s)


def test_er13_a_shock_save_not_rolled_or_failed_unrolled_draws_only_its_d3() -> None:
    dice, plain = Dice.from_seed(5), Dice.from_seed(5)
    faces = [9, 9, 9]
    assert shock.shock_roll(dice, shock.SAVE_REPORTED, shock.KEEP_ONE, 20, 4, faces) == 0  # no bonus given
    assert faces == [0, 0, 0] and list(dice.s) == list(plain.s)                             # nothing drawn
    assert shock.shock_roll(dice, shock.SAVE_FAILS, shock.KEEP_HIGHER, 20, 4, faces) == plain.die(3)  # ER-14
    assert faces == [0, 0, 0] and list(dice.s) == list(plain.s)


# -- ER Weapon Negation: a lock or disarm ----------------------------------------------------

def _plain_kept(dice: Dice, faces: int, keep: int) -> tuple[list[int], int]:
    drawn = [dice.die(faces)] + ([dice.die(faces)] if keep != shock.KEEP_ONE else [])
    return drawn, max(drawn) if keep == shock.KEEP_HIGHER else min(drawn)


@pytest.mark.parametrize("keep", [shock.KEEP_ONE, shock.KEEP_HIGHER, shock.KEEP_LOWER])
@pytest.mark.parametrize("reacts", [False, True])
def test_a_weapon_negation_is_a_kept_d20_then_d12_competitions_again_on_ties(keep: int, reacts: bool) -> None:
    # ER-6: the feat's raw 20 always succeeds, a raw 1 always fails; ER-12: two dice at
    # advantage or disadvantage, the first drawn first; ER-19: the victim's d12 then the
    # attacker's (at advantage: the weapon negation's edge), again on a tie; drawn plainly here
    assert negation.NEG_DIE == _facts.ER_COMPETITION_DIE and negation.NEG_ROUNDS == rolloffs.LIMIT
    for seed, total, ac, v_total, a_total in itertools.product(range(12), (-5, 4), (8, 16, 40), (0, 3), (0, 2)):
        dice, plain = Dice.from_seed(seed), Dice.from_seed(seed)
        faces, rounds = [9, 9, 9], []
        got = negation.negation_roll(dice, keep, total, ac, reacts, keep, v_total, shock.KEEP_HIGHER,
                                     a_total, faces, rounds)
        drawn, kept = _plain_kept(plain, 20, keep)
        assert faces == [drawn[0], drawn[1] if len(drawn) == 2 else 0, kept]
        if not (kept == 20 or (kept != 1 and kept + total >= ac)):
            assert got == negation.NEG_MISSED and rounds == []
        elif not reacts:
            assert got == negation.NEG_HELD and rounds == []
        else:
            want = []
            while True:
                v, vk = _plain_kept(plain, 12, keep)
                a, ak = _plain_kept(plain, 12, shock.KEEP_HIGHER)
                want.append([v[0], v[1] if len(v) == 2 else 0, vk, a[0], a[1], ak])
                if vk + v_total != ak + a_total:
                    break
            assert rounds == want
            assert got == (negation.NEG_FREED if vk + v_total > ak + a_total else negation.NEG_HELD)
        assert list(dice.s) == list(plain.s)


def test_a_locked_weapon_is_freed_with_2_attack_dice_a_1_die_strike_over_two_turns() -> None:
    # ER Weapon Negation: "the wielder frees it by giving up 2 attack dice", a 1-die strike
    # "spread over two rounds"; freed with dice left, the strike is made with the rest
    assert negation.NEG_FREE_DICE == _facts.ER_LOCK_FREE_DICE
    paid = [0]
    assert negation.free_step(2, 1, paid) == negation.NEG_WEAPON_OUT and paid == [1]  # 1 owed after
    assert negation.free_step(1, 1, paid) == negation.NEG_WEAPON_OUT and paid == [1]  # free, no die left
    assert negation.free_step(2, 2, paid) == negation.NEG_WEAPON_OUT and paid == [2]
    assert negation.free_step(2, 3, paid) == negation.NEG_WEAPON_REST and paid == [2]  # strikes with 1 die
    assert negation.free_step(2, 6, paid) == negation.NEG_WEAPON_REST and paid == [2]
    assert negation.free_step(1, 3, paid) == negation.NEG_WEAPON_REST and paid == [1]


def test_a_competition_tied_for_the_limits_rounds_says_so() -> None:
    # ER-19 "ties roll again", up to the limit every re-rolled tie has
    rolls = [15] + [6] * (2 * negation.NEG_ROUNDS)
    dice = Dice.from_seed(0, rolls=array("i", rolls))
    rounds: list[list[int]] = []
    assert negation.negation_roll(dice, shock.KEEP_ONE, 0, 10, True, shock.KEEP_ONE, 0,
                                  shock.KEEP_ONE, 0, [0] * 3, rounds) == negation.NEG_TIES
    assert len(rounds) == negation.NEG_ROUNDS


# -- ER Throwing Items: a hurled pool --------------------------------------------------------

@pytest.mark.parametrize("disadvantage", [False, True])
def test_a_hurled_pool_counts_its_dice_and_drops_the_highest_at_disadvantage(disadvantage: bool) -> None:
    # ER-6 per die (a raw 20 hits, a raw 1 misses); ER-12: one more d20, the highest (the
    # first of equals) dropped; drawn plainly here
    for seed, n, to_hit, ac in itertools.product(range(20), (1, 2, 8), (-2, 3), (8, 16, 30)):
        dice, plain = Dice.from_seed(seed), Dice.from_seed(seed)
        faces = [0] * 10
        hits = hurling.hurl(dice, n, to_hit, ac, disadvantage, faces)
        drawn = [plain.die(20) for _ in range(n + disadvantage)]
        dropped = drawn.index(max(drawn)) if disadvantage else -1
        assert faces[:len(drawn) + 1] == drawn + [dropped]
        assert hits == sum(1 for i, f in enumerate(drawn)
                           if i != dropped and (f == 20 or (f != 1 and f + to_hit >= ac)))
        assert list(dice.s) == list(plain.s)


# -- ER-17: the creature a stray shot strays into ----------------------------------------------

def test_er17_a_stray_checks_the_moved_up_dice_and_draws_a_crits_chain_there() -> None:
    # faces in the kernel's log layout (face, flag), the disadvantage die (index 1) left out
    log = [18, 1, 20, 0, 9, 1, 1, 0]
    for seed in range(40):
        dice, plain = Dice.from_seed(seed), Dice.from_seed(seed)
        got, chain_log = [0] * 4, []
        assert strays.stray_check(dice, log, 2, 4, 1, 2, 15, 20, False, False, got, chain_log) == 0
        # 18 → 20 (hits, a natural 20, in the crit range), 9 → 11 (+2 = 13 < 15), 1 → 3 (misses)
        assert got[strays.GOT_HITS] == 1 and got[strays.GOT_NAT20] == 1 and got[strays.GOT_CRIT] == 1
        chain = 0
        while True:  # ER-8 at the stray's creature: a d20 at its AC, a d3 when it hits, again on a 20
            face = plain.die(20)
            hit = face == 20 or (face != 1 and face + 2 >= 15)
            d3 = plain.die(3) if hit else 0
            chain += d3
            assert chain_log.pop(0) == (face, hit, d3)
            if face != 20:
                break
        assert chain_log == [] and got[strays.GOT_CHAIN] == chain and list(dice.s) == list(plain.s)
    got = [0] * 4  # at disadvantage no crit (ER-12), nothing drawn
    dice = Dice.from_seed(1)
    before = list(dice.s)
    assert strays.stray_check(dice, log, 2, 4, 1, 2, 15, 20, True, False, got, None) == 0
    assert got == [1, 1, 0, 0] and list(dice.s) == before
    many = Dice.from_seed(0, array("i", [20, 1] * 10_001))  # a chain of 20s (each with its d3) past the limit
    assert strays.stray_check(many, log, 2, 4, 1, 2, 15, 20, False, False, [0] * 4, None) == -1



@pytest.mark.parametrize("die", [10, 20])
@pytest.mark.parametrize("n", [1, 2, 5, 40, 300])
def test_er18_ww1_initiative_is_a_die_each_then_totals_then_subs_then_roll_offs(die: int, n: int) -> None:
    # ER-18 (a d10 + modifier, no sub) and WW-1 (a d20 + modifier, equal totals by the higher
    # Dexterity modifier): all the dice in listed order, then the roll-offs, run by run from
    # the highest; the plain sort and recursion are the reference
    rng = __import__("random").Random(n * die)
    for seed in range(6):
        mods = [rng.randint(-2, 4) for _ in range(n)]
        subs = [rng.randint(-1, 2) for _ in range(n)] if die == 20 else [0] * n
        dice, plain = Dice.from_seed(seed), Dice.from_seed(seed)
        order, rolls, marks = rows.roll_order(mods, subs, dice, die, "$.combatants")
        drawn = [plain.die(die) for _ in range(n)]
        want_marks: list[list[int]] = [[] for _ in range(n)]
        want: list[int] = []
        for key in sorted({(drawn[k] + mods[k], subs[k]) for k in range(n)}, reverse=True):
            tied = [k for k in range(n) if (drawn[k] + mods[k], subs[k]) == key]
            want += _plain_roll_offs(tied, lambda: plain.die(20), want_marks)
        assert (order, rolls, marks) == (want, drawn, want_marks)
        assert list(dice.s) == list(plain.s)


def test_roll_order_runs_without_cython_as_with_it() -> None:
    bare = _without_cython(_shared("rolloffs"))
    mods, subs = [3, 1, 3, 0, 3, 2] * 5, [0, 1, 0, 1, 2, 0] * 5
    got = [[0] * 30 for _ in range(3)] + [[[] for _ in range(30)]]
    want = [[0] * 30 for _ in range(3)] + [[[] for _ in range(30)]]
    for module, (who, order, rolls, marks) in ((bare, got), (rolloffs, want)):
        who[:] = range(30)  # who is order: the compiled loop's way
        dice = Dice.from_seed(11)
        assert module.roll_order(dice, 20, who, 30, mods, subs, 1, 23, 0, 3, [0] * 70, [0] * 30, [0] * 30, who,
                                 rolls, marks) == 30
        order[:] = [list(dice.s)]
    assert got == want



@pytest.mark.parametrize("together_ties", [False, True])
def test_os1_sides_roll_a_d6_each_highest_first_ties_together_or_re_rolled_waiting_last(together_ties: bool) -> None:
    # OS-1: a d6 per side that does not wait, in listed order; equal faces act together
    # ("simultaneous") or re-roll until broken ("reroll"); waiting sides act last
    for seed, n in itertools.product(range(25), (2, 3, 5, 9)):
        waits = [int(i % 4 == 3) for i in range(n)]
        dice, plain = Dice.from_seed(seed), Dice.from_seed(seed)
        faces, slot_of, together = [0] * n, [0] * n, [0] * n
        marks: list[list[int]] = [[] for _ in range(n)]
        slots = rolloffs.side_order(dice, n, waits, together_ties, faces, [0] * n, [0] * n, slot_of, together, marks)
        drawn = [0 if w else plain.die(6) for w in waits]
        want_marks: list[list[int]] = [[] for _ in range(n)]
        want: list[list[int]] = []
        for face in range(6, 0, -1):
            tied = [i for i in range(n) if drawn[i] == face]
            if together_ties or len(tied) == 1:
                want += [tied] if tied else []
            elif tied:
                want += [[i] for i in _plain_roll_offs(tied, lambda: plain.die(6), want_marks)]
        want += [[i] for i in range(n) if waits[i]]
        got = [[i for i in range(n) if slot_of[i] == slot] for slot in range(slots)]
        assert (got, faces, marks) == (want, drawn, want_marks)
        assert together[:slots] == [int(len(group) > 1) for group in want]
        assert list(dice.s) == list(plain.s)
