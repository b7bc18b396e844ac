"""`fracas clients`: the VTT clients this fracas carries, handed out the way each platform
installs things: the Foundry module into Foundry's user data folder, the Roll20 Mod script
into a file (or the clipboard), the relay extension unpacked and as its store zips.

The files are the package data `fracas/clients.zip` (fracas.release), stamped with this
fracas's version; nothing here reads a source checkout."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import click

if TYPE_CHECKING:
    from ..release import Clients


def _release() -> Any:
    """`fracas.release`, imported when a clients command runs (not for `fracas --help`)."""
    from .. import release

    return release


ROLL20_STEPS = ("In Roll20: open the game → Settings → Mod (API) Scripts → New Script; name it fracas.js,"
                " paste the whole script, Save Script. Then type !fracas help in the game's chat.")
_JS_VERSION = re.compile(r'^const VERSION = "([^"]*)";$', re.M)


def _clients() -> Clients:
    release = _release()
    try:
        return release.installed()  # type: ignore[no-any-return]
    except release.ClientsError as err:
        raise click.ClickException(str(err)) from None


def _store_zip(clients: Clients, browser: str) -> bytes:
    release = _release()
    try:
        return release.extension_zip(clients, browser)  # type: ignore[no-any-return]
    except release.ClientsError as err:  # a manifest a store would refuse: this fracas was built wrong
        raise click.ClickException(str(err)) from None


def _newer(installed: Optional[str], ours: str) -> Optional[str]:
    """Why `installed` must not be replaced by `ours` without --force, or None."""
    if installed is None:
        return None
    old, new = _release().version_key(installed), _release().version_key(ours)
    if old is None:
        return f"its version {installed!r} is not one fracas can compare"
    if new is not None and old > new:
        return f"it is version {installed}, newer than this fracas's {ours} (pip install -U fracas brings the newer one)"
    return None


def _refuse(what: str, why: str, option: str) -> click.UsageError:
    return click.UsageError(f"{what}: {why}; --force replaces it with this fracas's (or give another {option})")


# -- Foundry ------------------------------------------------------------------------------

def foundry_data_candidates() -> list[Path]:
    """Where Foundry keeps its user data's Data folder by default on this system, in the
    order Foundry tries them (foundryvtt.com, "Managing User Data")."""
    home = Path.home()
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA")
        return [Path(local) / "FoundryVTT" / "Data"] if local else []
    if sys.platform == "darwin":
        return [home / "Library" / "Application Support" / "FoundryVTT" / "Data"]
    return [home / ".local" / "share" / "FoundryVTT" / "Data", home / "FoundryVTT" / "Data",
            Path("/local/FoundryVTT/Data")]


def _is_data_folder(path: Path) -> bool:
    return path.is_dir() and any((path / name).is_dir() for name in ("modules", "systems", "worlds"))


def foundry_data_folder(given: Optional[Path]) -> Path:
    """The Foundry Data folder to install into: the one given (or the Data folder inside a
    user data folder given), or the first default one that exists."""
    if given is None:
        for candidate in foundry_data_candidates():
            if _is_data_folder(candidate):
                return candidate
        tried = ", ".join(str(path) for path in foundry_data_candidates()) or "(LOCALAPPDATA is not set)"
        raise click.UsageError(f"no Foundry user data folder where Foundry keeps it by default ({tried}); give it with"
                               " --data DIR (Foundry shows it in Setup → Configuration → User Data Path)")
    if not given.exists():
        raise click.BadParameter(f"{given} does not exist", param_hint="--data")
    if _is_data_folder(given):
        return given
    if _is_data_folder(given / "Data"):
        return given / "Data"  # the User Data Path Foundry shows is the folder holding Data/
    hint = ""
    if given.name in ("modules", "systems", "worlds") and _is_data_folder(given.parent):
        hint = f" (it is inside one: give {given.parent})"
    raise click.BadParameter(f"{given} is not a Foundry user data folder: it holds no modules, systems or worlds"
                             f" folder, nor a Data folder that does{hint}", param_hint="--data")


def install_foundry(clients: Clients, data: Path, force: bool) -> tuple[Path, Optional[str]]:
    """The module into DATA/modules/fracas; returns where and the version it replaced."""
    files = clients.of("foundry")
    ours = json.loads(files["module.json"])
    modules = data / "modules"
    target = modules / ours["id"]
    replaced: Optional[str] = None
    if target.is_symlink():
        if not force:
            raise _refuse(str(target), f"it is a link to {os.readlink(target)} (a development install)", "--data")
    elif target.exists():
        manifest = target / "module.json"
        try:
            theirs = json.loads(manifest.read_text(encoding="utf-8"))
            found_id, replaced = theirs.get("id"), str(theirs.get("version"))
        except (OSError, ValueError, AttributeError):
            found_id = None
        if found_id != ours["id"]:
            if not force:
                raise _refuse(str(target), "it holds no fracas module.json", "--data")
        elif (why := _newer(replaced, clients.version)) and not force:
            raise _refuse(f"{target} holds the fracas module", why, "--data")
    modules.mkdir(exist_ok=True)
    staging = modules / f".{ours['id']}-installing"
    _release().write_tree(staging, files, clean=True)
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.exists():
        import shutil

        old = modules / f".{ours['id']}-replaced"
        if old.exists():
            shutil.rmtree(old)
        target.rename(old)
        shutil.rmtree(old)
    staging.rename(target)
    return target, replaced


# -- Roll20 ---------------------------------------------------------------------------------

def clipboard_command() -> Optional[list[str]]:
    """The clipboard tool of this system, if it has one."""
    import shutil  # here, as subprocess below: `fracas --help` needs neither

    if sys.platform == "darwin":
        candidates = [["pbcopy"]]
    elif sys.platform == "win32":
        candidates = [["clip"]]
    else:
        candidates = []
        if os.environ.get("WAYLAND_DISPLAY"):
            candidates.append(["wl-copy"])
        if os.environ.get("DISPLAY"):
            candidates += [["xclip", "-selection", "clipboard"], ["xsel", "--clipboard", "--input"]]
    for command in candidates:
        found = shutil.which(command[0])
        if found:
            return [found, *command[1:]]
    return None


def copy_to_clipboard(text: str) -> Optional[str]:
    """Put `text` on the clipboard; returns the tool used, or None when there is none (or it failed)."""
    command = clipboard_command()
    if command is None:
        return None
    # clip.exe reads UTF-16 when the text starts with its byte-order mark; the others read UTF-8.
    data = ("\ufeff" + text).encode("utf-16-le") if sys.platform == "win32" else text.encode("utf-8")
    import subprocess

    try:
        # No pipes besides stdin: xclip and wl-copy stay behind to serve the clipboard.
        done = subprocess.run(command, input=data, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return Path(command[0]).name if done.returncode == 0 else None


def write_roll20(clients: Clients, out: Path, force: bool) -> tuple[Path, Optional[str]]:
    """The Mod script to `out` (a file, or fracas.js in a folder); returns it and the version it replaced."""
    if out.is_dir():
        out = out / "fracas.js"
    replaced = None
    if out.exists():
        found = _JS_VERSION.findall(out.read_text(encoding="utf-8", errors="replace")) if out.is_file() else []
        if not found and not force:
            raise _refuse(f"--out {out}", "it exists and is not a fracas Mod script", "--out")
        replaced = found[0] if found else None
        if (why := _newer(replaced, clients.version)) and not force:
            raise _refuse(f"--out {out} holds the fracas Mod script", why, "--out")
    if not out.parent.is_dir():
        raise click.BadParameter(f"the folder {out.parent} does not exist", param_hint="--out")
    out.write_bytes(clients.roll20_script)
    return out, replaced


# -- the relay extension -----------------------------------------------------------------

def write_extension(clients: Clients, out: Path, force: bool) -> tuple[list[Path], Optional[str]]:
    """OUT/fracas-relay (unpacked) and the store zips; returns them and the version it replaced."""
    if out.exists() and not out.is_dir():
        raise click.BadParameter(f"{out} is a file, not a folder", param_hint="--out")
    files = clients.of("extension")
    unpacked = out / "fracas-relay"
    replaced = None
    if unpacked.exists():
        try:
            theirs = json.loads((unpacked / "manifest.json").read_text(encoding="utf-8"))
            ours = json.loads(files["manifest.json"])
            same = theirs.get("name") == ours["name"]
            replaced = str(theirs.get("version"))
        except (OSError, ValueError, AttributeError):
            same = False
        if not same and not force:
            raise _refuse(f"--out {unpacked}", "it exists and is not the fracas relay extension", "--out")
        if (why := _newer(replaced, _release().extension_version(clients.version))) and not force:
            raise _refuse(f"--out {unpacked} holds the fracas relay extension", why, "--out")
    zips = {out / _release().extension_zip_name(clients.version, browser): _store_zip(clients, browser)
            for browser in _release().BROWSERS}
    out.mkdir(parents=True, exist_ok=True)
    _release().write_tree(unpacked, files, clean=True)
    for path, data in zips.items():
        path.write_bytes(data)
    return [unpacked, *zips], replaced


def _replacing(replaced: Optional[str], version: str) -> str:
    if replaced is None:
        return ""
    return " (it was already there)" if replaced == version else f" (replacing {replaced})"


@click.group(short_help="Install the Foundry module, the Roll20 Mod script or the relay extension.")
def clients() -> None:
    """Install the VTT clients that come with fracas: the Foundry VTT module, the Roll20 Mod
    script and the Roll20 relay browser extension.

    Each is this fracas's own version (the same as `fracas --version`) and says which version
    it wrote. None replaces a newer version already there unless given --force.
    """


@clients.command(short_help="Install the Foundry VTT module into Foundry's user data folder.")
@click.option("--data", "data", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Foundry's user data folder (the one holding Data, or Data itself) [default: where Foundry keeps"
                   " it: ~/.local/share/FoundryVTT on Linux, ~/Library/Application Support/FoundryVTT on macOS,"
                   " %LOCALAPPDATA%/FoundryVTT on Windows].")
@click.option("--force", is_flag=True, help="Replace the module even when the installed one is newer or not fracas's.")
def foundry(data: Optional[Path], force: bool) -> None:
    """Install the Foundry VTT module into Foundry's user data folder (Data/modules/fracas).

    For example `fracas clients foundry`, or `fracas clients foundry --data /srv/foundrydata`
    for a Foundry kept elsewhere.
    """
    bundle = _clients()
    folder = foundry_data_folder(data)
    target, replaced = install_foundry(bundle, folder, force)
    manifest = json.loads(bundle.files["foundry/module.json"])
    click.echo(f"Installed the fracas Foundry module {bundle.version} in {target}{_replacing(replaced, bundle.version)}.")
    click.echo(f"In Foundry: restart it (or return to Setup), then enable \"{manifest['title']}\" in your world's"
               " Manage Modules. Start the bridge on this computer with: fracas serve")
    click.echo(f"Foundry checks for updates at {manifest['manifest']}")


@clients.command(short_help="Write the Roll20 Mod script to a file, or copy it to the clipboard.")
@click.option("--out", type=click.Path(path_type=Path), default=None, metavar="FILE",
              help="Where to write the script (a folder: fracas.js in it) [default: fracas.js here; with"
                   " --clipboard, no file].")
@click.option("--clipboard", is_flag=True,
              help="Copy the script to the clipboard (pbcopy, clip, wl-copy, xclip or xsel); without one, the"
                   " script is written to a file instead.")
@click.option("--force", is_flag=True, help="Replace the file even when it holds a newer script or something else.")
def roll20(out: Optional[Path], clipboard: bool, force: bool) -> None:
    """Write the Roll20 Mod script (fracas.js), to paste into a game's Mod scripts.

    For example `fracas clients roll20` (fracas.js in this folder), or `fracas clients
    roll20 --clipboard` to paste it straight into Roll20.
    """
    bundle = _clients()
    size = f"{len(bundle.roll20_script) // 1024:,} KB"
    if clipboard:
        tool = copy_to_clipboard(bundle.roll20_script.decode("utf-8"))
        if tool is not None:
            click.echo(f"Copied the fracas Roll20 Mod script {bundle.version} ({size}) to the clipboard ({tool}).")
        else:
            click.echo("No clipboard here (none of pbcopy, clip, wl-copy, xclip, xsel works): writing the script"
                       " to a file instead; open it, select all and copy.")
            out = out or Path("fracas.js")
        if out is None:
            click.echo(ROLL20_STEPS.replace("paste the whole script", "paste (Ctrl+V, or Cmd+V on a Mac)"))
            return
    path, replaced = write_roll20(bundle, out or Path("fracas.js"), force)
    click.echo(f"Wrote the fracas Roll20 Mod script {bundle.version} ({size}) to {path}"
               f"{_replacing(replaced, bundle.version)}.")
    click.echo(ROLL20_STEPS.replace("paste the whole script", f"paste the whole of {path.name}"))


@clients.command(short_help="Write the relay browser extension, unpacked and as its store zips.")
@click.option("--out", type=click.Path(path_type=Path), default=Path("."), metavar="DIR",
              help="The folder to write fracas-relay/ and the two store zips into [default: this folder].")
@click.option("--force", is_flag=True,
              help="Replace fracas-relay/ even when it holds a newer extension or something else.")
def extension(out: Path, force: bool) -> None:
    """Write the Roll20 relay browser extension: unpacked (fracas-relay/) and its Chrome Web
    Store and Firefox zips.

    The relay carries !fracas mob, round and journal requests between the Roll20 tab and
    `fracas serve`.
    """
    bundle = _clients()
    written, replaced = write_extension(bundle, out, force)
    unpacked, chrome, firefox = written
    click.echo(f"Wrote the fracas relay extension {bundle.version} to {unpacked}{_replacing(replaced, _release().extension_version(bundle.version))},"
               f" with {chrome.name} (Chrome Web Store) and {firefox.name} (addons.mozilla.org).")
    click.echo(f"Chrome, Edge, Brave: chrome://extensions → Developer mode → Load unpacked → {unpacked}"
               " (its id is fixed, and fracas serve accepts it).")
    click.echo(f"Firefox: about:debugging → This Firefox → Load Temporary Add-on → {unpacked / 'manifest.json'}"
               " (until Firefox restarts; a signed add-on stays).")
