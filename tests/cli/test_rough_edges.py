"""The command line's small things: a progress bar on reviews, a word on "forced found", tables
folded to the terminal, each setting's documentation in ``demine players``."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from demine.cli import longrun, main
from demine.engine.game import Game


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_compare_says_what_forced_found_means(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "--compare", "fast,exact", "--size", "8x8x8", "--games", "5")
    text = " ".join(out.split())
    assert code == 0 and "forced found" in text
    assert "without a provable cell missed" in text
    code, out, _ = run(capsys, "bench", "--player", "exact", "--size", "8x8x8", "--games", "2")
    assert "without a provable cell missed" not in " ".join(out.split())  # only where the column is


def test_a_review_of_many_games_ticks_a_progress_bar(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rec = tmp_path / "r.jsonl"
    assert (
        main(
            [
                "bench",
                "--size",
                "8x8x8",
                "--games",
                "4",
                "--player",
                "fast",
                "--record",
                str(rec),
                "--record-moves",
            ]
        )
        == 0
    )
    calls: list[str] = []

    def fake(total: int, label: str) -> tuple[object, object]:
        calls.append(f"start {total} {label}")
        return (lambda r: calls.append("tick")), (lambda: calls.append("stop"))

    monkeypatch.setattr(longrun, "progress", fake)
    for jobs in ("1", "2"):
        calls.clear()
        code, _, _ = run(capsys, "review", str(rec), "--jobs", jobs)
        assert code == 0 and calls == ["start 4 review", "tick", "tick", "tick", "tick", "stop"]


def test_the_analysis_grid_folds_to_the_terminal_width(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    game = Game(30, 16, 99, seed=4)
    game.reveal(0)
    path = tmp_path / "p.mine"
    path.write_text(game.position().to_text())
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run(capsys, "analyze", str(path))
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 80
    grid, note = out.split("mines 99\n", 1)[1].split("legend:")[0].split("(the grid is")
    blocks = grid.strip("\n").split("\n\n")
    assert len(blocks) == 2 and all(len(b.splitlines()) == 17 for b in blocks)  # 15 + 15 columns
    assert blocks[1].splitlines()[0].split()[0] == "15"
    # it says how to see it whole
    assert " ".join(note.split()).startswith(
        "154 columns wide, folded to fit 80: a terminal that wide, or COLUMNS=154, shows it whole)"
    )
    monkeypatch.delenv("COLUMNS")
    code, out, _ = run(capsys, "analyze", str(path))  # not a terminal: one block
    assert "\n\n" not in out.split("legend:")[0] and max(len(x) for x in out.splitlines()) > 80
    assert "(the grid is" not in out


def test_players_shows_each_settings_documentation(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from dataclasses import fields

    from demine.players.best import BestSettings

    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run(capsys, "players")
    assert code == 0
    for f in fields(BestSettings):
        assert f"      {f.name}={getattr(BestSettings(), f.name)}: " in out, f.name
    assert "depth=3: Reveals the look-ahead scores: 2" in out
    assert "``" not in out and ":mod:" not in out


#: Bytes no UTF-8 text holds: the start of a PNG.
BINARY = b"\x89PNG\r\n\x1a\n\xff\xfe\x00\x01"


@pytest.mark.parametrize(
    "args",
    [
        ["analyze", "{f}"],
        ["analyze", "--json", "{f}"],
        ["render", "{f}"],
        ["replay", "{f}"],
        ["review", "{f}"],
        ["puzzle", "--file", "{f}"],
        ["puzzle", "--profile", "{f}"],
        ["puzzles", "export", "--file", "{f}"],
        ["puzzles", "make", "{f}", "--out", "{out}"],
        ["bench", "--boards", "{f}"],
        ["bench", "--resume", "{f}", "--games", "1"],
    ],
)
def test_a_binary_file_is_a_clear_error_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    path = tmp_path / "photo.png"
    path.write_bytes(BINARY)
    out_file = tmp_path / "out.jsonl"
    code, out, err = run(capsys, *(a.format(f=path, out=out_file) for a in args))
    assert code == 2
    assert f"{path}: not UTF-8 text: byte 0x89 at offset 0" in out + err
    assert "Traceback" not in err and not out_file.exists()
    assert path.read_bytes() == BINARY


def test_standard_input_that_is_not_text_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(BINARY)))
    code, _, err = run(capsys, "analyze", "-")
    assert code == 2 and "<stdin>: not UTF-8 text: byte 0x89 at offset 0" in err


def test_a_byte_order_mark_is_read_past(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.mine"
    path.write_bytes("\ufeff3x3x1\n111\n1H1\n111\n".encode())  # as some editors save UTF-8
    code, out, err = run(capsys, "analyze", str(path))
    assert code == 0, err
    assert "mines: (1,1)" in out


@pytest.mark.parametrize(
    "args, option, value",
    [
        (["analyze", "p.mine"], "--seconds", "-1"),
        (["analyze", "p.mine"], "--seconds", "nan"),
        (["review", "r.json"], "--seconds", "0"),
        (["new", "expert", "--no-guess"], "--no-guess-seconds", "-1"),
        (["serve"], "--request-timeout", "-5"),
        (["serve"], "--pace", "-1"),
    ],
)
def test_a_time_below_zero_is_refused(
    capsys: pytest.CaptureFixture[str], args: list[str], option: str, value: str
) -> None:
    with pytest.raises(SystemExit) as e:
        main([*args, option, value])
    err = capsys.readouterr().err
    assert e.value.code == 2 and f"argument {option}: " in err and repr(value)[1:-1] in err


def test_serve_refuses_a_db_in_a_missing_folder_and_makes_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")
    db = tmp_path / "missing" / "games.db"
    code, _, err = run(capsys, "serve", "--port", "1", "--db", str(db))
    assert code == 2 and f"no folder {db.parent}" in err
    assert not db.parent.exists()


def test_every_command_and_overlay_says_what_it_does(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("players", "bench", "puzzle"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        usage = text.partition(" options: ")[0]
        assert len(usage.split("]")[-1].split()) > 8, f"{command} --help has no description"
    for command in ("render", "replay"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "--overlay {none,probabilities,hints} over the board: hints" in text
