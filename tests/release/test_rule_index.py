"""Where each rule lives (issue 45 item 7): docs/rules/INDEX.md is generated from the rule IDs
the code and the tests cite (`python -m fracas.spec --check` fails when it is stale), and every
rule a ruleset's page defines has an implementation and a test that cite it."""

from __future__ import annotations

from pathlib import Path

from fracas.spec import rule_index

REPO = Path(__file__).resolve().parents[2]


def test_every_defined_rule_is_implemented_and_tested():
    assert rule_index.unbacked(REPO) == {}, "rules that nothing implements or nothing tests (cite the ID)"


def test_every_rule_of_every_page_is_in_the_index():
    text = (REPO / "docs" / "rules" / "INDEX.md").read_text(encoding="utf-8")
    rules = rule_index.defined(REPO)
    assert len(rules) >= 44  # ER-1..23, WW-1..8, CT-1..7, OS-1..6
    for rule in rules:
        assert f"[{rule}](" in text, rule
    assert text == rule_index.render(REPO), "docs/rules/INDEX.md is stale: python -m fracas.spec"


def _tree(tmp_path: Path, page: str, files: dict[str, str]) -> Path:
    (tmp_path / "docs" / "rules").mkdir(parents=True)
    for prefix, name in rule_index.PAGES.items():
        (tmp_path / "docs" / "rules" / f"{name}.md").write_text(page if prefix == "ER" else "", encoding="utf-8")
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    return tmp_path


def test_a_rule_without_an_implementation_or_a_test_is_named(tmp_path):
    page = "- **ER-1 Action.** one.\n- **ER-2 Styles.** two.\n- **ER-3 Cap.** three.\n"
    root = _tree(tmp_path, page, {
        "src/fracas/rulesets/er/plan.py": "# ER-1 and ER-2\n",
        "cython_core/_er.pxd": "# ER-3\n",
        "tests/test_er.py": "def test_er_1(): ...  # ER-1\n",
        "src/fracas/_facts.py": "'ER-2 (generated: not a citation)'\n",
        "vtt_scripts/roll20/test/plan.test.js": "// ER-3\n",
    })
    assert rule_index.unbacked(root) == {"ER-2": ["a test"]}
    found = rule_index.cited(root)
    assert found["ER-3"] == {"compiled": ["cython_core/_er.pxd"], "tests": ["vtt_scripts/roll20/test/plan.test.js"]}
    assert "src/fracas/_facts.py" not in str(found)
