"""Any console (issue: a non-UTF-8 output stream crashed the CLI with UnicodeEncodeError).

Each command runs in a subprocess whose standard streams are cp1252 (a Windows
console, or output redirected there) or ASCII (`PYTHONIOENCODING=ascii`, a C locale):
it exits as it does in UTF-8, never with a traceback, and what the stream cannot
encode is spelled in ASCII (`→` as `->`, `█` as `#`).
"""

import io
import os
import subprocess
import sys

import pytest

from fracas import console

ATTACK = ["attack", "--dice", "3", "--bonus", "2", "--ac", "14", "--weight", "1", "--str", "4", "--style",
          "slashing", "--seed", "1"]


def fracas(args, encoding, tmp_path):
    env = {**os.environ, "PYTHONIOENCODING": encoding, "FRACAS_HOME": str(tmp_path), "NO_COLOR": "1",
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data")}
    env.pop("FRACAS_CONFIG", None)
    return subprocess.run([sys.executable, "-m", "fracas", *args], capture_output=True, env=env, timeout=300)


COMMANDS = [
    ("attack", ATTACK, 0, "->"),
    ("odds", ["odds", "--dice", "3", "--bonus", "2", "--ac", "14", "--weight", "1", "--str", "4",
              "--at-least", "5"], 0, "P(>=5)"),
    ("simulate", ["simulate", "@ww-duel", "--runs", "20", "--seed", "1", "--workers", "1"], 0, "wins"),
    ("sweep", ["sweep", "@ww-duel", "--vary", "$.sides.knight[0].hp=5,10", "--runs", "10", "--seed", "1",
               "--workers", "1", "--target", "0.5"], 0, "never crosses"),
    ("encounter", ["encounter", "new", "crypt", "--scenario", "@er-skeleton-horde"], 0, "standing"),
    ("round", ["encounter", "round", "crypt", "--seed", "3"], 0, "->"),
    ("show", ["encounter", "show", "crypt"], 0, "standing"),
    ("initiative", ["initiative", "--combatant", "rogue=6", "--combatant", "ogre=2", "--seed", "1"], 0, "rogue"),
    ("compete", ["compete", "--contest", "grapple", "--challenger", "id=ogre,strength=6,size=large",
                 "--defender", "id=aria,agility=5,attribute=agility,speed=40", "--seed", "1"], 0, "aria"),
    ("help", ["attack", "--help"], 0, "(profiles "),
    ("error", ["attack", "--dice", "0", "--ac", "14", "--str", "3"], 2, "$.strikes[0].dice"),
]


@pytest.mark.parametrize("encoding", ["cp1252", "ascii"])
def test_every_command_runs_on_a_narrow_console(encoding, tmp_path):
    for name, args, code, shows in COMMANDS:
        done = fracas(args, encoding, tmp_path)
        out, err = done.stdout.decode(encoding), done.stderr.decode(encoding)  # decodes: nothing foreign
        assert done.returncode == code, (name, out, err)
        assert "Traceback" not in err and "UnicodeEncodeError" not in err, (name, err)
        assert shows in out + err, (name, out, err)
        if encoding == "ascii":
            assert max(done.stdout + done.stderr, default=0) < 128, name


def test_the_attack_reads_the_same_on_utf8_and_in_ascii(tmp_path):
    utf8 = fracas(ATTACK, "utf-8", tmp_path).stdout.decode()
    ascii_ = fracas(ATTACK, "ascii", tmp_path).stdout.decode("ascii")
    assert "→" in utf8 and "->" in ascii_
    assert console.to_ascii(utf8) == ascii_


def test_cp1252_keeps_what_it_can_encode():
    raw = io.BytesIO()
    stream = console.safe(io.TextIOWrapper(raw, encoding="cp1252"))
    stream.write("Café × 3 → 4 ≥ 2 · █▌ ☃")
    stream.flush()
    assert raw.getvalue().decode("cp1252") == "Café × 3 -> 4 >= 2 · #+ ?"


def test_an_ascii_stream_is_wrapped_so_click_cannot_rewrap_it_as_utf8():
    raw = io.BytesIO()
    stream = console.safe(io.TextIOWrapper(raw, encoding="ascii"))
    assert not hasattr(stream, "buffer") and stream.encoding == "ascii"
    stream.write("Café → …")
    stream.flush()
    assert raw.getvalue() == b"Cafe -> ..."
    with pytest.raises(TypeError):
        stream.write(b"bytes")  # how click tells a text stream from a binary one


def test_a_utf8_stream_is_left_alone():
    stream = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    assert console.safe(stream) is stream and stream.errors == "strict"
