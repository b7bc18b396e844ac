"""Issue 41: each ruleset owns its round. The fight driver, the compiled-plan builder, the
scenario, the ruleset base class and the procedure protocol name no ruleset and carry no
ruleset's fight flag; a ruleset's round lives in its folder (`fracas/rulesets/<ruleset>/fight.py`),
and so do the scenario fields only its round reads (`Procedure.tactics`, `Procedure.fields`).

Not yet covered: the compiled loop's shared steps (`fracas/rulesets/loop.py`) call the
built-in rounds' steps (`loop.ROUND_STEPS`: `_ct_round`, `_os_round`, the ER turn's steps)
on the plan's round kind, and its table keys (`ct`, `os`, `ct_init`) are two-letter folder
names this test leaves out. A plug-in's plain round (its initiative called each round) plays
on the compiled loop; a round procedure of its own does not yet (tests/fights/test_plain_round.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fracas import rulesets

SRC = Path(__file__).resolve().parents[2] / "src" / "fracas"
GENERIC = ["drive/fight.py", "drive/fastfight.py", "drive/pyloop.py", "drive/scenario.py", "rulesets/base.py",
           "rulesets/fight.py", "rulesets/loop.py", "rulesets/loopstate.py"]
#: The flags and hooks the base class carried for the built-in rounds before they moved.
OLD_FLAGS = ["weapon_memory", "reserve_actions", "one_action", "flight_declared", "initiative_once",
             "spell_disruption", "fleeing_target", "no_reaction", "power_attack", "no_sneak", "fight_parry",
             "fight_forgone", "fight_action", "fight_reactions", "fight_pools", "fight_phases", "_TACTICS"]


def _names() -> list[str]:
    """Each registered built-in ruleset's name, title, package folder and class name."""
    found = []
    for name in rulesets.names():
        ruleset = rulesets.get(name)
        module = type(ruleset).__module__
        if not module.startswith("fracas.rulesets."):
            continue
        folder = module.split(".")[2]
        found += [name, ruleset.title, type(ruleset).__name__] + ([folder] if len(folder) > 2 else [])
    return [n for n in found if n]


@pytest.mark.parametrize("path", GENERIC)
def test_the_generic_fight_code_names_no_ruleset(path):
    text = (SRC / path).read_text(encoding="utf-8")
    named = [n for n in _names() if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text, re.I)]
    assert named == [], f"{path} names {named}: that belongs in the ruleset's folder (its fight.py)"
    flags = [f for f in OLD_FLAGS if re.search(rf"\b{f}\b", text)]
    assert flags == [], f"{path} carries a ruleset's fight flag {flags}"


def test_each_built_in_round_lives_in_its_rulesets_folder():
    for name in rulesets.names():
        ruleset = rulesets.get(name)
        module = type(ruleset).__module__
        if not module.startswith("fracas.rulesets."):
            continue
        procedure = ruleset.fight_procedure()
        assert procedure.__module__ == f"{module}.fight", name


def test_a_rounds_own_scenario_fields_are_declared_by_it_not_by_the_scenario():
    from fracas.drive.scenario import CombatantSpec, Tactic, combatant_type
    from fracas.rulesets.fight import Field

    shared = set(CombatantSpec.__struct_fields__) | {f"tactic.{n}" for n in Tactic.__struct_fields__}
    declared = {}
    for name in rulesets.names():
        procedure = rulesets.get(name).fight_procedure()
        own = {**{n: f for n, f in procedure.fields.items()}, **{f"tactic.{n}": f for n, f in procedure.tactics.items()}}
        assert all(isinstance(f, Field) for f in own.values()), name
        assert not set(own) & shared, f"{name} declares shared fields {set(own) & shared}"
        declared.update({n: name for n in own})
        spec = combatant_type(procedure)  # its scenario's combatant: the shared fields and its own
        assert set(spec.__struct_fields__) == set(CombatantSpec.__struct_fields__) | set(procedure.fields)
        tactic = msgspec_field_type(spec, "tactic")
        assert set(tactic.__struct_fields__) == set(Tactic.__struct_fields__) | set(procedure.tactics)
    assert {"tactic.defend_at", "tactic.reserve", "tactic.parry", "tactic.action", "surprise_immune",
            "nearby"} <= set(declared)


def msgspec_field_type(struct, name):
    import msgspec

    return next(f.type for f in msgspec.structs.fields(struct) if f.name == name)


def test_the_plan_builder_names_no_rounds_own_table():
    # fastfight lays every plan out with each built-in round's tables (the one loop takes
    # them all); what those tables are when another round plays is the round's own word, in
    # its ruleset's loop.py (`neutral_tables`), not the generic builder's
    from fracas.drive import pyloop

    owned = pyloop.neutral_tables(2, 2, 2)
    assert {"side_turns", "phased", "ct_group", "os_side", "negates", "strays", "shock"} <= set(owned)
    text = (SRC / "drive/fastfight.py").read_text(encoding="utf-8")
    named = sorted(key for key in owned if re.search(rf"[\"']{re.escape(key)}[\"']", text))
    assert named == [], f"drive/fastfight.py names the tables {named} of a ruleset's round"
