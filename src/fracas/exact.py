"""Exact distributions with integer arithmetic: the engine of `fracas.odds`.

A `Dist` is a finite distribution over hashable outcomes (damage values, or tuples
of a damage value and flags) held as integer weights over one integer denominator,
so convolution and mixture stay exact without a gcd per step (Fractions appear
only in the answer). Unbounded chains (ER crit chains, Cartyrion explosions) are
cut at a stated depth; the mass they leave out is `Dist.omitted`, kept exact and
reported with every answer (always below `TAIL`).
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
        """Probability the cut chains left out (0 for a complete distribution)."""
        return 1 - self.mass

    def map(self, f: Callable[[Any], Any]) -> "Dist":
        w: dict[Any, Any] = {}
        for v, x in self.w.items():
            k = f(v)
            w[k] = w.get(k, 0) + x
        return Dist(w, self.den)

    def convolve(self, other: "Dist", combine: Callable[..., Any] = lambda a, b: a + b) -> "Dist":
        """The distribution of combine(a, b) for independent a ~ self, b ~ other."""
        w: dict[Any, Any] = {}
        for a, x in self.w.items():
            for b, y in other.w.items():
                k = combine(a, b)
                w[k] = w.get(k, 0) + x * y
        return Dist(w, self.den * other.den)

    def power(self, n: int) -> "Dist":
        """The sum of `n` independent copies (n >= 1), by repeated squaring."""
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
