"""Small builders for ER requests in tests."""

import fracas


def strike(target="goblin", method="melee", style="slashing", dice=1, damage_type="edged", **extra):
    return {"target": target, "method": method, "style": style, "dice": dice,
            "damage_type": damage_type, **extra}


def attack(strikes=None, targets=None, attacker=None, **extra):
    request = {
        "attacker": attacker if attacker is not None else {"strength": 2, "agility": 2},
        "strikes": strikes if strikes is not None else [strike()],
        "targets": targets if targets is not None else {"goblin": {"ac": 14}},
    }
    request.update(extra)
    return request


def roll(request, rolls=None, seed=1):
    """Resolve with injected faces; returns the result dict."""
    if rolls is not None:
        request = dict(request, rolls=list(rolls))
    return fracas.resolve(request, seed=seed).to_dict()


def without_backend(result):
    return {k: v for k, v in result.items() if k != "backend"}


def load_vector_generator():
    """The module tests/vectors/generate.py (random requests, vector building)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "vectors" / "generate.py"
    spec = importlib.util.spec_from_file_location("fracas_vector_generate", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
