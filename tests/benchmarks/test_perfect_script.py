"""benchmarks/perfect.py: perfect play on tiny boards, and the exact accounting of a player's gap."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from types import ModuleType

import pytest

from demine.engine.grid import Geometry
from tests.helpers import benchmark_script


@pytest.fixture
def perfect() -> Iterator[ModuleType]:
    with benchmark_script("perfect") as module:
        yield module


def value(perfect: ModuleType, width: int, height: int, mines: int, rule: str = "safe") -> float:
    geo = Geometry(width, height)
    return float(perfect.perfect_play(geo, perfect.layouts(geo, mines, rule, 0))[1])


def test_perfect_play_on_boards_worked_by_hand(perfect: ModuleType) -> None:
    # 2x2 with one mine: the first click always shows 1 and so does every safe cell, so nothing
    # is ever learnt: survive one guess in 3 cells, then one in 2
    assert value(perfect, 2, 2, 1) == pytest.approx(float(Fraction(2, 3) * Fraction(1, 2)))
    # 3x1 with one mine: (0,0) shows 1 (mine next door: the far cell is safe) or 0 (it opens)
    assert value(perfect, 3, 1, 1) == 1.0
    # 3x1 with one mine, first click in the middle: it shows 1 either way, a coin toss
    geo = Geometry(3, 1)
    assert perfect.perfect_play(geo, perfect.layouts(geo, 1, "safe", 1))[1] == 0.5


def test_the_digest_memo_finds_the_same_values(perfect: ModuleType) -> None:
    geo = Geometry(4, 3)
    lays = perfect.layouts(geo, 3, "safe", 0)
    plain = perfect.search_over(geo, lays)
    plain.memo = {}
    digested = perfect.search_over(geo, lays)
    everything = (1 << len(lays)) - 1
    assert plain.win(everything) == digested.win(everything)
    assert len(plain.memo) == len(digested.memo) > 100


def test_a_players_losses_add_up_to_its_gap_to_perfect_play(perfect: ModuleType) -> None:
    geo = Geometry(5, 3)
    lays = perfect.layouts(geo, 3, "safe", 0)
    search, best_chance = perfect.perfect_play(geo, lays)
    # the look-ahead alone, two reveals deep (no endgame search): it gives some games away
    pure2 = perfect.play_all(search, lays, geo, "safe", 0, perfect.variant_spec("pure2"))
    gap = best_chance - pure2.wins / len(lays)
    assert gap > 0.01
    assert sum(pure2.lost_by_reason.values()) / len(lays) == pytest.approx(gap, abs=1e-9)
    assert set(pure2.lost_by_reason) == {"look-ahead"}
    # 364 layouts: `best`'s exact endgame search plays every guess, so it plays perfectly
    current = perfect.play_all(search, lays, geo, "safe", 0, perfect.variant_spec("current"))
    assert current.wins / len(lays) == pytest.approx(best_chance, abs=1e-12)
    assert sum(current.lost_by_reason.values()) == 0
