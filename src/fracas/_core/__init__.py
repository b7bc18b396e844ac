"""The compiled kernels of fracas: the hot path in C, with the GIL released.

The twin of `fracas._native` (pure Python): same entry points, same buffers, same
arithmetic, same draw order (docs/ENGINE.md). One extension module per concern, built by
setup.py from `cython_core/`: `generator` (seeding, words and dice; the generator's C
API is `_generator.pxd`), `er` (the Enchanted Realms detail and summary kernels, the
strike kernel inline in `_er.pxd`), `lanes` (the one-strike mob on several streams at
once), `rows` (the strike-row kernel of the other rulesets, inline in `_rows.pxd`),
`single` (one ER attack, buffers made there) and `fights` (whole fights). This package
gathers their functions into the one module-like backend `fracas._kernels.active()`
returns. Inputs are checked with the GIL held; the loops then run `with nogil` over
typed memoryviews into preallocated outputs, and return arrays only: the rulesets build
the results. An install without a C compiler has no such modules, and importing this
package fails (fracas._kernels then runs the pure-Python twin).
"""

from . import er, fights, generator, lanes, rows, single
from .er import roll_detail, roll_summary
from .fights import play_fights
from .generator import die, draw_faces, generator_words, seed_state
from .lanes import LANES, LANES_ISA, lanes_dice, lanes_draws, lanes_fit, lanes_words, roll_summary_lanes
from .rows import xroll_detail, xroll_summary
from .single import roll_seeded, roll_single

BACKEND = "compiled"

#: The extension modules, each carrying the array layout it was compiled with.
MODULES = (generator, er, lanes, rows, single, fights)

#: The array layout the modules were compiled with (generated `_layout.pxi`); the
#: stale-core check (`fracas._kernels.stale_reason`) compares it, and each module's, with
#: `fracas._layout`.
LAYOUT = generator.LAYOUT

__all__ = ["BACKEND", "LANES", "LANES_ISA", "LAYOUT", "MODULES", "die", "draw_faces", "generator_words",
           "lanes_dice", "lanes_draws", "lanes_fit", "lanes_words", "play_fights", "roll_detail", "roll_seeded", "roll_single", "roll_summary", "roll_summary_lanes",
           "seed_state", "xroll_detail", "xroll_summary"]
