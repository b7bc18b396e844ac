"""The compiled extension surface for plug-ins (issue 45 item 2; docs/ADDING_A_RULESET.md "A
compiled kernel"): the generator's public .pxd files (`fracas.dice.get_include()`) and
`fracas.dice.stream`, a stream in C whose capsule "fracas.Dice" holds its `Dice*`. The draw
order (docs/ENGINE.md section 1: xoshiro128** seeded by SplitMix64, Lemire's dice) is the one
`fracas.dice.Dice` draws. A plug-in's kernel built on them is tested in
tests/release/test_examples.py (docs/examples/burstpool, installed with pip)."""

from __future__ import annotations

import ctypes
import re
from array import array
from pathlib import Path

import pytest

from fracas import _kernels
from fracas._layout import E_ROLL_RANGE, E_ROLLS_SHORT
from fracas.dice import CAPSULE_NAME, Dice, KernelError, get_include, stream

needs_core = pytest.mark.skipif(_kernels.compiled is None, reason="the compiled core is not built")

_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_get_name = ctypes.pythonapi.PyCapsule_GetName
_get_name.restype = ctypes.c_char_p
_get_name.argtypes = [ctypes.py_object]


@needs_core
@pytest.mark.parametrize("faces", [2, 6, 7, 20, 100, 1 << 21])
def test_a_stream_draws_the_faces_dice_draws(faces):
    """ENGINE §1: the same seed, the same faces and the same state after, die for die."""
    for seed in (0, 1, 2**64 - 1, 123456789):
        c, p = stream(seed), Dice.from_seed(seed)
        assert [c.die(faces) for _ in range(500)] == [p.die(faces) for _ in range(500)]
        assert c.state == tuple(p.state) and not c.injected


@needs_core
def test_a_stream_of_injected_faces_stops_as_dice_does():
    """Injected faces (docs/ENGINE.md "Injected rolls"): read in order; short or out of range,
    the KernelError Dice raises, with its code, position and die."""
    c, p = stream(5, [3, 6, 1]), Dice.from_seed(5, array("i", [3, 6, 1]))
    assert [c.die(6) for _ in range(3)] == [p.die(6) for _ in range(3)] == [3, 6, 1]
    assert c.injected and c.pos == p.pos == 3
    with pytest.raises(KernelError) as short:
        c.die(6)
    with pytest.raises(KernelError) as python_short:
        p.die(6)
    assert (short.value.code, short.value.position) == (python_short.value.code, python_short.value.position)
    assert (short.value.code, short.value.position) == (E_ROLLS_SHORT, 3)
    with pytest.raises(KernelError) as bad:
        stream(5, [7]).die(6)
    assert (bad.value.code, bad.value.position, bad.value.faces) == (E_ROLL_RANGE, 0, 6)
    with pytest.raises(KernelError) as empty:
        stream(5, []).die(6)  # an empty list is injected too: never the generator
    assert empty.value.code == E_ROLLS_SHORT


@needs_core
def test_its_capsule_holds_the_streams_state():
    """numpy's BitGenerator.capsule holds its bitgen_t; a stream's holds its Dice, whose first
    four words are the generator's state (fracas_dice.pxd: `Dice`), which draws advance."""
    c = stream(42)
    assert _get_name(c.capsule).decode() == CAPSULE_NAME == "fracas.Dice"
    words = (ctypes.c_uint32 * 4).from_address(_get_pointer(c.capsule, CAPSULE_NAME.encode()))
    assert tuple(words) == c.state
    before = tuple(words)
    c.die(20)
    p = Dice.from_seed(42)
    p.die(20)
    assert tuple(words) == c.state == tuple(p.state) != before


@needs_core
def test_bad_arguments_are_refused_before_drawing():
    with pytest.raises(ValueError, match="seed must be 0 <= seed < 2\\*\\*64"):
        stream(-1)
    with pytest.raises(ValueError, match="seed must be"):
        stream(2**64)
    c = stream(1)
    for faces in (0, (1 << 21) + 1):
        with pytest.raises(ValueError, match="faces must be 1..2\\*\\*21"):
            c.die(faces)
    assert c.state == stream(1).state  # nothing drawn


def test_the_include_folder_holds_the_public_pxd_and_what_it_cimports():
    """fracas_dice.pxd names its public names, each declared in _generator.pxd; every module it
    (and what it cimports) cimports is in the folder or Cython's own (libc, cpython)."""
    folder = Path(get_include())
    public = (folder / "fracas_dice.pxd").read_text()
    generator = (folder / "_generator.pxd").read_text()
    (names,) = re.findall(r"^from _generator cimport (.+)$", public, re.M)
    for name in (n.strip() for n in names.split(",")):
        assert re.search(rf"^cdef (?:struct {name}\b|inline \w+\*? {name}\()", generator, re.M), name
        assert name in public.split("# n is")[0], f"{name} is not described in fracas_dice.pxd"
    assert "cdef inline Dice* dice_of(object capsule) except NULL" in public
    for text in (public, generator):
        for module in re.findall(r"^from ([\w.]+) cimport", text, re.M):
            assert module.split(".")[0] in ("libc", "cpython") or (folder / f"{module}.pxd").is_file(), module


def test_a_core_without_streams_is_named_not_crashed(monkeypatch):
    """A compiled core built before `Stream` existed (no stale-layout sign of it): a RuntimeError
    saying to rebuild; no core at all: one saying why (the compilerless install checks that)."""
    from types import SimpleNamespace

    monkeypatch.setattr(_kernels, "compiled", SimpleNamespace(generator=SimpleNamespace()))
    with pytest.raises(RuntimeError, match="needs a compiled core built from this fracas: rebuild it"):
        stream(1)
    monkeypatch.setattr(_kernels, "compiled", None)
    with pytest.raises(RuntimeError, match="fracas.dice.stream needs the compiled core: "):
        stream(1)
