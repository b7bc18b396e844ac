"""`fracas slam`: an Enchanted Realms grappler's slam from the command line ("ER Grappling",
"ER Grappling: Uncommon Conditions", ER-10)."""

import json

import fracas

from .helpers import run

REQUEST = {"grappler": {"id": "giant", "size": "huge", "strength": 10}, "victim": {"id": "aria"},
           "into": {"id": "bob", "ac": 12, "distance": 10}, "damage_type": "blunt"}
FLAGS = ["slam", "--grappler", "id=giant,size=huge,strength=10", "--victim", "id=aria",
         "--into", "id=bob,ac=12,distance=10"]


def test_slam_prints_the_damage_the_hurl_and_its_odds():
    out = run([*FLAGS, "--rolls", "3,11,15"])
    assert out.exit_code == 0, out.output
    expected = fracas.roll("slam", {**REQUEST, "rolls": [3, 11, 15]}).to_dict()
    assert "aria: 4 blunt damage · freed within 10 ft" in out.output
    assert f"hit ({expected['into']['p_hit']:.1%}) · 4 blunt damage" in out.output
    assert expected["text"] in out.output


def test_slam_json_is_the_api_result_and_a_request_file_works(tmp_path):
    data = json.loads(run([*FLAGS, "--seed", "5", "--json"]).output)
    expected = fracas.roll("slam", REQUEST, seed=5).to_dict()
    assert {k: v for k, v in data.items() if k != "backend"} == {k: v for k, v in expected.items() if k != "backend"}
    path = tmp_path / "slam.json"
    path.write_text(json.dumps({"grappler": {"id": "ogre", "size": "large", "strength": 8},
                                "victim": {"id": "aria", "size": "small", "resistant": ["blunt"]}}))
    out = run(["slam", str(path)])
    assert out.exit_code == 0 and "ogre slams aria for 1 blunt damage: aria is free" in out.output, out.output


def test_slam_mistakes_name_the_option_or_field():
    out = run(["slam", "--grappler", "id=ogre,size=large,strength=8", "--victim", "id=aria"])
    assert out.exit_code == 2 and "$.grappler.size" in out.output, out.output
    out = run(["slam", "--grappler", "id=ogre,size=large,strength=8"])
    assert out.exit_code == 2 and "give --grappler and --victim" in out.output
    out = run(["slam", "--grappler", "id=ogre,weight=3", "--victim", "id=aria"])
    assert out.exit_code == 2 and "unknown key 'weight'" in out.output
