"""The documentation site builds with warnings as errors (`mkdocs build --strict`), and its
generated pages say what the code says: every request field of every ruleset (from the
msgspec types), every public name's docstring page, every CLI command (from click), every
bridge method. The addresses in the package metadata, mkdocs.yml and the README agree."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

import fracas

try:
    import tomllib
except ImportError:  # Python 3.10: tomli is a dependency there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "mkdocs.yml"


def _needs_checkout():
    if not CONFIG.exists():
        pytest.skip("not run from a source checkout")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    _needs_checkout()
    for module in ("mkdocs", "material", "mkdocstrings_handlers.python", "mkdocs_click"):
        if importlib.util.find_spec(module.split(".")[0]) is None:
            pytest.skip(f"{module} is not installed (the docs extra: pip install 'fracas[docs]')")
    out = tmp_path_factory.mktemp("site")
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(CONFIG), "-d", str(out)],
                           capture_output=True, text=True, cwd=ROOT, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert built.returncode == 0, built.stdout[-4000:] + built.stderr[-4000:]
    assert "WARNING" not in built.stderr, built.stderr
    return out


def page(site: Path, path: str) -> str:
    html = site / path / "index.html"
    assert html.is_file(), f"the site has no {path}/"
    return html.read_text(encoding="utf-8")


def test_every_section_has_its_page(site):
    for path in ("getting-started", "rules/enchanted-realms", "rules/worldwalker", "rules/cartyrion",
                 "rules/old-school", "reference", "api", "cli", "bridge", "roll20", "foundry", "ENCOUNTERS",
                 "benchmarks", "ENGINE", "examples", "changelog"):
        page(site, path)


def test_the_reference_lists_every_request_field_of_every_ruleset(site):
    for name in fracas.rulesets():
        ruleset = fracas.rulesets.get(name)
        html = page(site, f"reference/{name}")
        assert ruleset.title in html
        seen: set[type] = set()
        todo = list(ruleset.request_types.values())
        while todo:  # the request types and every Struct they contain
            spec = todo.pop()
            if spec in seen:
                continue
            seen.add(spec)
            for field in msgspec.structs.fields(spec):
                assert f"<code>{field.encode_name}</code>" in html, (name, spec.__name__, field.encode_name)
                todo += [struct for struct in _structs(field.type) if struct not in seen]


def _structs(kind) -> list[type]:
    """The msgspec Structs a field's type mentions (list[Strike], Optional[Reaction], …)."""
    found = []
    if isinstance(kind, type) and issubclass(kind, msgspec.Struct):
        found.append(kind)
    for arg in getattr(kind, "__args__", ()) or ():
        found += _structs(arg)
    return found


def test_the_reference_shows_a_result_the_engine_computed(site):
    html = page(site, "reference/cartyrion")
    # examples/cartyrion.json injects its dice: Tombril's blow does 31 (CT-2, CT-3), every build.
    result = fracas.resolve(__import__("json").loads((ROOT / "examples" / "cartyrion.json").read_text()))
    assert result.total_damage == 31
    assert "<code>total_damage</code>" in html and "<code>31</code>" in html


def test_every_public_function_has_an_api_page_from_its_docstring(site):
    index = page(site, "api")
    for name in fracas.__all__:
        value = getattr(fracas, name)
        if callable(value) and not isinstance(value, type):
            html = page(site, f"api/{name}")
            assert f"fracas.{name}" in html and f'href="{name}/"' in index
            doc = (value.__doc__ or "").strip().split("\n")[0]
            words = re.findall(r"[a-z]{4,}", doc)[:3]
            assert all(word in html for word in words), (name, words)
    resolve = page(site, "api/resolve")
    assert "seed" in resolve and "AttackOutcome" in resolve


def test_the_cli_page_lists_every_command(site):
    from fracas.cli import main

    html = page(site, "cli")
    for name, command in main.commands.items():
        assert f"fracas {name}" in html, name
        for sub in getattr(command, "commands", {}):
            assert f"fracas {name} {sub}" in html, (name, sub)


def test_the_bridge_page_names_every_method(site):
    from fracas.bridge.dispatcher import METHODS

    html = page(site, "bridge")
    for method in METHODS:
        assert method in html, method


def test_the_getting_started_python_runs_as_written():
    _needs_checkout()
    text = (ROOT / "docs" / "getting-started.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "getting-started.md", "exec"), {"__name__": "getting_started"})


def test_the_addresses_agree():
    _needs_checkout()
    urls = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]
    config = CONFIG.read_text()
    assert re.search(rf"^site_url: {re.escape(urls['Documentation'])}$", config, re.M)
    assert re.search(rf"^repo_url: {re.escape(urls['Source'])}$", config, re.M)
    readme = (ROOT / "README.md").read_text()
    assert urls["Documentation"] in readme  # the README links into the site
    assert urls["Issues"].startswith(urls["Source"]) and urls["Changelog"].startswith(urls["Source"])
