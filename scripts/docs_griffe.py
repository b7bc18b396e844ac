"""A griffe extension for the documentation site (mkdocs.yml loads it for mkdocstrings).

Google-style docstrings may head their doctests `Example:` as well as `Examples:` (the
Google Python style guide and Sphinx's napoleon accept both), but griffe's Google parser
knows only `Examples:` and renders any other heading as an admonition of Markdown text,
where `>>> result["targets"]["ogre"]` reads as a reference link and fails a strict build.
This extension reads `Example:` as `Examples:`, so doctests render as code whichever
heading a docstring uses.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_SINGULAR = re.compile(r"^([ \t]*)Example:[ \t]*$", re.M)


class ExampleSections(griffe.Extension):
    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        docstring = getattr(obj, "docstring", None)
        if docstring is not None and "Example:" in docstring.value:
            docstring.value = _SINGULAR.sub(r"\1Examples:", docstring.value)
