"""What the frames of a search (:mod:`demine.analysis.incremental`) are made of and share: a
frame's independent components with their counts (:class:`Part`), and the search's memos
(:class:`Search`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from demine.analysis.exact import CountCache, Counted, marginals, marginals_reduced
from demine.analysis.order import Piece
from demine.analysis.rules import Constraint

#: Shapes by structure: the components of a list of constraints (None: one is wide).
Shapes = dict[tuple[tuple[tuple[int, ...], int], ...], list[Piece] | None]


class Part:
    """One independent component of a frame: its constraints (over cells no rule decided) and
    its count."""

    __slots__ = ("cons", "counted", "tables", "uses")

    def __init__(self, cons: list[Constraint], counted: Counted) -> None:
        self.cons = cons
        """Its constraints."""
        self.counted = counted
        """Its count (:func:`~demine.analysis.exact.count_component`)."""
        self.uses = 0
        """Analyses it took part in."""
        self.tables: list[tuple[int, list[int]]] | None = None
        """Per mine total ``t`` it can hold: ``t`` and each box's weighted mine count over its
        layouts with ``t`` mines (made at its second analysis: a part shared by many frames then
        weighs its boxes without a backward pass)."""

    def weighted(self, R: list[int]) -> list[int]:
        """Each box's weighted mine count over the part's layouts, a layout with ``t`` mines
        weighing ``R[t]``: :func:`~demine.analysis.exact.marginals`'s first result."""
        self.uses += 1
        tables = self.tables
        if tables is None and self.counted.unit is not None:
            tables = self.tables = [self.counted.unit]
        if tables is None:
            if self.uses < 2:
                return marginals_reduced(self.counted, R)[0]
            W = self.counted.W
            tables = self.tables = []
            for t, w in enumerate(W):
                if w:
                    unit = [0] * len(W)
                    unit[t] = 1
                    tables.append((t, marginals(self.counted, unit)[0]))
        M = [0] * len(self.counted.comp.boxes)
        for t, row in tables:
            r = R[t]
            if r:
                for b, m in enumerate(row):
                    if m:
                        M[b] += m * r
        return M


def _own_lowest(cnt: Counted) -> tuple[int, int]:
    """A count's lowest chance of a mine in a box when it has one mine total, as ``(numerator,
    denominator)`` (the same in every frame it is part of: its boxes' weighted mine counts and its
    layouts are both that total's weight times its own counts); ``(-1, 1)`` with more totals.
    Made once per count (one backward pass)."""
    low = cnt.low
    if low is None:
        W = cnt.W
        totals = [t for t, w in enumerate(W) if w]
        low = (-1, 1)
        if len(totals) == 1:
            unit = [0] * len(W)
            unit[totals[0]] = 1
            M = marginals(cnt, unit)[0]
            cnt.unit = (totals[0], M)  # (:meth:`Part.weighted` weighs its boxes from it)
            w = W[totals[0]]
            low = (1, 1)
            for m, cells in zip(M, cnt.comp.boxes, strict=True):
                d = len(cells) * w
                if m * low[1] < low[0] * d:
                    low = (m, d)
        cnt.low = low
    return low


#: The cells opened since a search's root, with their numbers, in cell order: a derived
#: position's name within its search (the same cells opened in any order give the same position).
Path = tuple[tuple[int, int], ...]

#: The parts a list of constraints (and the mines left for it) makes, and the cells its rules
#: decide (None: it cannot hold), by the constraints and that number of mines.
Rebuilt = dict[tuple[tuple[Constraint, ...], int], tuple[dict[int, int], list[Part]] | None]


class Search:
    """What the frames of one search share (:meth:`Frame.root` makes it, :meth:`Frame.after`
    passes it on): component counts and structures, the parts of a list of constraints, and the
    survivals counted."""

    __slots__ = ("cache", "off", "ranked", "rebuilt", "shapes", "states", "survived", "unknown")

    def __init__(self, cache: CountCache, states: int, unknown: list[int], off: list[int]) -> None:
        self.cache = cache
        """Component counts by structure."""
        self.states = states
        """The most states a count may store (``Limit.states``)."""
        self.shapes: Shapes = {}
        """Component structures already met."""
        self.rebuilt: Rebuilt = {}
        """The parts made by :meth:`Frame.after` by their constraints: a number next to parts
        that another number left as they were (the same cell opened after each number of
        another candidate) gives the same parts again."""
        self.survived: dict[Path, tuple[int, float] | None] = {}
        """The survivals counted, by path (:meth:`Frame.survival_after`; None: no layout)."""
        self.unknown = unknown
        """The root's covered cells (its system's unknown cells), in cell order."""
        self.off = off
        """The root's cells off the frontier (:attr:`Frame.off`)."""
        self.ranked: tuple[Sequence[int], list[int]] | None = None
        """A rank by cell and the root's off cells in its order (:meth:`Frame.least_off`)."""


def by_rank(cells: Sequence[int], rank: Sequence[int]) -> list[int]:
    """``cells`` in the order of ``(rank[cell], cell)``: in cell order, then a stable sort by the
    rank alone, made as one list a rank (a search's ranks are few: neighbour counts), not a sort
    with a key call per cell."""
    # (the cells kept as the objects they are, typed Any: compiled, an int past 256 is made an
    # object anew at each use, and these are cells of a board)
    objs: list[Any] = sorted(cells)
    buckets: dict[int, list[int]] = {}
    for c in objs:
        r = rank[c]
        got = buckets.get(r)
        if got is None:
            buckets[r] = [c]
        else:
            got.append(c)
    out: list[int] = []
    for r in sorted(buckets):
        out += buckets[r]
    return out
