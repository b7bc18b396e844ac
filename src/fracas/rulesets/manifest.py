"""A ruleset declares itself: the `manifest.toml` in its folder.

Every folder `fracas/rulesets/<name>/` with a `manifest.toml` is a ruleset (package
discovery), and so is every package another distribution names in the entry-point
group `fracas.rulesets` (a third-party ruleset: `[project.entry-points."fracas.rulesets"]
d6-pool = "d6pool"`, the package whose folder holds the manifest). The registry, the
bridge's method table, the CLI's ruleset names, the docs index and the spec's ruleset
list are all read from the manifests; nothing else names a ruleset.

    name = "enchanted-realms"          # what requests give in "ruleset"
    id = "er"                          # the short ID: rule IDs (ER-1), --ruleset er
    title = "Enchanted Realms"
    object = "ENCHANTED_REALMS"        # the Ruleset instance in the package
    kinds = ["attack", "bulk", "initiative", "compete", "impale"]
    rules = "docs/rules/enchanted-realms.md"   # its rules page (from the checkout's top, or
                                               # a file in the folder)
    status = "resolved: ER-1 … ER-23"  # the docs index's status column
    examples = ["er-skeleton-horde"]   # example scenarios: `examples/<name>.json` in the
                                       # folder, or one shipped in fracas.scenarios
    clients = ["python", "roll20", "foundry"]  # who resolves it: Python always
    order = 1                          # optional: where it lists (built-ins first)
    default = true                     # optional: the ruleset of a request naming none
    row_kernel = "success-count"       # optional: the compiled row kernel mode it runs on
                                       # (its object a rows.RowRuleset of that mode)
    [constants]                        # optional: its own numbers, names and tables
    er_stray_shift = 2
    [messages]                         # optional: its own message templates
    flee_negative = "…{moved} (ER-20)"       # `{name}` filled in by the caller
    [requests]                         # one request of each kind: the conformance suite
                                       # (tests/conformance/) compiles, rolls and checks them
    [client]                           # optional: how the VTT clients build its requests and
                                       # show its results (contract.js's CLIENT; below)

A ruleset's own constants and messages are in its manifest: those only its code reads,
and the messages citing only its rule IDs (`fracas/spec/facts.toml` keeps what fracas
shares, and says the rule). A key is lower-case letters, digits and underscores; a
constant is a number, string or boolean, or an array or table of them; a message's
`{name}` placeholders are plain names. Its code reads them as `manifest.constants[key]`
and `manifest.say(key, **values)`. `[client]` (`CLIENT_KEYS` says its keys) is read by no
Python code: `python -m fracas.spec` writes it into both clients' contract.js, whose
hand-written code names no ruleset and draws these from it instead. For a built-in ruleset `python -m fracas.spec` also
writes them into the generated files beside the shared facts (the constant upper-cased:
`mr_reach` → `fracas._facts.MR_REACH` and facts.js's; the message into
`MESSAGES`, said by `fracas.requests.say` and the Roll20 resolver's `say`), so the names
are one namespace: registration refuses a constant or message named by the shared facts
or by another registered ruleset's manifest (prefix yours with the short ID). A ruleset
installed as a separate package is in no generated file: its code reads its manifest.
"""

from __future__ import annotations

import dataclasses
import re
import string
import sys
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Optional

from ..errors import FracasError


class RulesetInvalid(FracasError, ValueError):
    """A ruleset that does not keep the protocol (a missing manifest field, a kind without
    its request type or calls, a bulk job without `groups`): a programmer's error, raised
    when the ruleset registers or when a driver first meets what it compiled.

    (Here, not in `fracas.rulesets.base`, which re-exports it: the manifests are read, for
    `fracas --help` and the registry's listing, without importing the protocol's module.)"""

#: The file that makes a folder a ruleset.
FILENAME = "manifest.toml"
#: The entry-point group third-party rulesets are found in.
ENTRY_POINTS = "fracas.rulesets"
#: Who may resolve a ruleset: the Python engine (always), the Roll20 Mod script's offline
#: resolver, the Foundry module's own dialogs. A ruleset without "roll20" is resolved
#: through the relay and the bridge.
CLIENTS = ("python", "roll20", "foundry")

_REQUIRED: dict[str, type] = {"name": str, "id": str, "title": str, "object": str, "kinds": list, "rules": str,
                              "status": str, "examples": list, "clients": list}
_OPTIONAL: dict[str, type] = {"order": int, "default": bool, "row_kernel": str, "constants": dict,
                              "messages": dict, "requests": dict, "client": dict}
#: The modes of the compiled row kernel a ruleset may declare it runs on: "strike-rows"
#: (d20 attack rows: Worldwalker, Cartyrion, old-school) and "success-count" (dice pools,
#: `rows.pool_row`). The object must agree: a `rows.RowRuleset` whose `Rules.kernel` is it.
ROW_KERNEL_MODES = ("strike-rows", "success-count")
#: The keys of a manifest's `[client]` table: how a client draws the ruleset's cards and
#: builds its initiative, and how the Roll20 Mod reads its options, as data (neither client
#: has code per ruleset; issue 45).
#: Every key is optional: without one a card shows each strike's values in its result
#: layout's order and rolls no dice of them.
CLIENT_KEYS: dict[str, str] = {
    "strike": 'how a strike reads and which dice show: "d20" (its attack_roll, natural, attack_bonus and'
              ' attack_total against `against`) or "pool" (a pool of its die: dice, die, faces, pool)',
    "against": "the strike's field a d20 is rolled against (tn, ac): the card says 'vs TN 14'",
    "split": "the per-target result fields a card shows beside the damage (stamina, injury); with two, the"
             " Roll20 Mod puts the first on the Body bar and the second on the campaign's injury bar (CT-4)",
    "initiative": '"combatant" (each combatant rolls: the request\'s combatants) or "side" (the party and'
                  " its opponents roll as sides)",
    "initiative_flags": "per combatant: the Combatant fields read from the actor's flags.fracas.<name>.<field>"
                        " (none: from the system sheet through the module's mapping)",
    "initiative_options": "side initiative: the request's option fields and their values when the caller"
                          " gives none (ambush = \"none\")",
    "initiative_die": "the faces of the initiative die: each side's, or each combatant's on the card (none:"
                      " a d10 per combatant, a d6 per side)",
    "initiative_rule": "the rule ID (of its rules page) an initiative card and its errors cite",
    "fight_sides": "a whole fight's number of sides (0: any): the Mod refuses a round of another count",
    "fight_rule": "the rule ID a refused count of sides cites (CT-1)",
    "fight_party": "the scenario's initiative option that names its party side (party: the first side)",
    "help": "the option list the Roll20 Mod's help gives for `--ruleset NAME` (after its title)",
    "switches": "options that build a nested request field as a flag with its modifiers (WW-6: --two-weapon"
                " --talent T): field -> {parts, what, rule, members: option -> [member, default]}",
    "choices": "options that build a nested request field as one of several (WW-5: --block N | --dodge N):"
               " field -> {part, options, key, value, members}",
}
CLIENT_TYPES: dict[str, type] = {"strike": str, "against": str, "split": list, "initiative": str,
                                  "initiative_flags": list, "initiative_options": dict, "initiative_die": int,
                                  "initiative_rule": str, "fight_sides": int, "fight_rule": str,
                                  "fight_party": str, "help": str, "switches": dict, "choices": dict}
CLIENT_CHOICES = {"strike": ("d20", "pool"), "initiative": ("combatant", "side")}


@dataclasses.dataclass(frozen=True)
class Manifest:
    """One ruleset's `manifest.toml`, checked."""

    name: str
    id: str
    title: str
    object: str
    kinds: tuple[str, ...]
    rules: str
    status: str
    examples: tuple[str, ...]
    clients: tuple[str, ...]
    #: Where it came from: the file's place, for errors and the docs.
    source: str
    #: The package that holds it (`fracas.rulesets.er`, or a third-party package).
    package: str
    order: int = 1000
    default: bool = False
    row_kernel: Optional[str] = None
    #: Its own numbers, names and tables (`[constants]`; read-only): `manifest.constants["faces"]`.
    constants: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    #: Its own message templates (`[messages]`), said with `say(key, **values)`.
    messages: dict[str, str] = dataclasses.field(default_factory=dict)
    requests: dict[str, Any] = dataclasses.field(default_factory=dict)
    #: How a client draws its results (`[client]`, CLIENT_KEYS; read-only).
    client: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def say(self, key: str, **values: Any) -> str:
        """One of its own message templates, filled in (`{name}` placeholders)."""
        try:
            return self.messages[key].format(**values)
        except KeyError as exc:
            raise RulesetInvalid(f"{self.source}: no message {key!r} in [messages] (or no value for {exc})") from None

    @property
    def rules_page(self) -> str:
        """Its rules page in the docs tree (`docs/rules/` beside the index): the page itself
        when `rules` is there, else `<name>.md`, which the docs site fills from the folder."""
        if self.rules.startswith("docs/rules/"):
            return self.rules[len("docs/rules/"):]
        return f"{self.name}.md"

    def rules_text(self) -> str:
        """The text of a rules page kept in the ruleset's folder (`rules` not under docs/)."""
        from importlib import resources

        return resources.files(self.package).joinpath(self.rules).read_text(encoding="utf-8")

    def docs_row(self, rules_link: str) -> str:
        """Its row of the docs index table (docs/rules/README.md)."""
        default = " (the default)" if self.default else ""
        clients = ", ".join(self.clients)
        return f"| {self.title} | `{self.name}`{default} | {self.status} | {clients} | {rules_link} |"


def parse(text: str, source: str, package: str, data: Optional[dict[str, Any]] = None) -> Manifest:
    """A manifest from its TOML text; `source` names the file in every error. `data`: the
    text's TOML already read (`_read_toml`); every check below runs all the same."""
    if data is None:
        data = _toml(text, source)
    for field in _REQUIRED:
        if field not in data:
            raise RulesetInvalid(f"{source}: missing field {field!r} (a manifest has "
                                 f"{', '.join(_REQUIRED)})")
    for field, value in data.items():
        expected = _REQUIRED.get(field) or _OPTIONAL.get(field)
        if expected is None:
            raise RulesetInvalid(f"{source}: unknown field {field!r} (fields: "
                                 f"{', '.join([*_REQUIRED, *_OPTIONAL])})")
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise RulesetInvalid(f"{source}: field {field!r} must be a TOML {_TOML[expected]}, got {value!r}")
        if isinstance(value, str) and not value.strip():
            raise RulesetInvalid(f"{source}: field {field!r} is empty")
        if isinstance(value, list) and not all(isinstance(item, str) and item for item in value):
            raise RulesetInvalid(f"{source}: field {field!r} must list names (strings), got {value!r}")
    if not data["kinds"]:
        raise RulesetInvalid(f"{source}: field 'kinds' lists no kind of request")
    clients = data["clients"]
    if "python" not in clients:
        raise RulesetInvalid(f"{source}: field 'clients' must include \"python\" (the engine resolves every ruleset)")
    for client in clients:
        if client not in CLIENTS:
            raise RulesetInvalid(f"{source}: unknown client {client!r} in 'clients' (one of: {', '.join(CLIENTS)})")
    if data.get("row_kernel") not in (None, *ROW_KERNEL_MODES):
        raise RulesetInvalid(f"{source}: unknown row_kernel {data['row_kernel']!r} (one of: "
                             f"{', '.join(ROW_KERNEL_MODES)})")
    for key in data.get("requests", {}):
        if key not in data["kinds"]:
            raise RulesetInvalid(f"{source}: [requests] {key}: not one of its kinds ({', '.join(data['kinds'])})")
    for key, value in data.get("constants", {}).items():
        _check_constant(source, key, value)
    for key, template in data.get("messages", {}).items():
        _check_message(source, key, template)
    _check_client(source, data.get("client", {}))
    return Manifest(name=data["name"], id=data["id"].lower(), title=data["title"], object=data["object"],
                    kinds=tuple(data["kinds"]), rules=data["rules"], status=data["status"],
                    examples=tuple(data["examples"]), clients=tuple(clients), source=source, package=package,
                    order=data.get("order", 1000), default=data.get("default", False),
                    row_kernel=data.get("row_kernel"), constants=MappingProxyType(dict(data.get("constants", {}))),
                    messages=dict(data.get("messages", {})), requests=dict(data.get("requests", {})),
                    client=MappingProxyType(dict(data.get("client", {}))))


def _toml(text: str, source: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):  # imported here: `import fracas` reads no manifest
        import tomllib
    else:  # Python 3.10: the tomli backport is a dependency there
        import tomli as tomllib
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesetInvalid(f"{source}: not TOML ({exc})") from None
    return data


def _read_toml(folder: str, text: str, source: str) -> dict[str, Any]:
    """The TOML of the manifest `text` in `folder`, as an earlier reading of the very same text
    kept it (`__pycache__/manifest.toml.<tag>.marshal`, beside the file as Python keeps a
    module's bytecode, and written when Python writes bytecode); else read now, and kept.
    Reading the built-in manifests' TOML anew was a tenth of `fracas --help`."""
    import marshal
    import os

    kept = os.path.join(folder, "__pycache__", f"{FILENAME}.{sys.implementation.cache_tag}.marshal")
    try:
        with open(kept, "rb") as handle:
            was, data = marshal.loads(handle.read())
        if was == text and isinstance(data, dict):
            return data
    except (OSError, ValueError, EOFError, TypeError):
        pass  # none kept, or not this text's
    data = _toml(text, source)
    if not sys.dont_write_bytecode:
        try:
            os.makedirs(os.path.dirname(kept), exist_ok=True)
            part = f"{kept}.{os.getpid()}"
            with open(part, "wb") as handle:
                handle.write(marshal.dumps((text, data)))
            os.replace(part, kept)
        except (OSError, ValueError):  # a read-only install, or a value marshal cannot keep (a TOML date)
            pass
    return data


_TOML = {str: "string", list: "array", int: "integer", bool: "boolean", dict: "table"}

#: A constant's or a message's key: upper-cased (constants) it is a name in Python and
#: JavaScript, so lower-case letters, digits and underscores, starting with a letter.
_KEY = re.compile(r"[a-z][a-z0-9_]*\Z")


def _check_key(source: str, table: str, key: str) -> None:
    if not _KEY.match(key):
        raise RulesetInvalid(f"{source}: [{table}] {key!r}: a key is lower-case letters, digits and underscores,"
                             " starting with a letter (it becomes a name in Python and JavaScript)")


def _check_constant(source: str, key: str, value: Any, where: str = "") -> None:
    """A `[constants]` entry: a key as `_KEY` says, and a value JSON can carry (a number,
    string, boolean, or arrays and tables of them; not a TOML date or time)."""
    if not where:
        _check_key(source, "constants", key)
    place = where or key
    if isinstance(value, dict):
        for inner, item in value.items():
            _check_constant(source, key, item, f"{place}.{inner}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_constant(source, key, item, f"{place}[{index}]")
    elif not isinstance(value, (bool, int, float, str)):
        raise RulesetInvalid(f"{source}: [constants] {place} is a TOML {type(value).__name__}: a constant is a"
                             " number, string or boolean, or an array or table of them")


def _check_message(source: str, key: str, template: Any) -> None:
    """A `[messages]` entry: a non-empty string whose `{name}` placeholders are plain names."""
    _check_key(source, "messages", key)
    if not isinstance(template, str) or not template.strip():
        raise RulesetInvalid(f"{source}: [messages] {key} must be a non-empty string template, got {template!r}")
    try:
        fields = [name for _text, name, _spec, _conv in string.Formatter().parse(template) if name is not None]
    except ValueError as exc:
        raise RulesetInvalid(f"{source}: [messages] {key}: {exc} (write {{{{ and }}}} for a literal brace)") from None
    for name in fields:
        if not name.isidentifier():
            raise RulesetInvalid(f"{source}: [messages] {key}: placeholder {{{name}}} is not a plain name"
                                 " ({value}, {most}: the caller fills each in by name)")


def _check_client(source: str, client: dict[str, Any]) -> None:
    """The `[client]` table: known keys (CLIENT_KEYS), each of its type; names are field names."""
    for key, value in client.items():
        expected = CLIENT_TYPES.get(key)
        if expected is None:
            raise RulesetInvalid(f"{source}: [client] {key}: unknown key (keys: {', '.join(CLIENT_KEYS)})")
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise RulesetInvalid(f"{source}: [client] {key} must be a TOML {_TOML[expected]}, got {value!r}")
        if key in CLIENT_CHOICES and value not in CLIENT_CHOICES[key]:
            raise RulesetInvalid(f"{source}: [client] {key}: {value!r} is not one of {', '.join(CLIENT_CHOICES[key])}")
        names = value if isinstance(value, list) else list(value) if isinstance(value, dict) else \
            [value] if key in ("against", "fight_party") else []
        for name in names:
            if not isinstance(name, str) or not re.match(r"[a-z_][a-z0-9_]*\Z", name):
                raise RulesetInvalid(f"{source}: [client] {key}: {name!r} is not a field name")
        if key == "initiative_options" and isinstance(value, dict):
            for name, item in value.items():
                if not isinstance(item, (str, int, bool)):
                    raise RulesetInvalid(f"{source}: [client] initiative_options.{name}: a string, integer or boolean")
        if key == "initiative_die" and isinstance(value, int) and value < 2:
            raise RulesetInvalid(f"{source}: [client] initiative_die: a die has at least 2 faces, got {value}")


def clashes(mine: Manifest, shared_names: Any, shared_messages: Any, others: Any) -> Optional[str]:
    """What in `mine`'s `[constants]` and `[messages]` is already named elsewhere: by the
    shared facts (their names, upper-cased as generated, and message keys) or by another
    registered ruleset's manifest (`others`); None when nothing is. The generated files
    share one namespace, so a name means one thing everywhere."""
    for key in mine.constants:
        if key.upper() in shared_names:
            return f"[constants] {key}: {key.upper()} is a name of fracas's shared facts (fracas/spec/facts.toml)"
        for other in others:
            if any(k.upper() == key.upper() for k in other.constants):
                return f"[constants] {key}: the {other.name} ruleset's manifest ({other.source}) has it too"
    for key in mine.messages:
        if key in shared_messages:
            return f"[messages] {key}: a message of fracas's shared facts (fracas/spec/facts.toml)"
        for other in others:
            if key in other.messages:
                return f"[messages] {key}: the {other.name} ruleset's manifest ({other.source}) has it too"
    return None


def read(package: str) -> Optional[Manifest]:
    """The manifest in the folder of `package` (an importable package name), or None when
    the folder has none (a plain helper package)."""
    import importlib.util
    from importlib import resources

    try:
        spec = importlib.util.find_spec(package)
    except ModuleNotFoundError:  # a parent package is missing
        return None
    if spec is None or spec.submodule_search_locations is None:
        return None  # no such package, or a plain module
    # This imports the package: an error in it propagates (a ruleset that fails to import is
    # a broken ruleset, never one silently left out of the registry).
    where = resources.files(package).joinpath(FILENAME)
    if not where.is_file():
        return None
    return parse(where.read_text(encoding="utf-8"), _place(package), package)


def own(package: str) -> Manifest:
    """A ruleset package's own manifest (`MANIFEST = own(__name__)` in its `__init__`): `read`,
    with a missing manifest the package's mistake (`RulesetInvalid` naming it), not None."""
    found = read(package)
    if found is None:
        raise RulesetInvalid(f"the package {package!r} has no {FILENAME} in its folder (a ruleset declares itself"
                             " there: docs/ADDING_A_RULESET.md)")
    return found


def peek(package: str) -> Optional[Manifest]:
    """The manifest in the folder of `package` read without importing the package (how the
    registry discovers the built-in rulesets: a ruleset is imported on its first use), or
    None when the folder has none. A package not in a plain folder (a zip) is read as
    `read` reads it, importing it."""
    import importlib.util
    import os

    try:
        spec = importlib.util.find_spec(package)
    except ModuleNotFoundError:  # a parent package is missing
        return None
    if spec is None or spec.submodule_search_locations is None:
        return None
    folders = [folder for folder in spec.submodule_search_locations if os.path.isdir(folder)]
    if not folders:
        return read(package)
    for folder in folders:
        where = os.path.join(folder, FILENAME)
        if os.path.isfile(where):
            with open(where, encoding="utf-8") as handle:
                text = handle.read()
            return parse(text, _place(package), package, _read_toml(folder, text, _place(package)))
    return None


def _place(package: str) -> str:
    """The manifest's place as a reader finds it: `fracas/rulesets/er/manifest.toml`."""
    return package.replace(".", "/") + "/" + FILENAME
