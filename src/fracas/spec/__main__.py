"""`python -m fracas.spec [--check]`: see `fracas.spec`."""

import sys

from .generate import main

sys.exit(main(sys.argv[1:]))
