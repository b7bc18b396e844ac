"""The help a pip user reads points at what a pip user has (issue 28: "the package
docstrings point to `docs/ENGINE.md`, which no installed package contains").

Every command's `--help`, and `fracas attack|odds --ruleset NAME --help` for each ruleset,
names no file of the source checkout (`docs/…`, `….md`); where it sends the reader further
it is to a page of the documentation site that the site builds from this repository.
"""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

import fracas
from fracas.cli import main

from .helpers import run

ROOT = Path(__file__).resolve().parents[2]
SITE = "https://fracas-vtt.github.io/fracas/"
CHECKOUT_PATH = re.compile(r"\bdocs/|\b[\w.-]+\.md\b")


def every_help() -> dict[str, str]:
    """`fracas … --help` of every command and group, by its command line."""
    helps: dict[str, str] = {}

    def walk(command: click.Command, path: list[str]) -> None:
        helps[" ".join(path)] = run([*path[1:], "--help"]).output
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk(sub, [*path, name])

    walk(main, ["fracas"])
    for ruleset in fracas.rulesets():
        for command in ("attack", "odds"):
            helps[f"fracas {command} --ruleset {ruleset}"] = run([command, "--ruleset", ruleset, "--help"]).output
    return helps


@pytest.fixture(scope="module")
def helps() -> dict[str, str]:
    return every_help()


def test_no_help_names_a_file_of_the_checkout(helps):
    # Click wraps help text; a URL broken at its hyphen ("https://fracas-" / "vtt…") is no address.
    broken = [line for line, text in helps.items() if text.count("https://") != text.count(SITE)]
    assert broken == []
    named = {line: re.findall(CHECKOUT_PATH, text.replace(SITE, ""))
             for line, text in helps.items() if re.search(CHECKOUT_PATH, text.replace(SITE, ""))}
    assert named == {}


def test_no_help_uses_click_s_no_rewrap_marker():
    """mkdocs-click copies a command's help into the site's CLI page line by line, so a "\\b"
    marker (click's "do not rewrap") would land there as a raw control character."""
    marked = []

    def walk(command: click.Command, path: list[str]) -> None:
        if "\b" in (command.help or ""):
            marked.append(" ".join(path))
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk(sub, [*path, name])

    walk(main, ["fracas"])
    assert marked == []


def test_the_site_pages_the_help_names_are_built_from_the_repository(helps):
    # mkdocs.yml: site_url is SITE and use_directory_urls is its default (PAGE.md -> PAGE/).
    pages = {address for text in helps.values() for address in re.findall(re.escape(SITE) + r"([\w/.-]*)", text)}
    assert pages, "the help names no page of the documentation site"
    for page in pages:
        page = page.split("#")[0].rstrip("/.")
        built = (ROOT / "docs" / f"{page}.md").is_file() or (ROOT / "docs" / page / "index.md").is_file()
        generated = page.startswith("reference")  # scripts/docs_hooks.py writes reference/*.md
        assert built or generated, f"{SITE}{page}/ is not a page of the site"


def test_the_site_is_the_package_s_documentation_url():
    assert f'Documentation = "{SITE}"' in (ROOT / "pyproject.toml").read_text()
