"""The tests' d6 pool as the Roll20 contract has it, for the JavaScript tests.

    python vtt_scripts/roll20/test/tools/d6pool_contract.py     write test/fixtures/d6pool_contract.json

docs/examples/d6pool is a ruleset package with no Roll20 port (its manifest's clients are
Python only), the one tests/seam/test_new_ruleset.py installs as a third-party package.
This writes its contract entry and request structs exactly as `python -m fracas.spec`
would write them into contract.js were the package installed ({entry, structs}), so that
test/mod.bridgeonly.test.js and test/relay.browser.test.js build the Mod bundle with it
without running Python, and copy nothing by hand: `python -m fracas.spec --check` fails
when the package changes and this file does not.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FIXTURE = HERE.parent / "fixtures" / "d6pool_contract.json"
PACKAGE_DIR = HERE.parents[3] / "docs" / "examples" / "d6pool"


def contract() -> dict[str, Any]:
    """{entry, structs} of the d6 pool, registered through the public registry for the time
    it takes (the registry is as it was afterwards)."""
    import fracas.rulesets
    from fracas.spec import generate

    sys.path.insert(0, str(PACKAGE_DIR))
    try:
        ruleset = fracas.rulesets.register_package("d6pool")
        assert ruleset is not None, f"{PACKAGE_DIR}/d6pool has no manifest.toml"
        try:
            made = generate.contract_facts()
        finally:
            fracas.rulesets.unregister(ruleset.name)
    finally:
        sys.path.remove(str(PACKAGE_DIR))
    entry = next(r for r in made["RULESETS"] if r["name"] == ruleset.name)
    return {"entry": entry, "structs": made["STRUCTS"][ruleset.name]}


def outputs() -> dict[Path, str]:
    """What this tool writes, {path: text} (`python -m fracas.spec` writes and checks it)."""
    made = contract()
    structs = ",\n".join(f"    {json.dumps(name)}: {json.dumps(fields)}" for name, fields in made["structs"].items())
    return {FIXTURE: f'{{\n  "entry": {json.dumps(made["entry"])},\n  "structs": {{\n{structs}\n  }}\n}}\n'}


if __name__ == "__main__":
    from fracas.spec import regen

    regen.write(outputs())
