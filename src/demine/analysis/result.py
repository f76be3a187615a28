"""The result types of an analysis: :class:`Analysis`, :class:`Reason`, the budget
:class:`Limit`, and :class:`Pace` for searches that share one deadline (made in
:mod:`demine.analysis.order`, which is compiled: the searches ask it at every step)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

from demine.analysis.order import Pace as Pace

if TYPE_CHECKING:
    from demine.engine.position import Position

ReasonKind = Literal["number", "pair", "component", "mine-count"]

Ratio = tuple[int, ...]
"""A chance of a mine as ``(numerator, denominator)``. Written as a tuple of any length on purpose:
the compiled build (mypyc) stores a fixed-length ``tuple[int, int]`` unboxed and makes a new tuple
object each time it hands one out, and the cells of a box share one such object, told apart by its
identity (``id``); a plain tuple stays the one object in both builds."""


@dataclass(frozen=True, slots=True)
class Limit:
    """A budget for one analysis.

    When the exact count would exceed it, :func:`~demine.analyze` returns what the cheaper rules
    prove, with approximate probabilities and ``Analysis.approximate = True``.
    """

    seconds: float | None = None
    """Wall-clock budget; None for no limit."""
    states: int = 2_000_000
    """The most partial states the counter may store for one component (bounds memory: a few
    hundred bytes each)."""


@dataclass(frozen=True, slots=True)
class Reason:
    """Why a cell is forced.

    ``kind`` is ``number`` (one revealed number forces it), ``pair`` (two numbers together, the
    subset rule), ``component`` (a set of numbers together, found by exact counting) or
    ``mine-count`` (the numbers allow it either way; only the total mine count decides).
    """

    kind: ReasonKind
    """Which rule proves it."""
    numbers: tuple[int, ...]
    """The constraints involved: revealed cells on a board, constraint labels otherwise."""


@dataclass(eq=False)
class Analysis:
    """What can be known about the covered cells of a position.

    Probabilities are exact ``Fraction`` values (``probability``) with float access (``p``).
    They are stored per group of cells that share them, and made into fractions only when asked for.
    """

    unknown: tuple[int, ...]
    """The cells analysed (covered, and flagged ones when flags are not trusted)."""
    safe: frozenset[int]
    """Cells that hold no mine in any consistent layout."""
    mines: frozenset[int]
    """Cells that hold a mine in every consistent layout."""
    solutions: int | None
    """The number of consistent mine layouts of the unknown cells (None when approximate)."""
    approximate: bool = False
    """True when the budget ran out and the probabilities are estimates."""
    ms: float = 0.0
    """Time taken, in milliseconds."""
    known_mines: frozenset[int] = frozenset()
    """Flags trusted as mines (not part of ``unknown``)."""
    _prob: dict[int, Ratio] = field(default_factory=dict, repr=False)
    _reasons_fn: Callable[[], dict[int, Reason]] | None = field(default=None, repr=False)
    _reasons: dict[int, Reason] | None = field(default=None, repr=False)
    _min: Fraction | None = field(default=None, repr=False)
    _fractions: dict[int, tuple[Ratio, Fraction]] = field(default_factory=dict, repr=False)
    _values: list[Ratio] | None = field(default=None, repr=False)
    """Every value object of ``_prob`` (each at least once), when its maker kept them."""

    def probability(self, cell: int) -> Fraction:
        """The chance that ``cell`` holds a mine, exactly. One ``Fraction`` per value, found by
        the identity of its ``(numerator, denominator)`` (the cells of a box share one; hashing
        counts of hundreds of digits cell after cell is slow on a big board); the entry keeps
        that pair and is used only for the very same object."""
        nd = self._prob[cell]
        got = self._fractions.get(id(nd))
        if got is not None and got[0] is nd:
            return got[1]
        f = Fraction(*nd)
        self._fractions[id(nd)] = (nd, f)
        return f

    def p(self, cell: int) -> float:
        """The chance that ``cell`` holds a mine, as a float."""
        num, den = self._prob[cell]
        if num == 0:
            return 0.0
        return num / den

    @property
    def probabilities(self) -> dict[int, Fraction]:
        """Every unknown cell's chance of a mine."""
        return {c: Fraction(n, d) for c, (n, d) in self._prob.items()}

    @property
    def ratios(self) -> Mapping[int, Ratio]:
        """Every unknown cell's chance of a mine as ``(numerator, denominator)``, read only: what
        a player reads to compare many cells' chances fast (equal pairs are equal chances; a
        ``Fraction`` per cell is made only when asked for)."""
        return MappingProxyType(self._prob)

    def float_probabilities(self) -> dict[int, float]:
        """Every unknown cell's chance of a mine, as floats."""
        return {c: (n / d if n else 0.0) for c, (n, d) in self._prob.items()}

    @property
    def reasons(self) -> dict[int, Reason]:
        """For each cell in ``safe`` or ``mines``, what forces it (computed on first use)."""
        if self._reasons is None:
            self._reasons = self._reasons_fn() if self._reasons_fn else {}
        return self._reasons

    def min_probability(self) -> Fraction:
        """The lowest chance of a mine among the unknown cells (1 when there are none).
        Compares the few distinct values exactly, without a Fraction per cell; computed once. The
        cells of a box share one ``(numerator, denominator)`` object, so values are told apart by
        identity first (hashing a tuple of counts with hundreds of digits, cell after cell, cost
        7 ms on a 100x100 board)."""
        if self._min is None:
            best_n, best_d = 1, 1
            values = self._values
            if values is None:
                values = list({id(v): v for v in self._prob.values()}.values())
            for n, d in values:
                if n * best_d < best_n * d:
                    best_n, best_d = n, d
            self._min = Fraction(best_n, best_d)
        return self._min

    def safest(self) -> list[int]:
        """The unknown cells with the lowest chance of a mine (row-major order)."""
        if not self._prob:
            return []
        low = self.min_probability()
        num, den = low.numerator, low.denominator
        # compared once per distinct value object (cells of a box share one), as in min_probability
        values = self._values
        if values is None:
            values = list({id(v): v for v in self._prob.values()}.values())
        lowest = [v for v in values if v[0] * den == v[1] * num]
        if len(lowest) == 1:  # the usual case: the cells holding that one object
            (value,) = lowest
            return sorted(c for c, v in self._prob.items() if v is value)
        ids = {id(v) for v in lowest}
        return sorted(c for c, v in self._prob.items() if id(v) in ids)

    def __iter__(self) -> Iterator[int]:
        return iter(self.unknown)


def reasons_of(position: Position) -> dict[int, Reason]:
    """The reasons of ``position``'s analysis, from a fresh one (for an analysis made without
    them, such as a look-ahead frame's)."""
    from demine.analysis import analyze

    return analyze(position).reasons
