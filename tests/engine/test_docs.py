"""The examples in docstrings and the README run as written."""

import doctest
import re
from pathlib import Path

import fracas

README = Path(__file__).resolve().parents[2] / "README.md"


def test_package_docstring_example():
    failures, tried = doctest.testmod(fracas)
    assert tried > 0 and failures == 0


def test_readme_python_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks
    namespace = {"__name__": "readme"}  # the blocks read as one session
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)
