import random
from collections import Counter

import pytest

from demine.engine.game import Game, Move
from demine.engine.grid import Geometry
from demine.engine.position import COVERED, FLAG
from demine.errors import IllegalMove, SizeError

# A 5x4 layout used by several tests (M = mine):
#   . . . . .
#   . . . . .
#   . . . M M
#   . . . M .
LAYOUT = [2 * 5 + 3, 2 * 5 + 4, 3 * 5 + 3]


def test_flood_fill_opens_the_zero_region_and_its_border() -> None:
    g = Game.from_layout(5, 4, LAYOUT)
    opened = g.reveal(0)
    assert str(g.position()) == "00000\n00122\n002..\n002.."
    assert sorted(opened) == sorted(set(range(20)) - {13, 14, 18, 19})
    assert g.outcome == "playing"
    assert g.safe_left == 1  # (3,4)


def test_revealing_the_last_safe_cell_wins() -> None:
    g = Game.from_layout(5, 4, LAYOUT)
    g.reveal(0)
    assert g.reveal(19) == [19]
    assert g.won and g.over


def test_revealing_a_mine_loses_and_ends_the_game() -> None:
    g = Game.from_layout(5, 4, LAYOUT)
    g.reveal(13)
    assert g.outcome == "lost" and g.exploded == 13
    with pytest.raises(IllegalMove, match="over"):
        g.reveal(0)


def test_chord_with_nothing_left_to_open_does_nothing() -> None:
    g = Game.from_layout(5, 4, LAYOUT)
    g.reveal(0)
    for c in (13, 14, 18):
        g.flag(c)
    # the numbers next to the flags have no covered unflagged neighbour: chording does nothing
    assert g.chord(3 * 5 + 2) == []
    assert g.chord(1 * 5 + 4) == []
    assert g.outcome == "playing" and g.position().state(19) == COVERED


def test_chord_opens_unflagged_neighbours_when_the_count_matches() -> None:
    # mines at (0,0); the 1 at (1,1) chords open the rest of its neighbourhood
    g = Game.from_layout(3, 3, [0])
    g.reveal(4)
    g.flag(0)
    opened = g.chord(4)
    assert sorted(opened) == [1, 2, 3, 5, 6, 7, 8]
    assert g.won


def test_chord_with_a_wrong_flag_loses() -> None:
    g = Game.from_layout(3, 3, [0])
    g.reveal(4)
    g.flag(2)  # wrong: the mine is at 0
    g.chord(4)
    assert g.outcome == "lost" and g.exploded == 0


def test_chord_with_too_few_flags_does_nothing() -> None:
    g = Game.from_layout(3, 3, [0, 8])
    g.reveal(4)
    g.flag(0)
    assert g.chord(4) == []
    assert g.outcome == "playing"


def test_flags_toggle_and_block_reveals() -> None:
    g = Game(9, 9, 10, seed=3)
    assert g.flag(40) is True
    assert g.position().state(40) == FLAG
    assert g.reveal(40) == []
    assert g.flag(40) is False
    assert g.position().state(40) == COVERED
    g.reveal(0)
    with pytest.raises(IllegalMove, match="cannot be flagged"):
        g.flag(0)


@pytest.mark.parametrize("seed", range(30))
def test_safe_rule_keeps_the_first_cell_free(seed: int) -> None:
    g = Game(4, 4, 15, rule="safe", seed=seed)  # every other cell is a mine
    g.reveal(5)
    assert g.outcome == "won"
    assert 5 not in g.mine_cells()


@pytest.mark.parametrize("seed", range(30))
def test_zero_rule_keeps_the_first_cell_and_neighbours_free(seed: int) -> None:
    g = Game(9, 9, 30, rule="zero", seed=seed)
    g.reveal(40)
    assert g.position().state(40) == 0
    assert not set(g.mine_cells()) & ({40} | set(g.geometry.neighbours(40)))


def test_none_rule_can_lose_on_the_first_click() -> None:
    outcomes = {Game(3, 3, 8, rule="none", seed=s).reveal(4) == [] for s in range(20)}
    assert outcomes == {True, False}


def test_the_same_seed_and_first_click_give_the_same_layout() -> None:
    a, b = Game(30, 16, 99, seed=7), Game(30, 16, 99, seed=7)
    a.reveal(0)
    b.reveal(0)
    assert a.mine_cells() == b.mine_cells()
    c = Game(30, 16, 99, seed=8)
    c.reveal(0)
    assert c.mine_cells() != a.mine_cells()


def _layout_counts(size: int, mines: int, rule: str, draws: int, tag: str) -> Counter[tuple[int, ...]]:
    """How often each layout comes up over ``draws`` seeded games, first click in the corner."""
    counts: Counter[tuple[int, ...]] = Counter()
    for s in range(draws):
        g = Game(size, size, mines, rule=rule, seed=f"{tag}{s}")
        g.reveal(0)
        counts[tuple(g.mine_cells())] += 1
    return counts


def _chi_square(counts: Counter[tuple[int, ...]], layouts: int, draws: int) -> float:
    expected = draws / layouts
    assert len(counts) == layouts  # every allowed layout occurs
    return sum((n - expected) ** 2 / expected for n in counts.values())


def test_safe_layouts_are_uniform() -> None:
    # 3x3 with 2 mines, first click in the corner: C(8, 2) = 28 layouts.
    counts = _layout_counts(3, 2, "safe", 5600, "u")
    assert all(0 not in k for k in counts)
    # 27 degrees of freedom: P(chi2 > 55.5) = 0.001
    assert _chi_square(counts, 28, 5600) < 55.5


def test_zero_layouts_are_uniform() -> None:
    # 4x4 with 2 mines, first click in the corner keeps 4 cells free: C(12, 2) = 66 layouts.
    counts = _layout_counts(4, 2, "zero", 6600, "z")
    assert all(not set(k) & {0, 1, 4, 5} for k in counts)
    # 65 degrees of freedom: P(chi2 > 107.3) = 0.001
    assert _chi_square(counts, 66, 6600) < 107.3


def test_3bv_counts_openings_and_lone_numbers() -> None:
    # one opening covers everything but (3,4), which touches no zero: 3BV = 2
    assert Game.from_layout(5, 4, LAYOUT).bbbv() == 2
    # a 1x3 board with a mine in the middle: two lone numbers
    assert Game.from_layout(3, 1, [1]).bbbv() == 2
    # no mines: one opening
    assert Game.from_layout(4, 4, []).bbbv() == 1


def test_from_layout_checks_its_input() -> None:
    with pytest.raises(SizeError, match="off the"):
        Game.from_layout(3, 3, [9])
    with pytest.raises(SizeError, match="twice"):
        Game.from_layout(3, 3, [1, 1])


def test_play_applies_moves_and_copy_is_independent() -> None:
    g = Game.from_layout(3, 3, [0])
    g.play(Move("reveal", 1))
    h = g.copy()
    h.play(Move("flag", 0))
    assert g.position().state(0) == COVERED and h.position().state(0) == FLAG
    assert [m.kind for m in h.moves] == ["reveal", "flag"]


def test_a_1000x1000_game_is_playable() -> None:
    g = Game(1000, 1000, 150_000, rule="zero", seed=1)
    opened = g.reveal(500_500)
    assert len(opened) >= 9
    # a second click costs only what it opens
    c = next(c for c in range(1_000_000) if g.position().state(c) == COVERED and not g.is_mine(c))
    assert g.reveal(c)


def test_zero_rule_room_depends_on_the_first_click() -> None:
    g = Game(1, 3, 1, rule="zero", seed=1)  # fits when the first click is at an end
    g.reveal(0)
    assert g.mine_cells() == [2] and g.outcome == "won"
    with pytest.raises(SizeError, match=r"first click at \(1,0\)"):
        Game(1, 3, 1, rule="zero", seed=1).reveal(1)


def _flood_bbbv(geo: Geometry, mine: bytearray, count: bytearray, visible: bytearray | None = None) -> int:
    """The 3BV by a flood fill of its own (independent of the game's kept openings); with
    ``visible`` (the player's view) only the part cleared: openings with an opened cell, numbers
    outside every opening that are opened."""
    n = geo.cells
    seen = bytearray(n)
    total = 0
    nb = geo.neighbours
    for c in range(n):
        if mine[c] or count[c] or seen[c]:
            continue
        seen[c] = 1
        todo = [c]
        cleared = visible is None or visible[c] < 9
        while todo:
            x = todo.pop()
            for d in nb(x):
                if not seen[d]:
                    seen[d] = 1
                    if count[d] == 0:
                        todo.append(d)
                        cleared = cleared or visible is None or visible[d] < 9
        total += cleared
    for c in range(n):
        if not seen[c] and not mine[c] and (visible is None or visible[c] < 9):
            total += 1
    return total


def test_solved_bbbv_from_the_kept_openings_is_the_flood_fills_count() -> None:
    # issue 34: solved_bbbv keeps the layout's openings (made once, shared by copies: a replay
    # frame asks it of a copy) instead of flood-filling the board at each call
    for seed in range(12):
        rng = random.Random(seed)
        w, h = rng.choice([(9, 9), (16, 16), (30, 16)])
        g = Game(w, h, rng.choice([5, 10, 40]), rule="safe", seed=seed)
        g.play(Move("reveal", rng.randrange(w * h)))
        while not g.over:
            c = rng.choice([x for x in range(w * h) if g.visible[x] >= 9])
            assert g.solved_bbbv() == _flood_bbbv(g.geometry, g._mine, g._count, g._visible)  # type: ignore[arg-type]
            g.copy().play(Move("reveal", c))  # (a copy shares the openings, not the view)
            g.play(Move("flag" if rng.random() < 0.1 else "reveal", c))
        assert g.solved_bbbv() == _flood_bbbv(g.geometry, g._mine, g._count, g._visible)  # type: ignore[arg-type]
        assert g.bbbv() == _flood_bbbv(g.geometry, g._mine, g._count)  # type: ignore[arg-type]
        if g.won:
            assert g.solved_bbbv() == g.bbbv()
