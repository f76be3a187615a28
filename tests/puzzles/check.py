"""Checks of puzzles by methods independent of the ones that made them: a SAT solver (PySAT) for
what every consistent layout agrees on, a plain number-rule loop, and a brute-force enumeration
of layouts with a naive game-tree search for the chances to win."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from functools import cache

from pysat.card import CardEnc, EncType
from pysat.solvers import Solver

from demine.engine.position import COVERED, Position


def _neighbours(p: Position, cell: int) -> list[int]:
    r, c = divmod(cell, p.width)
    return [
        rr * p.width + cc
        for rr in range(r - 1, r + 2)
        for cc in range(c - 1, c + 2)
        if (rr, cc) != (r, c) and 0 <= rr < p.height and 0 <= cc < p.width
    ]


class Sat:
    """The position's layouts as a SAT problem: one variable per covered cell."""

    def __init__(self, p: Position) -> None:
        self.p = p
        self.covered = [c for c in range(p.cells) if p.states[c] >= COVERED]
        self.var = {c: i + 1 for i, c in enumerate(self.covered)}
        top = len(self.covered)
        clauses: list[list[int]] = []
        for n in range(p.cells):
            v = p.states[n]
            if v >= COVERED:
                continue
            lits = [self.var[d] for d in _neighbours(p, n) if d in self.var]
            if not lits:
                assert v == 0, f"the {v} at {n} has no covered neighbour"
                continue
            enc = CardEnc.equals(lits=lits, bound=v, top_id=top, encoding=EncType.seqcounter)
            top = max(top, enc.nv)
            clauses.extend(enc.clauses)
        if p.mines is not None:
            lits = list(self.var.values())
            enc = CardEnc.equals(lits=lits, bound=p.mines, top_id=top, encoding=EncType.totalizer)
            clauses.extend(enc.clauses)
        self.solver = Solver(name="g3", bootstrap_with=clauses)

    def can_be(self, cell: int, mine: bool) -> bool:
        """Whether some consistent layout has ``cell`` mined (or safe)."""
        v = self.var[cell]
        return bool(self.solver.solve(assumptions=[v if mine else -v]))

    def consistent(self) -> bool:
        return bool(self.solver.solve())

    def close(self) -> None:
        self.solver.delete()


def number_rule_safe(p: Position) -> set[int]:
    """What the single-number rule alone proves safe, by a plain loop over the grid."""
    mine: set[int] = set()
    safe: set[int] = set()
    changed = True
    while changed:
        changed = False
        for n in range(p.cells):
            v = p.states[n]
            if v >= COVERED:
                continue
            nb = [d for d in _neighbours(p, n) if p.states[d] >= COVERED]
            open_ = [d for d in nb if d not in mine and d not in safe]
            left = v - sum(1 for d in nb if d in mine)
            if open_ and left == 0:
                safe.update(open_)
                changed = True
            elif open_ and left == len(open_):
                mine.update(open_)
                changed = True
    return safe


def layouts(p: Position, limit: int = 5000) -> list[frozenset[int]]:
    """Every consistent layout, by backtracking over the covered cells (needs the mine count)."""
    assert p.mines is not None
    numbers = [n for n in range(p.cells) if p.states[n] < COVERED]
    around = {n: [d for d in _neighbours(p, n) if p.states[d] >= COVERED] for n in numbers}
    # the cells beside a number first, each group of them walked through the numbers they share
    # (so a number is checked soon after its first cell is decided), then the cells beside none,
    # whose layouts are every choice of the mines left among them
    beside: dict[int, list[int]] = {}
    for n in numbers:
        for d in around[n]:
            beside.setdefault(d, []).append(n)
    touching = {n: [m for d in around[n] for m in beside[d]] for n in numbers}
    front: list[int] = []
    seen_n: set[int] = set()
    for start in numbers:
        todo = [start]
        while todo:
            n = todo.pop(0)
            if n in seen_n:
                continue
            seen_n.add(n)
            front += [d for d in around[n] if d not in front]
            todo += touching[n]
    interior = [c for c in range(p.cells) if p.states[c] >= COVERED and c not in front]
    covered = front + interior
    # each number is checked once its last covered neighbour is decided; partial sums on the way
    pos = {c: i for i, c in enumerate(covered)}
    last: dict[int, list[int]] = {}
    watch: dict[int, list[int]] = {}
    for n, cs in around.items():
        if not cs:
            continue
        last.setdefault(max(pos[c] for c in cs), []).append(n)
        for c in cs:
            watch.setdefault(pos[c], []).append(n)
    out: list[frozenset[int]] = []
    chosen: list[int] = []
    mined: set[int] = set()

    def fits(i: int) -> bool:
        for n in watch.get(i, ()):
            got = sum(1 for d in around[n] if d in mined)
            undecided = sum(1 for d in around[n] if pos[d] > i)
            if got > p.states[n] or got + undecided < p.states[n]:
                return False
        return True

    def rec(i: int, left: int) -> None:
        if len(out) > limit:
            raise OverflowError
        if left < 0 or left > len(covered) - i:
            return
        if i == len(front):
            for rest in itertools.combinations(interior, left):
                out.append(frozenset(chosen).union(rest))
                if len(out) > limit:
                    raise OverflowError
            return
        c = covered[i]
        for m in (0, 1):
            if m:
                mined.add(c)
                chosen.append(c)
            if fits(i):
                rec(i + 1, left - m)
            if m:
                mined.discard(c)
                chosen.pop()

    rec(0, p.mines)
    return out


def win_chances(p: Position, lays: list[frozenset[int]]) -> dict[int, float]:
    """Each covered cell's chance to win if opened now (never mined cells only), by a plain
    game-tree search over the layouts: open a cell, split the layouts by what it shows, and
    play on each part as well as can be."""
    covered = [c for c in range(p.cells) if p.states[c] >= COVERED]
    shows = {
        c: [-1 if c in lay else sum(1 for d in _neighbours(p, c) if d in lay) for lay in lays]
        for c in covered
    }

    def split(c: int, s: tuple[int, ...]) -> dict[int, tuple[int, ...]]:
        parts: dict[int, list[int]] = {}
        for i in s:
            parts.setdefault(shows[c][i], []).append(i)
        return {k: tuple(v) for k, v in parts.items()}

    @cache
    def win(s: tuple[int, ...]) -> float:
        if len(s) == 1:
            return 1.0
        best = 0.0
        ranked = sorted(covered, key=lambda c: -sum(1 for i in s if shows[c][i] >= 0))
        for c in ranked:
            safe = sum(1 for i in s if shows[c][i] >= 0)
            if safe / len(s) <= best:
                break
            parts = split(c, s)
            if len(parts) == 1 and -1 not in parts:
                continue  # safe everywhere with one number: learns nothing
            best = max(best, opened(c, s, parts))
        return best

    def opened(c: int, s: tuple[int, ...], parts: dict[int, tuple[int, ...]] | None = None) -> float:
        parts = parts or split(c, s)
        return sum(len(g) * win(g) for k, g in parts.items() if k != -1) / len(s)

    everything = tuple(range(len(lays)))
    return {c: opened(c, everything) for c in covered if any(v >= 0 for v in shows[c])}


def iter_cells(p: Position) -> Iterator[int]:
    return (c for c in range(p.cells) if p.states[c] >= COVERED)
