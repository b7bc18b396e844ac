# cython: language_level=3
"""The compiled kernels of fracas: the hot path in C, with the GIL released.

The twin of `fracas._native` (pure Python): same entry points, same buffers, same
arithmetic, same draw order (docs/ENGINE.md). Inputs are checked with the GIL held;
the loops then run `with nogil` over typed memoryviews into preallocated outputs.
The layout numbers come from `_layout.pxi`, generated with `fracas._layout` from
the one spec (src/fracas/spec/facts.toml).
"""

from libc.stdint cimport uint32_t, uint64_t, int32_t, int64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset
from cpython cimport array
import array as _pyarray
cimport cython

BACKEND = "compiled"

from _layout cimport *
from _generator cimport *

include "_layout.pxi"

from fracas._facts import CT_EXPLODE_LIMIT as _CT_EXPLODE_LIMIT
# CT-3 decision: explosions in one strike before a maximum face adds no die (the spec's
# ct_explode_limit, as fracas._native bounds it; the strike result says explosions_cut).
cdef int64_t CT_EXPLODE_LIMIT = _CT_EXPLODE_LIMIT


# One file per concern, in this order (each uses only those before it): the generator
# (its C-level API in _generator.pxd, cimported above; here what Python calls),
# the Enchanted Realms kernel, the lane kernel, the strike-row kernel, the single-attack
# path, and whole fights on all of them.
include "_generator.pxi"
include "_er.pxi"
include "_lanes.pxi"
include "_rows.pxi"
include "_single.pxi"
include "_fights.pxi"
