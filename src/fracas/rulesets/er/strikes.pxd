# cython: language_level=3
# C types for strikes.py when setup.py compiles it (Cython's "augmenting .pxd": the .py
# stays plain Python, this file only types it). The layout numbers are C integers here,
# assigned once at import from fracas._layout, so the index arithmetic stays in C.

cimport cython
from libc.stdint cimport int32_t, int64_t

cdef Py_ssize_t LOG_WIDTH, O_BASE, O_CHAIN_LEN, O_CRIT, O_DAMAGE, O_DISCARD, O_HITS, O_LOG, O_MOD
cdef Py_ssize_t O_MOD_USED, O_POOL, O_UNDODGEABLE, OUT_WIDTH
cdef Py_ssize_t G_ATTACKS_HIT, G_CRITS, G_DAMAGE, G_SHOCK, G_STRAYS, T_ATTACKS, T_ATTACKS_HIT, T_CRITS, T_DAMAGE
cdef Py_ssize_t T_LONGEST, T_STRIKES, T_STRIKES_HIT, T_UNDODGEABLE


@cython.locals(n=Py_ssize_t, s=Py_ssize_t, i=Py_ssize_t, o=Py_ssize_t, pos=int64_t, pool=int64_t,
               discard=int64_t, chain_len=int64_t, face=int64_t, d3=int64_t, to_hit=int64_t, ac=int64_t,
               hit=bint, strikes=list, dice=list, chain=list, entry=dict, template=dict)
cpdef list strike_dicts(list metas, const int64_t[::1] out, const int32_t[::1] log, bint defense, int64_t dc_base,
                        object templates=*)



@cython.locals(strikes=list, targets=dict, entry=dict, by_type=dict, strike=dict, total=int64_t, damage=int64_t)
cpdef dict attack_dict(str ruleset, object seed, str backend, bint injected, list metas, const int64_t[::1] out,
                       const int32_t[::1] log, object templates, object target_ids, object flee, bint defense,
                       int64_t dc_base)


@cython.locals(targets=dict, groups=list, by_type=dict, histogram=list, total=int64_t, damage=int64_t, hit=int64_t,
               count=int64_t, t=Py_ssize_t, b=Py_ssize_t, i=Py_ssize_t, base=Py_ssize_t, first_bin=Py_ssize_t,
               end=Py_ssize_t, kept=Py_ssize_t)
cpdef dict bulk_dict(str ruleset, object seed, str backend, str detail, object total_attacks, list target_layout,
                     list group_layout, const int64_t[::1] acc_t, const int64_t[::1] acc_b, const int64_t[::1] acc_g)
