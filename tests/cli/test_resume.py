"""``demine bench --resume``: a record resumes only the run that made it, and a resumed run says
what it read and what it played."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from demine.bench.records import read_records
from demine.cli import main
from tests.helpers import board_file

BASE = ["bench", "--preset", "beginner", "--player", "fast", "--seed", "a", "--games", "6"]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The record of BASE's six games."""
    path = tmp_path / "r.jsonl"
    code, _, err = run(capsys, *BASE, "--record", str(path))
    assert code == 0, err
    return path


def test_resume_skips_recorded_games_and_counts_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = tmp_path / "r.jsonl"
    base = ["bench", "--preset", "beginner", "--player", "exact", "--seed", "8", "--json"]
    _, full, _ = run(capsys, *base, "--games", "20")
    run(capsys, *base, "--games", "8", "--record", str(rec))
    assert len(rec.read_text().splitlines()) == 8
    code, resumed, _ = run(capsys, *base, "--games", "20", "--resume", str(rec))
    assert code == 0
    lines = [json.loads(x) for x in rec.read_text().splitlines()]
    assert sorted(x["index"] for x in lines) == list(range(20))  # 12 new lines, none twice
    a, b = json.loads(full), json.loads(resumed)
    assert (a["games"], a["wins"]) == (b["games"], b["wins"])
    assert b["resumed"] == {"record": str(rec), "read": 8, "played": 12, "beyond": 0}
    rec.write_text(rec.read_text() + "{broken\n")
    code, _, err = run(capsys, *base, "--games", "20", "--resume", str(rec))
    assert code == 2 and "line 21" in err


@pytest.mark.parametrize(
    "change, message",
    [
        (["--preset", "expert"], "board: 9x9/10 (this run: 30x16/99)"),
        (["--seed", "b"], "seed: 'a' (this run: 'b')"),
        (["--rule", "zero"], "rule: 'safe' (this run: 'zero')"),
        (["--start", "4,4"], "start: 0,0 (this run: 4,4)"),
        (["--lives", "2"], "lives: 0 (this run: 2)"),
        (["--no-guess", "local"], "no-guess certificate: none (this run: 'local')"),
        (
            ["--forced-share"],
            "forced found measured (--forced-share, implied by --compare): no (this run: yes)",
        ),
        (["--player", "exact"], "line 1: a game of fast, which this run does not play (exact)"),
        (["--set", "two_step=no"], "a game of fast, which this run does not play (fast(two_step=False))"),
        (["--record-moves"], "line 1: no moves, and this run records them (--record-moves)"),
    ],
)
def test_a_record_of_another_run_is_refused_naming_what_differs(
    record: Path, capsys: pytest.CaptureFixture[str], change: list[str], message: str
) -> None:
    before = record.read_text()
    code, out, err = run(capsys, *BASE, *change, "--resume", str(record))
    assert code == 2 and out == ""
    assert f"{record}: line" in err and message in err
    assert record.read_text() == before  # nothing played, nothing appended


def test_the_issue_s_beginner_record_is_not_taken_for_an_expert_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = tmp_path / "r.jsonl"
    run(capsys, "bench", "--preset", "beginner", "--games", "35", "--seed", "x", "--record", str(rec))
    code, out, err = run(capsys, "bench", "--preset", "expert", "--seed", "y", "--resume", str(rec))
    assert code == 2 and "91.43%" not in out and "30x16/99" not in out
    assert "board: 9x9/10 (this run: 30x16/99); seed: 'x' (this run: 'y')" in err


def test_a_resume_with_every_game_played_says_it_played_none(
    record: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, *BASE, "--resume", str(record))
    assert code == 0 and "resumed" in out
    assert f"resumed {record}: 0 played now, 6 read from the record" in " ".join(out.split())
    # fewer games than the record holds: only this run's are counted, and the rest are named
    code, out, _ = run(capsys, *BASE, "--games", "4", "--resume", str(record), "--json")
    obj = json.loads(out)
    assert obj["games"] == 4 and obj["resumed"]["read"] == 4 and obj["resumed"]["beyond"] == 2
    code, out, _ = run(capsys, *BASE, "--games", "4", "--resume", str(record))
    assert "(2 more games in it, beyond this run's --games, are left out)" in " ".join(out.split())


def test_a_compared_run_resumes_each_player_and_says_how_many_of_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = tmp_path / "r.jsonl"
    args = ["bench", "--preset", "beginner", "--seed", "c", "--compare", "fast,exact"]
    run(capsys, *args, "--games", "3", "--record", str(rec))
    code, out, err = run(capsys, *args, "--games", "5", "--resume", str(rec))
    assert code == 0, err
    text = " ".join(out.split())
    assert "fast: 2 played now, 3 read from the record; exact: 2 played now, 3 read" in text
    assert len(rec.read_text().splitlines()) == 10


def test_a_game_recorded_twice_is_refused_not_counted_twice(
    record: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = record.read_text().splitlines()
    record.write_text("\n".join([*lines, lines[3]]) + "\n")
    code, _, err = run(capsys, *BASE, "--resume", str(record))
    assert code == 2 and "line 7: game 3 of fast again (first at line 4)" in err


def test_moves_recorded_and_not_are_not_mixed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = tmp_path / "m.jsonl"
    run(capsys, *BASE, "--record", str(rec), "--record-moves")
    code, _, err = run(capsys, *BASE, "--games", "8", "--resume", str(rec))
    assert code == 2 and "give --record-moves to resume it" in err
    code, _, err = run(capsys, *BASE, "--games", "8", "--resume", str(rec), "--record-moves")
    assert code == 0, err


def test_an_old_record_is_read_but_cannot_be_resumed(
    record: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = [json.loads(x) for x in record.read_text().splitlines()]
    for line in old:
        del line["run"]
    record.write_text("".join(json.dumps(x) + "\n" for x in old))
    assert [line.result.index for line in read_records(record)] == list(range(6))  # still read
    code, _, err = run(capsys, *BASE, "--resume", str(record))
    assert code == 2
    assert "line 1: written before record lines named their run" in err and "cannot be checked" in err


def test_a_board_file_run_knows_its_boards(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board_file(tmp_path / "one.jsonl", 9, 9, 10, [f"1/{s}" for s in range(4)])
    board_file(tmp_path / "two.jsonl", 9, 9, 10, [f"2/{s}" for s in range(4)])
    rec = tmp_path / "r.jsonl"
    args = ["bench", "--player", "fast", "--games", "2"]
    run(capsys, *args, "--boards", str(tmp_path / "one.jsonl"), "--record", str(rec))
    code, _, err = run(capsys, *args, "--boards", str(tmp_path / "one.jsonl"), "--resume", str(rec))
    assert code == 0, err
    code, _, err = run(capsys, *args, "--boards", str(tmp_path / "two.jsonl"), "--resume", str(rec))
    assert code == 2 and "line 1: a game of another run: layout: " in err
    code, _, err = run(
        capsys, *args, "--boards", str(tmp_path / "one.jsonl"), "--seed", "9", "--resume", str(rec)
    )
    assert code == 2 and "seed: '1' (this run: '9')" in err


def test_a_line_cut_off_mid_write_is_dropped_and_its_game_played_again(
    record: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = record.read_text()
    lines = whole.splitlines(keepends=True)
    record.write_text("".join(lines[:5]) + lines[5][:40])  # (a full disk, a machine lost mid-write)
    code, out, err = run(capsys, *BASE, "--resume", str(record), "--json")
    assert code == 0, err
    assert f"{record}: line 6 was cut off (the run stopped while writing it)" in err
    assert json.loads(out)["resumed"]["read"] == 5
    again = [json.loads(x) for x in record.read_text().splitlines()]  # (every line whole)
    assert [(x["index"], x["won"], x["moves"]) for x in again] == [
        (x["index"], x["won"], x["moves"]) for x in map(json.loads, lines)
    ]
    record.write_text(whole.removesuffix("\n"))  # a whole last line without its newline
    code, _, err = run(capsys, *BASE, "--games", "8", "--resume", str(record))
    assert code == 0 and "cut off" not in err
    assert [line.result.index for line in read_records(record)] == list(range(8))


def test_a_broken_line_within_the_record_is_still_an_error(
    record: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = record.read_text().splitlines(keepends=True)
    lines[2] = lines[2][:30] + "\n"
    record.write_text("".join(lines))
    code, _, err = run(capsys, *BASE, "--resume", str(record))
    assert code == 2 and f"{record}: line 3: not valid JSON" in err
    assert record.read_text() == "".join(lines)  # (left as it was)


def test_a_run_split_by_skip_joins_into_the_whole_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["bench", "--preset", "beginner", "--player", "exact", "--seed", "9", "--games", "12"]
    whole, head, tail = tmp_path / "whole.jsonl", tmp_path / "head.jsonl", tmp_path / "tail.jsonl"
    assert run(capsys, *base, "--record", str(whole))[0] == 0
    assert run(capsys, *base[:-1], "5", "--record", str(head))[0] == 0
    code, out, _ = run(capsys, *base, "--skip", "5", "--record", str(tail), "--json")
    assert code == 0 and json.loads(out)["games"] == 7
    assert [x.result.index for x in read_records(str(tail))] == list(range(5, 12))

    def outcomes(*paths: Path) -> list[tuple[int, bool, int]]:
        return sorted(
            (x.result.index, x.result.won, x.result.moves) for p in paths for x in read_records(str(p))
        )

    assert outcomes(head, tail) == outcomes(whole)  # the same games, seeded by their indices
    joined = tmp_path / "joined.jsonl"
    joined.write_text(head.read_text() + tail.read_text())
    code, out, _ = run(capsys, *base, "--resume", str(joined), "--json")
    assert code == 0 and json.loads(out)["resumed"] == {
        "record": str(joined),
        "read": 12,
        "played": 0,
        "beyond": 0,
    }
    code, _, err = run(capsys, *base, "--skip", "12")
    assert code == 2 and "--skip 12 leaves none of the run's 12 games to play" in err
    with pytest.raises(SystemExit):
        main([*base, "--skip", "-1"])
    assert "argument --skip: must be 0 or more, got -1" in capsys.readouterr().err
