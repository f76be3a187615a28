import pytest

from demine.engine.grid import (
    MAX_SIDE,
    PRESETS,
    check_mines,
    default_start,
    geometry,
    parse_cell,
    parse_size,
    reserved_cells,
)
from demine.errors import SizeError


def test_presets_have_the_community_sizes() -> None:
    assert {n: (p.width, p.height, p.mines) for n, p in PRESETS.items()} == {
        "beginner": (9, 9, 10),
        "intermediate": (16, 16, 40),
        "expert": (30, 16, 99),
        "beginner-classic": (8, 8, 10),
    }


def test_neighbours_match_a_direct_computation_on_odd_shapes() -> None:
    for w, h in [(1, 1), (1, 5), (5, 1), (4, 3), (30, 16)]:
        g = geometry(w, h)
        for cell in range(w * h):
            r, c = divmod(cell, w)
            want = sorted(
                rr * w + cc
                for rr in range(r - 1, r + 2)
                for cc in range(c - 1, c + 2)
                if (rr, cc) != (r, c) and 0 <= rr < h and 0 <= cc < w
            )
            assert list(g.neighbours(cell)) == want


def test_huge_board_neighbours_are_computed_on_demand() -> None:
    g = geometry(1000, 1000)
    assert g.neighbours(0) == (1, 1000, 1001)
    assert len(g.neighbours(500_500)) == 8


@pytest.mark.parametrize(
    "text, message",
    [
        ("0x5x1", "width must be at least 1"),
        ("5x-1x1", "neither a preset"),
        ("3x3x10", "do not fit"),
        (f"{MAX_SIDE + 1}x10x5", "larger than the limit"),
        ("expertt", "neither a preset"),
    ],
)
def test_bad_sizes_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(SizeError, match=message):
        parse_size(text)


def test_1000x1000_is_allowed_and_mines_must_leave_room_for_the_rule() -> None:
    assert parse_size("1000x1000x150000") == (1000, 1000, 150000)
    check_mines(3, 3, 8, "safe")
    with pytest.raises(SizeError):
        check_mines(3, 3, 9, "safe")
    # zero: the first click and its neighbours stay free; a centre click keeps 9, a corner 4
    with pytest.raises(SizeError):
        check_mines(9, 9, 73, "zero", start=40)
    check_mines(9, 9, 72, "zero", start=40)
    check_mines(9, 9, 77, "zero")  # start unknown: some first click (a corner) leaves room
    with pytest.raises(SizeError):
        check_mines(9, 9, 78, "zero")
    assert reserved_cells(9, 9, "zero", 0) == 4


def test_default_start_cells_follow_the_field() -> None:
    assert default_start(30, 16, "safe") == 0
    assert default_start(30, 16, "zero") == 3 * 30 + 3
    assert default_start(9, 9, "zero") == 2 * 9 + 2
    assert parse_cell("3,4", 30, 16) == 94
    with pytest.raises(SizeError, match="off the"):
        parse_cell("16,0", 30, 16)
    with pytest.raises(SizeError, match="not a cell"):
        parse_cell("a,b", 30, 16)


def test_neighbours_computed_on_demand_equal_the_table() -> None:
    """Boards too big for a table compute neighbours per call (with a fast path inside the board);
    on boards that have a table both ways must agree, edges and corners included."""
    from demine.engine.grid import Geometry

    for w, h in [(30, 16), (1, 5), (5, 1), (2, 2), (1, 1), (9, 9)]:
        g = Geometry(w, h)
        assert g.table() is not None
        assert all(g._compute(c) == g.neighbours(c) for c in range(w * h))
