"""Exact distributions (independent enumeration from the rules text) against seeded
rolls, and backend parity on the shared vectors, for WW, CT and OS."""

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

import fracas
from fracas import _kernels

VECTORS = json.loads((Path(__file__).resolve().parents[1] / "vectors" / "rulesets_vectors.json").read_text())
TAIL = Fraction(1, 10**15)


def exploding_die(faces: int) -> dict[int, Fraction]:
    """CT-3: one die whose maximum adds another, unbounded. The chain is cut where what
    is left has probability below 1e-15; that remainder is stated, not dropped."""
    dist: dict[int, Fraction] = {}
    p_chain = Fraction(1)
    base = 0
    while p_chain >= TAIL:
        for face in range(1, faces):
            dist[base + face] = dist.get(base + face, Fraction(0)) + p_chain / faces
        p_chain /= faces
        base += faces
    return dist  # sums to 1 - p_chain, p_chain < 1e-15


def convolve(a: dict[int, Fraction], b: dict[int, Fraction]) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for x, px in a.items():
        for y, py in b.items():
            out[x + y] = out.get(x + y, Fraction(0)) + px * py
    return out


def ct_damage(dice: int, faces: int, flat: int) -> dict[int, Fraction]:
    total = {0: Fraction(1)}
    for _ in range(dice):
        total = convolve(total, exploding_die(faces))
    out: dict[int, Fraction] = {}
    for x, p in total.items():
        out[max(0, x + flat)] = out.get(max(0, x + flat), Fraction(0)) + p
    return out


def ww_damage(bonus: int, tn: int, react: int | None, faces: int, flat: int, armor: int) -> dict[int, Fraction]:
    """WW-2..WW-5: enumerate the attack d20, the block d20 and the damage die."""
    out: dict[int, Fraction] = {}
    for roll in range(1, 21):
        attack = (30 if roll == 20 else -10 if roll == 1 else roll) + bonus
        if attack < tn:
            out[0] = out.get(0, Fraction(0)) + Fraction(1, 20)
            continue
        for block in range(1, 21) if react is not None else [None]:
            p = Fraction(1, 20) * (Fraction(1, 20) if block is not None else 1)
            if block is not None and block + react >= attack:
                out[0] = out.get(0, Fraction(0)) + p
                continue
            for face in range(1, faces + 1):
                d = max(0, face + flat - armor)
                out[d] = out.get(d, Fraction(0)) + p / faces
    return out


def os_damage(bonus: int, ac: int, faces: int, flat: int) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for roll in range(1, 21):
        if not (roll == 20 or (roll != 1 and roll + bonus >= ac)):
            out[0] = out.get(0, Fraction(0)) + Fraction(1, 20)
            continue
        for face in range(1, faces + 1):
            d = max(1, face + flat)
            out[d] = out.get(d, Fraction(0)) + Fraction(1, 20 * faces)
    return out


def test_exploding_die_enumeration_sums_the_series():
    for faces in (4, 6, 8, 10):
        dist = exploding_die(faces)
        assert 1 - sum(dist.values()) < TAIL
        mean = sum(x * p for x, p in dist.items())
        # E = (F + 1) / 2 * F / (F - 1), the geometric series summed in closed form.
        assert abs(float(mean) - (faces + 1) / 2 * faces / (faces - 1)) < 1e-12


CASES = {
    "ct-2d6": ({"ruleset": "cartyrion", "profiles": {"p": {"attacker": {"level": 3, "bonus": 2, "magic": 1},
                                                           "strikes": [{"method": "melee", "die": "d6"}]}},
                "targets": {"t": {"dex": 2, "armor": 3}}},
               lambda: ct_damage(2, 6, 2 + 2 - 5)),
    "ct-1d4-sneak": ({"ruleset": "cartyrion", "profiles": {"p": {"attacker": {"level": 1, "bonus": 1},
                                                                 "strikes": [{"method": "melee", "die": "d4",
                                                                              "sneak": "failed"}]}},
                      "targets": {"t": {"dex": 9, "armor": 2}}},
                     lambda: ct_damage(1, 4, 1 - 2)),
    "ww-block": ({"ruleset": "worldwalker", "profiles": {"p": {"attacker": {"skill": 3, "str_mod": 2},
                                                               "strikes": [{"method": "melee", "damage": "1d8",
                                                                            "critical": 2, "crit_multiplier": 2}]}},
                  "targets": {"t": {"defense": 13, "armor": 3, "reaction": {"kind": "block", "bonus": 5}}}},
                 lambda: ww_damage(3, 13, 5, 8, 2 + 4, 3)),
    "os-melee": ({"ruleset": "old-school", "profiles": {"p": {"attacker": {"attack_bonus": 2, "str_mod": 1},
                                                              "strikes": [{"method": "melee", "damage": "1d6-2"}]}},
                  "targets": {"t": {"ac": 15}}},
                 lambda: os_damage(3, 15, 6, -1)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_seeded_rolls_match_the_exact_distribution(name):
    request, exact = CASES[name]
    n = 200_000
    request = {**request, "attacks": [{"profile": "p", "target": "t", "count": n}]}
    hist = fracas.resolve_bulk(request, seed=20261123).to_dict()["groups"][0]["histogram"]
    dist = exact()
    # Pool the tail (and the histogram's last bin, "63 or more") so every cell expects >= 20.
    cells, expected, observed = [], [], []
    for value in range(len(hist)):
        p = float(sum(q for x, q in dist.items() if (x == value if value < 63 else x >= 63)))
        cells.append(value)
        expected.append(p * n)
        observed.append(hist[value])
    tail_p = float(sum(q for x, q in dist.items() if x >= len(hist)))
    expected.append(tail_p * n)
    observed.append(0)
    chi2, df, e_acc, o_acc = 0.0, -1, 0.0, 0
    for e, o in zip(expected, observed):
        e_acc += e
        o_acc += o
        if e_acc >= 20:
            chi2 += (o_acc - e_acc) ** 2 / e_acc
            df += 1
            e_acc, o_acc = 0.0, 0
    if e_acc > 0:
        chi2 += (o_acc - e_acc) ** 2 / max(e_acc, 1e-9)
        df += 1
    # Wilson-Hilferty: chi2 with df degrees of freedom as a normal; z < 4.75 is p > 1e-6.
    z = ((chi2 / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
    assert z < 4.75, (name, chi2, df)
    mean = float(sum(x * p for x, p in dist.items()))
    got = sum(i * h for i, h in enumerate(hist)) / n
    assert abs(got - mean) < 6 * math.sqrt(float(sum((x - mean) ** 2 * p for x, p in dist.items())) / n) + 0.05


def test_vectors_cover_every_ruleset_and_kind():
    kinds = {(v["request"]["ruleset"], v["kind"], "result" in v) for v in VECTORS}
    for ruleset in ("worldwalker", "cartyrion", "old-school"):
        assert (ruleset, "attack", True) in kinds and (ruleset, "attack", False) in kinds
        assert (ruleset, "initiative", True) in kinds
    assert ("old-school", "morale", True) in kinds
    # WW-8 counterspells: rolled ones, and ones the rules refuse (untrained, too far)
    assert ("worldwalker", "counterspell", True) in kinds and ("worldwalker", "counterspell", False) in kinds
    assert any(s.get("exploded") for v in VECTORS if "result" in v for s in v["result"].get("strikes", []))


@pytest.mark.parametrize("backend", _kernels.available())
def test_every_vector_reproduces(backend):
    calls = {"attack": fracas.resolve, "initiative": fracas.roll_initiative, "morale": fracas.check_morale,
             "counterspell": lambda request, seed: fracas.roll("counterspell", request, seed=seed)}
    mismatches = []
    with _kernels.using(backend):
        for v in VECTORS:
            try:
                got = calls[v["kind"]](v["request"], seed=v["seed"]).to_dict()
            except fracas.RequestError as exc:
                if {"type": type(exc).__name__, "path": exc.path, "reason": exc.reason} != v.get("error"):
                    mismatches.append(v["name"])
                continue
            got.pop("backend", None)
            if got != v.get("result"):
                mismatches.append(v["name"])
    assert mismatches == []


def test_generator_is_in_sync_with_the_committed_file():
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "vectors" / "generate_rulesets.py"
    spec = importlib.util.spec_from_file_location("generate_rulesets", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.dumps(module.build()) == module.VECTORS.read_text()


@pytest.mark.parametrize("name", sorted(CASES))
def test_bulk_is_the_same_on_every_backend_and_thread_count_and_listed_attacks_add_up(name):
    request = {**CASES[name][0], "attacks": [{"profile": "p", "target": "t", "count": 70_000}]}
    results = []
    for backend in _kernels.available():
        with _kernels.using(backend):
            for threads in (1, 2):
                d = fracas.resolve_bulk(request, seed=7, threads=threads).to_dict()
                d.pop("backend")
                results.append(d)
    assert all(r == results[0] for r in results)
    small = {**request, "attacks": [{"profile": "p", "target": "t", "count": 300}], "detail": "dice"}
    listed = fracas.resolve_bulk(small, seed=7).to_dict()
    assert sum(a["damage"] for a in listed["attacks"]) == listed["total_damage"]
    single = fracas.resolve({"ruleset": request["ruleset"], "attacker": request["profiles"]["p"]["attacker"],
                             "strikes": [{**request["profiles"]["p"]["strikes"][0], "target": "t"}],
                             "targets": request["targets"]}, seed=7).to_dict()
    assert single["strikes"][0] == listed["attacks"][0]["strikes"][0]
