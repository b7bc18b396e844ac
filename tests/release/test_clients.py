"""The VTT clients ship with fracas (issue 38): the installed package (scripts/test.sh's
wheel or sdist, in a fresh venv) carries the Foundry module, the Roll20 Mod script and the
relay extension as package data stamped with its version, and `fracas clients` installs
the module into a Foundry data folder, writes the script and the extension, and refuses a
wrong folder or a newer installed version.

Run from the checkout against the INSTALLED fracas: the files come from importlib.resources,
and the checkout's vtt_scripts/ are only what they are compared with."""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import fracas
from fracas import release

from .conftest import ROOT

CHECKOUT = (ROOT / "vtt_scripts").is_dir()
needs_checkout = pytest.mark.skipif(not CHECKOUT, reason="not run from a source checkout")


def _editable() -> bool:
    try:
        text = importlib.metadata.distribution("fracas").read_text("direct_url.json") or "{}"
    except importlib.metadata.PackageNotFoundError:
        return False
    return bool(json.loads(text).get("dir_info", {}).get("editable"))


@pytest.fixture(scope="module")
def clients() -> release.Clients:
    try:
        return release.installed()
    except release.ClientsError as err:
        if _editable():  # installed before the clients shipped: `pip install -e .` writes them
            pytest.skip(f"an editable install without its clients: {err}")
        raise


def fracas_cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m fracas ARGS` with this interpreter's installed fracas, away from the checkout."""
    return subprocess.run([sys.executable, "-m", "fracas", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "NO_COLOR": "1", **(env or {})}, timeout=120)


def foundry_data(tmp_path: Path) -> Path:
    data = tmp_path / "FoundryVTT" / "Data"
    for name in ("modules", "systems", "worlds"):
        (data / name).mkdir(parents=True)
    return data


# -- what the package carries ---------------------------------------------------------------

def test_the_package_carries_the_clients_with_one_version(clients):
    """index.json's stamp, every client's own version, fracas.__version__ and the installed
    distribution's metadata are one version."""
    version = importlib.metadata.version("fracas")
    assert clients.version == fracas.__version__ == version
    assert Path(clients.source).parent == Path(fracas.__file__).parent  # the installed package, not the checkout
    stated = release.client_versions(clients.files)
    assert {"foundry/module.json", "extension/manifest.json", "roll20/fracas.js", "extension/background.js",
            "foundry/scripts/contract.js"} <= set(stated)
    for path, versions in stated.items():
        wanted = release.extension_version(version) if path == "extension/manifest.json" else version
        assert set(versions) == {wanted}, (path, versions)
    manifest = json.loads(clients.files["foundry/module.json"])
    assert manifest["download"].endswith(f"/releases/download/v{version}/fracas-foundry-{version}.zip")


@needs_checkout
def test_the_packaged_clients_are_the_committed_files(clients):
    """Byte for byte what vtt_scripts/ holds, but module.json with the release's addresses."""
    for path, data in clients.files.items():
        client, _, rest = path.partition("/")
        source = ROOT / release.CHECKOUT[client] / rest
        if path == "foundry/module.json":
            committed = json.loads(source.read_text())
            assert json.loads(data) == release.foundry_manifest(committed, clients.version)
        else:
            assert source.read_bytes() == data, f"{path} differs from {source}: reinstall fracas"
    module = ROOT / "vtt_scripts" / "foundry"
    shipped = {"foundry/module.json", "foundry/README.md"}
    for folder in ("scripts", "styles", "lang"):
        shipped |= {f"foundry/{p.relative_to(module).as_posix()}" for p in (module / folder).rglob("*") if p.is_file()}
    extension = {f"extension/{p.name}" for p in (ROOT / "vtt_scripts/roll20/extension").iterdir()}
    assert set(clients.files) == shipped | extension | {"roll20/fracas.js"}
    assert not [p for p in clients.files if re.match(r"foundry/(test|testenv|tools)/|foundry/package\.json$", p)]


def test_a_changed_file_is_caught(clients, tmp_path, monkeypatch):
    """installed() checks every file against the SHA-256 it was stamped with."""
    index = {"version": clients.version,
             "files": [{"path": p, "sha256": "0" * 64 if p == "roll20/fracas.js" else hashlib.sha256(d).hexdigest()}
                       for p, d in clients.files.items()]}
    (tmp_path / release.ARCHIVE).write_bytes(release.zip_bytes(
        [(release.INDEX, json.dumps(index).encode()), *clients.files.items()]))
    monkeypatch.setattr(release.importlib.resources, "files", lambda _name: tmp_path)
    with pytest.raises(release.ClientsError, match=r"roll20/fracas.js in .* is not the file this fracas was built with"):
        release.installed()
    (tmp_path / release.ARCHIVE).write_bytes(b"not a zip")
    with pytest.raises(release.ClientsError, match=r"clients.zip is damaged"):
        release.installed()
    (tmp_path / release.ARCHIVE).unlink()
    with pytest.raises(release.ClientsError, match=r"this fracas carries no VTT clients"):
        release.installed()


@needs_checkout
def test_the_build_refuses_a_client_of_another_version(tmp_path):
    """setup.py's build_py stamps the clients with the package's version and refuses one that says another."""
    for folder in ("vtt_scripts/foundry", "vtt_scripts/roll20/extension"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("test", "testenv", "types"))
    shutil.copy2(ROOT / "vtt_scripts/roll20/fracas.js", tmp_path / "vtt_scripts/roll20/fracas.js")
    version = fracas.__version__
    files = release.package_data(tmp_path, version)
    assert json.loads(files[release.INDEX])["version"] == version
    manifest = tmp_path / "vtt_scripts/roll20/extension/manifest.json"
    manifest.write_text(manifest.read_text().replace(f'"version": "{release.extension_version(version)}"',
                                                     '"version": "0.0.1"'))
    with pytest.raises(release.ClientsError, match=r"vtt_scripts/roll20/extension/manifest.json says version 0.0.1"):
        release.package_data(tmp_path, version)
    (tmp_path / "vtt_scripts/roll20/fracas.js").unlink()
    with pytest.raises(release.ClientsError, match=r"vtt_scripts/roll20/fracas.js is missing"):
        release.package_data(tmp_path, version)


def test_setup_py_builds_the_clients_into_the_package():
    setup = ROOT / "setup.py"
    if not setup.exists():
        pytest.skip("not run from a source checkout")
    text = setup.read_text()
    assert '"build_py": BuildPyWithClients' in text and "release.package_data(HERE" in text


def test_the_sdist_carries_what_the_clients_are_built_from(sdist, clients, tmp_path):
    """A wheel built from the sdist (without node) gets the same clients: the sdist holds the
    committed files, and the release module it carries makes the same package data from them."""
    with tarfile.open(sdist) as archive:
        top = archive.getnames()[0].split("/")[0]
        if hasattr(tarfile, "data_filter"):
            archive.extractall(tmp_path, filter="data")
        else:
            archive.extractall(tmp_path)
    unpacked = tmp_path / top
    assert not (unpacked / "src/fracas" / release.ARCHIVE).exists(), "an editable install's copy went into the sdist"
    spec = importlib.util.spec_from_file_location("_sdist_release", unpacked / "src/fracas/release/__init__.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        built = module.package_data(unpacked, clients.version)
    finally:
        del sys.modules[spec.name]
    assert built == {**clients.files, release.INDEX: built[release.INDEX]}
    assert json.loads(built[release.INDEX])["files"] == [
        {"path": p, "sha256": hashlib.sha256(d).hexdigest()} for p, d in clients.files.items()]


# -- fracas clients foundry -------------------------------------------------------------------

def test_foundry_installs_the_module_into_a_data_folder(clients, tmp_path):
    """Acceptance: the installed fracas puts a module Foundry can load into Data/modules/fracas."""
    data = foundry_data(tmp_path)
    done = fracas_cli("clients", "foundry", "--data", str(data), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    target = data / "modules" / "fracas"
    assert f"Installed the fracas Foundry module {clients.version} in {target}." in done.stdout
    manifest = json.loads((target / "module.json").read_text(encoding="utf-8"))
    assert manifest["id"] == "fracas" and manifest["version"] == fracas.__version__
    assert manifest["manifest"] == f"{release.REPOSITORY}/releases/latest/download/module.json"
    named = [*manifest["esmodules"], *manifest["styles"], *(lang["path"] for lang in manifest["languages"])]
    assert "scripts/main.js" in named and "styles/fracas.css" in named and "lang/en.json" in named
    for path in named:
        assert (target / path).is_file(), f"module.json names {path}, which is not installed"
    for lang in manifest["languages"]:
        json.loads((target / lang["path"]).read_text(encoding="utf-8"))
    # main.js's own imports are there too (a module that loads).
    for module in (target / "scripts").rglob("*.js"):
        for imported in re.findall(r'^import .*? from "(\.{1,2}/[^"]+)";$', module.read_text(encoding="utf-8"), re.M):
            assert (module.parent / imported).resolve().is_file(), (module, imported)
    installed = {p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file()}
    assert installed == set(clients.of("foundry"))
    assert not [p for p in (data / "modules").iterdir() if p.name != "fracas"], "a staging folder was left"


def test_foundry_takes_the_user_data_path_and_the_default_folder(clients, tmp_path):
    data = foundry_data(tmp_path)
    given = fracas_cli("clients", "foundry", "--data", str(data.parent), cwd=tmp_path)  # Foundry's "User Data Path"
    assert given.returncode == 0, given.stderr
    assert f"in {data / 'modules' / 'fracas'}." in given.stdout
    if sys.platform in ("win32", "darwin"):
        return
    home = tmp_path / "home"
    (home / ".local" / "share").mkdir(parents=True)
    shutil.move(str(data.parent), str(home / ".local" / "share" / "FoundryVTT"))
    default = fracas_cli("clients", "foundry", cwd=tmp_path, env={"HOME": str(home)})
    assert default.returncode == 0, default.stderr
    assert str(home / ".local/share/FoundryVTT/Data/modules/fracas") in default.stdout
    assert "(it was already there)" in default.stdout


def test_foundry_refuses_a_folder_that_is_not_foundrys(clients, tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    done = fracas_cli("clients", "foundry", "--data", str(plain), cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"Invalid value for --data: {plain} is not a Foundry user data folder" in done.stderr
    data = foundry_data(tmp_path)
    inside = fracas_cli("clients", "foundry", "--data", str(data / "modules"), cwd=tmp_path)
    assert inside.returncode == 2 and f"(it is inside one: give {data})" in inside.stderr
    missing = fracas_cli("clients", "foundry", "--data", str(tmp_path / "nowhere"), cwd=tmp_path)
    assert missing.returncode == 2 and "--data" in missing.stderr and "does not exist" in missing.stderr
    if sys.platform not in ("win32", "darwin"):
        none = fracas_cli("clients", "foundry", cwd=tmp_path, env={"HOME": str(tmp_path / "empty-home")})
        assert none.returncode == 2 and "give it with --data DIR" in none.stderr
        assert ".local/share/FoundryVTT/Data" in none.stderr
    assert not (plain / "modules").exists()


def test_foundry_never_replaces_a_newer_module_without_force(clients, tmp_path):
    data = foundry_data(tmp_path)
    target = data / "modules" / "fracas"
    target.mkdir()
    (target / "module.json").write_text(json.dumps({"id": "fracas", "version": "999.0.0"}))
    (target / "keep.txt").write_text("theirs")
    refused = fracas_cli("clients", "foundry", "--data", str(data), cwd=tmp_path)
    assert refused.returncode == 2
    assert f"it is version 999.0.0, newer than this fracas's {clients.version}" in refused.stderr
    assert "--force replaces it" in refused.stderr and (target / "keep.txt").exists()
    forced = fracas_cli("clients", "foundry", "--data", str(data), "--force", cwd=tmp_path)
    assert forced.returncode == 0, forced.stderr
    assert f"(replacing 999.0.0)" in forced.stdout and not (target / "keep.txt").exists()
    # an older one is simply upgraded
    (target / "module.json").write_text(json.dumps({"id": "fracas", "version": "0.0.1"}))
    older = fracas_cli("clients", "foundry", "--data", str(data), cwd=tmp_path)
    assert older.returncode == 0 and "(replacing 0.0.1)" in older.stdout
    # someone else's folder of that name
    shutil.rmtree(target)
    target.mkdir()
    (target / "module.json").write_text(json.dumps({"id": "other", "version": "1"}))
    other = fracas_cli("clients", "foundry", "--data", str(data), cwd=tmp_path)
    assert other.returncode == 2 and "it holds no fracas module.json" in other.stderr


# -- fracas clients roll20 --------------------------------------------------------------------------

def test_roll20_writes_the_generated_script(clients, tmp_path):
    """Acceptance: the same bytes as the generated bundle (vtt_scripts/roll20/fracas.js)."""
    done = fracas_cli("clients", "roll20", "--out", str(tmp_path / "mod.js"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    written = (tmp_path / "mod.js").read_bytes()
    assert written == clients.roll20_script
    if CHECKOUT:
        assert written == (ROOT / "vtt_scripts/roll20/fracas.js").read_bytes(), (
            "the installed script is not vtt_scripts/roll20/fracas.js: reinstall fracas (pip install -e . for a checkout)")
    assert f"Wrote the fracas Roll20 Mod script {clients.version}" in done.stdout
    assert "Mod (API) Scripts → New Script" in done.stdout
    default = fracas_cli("clients", "roll20", cwd=tmp_path)  # fracas.js here; an older one is replaced
    assert default.returncode == 0 and (tmp_path / "fracas.js").read_bytes() == written
    folder = tmp_path / "folder"
    folder.mkdir()
    assert fracas_cli("clients", "roll20", "--out", str(folder), cwd=tmp_path).returncode == 0
    assert (folder / "fracas.js").read_bytes() == written


def test_roll20_refuses_a_newer_script_or_another_file(clients, tmp_path):
    newer = tmp_path / "fracas.js"
    newer.write_text('const VERSION = "999.0";\n')
    refused = fracas_cli("clients", "roll20", "--out", str(newer), cwd=tmp_path)
    assert refused.returncode == 2 and "newer than this fracas's" in refused.stderr and "--out" in refused.stderr
    assert newer.read_text() == 'const VERSION = "999.0";\n'
    other = tmp_path / "notes.txt"
    other.write_text("mine")
    refused = fracas_cli("clients", "roll20", "--out", str(other), cwd=tmp_path)
    assert refused.returncode == 2 and "is not a fracas Mod script" in refused.stderr and other.read_text() == "mine"
    assert fracas_cli("clients", "roll20", "--out", str(other), "--force", cwd=tmp_path).returncode == 0
    assert other.read_bytes() == clients.roll20_script
    nowhere = fracas_cli("clients", "roll20", "--out", str(tmp_path / "no" / "such" / "f.js"), cwd=tmp_path)
    assert nowhere.returncode == 2 and "Invalid value for --out" in nowhere.stderr


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="the fake clipboard tool is a POSIX script")
def test_roll20_copies_to_the_clipboard_where_there_is_one(clients, tmp_path):
    tools = tmp_path / "bin"
    tools.mkdir()
    pasted = tmp_path / "clipboard.txt"
    fake = tools / "xclip"
    fake.write_text(f'#!/bin/sh\n[ "$1 $2" = "-selection clipboard" ] || exit 3\ncat > "{pasted}"\n')
    fake.chmod(0o755)
    env = {"PATH": f"{tools}{os.pathsep}{os.environ.get('PATH', '')}", "DISPLAY": ":0", "WAYLAND_DISPLAY": ""}
    done = fracas_cli("clients", "roll20", "--clipboard", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert pasted.read_bytes() == clients.roll20_script
    assert "to the clipboard (xclip)" in done.stdout and "paste (Ctrl+V" in done.stdout
    assert not (tmp_path / "fracas.js").exists()
    # No clipboard tool (no display): the script goes to a file, and the message says how to paste it.
    bare = fracas_cli("clients", "roll20", "--clipboard", cwd=tmp_path, env={"DISPLAY": "", "WAYLAND_DISPLAY": ""})
    assert bare.returncode == 0, bare.stderr
    assert "No clipboard here" in bare.stdout and "select all and copy" in bare.stdout
    assert (tmp_path / "fracas.js").read_bytes() == clients.roll20_script


# -- fracas clients extension --------------------------------------------------------------------

def test_extension_writes_the_unpacked_extension_and_the_store_zips(clients, tmp_path):
    """Acceptance: the relay extension, unpacked as shipped and zipped for each store."""
    out = tmp_path / "relay"
    done = fracas_cli("clients", "extension", "--out", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    unpacked = out / "fracas-relay"
    assert {p.name: p.read_bytes() for p in unpacked.iterdir()} == clients.of("extension")
    if CHECKOUT:
        for name, data in clients.of("extension").items():
            assert (ROOT / "vtt_scripts/roll20/extension" / name).read_bytes() == data
    manifest = json.loads((unpacked / "manifest.json").read_text())
    assert "key" in manifest  # unpacked: the fixed id fracas serve accepts
    for browser in release.BROWSERS:
        archive = out / f"fracas-relay-{browser}-{clients.version}.zip"
        with zipfile.ZipFile(archive) as zipped:
            assert zipped.testzip() is None
            assert sorted(zipped.namelist()) == sorted(clients.of("extension"))
            assert "key" not in json.loads(zipped.read("manifest.json"))
    assert f"Wrote the fracas relay extension {clients.version} to {unpacked}" in done.stdout
    assert "Load unpacked" in done.stdout and "about:debugging" in done.stdout


def test_extension_never_replaces_a_newer_one_without_force(clients, tmp_path):
    unpacked = tmp_path / "fracas-relay"
    unpacked.mkdir()
    name = json.loads(clients.of("extension")["manifest.json"])["name"]
    (unpacked / "manifest.json").write_text(json.dumps({"name": name, "version": "999.0"}))
    refused = fracas_cli("clients", "extension", cwd=tmp_path)
    assert refused.returncode == 2 and "newer than this fracas's" in refused.stderr
    assert not list(tmp_path.glob("*.zip"))
    assert fracas_cli("clients", "extension", "--force", cwd=tmp_path).returncode == 0
    assert (unpacked / "background.js").exists()
    (tmp_path / "file").write_text("x")
    afile = fracas_cli("clients", "extension", "--out", str(tmp_path / "file"), cwd=tmp_path)
    assert afile.returncode == 2 and "Invalid value for --out" in afile.stderr and "is a file" in afile.stderr


def test_every_clients_command_has_help(tmp_path):
    for command in ([], ["foundry"], ["roll20"], ["extension"]):
        done = fracas_cli("clients", *command, "--help", cwd=tmp_path)
        assert done.returncode == 0 and "Usage: fracas clients" in done.stdout
    top = fracas_cli("--help", cwd=tmp_path)
    assert re.search(r"^  clients\s+Install the Foundry module, the Roll20 Mod script or the relay", top.stdout, re.M)
