"""``equations``: the frontier as sum equations over 0/1 symbols.

1. Each revealed number next to covered cells gives an equation: the sum of its covered neighbours
   equals the number less its flags (the "influence region" is the set of cells in equations).
2. To a fixed point: an equation with sum 0 makes its symbols 0, one with sum equal to its size
   makes them 1 (decided symbols are substituted everywhere); when one equation's symbols are a
   subset of another's, their difference is a new equation.
3. The undecided symbols are enumerated by backtracking with pruning (a partial sum may not pass
   an equation's value, nor fall short of what its unassigned symbols can still add), one
   independent group of equations at a time, counting solutions by their number of mines.
4. The probabilities include the cells off the frontier through the total mine count (see
   :func:`demine.players.common.combine_components`); the player guesses the lowest.

Past a budget of search nodes a group is left out of the count (its cells get a local estimate),
so a huge frontier cannot stall a game.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction

from demine.analysis.constraints import position_system
from demine.analysis.enumerate import search_assignments
from demine.engine.position import Position
from demine.errors import InconsistentPosition
from demine.players.base import Decision
from demine.players.common import Equation, basic_rules, combine_components, count_or_guess, proven_moves

#: The most derived equations kept (subset subtraction can multiply them).
MAX_EQUATIONS = 4000
#: Search nodes allowed per group before it falls back to a local estimate.
MAX_NODES = 200_000


def reduce_equations(equations: Sequence[Equation]) -> tuple[dict[int, int], set[Equation]]:
    """Steps 1-2: decided symbols, and the remaining equations over undecided ones."""
    decided: dict[int, int] = {}
    eqs: set[Equation] = {(cs, v) for cs, v in equations if cs}
    changed = True
    while changed:
        changed = False
        decided, rest = basic_rules(eqs, decided)
        eqs = set(rest)
        # subset subtraction
        ordered = sorted(eqs, key=lambda e: len(e[0]))
        added: set[Equation] = set()
        for i, (a, va) in enumerate(ordered):
            for b, vb in ordered[i + 1 :]:
                if len(a) < len(b) and a < b:
                    d = (b - a, vb - va)
                    if d not in eqs and d not in added:
                        added.add(d)
        if added and len(eqs) + len(added) <= MAX_EQUATIONS:
            eqs |= added
            changed = True
    return decided, eqs


def _groups(eqs: set[Equation]) -> list[list[Equation]]:
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for cs, _ in eqs:
        first, *rest = cs
        for c in rest:
            parent[find(c)] = find(first)
    groups: dict[int, list[Equation]] = {}
    for e in eqs:
        groups.setdefault(find(next(iter(e[0]))), []).append(e)
    return list(groups.values())


def enumerate_group(
    group: list[Equation], max_nodes: int = MAX_NODES
) -> tuple[list[int], dict[int, list[int]]] | None:
    """Step 3 for one group: W[t] solutions with t mines and hits[cell][t]; None past the budget."""
    cells = sorted({c for cs, _ in group for c in cs})
    if len(cells) > 900:  # deeper than Python's recursion allows
        return None
    # order: most constrained first, then neighbours along the equations
    deg = {c: 0 for c in cells}
    for cs, _ in group:
        for c in cs:
            deg[c] += 1
    cells.sort(key=lambda c: -deg[c])
    pos = {c: i for i, c in enumerate(cells)}
    eq_cells = [[pos[c] for c in cs] for cs, _ in group]
    eq_val = [v for _, v in group]
    var_eqs: list[list[int]] = [[] for _ in cells]
    for e, members in enumerate(eq_cells):
        for i in members:
            var_eqs[i].append(e)
    n = len(cells)
    W = [0] * (n + 1)
    hits = [[0] * (n + 1) for _ in cells]

    def leaf(value: list[int], mines: int) -> bool:
        W[mines] += 1
        for j in range(n):
            if value[j]:
                hits[j][mines] += 1
        return True

    if not search_assignments(var_eqs, eq_val, leaf, max_nodes=max_nodes):
        return None
    return W, {cells[j]: hits[j] for j in range(n)}


class EquationsPlayer:
    """Equation reduction, backtracking enumeration, global probability; guesses the lowest."""

    name = "equations"

    def decide(self, position: Position, rng: random.Random) -> Decision:
        """Act on decided symbols, or open the lowest-probability cell."""
        system = position_system(position, trust_flags=True)
        decided, eqs = reduce_equations([(frozenset(cs), v) for cs, v, _ in system.constraints])
        found = proven_moves(
            position,
            [c for c, v in decided.items() if v == 0],
            [c for c, v in decided.items() if v == 1],
            "equations",
        )
        if found is not None:
            return found
        parts = []
        estimates: dict[int, Fraction] = {}
        for group in _groups(eqs):
            res = enumerate_group(group)
            if res is None:
                for cs, v in group:
                    for c in cs:
                        estimates[c] = Fraction(v, len(cs))
                continue
            W, hits = res
            if not any(W):
                raise InconsistentPosition("equations: a group of equations has no solution", ())
            parts.append((W, hits))
        frontier = {c for cs, _ in eqs for c in cs}
        off = [c for c in position.covered_cells() if c not in frontier]
        left = None if system.mines_left is None else system.mines_left - sum(decided.values())
        if estimates and left is not None:
            # groups left out: take their expected mines out of the count, roughly
            left -= round(sum(estimates.values()))
        prob, off_p = combine_components(parts, len(off), left)
        if not prob and parts:
            prob, off_p = combine_components(parts, len(off), None)
        prob.update(estimates)
        for c, v in decided.items():
            prob[c] = Fraction(v)
        default = off_p if off_p is not None else Fraction(1, 5)
        return count_or_guess(position, prob, default, not estimates, "equations-count")
