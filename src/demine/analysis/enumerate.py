"""Consistent mine layouts of a position: every one when there are few, else a uniform sample.

Used by the endgame search: a depth-first search over the frontier cells with pruning, then
every way to place the remaining mines off the frontier; or, when there are too many layouts to
list, a uniform sample of them.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from math import comb

from demine.analysis.constraints import position_system
from demine.engine.position import Position


def enumerate_layouts(
    position: Position, max_layouts: int, *, trust_flags: bool = True
) -> list[frozenset[int]] | None:
    """All consistent layouts (each the set of mined unknown cells), or None when there are
    more than ``max_layouts``. Needs the total mine count. Flags are trusted as mines (they are
    not part of the layouts)."""
    frontier = _Frontier.of(position, trust_flags)
    if frontier is None:
        return None
    off = frontier.off
    out: list[frozenset[int]] = []

    def leaf(base: frozenset[int], rest: int) -> bool:
        for combo in combinations(off, rest):
            out.append(base.union(combo))
            if len(out) > max_layouts:
                return False
        return True

    return out if frontier.assignments(leaf) else None


def sample_layouts(
    position: Position,
    k: int,
    rng: random.Random,
    max_assignments: int,
    *,
    trust_flags: bool = True,
) -> list[frozenset[int]] | None:
    """``k`` layouts drawn independently and uniformly from all consistent layouts (so a layout
    may come twice), or None when the frontier cells have more than ``max_assignments``
    consistent assignments (or the position has no layout). Exact: each assignment of the
    frontier cells is weighted by its number of ways to place the other mines off the frontier,
    and the draw uses integer weights."""
    frontier = _Frontier.of(position, trust_flags)
    if frontier is None:
        return None
    off = frontier.off
    found: list[tuple[frozenset[int], int]] = []
    cumulative: list[int] = []
    total = 0

    def leaf(base: frozenset[int], rest: int) -> bool:
        nonlocal total
        total += comb(len(off), rest)
        found.append((base, rest))
        cumulative.append(total)
        return len(found) <= max_assignments

    if not frontier.assignments(leaf) or not total:
        return None
    out = []
    for _ in range(k):
        base, rest = found[bisect_right(cumulative, rng.randrange(total))]
        out.append(base.union(rng.sample(off, rest)))
    return out


@dataclass(frozen=True, slots=True)
class _Frontier:
    """A position's constraints for a search over its frontier cells: the cells in search order
    (neighbours in constraints close together), the constraints each is in, the values, the
    unknown cells off the frontier and the mines left."""

    order: list[int]
    var_cons: list[list[int]]
    need: list[int]
    off: list[int]
    left: int

    @classmethod
    def of(cls, position: Position, trust_flags: bool) -> _Frontier | None:
        """None without a total mine count, or with more than 900 frontier cells (the search
        recurses once per cell)."""
        if position.mines is None:
            return None
        system = position_system(position, trust_flags=trust_flags)
        left = system.mines_left
        assert left is not None
        cons = [(list(cs), v) for cs, v, _ in system.constraints]
        in_frontier = {c for cs, _ in cons for c in cs}
        off = [c for c in system.unknown if c not in in_frontier]
        order: list[int] = []
        seen: set[int] = set()
        cell_cons: dict[int, list[int]] = {}
        for i, (cs, _) in enumerate(cons):
            for c in cs:
                cell_cons.setdefault(c, []).append(i)
        for start in sorted(in_frontier):
            if start in seen:
                continue
            stack = [start]
            seen.add(start)
            while stack:
                c = stack.pop()
                order.append(c)
                for i in cell_cons[c]:
                    for d in cons[i][0]:
                        if d not in seen:
                            seen.add(d)
                            stack.append(d)
        if len(order) > 900:
            return None
        return cls(order, [cell_cons[c] for c in order], [v for _, v in cons], off, left)

    def assignments(self, leaf: Callable[[frozenset[int], int], bool]) -> bool:
        """Call ``leaf(mined frontier cells, mines left for the cells off the frontier)`` for
        every consistent assignment of the frontier cells whose remaining mines fit off the
        frontier; False when ``leaf`` stopped the search."""
        order, left, room = self.order, self.left, len(self.off)

        def on_values(value: list[int], mines: int) -> bool:
            if left - mines > room:
                return True  # too few cells off the frontier for the other mines
            return leaf(frozenset(order[j] for j in range(len(order)) if value[j]), left - mines)

        return search_assignments(self.var_cons, self.need, on_values, max_mines=self.left)


def search_assignments(
    var_cons: list[list[int]],
    need: list[int],
    leaf: Callable[[list[int], int], bool],
    *,
    max_mines: int | None = None,
    max_nodes: int | None = None,
) -> bool:
    """Depth-first search over 0/1 variables ``0..n-1`` (in that order) under sum constraints.

    ``var_cons[i]`` lists the constraints variable ``i`` is in; constraint ``k`` must sum to
    ``need[k]``. A branch is cut as soon as some constraint is over its value or can no longer
    reach it. ``leaf(values, mines)`` is called for every solution and returns False to stop.
    Returns False when stopped (by ``leaf``, or past ``max_nodes`` search nodes), True when the
    search completed. Recursion depth is ``n``: callers keep ``n`` under Python's limit.
    """
    n = len(var_cons)
    total = [0] * len(need)
    remaining = [0] * len(need)
    for cs in var_cons:
        for k in cs:
            remaining[k] += 1
    value = [0] * n
    nodes = 0

    def rec(i: int, mines: int) -> bool:
        nonlocal nodes
        nodes += 1
        if max_nodes is not None and nodes > max_nodes:
            return False
        if max_mines is not None and mines > max_mines:
            return True
        if i == n:
            return leaf(value, mines)
        for v in (0, 1):
            ok = True
            for k in var_cons[i]:
                total[k] += v
                remaining[k] -= 1
                if total[k] > need[k] or total[k] + remaining[k] < need[k]:
                    ok = False
            if ok:
                value[i] = v
                if not rec(i + 1, mines + v):
                    for k in var_cons[i]:
                        total[k] -= v
                        remaining[k] += 1
                    value[i] = 0
                    return False
            for k in var_cons[i]:
                total[k] -= v
                remaining[k] += 1
        value[i] = 0
        return True

    return rec(0, 0)
