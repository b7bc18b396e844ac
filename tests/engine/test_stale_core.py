"""A compiled core built from an older checkout (a stale build/ reused) is never run:
fracas falls back to the pure-Python kernels and says why, loudly (issue: newcomer)."""

from __future__ import annotations

import types

import pytest

from fracas import _kernels, _layout
from fracas import _native as python


def fake_core(**changes):
    module = types.ModuleType("fracas._core")
    for name, value in vars(python).items():
        if not name.startswith("_") and callable(value):
            setattr(module, name, value)
    module.LAYOUT = {name: getattr(_layout, name) for name in vars(_layout) if name.isupper()}
    module.LAYOUT.update(changes.pop("layout", {}))
    for name in changes.pop("drop", []):
        delattr(module, name)
    return module


def test_a_core_that_fits_is_not_stale():
    assert _kernels.stale_reason(fake_core()) is None


def test_a_different_layout_is_stale():
    reason = _kernels.stale_reason(fake_core(layout={"PLAN_WIDTH": 99}))
    assert reason == "its array layout differs (PLAN_WIDTH)"


def test_a_missing_kernel_is_stale():
    kernel = sorted(name for name in vars(python) if name.startswith("xroll"))[0]
    assert _kernels.stale_reason(fake_core(drop=[kernel])) == f"it lacks the kernel(s) {kernel}"


def test_no_layout_table_is_stale():
    module = fake_core()
    del module.LAYOUT
    assert _kernels.stale_reason(module) == "it has no layout table"


def test_the_installed_core_is_not_stale():
    if _kernels.compiled is None and _kernels.stale is None:
        pytest.skip("no compiled core in this install")
    assert _kernels.stale is None


def test_why_says_stale_and_how_to_fix(monkeypatch):
    monkeypatch.setattr(_kernels, "stale", "its array layout differs (PLAN_WIDTH)")
    monkeypatch.setattr(_kernels, "compiled", None)
    text = _kernels.why()
    assert text.startswith("the compiled core in this install is stale (its array layout differs (PLAN_WIDTH))")
    assert "delete build/" in text
    assert _kernels.missing_compiled()


def test_the_compiled_kernels_refuse_a_short_info_buffer():
    """The kernels write their status words unchecked (boundscheck off): a buffer too short
    is refused at the entry, never written past (a reviewer's slip once crashed the process)."""
    from array import array

    from fracas import rulesets

    if _kernels.compiled is None:
        pytest.skip("no compiled core in this install")
    core = _kernels.compiled
    state = array("I", (1, 2, 3, 4))
    strike = {"method": "melee", "style": "slashing", "dice": 2, "weight": 1, "damage_type": "edged"}
    er = rulesets.get("enchanted-realms")
    job = er.compile_bulk(er.decode("bulk", {
        "profiles": {"p": {"attacker": {"strength": 4}, "strikes": [strike]}}, "targets": {"t": {"ac": 14}},
        "attacks": [{"profile": "p", "target": "t", "count": 1}]}))
    acc_t, acc_b, acc_g = job.new_totals()
    # the call info is the spec's I_ slots ([layout.info]), INFO_WIDTH of them for every kernel
    with pytest.raises(ValueError, match=f"info needs {_layout.INFO_WIDTH} entries"):
        core.roll_summary(job.plan, job.groups, 1, 0, 1, state, acc_t, acc_b, acc_g, array("q", (0, 0)))
    ww = rulesets.get("worldwalker")
    xjob = ww.compile_bulk(ww.decode("bulk", {
        "ruleset": "worldwalker", "profiles": {"p": {"attacker": {"skill": 2},
                                                     "strikes": [{"method": "melee", "damage": "1d8"}]}},
        "targets": {"t": {"defense": 12}}, "attacks": [{"profile": "p", "target": "t", "count": 1}]}))
    x_t, x_g = xjob.new_totals()
    with pytest.raises(ValueError, match=f"info needs {_layout.INFO_WIDTH} entries"):
        core.xroll_summary(xjob.rows, xjob.groups, 1, xjob.tinit, 0, 1, state, x_t, x_g, array("q", (0,)))


def test_one_stale_extension_module_makes_the_core_stale():
    """The compiled core is several extension modules (fracas._core.MODULES): one built
    from an older layout than the rest is found by name."""
    module = fake_core()
    part = types.ModuleType("fracas._core.rows")
    part.LAYOUT = dict(module.LAYOUT, XPLAN_WIDTH=99)
    module.MODULES = (part,)
    assert _kernels.stale_reason(module) == "its array layout differs in fracas._core.rows (XPLAN_WIDTH)"
    del part.LAYOUT
    assert _kernels.stale_reason(module) == "it has no layout table in fracas._core.rows"
