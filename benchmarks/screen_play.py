"""Whole games played through other programs' windows, with every read checked against the truth.

    python benchmarks/screen_play.py --program tatham --size expert --games 20 --tile 24
    python benchmarks/screen_play.py --program xdemineur --size expert --games 50 --failures DIR

Starts its own Xvfb (``-displayfd``; or ``--display :N``), launches the program at the size and
tile size given, and plays ``--games`` games with ``demine screen play``'s loop (one click per
read, ``best``), keeping every picture. At each game's end the layout is known where the program
shows it (a win: the cells still hidden; a loss where it shows every mine): the clicks are
replayed on demine's engine with it, and each read is compared with what the board showed,
cell by cell. Prints (or with ``--json`` writes) games, wins with the Wilson 95% interval,
losses on proven-safe cells, misreads, unreadable pictures, cells read correctly out of cells
read, and one turn's time (grab, read, decide, click) at p50 and p95, with the machine's load.

``--failures DIR`` writes each picture the reader refused or read wrongly, with its truth beside
it (the reader's test form, :mod:`demine.screen.truth`), where the truth is known.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from demine.analysis.noguess import no_guess_game
from demine.engine.grid import default_start, parse_size
from demine.screen.groundtruth import check_frames, save_failure, truths
from demine.screen.live import GameLog, LiveWindow, PlaySettings, new_game, play_game, summary
from demine.screen.programs import find_program, launch, tatham_game_id
from demine.screen.read import read_board
from demine.screen.x11 import ScreenError, connect, xvfb


def _games(display: str, ns: argparse.Namespace, program: Any) -> Iterator[tuple[Any, list[int] | None]]:
    """(window, layout) for each game: one program played game after game, its new games its own
    way; or with ``--known`` (Tatham's Mines) a fresh start for each game on a guess-free layout
    demine drew, opened at the usual cell: the truth of every picture is known from the start."""
    width, height, mines = parse_size(ns.size, "safe")
    if ns.known:
        for index in range(ns.games):
            game = no_guess_game(width, height, mines, rule="zero", seed=f"screen-{ns.seed}-{index}")
            start = default_start(width, height, "zero")
            game.reveal(start)
            layout = game.mine_cells()
            game_id = tatham_game_id(width, height, layout, start)
            started = launch(program, display, width, height, mines, tile=ns.tile, game_id=game_id)
            with started as run, connect(display) as conn:
                yield LiveWindow(conn, run.window.id), layout
        return
    with launch(program, display, width, height, mines, tile=ns.tile) as run, connect(display) as conn:
        window = LiveWindow(conn, run.window.id, unobscured=program.dialogs is not None)
        for _ in range(ns.games):
            yield window, None


def play(display: str, ns: argparse.Namespace) -> tuple[list[GameLog], dict[str, Any]]:
    program = find_program(ns.program)
    mines = parse_size(ns.size, "safe")[2]
    settings = PlaySettings(seconds=ns.seconds)
    logs: list[GameLog] = []
    checked = {"cells": 0, "correct": 0, "games_checked": 0, "wrong_reads": 0}
    failures = Path(ns.failures) if ns.failures else None
    shown = None
    for index, (window, layout) in enumerate(_games(display, ns, program)):
        if index > 0 and layout is None:
            new_game(window, program, shown, settings)
        log = play_game(window, program, read_board, mines=mines, settings=settings, keep_frames=True)
        shown = log.final
        logs.append(log)
        layout = layout if layout is not None else log.layout
        name = f"{program.name}-{ns.size}-t{ns.tile or 'd'}-g{index + 1}"
        if layout is not None and log.first is not None and log.replayable:
            check = check_frames(log, layout)
            checked["cells"] += check.cells
            checked["correct"] += check.correct
            checked["games_checked"] += 1
            checked["wrong_reads"] += len(check.wrong)
            if failures is not None:
                truth = truths(log, layout)
                bad = [
                    (clicks, picture, problem, f"refused{k}")
                    for k, (clicks, picture, problem) in enumerate(log.failed)
                ]
                for wrong in check.wrong:
                    clicks, picture, _ = log.frames[wrong["frame"]]
                    bad.append((clicks, picture, "read wrongly", f"wrong{wrong['frame']}"))
                for clicks, picture, problem, what in bad:
                    save_failure(failures, f"{name}-{what}", picture, truth[clicks], program.name, problem)
        elif failures is not None:  # no truth: the pictures refused alone, for the reader's authors
            for k, (_, picture, problem) in enumerate(log.failed):
                save_failure(failures, f"{name}-refused{k}-no-truth", picture, None, program.name, problem)
        proven = " LOST ON A PROVEN-SAFE CELL" if log.lost_on_proven_safe else ""
        print(
            f"game {index + 1}: {log.outcome}{proven}, {len(log.turns)} clicks, "
            f"{len(log.misreads)} misreads, {len(log.unreadable)} unreadable",
            file=sys.stderr,
        )
        log.frames.clear()  # the pictures are not kept past the check
        log.failed.clear()
    return logs, checked


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--program", required=True, help="tatham, xdemineur, gnome or kmines")
    parser.add_argument("--size", default="beginner", help="a preset or WxHxM (default: beginner)")
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--tile", type=int, help="the cell size in px, where the program takes one")
    parser.add_argument("--seconds", type=float, default=2.0, help="best's budget for one decision")
    parser.add_argument("--display", help="an X display to use instead of a fresh Xvfb")
    parser.add_argument(
        "--known",
        action="store_true",
        help="Tatham's Mines: each game on a guess-free layout demine draws (the truth known from the start)",
    )
    parser.add_argument("--seed", default="1", help="with --known: the layouts' seed")
    parser.add_argument("--failures", help="write refused or wrong pictures with their truth here")
    parser.add_argument("--json", help="write the summary here as JSON")
    ns = parser.parse_args()
    # SIGTERM ends the run as Ctrl-C does: the program and the Xvfb it started are ended too
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    t0 = time.time()
    if ns.display:
        logs, checked = play(ns.display, ns)
    else:
        with xvfb() as display:
            logs, checked = play(display, ns)
    result = summary(logs, find_program(ns.program))
    result.update(checked)
    result.update(
        size=ns.size,
        known_layouts=ns.known,
        tile=ns.tile,
        seconds=round(time.time() - t0, 1),
        load=os.getloadavg()[0],
        date=time.strftime("%Y-%m-%d"),
    )
    text = json.dumps(result, indent=1)
    if ns.json:
        Path(ns.json).write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ScreenError as e:  # a program missing or not set up, a window gone: said, no traceback
        sys.exit(f"screen_play.py: {e}")
