"""The release's VTT assets, as the tag workflow makes them (`python -m fracas.release`,
run here as its dry run on the installed fracas): the Foundry zip and its module.json,
the Roll20 One-Click folder, the relay extension's Chrome Web Store and Firefox zips; and
the workflow that publishes them (wheels.yml) passes actionlint and does what it says."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import fracas
from fracas import release

from .conftest import ROOT
from .test_clients import clients  # noqa: F401 - the fixture: the installed fracas's clients

VERSION = fracas.__version__
WORKFLOW = ROOT / ".github" / "workflows" / "wheels.yml"


@pytest.fixture(scope="module")
def assets(clients, tmp_path_factory) -> Path:  # noqa: F811
    out = tmp_path_factory.mktemp("release")
    done = subprocess.run([sys.executable, "-m", "fracas.release", "--out", str(out), "--previous", "0.0.1",
                           "--previous", "v0.0.2", "--previous", "999.0", "--roll20-userid", "104025"],
                          capture_output=True, text=True, cwd=out, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"fracas {VERSION}: wrote 7 release files" in done.stdout
    return out


def _zip(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        assert archive.testzip() is None
        return {name: archive.read(name) for name in archive.namelist()}


def test_the_release_holds_every_asset(assets):
    assert sorted(p.relative_to(assets).as_posix() for p in assets.rglob("*") if p.is_file()) == sorted([
        "module.json", f"fracas-foundry-{VERSION}.zip", f"fracas-roll20-{VERSION}.zip",
        f"fracas-relay-chrome-{VERSION}.zip", f"fracas-relay-firefox-{VERSION}.zip",
        "roll20/fracas/script.json", f"roll20/fracas/{VERSION}/fracas.js"])


# -- Foundry ----------------------------------------------------------------------------------------

def test_the_foundry_manifest_points_at_this_release(assets):
    manifest = json.loads((assets / "module.json").read_text(encoding="utf-8"))
    assert manifest["id"] == "fracas" and manifest["version"] == VERSION
    assert manifest["title"] and manifest["compatibility"]["minimum"] and manifest["compatibility"]["verified"]
    assert manifest["url"] == "https://github.com/fracas-vtt/fracas"
    assert manifest["manifest"] == "https://github.com/fracas-vtt/fracas/releases/latest/download/module.json"
    assert manifest["download"] == (f"https://github.com/fracas-vtt/fracas/releases/download/v{VERSION}/"
                                    f"fracas-foundry-{VERSION}.zip")
    # the download is an asset of the release, and the manifest URL's file is this one
    assert (assets / manifest["download"].rsplit("/", 1)[1]).is_file()
    assert manifest["manifest"].rsplit("/", 1)[1] == "module.json"


def test_the_foundry_zip_is_what_foundry_installs(assets):
    files = _zip(assets / f"fracas-foundry-{VERSION}.zip")
    names = list(files)
    assert names[0] == "module.json", "module.json goes at the archive's root"
    assert files["module.json"] == (assets / "module.json").read_bytes()
    manifest = json.loads(files["module.json"])
    named = [*manifest["esmodules"], *manifest["styles"], *(lang["path"] for lang in manifest["languages"])]
    assert {"scripts/main.js", "styles/fracas.css", "lang/en.json", "lang/de.json"} <= set(named)
    missing = [path for path in named if path not in files]
    assert not missing, f"module.json names {missing}, which the zip lacks"
    assert {name.split("/")[0] for name in names} == {"module.json", "README.md", "scripts", "styles", "lang"}
    assert not [name for name in names if name.startswith("/") or ".." in name.split("/")]
    for lang in manifest["languages"]:
        assert json.loads(files[lang["path"]])  # valid JSON


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_foundry_zip_matches_the_node_packaging_tool(assets, tmp_path):
    """vtt_scripts/foundry/tools/package.js makes the same package (for hosting it yourself)."""
    tool = ROOT / "vtt_scripts" / "foundry" / "tools" / "package.js"
    if not tool.exists():
        pytest.skip("not run from a source checkout")
    done = subprocess.run(["node", str(tool), "--out", str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    ours = _zip(assets / f"fracas-foundry-{VERSION}.zip")
    theirs = _zip(tmp_path / f"fracas-foundry-{VERSION}.zip")
    assert list(theirs) == list(ours)
    assert theirs == ours
    assert (tmp_path / "module.json").read_bytes() == (assets / "module.json").read_bytes()


# -- Roll20 -------------------------------------------------------------------------------------------

def test_the_roll20_folder_is_laid_out_for_one_click(assets, clients):  # noqa: F811
    folder = assets / "roll20" / "fracas"
    entry = json.loads((folder / "script.json").read_text(encoding="utf-8"))
    # The fields of roll20-api-scripts' script.json (its README, and every script there).
    assert set(entry) == {"name", "script", "version", "previousversions", "description", "authors",
                          "roll20userid", "dependencies", "modifies", "conflicts", "useroptions"}
    assert entry["name"] == folder.name == "fracas" and entry["script"] == "fracas.js"
    assert entry["version"] == VERSION
    assert entry["previousversions"] == ["0.0.1", "0.0.2"]  # oldest first; 999.0 is not earlier
    assert entry["roll20userid"] == "104025"
    assert isinstance(entry["authors"], str) and entry["authors"]
    assert len(entry["description"]) > 200 and "!fracas attack" in entry["description"]
    assert entry["dependencies"] == [] and entry["conflicts"] == [] and isinstance(entry["useroptions"], list)
    assert entry["modifies"] and all(value in ("read", "write", "read,write") for value in entry["modifies"].values())
    assert all(re.fullmatch(r"(state|campaign|graphic|attribute|character|handout)\.\w+", key) for key in entry["modifies"])
    script = folder / VERSION / entry["script"]
    assert script.read_bytes() == clients.roll20_script
    if (ROOT / "vtt_scripts").is_dir():
        assert script.read_bytes() == (ROOT / "vtt_scripts/roll20/fracas.js").read_bytes()
    zipped = _zip(assets / f"fracas-roll20-{VERSION}.zip")
    assert zipped == {"fracas/script.json": (folder / "script.json").read_bytes(),
                      f"fracas/{VERSION}/fracas.js": script.read_bytes()}


def test_script_json_refuses_a_version_that_is_none():
    with pytest.raises(release.ClientsError, match=r"the previous version 'latest' is not a version"):
        release.script_json("1.0", ["latest"])
    assert release.script_json("1.0", ["0.9", "1.0rc1", "1.0", "1.0.1", "0.10"])["previousversions"] == [
        "0.9", "0.10", "1.0rc1"]


# -- the relay extension ---------------------------------------------------------------------------

def test_the_chrome_zip_is_a_manifest_v3_extension_for_the_web_store(assets):
    files = _zip(assets / f"fracas-relay-chrome-{VERSION}.zip")
    manifest = json.loads(files["manifest.json"])
    assert manifest["manifest_version"] == 3
    assert manifest["version"] == release.extension_version(VERSION)
    assert re.fullmatch(r"\d+(\.\d+){0,3}", manifest["version"])
    assert "key" not in manifest, "the Chrome Web Store refuses a manifest with a key"
    assert "browser_specific_settings" not in manifest
    assert set(manifest["background"]) == {"service_worker"} and manifest["background"]["service_worker"] in files
    assert manifest["action"]["default_popup"] in files
    assert all(js in files for script in manifest["content_scripts"] for js in script["js"])
    assert manifest["host_permissions"] == ["ws://127.0.0.1/*", "ws://localhost/*"]
    assert release.extension_problems(manifest, "chrome", files) == []


def test_the_firefox_zip_carries_its_gecko_id_and_background_scripts(assets):
    files = _zip(assets / f"fracas-relay-firefox-{VERSION}.zip")
    manifest = json.loads(files["manifest.json"])
    assert manifest["manifest_version"] == 3 and "key" not in manifest
    assert manifest["version"] == release.extension_version(VERSION)
    gecko = manifest["browser_specific_settings"]["gecko"]
    assert re.fullmatch(r"[\w.-]*@[\w.-]+", gecko["id"]), "a signed add-on needs its id, kept across versions"
    assert gecko["data_collection_permissions"] == {"required": ["none"]}  # addons.mozilla.org asks since 2025-11
    assert float(gecko["strict_min_version"].split(".")[0]) >= 121  # background scripts in Manifest V3
    assert manifest["background"] == {"scripts": ["background.js"]} and "background.js" in files
    assert release.extension_problems(manifest, "firefox", files) == []


def test_the_checks_find_what_a_store_refuses():
    good = {"manifest_version": 3, "name": "n", "version": "1.2.3", "description": "d",
            "background": {"service_worker": "bg.js", "scripts": ["bg.js"]},
            "browser_specific_settings": {"gecko": {"id": "x@y.z", "data_collection_permissions": {"required": ["none"]}}},
            "key": "abc"}
    names = ["manifest.json", "bg.js"]
    for browser in release.BROWSERS:
        assert release.extension_problems(release.extension_manifest(good, browser), browser, names) == []
    assert "key is set (the stores refuse it)" in release.extension_problems(good, "chrome", names)
    no_id = json.loads(json.dumps(good))
    no_id["browser_specific_settings"]["gecko"]["id"] = "no-at-sign"
    assert any("gecko.id" in p for p in release.extension_problems(release.extension_manifest(no_id, "firefox"),
                                                                     "firefox", names))
    assert any("background.js" in p or "bg.js" in p
               for p in release.extension_problems(release.extension_manifest(good, "chrome"), "chrome", ["manifest.json"]))
    bad_version = {**good, "version": "1.2.3rc1"}
    assert any("version" in p for p in release.extension_problems(release.extension_manifest(bad_version, "chrome"),
                                                                    "chrome", names))
    assert release.extension_version("1.2.3rc1") == "1.2.3"


# -- the workflow -------------------------------------------------------------------------------------

def _workflow() -> str:
    if not WORKFLOW.exists():
        pytest.skip("not run from a source checkout")
    return WORKFLOW.read_text()


def test_the_tag_workflow_publishes_everything_by_trusted_publishing():
    text = _workflow()
    assert re.search(r"^  push:\n    tags: \[\"v\*\"\]", text, re.M)
    assert "python -m cibuildwheel --output-dir wheelhouse" in text and "python -m build --sdist" in text
    publish = text.split("\n  publish:\n", 1)[1].split("\n  github-release:\n", 1)[0]
    assert "id-token: write" in publish and "pypa/gh-action-pypi-publish@release/v1" in publish
    assert "password:" not in publish and "PYPI_API_TOKEN" not in text
    assert "pattern: wheels-*" in publish and "name: sdist" in publish  # PyPI gets no zip or json
    assert "python -m fracas.release --out" in text and "fetch-depth: 0" in text
    github = text.split("\n  github-release:\n", 1)[1]
    assert "contents: write" in github and "name: vtt-clients" in github
    assert "release-assets/module.json release-assets/*.zip" in github
    # cibuildwheel >= 3.1 builds CPython 3.14 by default (test_release checks the identifiers)
    assert 'cibuildwheel>=3.1' in text


def test_the_workflow_passes_actionlint():
    _workflow()
    local = Path(sys.executable).parent / "actionlint"
    tool = str(local) if local.exists() else shutil.which("actionlint")
    if tool is None:
        pytest.skip("actionlint is not installed (the test extra installs it)")
    done = subprocess.run([tool, str(WORKFLOW)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
