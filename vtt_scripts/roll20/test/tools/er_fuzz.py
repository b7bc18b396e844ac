"""Known-answer ER vectors from the Python engine, for the JavaScript resolver's tests.

    python er_fuzz.py fuzz SEED COUNT     random requests (valid and not), resolved
    python er_fuzz.py battery             one wrong value at every field of a request
    python er_fuzz.py fixture             both, the set kept in test/fixtures/er_cross_check.json
    python er_fuzz.py initiative SEED COUNT   ER-18 initiative requests
    python er_fuzz.py write               write both committed fixtures (FIXTURES below)

Prints a JSON list of {"name", "request", "seed", "result"} (the result without
`backend`) or {"name", "request", "seed", "error": {"path", "message"}}.
`python -m fracas.spec` runs the `write` mode, and `--check` fails when a committed
fixture is not what this makes now.
"""

import copy
import json
import random
import sys
from pathlib import Path

from fracas import resolve, roll_initiative
from fracas.rulesets.er.schema import CONDITIONS, DAMAGE_TYPES, SIZES, STYLE_METHOD, STYLES


def vector(name, request, seed):
    try:
        result = resolve(request, seed=seed).to_dict()
        result.pop("backend")
        return {"name": name, "request": request, "seed": seed, "result": result}
    except Exception as exc:  # every RequestError carries .path and .reason
        if not hasattr(exc, "path"):
            raise
        return {"name": name, "request": request, "seed": seed,
                "error": {"path": exc.path, "message": exc.reason}}


def fuzz(seed, count):
    rnd = random.Random(seed)

    def maybe(p):
        return rnd.random() < p

    out = []
    for k in range(count):
        tids = [rnd.choice(["goblin", "orc", "a b", "o'x", "t1", "zed"]) + str(i)
                for i in range(rnd.randint(1, 3))]
        targets = {}
        for t in tids:
            tg = {"ac": rnd.randint(5, 22)}
            if maybe(.3):
                tg["ac_by_type"] = {rnd.choice(DAMAGE_TYPES): rnd.randint(5, 22)}
            if maybe(.3):
                tg["size"] = rnd.choice(SIZES)
            for f in ("resistant", "vulnerable", "immune"):
                if maybe(.25):
                    tg[f] = rnd.sample(DAMAGE_TYPES, rnd.randint(1, 3))
            if maybe(.3):
                tg["conditions"] = rnd.sample(CONDITIONS, rnd.randint(1, 2))
            if maybe(.2):
                tg["cover"] = rnd.choice(["none", "half", "three-quarters", "full"])
            if maybe(.4):
                tg["body_max"] = rnd.randint(1, 20)
            if maybe(.2):
                tg["crit_proof"] = True
            if maybe(.4):
                tg["save_bonus"] = rnd.randint(-3, 8)
            targets[t] = tg
        att = {"strength": rnd.randint(-2, 10), "agility": rnd.randint(-2, 10)}
        if maybe(.2):
            att["strength_mod"] = rnd.randint(-5, 5)
        if maybe(.2):
            att["size"] = rnd.choice(SIZES)
        if maybe(.2):
            att["conditions"] = rnd.sample(CONDITIONS, rnd.randint(1, 2))
        if maybe(.2):
            att["swim_speed"] = rnd.choice([0, 20, 30])
        if maybe(.2):
            att["obscurement"] = rnd.randint(0, 4)
        strikes = []
        for _ in range(rnd.randint(1, 4)):
            method = rnd.choice(["melee", "range", "savage"])
            st = {"target": rnd.choice(tids), "method": method,
                  # mostly a style of the method (ER-2), now and then one of another
                  "style": rnd.choice([s for s in STYLES if STYLE_METHOD[s] == method] if maybe(.9) else STYLES),
                  "dice": rnd.randint(1, 5), "damage_type": rnd.choice(DAMAGE_TYPES)}
            if method != "range" and maybe(.6):
                st["weight"] = rnd.randint(0, 2)
            if maybe(.3):
                st["bonus"] = rnd.randint(-3, 6)
            if maybe(.3):
                st["crit"] = rnd.choice([True, False, None])
            if maybe(.3):
                st["crit_range"] = rnd.randint(15, 20)
            if maybe(.2):
                st["advantage"] = True
            if maybe(.2):
                st["disadvantage"] = True
            if maybe(.25):
                st["sneak"] = rnd.choice([True, "advantage-only"])
            strikes.append(st)
        req = {"attacker": att, "strikes": strikes, "targets": targets}
        if maybe(.1):
            req["advantage"] = True
        if maybe(.1):
            req["disadvantage"] = True
        if maybe(.15):
            req["rolls"] = [rnd.choice([20, 20, 19, 1, 5, 10, 15, 3, 2]) for _ in range(rnd.randint(1, 30))]
        out.append(vector(f"fuzz {seed}/{k}", req, rnd.choice([rnd.getrandbits(16), rnd.getrandbits(53)])))
    return out


BASE = {"attacker": {"strength": 4, "agility": 3},
        "strikes": [{"target": "a", "method": "melee", "style": "slashing", "dice": 2,
                     "damage_type": "edged"}],
        "targets": {"a": {"ac": 14}, "b c": {"ac": 12}}}
BAD_VALUES = ["x", 2.5, True, None, [], {}, -1, 99, 0, "advantage-only", ["x"], [1],
              {"edged": "x"}, {"zz": 3}]
FIELDS = [
    ("ruleset",), ("seed",), ("rolls",), ("advantage",), ("disadvantage",), ("extra",),
    ("attacker",), ("attacker", "strength"), ("attacker", "agility"), ("attacker", "strength_mod"),
    ("attacker", "agility_mod"), ("attacker", "size"), ("attacker", "conditions"),
    ("attacker", "swim_speed"), ("attacker", "obscurement"), ("attacker", "bogus"),
    ("strikes",), ("strikes", 0), ("strikes", 0, "target"), ("strikes", 0, "method"),
    ("strikes", 0, "style"), ("strikes", 0, "dice"), ("strikes", 0, "damage_type"),
    ("strikes", 0, "bonus"), ("strikes", 0, "weight"), ("strikes", 0, "crit"),
    ("strikes", 0, "crit_range"), ("strikes", 0, "advantage"), ("strikes", 0, "disadvantage"),
    ("strikes", 0, "sneak"), ("strikes", 0, "zap"),
    ("targets",), ("targets", "a"), ("targets", "b c", "ac"), ("targets", "a", "ac_by_type"),
    ("targets", "a", "size"), ("targets", "a", "resistant"), ("targets", "a", "vulnerable"),
    ("targets", "a", "immune"), ("targets", "a", "conditions"), ("targets", "a", "cover"),
    ("targets", "a", "body_max"), ("targets", "a", "crit_proof"), ("targets", "a", "save_bonus"),
    ("targets", "a", "nope"),
]
REQUIRED = [("attacker",), ("strikes",), ("targets",), ("strikes", 0, "method"),
            ("strikes", 0, "target"), ("strikes", 0, "dice"), ("targets", "a", "ac")]


def battery():
    out = []
    for path in FIELDS:
        for value in BAD_VALUES:
            req = copy.deepcopy(BASE)
            node = req
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = value
            out.append(vector("/".join(map(str, path)) + "=" + json.dumps(value), req, 7))
    for path in REQUIRED:
        req = copy.deepcopy(BASE)
        node = req
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
        out.append(vector("missing " + "/".join(map(str, path)), req, 7))
    return out


def initiative(seed, count):
    rnd = random.Random(seed)
    out = []
    for k in range(count):
        combatants = []
        for i in range(rnd.randint(1, 12)):
            c = {"id": rnd.choice(["-Mtok", "pc ", "orc"]) + str(i)}
            if rnd.random() < .8:
                c["agility"] = rnd.randint(0, 6)
            if rnd.random() < .3:
                c["agility_mod"] = rnd.randint(-2, 3)
            if rnd.random() < .3:
                c["bonus"] = rnd.randint(-2, 2)
            combatants.append(c)
        req = {"combatants": combatants}
        if rnd.random() < .1:
            req["rolls"] = [rnd.randint(1, 10) for _ in range(rnd.randint(1, 14))]
        seed_k = rnd.getrandbits(53)
        try:
            result = roll_initiative(req, seed=seed_k).to_dict()
            out.append({"name": f"initiative {seed}/{k}", "request": req, "seed": seed_k, "result": result})
        except Exception as exc:
            if not hasattr(exc, "path"):
                raise
            out.append({"name": f"initiative {seed}/{k}", "request": req, "seed": seed_k,
                        "error": {"path": exc.path, "message": exc.reason}})
    return out


def dumps(vectors):
    """One vector a line, the way the fixtures are committed."""
    return "[\n" + ",\n".join(json.dumps(v, separators=(",", ":")) for v in vectors) + "\n]\n"


FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def outputs():
    """The committed fixtures, {path: text}: the battery and 200 fuzzed ER requests, and
    300 ER-18 initiative requests."""
    return {FIXTURES / "er_cross_check.json": dumps(battery() + fuzz(20240601, 200)),
            FIXTURES / "initiative_cross_check.json": dumps(initiative(5, 300))}


def main(argv):
    mode = argv[1] if len(argv) > 1 else "fixture"
    if mode == "write":
        from fracas.spec import regen

        regen.write(outputs())
        return
    if mode == "fuzz":
        vectors = fuzz(int(argv[2]), int(argv[3]))
    elif mode == "initiative":
        vectors = initiative(int(argv[2]), int(argv[3]))
    elif mode == "battery":
        vectors = battery()
    else:
        vectors = battery() + fuzz(20240601, 200)
    sys.stdout.write(dumps(vectors))


if __name__ == "__main__":
    main(sys.argv)
