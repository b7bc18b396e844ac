"""Who owns a fact: the shared spec (src/fracas/spec/facts.toml) or one ruleset's manifest.

The rule (facts.toml's header, docs/ADDING_A_RULESET.md): facts.toml keeps what fracas
shares; a ruleset's own constants and messages (those only its code reads, the messages
citing only its rule IDs) are in its folder's manifest.toml. `misplaced` finds every fact
on the wrong side, from where the Python sources use it; the first test runs it on the
checkout, the second proves it catches a ruleset-only fact put back into facts.toml.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import fracas
from fracas import _facts
from fracas.rulesets import RulesetInvalid, manifest
from fracas.spec import generate

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src" / "fracas"


def _builtins() -> list[manifest.Manifest]:
    return [m for m in fracas.rulesets.manifests() if m.package.startswith("fracas.rulesets.")]


def _sources() -> dict[str, str]:
    """The Python sources that may use a fact, by owner: a built-in ruleset's folder name
    for the files in it, "shared" for the rest of fracas and the bridge (generated files
    aside: they carry every fact)."""
    folders = {m.package.rsplit(".", 1)[1]: m for m in _builtins()}
    texts: dict[str, list[str]] = {}
    for path in [*SRC.rglob("*.py"), *(REPO / "bridge").rglob("*.py")]:
        if path.name in ("_facts.py", "_layout.py") or "spec" in path.relative_to(REPO).parts:
            continue
        parts = path.relative_to(SRC).parts if path.is_relative_to(SRC) else ()
        owner = parts[1] if len(parts) > 2 and parts[0] == "rulesets" and parts[1] in folders else "shared"
        texts.setdefault(owner, []).append(path.read_text(encoding="utf-8"))
    return {owner: "\n".join(parts) for owner, parts in texts.items()}


def _users(pattern: str, sources: dict[str, str]) -> set[str]:
    return {owner for owner, text in sources.items() if re.search(pattern, text)}


def _message_users(key: str, sources: dict[str, str]) -> set[str]:
    return _users(rf"""["']{re.escape(key)}["']""", sources)


def _constant_users(key: str, sources: dict[str, str]) -> set[str]:
    return _users(rf"\b{re.escape(key.upper())}\b", sources)


def _cited(text: str, ids: set[str]) -> set[str]:
    """The rulesets (short IDs, upper-case) whose rule IDs (ER-8, WW-4) `text` cites."""
    return {m for m in re.findall(r"\b([A-Z]{2,})-\d+", text) if m in ids}


def misplaced(shared: dict[str, Any], manifests: list[manifest.Manifest], sources: dict[str, str]) -> list[str]:
    """Every fact on the wrong side of the rule, as a sentence saying where it belongs."""
    folder = {m.package.rsplit(".", 1)[1]: m for m in manifests}
    ids = {m.id.upper() for m in manifests}
    found = []
    for key, text in shared["messages"].items():
        cited = _cited(text, ids)
        users = _message_users(key, sources)
        if len(cited) == 1:
            found.append(f"facts.toml [messages] {key} cites only {cited.pop()} rule IDs: it belongs in that"
                         " ruleset's manifest")
        elif len(users) == 1 and next(iter(users)) in folder:
            found.append(f"facts.toml [messages] {key} is said only by {folder[next(iter(users))].source}'s"
                         " ruleset: it belongs in its [messages]")
    for table, keys in (("rules", shared["rules"]), ("enums.limits", shared["enums"]["limits"])):
        for key in keys:
            users = _constant_users(key, sources)
            if len(users) == 1 and next(iter(users)) in folder:
                found.append(f"facts.toml [{table}] {key} is read only by the {folder[next(iter(users))].name}"
                             " ruleset: it belongs in its manifest's [constants]")
    for name, m in folder.items():
        for key, text in m.messages.items():
            other = _cited(text, ids) - {m.id.upper()}
            users = _message_users(key, sources) - {name}
            if other:
                found.append(f"{m.source} [messages] {key} cites {sorted(other)} rule IDs")
            if users:
                found.append(f"{m.source} [messages] {key} is said by {sorted(users)} too: it belongs in facts.toml")
        for key in m.constants:
            users = _constant_users(key, sources) - {name}
            if users:
                found.append(f"{m.source} [constants] {key} is read by {sorted(users)} too: it belongs in facts.toml")
    return found


def test_every_fact_is_where_the_rule_says():
    assert misplaced(generate.load_shared(), _builtins(), _sources()) == []


def test_a_ruleset_only_fact_put_back_into_facts_toml_is_found():
    """WW-4's `ww_critical`, ER-17's `er_stray_shift`, ER-3's `max_skill_dice`, and a
    message only Cartyrion's code says without citing a rule, each moved back to the
    shared spec."""
    shared = generate.load_shared()
    ww, ct = (fracas.rulesets.get(n).manifest for n in ("worldwalker", "cartyrion"))
    er = fracas.rulesets.get("enchanted-realms").manifest
    shared["messages"]["ww_critical"] = ww.messages["ww_critical"]
    shared["messages"]["ct_sneak_roll"] = ct.messages["ct_sneak_roll"].replace(" (CT-7)", "")
    shared["rules"]["er_stray_shift"] = er.constants["er_stray_shift"]
    shared["enums"]["limits"]["max_skill_dice"] = er.constants["max_skill_dice"]
    found = misplaced(shared, _builtins(), _sources())
    assert any(f.startswith("facts.toml [messages] ww_critical cites only WW") for f in found), found
    assert any(f.startswith("facts.toml [messages] ct_sneak_roll is said only by") for f in found), found
    assert any(f.startswith("facts.toml [rules] er_stray_shift is read only by the enchanted-realms") for f in found)
    assert any(f.startswith("facts.toml [enums.limits] max_skill_dice is read only by the enchanted") for f in found)


def test_a_shared_message_moved_into_one_manifest_is_found():
    """`no_targets` is said by the ER plan and the shared row rulesets (rows.py)."""
    ww = fracas.rulesets.get("worldwalker").manifest
    moved = manifest.parse(_manifest_text(ww) + '\n[messages]\nno_targets = "no targets: give at least one"\n',
                           ww.source, ww.package)
    others = [m for m in _builtins() if m.name != ww.name]
    found = misplaced(generate.load_shared(), [*others, moved], _sources())
    assert any("[messages] no_targets is said by" in f for f in found), found


def _manifest_text(m: manifest.Manifest) -> str:
    return "\n".join(f"{k} = {v!r}".replace("'", '"') for k, v in (
        ("name", m.name), ("id", m.id), ("title", m.title), ("object", m.object), ("kinds", list(m.kinds)),
        ("rules", m.rules), ("status", m.status), ("examples", list(m.examples)), ("clients", list(m.clients))))


def test_the_generated_files_carry_the_manifests_facts_under_the_same_names():
    """The built-in rulesets' own facts are in fracas._facts (and facts.js, from the same
    `load()`) as before they moved: ER_STRAY_SHIFT (ER-17), WW_TWO_WEAPON (WW-6), the ER
    message `chain_limit` (ER-8); and the shared ones are marked shared."""
    er, ww = (fracas.rulesets.get(n).manifest for n in ("enchanted-realms", "worldwalker"))
    assert _facts.ER_STRAY_SHIFT == er.constants["er_stray_shift"] == 2
    assert _facts.WW_TWO_WEAPON == ww.constants["ww_two_weapon"]
    assert _facts.MESSAGES["chain_limit"] == er.messages["chain_limit"]
    assert "chain_limit" not in _facts.SHARED_MESSAGES and "no_targets" in _facts.SHARED_MESSAGES
    assert "ER_STRAY_SHIFT" not in _facts.SHARED_NAMES and "MAX_STRIKES" in _facts.SHARED_NAMES
    facts = generate.load()
    for m in _builtins():
        for key, value in m.constants.items():
            assert facts["rules"][key] == value, (m.source, key)
        for key, text in m.messages.items():
            assert facts["messages"][key] == text, (m.source, key)
    assert set(generate.load_shared()["messages"]) == set(_facts.SHARED_MESSAGES)


@pytest.mark.parametrize("manifests, message", [
    ({"aa": '[constants]\nmax_strikes = 3\n'},
     r"aa/manifest.toml: \[constants\] max_strikes: MAX_STRIKES is already a name of fracas/spec/facts.toml"),
    ({"bb": '[messages]\nno_targets = "none"\n'},
     r"bb/manifest.toml: \[messages\] no_targets: already a message of fracas/spec/facts.toml"),
    ({"cc": '[constants]\ncc_x = 1\n', "dd": '[constants]\ncc_x = 2\n'},
     r"dd/manifest.toml: \[constants\] cc_x: CC_X is already a name of fracas/rulesets/cc/manifest.toml"),
    ({"cc": '[messages]\ncc_m = "m"\n', "dd": '[messages]\ncc_m = "n"\n'},
     r"dd/manifest.toml: \[messages\] cc_m: already a message of fracas/rulesets/cc/manifest.toml"),
])
def test_a_clash_in_the_built_in_manifests_stops_the_generator(tmp_path, monkeypatch, manifests, message):
    for folder, body in manifests.items():
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "manifest.toml").write_text(f'name = "{folder}"\n{body}')
    monkeypatch.setattr(generate, "RULESETS_DIR", tmp_path)
    with pytest.raises(ValueError, match=message):
        generate.load()


GOOD = """name = "coin-toss"\nid = "co"\ntitle = "Coin toss (tests only)"\nobject = "COIN_TOSS"
kinds = ["attack", "bulk"]\nrules = "rules.md"\nstatus = "tests only"\nexamples = []\nclients = ["python"]
"""


@pytest.mark.parametrize("table, message", [
    ('[constants]\nHitOn = 5\n', r"\[constants\] 'HitOn': a key is lower-case letters"),
    ('[constants]\nwhen = 1979-05-27\n', r"\[constants\] when is a TOML date: a constant is a number"),
    ('[constants.table]\nx = [1, 2020-01-01]\n', r"\[constants\] table.x\[1\] is a TOML date"),
    ('[messages]\nempty = ""\n', r"\[messages\] empty must be a non-empty string template"),
    ('[messages]\nbrace = "a {dice"\n', r"\[messages\] brace: .*write \{\{ and \}\} for a literal brace"),
    ('[messages]\nindexed = "{0} dice"\n', r"\[messages\] indexed: placeholder \{0\} is not a plain name"),
    ('[messages]\nnumber = 3\n', r"\[messages\] number must be a non-empty string template, got 3"),
])
def test_a_manifest_constant_or_message_of_the_wrong_shape_names_the_file_and_key(table, message):
    with pytest.raises(RulesetInvalid, match=r"^coins/manifest.toml: " + message):
        manifest.parse(GOOD + table, "coins/manifest.toml", "coins")


@pytest.mark.parametrize("table, message", [
    ('[constants]\nmax_strikes = 3\n', r"\[constants\] max_strikes: MAX_STRIKES is a name of fracas's shared facts"),
    ('[messages]\nno_targets = "none"\n', r"\[messages\] no_targets: a message of fracas's shared facts"),
    ('[constants]\nww_methods = ["a"]\n',
     r"\[constants\] ww_methods: the worldwalker ruleset's manifest \(fracas/rulesets/ww/manifest.toml\) has it"),
    ('[messages]\nchain_limit = "x"\n', r"\[messages\] chain_limit: the enchanted-realms ruleset's manifest"),
])
def test_a_name_clash_with_the_shared_facts_or_another_ruleset_stops_registration(table, message):
    from tests.seam.coins import CoinToss

    found = manifest.parse(GOOD + table, "coins/manifest.toml", "coins")
    ruleset = CoinToss()
    with pytest.raises(RulesetInvalid, match=r"^coins/manifest.toml: " + message + r".*prefix the ruleset's own"):
        fracas.rulesets.register(ruleset, found)
    assert "coin-toss" not in fracas.rulesets() and ruleset.manifest is None


def test_its_own_constants_and_messages_read_from_its_manifest():
    found = manifest.parse(GOOD + '[constants]\nco_sides = 2\n[messages]\nco_call = "call {side} (CO-1)"\n',
                           "coins/manifest.toml", "coins")
    assert found.constants["co_sides"] == 2
    assert found.say("co_call", side="heads") == "call heads (CO-1)"
    with pytest.raises(TypeError):
        found.constants["co_sides"] = 3  # type: ignore[index]
    with pytest.raises(RulesetInvalid, match=r"coins/manifest.toml: no message 'co_flip' in \[messages\]"):
        found.say("co_flip")


def test_the_bridge_method_lists_are_the_bridge_s_own_and_the_kinds():
    """BRIDGE_METHODS, ROLLING_METHODS and ROLL20_RELAY_METHODS: facts.toml [bridge.own],
    then each request kind's `Kind.method` (every kind's journaled, `Kind.relay` relayed);
    the bridge's journal policy says the same."""
    from fracas.bridge import policy

    own = generate.load_shared()["bridge"]["own"]
    kinds = fracas.rulesets.kinds().values()
    assert _facts.BRIDGE_METHODS == (*own, *(k.method for k in kinds))
    assert set(_facts.ROLLING_METHODS) == {m for m, f in own.items() if f.get("rolls")} | {k.method for k in kinds}
    assert set(_facts.ROLL20_RELAY_METHODS) == ({m for m, f in own.items() if f.get("relay")}
                                                | {k.method for k in kinds if k.relay})
    # The Roll20 Mod sends attacks and mobs, initiative of a ruleset other than ER's
    # (!fracas init --ruleset: src/mod/init.js), and the ER kinds it has no port of
    # (!fracas save, touch, drop, lock, throw, slam: vtt_scripts/roll20/src/mod/bridgekinds.js).
    assert {k.name for k in kinds if k.relay} == {"attack", "bulk", "initiative", "save", "touch", "drop", "lock", "throw",
                                                  "slam"}
    assert policy.ROLLING == frozenset(_facts.ROLLING_METHODS)
    for kind in kinds:
        assert kind.method in policy.ROLLING and kind.method not in own


def test_the_check_covers_the_manifests(monkeypatch):
    """`python -m fracas.spec --check` reads the manifests: an ER constant changed in
    fracas/rulesets/er/manifest.toml (here ER-19's prone modifier, -5 → -6) makes the
    Python and JavaScript facts stale."""
    import dataclasses

    real = generate.builtin_facts

    def changed() -> list[generate.Own]:
        return [dataclasses.replace(own, constants={**own.constants, "er_prone": -6}) if own.name ==
                "enchanted-realms" else own for own in real()]

    # The checkout's files (on an installed fracas the package's parent holds none of them).
    assert generate.stale(REPO) == []
    monkeypatch.setattr(generate, "builtin_facts", changed)
    stale = generate.stale(REPO)
    assert {"src/fracas/_facts.py", "vtt_scripts/roll20/src/facts.js", "vtt_scripts/foundry/scripts/facts.js"} \
        <= set(stale), stale
