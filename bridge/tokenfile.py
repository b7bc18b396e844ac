"""The kept access token, and how a running bridge tells ``fracas token`` it took a new one.

The token lives in ``token`` in ``$FRACAS_HOME`` when that is set (each home its own
token), else in the per-user config directory of fracas; the file is readable by its
owner only. A bridge that serves the kept token watches that file (a ``stat`` every
half second: inode, size, mtime) and takes a new token written there. It says so in a
small file beside it, ``bridge-<pid>.json`` (its URL, the SHA-256 fingerprint of the
token it now uses, how many sessions it closed), which ``fracas token --rotate`` reads
to report whether a running bridge took the new token. The file goes when the bridge
stops; one left by a bridge that was killed is ignored (its process is gone).

Watching, not signalling: a watch needs no process id or signal (none on Windows),
works for a token restored from a backup or written by an editor as well, and costs
one ``stat`` per half second.
"""

from __future__ import annotations

import glob
import hashlib
import os
import time
from typing import Any

import orjson

TOKEN_FILE = "token"
#: The shortest token a file may hold (a shorter one is ignored: made anew, or not taken).
MIN_LENGTH = 16


def token_file() -> str:
    """``token`` in ``$FRACAS_HOME`` when set, else in the per-user config directory of fracas."""
    from fracas.store import HOME_ENV

    home = os.environ.get(HOME_ENV)
    if home:
        return os.path.join(home, TOKEN_FILE)
    import platformdirs

    return os.path.join(platformdirs.user_config_dir("fracas", appauthor=False), TOKEN_FILE)


def fingerprint(token: str) -> str:
    """Which token, without the token: the first 16 hex digits of its SHA-256."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()[:16]


def read_token(path: str) -> str:
    """The token in ``path``; ValueError says why there is no usable one."""
    try:
        with open(path, encoding="utf-8") as handle:
            token = handle.read().strip()
    except FileNotFoundError:
        raise ValueError(f"the token file {path} is gone") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read the token file {path}: {exc}") from None
    if len(token) < MIN_LENGTH:
        raise ValueError(f"the token file {path} holds no token of at least {MIN_LENGTH} characters")
    return token


def _write_private(path: str, text: str) -> None:
    """Write ``text`` to ``path`` at once (a rename), readable by its owner only."""
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    temp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temp, path)


def stored_token(rotate: bool = False) -> str:
    """The bridge's kept access token: read from `token_file()`, or made and written there
    (readable by this user only) when there is none, it is unusable, or `rotate` asks for
    a new one. The GM pastes it into Foundry or the Roll20 relay once, not every session."""
    from .auth import new_token

    path = token_file()
    if not rotate:
        try:
            return read_token(path)
        except ValueError:
            pass
    token = new_token()
    _write_private(path, token + "\n")
    return token


def file_state(path: str) -> tuple[int, int, int] | None:
    """What changes when the file is written or replaced: (inode, size, mtime in ns)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _announcement(token_path: str, pid: int) -> str:
    return os.path.join(os.path.dirname(token_path), f"bridge-{pid}.json")


def announce(token_path: str, url: str, token: str, closed: int) -> None:
    """Say, beside the token file, which token this bridge uses now (best effort)."""
    record = {"pid": os.getpid(), "url": url, "token_file": os.path.abspath(token_path),
              "fingerprint": fingerprint(token), "sessions_closed": closed, "at": time.time()}
    try:
        _write_private(_announcement(token_path, os.getpid()), orjson.dumps(record).decode())
    except OSError:
        pass  # fracas token then says it cannot tell


def withdraw(token_path: str) -> None:
    """This bridge stops: its announcement goes."""
    try:
        os.remove(_announcement(token_path, os.getpid()))
    except OSError:
        pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def running_bridges(token_path: str) -> list[dict[str, Any]]:
    """The announcements of the bridges that watch ``token_path`` and still run."""
    found = []
    wanted = os.path.abspath(token_path)
    for name in sorted(glob.glob(os.path.join(os.path.dirname(token_path), "bridge-*.json"))):
        try:
            with open(name, "rb") as handle:
                record = orjson.loads(handle.read())
        except (OSError, orjson.JSONDecodeError):
            continue
        if isinstance(record, dict) and record.get("token_file") == wanted \
                and isinstance(record.get("pid"), int) and _alive(record["pid"]):
            found.append(record)
    return found


def wait_until_taken(token_path: str, token: str, timeout: float = 5.0,
                     poll: float = 0.1) -> list[tuple[dict[str, Any], bool]]:
    """Each running bridge watching ``token_path``, and whether it took ``token`` within
    ``timeout`` seconds (its announcement shows the token's fingerprint)."""
    want = fingerprint(token)
    deadline = time.monotonic() + timeout
    while True:
        bridges = running_bridges(token_path)
        if all(b["fingerprint"] == want for b in bridges) or time.monotonic() >= deadline:
            return [(b, b["fingerprint"] == want) for b in bridges]
        time.sleep(poll)
