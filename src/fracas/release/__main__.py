"""`python -m fracas.release --out DIR`: a release's assets, from the installed fracas's clients.

    python -m fracas.release --out release/ [--previous 0.0.9 ...] [--roll20-userid ID]

Writes into DIR what a GitHub release of this version attaches: module.json (Foundry's
manifest URL is the latest release's) and the Foundry zip, the Roll20 One-Click folder
(roll20/fracas/script.json, roll20/fracas/<version>/fracas.js) and its zip, and the relay
extension's zips for the Chrome Web Store and for Firefox. Nothing is uploaded: the tag
workflow (.github/workflows/wheels.yml) publishes them; run here, it is the dry run.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Optional

from . import ClientsError, installed, release_assets, write_tree


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fracas.release", description=__doc__.split("\n\n")[1].strip())
    parser.add_argument("--out", required=True, metavar="DIR", help="folder for the assets (files of the same name are replaced)")
    parser.add_argument("--previous", action="append", default=[], metavar="VERSION",
                        help="an earlier release, for script.json's previousversions (repeat it; a later one is ignored)")
    parser.add_argument("--roll20-userid", default=os.environ.get("FRACAS_ROLL20_USERID", ""), metavar="ID",
                        help="the Roll20 user id of the script's maintainer, for script.json [default: $FRACAS_ROLL20_USERID]")
    args = parser.parse_args(argv)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        parser.error(f"--out {out} is a file, not a folder")
    try:
        clients = installed()
        assets = release_assets(clients, args.previous, args.roll20_userid)
    except ClientsError as err:
        print(f"python -m fracas.release: {err}", file=sys.stderr)
        return 1
    write_tree(out, assets)
    print(f"fracas {clients.version}: wrote {len(assets)} release files to {out}")
    for name in sorted(assets):
        print(f"  {name}  ({len(assets[name]):,} bytes)")
    if not args.roll20_userid:
        print("note: script.json's roll20userid is empty; give --roll20-userid before sending the folder to"
              " roll20-api-scripts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
