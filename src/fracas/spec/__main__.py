"""`python -m fracas.spec [--check]`: see `fracas.spec.regen`."""

import sys

from .regen import main

sys.exit(main(sys.argv[1:]))
