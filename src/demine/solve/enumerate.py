"""Every consistent mine layout of a position, when there are few.

Used by the exact endgame search: a depth-first search over the frontier cells with pruning, then
every way to place the remaining mines off the frontier.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

from demine.position import Position
from demine.solve.constraints import position_system


def enumerate_layouts(
    position: Position, max_layouts: int, *, trust_flags: bool = True
) -> list[frozenset[int]] | None:
    """All consistent layouts (each the set of mined unknown cells), or None when there are
    more than ``max_layouts``. Needs the total mine count. Flags are trusted as mines (they are
    not part of the layouts)."""
    if position.mines is None:
        return None
    system = position_system(position, trust_flags=trust_flags)
    left = system.mines_left
    assert left is not None
    cons = [(list(cs), v) for cs, v, _ in system.constraints]
    in_frontier = {c for cs, _ in cons for c in cs}
    frontier = sorted(in_frontier)
    off = [c for c in system.unknown if c not in in_frontier]
    # order the frontier so that neighbours in constraints come close together
    order: list[int] = []
    seen: set[int] = set()
    cell_cons: dict[int, list[int]] = {}
    for i, (cs, _) in enumerate(cons):
        for c in cs:
            cell_cons.setdefault(c, []).append(i)
    for start in frontier:
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
    n = len(order)
    need = [v for _, v in cons]
    var_cons = [cell_cons[c] for c in order]
    out: list[frozenset[int]] = []

    def leaf(value: list[int], mines: int) -> bool:
        rest = left - mines
        if rest > len(off):
            return True
        base = frozenset(order[j] for j in range(n) if value[j])
        for combo in combinations(off, rest):
            out.append(base.union(combo))
            if len(out) > max_layouts:
                return False
        return True

    if n > 900:
        return None
    if not search_assignments(var_cons, need, leaf, max_mines=left):
        return None
    return out


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
