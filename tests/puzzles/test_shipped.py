"""Every shipped puzzle, checked by methods independent of the ones that made it (see check.py):
a SAT solver for what all consistent layouts agree on, a plain loop for the single-number rule,
brute-force layouts and a naive game-tree search for the chances to win (the engine's search on
those layouts past ``NAIVE`` of them)."""

from __future__ import annotations

from collections import Counter

import pytest

from demine.players.best import Endgame
from demine.puzzles import KINDS, SHIPPED, Puzzle, read_puzzles
from tests.puzzles.check import Sat, iter_cells, layouts, number_rule_safe, win_chances

PUZZLES = read_puzzles() if SHIPPED.exists() else []


def test_the_shipped_set_has_2000_puzzles_over_kinds_and_difficulties() -> None:
    assert len(PUZZLES) >= 2000
    kinds = Counter(p.kind for p in PUZZLES)
    assert set(kinds) == set(KINDS)
    assert all(n >= 100 for n in kinds.values()), kinds
    for k in KINDS:
        bands = Counter(p.difficulty for p in PUZZLES if p.kind == k)
        assert len(bands) >= 2, (k, bands)
    assert len({p.id for p in PUZZLES}) == len(PUZZLES)
    # guess and coin puzzles are whole endgames (no box of a larger one, answered for the box)
    assert not [p.id for p in PUZZLES if "(box)" in p.source]


def _check_forced(p: Puzzle) -> None:
    sat = Sat(p.position)
    try:
        assert sat.consistent(), p.id
        mines = set(p.mines)
        for c in p.answer:
            mine = c in mines
            # proven: no consistent layout has it the other way
            assert not sat.can_be(c, not mine), (p.id, c)
            assert sat.can_be(c, mine), (p.id, c)
        if p.kind == "all":  # and every other covered cell could go either way
            for c in iter_cells(p.position):
                if c not in p.answer:
                    assert sat.can_be(c, True) and sat.can_be(c, False), (p.id, c)
        else:  # safe: the answer is every proven safe cell
            for c in iter_cells(p.position):
                if c not in p.answer:
                    assert sat.can_be(c, True), (p.id, c)
    finally:
        sat.close()


#: Up to this many layouts the chances come from the naive game tree (check.py); past it, from the
#: engine's endgame search run on the layouts enumerated here (the issue's "the exact engine
#: otherwise": the naive tree takes seconds on the biggest).
NAIVE = 40


def _engine_chances(p: Puzzle, lays: list[frozenset[int]]) -> dict[int, float]:
    eg = Endgame.of(p.position, lays, 10**7)
    n = len(lays)
    return {c: eg.value(c, (1 << n) - 1, n) for c in eg.cells if eg.mine[c].bit_count() < n}


def _check_guess(p: Puzzle) -> None:
    lays = layouts(p.position)
    assert len(lays) == p.layouts, p.id
    chances = win_chances(p.position, lays) if len(lays) <= NAIVE else _engine_chances(p, lays)
    assert set(chances) == set(p.chances), p.id
    for c, v in chances.items():
        assert abs(v - p.chances[c]) < 2e-6, (p.id, c, v, p.chances[c])
    best = max(chances.values())
    assert set(p.answer) == {c for c, v in chances.items() if v >= best - 1e-9}, p.id
    if p.kind == "guess":
        assert p.tempting is not None and best - chances[p.tempting] >= 0.05 - 1e-9, p.id
    else:
        x, y = p.pair
        holds_one = [len({x, y} & lay) for lay in lays]
        assert set(holds_one) == {1}, p.id  # one mine between them, in every layout
        assert 2 * sum(1 for lay in lays if x in lay) == len(lays), p.id
        assert p.fifty == (chances[x] >= best - 1e-9), p.id


@pytest.mark.parametrize("kind", KINDS)
def test_every_shipped_puzzle_is_right(kind: str) -> None:
    checked = 0
    for p in PUZZLES:
        if p.kind != kind:
            continue
        if kind in ("safe", "all"):
            _check_forced(p)
            if kind == "safe":
                assert number_rule_safe(p.position) == set(), p.id
        else:
            _check_guess(p)
        checked += 1
    assert checked > 0
