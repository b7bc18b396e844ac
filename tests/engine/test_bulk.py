"""Bulk resolution (the bulk issue): one request, many attacks, same rules and errors."""

import copy

import pytest

import fracas

from .helpers import attack, strike

SKELETONS = {
    "ruleset": "enchanted-realms", "seed": 7,
    "profiles": {"skeleton": {"attacker": {"strength": 3},
                              "strikes": [{"method": "melee", "style": "slashing", "dice": 1, "weight": 1,
                                           "damage_type": "edged"}]}},
    "targets": {"pc-1": {"ac": 15}, "pc-2": {"ac": 13, "resistant": ["edged"]}},
    "attacks": [{"profile": "skeleton", "target": "pc-1", "count": 120},
                {"profile": "skeleton", "target": "pc-2", "count": 80}],
    "detail": "summary",
}


def test_summary_shape_and_consistency():
    result = fracas.resolve_bulk(SKELETONS).to_dict()
    assert result["seed"] == 7 and result["attacks_total"] == 200
    pc1, pc2 = result["targets"]["pc-1"], result["targets"]["pc-2"]
    assert pc1["attacks"] == 120 and pc2["attacks"] == 80
    assert 0 < pc1["attacks_hit"] <= 120
    assert pc1["by_type"] == {"edged": pc1["damage"]}
    assert set(pc1) >= {"damage", "by_type", "attacks", "attacks_hit", "crits", "longest_chain", "undodgeable"}
    g0, g1 = result["groups"]
    assert sum(g0["histogram"]) == 120 and sum(g1["histogram"]) == 80
    assert sum(k * c for k, c in enumerate(g0["histogram"])) == g0["damage"] == pc1["damage"]
    assert g0["hit_rate"] == g0["attacks_hit"] / 120
    assert result["total_damage"] == pc1["damage"] + pc2["damage"]


def test_resolve_takes_one_attack_and_refuses_a_bulk_request():
    """One result type per call: resolve → an attack result, resolve_bulk → a bulk result."""
    with pytest.raises(fracas.SchemaError) as excinfo:
        fracas.resolve(SKELETONS)
    assert excinfo.value.path == "$.attacks"
    assert "goes to fracas.resolve_bulk" in excinfo.value.reason


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_identical_for_any_thread_count(threads):
    request = copy.deepcopy(SKELETONS)
    request["attacks"][0]["count"] = 300_000   # several chunks
    reference = fracas.resolve_bulk(request, threads=1).to_dict()
    assert fracas.resolve_bulk(request, threads=threads).to_dict() == reference


def test_count_one_equals_the_single_attack_api():
    """A bulk request with count 1 rolls exactly the single attack with the same seed."""
    single_strikes = [strike("a", dice=3, weight=1, crit_range=19), strike("b", dice=2, sneak=True),
                      strike("a", dice=1, style="bludgeoning", damage_type="blunt")]
    targets = {"a": {"ac": 12, "vulnerable": ["blunt"]}, "b": {"ac": 10}}
    attacker = {"strength": 5}
    for seed in range(200):
        single = fracas.resolve(attack(single_strikes, targets=targets, attacker=attacker), seed=seed)
        profile = [{k: v for k, v in s.items() if k != "target"} for s in single_strikes]
        bulk = fracas.resolve_bulk({
            "profiles": {"p": {"attacker": attacker, "strikes": profile}}, "targets": targets,
            "attacks": [{"profile": "p", "target": ["a", "b", "a"], "count": 1}], "detail": "attacks"},
            seed=seed).to_dict()
        assert bulk["attacks"][0]["strikes"] == [s["damage"] for s in single.to_dict()["strikes"]]
        assert {t: v["damage"] for t, v in bulk["targets"].items()} == single.target_damage


def test_detail_attacks_and_dice_agree_with_summary():
    summary = fracas.resolve_bulk(SKELETONS).to_dict()
    attacks = fracas.resolve_bulk(dict(SKELETONS, detail="attacks")).to_dict()
    dice = fracas.resolve_bulk(dict(SKELETONS, detail="dice")).to_dict()
    assert attacks["targets"] == summary["targets"] == dice["targets"]
    assert len(attacks["attacks"]) == 200
    assert sum(a["damage"] for a in attacks["attacks"]) == summary["total_damage"]
    assert [a["damage"] for a in dice["attacks"]] == [a["damage"] for a in attacks["attacks"]]
    first = dice["attacks"][0]["strikes"][0]
    assert first["dice"][0]["source"] == "skill" and first["target"] == "pc-1"


def test_detail_size_limits_are_clear_errors():
    request = copy.deepcopy(SKELETONS)
    request["attacks"][0]["count"] = 20_000
    request["detail"] = "dice"
    with pytest.raises(fracas.LimitError) as err:
        fracas.resolve_bulk(request)
    assert err.value.path == "$.detail" and "limited to 10,000" in err.value.reason


BULK_ERRORS = [
    (("attacks", 0, "profile"), "zombie", fracas.SchemaError, "$.attacks[0].profile", "unknown profile 'zombie'"),
    (("attacks", 1, "target"), "pc-9", fracas.SchemaError, "$.attacks[1].target", "unknown target 'pc-9'"),
    (("attacks", 1, "target"), ["pc-1", "pc-2"], fracas.SchemaError, "$.attacks[1].target", "2 targets for the 1 strikes"),
    (("attacks", 0, "count"), -1, fracas.SchemaError, "$.attacks[0].count", "out of range"),
    (("profiles", "skeleton", "strikes", 0, "dice"), 6, fracas.SchemaError,
     "$.profiles.skeleton.strikes[0].dice", "6 skill dice, the most is 5 (ER-3)"),
    (("profiles", "skeleton", "strikes", 0, "target"), "pc-1", fracas.SchemaError,
     "$.profiles.skeleton.strikes[0]", "unknown field target"),
    (("profiles", "skeleton", "attacker", "conditions"), ["stunned"], fracas.RulesError,
     "$.profiles.skeleton.attacker.conditions", "a stunned attacker cannot attack (ER-14)"),
    (("targets", "pc-2", "ac"), "x", fracas.SchemaError, "$.targets['pc-2'].ac", "expected int, got str"),
    (("detail",), "everything", fracas.SchemaError, "$.detail", "invalid enum value 'everything'"),
    (("attacks",), [], fracas.SchemaError, "$.attacks", "no attacks"),
]


@pytest.mark.parametrize("path, value, error, where, reason", BULK_ERRORS)
def test_bulk_errors_have_paths(path, value, error, where, reason):
    request = copy.deepcopy(SKELETONS)
    node = request
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(error) as caught:
        fracas.resolve_bulk(request)
    assert caught.value.path == where and reason in caught.value.reason


def test_bulk_rules_error_points_at_the_attacks_entry():
    request = copy.deepcopy(SKELETONS)
    request["profiles"]["archer"] = {"attacker": {"agility": 4}, "strikes": [
        {"method": "range", "style": "archery", "dice": 2, "damage_type": "piercing"}]}
    request["targets"]["pc-2"]["cover"] = "full"
    request["attacks"].append({"profile": "archer", "target": "pc-2", "count": 5})
    with pytest.raises(fracas.RulesError) as caught:
        fracas.resolve_bulk(request)
    assert caught.value.path == "$.attacks[2].target"


def test_threads_argument_is_checked():
    with pytest.raises(fracas.SchemaError) as caught:
        fracas.resolve_bulk(SKELETONS, threads=0)
    assert caught.value.path == "threads"


@pytest.mark.parametrize("detail", ["summary", "attacks", "dice"])
def test_groups_of_count_zero_are_skipped(detail):
    request = copy.deepcopy(SKELETONS)
    request["detail"] = detail
    request["attacks"].insert(1, {"profile": "skeleton", "target": "pc-2", "count": 0})
    request["attacks"].insert(0, {"profile": "skeleton", "target": "pc-2", "count": 0})
    result = fracas.resolve_bulk(request).to_dict()
    reference = fracas.resolve_bulk(dict(SKELETONS, detail=detail)).to_dict()
    assert result["targets"] == reference["targets"]
    assert [g["count"] for g in result["groups"]] == [0, 120, 0, 80]
    if detail != "summary":
        assert [a["group"] for a in result["attacks"]] == [1] * 120 + [3] * 80


MIXED = {
    "ruleset": "enchanted-realms", "seed": 11,
    "profiles": {
        "raider": {"attacker": {"strength": 2},
                   "strikes": [{"method": "melee", "style": "slashing", "dice": 1, "weight": 1, "damage_type": "edged"},
                               {"method": "melee", "style": "bludgeoning", "dice": 1, "weight": 1,
                                "damage_type": "blunt"}]},
        "archer": {"attacker": {"strength": 0},
                   "strikes": [{"method": "melee", "style": "piercing", "dice": 1, "weight": 1,
                                "damage_type": "piercing"}]},
    },
    "targets": {"pc-1": {"ac": 14}, "pc-2": {"ac": 12, "resistant": ["edged"]}, "pc-3": {"ac": 16}},
    "attacks": [{"profile": "raider", "target": ["pc-2", "pc-1"], "count": 40},
                {"profile": "archer", "target": "pc-2", "count": 30},
                {"profile": "raider", "target": "pc-1", "count": 0}],
    "detail": "summary",
}


def _reference_summary(result):
    """The summary as the bulk summary documents it, from the result's raw totals one field at
    a time (no per-plan layout): by_type lists the damage types struck at the target, in
    strike order (ER-1 strikes, the damage kinds of ER damage types)."""
    from fracas import _layout as L
    from fracas.rulesets.er.plan import TYPE_INDEX
    bulk, acc, acc_b, acc_g = result.bulk, result.acc_t, result.acc_b, result.acc_g
    targets = {}
    for tid, info in bulk.targets.items():
        t, b = info.index * L.T_WIDTH, info.index * L.N_TYPES
        kinds = list(dict.fromkeys(m.damage_type for m in bulk.metas if m.target == tid))
        targets[tid] = {"damage": acc[t + L.T_DAMAGE], "by_type": {k: acc_b[b + TYPE_INDEX[k]] for k in kinds},
                        "attacks": acc[t + L.T_ATTACKS], "attacks_hit": acc[t + L.T_ATTACKS_HIT],
                        "strikes": acc[t + L.T_STRIKES], "strikes_hit": acc[t + L.T_STRIKES_HIT],
                        "crits": acc[t + L.T_CRITS], "longest_chain": acc[t + L.T_LONGEST],
                        "undodgeable": acc[t + L.T_UNDODGEABLE]}
    groups = []
    stride = L.G_WIDTH + L.HIST_BINS
    for g, (profile, target, count) in enumerate(bulk.group_info):
        base = g * stride
        bins = list(acc_g[base + L.G_WIDTH:base + stride])
        while len(bins) > 1 and bins[-1] == 0:
            bins.pop()
        hit, damage = acc_g[base + L.G_ATTACKS_HIT], acc_g[base + L.G_DAMAGE]
        groups.append({"profile": profile, "target": target, "count": count, "attacks_hit": hit,
                       "hit_rate": hit / count if count else 0.0, "damage": damage,
                       "mean_damage": damage / count if count else 0.0, "crits": acc_g[base + L.G_CRITS],
                       "shock_checks": acc_g[base + L.G_SHOCK], "strays_omitted": acc_g[base + L.G_STRAYS],
                       "histogram": bins})
    return {"ruleset": bulk.ruleset, "seed": result.seed, "backend": result.backend, "detail": bulk.detail,
            "attacks_total": bulk.total, "targets": targets, "groups": groups,
            "total_damage": sum(v["damage"] for v in targets.values())}


@pytest.mark.parametrize("backend", ["compiled", "python"])
def test_summary_from_the_plans_layout_matches_the_totals_field_by_field(backend):
    """to_dict reads a layout made once per cached plan (issue 44 item 3): on a plan's first
    result and on later ones (new seeds, the plan recalled), with several damage types at one
    target, a strike list over two targets and an empty group, every field and key order is
    what the raw totals say (ER-1, ER bulk summary)."""
    import orjson
    from fracas import _kernels
    with _kernels.using(backend):
        for seed in (11, 12, 13):
            result = fracas.resolve_bulk({**MIXED, "seed": seed})
            got, want = result.to_dict(), _reference_summary(result)
            assert orjson.dumps(got) == orjson.dumps(want)
            # Strike order: the first group's second strike (blunt) reaches pc-1 before the
            # empty group's first (edged); pc-2 takes edged, then the archer's piercing.
            assert list(got["targets"]["pc-1"]["by_type"]) == ["blunt", "edged"]
            assert list(got["targets"]["pc-2"]["by_type"]) == ["edged", "piercing"]
            assert got["groups"][2]["histogram"] == [0] and got["groups"][2]["hit_rate"] == 0.0
