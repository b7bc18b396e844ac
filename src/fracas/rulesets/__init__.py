"""The registry of rulesets: name → `Ruleset` (see `fracas.rulesets.base`).

Rulesets declare themselves (`fracas.rulesets.manifest`): every folder of this package
with a `manifest.toml`, and every package named in the entry-point group
`fracas.rulesets` of an installed distribution, registers when this package is first
imported. A project may also register a `Ruleset` object itself with `register()`
(tests do, to prove the seam). Registration checks the protocol (`base.check_ruleset`)
and the manifest (its constants and messages named nowhere else: `manifest.clashes`), and
says what is missing and where.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
import sys
from types import ModuleType
from typing import Any, Callable, Optional

from .._facts import SHARED_MESSAGES, SHARED_NAMES
from ..errors import SchemaError
from . import manifest as _manifest
from .base import KINDS, KNOWN_KINDS, SHARED_KINDS, BulkJob, Kind, Result, Ruleset, RulesetInvalid, check_ruleset
from .manifest import Manifest

__all__ = ["Ruleset", "BulkJob", "Result", "KINDS", "Kind", "Manifest", "RulesetInvalid", "register",
           "register_package", "unregister", "get", "names", "for_request", "kinds", "kind_named", "short_ids",
           "manifests", "docs_index", "on_change", "failed", "DEFAULT"]

#: The ruleset of a request that names none (the manifest with `default = true`).
DEFAULT = "enchanted-realms"

_REGISTRY: dict[str, Ruleset] = {}

#: Installed rulesets (entry points) that failed to import or register: name → why.
_FAILED: dict[str, str] = {}


def failed() -> dict[str, str]:
    """The installed rulesets left out because they failed to import or register: the entry
    point's name → what failed, naming the entry point and its distribution (`fracas doctor`
    and the bridge's `server.info` show them; the other rulesets work as usual)."""
    return dict(_FAILED)


def register(ruleset: Ruleset, manifest: Optional[Manifest] = None, where: Optional[str] = None) -> Ruleset:
    """Add a ruleset under its `name` (replacing one of the same name); returns it.

    With its `manifest` (how discovered rulesets register), the manifest's name, title,
    rules page and kinds are the ruleset's, and must agree with what the object has.
    Raises `RulesetInvalid` naming the folder and what is missing."""
    place = where or (manifest.source if manifest is not None else f"ruleset {ruleset!r}")
    if manifest is not None:
        others = [r.manifest for r in _REGISTRY.values() if r.manifest is not None and r.name != manifest.name]
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
    check_ruleset(ruleset, place)
    for kind in ruleset.own_kinds:
        other = KNOWN_KINDS.get(kind.name)
        if other is not None and other != kind:
            raise RulesetInvalid(f"{place}: its kind {kind.name!r} differs from the {kind.name!r} kind already known"
                                 f" (method {other.method}); a kind's name is one kind everywhere")
        KNOWN_KINDS[kind.name] = kind
    _REGISTRY[ruleset.name] = ruleset
    listing = sorted(_REGISTRY.items(), key=_listing)  # stable: equal orders keep registration order
    _REGISTRY.clear()
    _REGISTRY.update(listing)
    _changed()
    return ruleset


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


def _listing(item: tuple[str, Ruleset]) -> int:
    """Manifests with an `order` first, by it; the rest in the order they registered."""
    manifest = item[1].manifest
    return manifest.order if manifest is not None else 1000


def _adopt(ruleset: Ruleset, manifest: Manifest) -> None:
    """The manifest's facts on the ruleset; what the object sets itself must agree."""
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
    if manifest.default:
        global DEFAULT
        DEFAULT = manifest.name


def register_package(package: str, where: Optional[str] = None) -> Optional[Ruleset]:
    """Register the ruleset whose folder is the package `package` (its `manifest.toml`
    names the object); None when the folder has no manifest."""
    found = _manifest.read(package)
    if found is None:
        if where is not None:  # an entry point must lead to a ruleset
            raise RulesetInvalid(f"{where}: the package {package!r} has no {_manifest.FILENAME}")
        return None
    module = importlib.import_module(package)
    ruleset = getattr(module, found.object, None)
    if not isinstance(ruleset, Ruleset):
        raise RulesetInvalid(f"{found.source}: object {found.object!r} is "
                             + ("missing from the package" if ruleset is None else f"{ruleset!r}, not a Ruleset"))
    missing = _missing_examples(found)
    if missing:
        raise RulesetInvalid(f"{found.source}: examples {missing} name no scenario: put examples/NAME.json in the"
                             f" package {package!r} (or name one fracas ships: fracas scenarios lists them)")
    return register(ruleset, found)


def _missing_examples(manifest: Manifest) -> list[str]:
    """The manifest's example scenarios found neither in its package's `examples/` folder nor
    among the scenarios fracas ships (`fracas.scenarios`, or the checkout's examples/scenarios)."""
    from importlib import resources
    from pathlib import Path

    own = resources.files(manifest.package).joinpath("examples")
    shipped = [Path(__file__).resolve().parents[3] / "examples" / "scenarios"]
    try:
        shipped.append(resources.files("fracas.scenarios"))  # type: ignore[arg-type]
    except (ImportError, TypeError):  # a checkout run from src/: the folder above stands in
        pass
    return [name for name in manifest.examples
            if not own.joinpath(f"{name}.json").is_file()
            and not any(folder.joinpath(f"{name}.json").is_file() for folder in shipped)]


def unregister(name: str) -> None:
    """Remove a ruleset (tests that registered one clean up with this)."""
    if _REGISTRY.pop(name, None) is not None:
        _changed()


def kinds() -> dict[str, Kind]:
    """Every kind of request a registered ruleset resolves (the shared ones first)."""
    found = {kind.name: kind for kind in SHARED_KINDS}
    for ruleset in _REGISTRY.values():
        for bound in ruleset.kinds.values():
            found.setdefault(bound.kind.name, bound.kind)
    return found


def kind_named(name: str) -> Kind:
    """The kind called `name` (`KeyError` when no registered ruleset has it)."""
    return kinds()[name]


def manifests() -> list[Manifest]:
    """The manifests of the registered rulesets, in listing order."""
    return [r.manifest for r in _REGISTRY.values() if r.manifest is not None]


def short_ids() -> dict[str, str]:
    """Short ID (`er`) → ruleset name, from the manifests."""
    return {m.id: m.name for m in manifests()}


def names() -> tuple[str, ...]:
    """The registered ruleset names, built-in first."""
    return tuple(_REGISTRY)


def get(name: str, path: str = "$.ruleset") -> Ruleset:
    """The ruleset called `name`, or a SchemaError at `path` listing the known ones."""
    if not isinstance(name, str):
        raise SchemaError(path, f"expected str, got {_json_type(name)}")
    ruleset = _REGISTRY.get(name)
    if ruleset is None:
        raise SchemaError(path, f"unknown ruleset {name!r} (one of: {', '.join(_REGISTRY)})")
    return ruleset


def _json_type(value: Any) -> str:
    """The JSON kind of a decoded value, named as msgspec names it in "expected X, got Y"."""
    for kind, name in ((bool, "bool"), (int, "int"), (float, "float"), (str, "str"), (list, "array"),
                       (dict, "object")):
        if isinstance(value, kind):
            return name
    return "null" if value is None else type(value).__name__


def for_request(request: Any) -> Ruleset:
    """The ruleset a decoded request names in `"ruleset"` (the default when absent)."""
    name = request.get("ruleset", DEFAULT) if isinstance(request, dict) else getattr(request, "ruleset", DEFAULT)
    return get(name)


class _Registry(ModuleType):
    """This package is also callable: `fracas.rulesets()` lists the registered names."""

    def __call__(self) -> tuple[str, ...]:
        return names()


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
    """Register every ruleset folder of this package, then every entry point's."""
    for info in pkgutil.iter_modules(__path__, prefix=__name__ + "."):
        if info.ispkg:
            register_package(info.name)
    from importlib import metadata

    for point in metadata.entry_points(group=_manifest.ENTRY_POINTS):
        dist = getattr(point, "dist", None)
        where = (f"entry point {point.name!r} = {point.value!r} (group {_manifest.ENTRY_POINTS}"
                 + (f", distribution {dist.name} {dist.version}" if dist is not None else "") + ")")
        # An installed ruleset that fails is left out, loudly, and nothing else is: one broken
        # plug-in must not stop `import fracas` (every command, the bridge) for everyone.
        try:
            registered = register_package(point.value.split(":", 1)[0], where)
            if registered is not None and registered.name != point.name:
                unregister(registered.name)
                raise RulesetInvalid(f"{where}: the entry point's name must be the ruleset's name"
                                     f" {registered.name!r}")
        except Exception as error:  # noqa: BLE001 - any failure of a plug-in's import or registration
            why = str(error) if isinstance(error, RulesetInvalid) else f"{where}: {type(error).__name__}: {error}"
            _FAILED[point.name] = f"{why}; the ruleset {point.name!r} is left out (fix or uninstall it)"
            logging.getLogger("fracas").warning("%s", _FAILED[point.name])


_discover()
