"""``demine screen play`` and ``watch`` on the command line: the JSON summary and the record of a
real game under Xvfb, clear errors for bad options, and q in the terminal."""

from __future__ import annotations

import json
import os
import pty
from pathlib import Path

import pytest

from demine.cli import main
from tests.screen.conftest import need_program


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_play_launches_tatham_plays_and_writes_the_summary_and_a_record(
    xdisplay: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    need_program("tatham")
    pytest.importorskip("PIL")
    record = tmp_path / "games.jsonl"
    code, out, err = run(
        capsys,
        "screen", "play", "--program", "tatham", "--display", xdisplay, "--launch", "--size", "beginner",
        "--tile", "24", "--games", "2", "--record", str(record), "--json",
    )  # fmt: skip
    assert code == 0, err
    s = json.loads(out)
    assert {"games", "won", "lost", "lost_on_proven_safe", "misreads", "ms_per_move"} <= set(s)
    assert (s["games"], s["won"], s["lost_on_proven_safe"]) == (2, 2, 0)
    assert s["ms_per_move"]["p50"] <= s["ms_per_move"]["p95"]
    games = [json.loads(line) for line in record.read_text().splitlines()]
    assert [g["game"] for g in games] == [1, 2] and all(g["outcome"] == "won" for g in games)
    first = games[0]["moves"]
    assert first[0]["reason"] == "start" and first[0]["cell"] == [2, 2]
    assert all(m["reason"] == "safe" and m["mine_probability"] == 0.0 for m in first[1:])
    assert len(games[0]["mine_cells"]) == 10
    assert "game 1: won after" in err and "game 2: won after" in err


def test_a_gnome_game_won_under_its_scores_window_counts_as_won(
    xdisplay: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # GNOME Mines opens "Congratulations!" (its top ten) over the board at a win. The board is
    # read from the window's own pixels under it, and the window is closed before the next game.
    # Its boards are not guess-free: of 3 games of 8x8/10 (about 9 in 10 won), at least one is won
    need_program("gnome")
    pytest.importorskip("PIL")
    code, out, err = run(
        capsys,
        "screen", "play", "--program", "gnome", "--display", xdisplay, "--launch", "--size", "8x8x10",
        "--tile", "30", "--games", "3", "--json",
    )  # fmt: skip
    assert code == 0, err
    s = json.loads(out)
    assert s["games"] == 3 and s["won"] + s["lost"] == 3 and s["unreadable"] == 0, s
    assert s["won"] >= 1 and s["lost_on_proven_safe"] == 0 and s["misreads"] == 0, s


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--program", "nope"],
            "no program 'nope'; choose one of tatham, xdemineur, gnome, kmines, demine-web, jsm",
        ),
        (
            ["--program", "tatham", "--size", "expert"],
            "--size, --tile and --url start a program: add --launch",
        ),
        (["--program", "tatham", "--seconds", "0"], "--seconds must be more than 0"),
        (["--program", "tatham", "--window", "zz"], "--window zz: not a window id"),
    ],
)
def test_bad_options_are_clear_errors(
    xdisplay: str, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("PIL")
    code, _, err = run(capsys, "screen", "play", "--display", xdisplay, *args)
    assert code == 2 and message in err and "Traceback" not in err


def test_no_window_of_the_program_is_a_clear_error(xdisplay: str, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("PIL")
    code, _, err = run(capsys, "screen", "watch", "--program", "kmines", "--display", xdisplay)
    assert code == 2 and f"no KMines window on the display {xdisplay}; start it, or pass --launch" in err


def test_q_in_the_terminal_is_seen_and_the_terminal_is_given_back() -> None:
    import termios

    from demine.cli.screen_live import key_pressed

    leader, follower = pty.openpty()
    with os.fdopen(follower, "r") as tty_in:
        before = termios.tcgetattr(follower)
        with key_pressed(tty_in) as pressed:
            assert pressed() is False
            os.write(leader, b"x")
            assert pressed() is False  # another key is not q
            os.write(leader, b"q")
            assert pressed() is True
        assert termios.tcgetattr(follower) == before
    os.close(leader)


def test_play_stops_when_the_window_closes_and_says_so(
    xdisplay: str, capsys: pytest.CaptureFixture[str]
) -> None:
    need_program("tatham")
    pytest.importorskip("PIL")
    import signal
    import threading

    from demine.screen.programs import PROGRAMS, launch

    with launch(PROGRAMS["tatham"], xdisplay, 30, 16, 99, tile=24) as started:
        closer = threading.Timer(2.0, lambda: os.killpg(started.process.pid, signal.SIGTERM))
        closer.start()
        try:
            code, out, err = run(
                capsys, "screen", "play", "--program", "tatham", "--display", xdisplay,
                "--window", hex(started.window.id), "--mines", "99", "--games", "5",
            )  # fmt: skip
        finally:
            closer.cancel()
    assert code == 0, err
    assert "ended: the window closed" in out and "Traceback" not in err


def test_watch_prints_an_update_as_json_and_stops_after_the_updates_asked(
    xdisplay: str, capsys: pytest.CaptureFixture[str]
) -> None:
    need_program("tatham")
    pytest.importorskip("PIL")
    code, out, err = run(
        capsys, "screen", "watch", "--program", "tatham", "--display", xdisplay, "--launch", "--size", "beginner",
        "--tile", "24", "--updates", "1", "--json",
    )  # fmt: skip
    assert code == 0, err
    update = json.loads(out.splitlines()[0])
    assert update["position"].startswith("9x9x10\n") and update["problem"] == "no cell opened yet"
    assert "watch: 1 updates shown" in err


def test_sigterm_ends_play_with_its_summary_and_the_program_it_launched(xdisplay: str) -> None:
    need_program("tatham")
    pytest.importorskip("PIL")
    import signal
    import subprocess
    import sys
    import time

    from demine.screen.programs import PROGRAMS
    from demine.screen.x11 import connect

    args = [
        "screen",
        "play",
        "--program",
        "tatham",
        "--display",
        xdisplay,
        "--launch",
        "--size",
        "expert",
        "--games",
        "3",
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "demine", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    with connect(xdisplay) as conn:
        deadline = time.monotonic() + 30
        while not PROGRAMS["tatham"].windows(conn) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert PROGRAMS["tatham"].windows(conn), "the program did not start"
        time.sleep(1.0)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 143, err
        assert "ended: terminated (SIGTERM)" in out and "Traceback" not in err
        assert PROGRAMS["tatham"].windows(conn) == []
