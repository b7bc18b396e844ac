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


def _pages(site: Path):
    for html in sorted(site.rglob("*.html")):
        if html.name != "404.html":  # its links are absolute, for any address that is missing
            yield html, html.read_text(encoding="utf-8")


def _text(fragment: str) -> str:
    import html

    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def test_rendered_code_is_pasteable_no_escaped_pipe(site):
    # `@{target\|token_id}` in a Markdown table: GitHub shows `|`, Python-Markdown kept the
    # backslash inside code, and a Roll20 command pasted from the site broke.
    found = []
    for path, html in _pages(site):
        for code in re.findall(r"<code[^>]*>(.*?)</code>", html, re.S):
            if "\\|" in _text(code):
                found.append((str(path.relative_to(site)), _text(code)[:80]))
    assert found == []
    roll20 = _text(page(site, "roll20"))
    assert "@{target|token_id}" in roll20 and "--output public|whisper" in roll20


def _summaries():
    """(`fracas NAME …`, the summary the CLI reference shows) of every command and subcommand:
    mkdocs-click shows the short help, or the help's first line."""
    from fracas.cli import main

    for name, command in main.commands.items():
        yield f"fracas {name}", command
        for sub, subcommand in getattr(command, "commands", {}).items():
            yield f"fracas {name} {sub}", subcommand


def test_every_command_summary_is_whole(site):
    import html as escape

    text = _text(page(site, "cli"))
    for path, command in _summaries():
        shown = (command.short_help or command.help or "").splitlines()[0].strip()
        assert shown.endswith((".", ")")), (
            f"{path}: the CLI reference cuts its summary at a line break: {shown!r}; give the command a one-line"
            " short_help (a whole sentence), or a first line that is one")
        assert escape.unescape(shown) in text, (path, shown)


def test_every_rulesets_flags_are_in_the_cli_reference(site):
    html = page(site, "cli")
    for name in fracas.rulesets.names():
        ruleset = fracas.rulesets.get(name)
        at = html.find(f'id="flags-{name}"')
        assert at >= 0, f"no section of {name}'s flags"
        section = _text(html[at:html.find("<h3", at + 1) if "<h3" in html[at + 1:] else None])
        for option in ruleset.cli_options():
            for flag in option.opts:
                assert flag in section, (name, flag)


def _rule_ids() -> dict[str, str]:
    """Rule-ID prefix (ER) → rules page path (rules/enchanted-realms), of the registered rulesets."""
    return {m.id.upper(): f"rules/{m.rules_page.removesuffix('.md')}" for m in fracas.rulesets.manifests()}


def test_every_rule_id_has_an_anchor_on_its_rules_page(site):
    prefixes = _rule_ids()
    anchors = {prefix: set(re.findall(r'id="([a-z]+-\d+)"', page(site, path))) for prefix, path in prefixes.items()}
    cited: set[str] = set()
    for _path, html in _pages(site):  # every rule ID the site cites, error messages' included
        cited |= set(re.findall(rf"\b(?:{'|'.join(prefixes)})-\d+\b", _text(html)))
    pattern = re.compile(rf"\b(?:{'|'.join(prefixes)})-\d+\b")
    for manifest in fracas.rulesets.manifests():  # the messages a ruleset's errors are made from
        cited |= set(pattern.findall(" ".join(manifest.messages.values())))
    for source in (ROOT / "src" / "fracas").rglob("*.py"):  # and the errors the code raises
        cited |= set(pattern.findall(source.read_text(encoding="utf-8")))
    assert cited
    missing = sorted(rule for rule in cited if rule.lower() not in anchors[rule.split("-")[0]])
    assert missing == [], f"rule IDs without an anchor on their rules page: {missing}"
    for prefix, path in prefixes.items():  # one anchor an ID: a later note on the rule links to its definition
        ids = re.findall(r'id="([a-z]+-\d+)"', page(site, path))
        assert len(ids) == len(set(ids)), (path, sorted(i for i in ids if ids.count(i) > 1))
    rules = page(site, "rules/enchanted-realms")
    assert '<a id="er-3"></a><strong>ER-3' in rules  # the anchor stands at the rule's definition
    assert 'href="../rules/worldwalker/#ww-4"' in page(site, "cli")  # and the reference links to it


def test_no_page_points_at_a_file_the_site_lacks(site):
    missing = []
    for path, html in _pages(site):
        for href in re.findall(r'(?:href|src)="([^"#?]+)', html):
            if re.match(r"^[a-z][a-z0-9+.-]*:", href, re.I) or href.startswith("//"):
                continue
            target = (path.parent / href).resolve()
            if href.endswith("/"):
                target = target / "index.html"
            if not target.exists():
                missing.append((str(path.relative_to(site)), href))
    assert missing == []
    roll20 = page(site, "roll20")  # a page kept beside its code says where its files are
    assert "https://github.com/fracas-vtt/fracas/tree/main/vtt_scripts/roll20" in roll20
