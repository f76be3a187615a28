import json
import subprocess
import sys
from pathlib import Path

import pytest

from demine.cli import main
from demine.engine.formats import Board, write_boards
from demine.engine.game import Game


def _games(path: Path) -> list[tuple[int, bool, int, int]]:
    """A bench record file as sorted (index, won, moves, guesses) rows."""
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    return sorted((r["index"], r["won"], r["moves"], r["guesses"]) for r in rows)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_help_lists_the_subcommands() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "demine", "--help"], capture_output=True, text=True, check=True
    ).stdout
    for sub in ("new", "bench", "analyze", "players"):
        assert sub in out


def test_new_prints_a_position_after_the_first_click(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "new", "expert", "--seed", "7")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "30x16x99" and len(lines) == 17
    assert lines[1][0] != "H"  # the corner was opened
    code, again, _ = run(capsys, "new", "expert", "--seed", "7")
    assert again == out


def test_bench_json_has_the_documented_keys_and_is_reproducible(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["bench", "--preset", "beginner", "--games", "200", "--player", "random", "--seed", "1", "--json"]
    code, out, _ = run(capsys, *args)
    assert code == 0
    obj = json.loads(out)
    assert set(obj) >= {"player", "games", "wins", "win_rate", "ci95", "rule", "start", "ms_per_game"}
    assert obj["games"] == 200 and obj["rule"] == "safe" and obj["start"] == "0,0"
    lo, hi = obj["ci95"]
    assert 0 <= lo <= obj["win_rate"] <= hi <= 1
    _, again, _ = run(capsys, *args)
    assert json.loads(again)["wins"] == obj["wins"]


def test_bench_replays_a_board_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    boards = []
    for s in range(30):
        g = Game(5, 5, 2, rule="safe", seed=s)
        g.reveal(0)
        boards.append(Board.from_game(g))
    path = tmp_path / "boards.jsonl"
    write_boards(path, boards)
    args = ["bench", "--boards", str(path), "--player", "random", "--seed", "1", "--json"]
    _, out1, _ = run(capsys, *args)
    _, out2, _ = run(capsys, *args)
    a, b = json.loads(out1), json.loads(out2)
    assert a["games"] == 30 and a["wins"] == b["wins"]
    assert 0 < a["wins"] < 30  # random wins some easy 5x5 boards, not all


def test_bench_records_one_line_per_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = tmp_path / "r.jsonl"
    run(capsys, "bench", "--size", "5x5x3", "--games", "7", "--player", "random", "--record", str(rec))
    lines = [json.loads(x) for x in rec.read_text().splitlines()]
    assert [x["index"] for x in lines] == list(range(7))
    assert set(lines[0]) >= {"index", "won", "moves", "guesses", "ms"}


def test_bench_human_output_names_rule_start_and_ci(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "bench", "--size", "6x6x4", "--games", "10", "--rule", "zero", "--player", "random"
    )
    assert code == 0
    assert "zero" in out and "2,2" in out and "CI" in out


def test_malformed_board_line_is_named_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl"
    good = json.dumps(Board(3, 3, (0,), "safe").to_json())
    path.write_text(good + "\n" + good + "\n{oops\n")
    proc = subprocess.run(
        [sys.executable, "-m", "demine", "bench", "--boards", str(path), "--player", "random"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert "line 3" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["bench", "--size", "3x3x20"], "do not fit"),
        (["bench", "--player", "nobody", "--games", "1"], "unknown player"),
        (["bench", "--boards", "/nonexistent/boards.jsonl"], "No such file"),
        (["new", "12x"], "neither a preset"),
        (["bench", "--size", "5x5x3", "--start", "9,9"], "off the"),
    ],
)
def test_bad_input_gives_a_clear_error(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, _, err = run(capsys, *args)
    assert code == 2
    assert message in err and "Traceback" not in err


def test_jobs_do_not_change_results(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["bench", "--size", "8x8x10", "--games", "40", "--player", "random", "--json", "--seed", "9"]
    _, one, _ = run(capsys, *base)
    _, two, _ = run(capsys, *base, "--jobs", "2")
    assert json.loads(one)["wins"] == json.loads(two)["wins"]


def test_compare_json_is_a_list_with_the_paired_test(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "bench", "--compare", "exact,random", "--size", "8x8x8", "--games", "20", "--json"
    )
    assert code == 0
    objs = json.loads(out)
    assert [o["player"] for o in objs] == ["exact", "random"]
    pr = objs[0]["paired"]
    assert pr["games"] == 20 and pr["wins_a"] == objs[0]["wins"] and pr["wins_b"] == objs[1]["wins"]
    assert pr["only_a"] - pr["only_b"] == pr["wins_a"] - pr["wins_b"]
    assert 0 <= pr["p_value"] <= 1
    assert 0 <= objs[0]["forced_share"] <= 1


def test_jobs_do_not_change_the_best_players_games(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    base = ["bench", "--preset", "beginner", "--games", "12", "--player", "best", "--json", "--seed", "4"]
    run(capsys, *base, "--record", str(tmp_path / "one.jsonl"))
    run(capsys, *base, "--jobs", "2", "--record", str(tmp_path / "two.jsonl"))

    assert _games(tmp_path / "one.jsonl") == _games(tmp_path / "two.jsonl")


def test_analyze_says_why_and_reports_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "p.mine"
    src.write_text("3x2\n121\nHHH\n")
    code, out, _ = run(capsys, "analyze", "--why", str(src))
    assert code == 0
    assert "(1,1) safe" in out and "(1,2) mine (the pair" in out
    code, out, _ = run(capsys, "analyze", "--json", str(src), str(src))
    lines = [json.loads(x) for x in out.splitlines()]
    assert len(lines) == 2
    obj = lines[0]
    assert obj["safe"] == [[1, 1]] and obj["mine_cells"] == [[1, 0], [1, 2]]
    assert obj["solutions"] == "1" and obj["approximate"] is False
    kinds = {(r, c): kind for r, c, kind, _ in obj["reasons"]}
    assert kinds[(1, 2)] == "pair"


def test_analyze_best_names_the_move_the_best_player_makes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from demine import Position
    from demine.players.best import best_move

    src = tmp_path / "p.mine"
    text = "5x3x3\n1HHHH\nHHHHH\nHHHHH\n"  # the README's example: few layouts, searched exactly
    src.write_text(text)
    bm = best_move(Position.from_text(text))
    code, out, _ = run(capsys, "analyze", "--best", str(src))
    assert code == 0
    r, c = divmod(bm.move.cell, 5)
    assert bm.win_probability is not None
    assert (
        f"best move: open ({r},{c}) (endgame: {100 * bm.mine_probability:.1f}% chance of a mine; "
        f"wins {100 * bm.win_probability:.1f}% with best play)" in out
    )
    code, out, _ = run(capsys, "analyze", "--best", "--json", str(src))
    assert json.loads(out)["best"] == {
        "cell": [r, c],
        "reason": "endgame",
        "mine_probability": bm.mine_probability,
        "win_probability": bm.win_probability,
        "survive": None,
        "reveals": None,
    }
    # a look-ahead guess (expert, after the corner shows a number): the chance to survive the
    # next reveals, this one included, instead of a chance to win
    from demine.engine.game import Game

    g = Game(30, 16, 99, rule="safe", seed=0)
    g.reveal(0)
    opening = tmp_path / "o.mine"
    opening.write_text(g.position().to_text())
    code, out, _ = run(capsys, "analyze", "--best", "--json", str(opening))
    best = json.loads(out)["best"]
    assert best["reason"] == "look-ahead" and best["win_probability"] is None
    assert best["reveals"] in (2, 3) and 0 < best["survive"] <= 1 - best["mine_probability"]
    code, out, _ = run(capsys, "analyze", "--best", str(opening))
    assert f"; {100 * best['survive']:.1f}% to survive {best['reveals']} reveals from here)" in out
    # a flag is trusted unless told otherwise: then its cell is as likely a mine as the other
    flagged = tmp_path / "f.mine"
    flagged.write_text("3x1x1\nF1H\n")
    code, out, _ = run(capsys, "analyze", "--best", str(flagged))
    assert "best move: open (0,2) (proven safe)" in out
    code, out, _ = run(capsys, "analyze", "--best", "--json", "--no-trust-flags", str(flagged))
    best = json.loads(out)["best"]
    assert best["reason"] != "safe" and best["mine_probability"] == 0.5
    # nothing left to open
    done = tmp_path / "d.mine"
    done.write_text("2x1x1\n1F\n")
    code, out, _ = run(capsys, "analyze", "--best", str(done))
    assert code == 0 and "best move: none (no covered cell left that is not a proven mine)" in out
    code, out, _ = run(capsys, "analyze", "--best", "--json", str(done))
    assert json.loads(out)["best"] is None
    # only a proven mine left covered: not named the best guess at 100% risk
    done.write_text("3x3x1\n111\n1H1\n111\n")
    code, out, _ = run(capsys, "analyze", "--best", str(done))
    assert "best move: none (no covered cell left that is not a proven mine)" in out
    assert "100.0% chance" not in out


def test_analyze_reports_bad_files_and_goes_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.mine"
    good.write_text("2x1x1\n1H\n")
    bad = tmp_path / "bad.mine"
    bad.write_text("2x1x1\n1Q\n")
    code, out, err = run(capsys, "analyze", "--json", str(bad), str(good))
    assert code == 2
    first, second = (json.loads(x) for x in out.splitlines())
    assert "line 2, column 2" in first["error"] and second["mine_cells"] == [[0, 1]]
    code, _, err = run(capsys, "analyze", str(tmp_path / "missing.mine"))
    assert code == 2 and "No such file" in err and "Traceback" not in err


def test_recorded_games_replay_move_by_move(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = tmp_path / "r.jsonl"
    code, _, _ = run(
        capsys,
        "bench",
        "--preset",
        "beginner",
        "--games",
        "4",
        "--seed",
        "3",
        "--record",
        str(rec),
        "--record-moves",
    )
    assert code == 0
    lines = [json.loads(x) for x in rec.read_text().splitlines()]
    game = lines[1]["game"]
    assert game["moves"][0][3] == "start" and len(game["moves"]) == lines[1]["moves"]
    # the final position of the replay is the game's own result
    from demine.engine.formats import GameRecord

    record = GameRecord.from_json(game)
    assert record.replay().won == lines[1]["won"]
    code, out, _ = run(capsys, "replay", str(rec), "--game", "2", "--move", "1")  # lines[1]: from 1
    assert code == 0 and "after move 1/" in out and "(start" in out
    frames = tmp_path / "frames"
    code, out, _ = run(
        capsys, "replay", str(rec), "--game", "2", "--frames", str(frames), "--overlay", "hints"
    )
    assert code == 0 and len(list(frames.iterdir())) == len(game["moves"]) + 1


def test_replay_refuses_what_it_cannot_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain = tmp_path / "plain.jsonl"
    run(capsys, "bench", "--size", "5x5x3", "--games", "2", "--record", str(plain))
    code, _, err = run(capsys, "replay", str(plain))
    assert code == 2 and "--record-moves" in err
    code, _, err = run(capsys, "bench", "--size", "5x5x3", "--games", "2", "--record-moves")
    assert code == 2 and "needs --record" in err
    rec = tmp_path / "r.jsonl"
    run(capsys, "bench", "--size", "5x5x3", "--games", "2", "--record", str(rec), "--record-moves")
    code, _, err = run(capsys, "replay", str(rec), "--game", "7")
    assert code == 2 and "holds 2 games: --game takes 1 to 2" in err
    code, _, err = run(capsys, "replay", str(rec), "--move", "999")
    assert code == 2 and "--move must be between 0 and" in err


def test_sweep_runs_one_bench_per_value_and_plots(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "sweep.png"
    code, out, _ = run(
        capsys,
        "bench",
        "--size",
        "6x6x4",
        "--sweep",
        "mines=2:6:2",
        "--compare",
        "exact,random",
        "--games",
        "12",
        "--json",
        "--plot",
        str(png),
    )
    assert code == 0
    points = json.loads(out)
    assert [p["value"] for p in points] == [2, 4, 6] and all(p["param"] == "mines" for p in points)
    assert [o["player"] for o in points[0]["players"]] == ["exact", "random"]
    assert all(o["games"] == 12 for p in points for o in p["players"])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = tmp_path / "sweep.svg"
    assert (
        run(capsys, "bench", "--size", "6x6x4", "--sweep", "width=5,7", "--games", "5", "--plot", str(svg))[0]
        == 0
    )
    import xml.etree.ElementTree as ET

    ET.fromstring(svg.read_text())


@pytest.mark.parametrize(
    "args, message",
    [
        (["--sweep", "mines=10:5:1"], "STOP >= START"),
        (["--sweep", "colour=1,2"], "NAME one of"),
        (["--sweep", "mines=30:40:5"], "--sweep mines=40:"),
        (["--plot", "x.png"], "give --sweep too"),
        (["--sweep", "mines=2,3", "--plot", "x.txt"], "writes .png, .svg or .pdf"),
    ],
)
def test_bad_sweeps_say_what_is_wrong(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, _, err = run(capsys, "bench", "--size", "6x6x4", "--games", "2", *args)
    assert code == 2 and message in err


def test_new_no_guess_gives_a_guess_free_board_or_says_what_to_try(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from demine import is_guess_free
    from demine.engine.formats import board_from_json

    code, out, err = run(capsys, "new", "expert", "--rule", "zero", "--no-guess", "--seed", "7", "--board")
    assert code == 0
    board = board_from_json(json.loads(out))
    assert board.no_guess == "complete" and is_guess_free(30, 16, board.mine_cells, 93)
    assert "guess-free from (3,3) by the complete certificate: uniform sampling" in err  # says how
    code, _, err = run(capsys, "new", "9x9x30", "--rule", "zero", "--no-guess", "--no-guess-mode", "dense")
    assert code == 0 and "the dense mode" in err and "not uniform" in err
    code, _, err = run(
        capsys,
        "new",
        "30x16x150",
        "--rule",
        "zero",
        "--no-guess",
        "--no-guess-mode",
        "uniform",
        "--no-guess-seconds",
        "0.2",
        "--seed",
        "1",
    )
    assert code == 2 and "fewer mines, a longer time limit, or the dense mode" in err
