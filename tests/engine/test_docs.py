"""The examples in docstrings and the README run as written."""

import doctest
import re
from pathlib import Path

import fracas

README = Path(__file__).resolve().parents[2] / "README.md"


def test_package_docstring_example():
    # The package's own docstring only (recurse=False): walking the package's namespace
    # would import lazily loaded modules into it mid-walk, after some other tests ran.
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner()
    for test in finder.find(fracas):
        runner.run(test)
    failures, tried = runner.summarize(verbose=False)
    assert tried > 0 and failures == 0


def test_readme_python_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks
    namespace = {"__name__": "readme"}  # the blocks read as one session
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)


DOCS = Path(__file__).resolve().parents[2] / "docs"
RULE_IDS = {
    "enchanted-realms.md": [f"ER-{n}" for n in range(1, 24)],
    "worldwalker.md": [f"WW-{n}" for n in range(1, 9)],
    "cartyrion.md": [f"CT-{n}" for n in range(1, 8)],
    "old-school.md": [f"OS-{n}" for n in range(1, 7)],
}


def test_every_ruleset_page_keeps_every_rule_id():
    for page, ids in RULE_IDS.items():
        text = (DOCS / "rules" / page).read_text()
        missing = [rule for rule in ids if not re.search(rf"\*\*{rule} ", text)]
        assert not missing, f"{page} lacks {missing}"


def test_every_request_on_a_rules_page_runs():
    """The request each rules page shows (its ```json blocks) runs as written: one naming strikes
    is an attack; another is the one kind of its ruleset's own whose request it is (a WW-8
    counterspell, say)."""
    import json

    import msgspec

    ran = 0
    for page in sorted((DOCS / "rules").glob("*.md")):
        for block in re.findall(r"```json\n(.*?)```", page.read_text(), re.S):
            request = json.loads(block)
            if "strikes" in request:
                fracas.resolve(request)
                ran += 1
                continue
            ruleset = fracas.rulesets.get(request.get("ruleset", fracas.rulesets.DEFAULT))
            fits = []
            for kind in ruleset.own_kinds:
                try:
                    msgspec.convert(request, ruleset.request_types[kind.name])
                except msgspec.ValidationError:
                    continue
                fits.append(kind.name)
            assert len(fits) == 1, (page.name, fits, block)
            fracas.roll(fits[0], request)
            ran += 1
    assert ran >= 4


def _rule_text(page: str, rule: str) -> str:
    """The bullet of `rule` on a rules page: from its `**RULE ` to the next bullet."""
    text = (DOCS / "rules" / page).read_text()
    start = text.index(f"**{rule} ")
    end = text.find("\n- **", start)
    return text[start:end if end > 0 else None]


def test_example_scenarios_cite_the_rule_they_describe():
    """Each rule ID an example scenario's description cites names the rule of the words it is
    cited with (issue 42: "ER-12 resistances" cited the advantage rule, not ER-10): the clause
    shares a word (its first five letters) with that rule's text on the rules page."""
    import json

    pages = {"ER": "enchanted-realms.md", "WW": "worldwalker.md", "CT": "cartyrion.md", "OS": "old-school.md"}
    stems = lambda text: {w[:5].lower() for w in re.findall(r"[A-Za-z]{5,}", text)}  # noqa: E731
    cited = 0
    for path in sorted((DOCS.parent / "examples" / "scenarios").glob("*.json")):
        description = json.loads(path.read_text())["description"]
        for match in re.finditer(r"\b(ER|WW|CT|OS)-(\d+)\b([^);]*)", description):
            clause = re.split(r"[,;:.]", description[:match.start()])[-1] + match.group(3)
            rule = f"{match.group(1)}-{match.group(2)}"
            assert stems(clause) & stems(_rule_text(pages[match.group(1)], rule)), (path.name, rule, clause)
            cited += 1
    assert cited >= 10


def test_each_registered_ruleset_has_its_rules_page():
    for name in fracas.rulesets():
        manifest = fracas.rulesets.get(name).manifest
        # a page under docs/rules/, or one kept in the ruleset's folder (the site adds it)
        if manifest.rules.startswith("docs/"):
            assert (DOCS.parent / manifest.rules).is_file(), manifest.rules
        else:
            assert manifest.rules_text().strip(), manifest.rules
        assert f"`{name}`" in fracas.rulesets.docs_index()


def test_user_facing_text_never_points_outside_the_project():
    """A user of fracas has no ../shared folder: docs, README and messages stand alone."""
    root = DOCS.parent
    texts = [README, *DOCS.rglob("*.md"), *(root / "src").rglob("*.py"), *(root / "src").rglob("*.toml"),
             *(root / "bridge").glob("*.md"), *(root / "vtt_scripts").glob("*/README.md")]
    for path in texts:
        assert "../shared" not in path.read_text(), path


def test_engine_md_section_7_example_is_what_the_engine_returns():
    """docs/ENGINE.md §7 shows a request and its result: the engine gives exactly that."""
    import json

    section = (DOCS / "ENGINE.md").read_text().split("## 7.", 1)[1].split("## 8.", 1)[0]
    request, shown = (json.loads(block) for block in re.findall(r"```json\n(.*?)```", section, re.S)[:2])
    result = fracas.resolve(request).to_dict()
    result.pop("backend")
    shown.pop("backend")
    assert result == shown


def test_documented_bulk_detail_values_are_the_ones_the_schemas_accept():
    """Issue 45: resolve_bulk's docstring named detail values ("groups", "strikes") every
    ruleset's schema refuses."""
    import typing

    documented = re.search(r"optional `detail` \((.*?)\)\s+and", fracas.resolve_bulk.__doc__, re.S)
    assert documented, "resolve_bulk's docstring no longer lists the detail values"
    values = set(re.findall(r'"(\w+)"', documented.group(1)))
    checked = 0
    for name in fracas.rulesets():
        bulk_type = fracas.rulesets.get(name).request_types.get("bulk")
        hint = typing.get_type_hints(bulk_type).get("detail") if bulk_type is not None else None
        if hint is None:
            continue
        assert set(typing.get_args(hint)) == values, name
        checked += 1
    assert checked >= 4  # the built-in rulesets' bulk requests
