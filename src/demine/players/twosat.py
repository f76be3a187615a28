"""``twosat``: 2-SAT on the implication graph, strongly connected components by Tarjan.

For each revealed number with ``k`` covered unflagged neighbours and ``m`` mines still missing:

- ``m == 0``: each neighbour is safe (unit fact ``x -> not x``);
- ``m == k``: each neighbour is a mine (``not x -> x``);
- ``m == 1``: at most one mine: ``x -> not y`` for every pair;
- ``m == k - 1``: at most one safe cell: ``not x -> y`` for every pair.

Other numbers say nothing a 2-SAT clause can hold. The implication graph has a node per literal
(``2n`` nodes). A variable whose two literals share a component means the position is inconsistent;
a literal that reaches its own negation is false, which decides the variable. When nothing is
decided it guesses a uniformly random covered cell (the original left guesses to the human).
Cost: O(clauses) for the graph and Tarjan, plus the reachability sets of the condensation.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import combinations

from demine.analysis.constraints import position_system
from demine.engine.game import Move
from demine.engine.position import Position
from demine.errors import InconsistentPosition
from demine.players.base import Decision
from demine.players.common import proven_moves


def tarjan_scc(n: int, adj: list[list[int]]) -> list[int]:
    """Strongly connected components of a graph on nodes ``0..n-1``, iteratively (no recursion
    limit). Returns each node's component id. Tarjan completes a component only after every
    component it reaches, so ids come in reverse topological order: an edge between two
    components always goes from the higher id to the lower. O(nodes + edges).

    >>> tarjan_scc(4, [[1], [0], [3], []])
    [0, 0, 2, 1]
    """
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    comp = [-1] * n
    stack: list[int] = []
    counter = 0
    ncomp = 0
    for root in range(n):
        if index[root] != -1:
            continue
        work = [(root, 0)]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            v, i = work[-1]
            edges = adj[v]
            if i < len(edges):
                work[-1] = (v, i + 1)
                w = edges[i]
                if index[w] == -1:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append((w, 0))
                elif on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
                continue
            work.pop()
            if work:
                u = work[-1][0]
                if low[v] < low[u]:
                    low[u] = low[v]
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp[w] = ncomp
                    if w == v:
                        break
                ncomp += 1
    return comp


def twosat_decide(position: Position) -> tuple[set[int], set[int]]:
    """The cells 2-SAT proves safe and mined in a position."""
    system = position_system(position, trust_flags=True)
    return twosat_solve([(cs, m) for cs, m, _ in system.constraints], position.geometry.name)


def twosat_solve(
    constraints: Sequence[tuple[Sequence[int], int]], name: Callable[[int], str] = str
) -> tuple[set[int], set[int]]:
    """The cells 2-SAT proves safe and mined from ``(cells, mines among them)`` constraints.
    Raises InconsistentPosition when a variable's two literals share a component.

    >>> twosat_solve([((0, 1, 2), 1), ((1, 2, 3), 2)])  # A+B+C = 1, B+C+D = 2
    ({0}, {3})
    """
    cells = sorted({c for cs, _ in constraints for c in cs})
    var = {c: i for i, c in enumerate(cells)}
    n = len(cells)
    adj: list[list[int]] = [[] for _ in range(2 * n)]

    # literal 2i: cell i is a mine; 2i+1: cell i is safe
    def implies(a: int, b: int) -> None:
        adj[a].append(b)
        adj[b ^ 1].append(a ^ 1)  # the contrapositive

    for cs, m in constraints:
        k = len(cs)
        vs = [var[c] for c in cs]
        if m == 0:
            for x in vs:
                implies(2 * x, 2 * x + 1)
        elif m == k:
            for x in vs:
                implies(2 * x + 1, 2 * x)
        if m == 1 and k >= 2:
            for x, y in combinations(vs, 2):
                implies(2 * x, 2 * y + 1)
        if m == k - 1 and k >= 2:
            for x, y in combinations(vs, 2):
                implies(2 * x + 1, 2 * y)
    comp = tarjan_scc(2 * n, adj)
    for i in range(n):
        if comp[2 * i] == comp[2 * i + 1]:
            raise InconsistentPosition(
                f"2-SAT: cell {name(cells[i])} must be both a mine and safe",
                (cells[i],),
            )
    # reachability over the condensation, sinks first (ids ascend from sinks)
    ncomp = max(comp, default=-1) + 1
    succ: list[set[int]] = [set() for _ in range(ncomp)]
    for v in range(2 * n):
        for w in adj[v]:
            if comp[v] != comp[w]:
                succ[comp[v]].add(comp[w])
    reach = [0] * ncomp
    for cid in range(ncomp):
        r = 1 << cid
        for s in succ[cid]:
            r |= reach[s]
        reach[cid] = r
    safe, mines = set(), set()
    for i, c in enumerate(cells):
        if reach[comp[2 * i]] >> comp[2 * i + 1] & 1:  # mine -> safe: it is safe
            safe.add(c)
        elif reach[comp[2 * i + 1]] >> comp[2 * i] & 1:  # safe -> mine: it is a mine
            mines.add(c)
    return safe, mines


class TwoSatPlayer:
    """2-SAT deduction; random guesses."""

    name = "twosat"

    def decide(self, position: Position, rng: random.Random) -> Decision:
        """Act on what 2-SAT proves, or open a random covered cell."""
        safe, mines = twosat_decide(position)
        found = proven_moves(position, safe, mines, "2-sat")
        if found is not None:
            return found
        return Decision([Move("reveal", rng.choice(position.covered_cells()))], guess=True, reason="random")
