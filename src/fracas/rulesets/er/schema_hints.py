"""What the bridge's JSON Schema says of ER fields beyond their types.

The engine checks these ranges itself (to word its own errors, the same in Python
and JavaScript), so the msgspec types stay plain; `python -m fracas.spec` lays
these over msgspec's schema when it writes bridge/schema.json.
"""

from .schema import Profile, Target

#: Types the requests hold as `Any` (checked by the engine), named in the schema all the same.
SCHEMA_TYPES = [Target, Profile]

SEED = {"type": ["integer", "null"], "minimum": 0, "maximum": 18446744073709551615,
        "description": "64-bit seed; null or absent: drawn from the OS. The result carries it."}
ROLLS = {"type": ["array", "null"], "items": {"type": "integer", "minimum": 1}, "minItems": 1,
         "description": "injected faces, consumed in draw order (docs/ENGINE.md §2)"}
RULESET = {"$ref": "#/$defs/ruleset"}
_strike = {
    "method": {"enum": ["melee", "range", "savage"], "description": "the method the style belongs to (ER-2)"},
    "style": {"$ref": "#/$defs/style"},
    "dice": {"type": "integer", "minimum": 1, "maximum": 5, "description": "d20s in the pool (ER-3)"},
    "damage_type": {"$ref": "#/$defs/damage_type"},
    "weight": {"type": "integer", "minimum": 0, "maximum": 2, "default": 0},
    "crit_range": {"type": ["integer", "null"], "minimum": 2, "maximum": 20, "default": None},
    "reach": {"type": "boolean", "default": False, "description": "reach weapon: may sneak attack (ER-13)"},
    "sneak_ok": {"type": "boolean", "default": False, "description": "usable for sneak attacks (ER-13)"},
}
_damage_types = {"type": "array", "items": {"$ref": "#/$defs/damage_type"}, "uniqueItems": True}
_conditions = {"type": "array", "items": {"$ref": "#/$defs/condition"}}

SCHEMA_HINTS = {
    **{f"ProfileStrike.{k}": v for k, v in _strike.items()},
    **{f"Strike.{k}": v for k, v in _strike.items()},
    "Attacker.size": {"$ref": "#/$defs/size"},
    "Attacker.conditions": _conditions,
    "Attacker.swim_speed": {"type": "integer", "minimum": 0, "maximum": 1000, "default": 0},
    "Attacker.obscurement": {"type": "integer", "minimum": 0, "maximum": 20, "default": 0},
    "Target.ac_by_type": {"type": "object", "propertyNames": {"$ref": "#/$defs/damage_type"},
                          "additionalProperties": {"type": "integer"}},
    "Target.size": {"$ref": "#/$defs/size"},
    "Target.resistant": _damage_types,
    "Target.vulnerable": _damage_types,
    "Target.immune": _damage_types,
    "Target.conditions": _conditions,
    "Target.cover": {"$ref": "#/$defs/cover"},
    "Target.body_max": {"type": ["integer", "null"], "minimum": 1},
    "Target.nearby": {"type": "array", "items": {"type": "string"}, "maxItems": 8,
                      "description": "ids of other targets near this one (friendly fire, ER-16, ER-17)"},
    "AttackRequest.ruleset": RULESET, "AttackRequest.seed": SEED, "AttackRequest.rolls": ROLLS,
    "AttackRequest.strikes": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/strike"}},
    "AttackRequest.targets": {"type": "object", "additionalProperties": {"$ref": "#/$defs/target"}},
    "Profile.strikes": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/profile_strike"}},
    "AttackGroup.target": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
                           "description": "one target for every strike of the profile, or one per strike"},
    "AttackGroup.count": {"type": "integer", "minimum": 0, "default": 1},
    "BulkRequest.ruleset": RULESET, "BulkRequest.seed": SEED,
    "BulkRequest.profiles": {"type": "object", "additionalProperties": {"$ref": "#/$defs/profile"}},
    "BulkRequest.targets": {"type": "object", "additionalProperties": {"$ref": "#/$defs/target"}},
    "BulkRequest.attacks": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/attack_group"},
                            "description": "the bridge accepts at most 100000000 attacks in all (sum of count)"},
    "BulkRequest.detail": {"enum": ["summary", "attacks", "dice"], "default": "summary",
                           "description": "attacks and dice: at most 10000 attacks through the bridge"},
    "Combatant.agility": {"type": ["integer", "null"], "minimum": -10, "maximum": 40},
    "Combatant.bonus": {"type": "integer", "minimum": -100, "maximum": 100, "default": 0},
    "InitiativeRequest.ruleset": RULESET, "InitiativeRequest.seed": SEED, "InitiativeRequest.rolls": ROLLS,
    "InitiativeRequest.combatants": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/combatant"}},
}
