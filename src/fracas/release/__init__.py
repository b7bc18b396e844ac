"""The VTT clients as fracas ships them, and the release assets made from them.

The wheel carries three clients as package data, in one archive, `fracas/clients.zip`:
the Foundry module as packaged (`foundry/`, its module.json pointing at the GitHub
release), the Roll20 Mod script (`roll20/fracas.js`) and the relay browser extension
(`extension/`), with `index.json`: the version they were stamped with and each file's
SHA-256. (One archive, not a folder of .js files: an editable install writes it into the
source package, where it must not read as a second copy of vtt_scripts/.) `fracas clients` hands them out; `python -m fracas.release --out DIR` makes a
release's assets from them (the Foundry zip and its module.json, the Roll20 One-Click
folder, the extension's Chrome Web Store and Firefox zips).

setup.py loads this file by its path while building (`package_data`, from the committed
files of `vtt_scripts/`, so a build needs no node), so it imports nothing but the
standard library.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.resources
import io
import json
import os
import re
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Optional

#: The project's GitHub repository: its releases host the Foundry manifest and zip.
REPOSITORY = "https://github.com/fracas-vtt/fracas"
#: The package data of `fracas` that holds the clients, and the archive's index.
ARCHIVE = "clients.zip"
INDEX = "index.json"
#: What the Foundry package holds, in this order (vtt_scripts/foundry/tools/package.js: SHIPPED).
FOUNDRY_SHIPPED = ("module.json", "README.md", "scripts", "styles", "lang")
EXTENSION_FILES = ("manifest.json", "background.js", "content.js", "popup.html", "popup.js")
BROWSERS = ("chrome", "firefox")
#: Where each client is in a source checkout.
CHECKOUT = {"foundry": "vtt_scripts/foundry", "roll20": "vtt_scripts/roll20", "extension": "vtt_scripts/roll20/extension"}
_JS_VERSION = re.compile(r'^(?:export )?const VERSION = "([^"]*)";$', re.M)
_GECKO_ID = re.compile(r"^(?:[A-Za-z0-9._-]*@[A-Za-z0-9._-]+|\{[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\})$")

#: The Roll20 One-Click entry (roll20-api-scripts: `fracas/script.json`), but for `version`,
#: `previousversions` and `roll20userid`, which each release supplies.
ROLL20_SCRIPT = {
    "name": "fracas",
    "script": "fracas.js",
    "description": (
        "Resolves tabletop combat (Enchanted Realms, Worldwalker, Cartyrion and old-school rules) in the"
        " Mod sandbox: every die on a chat card, damage taken off the Body bar, and `!fracas undo` to take it"
        " back. Every card shows its seed, so `fracas replay` on a computer rolls the same dice.\r\r"
        "Example: select a token and type `!fracas attack --target @{target|token_id} --dice 2 --style"
        " slashing --weight 1 --type edged`.\r\r"
        "Commands: `!fracas attack`, `compete`, `impale`, `init`, `mob`, `round`, `undo`, `config`, `request`,"
        " `relay`, `journal`, `replay` and `!fracas help` (also kept in the handout *Help: fracas*). `mob` and"
        " `round` need the fracas bridge on the GM's computer (`pip install fracas`, `fracas serve`) and the"
        " fracas relay browser extension.\r\r"
        f"Documentation: https://fracas-vtt.github.io/fracas/ — source and issues: {REPOSITORY}"
    ),
    "authors": "fracas contributors",
    "useroptions": [],
    "dependencies": [],
    "modifies": {
        "state.fracas": "read,write",
        "campaign.turnorder": "read,write",
        "campaign.initiativepage": "read,write",
        "graphic.bar1_value": "read,write",
        "graphic.bar2_value": "read,write",
        "graphic.bar3_value": "read,write",
        "graphic.statusmarkers": "read,write",
        "graphic.represents": "read",
        "attribute.current": "read,write",
        "character.controlledby": "read",
        "handout.notes": "write",
    },
    "conflicts": [],
}
#: Every field a roll20-api-scripts script.json has (its README; e.g. TokenMod/script.json).
SCRIPT_JSON_FIELDS = ("name", "script", "version", "previousversions", "description", "authors", "roll20userid",
                      "dependencies", "modifies", "conflicts", "useroptions")


class ClientsError(Exception):
    """The clients are missing, stale or inconsistent: the message says which file and why."""


# -- versions --------------------------------------------------------------------------

_PEP440 = re.compile(r"^v?(\d+(?:\.\d+)*)(?:[-._]?(a|b|rc)(\d+))?(?:[-._]?post(\d+))?(?:[-._]?dev(\d+))?$")


def version_key(text: str) -> Optional[tuple[Any, ...]]:
    """A sort key for a version (`0.1.0`, `1.2rc1`, `2.0.post1`, `3.0.dev2`), None if it is not one."""
    found = _PEP440.match(text.strip())
    if found is None:
        return None
    release = [int(part) for part in found.group(1).split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    stage, number, post, dev = found.group(2, 3, 4, 5)
    pre = ({"a": 0, "b": 1, "rc": 2}[stage], int(number)) if stage else ((-1, 0) if dev and not post else (3, 0))
    return (tuple(release), pre, int(post or -1), (0, int(dev)) if dev else (1, 0))


def extension_version(version: str) -> str:
    """The browser extension's `version`: the release numbers only (a browser takes 1 to 4
    integers, so 1.2.0rc1 is 1.2.0 there)."""
    found = _PEP440.match(version)
    if found is None:
        raise ClientsError(f"the version {version!r} is not a version (like 1.2.3)")
    return ".".join(found.group(1).split(".")[:4])


def client_versions(files: Mapping[str, bytes]) -> dict[str, list[str]]:
    """The versions each client file states, by its path in the package data."""
    found: dict[str, list[str]] = {}
    for path, data in files.items():
        if path in ("foundry/module.json", "extension/manifest.json"):
            manifest = json.loads(data)
            found[path] = [str(manifest.get("version"))]
        elif path.endswith(".js") and (versions := _JS_VERSION.findall(data.decode("utf-8"))):
            found[path] = versions
    return found


def check_versions(files: Mapping[str, bytes], version: str, where: Mapping[str, str]) -> None:
    """Every client says `version` (the extension its release numbers), or a ClientsError names the file."""
    stated = client_versions(files)
    for needed in ("foundry/module.json", "extension/manifest.json", "roll20/fracas.js"):
        if needed not in stated:
            raise ClientsError(f"{where.get(needed, needed)} states no version")
    for path, versions in stated.items():
        wanted = extension_version(version) if path == "extension/manifest.json" else version
        wrong = sorted(set(versions) - {wanted})
        if wrong:
            raise ClientsError(f"{where.get(path, path)} says version {', '.join(wrong)}, but fracas is {version}: "
                               + _REMEDY.get(path.split("/")[0], "make it agree"))


_REMEDY = {
    "foundry": "set module.json's version (and regenerate the rest: python -m fracas.spec)",
    "extension": "set the extension's manifest.json version (and rebuild: node vtt_scripts/roll20/build.js)",
    "roll20": "regenerate it: python -m fracas.spec, then node vtt_scripts/roll20/build.js",
}


# -- the package data, from a source checkout (setup.py) ---------------------------------

def _walk(path: Path) -> list[Path]:
    """Files under `path`, each folder's entries in name order (as tools/package.js lists them)."""
    if path.is_file():
        return [path]
    return [found for name in sorted(os.listdir(path)) for found in _walk(path / name)]


def checkout_files(root: Path) -> tuple[dict[str, bytes], dict[str, str]]:
    """The clients' files in a source checkout (or an unpacked sdist) at `root`, by their
    path in the package data, and where each came from."""
    files: dict[str, bytes] = {}
    where: dict[str, str] = {}
    wanted = [("foundry", item) for item in FOUNDRY_SHIPPED] + [("roll20", "fracas.js")] + [
        ("extension", name) for name in EXTENSION_FILES]
    for client, item in wanted:
        base = root / CHECKOUT[client]
        if not (base / item).exists():
            raise ClientsError(f"{CHECKOUT[client]}/{item} is missing from {root}: the clients ship the committed"
                               " files of vtt_scripts/ (node vtt_scripts/roll20/build.js makes the Roll20 ones)")
        for path in _walk(base / item):
            name = f"{client}/{path.relative_to(base).as_posix()}"
            files[name] = path.read_bytes()
            where[name] = path.relative_to(root).as_posix()
    return files, where


def foundry_manifest(manifest: Mapping[str, Any], version: str) -> dict[str, Any]:
    """module.json as released: `url` the project, `manifest` the latest release's module.json
    (so Foundry finds updates), `download` this version's zip."""
    stamped = {key: value for key, value in manifest.items() if key not in ("url", "manifest", "download")}
    stamped.update(url=REPOSITORY, manifest=f"{REPOSITORY}/releases/latest/download/module.json",
                   download=f"{REPOSITORY}/releases/download/v{version}/{foundry_zip_name(version)}",
                   bugs=f"{REPOSITORY}/issues", changelog=f"{REPOSITORY}/blob/main/CHANGELOG.md")
    return stamped


def foundry_zip_name(version: str) -> str:
    return f"fracas-foundry-{version}.zip"


def _json(value: Any) -> bytes:
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def package_data(root: Path, version: str) -> dict[str, bytes]:
    """The contents of `fracas/clients.zip` for `version`, from the checkout at `root`: the
    clients' committed files (each checked to state `version`), module.json stamped with
    the release's addresses, and `index.json` (first)."""
    files, where = checkout_files(root)
    check_versions(files, version, where)
    files["foundry/module.json"] = _json(foundry_manifest(json.loads(files["foundry/module.json"]), version))
    index = {"version": version, "files": [{"path": path, "sha256": hashlib.sha256(data).hexdigest()}
                                           for path, data in files.items()]}
    return {INDEX: _json(index), **files}


def write_tree(target: Path, files: Mapping[str, bytes], clean: bool = False) -> None:
    """`files` (by relative path) in `target`; with `clean`, what else it held is removed."""
    if clean and target.exists():
        for path in sorted(target.rglob("*"), reverse=True):
            path.rmdir() if path.is_dir() else path.unlink()
    for name, data in files.items():
        path = target.joinpath(*name.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


# -- the clients as installed ---------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Clients:
    """The clients one fracas carries: their version and their files (by package-data path)."""

    version: str
    files: dict[str, bytes]
    source: str

    def of(self, client: str) -> dict[str, bytes]:
        """One client's files, by their path inside it (`scripts/main.js`)."""
        prefix = f"{client}/"
        return {path[len(prefix):]: data for path, data in self.files.items() if path.startswith(prefix)}

    @property
    def roll20_script(self) -> bytes:
        return self.files["roll20/fracas.js"]


def installed() -> Clients:
    """The clients of the installed fracas (its package data), each file checked against
    the SHA-256 its index was stamped with."""
    source = importlib.resources.files("fracas").joinpath(ARCHIVE)
    if not source.is_file():
        raise ClientsError(f"this fracas carries no VTT clients ({source} is missing). Reinstall it"
                           " (pip install --force-reinstall fracas; from a source checkout, pip install -e . writes it)")
    try:
        with zipfile.ZipFile(io.BytesIO(source.read_bytes())) as archive:
            index = json.loads(archive.read(INDEX))
            files = {entry["path"]: archive.read(entry["path"]) for entry in index["files"]}
    except (zipfile.BadZipFile, KeyError, ValueError) as err:
        raise ClientsError(f"{source} is damaged ({err}): reinstall fracas") from None
    for entry in index["files"]:
        if hashlib.sha256(files[entry["path"]]).hexdigest() != entry["sha256"]:
            raise ClientsError(f"{entry['path']} in {source} is not the file this fracas was built with (its"
                               " SHA-256 differs from the index): reinstall fracas")
    return Clients(str(index["version"]), files, str(source))


# -- release assets -----------------------------------------------------------------------

def zip_bytes(entries: Iterable[tuple[str, bytes]]) -> bytes:
    """A zip of `entries` in their order, reproducible (fixed dates and modes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def foundry_zip(clients: Clients) -> bytes:
    """The Foundry package: module.json, README.md, scripts/, styles/, lang/ at the archive's root."""
    return zip_bytes(clients.of("foundry").items())


def extension_manifest(manifest: Mapping[str, Any], browser: str) -> dict[str, Any]:
    """The relay extension's manifest for a browser store. Neither store takes `key` (it
    only fixes the id of an unpacked Chromium extension); Chrome's background is the
    service worker, Firefox's the background scripts and its gecko id."""
    if browser not in BROWSERS:
        raise ValueError(f"browser {browser!r} is not one of {', '.join(BROWSERS)}")
    out = {key: value for key, value in manifest.items() if key != "key"}
    background = dict(manifest.get("background", {}))
    if browser == "chrome":
        out.pop("browser_specific_settings", None)
        out["background"] = {key: background[key] for key in ("service_worker", "type") if key in background}
    else:
        out["background"] = {key: background[key] for key in ("scripts", "type") if key in background}
    return out


def extension_problems(manifest: Mapping[str, Any], browser: str, names: Iterable[str]) -> list[str]:
    """What a browser store would refuse in this manifest, for an archive holding `names`."""
    problems = []
    present = set(names)
    if manifest.get("manifest_version") != 3:
        problems.append("manifest_version is not 3")
    for field in ("name", "version", "description"):
        if not isinstance(manifest.get(field), str) or not manifest[field]:
            problems.append(f"{field} is missing")
    if not re.fullmatch(r"\d+(\.\d+){0,3}", str(manifest.get("version", ""))):
        problems.append(f"version {manifest.get('version')!r} is not 1 to 4 dot-separated integers")
    if "key" in manifest:
        problems.append("key is set (the stores refuse it)")
    background = manifest.get("background", {})
    if browser == "chrome":
        if not isinstance(background.get("service_worker"), str):
            problems.append("background.service_worker is missing")
        if "scripts" in background:
            problems.append("background.scripts is set (Manifest V3 Chrome has only the service worker)")
        if "browser_specific_settings" in manifest:
            problems.append("browser_specific_settings is set (Chrome does not know it)")
        scripts = [background.get("service_worker")]
    else:
        gecko = manifest.get("browser_specific_settings", {}).get("gecko", {})
        scripts = list(background.get("scripts") or [])
        if not scripts:
            problems.append("background.scripts is missing (Firefox runs no service worker)")
        if not _GECKO_ID.match(str(gecko.get("id", ""))):
            problems.append("browser_specific_settings.gecko.id is missing or not an add-on id (name@domain)")
        if not gecko.get("data_collection_permissions", {}).get("required"):
            problems.append("browser_specific_settings.gecko.data_collection_permissions.required is missing")
    for script in manifest.get("content_scripts", []):
        scripts += script.get("js", [])
    scripts.append(manifest.get("action", {}).get("default_popup"))
    problems += [f"{name} is named but not in the archive" for name in scripts if name and name not in present]
    return problems


def extension_zip(clients: Clients, browser: str) -> bytes:
    """The relay extension for the Chrome Web Store or addons.mozilla.org."""
    files = clients.of("extension")
    manifest = extension_manifest(json.loads(files["manifest.json"]), browser)
    problems = extension_problems(manifest, browser, files)
    if problems:
        raise ClientsError(f"the relay extension's manifest is not fit for {browser}: {'; '.join(problems)}")
    return zip_bytes([("manifest.json", _json(manifest))] + [(n, d) for n, d in files.items() if n != "manifest.json"])


def extension_zip_name(version: str, browser: str) -> str:
    return f"fracas-relay-{browser}-{version}.zip"


def script_json(version: str, previous: Iterable[str] = (), roll20_userid: str = "") -> dict[str, Any]:
    """roll20-api-scripts' `fracas/script.json` for `version`: `previousversions` the
    earlier versions given (later ones and repeats dropped), oldest first."""
    current = version_key(version)
    if current is None:
        raise ClientsError(f"the version {version!r} is not a version (like 1.2.3)")
    keyed = {}
    for earlier in previous:
        key = version_key(earlier)
        if key is None:
            raise ClientsError(f"the previous version {earlier!r} is not a version (like 1.2.3)")
        if key < current:
            keyed[key] = earlier.strip().lstrip("v")
    entry = {**ROLL20_SCRIPT, "version": version, "previousversions": [keyed[k] for k in sorted(keyed)],
             "roll20userid": roll20_userid}
    return {field: entry[field] for field in SCRIPT_JSON_FIELDS}


def roll20_folder(clients: Clients, previous: Iterable[str] = (), roll20_userid: str = "") -> dict[str, bytes]:
    """The One-Click folder as roll20-api-scripts lays it out: `fracas/script.json` and
    `fracas/<version>/fracas.js`."""
    entry = script_json(clients.version, previous, roll20_userid)
    return {"fracas/script.json": _json(entry), f"fracas/{clients.version}/{entry['script']}": clients.roll20_script}


def release_assets(clients: Clients, previous: Iterable[str] = (), roll20_userid: str = "") -> dict[str, bytes]:
    """Every file a release attaches (and the Roll20 folder), by relative path."""
    version = clients.version
    folder = roll20_folder(clients, previous, roll20_userid)
    assets = {
        "module.json": clients.files["foundry/module.json"],
        foundry_zip_name(version): foundry_zip(clients),
        f"fracas-roll20-{version}.zip": zip_bytes(folder.items()),
        **{extension_zip_name(version, browser): extension_zip(clients, browser) for browser in BROWSERS},
    }
    return {**assets, **{f"roll20/{name}": data for name, data in folder.items()}}
