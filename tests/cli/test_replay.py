"""`fracas replay`: re-resolve a recorded roll from its seed and verify it."""

import json

import pytest

import fracas
from .helpers import run
from fracas.cli import main

REQUEST = {
    "attacker": {"strength": 4},
    "strikes": [{"target": "goblin", "method": "melee", "style": "slashing", "dice": 3,
                 "weight": 1, "damage_type": "edged"},
                {"target": "orc", "method": "melee", "style": "bludgeoning", "dice": 2,
                 "weight": 2, "damage_type": "blunt"}],
    "targets": {"goblin": {"ac": 14}, "orc": {"ac": 16, "resistant": ["blunt"]}},
}
BULK = {
    "profiles": {"wolf": {"attacker": {"strength": 3},
                          "strikes": [{"method": "savage", "style": "savage", "dice": 2,
                                       "damage_type": "piercing"}]}},
    "targets": {"pc": {"ac": 13}},
    "attacks": [{"profile": "wolf", "target": "pc", "count": 500}],
}
INITIATIVE = {"combatants": [{"id": "a", "agility": 4}, {"id": "b", "agility": 4},
                             {"id": "c", "agility_mod": 0}]}
SEED = 20240611




def recorded(request=REQUEST, seed=SEED, call=fracas.resolve):
    return call(request, seed=seed).to_dict()


def journal_entry(method, params, result):
    """What the bridge's `journal.get` answers."""
    return {"id": 17, "method": method, "params": params, "result": result,
            "backend": result.get("backend", "compiled"), "version": fracas.__version__,
            "recorded_at": "2026-11-22T03:00:00.000+00:00"}


def rpc_request(method, params):
    return {"jsonrpc": "2.0", "id": 17, "method": method, "params": params}


# Every form replay accepts, and which seed it takes: (record, --expect document).
MATCHING = [
    ("request with its seed, no expectation", {**REQUEST, "seed": SEED}, None),
    ("request with its seed, --expect result", {**REQUEST, "seed": SEED}, recorded()),
    ("journal entry (seed from its result)",
     journal_entry("attack.resolve", REQUEST, recorded()), None),
    ("journal entry of a bulk request",
     journal_entry("attack.bulk", BULK, recorded(BULK, call=fracas.resolve_bulk)), None),
    ("journal entry of an initiative roll",
     journal_entry("initiative.roll", INITIATIVE, recorded(INITIATIVE, call=fracas.roll_initiative)), None),
    ("JSON-RPC request, --expect JSON-RPC response",
     rpc_request("attack.resolve", {**REQUEST, "seed": SEED}),
     {"jsonrpc": "2.0", "id": 17, "result": recorded()}),
    ("request/result export", {"request": REQUEST, "result": recorded()}, None),
    ("request/result export, other backend recorded",
     {"request": REQUEST, "result": {**recorded(), "backend": "javascript"}}, None),
    ("--expect a journal entry", {**REQUEST, "seed": SEED},
     journal_entry("attack.resolve", REQUEST, recorded())),
]


@pytest.mark.parametrize("name, record, expect", MATCHING, ids=[m[0] for m in MATCHING])
def test_replay_matches(files, name, record, expect):
    args = ["replay", files("record.json", record)]
    if expect is not None:
        args += ["--expect", files("expect.json", expect)]
    result = run(args)
    assert result.exit_code == 0, result.output
    assert f"seed {SEED}" in result.output
    if expect is not None or "result" in record:
        assert f"Replay matches the recorded result (seed {SEED})." in result.output


def test_replay_json_prints_the_replayed_result(files):
    result = run(["replay", files("r.json", {**REQUEST, "seed": SEED}), "--json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout) == recorded()


def _tampered():
    result = recorded()
    result["strikes"][0]["dice"][1]["face"] += 1 if result["strikes"][0]["dice"][1]["face"] < 20 else -1
    result["total_damage"] += 3
    return result


MISMATCHES = [
    ("a changed die", _tampered(), ["$.strikes[0].dice[1].face", "$.total_damage"]),
    ("another seed", recorded(seed=SEED + 1), ["$.seed"]),
    ("a missing field", {k: v for k, v in recorded().items() if k != "total_damage"},
     ["$.total_damage: expected (missing)"]),
]


@pytest.mark.parametrize("name, expect, paths", MISMATCHES, ids=[m[0] for m in MISMATCHES])
def test_replay_mismatch_exits_1_with_a_diff(files, name, expect, paths):
    args = ["replay", files("r.json", {**REQUEST, "seed": SEED}), "--expect", files("e.json", expect),
            "--seed", str(SEED)]
    result = run(args)
    assert result.exit_code == 1
    assert "Replay does NOT match the recorded result" in result.output
    for path in paths:
        assert path in result.output


def test_backend_is_ignored_only_at_the_top(files):
    expect = {**recorded(), "backend": "python"}
    assert run(["replay", files("r.json", {**REQUEST, "seed": SEED}),
                "--expect", files("e.json", expect)]).exit_code == 0


REFUSED = [
    ("no seed anywhere", REQUEST, "$.seed: replay needs the seed"),
    ("not an object", [1, 2], "$: expected a JSON object"),
    ("not JSON", "{oops", "$: the record is not valid JSON"),
    ("a method that does not roll", {"method": "server.info", "params": {}}, "$.method:"),
    ("an invalid request", {**REQUEST, "seed": 1, "strikes": []}, "$.strikes: no strikes"),
]


@pytest.mark.parametrize("name, record, message", REFUSED, ids=[r[0] for r in REFUSED])
def test_replay_refuses_with_exit_2(files, name, record, message):
    result = run(["replay", files("r.json", record)])
    assert result.exit_code == 2
    assert f"Error: {message}" in result.output


def test_seed_flag_supplies_a_missing_seed(files):
    result = run(["replay", files("r.json", REQUEST), "--seed", str(SEED),
                  "--expect", files("e.json", recorded())])
    assert result.exit_code == 0
