import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from demine.engine.position import COVERED, FLAG, Position, changed_cells
from demine.errors import PositionSyntaxError


@st.composite
def positions(draw: st.DrawFn) -> Position:
    w = draw(st.integers(1, 12))
    h = draw(st.integers(1, 12))
    states = draw(st.lists(st.integers(0, FLAG), min_size=w * h, max_size=w * h))
    mines = draw(st.one_of(st.none(), st.integers(0, w * h)))
    return Position(w, h, bytes(states), mines)


@given(positions())
def test_text_round_trips(p: Position) -> None:
    assert Position.from_text(p.to_text()) == p


@given(positions())
def test_repr_evaluates_back_to_the_same_position(p: Position) -> None:
    assert eval(repr(p)) == p


@given(positions())
def test_a_position_crosses_to_another_process_by_pickle(p: Position) -> None:
    # (the compiled build refused this: FrozenInstanceError when pickle set the fields)
    for protocol in (2, pickle.HIGHEST_PROTOCOL):
        back = pickle.loads(pickle.dumps(p, protocol))
        assert back == p and type(back) is Position and hash(back) == hash(p)
    assert pickle.loads(pickle.dumps(p.with_state(0, COVERED))) == p.with_state(0, COVERED)


def test_lenient_reading_accepts_the_other_spellings() -> None:
    text = "# a comment\n\n3x2\n.*1\n?H0\nmines=2\n"
    p = Position.from_text(text)
    assert (p.width, p.height, p.mines) == (3, 2, 2)
    assert p.states == bytes([COVERED, FLAG, 1, COVERED, COVERED, 0])
    assert p.to_text() == "3x2x2\nHF1\nHH0\n"


def test_size_line_is_optional() -> None:
    p = Position.from_text("mines=10\n1.......\n1.......")
    assert (p.width, p.height, p.mines) == (8, 2, 10)


def test_str_is_a_grid() -> None:
    assert str(Position.from_text("2x2x1\nHF\n12")) == ".F\n12"


@pytest.mark.parametrize(
    "text, line, column, message",
    [
        ("3x2x1\nHHH\nHXH", 3, 2, "unexpected character 'X'"),
        ("3x2x1\nHHH\nHH", 3, 3, "row has 2 cells"),
        ("4x2x1\nHHH\nHHH", 1, 1, "header says 4x2"),
        ("3x2x1\nmines=2\nHHH\nHHH", 2, 1, "disagrees"),
        ("3x1x9\nHHH", 1, 1, "do not fit"),
        ("mines=two\nHHH", 1, 1, "expected mines=N"),
        ("0x3x1\nHHH", 1, 1, "width must be at least 1"),
    ],
)
def test_parse_errors_name_line_and_column(text: str, line: int, column: int, message: str) -> None:
    with pytest.raises(PositionSyntaxError, match=message) as err:
        Position.from_text(text)
    assert (err.value.line, err.value.column) == (line, column)
    assert f"line {line}" in str(err.value)


def test_no_rows_is_an_error() -> None:
    with pytest.raises(PositionSyntaxError, match="no rows"):
        Position.from_text("# only a comment\n")


@given(positions(), st.data())
def test_a_copy_with_one_cell_changed_is_the_position_made_in_full(p: Position, data: st.DataObject) -> None:
    # with_state skips the full check of the constructor: the copy must still be the same value
    # (fields, equality, hash), and a state out of range must still be refused
    from demine.errors import SizeError

    cell = data.draw(st.integers(0, p.cells - 1))
    state = data.draw(st.integers(0, FLAG))
    b = bytearray(p.states)
    b[cell] = state
    want = Position(p.width, p.height, bytes(b), p.mines)
    got = p.with_state(cell, state)
    assert (got.width, got.height, got.states, got.mines) == (
        want.width,
        want.height,
        want.states,
        want.mines,
    )
    assert got == want and hash(got) == hash(want)
    assert p.with_state(cell, p.states[cell]) == p
    with pytest.raises(SizeError, match=f"cell {cell} has state 11"):
        p.with_state(cell, FLAG + 1)


@given(st.data(), st.sampled_from([0, 1, 7, 480, 4096, 4097, 9000]))
def test_changed_cells_are_the_differing_indices(data: st.DataObject, n: int) -> None:
    """Both ways of finding the changes (a loop over the bytes when compiled and short, one XOR
    of the two read as integers otherwise) give every differing index, in order, plus start."""
    old = data.draw(st.binary(min_size=n, max_size=n))
    changes = data.draw(st.dictionaries(st.integers(0, n - 1), st.integers(0, 255), max_size=40)) if n else {}
    new = bytearray(old)
    for i, v in changes.items():
        new[i] = v
    start = data.draw(st.sampled_from([0, 4096, 123]))
    expected = [start + i for i in range(n) if old[i] != new[i]]
    assert changed_cells(old, bytes(new), start) == expected
