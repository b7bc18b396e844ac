"""The fused single-attack path (issue 44 item 3): a cached attack without `seed` or `rolls`
in it is rolled by its plan's `roll_seed` (the kernel seeds the generator and makes the
buffers; the result's JSON is built from per-plan strike templates). It must roll the dice
the full path rolls for the same seed, on both backends, on every shared vector, and keep
each result's JSON its own."""

from __future__ import annotations

import copy
import json
import threading
from array import array
from pathlib import Path

import orjson
import pytest

import fracas
from fracas import _kernels, _native, drive
from fracas.drive import Encoded, canonical, clear_plan_cache
from fracas._layout import INFO_WIDTH
from fracas.rng import seed_state

from .helpers import attack, strike

VECTORS = Path(__file__).resolve().parents[1] / "vectors"
BACKENDS = _kernels.available()


def er_vectors():
    """Every ER attack vector, its injected faces taken out (the fused path rolls from the
    generator): the plain ones and the specials (ER-13 shock, ER-17 friendly fire, ER-20 flee,
    ER-21 grapple release, ER-22 defense rolls), whose follow-ups roll_seed routes through
    roll_attack."""
    found = []
    for file in ("er_vectors.json", "er_specials_vectors.json"):
        for v in json.loads((VECTORS / file).read_text()):
            request = v.get("request")
            if not isinstance(request, dict) or "attacks" in request or v.get("kind", "attack") != "attack":
                continue
            request = {k: x for k, x in request.items() if k not in ("rolls", "seed")}
            found.append((v["name"], request, v.get("seed") or 1))
    return found


ER = er_vectors()


def full_path(request, seed):
    """The full path: a request with its own seed is never fused."""
    return orjson.dumps(fracas.resolve(dict(copy.deepcopy(request), seed=seed)).to_dict())


def was_fused(answer):
    """`drive._fused` answers a result, or the plan key (bytes, or None) when it did not fuse."""
    return answer is not None and not isinstance(answer, bytes)


def fused(request, seed):
    answer = drive._fused(request, seed)
    assert was_fused(answer), "the fused path was not taken"
    return orjson.dumps(answer.to_dict())


def test_there_are_er_vectors_of_every_follow_up_for_the_fused_path():
    assert len(ER) >= 100
    text = json.dumps([r for _, r, _ in ER])
    for field in ("friendly_fire", "defense_rolls", "flee", "grappling", "body_max", "sneak"):
        assert field in text, field


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_fused_path_rolls_what_the_full_path_rolls_on_every_er_vector(backend):
    """docs/ENGINE.md §2 (one draw order): same seed, same dice, byte for byte the same JSON."""
    with _kernels.using(backend):
        for name, request, seed in ER:
            clear_plan_cache()
            try:
                expected = full_path(request, seed)
            except fracas.RequestError:
                continue  # a refused request is never cached, so never fused
            fracas.resolve(copy.deepcopy(request), seed=seed)  # compiles and caches the plan
            for s in (seed, (seed + 1) % 2**64, 2**64 - 1):
                assert fused(copy.deepcopy(request), s) == full_path(request, s), (name, s)
            assert fused(copy.deepcopy(request), seed) == expected, name


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_crit_heavy_attack_fused_matches_over_many_seeds(backend):
    """ER-8: every crit die and its d3, over enough seeds that long chains (and the kernel's
    roll-again with a larger log) occur."""
    request = attack([strike(dice=5, weight=2), strike(target="orc", dice=4, style="piercing",
                                                        damage_type="piercing")],
                     targets={"goblin": {"ac": 6}, "orc": {"ac": 8}})
    with _kernels.using(backend):
        clear_plan_cache()
        fracas.resolve(request, seed=0)
        for seed in range(400):
            assert fused(request, seed) == full_path(request, seed), seed


def test_the_kernels_roll_seeded_twins_agree_with_roll_single():
    """The compiled `roll_seeded` and its pure-Python twin: roll_single from the seed's state."""
    request = attack([strike(dice=5), strike(target="orc", dice=3)],
                     targets={"goblin": {"ac": 5}, "orc": {"ac": 12}})
    clear_plan_cache()
    fracas.resolve(request, seed=1)
    compiled_plan = drive._PLANS[canonical(request)][2]
    kernels = [_native] + ([_kernels.compiled] if _kernels.compiled is not None else [])
    for seed in (0, 1, 12345, 2**63, 2**64 - 1):
        state = array("I", seed_state(seed))
        info = array("q", bytes(8 * INFO_WIDTH))
        err, out, log = _native.roll_single(compiled_plan.plan, 2, state, None, info)
        for kernel in kernels:
            got = kernel.roll_seeded(compiled_plan.plan, 2, seed)
            assert (got[0], list(got[1]), list(got[2]), got[3]) == (err, list(out), list(log), -1), (kernel, seed)


def test_only_a_cached_attack_without_seed_or_rolls_is_fused(monkeypatch):
    request = attack([strike()], targets={"goblin": {"ac": 14}})
    clear_plan_cache()
    assert drive._fused(request, 1) == canonical(request)  # not compiled yet: its key, for the full path
    fracas.resolve(request)
    assert was_fused(drive._fused(request, 1))
    assert drive._fused(request, -1) == canonical(request)  # a bad seed: the full path names the field
    assert drive._fused(request, True) == canonical(request)
    encoded = Encoded(request, canonical(request))  # the bridge's request: keyed on its bytes
    assert was_fused(drive._fused(encoded, 1))
    answers = []
    real = drive._fused
    monkeypatch.setattr(drive, "_fused", lambda r, s: answers.append(real(r, s)) or answers[-1])
    fracas.resolve(dict(request, seed=3))  # its own seed: checked by the full path, never fused
    fracas.resolve(dict(request, rolls=[2]))  # injected faces (a miss, ER-6): the full path
    assert answers == []
    fracas.resolve(orjson.dumps(request))  # JSON text: decoded, then fused
    fracas.resolve(request, seed=4)
    assert len(answers) == 2 and all(was_fused(a) for a in answers)


def test_an_attack_of_a_ruleset_without_roll_seed_takes_the_full_path_with_its_key_once(monkeypatch):
    """A plan without `roll_seed` (Worldwalker's): the fused attempt hands its key on, and the
    full path rolls from the cached plan as before (WW-2: the d20 attack)."""
    request = {"ruleset": "worldwalker", "attacker": {"dex_mod": 1, "skill": 4, "str_mod": 2},
               "strikes": [{"damage": "1d10+1", "method": "melee", "target": "orc"}],
               "targets": {"orc": {"armor": 2, "defense": 16}}}
    clear_plan_cache()
    first = fracas.resolve(request, seed=9).to_dict()
    assert not hasattr(drive._PLANS[canonical(request)][2], "roll_seed")
    keys = []
    real = drive._plan_key
    monkeypatch.setattr(drive, "_plan_key", lambda r: keys.append(1) or real(r))
    assert fracas.resolve(request, seed=9).to_dict() == first
    assert keys == []  # the key _fused made is the one the cache lookup used


@pytest.mark.parametrize("seed", [-1, 2**64])
def test_a_bad_seed_on_a_cached_attack_names_the_field(seed):
    request = attack([strike()], targets={"goblin": {"ac": 14}})
    fracas.resolve(request)
    with pytest.raises(fracas.SchemaError) as caught:
        fracas.resolve(request, seed=seed)
    assert caught.value.path == "seed"


def test_a_drawn_seed_is_reported_and_replays():
    """A fused call with no seed draws one from the OS block and reports it; resolving again
    with that seed (as the bridge's journal replay does) gives the same result."""
    request = attack([strike(dice=3)], targets={"goblin": {"ac": 10}})
    fracas.resolve(request)
    for _ in range(20):
        first = fracas.resolve(request)
        assert first.to_dict() == fracas.resolve(request, seed=first.seed).to_dict()
        assert first.to_dict() == fracas.resolve(dict(request, seed=first.seed)).to_dict()


def test_each_result_json_is_its_own():
    """The strike entries are copies of per-plan templates: changing one result's JSON changes
    neither another result's nor the next one built."""
    request = attack([strike(dice=3)], targets={"goblin": {"ac": 10}})
    fracas.resolve(request)
    a, b = fracas.resolve(request, seed=5), fracas.resolve(request, seed=5)
    first = a.to_dict()
    expected = copy.deepcopy(first)
    first["strikes"][0]["target"] = "changed"
    first["strikes"][0]["dice"].clear()
    first["targets"]["goblin"]["by_type"]["x"] = 1
    assert a.to_dict() == expected
    assert b.to_dict() == expected


def test_threads_resolving_one_plan_get_the_sequential_results():
    """The bridge may resolve in threads: the lock-free cache hit and the shared templates
    give each call the result it gives alone."""
    request = attack([strike(dice=4), strike(target="orc", dice=2)],
                     targets={"goblin": {"ac": 9}, "orc": {"ac": 13}})
    clear_plan_cache()
    expected = {seed: orjson.dumps(fracas.resolve(request, seed=seed).to_dict()) for seed in range(200)}
    clear_plan_cache()
    got: dict[int, bytes] = {}
    errors: list[BaseException] = []

    def work(offset):
        try:
            for seed in range(offset, 200, 4):
                got[seed] = orjson.dumps(fracas.resolve(request, seed=seed).to_dict())
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert got == expected
