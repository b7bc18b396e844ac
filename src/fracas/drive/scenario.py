"""Scenario files: the sides of a fight, who is on them, and how they fight.

A scenario names a ruleset and lists, side by side, the combatants (or groups of
alike combatants with a `count`): their health, their attacker and target fields
(the same shapes as the `attacker` and `targets` of an attack request of that
ruleset) and their strikes (a request's strikes without `target`: the tactic picks
the target). `docs/ENCOUNTERS.md` documents the format; `scenario.schema.json` is
its JSON Schema (`python -m fracas.spec` writes it).

`compile_scenario` checks everything before a fight starts: every combatant's
strikes are compiled against every enemy it may face, so a bad field is an error
naming the scenario path (`$.sides.goblins[0].attacks[1].dice`), never a surprise
in round 3.
"""

from __future__ import annotations

import dataclasses
import threading
from typing import Any, Literal, Optional, Union

import msgspec

from .. import rulesets
from ..errors import LimitError, RequestError, RulesError, SchemaError
from ..requests import check_range, convert, key_path, parse_json, shown, type_name
from ..dice import Dice
from ..rulesets.base import Actor, Ruleset, moved
from ..rulesets.fight import COMBATANT_DEFAULTS, TACTIC_DEFAULTS
from ..rulesets.fight import Situation as Situation  # what a round changes in an attack (re-exported)

#: Limits checked before a fight starts (the bridge also bounds the file's bytes).
MAX_SIDES = 16
MAX_MEMBERS = 2_000
MAX_ROUNDS = 1_000
MAX_NAME = 64
#: Attacker × target pairs compiled when the scenario loads; past this, on first use.
EAGER_PAIRS = 4_096


class _Spec(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass


class Tactic(_Spec):
    """How a combatant picks its target, when it leaves the fight, and its ruleset's round choices
    (old-school action, Worldwalker reserve, Cartyrion parry and power)."""

    #: nearest: the closest standing enemy; weakest: the one with the least health left;
    #: random: any standing enemy, by a die; focus: the combatant or group named by
    #: `focus` while one stands, then the nearest.
    target: Literal["nearest", "weakest", "random", "focus"] = "nearest"
    focus: Optional[str] = None
    #: broken: leaves the fight when its group's morale breaks (old-school: flees the next
    #: round); surrender: old-school: gives up at the start of the next round; never: fights on.
    flee: Literal["broken", "surrender", "never"] = "broken"
    #: Leaves the fight when its health ("hp") is at or below this.
    flee_at: Optional[int] = None
    #: Enchanted Realms: the feet it moves when it leaves (ER-20): under 20 a cautious
    #: move that draws no flee attacks, 20-74 a normal move, 75 or more a rapid move
    #: (flee attacks of one d20). Default 30.
    flee_move: Optional[int] = None
    #: Enchanted Realms: defends its turn away (ER-15) on turns when its health is at or
    #: below this: no attack; attackers that it can see are at disadvantage until its next
    #: turn; no reactions (flee attacks) this round and the next.
    defend_at: Optional[int] = None
    #: Enchanted Realms: its first melee attack of the fight is a charge, having closed this
    #: many feet (ER-23: from 25 ft a pikeman set against charges may impale it first).
    charge: Optional[int] = None
    #: Old-school: the one action of a round (OS one action): its melee strikes in the melee
    #: phase or its missile strikes in the missile phase. Default: melee when it has a melee
    #: strike, else missile.
    action: Optional[Literal["melee", "missile"]] = None
    #: Worldwalker: complex actions held in reserve each round for blocks or dodges (WW-5);
    #: each forgoes an attack (the off-hand's bonus action first, WW-6). Default 0.
    reserve: int = 0
    #: Cartyrion: parries its turn away with its weapon (its first attack) or its shield
    #: (CT-6), on turns when its Stamina is at or below `parry_at` (every turn without it).
    parry: Optional[Literal["weapon", "shield"]] = None
    parry_at: Optional[int] = None
    #: Cartyrion: when it power-attacks (CT-5; the weapon breaks): never, on its first turn,
    #: or on its turns with Stamina at or below half (each weapon breaks in turn).
    power: Literal["never", "first", "hurt"] = "never"


class Spell(_Spec):
    """A spell cast instead of attacking while uses last (strikes as `attacks`)."""

    name: str
    strikes: list[dict[str, Any]]
    uses: int = 1


class CombatantSpec(_Spec):
    name: str
    hp: int
    attacks: list[dict[str, Any]] = []
    attacker: dict[str, Any] = {}
    target: dict[str, Any] = {}
    count: int = 1
    injury: Optional[int] = None
    initiative: int = 0
    tactic: Tactic = msgspec.field(default_factory=Tactic)
    morale: Optional[int] = None
    morale_modifier: int = 0
    #: Old-school: the members of a side that check morale together (OS-4): one check per
    #: side by default; combatants naming a group check apart from the rest of their side.
    morale_group: Optional[str] = None
    #: Cartyrion: "some trait or ability that precludes their being surprised" (CT-1): it
    #: takes its turn in a round its side is surprised in.
    surprise_immune: bool = False
    #: Enchanted Realms: the combatants (ids or group names) that stand next to each of
    #: its members, for friendly fire (ER-17): a shot at it under the friendly-fire rule that
    #: misses may stray into one of them (up to 8 standing, in member order).
    nearby: list[str] = []
    #: Enchanted Realms: the pole-arm it sets against charges (ER-23, the impale request's
    #: `weapon`: style, damage_type, weight, bonus, forte, pole ...): a charger that closed
    #: 25 ft or more at it is impaled first, with its reaction.
    impale: Optional[dict[str, Any]] = None
    #: Old-school: its saving throw target number, whatever the category, or its table of
    #: them by category (e.g. {"spells": 15, "breath": 16}), as a save request's (OS-5).
    save: Union[int, dict[str, int], None] = None
    #: Old-school: an effect of its attacks that forces a saving throw on their target, hit
    #: or miss ({"category", "modifier", "effect", "by": "any" | "attacks" | "spell"}): a
    #: declared caster that fails it before its side acts loses its spell (OS-5).
    save_or: Optional[dict[str, Any]] = None
    spell: Optional[Spell] = None
    position: Optional[tuple[float, float]] = None
    label: Optional[str] = None


class Scenario(_Spec):
    sides: dict[str, list[Any]]
    ruleset: str = "enchanted-realms"
    name: str = ""
    description: str = ""
    initiative: dict[str, Any] = {}
    max_rounds: int = 100


def round_work(source: Any) -> tuple[int, int]:
    """(members, strikes) a round of the scenario `source` (its JSON, as stored) may roll at most:
    every member of every side attacking once with every strike of its attacks and spell.

    Counted from the JSON without compiling it, so a caller (the bridge) can weigh a round
    before playing it; malformed entries count as one member with one strike (compiling
    refuses them later with a path)."""
    members = strikes = 0
    sides = source.get("sides") if isinstance(source, dict) else None
    for entries in (sides.values() if isinstance(sides, dict) else ()):
        for entry in (entries if isinstance(entries, list) else ()):
            if not isinstance(entry, dict):
                members, strikes = members + 1, strikes + 1
                continue
            count = entry.get("count", 1)
            count = count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 1
            attacks = entry.get("attacks")
            each = len(attacks) if isinstance(attacks, list) else 0
            spell = entry.get("spell")
            if isinstance(spell, dict) and isinstance(spell.get("strikes"), list):
                each += len(spell["strikes"])
            members += count
            strikes += count * max(1, each)
    return members, strikes


def _examples_dir() -> Any:
    """Where the example scenarios are: the installed `fracas.scenarios` data, or the
    checkout's examples/scenarios (an editable install maps no data-only package)."""
    from importlib import resources
    from pathlib import Path

    try:
        return resources.files("fracas.scenarios")
    except ModuleNotFoundError:
        checkout = Path(__file__).resolve().parents[3] / "examples" / "scenarios"
        return checkout if checkout.is_dir() else None


def _ruleset_examples() -> dict[str, Any]:
    """The example scenarios a ruleset folder carries itself (`examples/NAME.json` beside
    its manifest, named in the manifest's `examples`): a new ruleset brings its own."""
    from importlib import resources

    found = {}
    for manifest in rulesets.manifests():
        folder = resources.files(manifest.package).joinpath("examples")
        for name in manifest.examples:
            file = folder.joinpath(f"{name}.json")
            if file.is_file():
                found[name] = file
    return found


def examples() -> list[str]:
    """Names of the example scenarios that ship with fracas and its rulesets (one per
    ruleset at least: each manifest's `examples`)."""
    where = _examples_dir()
    shared = [] if where is None else [p.name[:-5] for p in where.iterdir() if p.name.endswith(".json")]
    return sorted({*shared, *_ruleset_examples()})


def example(name: str) -> bytes:
    """The JSON of a shipped example scenario (`examples()` lists them)."""
    known = examples()
    if name not in known:
        raise SchemaError("scenario", f"no example scenario {name!r} (examples: {', '.join(known) or 'none installed'})")
    own = _ruleset_examples().get(name)
    data: bytes = (own if own is not None else _examples_dir().joinpath(f"{name}.json")).read_bytes()
    return data


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a scenario file (combatant fields in `$defs`)."""

    class ScenarioFile(Scenario):  # each side's entries typed (Scenario converts them one by one)
        sides: dict[str, list[CombatantSpec]]

    schema = msgspec.json.schema(ScenarioFile)
    defs = schema["$defs"]
    defs["ScenarioFile"]["description"] = (
        "A fracas scenario: sides of combatants for an encounter or a simulation (docs/ENCOUNTERS.md).")
    defs["ScenarioFile"]["properties"]["ruleset"]["enum"] = sorted(rulesets.names())
    defs["ScenarioFile"]["properties"]["max_rounds"].update(minimum=1, maximum=MAX_ROUNDS)
    combatant = defs["CombatantSpec"]["properties"]
    combatant["count"].update(minimum=1, maximum=MAX_MEMBERS)
    combatant["hp"].update(minimum=1, description="Body (ER), hit points (WW, OS) or Stamina Points (CT)")
    combatant["injury"]["description"] = "Cartyrion Injury Points (CT-4); others leave it out"
    combatant["attacker"]["description"] = "the attacker fields of an attack request of the ruleset"
    combatant["target"]["description"] = "the target fields of an attack request of the ruleset"
    combatant["attacks"]["description"] = "strikes of an attack request, without target"
    combatant["morale"].update(minimum=2, maximum=12)
    combatant["morale_modifier"].update(minimum=-2, maximum=2)
    combatant["morale_group"]["description"] = ("old-school: members of a side that check morale apart from the"
                                                " rest of it (OS-4; default: one check per side)")
    combatant["nearby"]["description"] = ("enchanted-realms: who stands next to its members (combatant ids or group"
                                          " names), for friendly fire (ER-17)")
    combatant["impale"]["description"] = ("enchanted-realms: the pole-arm it sets against charges (ER-23: the"
                                          " impale request's weapon)")
    combatant["save"]["description"] = ("old-school: its saving throw target number, or its table of them by"
                                        " category (OS-5)")
    combatant["save_or"]["description"] = ("old-school: an effect of its attacks that forces a saving throw on their"
                                           " target, hit or miss: category, modifier, effect, by (any, attacks or"
                                           " spell); a declared caster that fails it before its side acts loses its"
                                           " spell (OS-5)")
    combatant["surprise_immune"]["description"] = ("cartyrion: cannot be surprised (CT-1): takes its turn in a round"
                                                   " its side is surprised in, after the side that surprised it")
    tactic = defs["Tactic"]["properties"]
    tactic["action"]["description"] = ("old-school: the one action of a round, melee or missile (default: melee"
                                       " when it has a melee strike)")
    tactic["reserve"].update(minimum=0, maximum=2, description="worldwalker: complex actions held in reserve"
                             " each round for blocks or dodges (WW-5); each forgoes an attack")
    tactic["parry"]["description"] = "cartyrion: parry its turn away with its weapon or its shield (CT-6)"
    tactic["parry_at"]["description"] = "cartyrion: parry only on turns when its Stamina is at or below this"
    tactic["power"]["description"] = ("cartyrion: when it power-attacks, breaking the weapon (CT-5): never,"
                                      " first (its first turn), hurt (its turns at half Stamina or less)")
    return schema


#: What a round changes in an attack request (`Compiled.plan`): ((where, ((field, value), …)), …),
#: where is "target" or ("strike", i).


@dataclasses.dataclass(eq=False)
class Group:
    """One combatant entry of a scenario (a `count` of alike members)."""

    index: int
    side: int
    spec: CombatantSpec
    path: str
    #: Strike indexes of `spec.attacks` by phase (only phases with strikes).
    phases: dict[str, list[int]]
    #: Initiative actors read these.
    attacker: dict[str, Any]
    initiative: int


@dataclasses.dataclass(eq=False)
class Compiled:
    """A checked scenario, with the compiled attacks of its combatants."""

    source: dict[str, Any]
    ruleset: Ruleset
    name: str
    sides: list[str]
    groups: list[Group]
    member_ids: list[str]
    member_group: list[int]
    positions: list[tuple[float, float]]
    setup: Any
    max_rounds: int
    has_morale: bool
    #: OS-4 morale units: (name, side, scenario group indexes); one per side unless
    #: combatants name a `morale_group`.
    morale_units: list[tuple[str, int, list[int]]] = dataclasses.field(default_factory=list)
    _plans: dict[tuple[Any, ...], Any] = dataclasses.field(default_factory=dict)
    _lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)

    def plan(self, group: int, phase: str, target_group: int, use: Optional[tuple[int, ...]] = None,
             situation: Situation = ()) -> Any:
        """The compiled attack of `group`'s strikes of `phase` ("spell": its spell) at a
        member of `target_group` (whose id in the plan is "t"). `use`: only these strike
        indexes of the combatant's `attacks` (a broken weapon, reserved actions, one strike
        at a time); `situation`: what the round changes in the request, as
        ((field, value), …) pairs for the target ("target"), strike i ("strike", i) or
        the request itself ("request": an ER-20 flee attack's `flee`) —
        a value None removes the field (e.g. a fleeing target, OS-3; a parry, CT-6)."""
        if use is not None and list(use) == self.groups[group].phases.get(phase):
            use = None  # all of the phase's strikes: the plan compiled when the scenario loaded
        key = (group, phase, target_group, use, situation)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._compile(key)
            with self._lock:
                self._plans[key] = plan
        return plan

    def _compile(self, key: tuple[Any, ...]) -> Any:
        g, phase, t = self.groups[key[0]], key[1], self.groups[key[2]]
        use, situation = key[3], key[4]
        if phase == "spell":
            assert g.spec.spell is not None
            strikes = g.spec.spell.strikes
            indexes = list(range(len(strikes)))
            where = f"{g.path}.spell.strikes"
        else:
            strikes = g.spec.attacks
            indexes = list(use) if use is not None else g.phases[phase]
            where = f"{g.path}.attacks"
        made = [_aimed(strikes[i], f"{where}[{i}]") for i in indexes]
        target = dict(t.spec.target)
        request = {"ruleset": self.ruleset.name, "attacker": g.spec.attacker, "strikes": made,
                   "targets": {"t": target}}
        for where_, changes in situation:
            fields = (request if where_ == "request" else request["targets"]["t"] if where_ == "target"
                      else made[indexes.index(where_[1])])
            for name, value in changes:
                if value is None:
                    fields.pop(name, None)
                else:
                    fields[name] = thawed(value)
        try:
            attack = self.ruleset.kind("attack")
            return attack.compile(attack.decode(request))
        except RequestError as exc:
            raise _scenario_error(exc, g, t, where, indexes) from None


def thawed(value: Any) -> Any:
    """A situation's value as a request has it: a situation is hashed, so an object is a
    tuple of (name, value) pairs and a list a tuple."""
    if isinstance(value, tuple):
        if value and all(isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], str) for x in value):
            return {k: thawed(v) for k, v in value}
        return [thawed(x) for x in value]
    return value


def _aimed(strike: Any, path: str) -> dict[str, Any]:
    if not isinstance(strike, dict):
        raise SchemaError(path, f"expected an object (a strike), got {type_name(strike)}")
    if "target" in strike:
        raise SchemaError(f"{path}.target", "a scenario strike names no target: the combatant's tactic picks it")
    return {**strike, "target": "t"}


def _scenario_error(exc: RequestError, g: Group, t: Group, where: str, indexes: list[int]) -> RequestError:
    """A compile error of a built attack request, at the scenario field behind it."""
    import re

    path = exc.path
    found: RequestError
    if path.startswith("$.attacker"):
        found = moved(exc, "$.attacker", f"{g.path}.attacker")
    elif path.startswith("$.targets.t"):
        found = moved(exc, "$.targets.t", f"{t.path}.target")
    elif m := re.match(r"\$\.strikes\[(\d+)\]", path):
        found = moved(exc, m.group(0), f"{where}[{indexes[int(m.group(1))]}]")
    elif path.startswith("$.strikes"):
        found = moved(exc, "$.strikes", where)
    else:
        found = type(exc)(g.path, f"{exc.reason} (at {path} of the attack this combatant makes)")
    return found


def _name(value: str, path: str) -> str:
    if not value or len(value) > MAX_NAME or value != value.strip():
        raise SchemaError(path, f"a name is 1 to {MAX_NAME} characters without spaces around it, got {shown(value)}")
    return value


def compile_scenario(source: Any) -> Compiled:
    """Check a scenario (a mapping or JSON text) and compile its attacks; every error is a
    `RequestError` naming the scenario path."""
    source = parse_json(source)
    if not isinstance(source, dict):
        raise SchemaError("$", f"a scenario is a JSON object, got {type_name(source)}")
    scenario = convert(source, Scenario)
    ruleset = rulesets.get(scenario.ruleset)
    procedure = ruleset.fight_procedure()
    check_range(scenario.max_rounds, 1, MAX_ROUNDS, "$.max_rounds", "max_rounds")
    sides = list(scenario.sides)
    if len(sides) < 2:
        raise SchemaError("$.sides", f"a fight needs at least two sides, got {len(sides)}")
    if len(sides) > MAX_SIDES:
        raise LimitError("$.sides", f"{len(sides)} sides; at most {MAX_SIDES}")
    groups: list[Group] = []
    ids: list[str] = []
    member_group: list[int] = []
    names: dict[str, str] = {}
    positions: list[tuple[float, float]] = []
    has_morale = "morale" in ruleset.request_types
    total = 0
    for s, side in enumerate(sides):
        _name(side, key_path("$.sides", side))
        entries = scenario.sides[side]
        if not entries:
            raise SchemaError(key_path("$.sides", side), "a side needs at least one combatant")
        rank = 0
        for i, raw in enumerate(entries):
            path = f"{key_path('$.sides', side)}[{i}]"
            spec = convert(raw, CombatantSpec, path)
            _name(spec.name, f"{path}.name")
            if spec.name in names:
                raise SchemaError(f"{path}.name", f"{spec.name!r} is already the name of {names[spec.name]}")
            names[spec.name] = path
            check_range(spec.count, 1, MAX_MEMBERS, f"{path}.count", "count")
            total += spec.count
            if total > MAX_MEMBERS:
                raise LimitError(f"{path}.count", f"more than {MAX_MEMBERS} combatants in all")
            check_range(spec.hp, 1, 1_000_000, f"{path}.hp", "hp")
            if spec.injury is not None:
                if "injury" not in procedure.pools:
                    raise RulesError(f"{path}.injury", f"the {ruleset.title} ruleset has no injury points"
                                                       " (only hp)")
                check_range(spec.injury, 1, 1_000_000, f"{path}.injury", "injury")
            check_range(spec.initiative, -100, 100, f"{path}.initiative", "initiative")
            if spec.morale is not None:
                if not has_morale:
                    raise RulesError(f"{path}.morale", f"the {ruleset.title} ruleset has no morale rules")
                check_range(spec.morale, 2, 12, f"{path}.morale", "morale")
            check_range(spec.morale_modifier, -2, 2, f"{path}.morale_modifier", "morale_modifier")
            if spec.tactic.target == "focus" and not spec.tactic.focus:
                raise SchemaError(f"{path}.tactic.focus", "tactic focus needs the name of whom to focus on")
            if spec.morale_group is not None:
                if spec.morale is None:
                    raise SchemaError(f"{path}.morale_group", "a morale group needs the combatant's morale (OS-4)")
                _name(spec.morale_group, f"{path}.morale_group")
            if spec.spell is not None:
                check_range(spec.spell.uses, 1, 1_000, f"{path}.spell.uses", "uses")
                if not spec.spell.strikes:
                    raise SchemaError(f"{path}.spell.strikes", "a spell needs at least one strike")
            if not spec.attacks and spec.spell is None:
                raise SchemaError(f"{path}.attacks", "a combatant needs at least one attack (or a spell)")
            phases: dict[str, list[int]] = {}
            for j, strike in enumerate(spec.attacks):
                _aimed(strike, f"{path}.attacks[{j}]")
                phases.setdefault(procedure.phase_of(strike), []).append(j)
            _tactic_fields(ruleset, procedure, spec, path)
            procedure.check_tactic(ruleset, spec, phases, path)
            if not isinstance(spec.attacker, dict):
                raise SchemaError(f"{path}.attacker", "expected an object")
            groups.append(Group(len(groups), s, spec, path, phases, spec.attacker, spec.initiative))
            for k in range(spec.count):
                member = spec.name if spec.count == 1 else f"{spec.name} {k + 1}"
                ids.append(member)
                member_group.append(len(groups) - 1)
                if spec.position is not None:
                    positions.append((spec.position[0] + 5.0 * k, spec.position[1]))
                else:
                    positions.append((5.0 * rank, 30.0 * s))
                rank += 1
    seen: dict[str, int] = {}
    for m, member in enumerate(ids):
        if member in seen and seen[member] != member_group[m]:
            raise SchemaError(f"{groups[member_group[m]].path}.name",
                              f"member {member!r} would share its name with another combatant")
        seen[member] = member_group[m]
    for g in groups:
        focus = g.spec.tactic.focus
        if focus is not None and focus not in names and focus not in seen:
            raise SchemaError(f"{g.path}.tactic.focus", f"no combatant or group is named {focus!r}")
        for j, other in enumerate(g.spec.nearby):
            if other not in names and other not in seen:
                raise SchemaError(f"{g.path}.nearby[{j}]", f"no combatant or group is named {other!r}")
    setup = ruleset.fight_setup(scenario.initiative, sides, "$.initiative")
    compiled = Compiled(source, ruleset, scenario.name, sides, groups, ids, member_group, positions, setup,
                        scenario.max_rounds, has_morale and any(g.spec.morale is not None for g in groups),
                        _morale_units(sides, groups))
    procedure.check_scenario(compiled)
    _check_initiative(compiled)
    _compile_pairs(compiled)
    return compiled


def _tactic_fields(ruleset: Any, procedure: Any, spec: CombatantSpec, path: str) -> None:
    """A tactic field (or combatant field) the ruleset's round does not read keeps its
    default: one set is refused, naming the rulesets whose round reads it."""
    checks: list[tuple[str, str, Any, Any, str, str]] = [
        (f"{path}.tactic.{name}", name, default, spec.tactic, "tactics", "tactic ")
        for name, default in TACTIC_DEFAULTS.items()]
    checks += [(f"{path}.{name}", name, default, spec, "fields", "") for name, default in COMBATANT_DEFAULTS.items()]
    for where, name, default, holder, listed, what in checks:
        if getattr(holder, name) != default and name not in getattr(procedure, listed):
            owners = [f"{other.name} ({rule})" for other in map(rulesets.get, rulesets.names())
                      for rule in [getattr(other.fight_procedure(), listed).get(name)] if rule]
            raise RulesError(where, f"the {ruleset.title or ruleset.name} ruleset has no {what}{name}"
                                    + (f": it belongs to {', '.join(owners)}" if owners else ""))


def _morale_units(sides: list[str], groups: list[Group]) -> list[tuple[str, int, list[int]]]:
    """OS-4 "one check per side": a unit per side of the groups with no `morale_group`,
    and one per `morale_group` name (which belongs to one side, and is no side's name)."""
    units: dict[str, tuple[str, int, list[int]]] = {}
    for g in groups:
        name = g.spec.morale_group or sides[g.side]
        if g.spec.morale_group is not None and (name in sides or units.get(name, (name, g.side))[1] != g.side):
            raise SchemaError(f"{g.path}.morale_group", f"morale group {name!r} is a side's name or is used on"
                                                        " another side: a morale group is part of one side")
        units.setdefault(name, (name, g.side, []))[2].append(g.index)
    return list(units.values())


def _check_initiative(sc: Compiled) -> None:
    """Roll a throwaway initiative once: its errors (an ER combatant without Agility) name
    the scenario field before any fight starts."""
    actors = [Actor(member, sc.sides[sc.groups[g].side],
                    sc.groups[g].attacker, sc.groups[g].initiative, sc.groups[g].path)
              for member, g in zip(sc.member_ids, sc.member_group)]
    sc.ruleset.fight_initiative(sc.setup, actors, sc.sides, 1, Dice.from_seed(0), 0)


def _compile_pairs(sc: Compiled) -> None:
    """Compile each group's strikes at each enemy group (all of them when few; else each
    group's at one enemy and one enemy's at each group, the rest on first use)."""
    pairs = [(g, phase, t) for g in sc.groups for phase in [*g.phases, *(["spell"] if g.spec.spell else [])]
             for t in sc.groups if t.side != g.side]
    if len(pairs) > EAGER_PAIRS:
        first: dict[tuple[int, str], tuple[Group, str, Group]] = {}
        last: dict[int, tuple[Group, str, Group]] = {}
        for g, phase, t in pairs:
            first.setdefault((g.index, phase), (g, phase, t))
            last.setdefault(t.index, (g, phase, t))
        pairs = list({(g.index, p, t.index): (g, p, t) for g, p, t in [*first.values(), *last.values()]}.values())
    for g, phase, t in pairs:
        sc.plan(g.index, phase, t.index)
