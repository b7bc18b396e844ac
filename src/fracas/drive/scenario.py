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
from typing import Any, Literal, Optional

import msgspec

from .. import rulesets
from ..errors import LimitError, RequestError, RulesError, SchemaError
from ..requests import check_range, convert, key_path, parse_json, shown, type_name
from ..dice import Dice
from ..rulesets.base import Actor, Ruleset, moved
from ..rulesets.fight import Field
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
    """How a combatant picks its target and when it leaves the fight: the fields every round
    reads. A ruleset's round adds its own choices (defending, parrying, ...), which a
    scenario of another ruleset refuses, naming the ruleset."""

    #: nearest: the closest standing enemy; weakest: the one with the least health left;
    #: random: any standing enemy, by a die; focus: the combatant or group named by
    #: `focus` while one stands, then the nearest.
    target: Literal["nearest", "weakest", "random", "focus"] = "nearest"
    focus: Optional[str] = None
    #: broken: leaves the fight when its group's morale breaks (as its ruleset's round
    #: says); surrender: gives up (a round with surrender); never: fights on.
    flee: Literal["broken", "surrender", "never"] = "broken"
    #: Leaves the fight when its health ("hp") is at or below this.
    flee_at: Optional[int] = None


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
    #: The members of a side that check morale together (a ruleset with morale rules): one
    #: check per side by default; combatants naming a group check apart from the rest of it.
    morale_group: Optional[str] = None
    spell: Optional[Spell] = None
    position: Optional[tuple[float, float]] = None
    label: Optional[str] = None


class Scenario(_Spec):
    sides: dict[str, list[Any]]
    #: The ruleset (the default ruleset when absent).
    ruleset: Optional[str] = None
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
    defs["ScenarioFile"]["properties"]["ruleset"] = {
        "type": "string", "enum": sorted(rulesets.names()),
        "description": f"its ruleset; {rulesets.DEFAULT} when absent (the default ruleset)"}
    defs["ScenarioFile"]["properties"]["max_rounds"].update(minimum=1, maximum=MAX_ROUNDS)
    combatant = defs["CombatantSpec"]["properties"]
    combatant["count"].update(minimum=1, maximum=MAX_MEMBERS)
    combatant["hp"].update(minimum=1, description="its health: Body, hit points or Stamina Points, as its ruleset"
                          " names its first pool (docs/rules)")
    combatant["injury"]["description"] = ("a second health pool, for a ruleset whose round has one; others"
                                          " leave it out")
    combatant["attacker"]["description"] = "the attacker fields of an attack request of the ruleset"
    combatant["target"]["description"] = "the target fields of an attack request of the ruleset"
    combatant["attacks"]["description"] = "strikes of an attack request, without target"
    combatant["morale"].update(minimum=2, maximum=12)
    combatant["morale_modifier"].update(minimum=-2, maximum=2)
    combatant["morale_group"]["description"] = ("members of a side that check morale apart from the rest of it"
                                                " (a ruleset with morale rules; default: one check per side)")
    # Each round's own fields, under its ruleset's name (a scenario of another refuses them).
    for name in sorted(rulesets.names()):
        procedure = rulesets.get(name).fight_procedure()
        for holder, listed in ((combatant, "fields"), (defs["Tactic"]["properties"], "tactics")):
            for field_name, field in getattr(procedure, listed, {}).items():
                said = f"{name}: {field.doc} ({field.rule})"
                if field_name in holder:  # two rounds read it
                    holder[field_name]["description"] += f"; {said}"
                    continue
                holder[field_name] = {**_field_schema(field.type), "default": msgspec.to_builtins(field.default),
                                      **dict(field.schema), "description": said}
    return schema


def _field_schema(kind: Any) -> dict[str, Any]:
    """The JSON Schema of one field's type (inline: no `$defs`)."""
    found: dict[str, Any] = msgspec.json.schema(kind)
    return found


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

    def actor(self, m: int) -> Actor:
        """What a ruleset's initiative (`fight_initiative`) reads of member `m`."""
        g = self.groups[self.member_group[m]]
        return Actor(self.member_ids[m], self.sides[g.side], g.attacker, g.initiative, g.path)

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
    ruleset = rulesets.get(scenario.ruleset or rulesets.DEFAULT, "$.ruleset")
    procedure = ruleset.fight_procedure()
    spec_type = combatant_type(procedure)
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
            spec = _combatant(raw, spec_type, ruleset, procedure, path)
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
    setup = ruleset.fight_setup(scenario.initiative, sides, "$.initiative")
    compiled = Compiled(source, ruleset, scenario.name, sides, groups, ids, member_group, positions, setup,
                        scenario.max_rounds, has_morale and any(g.spec.morale is not None for g in groups),
                        _morale_units(sides, groups))
    procedure.check_scenario(compiled)
    _check_initiative(compiled)
    _compile_pairs(compiled)
    return compiled


#: Each round's combatant type: the shared fields and its procedure's own (`combatant_type`).
_TYPES: dict[type, type[CombatantSpec]] = {}


def combatant_type(procedure: type) -> type[CombatantSpec]:
    """The combatant of a scenario whose round is `procedure`: `CombatantSpec` with the
    combatant fields the procedure declares (`fields`) and a `Tactic` with its tactic fields
    (`tactics`), each a `Field`'s type and default; any other field is refused."""
    made = _TYPES.get(procedure)
    if made is not None:
        return made
    tactics: dict[str, Field] = getattr(procedure, "tactics", {})
    fields: dict[str, Field] = getattr(procedure, "fields", {})
    tactic = msgspec.defstruct("Tactic", [(n, f.type, f.default) for n, f in tactics.items()], bases=(Tactic,),
                               kw_only=True, forbid_unknown_fields=True)
    spec: type[CombatantSpec] = msgspec.defstruct(  # type: ignore[assignment]  # a CombatantSpec subclass
        "CombatantSpec", [("tactic", tactic, msgspec.field(default_factory=tactic)),
                          *((n, f.type, f.default) for n, f in fields.items())],
        bases=(CombatantSpec,), kw_only=True, forbid_unknown_fields=True)
    _TYPES[procedure] = spec
    return spec


def _owners(name: str, listed: str) -> dict[str, Field]:
    """The registered rulesets whose round declares `name` among its `listed` fields."""
    found = {}
    for other in map(rulesets.get, rulesets.names()):
        field = getattr(other.fight_procedure(), listed, {}).get(name)
        if isinstance(field, Field):
            found[other.name] = field
    return found


def _combatant(raw: Any, spec_type: type[CombatantSpec], ruleset: Any, procedure: Any, path: str) -> CombatantSpec:
    """A scenario's combatant, decoded as its ruleset's round reads it. A field another
    ruleset's round reads is refused naming that ruleset, unless it holds that field's
    default (which says nothing: a scenario written for several rulesets)."""
    if isinstance(raw, dict):
        raw = _foreign(raw, getattr(procedure, "fields", {}), "fields", ruleset, path, "", set(CombatantSpec.__struct_fields__))
        tactic = raw.get("tactic")
        if isinstance(tactic, dict):
            kept = _foreign(tactic, getattr(procedure, "tactics", {}), "tactics", ruleset, f"{path}.tactic", "tactic ",
                            set(Tactic.__struct_fields__))
            if kept is not tactic:
                raw = {**raw, "tactic": kept}
    return convert(raw, spec_type, path)


def _foreign(raw: dict[str, Any], own: dict[str, Field], listed: str, ruleset: Any, path: str, what: str,
             shared: set[str]) -> dict[str, Any]:
    """`raw` without the other rulesets' fields that hold their default; one that does not
    is refused, naming the rulesets whose round reads it."""
    kept = raw
    for name, value in raw.items():
        if name in shared or name in own:
            continue
        owners = _owners(name, listed)
        if not owners:
            continue  # unknown everywhere: the decoder refuses it as such
        if all(value == field.default for field in owners.values()):
            if kept is raw:
                kept = dict(raw)
            del kept[name]
            continue
        named = ", ".join(f"{other} ({field.rule})" for other, field in owners.items())
        raise RulesError(f"{path}.{name}", f"the {ruleset.title or ruleset.name} ruleset has no {what}{name}:"
                                           f" it belongs to {named}")
    return kept


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
    actors = [sc.actor(m) for m in range(len(sc.member_ids))]
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
