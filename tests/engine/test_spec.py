"""One source for shared facts: every generated file is what the spec makes now."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional, Union

import msgspec
import pytest

from fracas import _facts, _layout
from fracas.rulesets import results as results_module
from fracas.spec import generate

REPO = Path(__file__).resolve().parents[2]


def test_no_generated_file_is_stale():
    """`python -m fracas.spec --check` in-process: regenerate in memory and compare."""
    assert generate.stale(REPO) == []


def test_the_check_command_fails_on_a_stale_file(tmp_path):
    """The check can fail: a copy of the tree with one generated file edited is caught."""
    ports = [str(p.relative_to(REPO)) for p in (REPO / generate.PORTS_DIR).glob("*.js")]
    for path in [*generate.OUTPUTS, generate.BIGJSON_SOURCE, *ports]:
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text((REPO / path).read_text())
    (tmp_path / "cython_core" / "_layout.pxi").write_text("# edited by hand\n")
    assert generate.stale(tmp_path) == ["cython_core/_layout.pxi"]


def test_a_roll20_port_the_manifest_declares_must_exist(tmp_path):
    """The Roll20 resolver's ports/index.js lists one file a ruleset whose manifest's
    `clients` has roll20; a declared port without its file stops the generation, naming it."""
    (tmp_path / generate.PORTS_DIR).mkdir(parents=True)
    for port in (REPO / generate.PORTS_DIR).glob("*.js"):
        if port.name != "cartyrion.js":
            (tmp_path / generate.PORTS_DIR / port.name).write_text(port.read_text())
    with pytest.raises(ValueError, match=r"no port for cartyrion, which the manifest says"):
        generate.roll20_ports({}, tmp_path)
    (tmp_path / generate.PORTS_DIR / "cartyrion.js").write_text("")
    listed = generate.roll20_ports({}, tmp_path)
    assert [line.strip() for line in listed.splitlines() if "require(" in line] == [
        "require('./worldwalker'),", "require('./cartyrion'),", "require('./old-school'),"]


def test_the_check_command_runs_from_a_checkout():
    """The whole check (spec, Roll20 bundles, vectors, fixtures: tests/release/test_regen.py)."""
    done = subprocess.run([sys.executable, "-m", "fracas.spec", "--check"], cwd=REPO / "src",
                          capture_output=True, text=True,
                          env={"PYTHONPATH": str(REPO / "src"), "PATH": os.environ.get("PATH", "")})
    assert done.returncode == 0, done.stderr
    assert "generated and fixture files are up to date" in done.stdout
    if shutil.which("node"):
        assert "node" not in done.stderr


def test_layout_widths_match_their_columns():
    facts = generate.load()
    assert _layout.PLAN_WIDTH == len(facts["layout"]["plan"]["columns"])
    assert _layout.OUT_WIDTH == len(facts["layout"]["out"]["columns"])
    assert _layout.N_TYPES == len(_facts.DAMAGE_TYPES)


#: Templates Python does not fill in itself: msgspec words these decode errors (the JS
#: decoder says the same; test_msgspec_words_its_errors_as_the_spec_says checks msgspec).
SAID_BY_MSGSPEC = {"msgspec_type", "msgspec_enum", "msgspec_unknown_field", "msgspec_missing_field"}
#: The Roll20 sandbox's own CPU meter (odds.js) and its offline/bridge routing (registry.js):
#: Python has no such budget and resolves every ruleset itself.
JAVASCRIPT_ONLY = {"odds_work", "no_offline_resolver"}
#: Templates of a kind the Roll20 resolver has no port of (Enchanted Realms' `save`, `touch`,
#: `drop`, `lock`, `throw` and `slam`: the bridge's save.roll, touch.roll, drop.roll, lock.roll,
#: throw.roll and slam.roll roll them for the clients), said by Python only.
PYTHON_ONLY = {"save_empty_id", "save_same_id", "save_needs", "save_full_cover", "save_no_targets"}
PYTHON_ONLY |= {"touch_needs_ac", "touch_needs_agility"}
PYTHON_ONLY |= {"drop_one_way", "drop_attack_ruleset", "drop_attack_dice", "drop_not_sneak", "drop_one_victim",
                "drop_friendly_fire", "drop_needs"}
PYTHON_ONLY |= {"lock_same", "lock_needs", "lock_no_reaction", "lock_cannot_react", "lock_cannot_act",
                "lock_blitz_react"}
PYTHON_ONLY |= {"throw_area", "throw_needs_damage", "throw_damage_listed", "throw_needs_agility"}
# Old-school saving throws (OS-5): no JavaScript port either (the bridge's save.roll rolls them).
PYTHON_ONLY |= {"os_save_needs", "os_save_table_empty", "os_save_category", "os_save_category_empty",
                "os_save_no_category", "os_save_no_targets", "os_save_empty_id", "os_save_same_id"}
PYTHON_ONLY |= {"slam_same", "slam_size", "slam_needs", "slam_cannot_act", "slam_not_tall", "slam_reach",
                "slam_into_same"}

def test_the_kernel_call_info_is_named_by_the_spec_everywhere():
    """The ER and row kernels' call info was an unnamed 5-slot array indexed by number in
    five places; its slots are the spec's [layout.info] now (I_POS … I_ERROR_FACES), in
    Python and Cython (the generated _layout.pxd the kernels cimport), and no kernel or caller indexes it by a bare number. The JavaScript
    resolvers throw their errors and have no info array: the block is not in facts.js."""
    facts = generate.load()
    names = [name for name, _doc in facts["layout"]["info"]["columns"]]
    assert [getattr(_layout, "I_" + name) for name in names] == list(range(len(names))) == \
        list(range(_layout.INFO_WIDTH))
    pxd = (REPO / "cython_core" / "_layout.pxd").read_text()
    assert all(f"I_{name} = {i}" in pxd for i, name in enumerate(names))
    assert "INFO_WIDTH" not in (REPO / "vtt_scripts" / "roll20" / "src" / "facts.js").read_text()
    sources = [*(REPO / "cython_core").glob("*.py*"), *(REPO / "src" / "fracas").rglob("*.py"),
               *(REPO / "benchmarks").glob("*.py")]
    bare = [f"{p.relative_to(REPO)}:{n}" for p in sources for n, line in enumerate(p.read_text().splitlines(), 1)
            if re.search(r"\binfo\[\d\]", line) and "group_info" not in line]  # a group's (name, …) tuple
    assert bare == []


@pytest.mark.parametrize("key, template", sorted(_facts.MESSAGES.items()))
def test_every_message_template_is_used_by_python_and_javascript(key, template):
    """A template that no code says is dead; one only Python says would drift from the JS resolver."""
    python = "\n".join(p.read_text() for p in (REPO / "src" / "fracas").rglob("*.py")
                       if p.name not in ("_facts.py",))
    js = "\n".join(p.read_text() for p in (REPO / "vtt_scripts" / "roll20" / "src").rglob("*.js")
                   if p.name not in ("facts.js", "contract.js"))
    if key not in SAID_BY_MSGSPEC | JAVASCRIPT_ONLY:
        assert f'"{key}"' in python or f"'{key}'" in python, f"{key} is not used in Python"
    # The hand-written resolver quotes keys 'so'; strikes.js, translated from the Python, "so".
    said_in_js = f"'{key}'" in js or f'"{key}"' in js
    if key in PYTHON_ONLY:
        assert not said_in_js, f"{key} is said by the JavaScript resolver: take it out of PYTHON_ONLY"
        return
    assert said_in_js, f"{key} is not used by the JavaScript resolver"


def test_python_says_every_template_through_say():
    """No message of the spec is written literally in the Python engine (every one goes
    through `say()`), and no limit facts.toml has is declared again: scripts/duplicates.py's
    Python scan finds none (tests/release/test_duplicates.py shows it can find one)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("duplicates", REPO / "scripts" / "duplicates.py")
    scanner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scanner)
    copies = scanner.python_copies(REPO)
    assert copies == [], "\n".join(f"{where}:{line}: {kind}: {what}" for where, line, kind, what in copies)


def test_msgspec_words_its_errors_as_the_spec_says():
    """The JS decoder copies msgspec's wording through these templates; a msgspec upgrade that
    rewords them fails here, not in a vector diff."""
    from fracas.errors import SchemaError
    from fracas.requests import convert, say
    from fracas.rulesets.er.schema import Attacker, Strike

    cases = [({"strength": "x"}, Attacker, say("msgspec_type", expected="int | null", got="str")),
             ({"method": "magic", "style": "s", "dice": 1, "damage_type": "edged", "target": "t"}, Strike,
              say("msgspec_enum", value="'magic'")),
             ({"bogus": 1}, Attacker, say("msgspec_unknown_field", field="bogus")),
             ({"method": "melee"}, Strike, say("msgspec_missing_field", field="style"))]
    for value, spec, reason in cases:
        with pytest.raises(SchemaError) as caught:
            convert(value, spec)
        assert caught.value.reason == reason


def test_bridge_error_codes_come_from_the_spec():
    from fracas.bridge import errors

    for name, value in generate.load()["error_codes"].items():
        assert getattr(errors, name) == value[0]


def test_an_er_strike_result_has_the_spec_layout():
    """The ER result shapes' fields (er/results.py) are the one list of an ER attack's,
    strike's and target's keys: the backend under test (compiled, or pure Python with
    FRACAS_PUREPYTHON=1) builds exactly these, in order; the Roll20 engine.js lays its
    result out from the same lists (contract.js RESULTS, written from the shapes)."""
    import fracas
    from fracas.rulesets.er import results

    request = {"attacker": {"strength": 6, "agility": 4}, "strikes": [
        {"method": "melee", "style": "slashing", "dice": 2, "damage_type": "edged", "target": "g"},
        {"method": "range", "style": "archery", "dice": 1, "damage_type": "piercing", "target": "g"}],
        "targets": {"g": {"ac": 12}}}
    result = fracas.resolve(request, seed=7).to_dict()
    for strike in result["strikes"]:
        assert tuple(strike) == results.Strike.__struct_fields__
    assert tuple(result) == results.AttackResult.__struct_fields__
    assert all(tuple(target) == results.Target.__struct_fields__ for target in result["targets"].values())
    contract = generate.contract_facts()["RESULTS"]["enchanted-realms"]["shapes"]
    for shape in (results.Strike, results.AttackResult, results.Target):
        keys = [entry if isinstance(entry, str) else entry[0] for entry in contract[shape.__name__]]
        assert tuple(keys) == shape.__struct_fields__, shape.__name__


def test_the_protocol_says_an_er_result_has_exactly_the_spec_keys():
    """bridge/schema.json's ER attack result schemas are made from the ruleset's result shapes
    (fracas/rulesets/er/results.py), whose fields are the keys the kernels build, in that
    order: every key required, no other; attack.resolve's result for
    Enchanted Realms must be one. A result the engine builds (strays, shock saves and grapple
    releases in it) has exactly those keys at each level."""
    import json

    import fracas
    from fracas.rulesets.er import results

    defs = json.loads((REPO / "bridge" / "schema.json").read_text())["$defs"]
    shapes = {"er_attack": (results.AttackResult, "attack_result"), "er_target": (results.Target, "target"),
              "er_strike": (results.Strike, "strike")}
    for layout, (shape, name) in shapes.items():
        keys = shape.__struct_fields__
        made = defs[f"results.enchanted-realms.{name}"]
        assert sorted(made["required"]) == sorted(keys) and made["additionalProperties"] is False
        assert sorted(made["properties"]) == sorted(keys)
    attack = defs["results.enchanted-realms.attack_result"]["properties"]
    assert attack["strikes"]["items"] == {"$ref": "#/$defs/results.enchanted-realms.strike"}
    assert attack["targets"]["additionalProperties"] == {"$ref": "#/$defs/results.enchanted-realms.target"}
    assert attack["seed"] == {"type": "integer", "minimum": 0}
    then = [c["then"] for c in defs["result.attack.resolve"]["allOf"]
            if c["if"]["properties"]["ruleset"] == {"const": "enchanted-realms"}]
    assert then == [{"$ref": "#/$defs/results.enchanted-realms.attack_result"}]
    request = {"attacker": {"strength": 6, "agility": 4}, "strikes": [
        {"method": "range", "style": "archery", "dice": 1, "damage_type": "piercing", "target": "g", "friendly_fire": True}],
        "targets": {"g": {"ac": 30, "nearby": ["n"], "body_max": 20, "save_bonus": 0}, "n": {"ac": 1}}}
    result = fracas.resolve(request, seed=3).to_dict()

    def keys_of(value: dict, layout: str) -> None:
        assert sorted(value) == sorted(shapes[layout][0].__struct_fields__), layout

    keys_of(result, "er_attack")
    for strike in result["strikes"]:
        keys_of(strike, "er_strike")
    for target in result["targets"].values():
        keys_of(target, "er_target")


def test_the_contract_marks_a_ruleset_without_a_roll20_port():
    """generate.roll20_port is the one place the Roll20 flag is decided: the built-in
    rulesets have ports; a ruleset whose manifest's clients leave Roll20 out (the package
    docs/examples/d6pool, registered through the public registry) is bridge-only in the Mod,
    with its own request structs in the contract; the JavaScript tests read that entry from
    vtt_scripts/roll20/test/fixtures/d6pool_contract.json, which is what the generator writes."""
    import json
    import sys

    import fracas.rulesets

    sys.path.insert(0, str(REPO / "docs" / "examples" / "d6pool"))
    try:
        pool = fracas.rulesets.register_package("d6pool")
        assert pool is not None
        try:
            contract = generate.contract_facts()
            foundry = generate.foundry_contract(generate.load(), REPO)
        finally:
            fracas.rulesets.unregister(pool.name)
    finally:
        sys.path.remove(str(REPO / "docs" / "examples" / "d6pool"))
    by_name = {r["name"]: r for r in contract["RULESETS"]}
    assert {name: r["roll20"] for name, r in by_name.items()} == {
        "enchanted-realms": True, "worldwalker": True, "cartyrion": True, "old-school": True, "d6-pool": False}
    assert by_name["d6-pool"] == {"name": "d6-pool", "title": "D6 pool", "roll20": False, "requests": {
        "attack": "AttackRequest", "bulk": "BulkRequest", "initiative": "InitiativeRequest", "pool": "PoolRequest"}}
    assert contract["STRUCTS"]["d6-pool"]["Strike"] == [["dice", "int"], ["target", "str", ""]]
    assert contract["STRUCTS"]["d6-pool"]["Attacker"] == [["extra", "int", 0]]
    fixture = json.loads((REPO / "vtt_scripts" / "roll20" / "test" / "fixtures" / "d6pool_contract.json").read_text())
    assert fixture == {"entry": by_name["d6-pool"], "structs": contract["STRUCTS"]["d6-pool"]}
    # Foundry's contract: the module does not offer it (its manifest leaves Foundry out).
    assert '"name": "d6-pool", "title": "D6 pool", "titleKey": "FRACAS.Ruleset.Title.d6-pool"' in foundry
    assert '"foundry": false' in foundry and 'Attacker: Object.freeze(["extra"])' in foundry
    assert "d6-pool" not in fracas.rulesets.names()



# Shapes for the layout test below, at module level (this file's annotations are strings,
# which msgspec resolves in the module's namespace).
class _Inner(results_module.Shape):
    face: int


class _Heads(results_module.Shape, tag=True):  # msgspec unions two shapes only when tagged
    face: int


class _Tails(results_module.Shape, tag=True):
    side: str


class _Outer(results_module.Rolled):
    one: _Inner
    many: list[_Inner]
    by_id: dict[str, _Inner]
    maybe: Optional[_Inner]
    mixed: list[Union[int, _Inner]]
    plain: list[int]
    tagged: _Heads
    some: Union[list[_Inner], results_module.UnsetType] = results_module.UNSET


class _Two(results_module.Shape):
    either: Union[_Heads, _Tails]


class _Tupled(results_module.Shape):
    pair: tuple[int, _Inner]


class _LaidOut:
    """A ruleset as far as generate.result_layouts reads one."""

    name = "test"
    request_types: dict = {}

    def __init__(self, shape: type):
        self.result_types = {"roll": shape}


def test_result_layouts_name_nested_shapes_and_refuse_what_the_contract_cannot_say():
    """generate.result_layouts: a shape's keys in field order, the nested shape a key holds
    (itself, a list or object of it, nullable, or a plain value or it), a key only some
    results have marked optional; a union of two shapes, or a shape in a tuple, is refused
    naming the field (the Roll20 checker could not tell which shape to hold it to)."""
    assert generate.result_layouts(_LaidOut(_Outer)) == {"kinds": {"roll": "_Outer"}, "shapes": {
        "_Outer": ["ruleset", "seed", "injected", ["one", "_Inner"], ["many", {"list": "_Inner"}],
                   ["by_id", {"dict": "_Inner"}], ["maybe", {"nullable": "_Inner"}],
                   ["mixed", {"list": {"or_scalar": "_Inner"}}], "plain", ["tagged", "_Heads"],
                   ["some", {"list": "_Inner"}, "optional"]],
        "_Inner": ["face"], "_Heads": ["type", "face"]}}
    assert list(msgspec.to_builtins(_Heads(face=3))) == ["type", "face"]  # the tag, first
    for shape, field in ((_Two, "_Two.either"), (_Tupled, "_Tupled.pair")):
        with pytest.raises(ValueError, match=field):
            generate.result_layouts(_LaidOut(shape))
