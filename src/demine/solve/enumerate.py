"""Every consistent mine layout of a position, when there are few.

Used by the exact endgame search: a depth-first search over the frontier cells with pruning, then
every way to place the remaining mines off the frontier.
"""

from __future__ import annotations

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
    frontier = sorted({c for cs, _ in cons for c in cs})
    off = [c for c in system.unknown if c not in set(frontier)]
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
    var_cons = [cell_cons[c] for c in order]
    total = [0] * len(cons)
    remaining = [len(cs) for cs, _ in cons]
    need = [v for _, v in cons]
    value = [0] * n
    out: list[frozenset[int]] = []
    too_many = False

    def rec(i: int, mines: int) -> None:
        nonlocal too_many
        if too_many:
            return
        if mines > left:
            return
        if i == n:
            rest = left - mines
            if rest > len(off):
                return
            base = [order[j] for j in range(n) if value[j]]
            for combo in combinations(off, rest):
                out.append(frozenset(base).union(combo))
                if len(out) > max_layouts:
                    too_many = True
                    return
            return
        for v in (0, 1):
            ok = True
            for k in var_cons[i]:
                total[k] += v
                remaining[k] -= 1
                if total[k] > need[k] or total[k] + remaining[k] < need[k]:
                    ok = False
            if ok:
                value[i] = v
                rec(i + 1, mines + v)
            for k in var_cons[i]:
                total[k] -= v
                remaining[k] += 1
        value[i] = 0

    if n > 900:
        return None
    rec(0, 0)
    if too_many:
        return None
    return out
