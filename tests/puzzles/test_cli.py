"""``demine puzzles make|export`` and ``demine puzzle`` in the terminal."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from demine.cli import main
from demine.puzzles import read_puzzles

KEYS = {"id", "position", "kind", "answer", "rating", "themes", "source"}


def test_make_mines_bench_files_and_played_games_and_export_writes_json_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = tmp_path / "games.jsonl"
    assert main(["bench", "--preset", "beginner", "--games", "3", "--player", "fast", "--seed", "5",
                 "--record", str(bench), "--record-moves", "--json"]) == 0  # fmt: skip
    out = tmp_path / "set.jsonl.gz"
    assert main(["puzzles", "make", str(bench), "--play", "fast:beginner:2", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "puzzles written" in text and "safe" in text
    made = read_puzzles(out)
    assert made and any("games.jsonl" in p.source for p in made)
    assert any(p.source.startswith("fast beginner") for p in made)
    # --add keeps them and adds nothing twice
    assert main(["puzzles", "make", str(bench), "--out", str(out), "--add"]) == 0
    assert len(read_puzzles(out)) == len(made)
    capsys.readouterr()
    assert main(["puzzles", "export", "--file", str(out), "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(made)
    for line in lines:
        obj = json.loads(line)
        assert set(obj) >= KEYS
        assert obj["kind"] in ("safe", "all", "guess", "coin")
        assert all(len(rc) == 2 for rc in obj["answer"])


def test_make_says_what_is_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["puzzles", "make", "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "nothing to mine" in capsys.readouterr().err
    assert main(["puzzles", "make", "--play", "fast:beginner", "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "PLAYER:PRESET:GAMES" in capsys.readouterr().err
    assert main(["puzzles", "make", str(tmp_path / "none.json"), "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err


def _answers(monkeypatch: pytest.MonkeyPatch, lines: list[str]) -> None:
    it = iter(lines)

    def fake(prompt: str = "") -> str:
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr("builtins.input", fake)


def _name(cell: int, width: int) -> str:
    r, c = divmod(cell, width)
    return f"{chr(97 + c)}{r + 1}"


def test_puzzle_right_then_wrong_moves_the_rating_and_the_streak(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    safe = [p for p in read_puzzles() if p.kind == "safe" and p.position.width <= 26]
    p = safe[0]
    prof = tmp_path / "me.json"
    _answers(monkeypatch, ["zz99", _name(p.answer[0], p.position.width)])
    assert main(["puzzle", "--id", p.id, "--profile", str(prof)]) == 0
    out = capsys.readouterr().out
    assert "off the board" in out and "Right" in out and "[" in out  # the proof outlined
    first = json.loads(prof.read_text())
    assert first["streak"] == 1 and first["rating"] > 1500
    wrong = next(c for c in range(p.position.cells) if p.position.states[c] == 9 and c not in p.answer)
    _answers(monkeypatch, [_name(wrong, p.position.width)])
    assert main(["puzzle", "--id", p.id, "--profile", str(prof)]) == 0
    assert "Wrong" in capsys.readouterr().out
    second = json.loads(prof.read_text())
    assert second["streak"] == 0 and second["best_streak"] == 1 and second["rating"] < first["rating"]


def test_puzzle_coin_asks_the_call_then_the_cell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    p = next(z for z in read_puzzles() if z.kind == "coin" and z.position.width <= 26)
    _answers(
        monkeypatch,
        [
            "y" if p.fifty else "n",
            f"{p.answer[0] // p.position.width + 1} {p.answer[0] % p.position.width + 1}",
        ],
    )
    assert main(["puzzle", "--id", p.id, "--profile", str(tmp_path / "me.json")]) == 0
    assert "Right" in capsys.readouterr().out


def test_daily_is_the_same_all_day() -> None:
    import datetime as dt

    from demine.puzzles import daily

    puzzles = read_puzzles()
    day = dt.date(2026, 11, 25)
    assert daily(puzzles, day).id == daily(list(reversed(puzzles)), day).id
    assert daily(puzzles, day).id != daily(puzzles, day + dt.timedelta(days=1)).id


def test_make_reports_each_step_apart_from_the_totals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "set.jsonl"
    assert main(["puzzles", "make", "--play", "fast:beginner:14", "--seed", "steps", "--out", str(out)]) == 0
    lines = " ".join(capsys.readouterr().err.split()).split("fast beginner games ")[1:]
    steps = [re.match(r"\S+: (\d+) new puzzles? .* in (\d+) positions?; so far (\d+) new", x) for x in lines]
    assert len(steps) == 2 and all(steps)  # games 1-10, then 11-14
    new = [int(m.group(1)) for m in steps if m]
    so_far = [int(m.group(3)) for m in steps if m]
    assert so_far == [new[0], new[0] + new[1]]  # each step its own, the totals beside
    assert so_far[-1] == len(read_puzzles(out))
