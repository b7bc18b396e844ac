"""The published protocol (schema.json, README.md, example_client.py) matches the bridge."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path

import msgspec
import pytest

import fracas
import fracas.bridge
from fracas.rulesets.er import schema as engine_schema
from fracas.bridge import errors
from fracas.bridge.dispatcher import METHODS
from fracas.bridge.limits import Limits

from .helpers import REPO, TOKEN, run, serving

BRIDGE_DIR = Path(fracas.bridge.__file__).parent
SCHEMA = json.loads((BRIDGE_DIR / "schema.json").read_text())
DEFS = SCHEMA["$defs"]
README = (REPO / "bridge" / "README.md").read_text()
EXAMPLE = REPO / "bridge" / "example_client.py"

ERROR_CODES = {value for name, value in vars(errors).items() if name.isupper() and isinstance(value, int)}


def refs(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                yield value
            else:
                yield from refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from refs(value)


def test_every_reference_resolves():
    for ref in refs(SCHEMA):
        assert ref.startswith("#/$defs/") and ref[len("#/$defs/"):] in DEFS, ref


def test_schema_lists_every_method_with_params_and_result():
    assert DEFS["request"]["properties"]["method"]["enum"] == list(METHODS)
    for method in METHODS:
        assert f"params.{method}" in DEFS and f"result.{method}" in DEFS


def test_schema_lists_every_error_code():
    codes = DEFS["failure"]["properties"]["error"]["properties"]["code"]["oneOf"]
    assert {code["const"] for code in codes} == ERROR_CODES


def test_schema_limits_are_the_defaults():
    limits = Limits()
    assert DEFS["batch"]["maxItems"] == limits.max_batch
    assert DEFS["id"]["oneOf"][0]["maxLength"] == limits.max_id_length


@pytest.mark.parametrize(("definition", "names"), [
    ("style", engine_schema.STYLES), ("damage_type", engine_schema.DAMAGE_TYPES),
    ("size", engine_schema.SIZES), ("cover", engine_schema.COVERS),
    ("condition", engine_schema.CONDITIONS), ("ruleset", fracas.rulesets()),
])
def test_schema_names_are_the_engines(definition, names):
    assert DEFS[definition]["enum"] == list(names)


@pytest.mark.parametrize(("definition", "spec"), [
    ("attacker", engine_schema.Attacker), ("profile_strike", engine_schema.ProfileStrike),
    ("strike", engine_schema.Strike), ("target", engine_schema.Target),
    ("attack_request", engine_schema.AttackRequest), ("profile", engine_schema.Profile),
    ("attack_group", engine_schema.AttackGroup), ("bulk_request", engine_schema.BulkRequest),
    ("combatant", engine_schema.Combatant), ("initiative_request", engine_schema.InitiativeRequest),
])
def test_schema_fields_are_the_engines(definition, spec):
    fields = msgspec.structs.fields(spec)
    assert set(DEFS[definition]["properties"]) == {field.name for field in fields}
    required = {field.name for field in fields if field.required}
    assert set(DEFS[definition]["required"]) == required


def test_readme_documents_every_method_and_error_code():
    for method in METHODS:
        assert f"### `{method}`" in README
    for code in ERROR_CODES:
        assert f"| {code} |" in README


def test_readme_shows_the_example_client_as_it_is():
    code = EXAMPLE.read_text()
    body = code[code.index("import asyncio"):]
    assert f"```python\n{body}```" in README
    assert len(body.strip().splitlines()) <= 35


def test_example_client_runs_against_a_real_bridge(tmp_path):
    async def scenario():
        async with serving(tmp_path) as bridge:
            process = await asyncio.create_subprocess_exec(
                sys.executable, str(EXAMPLE), bridge.url, TOKEN,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            out, err = await process.communicate()
            return process.returncode, out.decode(), err.decode()

    returncode, out, err = run(scenario())
    assert returncode == 0, err
    assert re.fullmatch(r"dice \[\d+, \d+, \d+\]: \d+ damage \(seed \d+\)\n", out), out


def test_example_client_reports_a_wrong_token(tmp_path):
    async def scenario():
        async with serving(tmp_path) as bridge:
            process = await asyncio.create_subprocess_exec(
                sys.executable, str(EXAMPLE), bridge.url, "not-the-token",
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            _, err = await process.communicate()
            return process.returncode, err.decode()

    returncode, err = run(scenario())
    assert returncode == 1
    assert err == "auth: authentication failed: wrong token\n"


def test_readme_lists_every_limit_with_its_default():
    """The Limits table names every field of Limits, with the default in force."""
    text = (REPO / "bridge" / "README.md").read_text(encoding="utf-8")
    table = text[text.index("## Limits"):text.index("## A Python client")]
    for name, value in Limits().to_dict().items():
        rows = [line for line in table.splitlines() if line.startswith("|") and f"`{name}`" in line]
        assert rows, f"{name} is not in the README's Limits table"
        shown = f"{value} s" if isinstance(value, float) else str(value)
        assert any(shown in row or f"in {value} s" in row for row in rows), (name, shown, rows)


def test_top_readme_hardening_claims_are_the_defaults():
    from fracas.bridge.journal import Retention

    text = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    limits, retention = Limits(), Retention()
    assert limits.max_message_attacks == 10**8 and limits.max_reply_bytes == 16 << 20
    assert "at most 10^8 attacks and 16 MiB of reply per message" in text
    assert retention.max_age_days == 365 and retention.max_bytes == 512 << 20
    assert "the journal keeps 365 days or 512 MB" in text


def test_example_client_explains_a_refused_connection(tmp_path):
    """Issue 28: against a bridge started without --allow-no-origin the client died with a
    bare `InvalidStatus ... 403`; it prints the bridge's reason, which names the fix."""
    async def scenario():
        async with serving(tmp_path, allow_no_origin=False) as bridge:
            process = await asyncio.create_subprocess_exec(
                sys.executable, str(EXAMPLE), bridge.url, TOKEN,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            _, err = await process.communicate()
            return process.returncode, err.decode()

    returncode, err = run(scenario())
    assert returncode == 1 and "Traceback" not in err
    assert err == ("the bridge refused the connection: missing Origin header: browsers always send one;"
                   " to accept other programs, start the bridge with --allow-no-origin\n")

def test_the_main_readme_names_every_method():
    """The README's bridge section lists what the dispatcher answers (compete.roll,
    impale.resolve and the encounter.* methods were once missing)."""
    text = (REPO / "README.md").read_text()
    section = text[text.index("## The bridge"):]
    section = section[:section.index("\n## ", 1)]
    missing = [method for method in METHODS if method != "auth" and f"`{method}`" not in section]
    assert not missing, f"README.md's bridge section lacks {missing}"


def test_the_layout_names_every_module_and_only_modules_that_exist():
    """bridge/README.md's Layout and the package docstring describe the files there are."""
    section = README[README.index("## Layout"):]
    named = set(re.findall(r"`([a-z_]+\.py)`", section))
    files = {path.name for path in BRIDGE_DIR.glob("*.py")} - {"__init__.py", "__main__.py", "example_client.py"}
    assert named - {"test_protocol.py", "bench_bridge.py"} == files
    docstring = fracas.bridge.__doc__
    assert set(re.findall(r"^\s+([a-z_]+\.py) ", docstring, re.M)) == files


def test_the_method_table_is_the_spec_s_methods():
    """methods.method_table answers every method of the shared spec (auth is answered first)."""
    from fracas.bridge.protocol import Protocol

    protocol = Protocol(token=TOKEN, encounters=lambda: None)
    assert list(protocol.handlers) == [method for method in METHODS if method != "auth"]


def test_the_main_readme_says_how_to_run_the_example_client():
    """Issue 38: the README's set-up (`fracas serve`) refused the README's example client and
    never said so. The set-up names the flag, the command, and the refusal word for word
    (the refusal itself: test_example_client_explains_a_refused_connection)."""
    text = " ".join((REPO / "README.md").read_text().split())
    setup = text[text.index("## Set-up: two commands"):text.index("**Run every test**")]
    assert "fracas serve --allow-no-origin" in setup
    assert "bridge/example_client.py ws://127.0.0.1:8765 TOKEN" in setup
    assert ("the bridge refused the connection: missing Origin header: browsers always send one; to accept"
            " other programs, start the bridge with --allow-no-origin") in setup
    assert "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/fracas serve" in setup  # Linux, macOS
    assert ".venv\\Scripts\\fracas serve" in setup  # Windows (PowerShell)
