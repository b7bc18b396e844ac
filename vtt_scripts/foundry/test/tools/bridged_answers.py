"""The engine's answers to the requests the Foundry module's save, touch, drop, lock, throw, slam
and counterspell actions build in test/bridged.test.js, for the node tests to answer with:

    python vtt_scripts/foundry/test/tools/bridged_answers.py    write test/fixtures/bridged_answers.json

Each entry is {name, method, request, result}: the request exactly as the module must send
it for that test's tokens and options (the node test's fake bridge answers only a request
equal to one here, so a changed request shape fails there), and `fracas.roll`'s result for
it (what `fracas serve` answers). `python -m fracas.spec --check` fails when the engine
answers otherwise and this file was not written again; bridged.test.js also runs the
requests against a real `fracas serve` when Python is there.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "bridged_answers.json"

# The test's actors (bridged.test.js): Aldric (hero: AC 13, Strength 4, Agility 6, Body 20),
# Goblin (gob: AC 12, Strength 2, Agility 4, Body 7), Ogre (ogre: AC 12, Strength 8, Agility 2,
# Body 30, large, poisoned), Scout (scout: Resilience 5 in its flags.fracas.enchanted-realms),
# Giant (giant: AC 11, Strength 10, Agility 1, Body 60, huge).
REQUESTS: list[tuple[str, str, str, dict[str, Any]]] = [
    ("save-area", "save", "save.roll", {
        "save": "agility", "dc": 13, "area": True, "effect": "sleep smoke", "on_fail": ["asleep", "prone"],
        "targets": [{"id": "gob", "score": 4, "cover": "half"},
                    {"id": "ogre", "score": 2, "cover": "half", "conditions": ["poisoned"]}],
        "seed": 5}),
    ("save-resilience", "save", "save.roll", {
        "save": "resilience", "dc": 12, "area": False, "effect": "", "on_fail": [],
        "targets": [{"id": "scout", "score": 5, "cover": "none", "advantage": True}],
        "seed": 11}),
    ("touch-hit", "touch", "touch.roll", {
        "touch": "hit", "caster": {"strength": 4, "agility": 6}, "target": {"id": "gob", "ac": 12},
        "bonus": 1, "dice": 2, "seed": 3}),
    ("touch-sleight", "touch", "touch.roll", {
        "touch": "sleight", "caster": {"strength": 4, "agility": 6}, "target": {"id": "gob", "agility": 4, "other_ac": 1},
        "bonus": 0, "rolls": [16], "seed": 4}),
    ("drop-held", "drop", "drop.roll", {
        "attack": {"attacker": {"strength": 4, "agility": 6},
                   "strikes": [{"method": "range", "style": "archery", "dice": 2, "damage_type": "piercing", "sneak": True,
                                "target": "ogre"}],
                   "targets": {"ogre": {"ac": 12, "size": "large", "conditions": ["poisoned"], "body_max": 30}}},
        "surrenders": True, "rolls": [15, 9, 3, 12], "seed": 6}),
    ("drop-inflict", "drop", "drop.roll", {
        "inflict": {"held": 7, "rounds": 2, "victim": {"id": "gob", "attribute": "agility", "score": 4, "bonus": 0,
                                                       "foul_play": True, "body_max": 7}},
        "seed": 2}),
    ("lock-disarm", "lock", "lock.roll", {
        "mode": "disarm",
        "attacker": {"id": "hero", "to_hit": 6, "strength": 4, "agility": 6, "weapon": "heavy", "damage_type": "edged"},
        "victim": {"id": "ogre", "ac": 12, "agility": 2, "conditions": ["poisoned"], "reacts": True, "reaction_left": True},
        "seed": 8}),
    ("lock-blitz", "lock", "lock.roll", {
        "mode": "blitz", "attacker": {"id": "hero", "to_hit": 4, "strength": 4, "agility": 6},
        "victim": {"id": "ogre", "ac": 12, "conditions": ["poisoned"]}, "seed": 9}),
    # ER Throwing Items: a flask of the table (its damage), and throwing magic (the request's damage, the Agility added).
    ("throw-holy", "throw", "throw.roll", {
        "item": "holy water", "thrower": {"strength": 4, "agility": 6},
        "target": {"id": "ogre", "ac": 12, "cover": "none", "conditions": ["poisoned"]},
        "skill": "ranged", "bonus": 0, "seed": 3}),
    ("throw-magic", "throw", "throw.roll", {
        "item": "magic", "thrower": {"strength": 4, "agility": 6},
        "target": {"id": "gob", "ac": 12, "cover": "half"},
        "skill": "hurling", "bonus": 1, "advantage": True,
        "damage": {"dice": 2, "faces": 6, "bonus": 1, "damage_type": "lightning"}, "seed": 4}),
    # ER Grappling: the giant slams the goblin into the ogre 10 ft off (a hurl at its AC, the
    # large ogre's size bonus on each die), and slams Aldric into a brazier (fire for the terrain).
    ("slam-into", "slam", "slam.roll", {
        "grappler": {"id": "giant", "size": "huge", "strength": 10, "to_hit": 0},
        "victim": {"id": "gob", "size": "medium"}, "damage_type": "blunt",
        "into": {"id": "ogre", "ac": 12, "size": "large", "distance": 10}, "seed": 6}),
    ("slam-fire", "slam", "slam.roll", {
        "grappler": {"id": "giant", "size": "huge", "strength": 10},
        "victim": {"id": "hero", "size": "medium"}, "damage_type": "fire", "seed": 2}),
    # WW-8: Aldric counters the goblin's sorcery (the dialog's ratings and modifiers).
    ("counterspell", "counterspell", "counterspell.roll", {
        "ruleset": "worldwalker", "school": "sorcery",
        "caster": {"id": "gob", "skill": 3, "modifier": 1},
        "counterspeller": {"id": "hero", "schools": {"sorcery": 4}, "distance": 30, "modifier": 2}, "seed": 7}),
]


def answers() -> list[dict[str, Any]]:
    import fracas

    return [{"name": name, "method": method, "request": request, "result": fracas.roll(kind, request).to_dict()}
            for name, kind, method, request in REQUESTS]


def render() -> str:
    return json.dumps(answers(), indent=1) + "\n"


def outputs() -> dict[Path, str]:
    """What this writes, by path (fracas.spec.regen compares it for `--check`)."""
    return {FIXTURE: render()}


if __name__ == "__main__":
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text(render(), encoding="utf-8")
    sys.exit(0)
