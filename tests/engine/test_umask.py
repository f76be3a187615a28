"""Files demine writes get the mode a plain ``open()`` would give them, whatever the umask: the
atomic writes (a temporary file, then a rename) must not leave the temporary file's 0o600."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from demine import Board, Game, GameRecord, write_boards
from demine.cli import main
from demine.engine.formats import atomic_write, current_umask


@pytest.fixture(params=[0o022, 0o077], ids=["umask022", "umask077"])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def plain_open_mode(folder: Path) -> int:
    """What ``open(path, "w")`` gives a new file here, under the current umask."""
    probe = folder / "probe"
    with open(probe, "w") as f:
        f.write("x")
    m = mode(probe)
    probe.unlink()
    return m


def test_the_umask_is_read_without_changing_it(umask: int) -> None:
    assert current_umask() == umask
    assert current_umask() == umask


def test_a_new_file_gets_the_mode_a_plain_open_gives(tmp_path: Path, umask: int) -> None:
    expected = plain_open_mode(tmp_path)
    assert expected == 0o666 & ~umask
    atomic_write(tmp_path / "a.svg", "<svg/>")
    assert mode(tmp_path / "a.svg") == expected
    record = GameRecord(Board(9, 9, (0, 1, 2), rule="safe"), [])
    record.save(tmp_path / "game.json")
    assert mode(tmp_path / "game.json") == expected
    write_boards(tmp_path / "boards.jsonl", [record.board])
    assert mode(tmp_path / "boards.jsonl") == expected


def test_an_existing_file_keeps_its_own_mode(tmp_path: Path, umask: int) -> None:
    path = tmp_path / "shared.svg"
    path.write_text("old")
    path.chmod(0o640)
    atomic_write(path, "new")
    assert path.read_text() == "new" and mode(path) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["shared.svg"]  # no temporary file left


def test_the_commands_output_files_honour_the_umask(tmp_path: Path, umask: int) -> None:
    expected = 0o666 & ~umask
    game = Game(9, 9, 10, rule="zero", seed=3)
    game.reveal(game.geometry.cell(2, 2))
    (tmp_path / "p.mine").write_text(game.position().to_text())
    assert main(["render", str(tmp_path / "p.mine"), "-o", str(tmp_path / "p.svg")]) == 0
    record = GameRecord.from_game(game)
    record.save(tmp_path / "g.json")
    frames = tmp_path / "frames"
    assert main(["replay", str(tmp_path / "g.json"), "--frames", str(frames)]) == 0
    written = [tmp_path / "p.svg", tmp_path / "g.json", *sorted(frames.iterdir())]
    assert len(written) == 4 and {mode(p) for p in written} == {expected}
