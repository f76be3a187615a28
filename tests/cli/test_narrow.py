"""A newcomer's 80-column terminal: tables keep every number whole (names and marks wrap), prose
folds, and output that is not a terminal follows ``COLUMNS`` (issue 58)."""

from __future__ import annotations

import json
import os
import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from demine.cli import main
from demine.cli.tables import PIPE_WIDTH, console

pytest.importorskip("rich")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def fits(out: str, width: int) -> None:
    """Every line within ``width``, and nothing cut short."""
    assert max(len(line) for line in out.splitlines()) <= width
    assert "…" not in out


def shows(out: str, figure: str) -> bool:
    """Whether ``figure`` is in ``out`` whole (between spaces, or before a comma)."""
    return re.search(rf"(^|\s){re.escape(figure)}(,|\s|$)", out) is not None


def bench_figures(obj: dict[str, object]) -> list[str]:
    """The numbers a bench table shows for one player, as it writes them."""
    lo, hi = obj["ci95"]  # type: ignore[misc]
    return [
        f"{100 * obj['win_rate']:.2f}%",  # type: ignore[operator]
        f"{100 * lo:.1f}-{100 * hi:.1f}%",
        f"{obj['guesses_per_game']:.2f}",
    ]


@pytest.mark.parametrize("width", [80, 60, 40])
@pytest.mark.parametrize("extra", [[], ["--lives", "2"]])
def test_bench_tables_keep_numbers_whole_at_any_width(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, width: int, extra: list[str]
) -> None:
    args = ["bench", "--compare", "fast,fast(two_step=False)", "--preset", "beginner", "--games", "12"]
    args += ["--seed", "n", *extra]
    _, out, _ = run(capsys, *args, "--json")
    players = json.loads(out)
    monkeypatch.setenv("COLUMNS", str(width))
    code, out, _ = run(capsys, *args)
    assert code == 0
    fits(out, width)
    for obj in players:
        for figure in bench_figures(obj):
            assert shows(out, figure), figure
    if width >= 80:
        assert "fast(two_step=False)" in out  # a name whole where the table has room for it


@pytest.mark.parametrize("width", [80, 50])
def test_review_tables_keep_numbers_whole(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, three_games: Path, width: int
) -> None:
    record = three_games
    _, out, _ = run(capsys, "review", str(record), "--json")
    reviews = [json.loads(line) for line in out.splitlines()]
    monkeypatch.setenv("COLUMNS", str(width))
    code, out, _ = run(capsys, "review", str(record))
    assert code == 0
    fits(out, width)
    for r in reviews:
        s = r["summary"]
        assert shows(out, f"{s['solved_bbbv']}/{s['bbbv']}")  # the 3BV, whole
    # one game, each decision on its row
    code, out, _ = run(capsys, "review", str(record), "--game", "2")
    assert code == 0
    fits(out, width)
    assert "first click" in out


def test_output_that_is_not_a_terminal_follows_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    c = console()
    assert c is not None and c.width == PIPE_WIDTH  # (pytest's output is not a terminal)
    monkeypatch.setenv("COLUMNS", "77")
    c = console()
    assert c is not None and c.width == 77


def test_output_piped_from_a_terminal_takes_its_width(tmp_path: Path) -> None:
    """``demine players | less`` in a 60-column terminal: standard output is a pipe, but the
    terminal is on standard error, and the text fits it."""
    fcntl = pytest.importorskip("fcntl")
    termios = pytest.importorskip("termios")
    leader, follower = os.openpty()
    try:
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 60, 0, 0))
        env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
        done = subprocess.run(
            [sys.executable, "-m", "demine", "players"],
            stdout=subprocess.PIPE,
            stderr=follower,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=tmp_path,
            timeout=120,
        )
    finally:
        os.close(follower)
        os.close(leader)
    lines = done.stdout.decode().splitlines()
    assert done.returncode == 0 and len(lines) > 20
    assert max(len(line) for line in lines) <= 60
