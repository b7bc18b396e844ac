"""Exact distributions with integer arithmetic: the engine of `fracas.odds`.

A `Dist` is a finite distribution over hashable outcomes (damage values, or tuples
of a damage value and flags) held as integer weights over one integer denominator,
so convolution and mixture stay exact without a gcd per step (Fractions appear
only in the answer). Unbounded chains (ER crit chains, Cartyrion explosions) are
cut at a stated depth (what they would leave out is below `TAIL`), and the odds
contract is that an answer leaves nothing out: a ruleset keeps the mass past the
cut at the cut (so every distribution `fracas.odds` reports sums to exactly 1,
`Dist.omitted` is 0, and the driver refuses one that is not) and reports that
mass as the answer's `cut`, the probability whose damage is counted short.
`Dist.omitted` measures a part built along the way (a sub-distribution that
`mix` completes).
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd
from typing import Any, Callable, Iterable, Optional

from .errors import LimitError
from .requests import say

#: The most probability mass an answer may leave out when it cuts an unbounded chain.
TAIL = Fraction(1, 10**15)
#: Pairings of outcomes one odds request may fold per target before it is refused.
MAX_WORK = 1_000_000


class Budget:
    """Counts the pairings a fold is about to do; refuses (LimitError) past MAX_WORK,
    before doing them."""

    __slots__ = ("used",)

    def __init__(self) -> None:
        self.used = 0

    def spend(self, a: "Dist", b: "Dist", path: str) -> None:
        self.used += len(a.w) * len(b.w)
        if self.used > MAX_WORK:
            raise LimitError(path, say("odds_too_large", most=f"{MAX_WORK:,}"))


def _ADD(a: Any, b: Any) -> Any:
    return a + b


class Dist:
    """Outcome → integer weight, over the denominator `den` (weights sum to at most `den`)."""

    __slots__ = ("w", "den")

    def __init__(self, weights: dict[Any, Any], den: int):
        self.w = weights
        self.den = den

    @staticmethod
    def point(value: Any) -> "Dist":
        return Dist({value: 1}, 1)

    @staticmethod
    def uniform(values: Iterable[Any]) -> "Dist":
        w: dict[Any, Any] = {}
        n = 0
        for v in values:
            w[v] = w.get(v, 0) + 1
            n += 1
        return Dist(w, n)

    @property
    def mass(self) -> Fraction:
        return Fraction(sum(self.w.values()), self.den)

    @property
    def omitted(self) -> Fraction:
        """Probability this distribution leaves out (0 for a complete one: every answer of
        `fracas.odds` is complete, module docstring)."""
        return 1 - self.mass

    def map(self, f: Callable[[Any], Any]) -> "Dist":
        w: dict[Any, Any] = {}
        for v, x in self.w.items():
            k = f(v)
            w[k] = w.get(k, 0) + x
        return Dist(w, self.den)

    def convolve(self, other: "Dist", combine: Callable[..., Any] = _ADD) -> "Dist":
        """The distribution of combine(a, b) for independent a ~ self, b ~ other."""
        if combine is _ADD and len(self.w) * len(other.w) > 256:
            spans = self.integer_span(), other.integer_span()
            if spans[0] is not None and spans[1] is not None:
                return kronecker_product(self, other)
        w: dict[Any, Any] = {}
        for a, x in self.w.items():
            for b, y in other.w.items():
                k = combine(a, b)
                w[k] = w.get(k, 0) + x * y
        return Dist(w, self.den * other.den)

    def integer_span(self) -> Optional[tuple[int, int]]:
        """(lowest, highest) outcome when every outcome is an int (damage totals); else None."""
        keys = self.w.keys()
        if not keys or not all(type(k) is int for k in keys):
            return None
        return min(keys), max(keys)

    def power(self, n: int) -> "Dist":
        """The sum of `n` independent copies (n >= 1): for integer outcomes one big-integer power
        (`kronecker_power`); otherwise by repeated squaring of dictionaries."""
        if n > 1 and self.integer_span() is not None:
            return kronecker_power(self, n)
        result: Optional[Dist] = None
        base = self
        while n:
            if n & 1:
                result = base if result is None else result.convolve(base)
            n >>= 1
            if n:
                base = base.convolve(base)
        if result is None:
            raise ValueError(f"power of a distribution needs n >= 1, got {n}")
        return result

    def reduced(self) -> "Dist":
        g = self.den
        for x in self.w.values():
            g = gcd(g, x)
            if g == 1:
                return self
        return Dist({k: x // g for k, x in self.w.items()}, self.den // g) if g > 1 else self

    def prob(self, pred: Callable[[Any], bool]) -> Fraction:
        return Fraction(sum(x for v, x in self.w.items() if pred(v)), self.den)

    def items(self) -> Any:
        """(outcome, exact probability) in ascending outcome order."""
        for v in sorted(self.w):
            yield v, Fraction(self.w[v], self.den)


def mix(parts: list[tuple[Fraction, "Dist"]]) -> Dist:
    """The mixture: with probability p take a draw from d (the p need not sum to 1)."""
    den = 1
    for p, d in parts:
        scale = p.denominator * d.den
        den = den * scale // gcd(den, scale)
    w: dict[Any, Any] = {}
    for p, d in parts:
        if not p:
            continue
        factor = den // (p.denominator * d.den) * p.numerator
        for k, x in d.w.items():
            w[k] = w.get(k, 0) + x * factor
    return Dist(w, den)


def depth_for(faces: int, copies: int = 1) -> int:
    """How many links of a chain that continues with probability 1/faces to keep so
    that what is cut, for `copies` chains together, stays below TAIL."""
    depth = 1
    while Fraction(copies, faces ** depth) >= TAIL:
        depth += 1
    return depth


def kronecker_power(dist: Dist, n: int) -> Dist:
    """The sum of `n` independent copies of an integer-valued distribution, exactly, as one
    big-integer power (Kronecker substitution): the weights, shifted to start at 0, are the
    digits of one integer in base 2**(8·slot), with slot bytes enough for any weight of the
    result (the n-th power's weights sum to at most den**n); that integer's n-th power has the
    n-fold convolution's weights as its digits. CPython multiplies big integers with Karatsuba,
    so this is several times faster than pairing outcomes one by one; the weights are the
    same integers."""
    span = dist.integer_span()
    assert span is not None
    den = dist.den ** n
    slot = _slot(den)
    packed = _pack(dist, span[0], span[1], slot) ** n
    return _unpack(packed, span[0] * n, (span[1] - span[0]) * n + 1, slot, den)


def kronecker_product(a: Dist, b: Dist) -> Dist:
    """The sum of independent a and b (integer outcomes), as one big-integer product (see
    `kronecker_power`)."""
    (a_low, a_high), (b_low, b_high) = a.integer_span(), b.integer_span()  # type: ignore[misc]
    den = a.den * b.den
    slot = _slot(den)
    packed = _pack(a, a_low, a_high, slot) * _pack(b, b_low, b_high, slot)
    return _unpack(packed, a_low + b_low, (a_high - a_low) + (b_high - b_low) + 1, slot, den)


def _slot(den: int) -> int:
    """Bytes per digit: room for any weight over `den` (weights sum to at most den)."""
    return -(-(den.bit_length() + 1) // 8)


def _pack(dist: Dist, low: int, high: int, slot: int) -> int:
    digits = bytearray(slot * (high - low + 1))
    for value, weight in dist.w.items():
        at = (value - low) * slot
        digits[at:at + slot] = weight.to_bytes(slot, "little")
    return int.from_bytes(digits, "little")


def _unpack(packed: int, low: int, size: int, slot: int, den: int) -> Dist:
    out = packed.to_bytes(slot * size, "little")
    weights: dict[Any, Any] = {}
    for i in range(size):
        weight = int.from_bytes(out[i * slot:(i + 1) * slot], "little")
        if weight:
            weights[low + i] = weight
    return Dist(weights, den)
