"""Incremental deduction for huge boards: work per move in proportion to what the move changed.

:class:`LocalEngine` follows one game's positions. It finds the cells that changed since the last
position (block by block, so an unchanged stretch costs a ``memcmp``), keeps for every revealed
number how many mines it still needs and how many unknown cells it still touches, and applies the
number rule from a worklist of the numbers that changed. When that proves nothing, it recounts
exactly (:func:`~demine.analysis.analyze_constraints`) only the frontier components that hold a changed
number; every other component keeps the probabilities of its last count. Components are counted
independently with each mine weighted by the remaining density, the limit of the global count on a
big board (the exact global count, for boards people play, is :func:`~demine.analyze`).

Soundness does not depend on the approximation: a cell is called safe or a mine only when every
layout of its component says so, and dropping the global count can only prove less, never wrong.
Flags are trusted as mines (the player's own proven marks, or mines hit in a game with lives).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Final

from demine.analysis.result import Limit
from demine.engine.position import COVERED, FLAG, Position, changed_cells
from demine.errors import InconsistentPosition
from demine.text import plural

BLOCK: Final = 4096
"""Cells compared at once when looking for changes."""
COMPONENT_LIMIT = Limit(seconds=0.5)
"""The budget of one component's count; past it the component is left to the cheaper rules."""


class LocalEngine:
    """The deductions and probabilities of one game's positions, kept up to date move by move.

    Costs: an update is O(cells / BLOCK) comparisons plus O(1) per changed cell; the number rule
    is O(1) per changed number; a count is the exact engine's cost on the changed components only.

    >>> p = Position.from_text("5x1x1\\n01H1H")
    >>> eng = LocalEngine(p.width, p.height, p.mines)
    >>> eng.update(p)
    >>> sorted(eng.safe), sorted(eng.mines)
    ([4], [2])
    """

    def __init__(self, width: int, height: int, mines: int | None, limit: Limit = COMPONENT_LIMIT) -> None:
        self.width = width
        self.limit = limit
        """The budget of one component's count."""
        self.height = height
        self.total = mines
        n = width * height
        self.n = n
        from demine.engine.grid import geometry

        self.geo = geometry(width, height)
        """The board's cells and neighbours (called as ``self.geo.neighbours``: a direct call
        when compiled)."""
        # Lists, not bytearrays: the compiled build reads and writes a list's items directly and
        # a bytearray's through generic calls (about 8 bytes a cell each instead of 1)
        self.st: list[int] = [COVERED] * n
        """The states as last seen."""
        self._seen: bytes | None = bytes([COVERED]) * n
        """The states of the position :meth:`update` took in last, compared with the next one's
        (None when :attr:`st` was changed otherwise since)."""
        self.mine: list[int] = [0] * n
        """1 where a mine is known (a flag, or proven)."""
        self.known_safe: list[int] = [0] * n
        """1 where a covered cell is proven safe."""
        self.need: list[int] = [0] * n
        """For a revealed number: the mines it still needs among its unknown neighbours."""
        self.unk: list[int] = [0] * n
        """For a revealed number: its covered neighbours neither known mines nor known safe."""
        self.safe: set[int] = set()
        """Covered cells proven safe, not yet opened."""
        self.mines: set[int] = set()
        """Cells known to hold a mine."""
        self.unflagged: set[int] = set()
        """The cells of :attr:`mines` still covered (proven, not flagged yet)."""
        self.unknown = n
        """Covered cells neither known mines nor known safe."""
        self.prob: dict[int, float] = {}
        """Frontier cells' chance of a mine, from their component's last count."""
        self._heap: list[tuple[float, int]] = []
        self._dirty: set[int] = set()
        self._stale: set[int] = set()
        self._scan = [0, 0]  # off-frontier search pointers: interior cells first, then any
        self._prob_sum = 0.0  # the expected mines on the frontier
        self.counted = 0
        """Components counted so far (for benchmarks)."""

    # ------------------------------------------------------------------ updates
    def update(self, position: Position) -> None:
        """Take in ``position`` (a later position of the same game) and apply the number rule."""
        new = position.states
        seen, self._seen = self._seen, None  # until every change is taken in
        if seen is None:
            st = self.st
            for c in [c for c in range(self.n) if st[c] != new[c]]:
                self._change(c, new[c])
        else:
            for lo in range(0, self.n, BLOCK):
                hi = lo + BLOCK
                a, b = new[lo:hi], seen[lo:hi]
                if a != b:
                    for c in changed_cells(b, a, lo):
                        self._change(c, new[c])
        self._seen = new
        self._rule()

    def opened(self, cells: Iterable[int], states: Sequence[int]) -> None:
        """Take in cells just opened (``states[c]`` is what each shows), when the caller knows
        them, instead of comparing whole positions (:meth:`update`): O(1) a cell."""
        self._seen = None
        for c in cells:
            self._change(c, states[c])
        self._rule()

    def _change(self, c: int, v: int) -> None:
        st = self.st
        old = st[c]
        if old != COVERED:
            raise InconsistentPosition(
                f"cell {self.geo.name(c)} changed from {old} to {v}: not a later position of this game", ()
            )
        if v == FLAG:
            st[c] = FLAG
            if self.mine[c]:
                self.unflagged.discard(c)
            else:
                self._mark_mine(c)
            return
        # a revealed number
        if self.mine[c]:
            raise InconsistentPosition(f"cell {self.geo.name(c)} was proven a mine but shows {v}", ())
        st[c] = v
        nb = self.geo.neighbours(c)
        if self.known_safe[c]:
            self.known_safe[c] = 0
            self.safe.discard(c)
        else:
            self._settle(c)
            for d in nb:
                if st[d] < COVERED:
                    self.unk[d] -= 1
                    self._dirty.add(d)
        mines = unknown = 0
        for d in nb:
            if self.mine[d]:
                mines += 1
            elif st[d] == COVERED and not self.known_safe[d]:
                unknown += 1
        if mines > v:
            raise InconsistentPosition(
                f"the {v} at {self.geo.name(c)} touches {plural(mines, 'known mine')}", (c,)
            )
        self.need[c] = v - mines
        self.unk[c] = unknown
        self._dirty.add(c)

    def _settle(self, c: int) -> None:
        """``c`` is no longer unknown: drop it from the count and the frontier's expectation."""
        self.unknown -= 1
        p = self.prob.pop(c, None)
        if p is not None:
            self._prob_sum -= p

    def _mark_mine(self, c: int) -> None:
        self.mine[c] = 1
        self.mines.add(c)
        if self.st[c] == COVERED:
            self.unflagged.add(c)
        self._settle(c)
        st, need, unk = self.st, self.need, self.unk
        for d in self.geo.neighbours(c):
            if st[d] < COVERED:
                if need[d] == 0:
                    raise InconsistentPosition(
                        f"the {st[d]} at {self.geo.name(d)} gets one mine too many", (d,)
                    )
                need[d] -= 1
                unk[d] -= 1
                self._dirty.add(d)

    def _mark_safe(self, c: int) -> None:
        self.known_safe[c] = 1
        self.safe.add(c)
        self._settle(c)
        st, unk = self.st, self.unk
        for d in self.geo.neighbours(c):
            if st[d] < COVERED:
                unk[d] -= 1
                self._dirty.add(d)

    def _rule(self) -> None:
        """The number rule from the worklist of changed numbers, to a fixed point."""
        dirty, st, need, unk, mine, safe_flag = (
            self._dirty,
            self.st,
            self.need,
            self.unk,
            self.mine,
            self.known_safe,
        )
        stale = self._stale
        while dirty:
            c = dirty.pop()
            stale.add(c)
            u = unk[c]
            if u == 0:
                if need[c]:
                    raise InconsistentPosition(
                        f"the {st[c]} at {self.geo.name(c)} needs {plural(need[c], 'more mine')} "
                        "but has no covered cell around it",
                        (c,),
                    )
                continue
            k = need[c]
            if k > u:
                raise InconsistentPosition(
                    f"the {st[c]} at {self.geo.name(c)} needs {plural(k, 'more mine')} but has only "
                    f"{plural(u, 'covered cell')} around it",
                    (c,),
                )
            if k == 0 or k == u:
                for d in self.geo.neighbours(c):
                    if st[d] == COVERED and not mine[d] and not safe_flag[d]:
                        if k == 0:
                            self._mark_safe(d)
                        else:
                            self._mark_mine(d)

    def _check(self) -> None:
        """Assert every invariant of the bookkeeping (for tests; O(cells))."""
        st, mine, safe_flag, nb = self.st, self.mine, self.known_safe, self.geo.neighbours
        assert not self._dirty, "the number rule left work undone"
        assert self.mines == {c for c in range(self.n) if mine[c]}
        assert self.unflagged == {c for c in self.mines if st[c] == COVERED}
        assert self.safe == {c for c in range(self.n) if safe_flag[c]}
        unknown = set()
        for c in range(self.n):
            v = st[c]
            if v < COVERED:
                assert not mine[c] and not safe_flag[c], c
                assert self.need[c] == v - sum(mine[d] for d in nb(c)), c
                assert self.unk[c] == len(self._unknown_around(c)), c
            elif v == FLAG:
                assert mine[c], c
            elif not mine[c] and not safe_flag[c]:
                unknown.add(c)
        assert self.unknown == len(unknown)
        assert set(self.prob) <= unknown
        assert abs(self._prob_sum - sum(self.prob.values())) < 1e-6 * max(1, len(self.prob))

    # ------------------------------------------------------------------ counting
    def density(self) -> Fraction:
        """The remaining mines over the remaining unknown cells (1/5 when the total is unknown)."""
        if self.total is None or self.unknown == 0:
            return Fraction(1, 5)
        left = self.total - len(self.mines)
        return Fraction(max(0, min(left, self.unknown)), self.unknown)

    def _component(self, start: int, seen: set[int]) -> tuple[list[int], set[int]]:
        """The active numbers and unknown cells linked to the number ``start``."""
        st, mine, safe_flag, unk = self.st, self.mine, self.known_safe, self.unk
        numbers = [start]
        cells: set[int] = set()
        seen.add(start)
        i = 0
        while i < len(numbers):
            c = numbers[i]
            i += 1
            for d in self.geo.neighbours(c):
                if st[d] == COVERED and not mine[d] and not safe_flag[d] and d not in cells:
                    cells.add(d)
                    for e in self.geo.neighbours(d):
                        if st[e] < COVERED and unk[e] and e not in seen:
                            seen.add(e)
                            numbers.append(e)
        return numbers, cells

    def frontier_unknown(self) -> int:
        """How many unknown cells touch an opened number (the rest, :attr:`unknown` minus these,
        touch none). O(cells)."""
        st, mine, safe_flag, nb = self.st, self.mine, self.known_safe, self.geo.neighbours
        return sum(
            1
            for c in range(self.n)
            if st[c] == COVERED and not mine[c] and not safe_flag[c] and any(st[d] < COVERED for d in nb(c))
        )

    def _unknown_around(self, c: int) -> list[int]:
        """The neighbours of ``c`` neither opened nor known (mines or safe cells)."""
        st, mine, safe_flag = self.st, self.mine, self.known_safe
        return [d for d in self.geo.neighbours(c) if st[d] == COVERED and not mine[d] and not safe_flag[d]]

    def pairs(self) -> bool:
        """The pair rule on the numbers still touching unknown cells: returns whether it proved a
        cell (then the number rule has run again). Cheaper than :meth:`count`, and it leaves the
        components it could not settle for the count (their numbers stay marked changed)."""
        from demine.analysis.rules import Propagator

        st, mine, safe_flag, need, nb = self.st, self.mine, self.known_safe, self.need, self.geo.neighbours
        stale = [c for c in self._stale if st[c] < COVERED and self.unk[c]]
        if not stale:
            return False
        near: set[int] = set(stale)
        for c in stale:  # the numbers that share a cell with a changed one can pair with it
            for d in self._unknown_around(c):
                near.update(e for e in nb(d) if st[e] < COVERED and self.unk[e])
        cons = [(tuple(self._unknown_around(c)), need[c], c) for c in sorted(near)]
        prop = Propagator(cons, str)
        prop.run_all()
        proved = False
        for c, v in prop.decided.items():
            if mine[c] or safe_flag[c]:
                continue
            if v:
                self._mark_mine(c)
            else:
                self._mark_safe(c)
            proved = True
        if proved:
            self._rule()
        return proved

    def safe_by_count(self, total: int) -> set[int]:
        """The unknown cells proven safe by an exact count of the whole board with ``total``
        mines in all (the global count: the numbers still open, every unknown cell, the mines not
        yet known); an empty set when it proves none or runs past :attr:`limit`."""
        from demine.analysis import analyze_constraints

        st, mine, safe_flag = self.st, self.mine, self.known_safe
        unknown = [c for c in range(self.n) if st[c] == COVERED and not mine[c] and not safe_flag[c]]
        cons = [
            (self._unknown_around(c), self.need[c]) for c in range(self.n) if st[c] < COVERED and self.unk[c]
        ]
        a = analyze_constraints(cons, cells=unknown, mines=total - len(self.mines), limit=self.limit)
        return set() if a.approximate else set(a.safe)

    def count(self) -> bool:
        """Recount the components holding a changed number; returns whether it proved a cell."""
        from demine.analysis import analyze_constraints

        st, mine, safe_flag, unk, need = self.st, self.mine, self.known_safe, self.unk, self.need
        stale = [c for c in self._stale if st[c] < COVERED and unk[c]]
        self._stale = set()
        density = self.density()
        seen: set[int] = set()
        proved = False
        for s in stale:
            if s in seen:
                continue
            numbers, cells = self._component(s, seen)
            cons = [(self._unknown_around(c), need[c]) for c in numbers]
            a = analyze_constraints(cons, cells=cells, mines=None, density=density, limit=self.limit)
            self.counted += 1
            if not a.approximate:
                for c in a.safe:
                    self._mark_safe(c)
                    proved = True
                for c in a.mines:
                    self._mark_mine(c)
                    proved = True
            for c in cells:
                if mine[c] or safe_flag[c]:
                    continue
                p = a.p(c)
                old = self.prob.get(c)
                if old is not None:
                    self._prob_sum -= old
                self.prob[c] = p
                self._prob_sum += p
                heapq.heappush(self._heap, (p, c))
        if proved:
            self._rule()
        return proved

    # ------------------------------------------------------------------ guessing
    def off_frontier(self) -> tuple[int | None, float]:
        """An off-frontier cell (one with no revealed neighbour when there is one) and the chance
        of a mine there: the mines not expected on the frontier over the cells off it."""
        off = self.unknown - len(self.prob)
        if off <= 0:
            return None, 1.0
        if self.total is None:
            p = 0.2
        else:
            left = self.total - len(self.mines) - self._prob_sum
            p = min(1.0, max(0.0, left / off))
        return self._find_off(), p

    def _find_off(self) -> int | None:
        st, mine, safe_flag, prob = self.st, self.mine, self.known_safe, self.prob
        for k in (0, 1):  # interior cells (likelier to open an area) first
            i = self._scan[k]
            while i < self.n:
                free = st[i] == COVERED and not mine[i] and not safe_flag[i] and i not in prob
                if free and (k == 1 or all(st[d] >= COVERED for d in self.geo.neighbours(i))):
                    self._scan[k] = i
                    return i
                i += 1
            self._scan[k] = i
        return None

    def safest(self) -> tuple[int, float] | None:
        """The frontier cell with the lowest chance of a mine, and that chance."""
        heap, st, mine, safe_flag, prob = self._heap, self.st, self.mine, self.known_safe, self.prob
        while heap:
            p, c = heap[0]
            if st[c] == COVERED and not mine[c] and not safe_flag[c] and prob.get(c) == p:
                return c, p
            heapq.heappop(heap)
        return None
