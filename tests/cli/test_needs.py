"""What a command needs is checked before it works (extras, where it writes, one game when it
draws one), games are numbered the same way by every command, and the README's replay example
works as written."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import pytest

from demine.cli import main

README = Path(__file__).resolve().parent.parent.parent / "README.md"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def hide(monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    """Make ``module`` look uninstalled (an import of it fails, find_spec finds nothing)."""
    for name in [n for n in sys.modules if n == module or n.startswith(module + ".")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, module, None)


def test_a_sweep_plot_without_matplotlib_fails_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    hide(monkeypatch, "matplotlib")
    rec = tmp_path / "r.jsonl"
    code, out, err = run(
        capsys,
        "bench",
        "--size", "6x6x4", "--sweep", "mines=3,4", "--games", "2",
        "--plot", str(tmp_path / "s.png"), "--record", str(rec),
    )  # fmt: skip
    assert code == 2 and "--plot needs matplotlib: pip install 'demine[plot]'" in err
    assert out == "" and not rec.exists()  # nothing was played


def test_outputs_that_cannot_be_written_are_refused_before_the_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no" / "such" / "folder"
    code, out, err = run(
        capsys,
        "bench",
        "--size",
        "6x6x4",
        "--sweep",
        "mines=3,4",
        "--games",
        "2",
        "--plot",
        str(missing / "s.svg"),
    )
    assert code == 2 and out == "" and f"no folder {missing}" in err
    code, out, err = run(capsys, "bench", "--size", "6x6x4", "--games", "2", "--record", str(tmp_path))
    assert code == 2 and out == "" and "is a folder, not a file" in err
    code, _, err = run(
        capsys, "bench", "--size", "6x6x4", "--sweep", "mines=3", "--plot", str(tmp_path / "s.gif")
    )
    assert code == 2 and "--plot writes .png, .svg or .pdf files, not '.gif'" in err


def test_a_review_graph_without_matplotlib_fails_before_the_review(
    three_games: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    hide(monkeypatch, "matplotlib")
    board = tmp_path / "b.svg"
    code, out, err = run(
        capsys,
        "review",
        str(three_games),
        "--game",
        "1",
        "--graph",
        str(tmp_path / "g.png"),
        "--board",
        "2",
        str(board),
    )
    assert code == 2 and out == "" and "--graph needs matplotlib" in err
    assert not board.exists()


def test_pictures_of_a_file_of_several_games_ask_which_game(
    three_games: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    board = tmp_path / "b.svg"
    code, out, err = run(capsys, "review", str(three_games), "--board", "2", str(board))
    assert code == 2 and out == "" and "holds 3: add --game N (1 to 3)" in err
    code, out, err = run(capsys, "review", str(three_games), "--game", "2", "--board", "2", str(board))
    assert code == 0, err
    assert board.read_text().startswith("<svg") and f"{three_games}:2" in out
    code, _, err = run(capsys, "review", str(three_games), "--game", "4")
    assert code == 2 and "holds 3 games: --game takes 1 to 3 (counting from 1), got 4" in err
    code, _, err = run(capsys, "review", str(three_games), "--game", "1", "--board", "9999", str(board))
    assert code == 2 and "--board 9999:" in err and "moves" in err


def test_review_and_replay_number_the_games_of_a_file_alike(
    three_games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "review", str(three_games), "--json")
    assert code == 0
    reviews = [json.loads(line) for line in out.splitlines()]
    assert [r["game"] for r in reviews] == [f"{three_games}:{n}" for n in (1, 2, 3)]
    lines = [json.loads(x) for x in three_games.read_text().splitlines()]
    for n in (1, 2, 3):
        code, out, _ = run(capsys, "review", str(three_games), "--game", str(n), "--json")
        (one,) = [json.loads(line) for line in out.splitlines()]
        assert one == reviews[n - 1]
        code, out, _ = run(capsys, "replay", str(three_games), "--game", str(n))
        moves = len(lines[n - 1]["game"]["moves"])
        assert code == 0 and out.startswith(f"game {n} of 3: ") and f": {moves} move" in out.splitlines()[0]


def test_the_help_says_where_game_numbers_start(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("review", "replay"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "--game N" in text and "numbered from 1" in text


def test_the_readme_replay_example_works_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [line.split("  #")[0].strip() for line in README.read_text(encoding="utf-8").splitlines()]
    commands = [
        line
        for line in lines
        if re.match(r"demine (bench .*--record games\.jsonl --record-moves|replay games\.jsonl)", line)
    ]
    assert len(commands) == 3 and commands[0].startswith("demine bench")
    monkeypatch.chdir(tmp_path)
    for command in commands:
        code, _, err = run(capsys, *shlex.split(command)[1:])
        assert code == 0, f"{command}: {err}"
    assert (tmp_path / "frames" / "frame_0040.svg").exists()


def test_render_writes_a_real_png_or_names_the_extra(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("cairosvg", reason="the png extra (CairoSVG) is not installed")
    position = tmp_path / "p.mine"
    position.write_text("3x3x1\n1HH\nHHH\nHHH\n")
    png = tmp_path / "p.png"
    code, _, err = run(capsys, "render", str(position), "-o", str(png), "--overlay", "probabilities")
    assert code == 0, err
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    hide(monkeypatch, "cairosvg")
    code, _, err = run(capsys, "render", str(position), "-o", str(tmp_path / "q.png"))
    assert code == 2 and "needs CairoSVG: pip install 'demine[png]'" in err
    assert not (tmp_path / "q.png").exists()
    code, _, err = run(capsys, "render", str(position), "-o", str(tmp_path / "q.jpg"))
    assert code == 2 and "-o writes .svg or .png files" in err


def test_analyze_says_when_the_mine_count_is_unknown_and_shortens_big_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    no_header = tmp_path / "n.mine"
    no_header.write_text("1HH\nHHH\n")
    code, out, _ = run(capsys, "analyze", str(no_header))
    assert code == 0 and "None" not in out and "mine count unknown" in out
    big = tmp_path / "big.mine"
    big.write_text("30x16x99\n" + "H" * 30 + "\n" + "\n".join("H" * 30 for _ in range(15)) + "\n")
    code, out, _ = run(capsys, "analyze", str(big))
    assert code == 0 and "solutions: 5.6e104" in out
    code, out, _ = run(capsys, "analyze", "--json", str(big))
    from math import comb

    assert json.loads(out)["solutions"] == str(comb(480, 99))  # exact in JSON
