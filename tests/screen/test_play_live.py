"""Whole games in real programs under Xvfb, read by demine's reader, every read checked against
the truth (the layout known from a Tatham game id, or shown at the game's end), and live hints
(``watch``) on a real window. Lean: a few games on small boards."""

from __future__ import annotations

import time

import pytest

from tests.screen.conftest import need_program

np = pytest.importorskip("numpy")
pytest.importorskip("PIL")

from demine.analysis import analyze  # noqa: E402
from demine.analysis.noguess import no_guess_game  # noqa: E402
from demine.screen.groundtruth import check_frames, truths  # noqa: E402
from demine.screen.live import LiveWindow, PlaySettings, new_game, play_game, summary  # noqa: E402
from demine.screen.programs import PROGRAMS, launch, tatham_game_id  # noqa: E402
from demine.screen.read import read_board  # noqa: E402
from demine.screen.text import ocr_missing  # noqa: E402
from demine.screen.x11 import connect  # noqa: E402

SETTINGS = PlaySettings(seconds=1.0)


def _reads(skin: str) -> None:
    from demine.screen.tiles import skins

    if skin not in {s.name for s in skins()}:
        pytest.skip(f"the reader has no {skin} skin yet")


def test_tatham_games_on_known_layouts_are_won_and_every_read_is_the_truth(xdisplay: str) -> None:
    need_program("tatham")
    _reads("tatham")
    logs = []
    for seed in (1, 2):
        game = no_guess_game(9, 9, 10, rule="zero", seed=f"live-{seed}")
        start = game.geometry.cell(2, 2)
        game.reveal(start)
        layout = game.mine_cells()
        game_id = tatham_game_id(9, 9, layout, start)
        with (
            launch(PROGRAMS["tatham"], xdisplay, 9, 9, 10, tile=24, game_id=game_id) as run,
            connect(xdisplay) as conn,
        ):
            log = play_game(
                LiveWindow(conn, run.window.id),
                PROGRAMS["tatham"],
                read_board,
                mines=10,
                settings=SETTINGS,
                keep_frames=True,
            )
        assert log.outcome == "won", log.to_json()
        # a read refused (a misread: it contradicts the last one) is counted, never acted on
        assert log.layout == layout and not log.lost_on_proven_safe
        check = check_frames(log, layout)
        assert check.cells == 81 * len(log.frames) and check.correct == check.cells, check.wrong[:2]
        logs.append(log)
    s = summary(logs, PROGRAMS["tatham"])
    assert s["won"] == 2 and s["lost_on_proven_safe"] == 0
    assert s["moves"] == sum(len(g.turns) for g in logs) and s["ms_per_move"]["p50"] > 0


def test_tatham_own_boards_are_won_game_after_game_with_its_new_game_key(xdisplay: str) -> None:
    need_program("tatham")
    _reads("tatham")
    program = PROGRAMS["tatham"]
    with launch(program, xdisplay, 9, 9, 10, tile=24) as run, connect(xdisplay) as conn:
        window = LiveWindow(conn, run.window.id)
        first = play_game(window, program, read_board, mines=10, settings=SETTINGS, keep_frames=True)
        new_game(window, program, first.final, SETTINGS)
        second = play_game(window, program, read_board, mines=10, settings=SETTINGS, keep_frames=True)
    for log in (first, second):
        assert log.outcome == "won" and not log.lost_on_proven_safe
        assert log.turns[0].reason == "start" and all(t.reason == "safe" for t in log.turns[1:])
        check = check_frames(log)  # the truth: the cells still hidden at the win
        assert check.correct == check.cells > 0
    assert truths(first)[0].states != truths(second)[0].states or first.layout != second.layout


def test_xdemineur_is_never_lost_on_a_proven_safe_cell(xdisplay: str) -> None:
    need_program("xdemineur")
    _reads("xdemineur")
    program = PROGRAMS["xdemineur"]
    logs = []
    with launch(program, xdisplay, 12, 9, 12) as run, connect(xdisplay) as conn:
        window = LiveWindow(conn, run.window.id)
        for index in range(3):
            if index:
                new_game(window, program, logs[-1].final, SETTINGS)
            log = play_game(window, program, read_board, mines=12, settings=SETTINGS, keep_frames=True)
            assert log.outcome in ("won", "lost"), log.to_json()
            assert not log.lost_on_proven_safe, log.to_json()
            if log.layout is not None and log.replayable:
                check = check_frames(log)
                assert check.correct == check.cells, check.wrong[:2]
            logs.append(log)


def test_watch_shows_the_proven_cells_of_a_real_window_and_draws_them_over_it(xdisplay: str) -> None:
    need_program("tatham")
    _reads("tatham")
    from demine.screen.overlay import COLOURS
    from demine.screen.watch import Hints, watch

    game = no_guess_game(9, 9, 10, rule="zero", seed="watch-1")
    start = game.geometry.cell(2, 2)
    game.reveal(start)
    proven = analyze(game.position())
    shown: list[Hints | str] = []
    seen: list[object] = []
    with (
        launch(
            PROGRAMS["tatham"],
            xdisplay,
            9,
            9,
            10,
            tile=24,
            game_id=tatham_game_id(9, 9, game.mine_cells(), start),
        ) as run,
        connect(xdisplay) as conn,
    ):

        def look(h: Hints | str) -> None:
            shown.append(h)
            time.sleep(0.1)
            seen.append(conn.grab(run.window.box))

        ended = watch(
            conn,
            PROGRAMS["tatham"],
            run.window.id,
            read_board,
            show=look,
            mines=None if ocr_missing() is None else 10,  # the status line's "Marked: 0 / 10", read
            overlay=True,
            updates=1,
            interval=0.05,
        )
        # while watch was running the overlay was drawn; it is gone now
        after = conn.grab(run.window.box)
    assert ended == "1 updates shown"
    hints = shown[0]
    assert isinstance(hints, Hints) and hints.problem is None
    assert hints.safe == frozenset(proven.safe) and hints.mines == frozenset(proven.mines)
    assert hints.read.position.states == game.visible and hints.read.position.mines == 10
    # a safe cell's frame was drawn in the safe colour, over the window, never into its pixels
    c = min(hints.safe)
    x, y = hints.read.centre(c)
    top = round(y - hints.read.cell_h / 2) + 1
    assert tuple(seen[0][top, x]) == COLOURS["safe"]
    assert tuple(after[top, x]) != COLOURS["safe"]
