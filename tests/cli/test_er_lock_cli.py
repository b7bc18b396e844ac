"""`fracas lock`: Enchanted Realms weapon lock, disarm and shield-blitz from the command line
("ER Weapon Lock", "ER Weapon Disarm", ER-12, ER-19)."""

import json

import fracas

from .helpers import run

REQUEST = {"mode": "disarm", "attacker": {"id": "aria", "to_hit": 6, "agility": 8},
           "victim": {"id": "ogre", "ac": 12, "agility": 2, "reacts": True}}
FLAGS = ["lock", "--mode", "disarm", "--attacker", "id=aria,to_hit=6,agility=8",
         "--victim", "id=ogre,ac=12,agility=2,reacts"]


def test_lock_prints_the_feat_the_reaction_and_the_odds():
    """ER Weapon Disarm: the 3 Body a medium weapon costs, the Agility competition at advantage."""
    out = run([*FLAGS, "--rolls", "12,11,3,4"])
    assert out.exit_code == 0, out.output
    expected = fracas.lock({**REQUEST, "rolls": [12, 11, 3, 4]}).to_dict()
    assert expected["outcome"] == "kept"
    assert "no rebuff allowed" in out.output and "pays 3 Body (edged, medium weapon)" in out.output
    assert "agility competition: ogre 11→11 vs aria 3/4→7 (advantage)" in out.output
    assert f"{expected['outcome']}: {expected['text']}" in out.output
    assert f"P(disarm) {expected['p_effect']:.1%}" in out.output


def test_lock_json_is_the_api_result():
    data = json.loads(run([*FLAGS, "--seed", "5", "--json"]).output)
    expected = fracas.lock(REQUEST, seed=5).to_dict()
    data.pop("backend", None)
    expected.pop("backend", None)
    assert data == expected


def test_lock_reads_a_request_file_and_locks(tmp_path):
    """ER Weapon Lock: a locked weapon costs its wielder 2 attack dice to free."""
    path = tmp_path / "lock.json"
    path.write_text(json.dumps({**REQUEST, "mode": "lock", "victim": {"id": "ogre", "ac": 12}}))
    out = run(["lock", str(path), "--rolls", "9"])
    assert out.exit_code == 0, out.output
    assert "locked: aria locks ogre's weapon" in out.output and "costs its wielder 2 attack dice" in out.output


def test_a_blitz_prints_its_damage():
    out = run(["lock", "--mode", "blitz", "--attacker", "id=aria", "--victim", "id=ogre,ac=12", "--rolls", "13"])
    assert out.exit_code == 0, out.output
    assert "d20 13 · 13 blunt damage" in out.output


def test_bad_input_names_the_field_or_the_option():
    out = run(["lock", "--mode", "disarm", "--attacker", "id=aria,to_hit=6", "--victim", "id=ogre,ac=12,reacts"])
    assert out.exit_code != 0 and "$.victim.agility" in out.output
    out = run(["lock", "--attacker", "id=aria,weapon=huge", "--victim", "id=ogre,ac=12"])
    assert out.exit_code != 0 and "--attacker" in out.output and "weapon" in out.output
    out = run(["lock", "--attacker", "id=aria"])
    assert out.exit_code != 0 and "--victim" in out.output


def test_replay_knows_a_lock_record(tmp_path):
    """A chat card's export of a lock ({"request", "result"}) replays as a lock, not an attack."""
    rolled = fracas.lock({**REQUEST, "seed": 9}).to_dict()
    path = tmp_path / "card.json"
    path.write_text(json.dumps({"request": {**REQUEST, "seed": 9}, "result": rolled}))
    out = run(["replay", str(path)])
    assert out.exit_code == 0 and "matches" in out.output, out.output
