"""Fixtures of the CLI tests: write request files."""

import json

import pytest


@pytest.fixture
def files(tmp_path):
    """write(name, document) → path: a JSON document (or text) in a temporary file."""
    def write(name, document):
        path = tmp_path / name
        path.write_text(document if isinstance(document, str) else json.dumps(document))
        return str(path)
    return write
