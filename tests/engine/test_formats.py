import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from demine.engine.formats import (
    Board,
    GameRecord,
    atomic_write,
    board_from_mbf,
    board_to_mbf,
    iter_boards,
    read_boards,
    write_boards,
)
from demine.engine.game import Game, Move
from demine.errors import FormatError


@st.composite
def boards(draw: st.DrawFn, max_side: int = 40) -> Board:
    w = draw(st.integers(1, max_side))
    h = draw(st.integers(1, max_side))
    n = w * h
    cells = draw(st.sets(st.integers(0, n - 1), max_size=min(n - 1, 60)))
    rule = draw(st.sampled_from(["safe", "zero", "none"]))
    start = draw(st.one_of(st.none(), st.integers(0, n - 1)))
    return Board(w, h, tuple(sorted(cells)), rule, start)


@given(st.lists(boards(), min_size=1, max_size=4))
def test_board_files_round_trip(tmp_path_factory: pytest.TempPathFactory, bs: list[Board]) -> None:
    path = tmp_path_factory.mktemp("b") / "boards.jsonl"
    write_boards(path, bs)
    assert read_boards(path) == bs


@given(boards(max_side=255))
def test_mbf_round_trips_the_layout(b: Board) -> None:
    back = board_from_mbf(board_to_mbf(b))
    assert (back.width, back.height, back.mine_cells) == (b.width, b.height, b.mine_cells)


def test_mbf_layout_is_x_y_pairs_after_a_big_endian_count() -> None:
    b = Board(30, 16, (0, 31), "safe")
    assert board_to_mbf(b) == bytes([30, 16, 0, 2, 0, 0, 1, 1])


@pytest.mark.parametrize(
    "data, message",
    [
        (b"\x1e", "at least 4 bytes"),
        (bytes([0, 16, 0, 0]), "zero side"),
        (bytes([30, 16, 0, 2, 0, 0]), "need 8 bytes"),
        (bytes([3, 3, 0, 1, 3, 0]), r"mine 1 at byte 4: \(x=3, y=0\) is off"),
        (bytes([3, 3, 0, 2, 1, 1, 1, 1]), "listed twice"),
    ],
)
def test_bad_mbf_is_refused_with_the_reason(data: bytes, message: str) -> None:
    with pytest.raises(FormatError, match=message):
        board_from_mbf(data)


def test_mbf_refuses_boards_it_cannot_hold() -> None:
    with pytest.raises(FormatError, match="255x255"):
        board_to_mbf(Board(300, 10, (1,), "safe"))


@pytest.mark.parametrize(
    "line, message",
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"width": 3, "height": 3}', "missing key"),
        ('{"width": 3, "height": 3, "mine_cells": [[3, 0]]}', r"\[3, 0\] is off"),
        ('{"width": 3, "height": 3, "mine_cells": [[0, 0], [0, 0]]}', "twice"),
        ('{"width": 3, "height": 3, "mines": 2, "mine_cells": [[0, 0]]}', "'mines' is 2"),
        ('{"width": 3, "height": 3, "rule": "easy", "mine_cells": []}', "unknown rule"),
        ('{"width": 0, "height": 3, "mine_cells": []}', "width must be at least 1"),
        ('{"width": 3, "height": 3, "mine_cells": [[0]]}', "pair"),
    ],
)
def test_bad_board_lines_name_the_line(line: str, message: str) -> None:
    good = json.dumps(Board(3, 3, (0,), "safe").to_json())
    with pytest.raises(FormatError, match=message) as err:
        list(iter_boards(["# header", good, line], source="b.jsonl"))
    assert err.value.line == 3
    assert str(err.value).startswith("b.jsonl: line 3: ")


def test_game_records_round_trip_and_replay(tmp_path: Path) -> None:
    g = Game(9, 9, 10, rule="zero", seed=5)
    g.reveal(40)
    covered = [c for c in range(81) if g.position().state(c) == 9]
    g.flag(covered[0])
    g.flag(covered[0])
    safe = next(c for c in covered if not g.is_mine(c))
    g.reveal(safe)
    rec = GameRecord.from_game(g)
    path = tmp_path / "game.json"
    rec.save(path)
    back = GameRecord.load(path)
    assert back == rec
    assert back.replay().position() == g.position()
    assert back.replay(1).position().states != g.position().states


def test_a_record_whose_moves_do_not_replay_is_refused(tmp_path: Path) -> None:
    rec = GameRecord(Board(3, 3, (0,), "none"), [Move("reveal", 0), Move("reveal", 1)])
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(rec.to_json()))
    with pytest.raises(FormatError, match="do not replay"):
        GameRecord.load(path)
    path.write_text("{}")
    with pytest.raises(FormatError, match="not a demine game record"):
        GameRecord.load(path)
    path.write_text("{")
    with pytest.raises(FormatError, match="not valid JSON"):
        GameRecord.load(path)


def test_atomic_write_leaves_the_old_file_when_writing_fails(tmp_path: Path) -> None:
    path = tmp_path / "keep.txt"
    path.write_text("old")

    class Boom(str):
        def encode(self, *a: object, **k: object) -> bytes:
            raise RuntimeError("crash while writing")

    with pytest.raises(RuntimeError):
        atomic_write(path, Boom("new"))
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_move_notes_round_trip_and_are_checked(tmp_path: Path) -> None:
    g = Game.from_layout(3, 3, [0])
    g.reveal(8)
    rec = GameRecord.from_game(g, [("look-ahead", 0.25)])
    back = GameRecord.from_json(json.loads(json.dumps(rec.to_json())))
    assert back.notes == [("look-ahead", 0.25)] and back.note(0) == ("look-ahead", 0.25)
    bad = rec.to_json()
    bad["moves"][0][3] = 7
    with pytest.raises(FormatError, match="move 1: a note"):
        GameRecord.from_json(bad)
