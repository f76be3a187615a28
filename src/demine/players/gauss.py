"""``gauss``: connected components, the two basic rules, Gaussian elimination, enumeration of
the free variables, and a DP over the components' mine counts.

1. The frontier's equations (one per revealed number) are split into connected components.
2. The basic rules: an equation with value 0 makes its cells safe; value equal to its size makes
   them mines (to a fixed point).
3. Each component's 0/1 system is reduced to row echelon form over the rationals: its rank and its
   free variables. A reduced row forces cells when its value equals the least or the most its
   coefficients allow (positive coefficients all 0 / negatives all 1, or the reverse).
4. Only the free variables are enumerated (2^free assignments); the pivots follow from them and an
   assignment counts when every pivot is 0 or 1.
5. A DP (convolution) over the components' mine counts gives the global probability, each frontier
   total ``T`` weighted by ``C(off-frontier cells, mines left - T)``. The original leaves that
   weight out; ``off_weight=False`` reproduces its formula, and a test shows the difference.

A component with more than ``MAX_FREE`` free variables is not enumerated; its cells get a local
estimate.
"""

from __future__ import annotations

import random
from fractions import Fraction
from math import gcd

from demine.analysis.constraints import position_system
from demine.engine.position import Position
from demine.errors import InconsistentPosition
from demine.players.base import Decision
from demine.players.common import basic_rules, combine_components, count_or_guess, proven_moves
from demine.players.equations import _groups

#: Components with more free variables than this are estimated, not enumerated (2^20 assignments).
MAX_FREE = 20


def rref(rows: list[list[Fraction]], ncols: int) -> tuple[list[list[Fraction]], list[int]]:
    """Reduced row echelon form of an augmented matrix (last column = values); returns the
    nonzero rows and the pivot columns. O(rows * cols * rank)."""
    m = [r[:] for r in rows]
    pivots: list[int] = []
    r = 0
    for col in range(ncols):
        p = next((i for i in range(r, len(m)) if m[i][col] != 0), None)
        if p is None:
            continue
        m[r], m[p] = m[p], m[r]
        pv = m[r][col]
        m[r] = [x / pv for x in m[r]]
        for i in range(len(m)):
            if i != r and m[i][col] != 0:
                f = m[i][col]
                m[i] = [a - f * b for a, b in zip(m[i], m[r], strict=True)]
        pivots.append(col)
        r += 1
        if r == len(m):
            break
    for row in m[r:]:
        if row[ncols] != 0:
            raise InconsistentPosition("gauss: the equations are contradictory (0 = 1)", ())
    return m[:r], pivots


def row_forced(row: list[Fraction], cells: list[int]) -> dict[int, int]:
    """Cells a reduced row forces: its value is the least or the most its coefficients allow."""
    b = row[-1]
    lo = sum(a for a in row[:-1] if a < 0)
    hi = sum(a for a in row[:-1] if a > 0)
    out: dict[int, int] = {}
    if b == lo:
        for j, a in enumerate(row[:-1]):
            if a > 0:
                out[cells[j]] = 0
            elif a < 0:
                out[cells[j]] = 1
    elif b == hi:
        for j, a in enumerate(row[:-1]):
            if a > 0:
                out[cells[j]] = 1
            elif a < 0:
                out[cells[j]] = 0
    return out


def solve_component(
    eqs: list[tuple[frozenset[int], int]],
) -> tuple[dict[int, int], tuple[list[int], dict[int, list[int]]] | None, int, int]:
    """Gaussian elimination and enumeration of the free variables for one component.

    Returns cells the reduced rows force, the counts ``(W, hits)`` (None past MAX_FREE), the rank
    and the number of free variables."""
    cells = sorted({c for cs, _ in eqs for c in cs})
    col = {c: j for j, c in enumerate(cells)}
    n = len(cells)
    rows = []
    for cs, v in eqs:
        row = [Fraction(0)] * (n + 1)
        for c in cs:
            row[col[c]] = Fraction(1)
        row[n] = Fraction(v)
        rows.append(row)
    reduced, pivots = rref(rows, n)
    forced: dict[int, int] = {}
    for row in reduced:
        forced.update(row_forced(row, cells))
    free = [j for j in range(n) if j not in set(pivots)]
    if len(free) > MAX_FREE:
        return forced, None, len(pivots), len(free)
    W, hits_by_col = _enumerate_free(reduced, pivots, free, n)
    hits = {cells[j]: h for j, h in enumerate(hits_by_col)}
    if not any(W):
        raise InconsistentPosition("gauss: a component has no 0/1 solution", ())
    return forced, (W, hits), len(pivots), len(free)


def _enumerate_free(
    reduced: list[list[Fraction]], pivots: list[int], free: list[int], n: int
) -> tuple[list[int], list[list[int]]]:
    """Enumerate the free variables depth-first; each assignment fixes the pivots, and counts when
    every pivot is 0 or 1. A branch is cut as soon as some row's pivot can no longer be 0 or 1
    whatever the unassigned free variables are. Rows are scaled to integers first:
    ``d * pivot + sum(a_j * free_j) = b``."""
    rows = []
    for frow in reduced:
        den = 1
        for q in frow:
            den = den * q.denominator // gcd(den, q.denominator)
        rows.append([int(q * den) for q in frow])
    k = len(free)
    # per row: pivot coefficient d, rhs b, coefficients of the free variables
    coef = [[r[j] for j in free] for r in rows]
    dcoef = [r[p] for r, p in zip(rows, pivots, strict=True)]
    rhs = [r[n] for r in rows]
    # the least and most the free variables from position i on can still add, per row
    lo_rest = [[sum(min(0, c[j]) for j in range(i, k)) for i in range(k + 1)] for c in coef]
    hi_rest = [[sum(max(0, c[j]) for j in range(i, k)) for i in range(k + 1)] for c in coef]
    active = [[r for r in range(len(rows)) if coef[r][i]] for i in range(k)]
    W = [0] * (n + 1)
    hits = [[0] * (n + 1) for _ in range(n)]
    partial = [0] * len(rows)
    assign = [0] * k

    def feasible(r: int, i: int) -> bool:
        lo = partial[r] + lo_rest[r][i]
        hi = partial[r] + hi_rest[r][i]
        b, d = rhs[r], dcoef[r]
        return lo <= b <= hi or lo <= b - d <= hi

    def rec(i: int) -> None:
        if i == k:
            mines = sum(assign)
            pivot_vals = []
            for r in range(len(rows)):
                v = rhs[r] - partial[r]
                if v == 0:
                    pivot_vals.append(0)
                elif v == dcoef[r]:
                    pivot_vals.append(1)
                else:
                    return
            mines += sum(pivot_vals)
            W[mines] += 1
            for j, v in zip(free, assign, strict=True):
                if v:
                    hits[j][mines] += 1
            for p, v in zip(pivots, pivot_vals, strict=True):
                if v:
                    hits[p][mines] += 1
            return
        for v in (0, 1):
            assign[i] = v
            if v:
                for r in active[i]:
                    partial[r] += coef[r][i]
            if all(feasible(r, i + 1) for r in active[i]):
                rec(i + 1)
            if v:
                for r in active[i]:
                    partial[r] -= coef[r][i]
        assign[i] = 0

    if all(feasible(r, 0) for r in range(len(rows))):
        rec(0)
    return W, hits


def gauss_probabilities(
    position: Position, off_weight: bool = True
) -> tuple[dict[int, int], dict[int, Fraction], Fraction | None, bool]:
    """Decided cells, probabilities, the off-frontier probability, and whether every component
    was enumerated exactly."""
    system = position_system(position, trust_flags=True)
    decided, eqs = basic_rules([(frozenset(cs), v) for cs, v, _ in system.constraints])
    parts = []
    estimates: dict[int, Fraction] = {}
    for group in _groups(set(eqs)):
        forced, counts, _, _ = solve_component(group)
        decided.update(forced)
        if counts is None:
            for cs, v in group:
                for c in cs:
                    estimates[c] = Fraction(v, len(cs))
        else:
            parts.append(counts)
    frontier = {c for cs, _ in eqs for c in cs}
    off = [c for c in position.covered_cells() if c not in frontier and c not in decided]
    left = (
        None
        if system.mines_left is None
        else system.mines_left - sum(v for c, v in decided.items() if c not in frontier)
    )
    if estimates and left is not None:
        left -= round(sum(estimates.values()))
    prob, off_p = combine_components(parts, len(off), left, off_weight=off_weight)
    if not prob and parts:
        prob, off_p = combine_components(parts, len(off), None)
    prob.update(estimates)
    return decided, prob, off_p, not estimates


class GaussPlayer:
    """Components, basic rules, Gaussian elimination, free-variable enumeration, DP over counts."""

    name = "gauss"

    def __init__(self, off_weight: bool = True) -> None:
        self.off_weight = off_weight

    def decide(self, position: Position, rng: random.Random) -> Decision:
        """Act on forced cells, or open the lowest-probability cell."""
        decided, prob, off_p, exact = gauss_probabilities(position, self.off_weight)
        found = proven_moves(
            position,
            [c for c, v in decided.items() if v == 0],
            [c for c, v in decided.items() if v == 1],
            "gauss",
        )
        if found is not None:
            return found
        default = off_p if off_p is not None else Fraction(1, 5)
        return count_or_guess(position, prob, default, exact and self.off_weight, "gauss-count")
