"""The registry of rulesets: name → `Ruleset` (see `fracas.rulesets.base`).

Rulesets declare themselves (`fracas.rulesets.manifest`): every folder of this package
with a `manifest.toml`, and every package named in the entry-point group
`fracas.rulesets` of an installed distribution. A project may also register a `Ruleset`
object itself with `register()` (tests do, to prove the seam). Registration checks the
protocol (`base.check_ruleset`) and the manifest (its constants and messages named
nowhere else: `manifest.clashes`), and says what is missing and where.

Nothing is read when this package is imported (`import fracas` stays light). The first
call that asks the registry anything (`names()`, `fracas.rulesets()`, `get`, `manifests`,
`failed`, `DEFAULT`, a request, `fracas --help`) discovers the rulesets: it reads the
built-in folders' manifests, which is all that listing them needs, and scans the entry
points. A built-in ruleset's code is imported, checked and adopted on its first use
(`get`, a request naming it, `kinds()` when it has kinds of its own); an error in it is
raised there, naming its folder, as it was at import before. An installed ruleset
(entry point) is imported and registered during discovery, so one that fails to import
or register is left out with a warning at that first call, never listed, and named by
`failed()` from then on.
"""

from __future__ import annotations

import importlib
import sys
from _thread import RLock
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from .._facts import SHARED_MESSAGES, SHARED_NAMES
from ..errors import SchemaError
from . import manifest as _manifest
from .manifest import Manifest, RulesetInvalid

# The protocol's module (`base`: msgspec, the request decoder) is imported when a ruleset is
# loaded or one of its names is asked for (`rulesets.Kind`, below): listing the rulesets from
# their manifests (`fracas --help`) needs none of it.
if TYPE_CHECKING:
    from .base import KINDS, BulkJob, Kind, Result, Ruleset

_FROM_BASE = frozenset({"KINDS", "KNOWN_KINDS", "SHARED_KINDS", "BulkJob", "Kind", "Result", "Ruleset",
                        "check_ruleset"})


def __getattr__(name: str) -> Any:
    if name in _FROM_BASE or name == "base":  # `rulesets.base`, as it was once this package was imported
        base = importlib.import_module(f"{__name__}.base")  # not `from . import base`: that asks this hook
        return base if name == "base" else getattr(base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Ruleset", "BulkJob", "Result", "KINDS", "Kind", "Manifest", "RulesetInvalid", "register",
           "register_package", "unregister", "get", "names", "for_request", "kinds", "kind_named", "short_ids",
           "manifests", "docs_index", "on_change", "failed", "DEFAULT"]

#: The ruleset of a request that names none (the manifest with `default = true`).
DEFAULT = "enchanted-realms"

#: name → the registered `Ruleset`, or the `Manifest` of a built-in ruleset discovered
#: and not used yet (its code is imported on first use, `_loaded`); in listing order.
_REGISTRY: dict[str, Union[Ruleset, Manifest]] = {}

#: Installed rulesets (entry points) that failed to import or register: name → why.
_FAILED: dict[str, str] = {}

#: Discovery has run (or is running): it runs once, on the registry's first use.
_DISCOVERED = False
#: Held while discovering or loading a ruleset (the bridge and bulk threads may ask at once);
#: re-entrant, as a ruleset's import may ask the registry.
_LOCK = RLock()


def failed() -> dict[str, str]:
    """The installed rulesets left out because they failed to import or register: the entry
    point's name → what failed, naming the entry point and its distribution (`fracas doctor`
    and the bridge's `server.info` show them; the other rulesets work as usual). Asking
    discovers the rulesets, so a broken one is reported (and warned about) then."""
    _discover()
    return dict(_FAILED)


def _manifest_of(entry: Union[Ruleset, Manifest]) -> Optional[Manifest]:
    return entry if isinstance(entry, Manifest) else entry.manifest


def _loaded(name: str) -> Ruleset:
    """The registered ruleset `name`, its code imported and adopted now if this is its first use."""
    entry = _REGISTRY[name]
    if not isinstance(entry, Manifest):
        return entry
    with _LOCK:
        entry = _REGISTRY[name]
        if not isinstance(entry, Manifest):  # another thread loaded it meanwhile
            return entry
        _LOADING.add(name)
        try:
            ruleset = _object(entry)
            # The same checks as register(), without reordering (its place is its manifest's) or
            # telling on_change: the name's ruleset is the one it was, now imported.
            _admit(ruleset, entry, entry.source, reset_default=False)
        finally:
            _LOADING.discard(name)
        if name in _REGISTRY:
            _REGISTRY[name] = ruleset
        return ruleset


def register(ruleset: Ruleset, manifest: Optional[Manifest] = None, where: Optional[str] = None) -> Ruleset:
    """Add a ruleset under its `name` (replacing one of the same name); returns it.

    With its `manifest` (how discovered rulesets register), the manifest's name, title,
    rules page and kinds are the ruleset's, and must agree with what the object has.
    Raises `RulesetInvalid` naming the folder and what is missing."""
    _discover()
    place = where or (manifest.source if manifest is not None else f"ruleset {ruleset!r}")
    with _LOCK:
        _admit(ruleset, manifest, place)
        _REGISTRY[ruleset.name] = ruleset
        listing = sorted(_REGISTRY.items(), key=_listing)  # stable: equal orders keep registration order
        _REGISTRY.clear()
        _REGISTRY.update(listing)
    _changed()
    return ruleset


def _admit(ruleset: Ruleset, manifest: Optional[Manifest], place: str, reset_default: bool = True) -> None:
    """What registering checks and adopts: the manifest's clashes, facts and example
    scenarios, the protocol, the ruleset's own kinds (`RulesetInvalid` naming `place` and
    what is wrong). Nothing shared changes unless every check passes: a refused ruleset
    whose manifest says `default = true` leaves `DEFAULT` as it was, and none of its kinds
    is known."""
    if manifest is not None:
        missing = _missing_examples(manifest)
        if missing:
            raise RulesetInvalid(
                f"{manifest.source}: field 'examples' names {missing}, but no scenario file "
                + ", ".join(f"examples/{name}.json" for name in missing)
                + f" is in the package {manifest.package!r} or among the scenarios fracas ships"
                  " (put the file there, or drop the name: fracas scenarios lists the shipped ones)")
        others = [m for name, m in ((n, _manifest_of(e)) for n, e in _REGISTRY.items())
                  if m is not None and name != manifest.name]
        # A built-in ruleset's names are in the generated SHARED_* sets' file itself, and the
        # generator refuses their clash with facts.toml (fracas.spec.generate.load): only an
        # installed ruleset's are checked against the shared facts here.
        builtin = manifest.package.startswith(__name__ + ".")
        clash = _manifest.clashes(manifest, frozenset() if builtin else SHARED_NAMES,
                                  frozenset() if builtin else SHARED_MESSAGES, others)
        if clash:
            raise RulesetInvalid(f"{manifest.source}: {clash}; a name means one thing in fracas's generated"
                                 " files, so prefix the ruleset's own with its short ID")
        _adopt(ruleset, manifest)
    from .base import KNOWN_KINDS, check_ruleset

    check_ruleset(ruleset, place)
    for kind in ruleset.own_kinds:
        _load_declaring(kind.name, ruleset.name)
        other = KNOWN_KINDS.get(kind.name)
        if other is not None and other != kind:
            raise RulesetInvalid(f"{place}: its kind {kind.name!r} differs from the {kind.name!r} kind already known"
                                 f" (method {other.method}); a kind's name is one kind everywhere")
    if manifest is None or not manifest.package.startswith(__name__ + "."):
        # A built-in's commands are in fracas's generated CLI index (and its tests); one of
        # another ruleset that does not load would stop `fracas --help` for everyone.
        for kind in ruleset.own_kinds:
            _check_command(kind, place)
    # Every check passed: now what is shared learns of it.
    for kind in ruleset.own_kinds:
        KNOWN_KINDS[kind.name] = kind
    if manifest is not None and manifest.default and reset_default:
        global DEFAULT
        DEFAULT = manifest.name


def _check_command(kind: Kind, place: str) -> None:
    """The kind's `command` ("module:attribute"), if it names one, loads and is a click command."""
    if kind.command is None:
        return
    module, _, attribute = kind.command.partition(":")
    try:
        command = getattr(importlib.import_module(module), attribute)
    except Exception as error:  # noqa: BLE001 - whatever stops it loading, said with its name
        raise RulesetInvalid(f"{place}: its kind {kind.name!r} names the command {kind.command!r}, which does not"
                             f" load ({type(error).__name__}: {error})") from None
    import click

    if not isinstance(command, click.Command):
        raise RulesetInvalid(f"{place}: its kind {kind.name!r} names the command {kind.command!r}, which is"
                             f" {command!r}, not a click command")


#: Built-in rulesets being imported and adopted now (`_load_declaring` does not start them again).
_LOADING: set[str] = set()


def _load_declaring(kind: str, registering: str) -> None:
    """Load the discovered rulesets whose manifests declare the kind `kind` (other than the
    one `registering`): their `Kind` is then known, so a ruleset registered before their
    first use is checked against it as it was when every built-in registered at import."""
    from .base import KNOWN_KINDS

    if kind in KNOWN_KINDS:
        return
    for name, entry in list(_REGISTRY.items()):
        if isinstance(entry, Manifest) and kind in entry.kinds and name != registering and name not in _LOADING:
            _loaded(name)


#: Called after every register/unregister: what keeps work of a ruleset by its name (the
#: drivers' plan caches) forgets it, so a ruleset registered anew under a name never gets
#: the plans its predecessor compiled.
_ON_CHANGE: list[Callable[[], None]] = []


def on_change(callback: Callable[[], None]) -> None:
    """Call `callback` whenever a ruleset is registered or unregistered."""
    _ON_CHANGE.append(callback)


def _changed() -> None:
    for callback in _ON_CHANGE:
        callback()


def _listing(item: tuple[str, Union[Ruleset, Manifest]]) -> int:
    """Manifests with an `order` first, by it; the rest in the order they registered."""
    manifest = _manifest_of(item[1])
    return manifest.order if manifest is not None else 1000


def _adopt(ruleset: Ruleset, manifest: Manifest) -> None:
    """The manifest's facts on the ruleset; what the object sets itself must agree (the
    manifest's `default` is adopted by `_admit`, once every check has passed)."""
    for attr, value in (("name", manifest.name), ("title", manifest.title)):
        own = getattr(ruleset, attr)
        if own and own != value:
            raise RulesetInvalid(f"{manifest.source}: {attr} {value!r} but the ruleset object says {own!r}")
        setattr(ruleset, attr, value)
    declared = set(manifest.kinds)
    given = set(ruleset.request_types)
    if declared != given:
        missing = sorted(declared - given)
        extra = sorted(given - declared)
        raise RulesetInvalid(f"{manifest.source}: kinds {list(manifest.kinds)} but the ruleset has request types for "
                             f"{list(ruleset.request_types)}" + (f" (no request type for {missing})" if missing else "")
                             + (f" (not in the manifest: {extra})" if extra else ""))
    if manifest.row_kernel is not None and manifest.row_kernel != ruleset.row_kernel:
        raise RulesetInvalid(f"{manifest.source}: row_kernel {manifest.row_kernel!r} but the ruleset object "
                             + (f"runs on {ruleset.row_kernel!r}" if ruleset.row_kernel else
                                "rolls on its own calls (a fracas.rulesets.rows.RowRuleset runs on the row kernel)"))
    ruleset.doc = manifest.rules
    ruleset.manifest = manifest


def register_package(package: str, where: Optional[str] = None) -> Optional[Ruleset]:
    """Register the ruleset whose folder is the package `package` (its `manifest.toml`
    names the object); None when the folder has no manifest."""
    found = _manifest.read(package)
    if found is None:
        if where is not None:  # an entry point must lead to a ruleset
            raise RulesetInvalid(f"{where}: the package {package!r} has no {_manifest.FILENAME}")
        return None
    return register(_object(found), found)


def _object(found: Manifest) -> Ruleset:
    """The `Ruleset` its manifest names, its package imported now (registering it checks
    the rest, its example scenarios too: `_admit`)."""
    from .base import Ruleset

    module = importlib.import_module(found.package)
    ruleset = getattr(module, found.object, None)
    if not isinstance(ruleset, Ruleset):
        raise RulesetInvalid(f"{found.source}: object {found.object!r} is "
                             + ("missing from the package" if ruleset is None else f"{ruleset!r}, not a Ruleset"))
    return ruleset


def _missing_examples(manifest: Manifest) -> list[str]:
    """The manifest's example scenarios found neither in its package's `examples/` folder nor
    among the scenarios fracas ships (`fracas.scenarios`, or the checkout's examples/scenarios)."""
    if _examples_in_folders(manifest):
        return []
    from importlib import resources
    from pathlib import Path

    try:
        own: Any = resources.files(manifest.package).joinpath("examples")
    except (ImportError, TypeError):  # a manifest registered with a package that is not importable
        own = None
    shipped = [Path(__file__).resolve().parents[3] / "examples" / "scenarios"]
    try:
        shipped.append(resources.files("fracas.scenarios"))  # type: ignore[arg-type]
    except (ImportError, TypeError):  # a checkout run from src/: the folder above stands in
        pass
    return [name for name in manifest.examples
            if (own is None or not own.joinpath(f"{name}.json").is_file())
            and not any(folder.joinpath(f"{name}.json").is_file() for folder in shipped)]


def _examples_in_folders(manifest: Manifest) -> bool:
    """Every example of the manifest is a file in a plain folder where `_missing_examples`
    looks (the package's `examples/`, the checkout's or `fracas.scenarios`' folder): the
    usual case, answered without importing `importlib.resources` (a tenth of `fracas
    --help`). False leaves the answer to `_missing_examples`' reading through it."""
    import importlib.util
    import os

    package = sys.modules.get(manifest.package)
    folders = [os.path.join(folder, "examples") for folder in getattr(package, "__path__", ())]
    checkout = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))))
    folders.append(os.path.join(checkout, "examples", "scenarios"))
    try:
        spec = importlib.util.find_spec("fracas.scenarios")
    except ImportError:
        spec = None
    folders += list(spec.submodule_search_locations or ()) if spec is not None else []
    return all(any(os.path.isfile(os.path.join(folder, f"{name}.json")) for folder in folders)
               for name in manifest.examples)


def unregister(name: str) -> None:
    """Remove a ruleset (tests that registered one clean up with this)."""
    _discover()
    with _LOCK:
        removed = _REGISTRY.pop(name, None)
    if removed is not None:
        _changed()


def kinds() -> dict[str, Kind]:
    """Every kind of request a registered ruleset resolves (the shared ones first).

    A built-in ruleset not used yet is loaded only when its manifest lists a kind of its
    own: the shared kinds are `SHARED_KINDS` whoever binds them."""
    from .base import SHARED_KINDS

    _discover()
    found = {kind.name: kind for kind in SHARED_KINDS}
    for name, entry in list(_REGISTRY.items()):
        if isinstance(entry, Manifest) and all(kind in found for kind in entry.kinds):
            continue
        for bound in _loaded(name).kinds.values():
            found.setdefault(bound.kind.name, bound.kind)
    return found


def kind_named(name: str) -> Kind:
    """The kind called `name` (`KeyError` when no registered ruleset has it)."""
    return kinds()[name]


def manifests() -> list[Manifest]:
    """The manifests of the registered rulesets, in listing order (no ruleset is loaded)."""
    _discover()
    return [m for m in map(_manifest_of, list(_REGISTRY.values())) if m is not None]


def short_ids() -> dict[str, str]:
    """Short ID (`er`) → ruleset name, from the manifests."""
    return {m.id: m.name for m in manifests()}


def names() -> tuple[str, ...]:
    """The registered ruleset names, built-in first (no ruleset is loaded)."""
    _discover()
    return tuple(_REGISTRY)


def get(name: str, path: str = "$.ruleset") -> Ruleset:
    """The ruleset called `name`, or a SchemaError at `path` listing the known ones."""
    if not isinstance(name, str):
        raise SchemaError(path, f"expected str, got {_json_type(name)}")
    _discover()
    entry = _REGISTRY.get(name)
    if entry is None:
        raise SchemaError(path, f"unknown ruleset {name!r} (one of: {', '.join(_REGISTRY)})")
    return entry if not isinstance(entry, Manifest) else _loaded(name)


def _json_type(value: Any) -> str:
    """The JSON kind of a decoded value, named as msgspec names it in "expected X, got Y"."""
    for kind, name in ((bool, "bool"), (int, "int"), (float, "float"), (str, "str"), (list, "array"),
                       (dict, "object")):
        if isinstance(value, kind):
            return name
    return "null" if value is None else type(value).__name__


def for_request(request: Any) -> Ruleset:
    """The ruleset a decoded request names in `"ruleset"` (the default when absent)."""
    _discover()
    name = request.get("ruleset", DEFAULT) if isinstance(request, dict) else getattr(request, "ruleset", DEFAULT)
    return get(name)


class _Registry(ModuleType):
    """This package is also callable: `fracas.rulesets()` lists the registered names."""

    def __call__(self) -> tuple[str, ...]:
        return names()

    @property
    def DEFAULT(self) -> str:  # noqa: N802 - the module constant it always was
        """The ruleset of a request that names none: read once the rulesets are discovered,
        as a manifest (an installed one's too) may declare itself the default."""
        _discover()
        return globals()["DEFAULT"]  # type: ignore[no-any-return]

    @DEFAULT.setter
    def DEFAULT(self, value: str) -> None:  # noqa: N802
        globals()["DEFAULT"] = value


sys.modules[__name__].__class__ = _Registry



def docs_index(link: Any = None) -> str:
    """The docs index table (docs/rules/README.md) of the registered rulesets, one row each
    from its manifest; `link(manifest)` gives the rules-page cell (default: the page's name
    beside the index)."""
    def default_link(m: Manifest) -> str:
        return f"[{m.rules_page}]({m.rules_page})"

    rows = ["| ruleset | request `\"ruleset\"` | status | clients | page |", "|---|---|---|---|---|"]
    rows += [m.docs_row((link or default_link)(m)) for m in manifests()]
    return "\n".join(rows) + "\n"


def _discover() -> None:
    """Once, on the registry's first use: list every ruleset folder of this package from its
    manifest (its code is imported on first use), then import and register every entry
    point's (a broken one is left out, named by `failed()`, with a warning)."""
    global _DISCOVERED, DEFAULT
    if _DISCOVERED:
        return
    with _LOCK:
        if _DISCOVERED:
            return
        _DISCOVERED = True
        import pkgutil

        for info in pkgutil.iter_modules(__path__, prefix=__name__ + "."):
            if not info.ispkg:
                continue
            found = _manifest.peek(info.name)
            if found is None:
                continue
            _REGISTRY[found.name] = found
            if found.default:
                DEFAULT = found.name
        listing = sorted(_REGISTRY.items(), key=_listing)
        _REGISTRY.clear()
        _REGISTRY.update(listing)
        _discover_installed()


def _may_name_entry_points() -> bool:
    """False only when no installed distribution can have an entry point in the group
    `fracas.rulesets`, found without importing `importlib.metadata` (a tenth of `fracas
    --help`): every finder on `sys.meta_path` that lists distributions is the standard
    path finder, every `sys.path` entry is a folder (or absent), and no `entry_points.txt`
    of a `*.dist-info` or `*.egg-info` folder in them mentions the group. Anything else
    (a zip, an egg, another finder, a mention) is left to `importlib.metadata`."""
    import os
    from importlib.machinery import PathFinder

    for finder in sys.meta_path:
        if finder is not PathFinder and getattr(finder, "find_distributions", None) is not None:
            return True
    group = _manifest.ENTRY_POINTS.encode()
    for entry in sys.path:
        folder = entry or "."
        if not os.path.isdir(folder):
            if os.path.exists(folder):  # a zip (or a file) on the path
                return True
            continue
        if folder.lower().endswith(".egg"):
            return True
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if not name.lower().endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(folder, name, "entry_points.txt"), "rb") as handle:
                    if group in handle.read():
                        return True
            except OSError:  # no entry points (or an egg-info file)
                continue
    return False


def _discover_installed() -> None:
    """Import and register every package named in the entry-point group `fracas.rulesets`."""
    if not _may_name_entry_points():
        return
    from importlib import metadata

    for point in metadata.entry_points(group=_manifest.ENTRY_POINTS):
        dist = getattr(point, "dist", None)
        where = (f"entry point {point.name!r} = {point.value!r} (group {_manifest.ENTRY_POINTS}"
                 + (f", distribution {dist.name} {dist.version}" if dist is not None else "") + ")")
        # An installed ruleset that fails is left out, loudly, and nothing else is: one broken
        # plug-in must not stop `import fracas` (every command, the bridge) for everyone.
        try:
            package = point.value.split(":", 1)[0]
            found = _manifest.read(package)  # imports the package
            if found is None:
                raise RulesetInvalid(f"{where}: the package {package!r} has no {_manifest.FILENAME}")
            if found.name != point.name:  # refused before it registers: nothing of it is adopted
                raise RulesetInvalid(f"{where}: the entry point's name must be the ruleset's name {found.name!r}"
                                     f" ({found.source})")
            register(_object(found), found)
        # Any failure of a plug-in's import or registration; SystemExit too (a plug-in that
        # calls sys.exit() when a dependency is missing must not end every fracas command).
        except (Exception, SystemExit) as error:  # noqa: BLE001
            said = str(error) if isinstance(error, RulesetInvalid) else f"{type(error).__name__}: {error}"
            why = said if said.startswith(where) else f"{where}: {said}"  # always which entry point and package
            _FAILED[point.name] = f"{why}; the ruleset {point.name!r} is left out (fix or uninstall it)"
            import logging

            logging.getLogger("fracas").warning("%s", _FAILED[point.name])
