"""The truth of every picture of a game played through a window, from the game's end.

At the end the program shows where the mines were (a win: every cell still hidden; a loss, in
most programs: every mine), or the layout is known beforehand (a Tatham game id made from a
layout). The clicks are replayed on demine's :class:`~demine.engine.game.Game` with that layout,
from the board the program showed first (xdemineur opens one itself), which gives what the
board showed before each click: each read is checked against it, cell by cell.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from demine.engine.game import Game
from demine.engine.position import COVERED, Position
from demine.screen.live import GameLog


def truths(log: GameLog, layout: list[int] | None = None) -> list[Position]:
    """What the board showed before each click and after the last: ``len(log.turns) + 1``
    positions (flags left out: the play loop never flags). ``layout`` defaults to the one the
    game's end showed; :class:`ValueError` when there is none."""
    mines = layout if layout is not None else log.layout
    if mines is None or log.first is None:
        raise ValueError("the game's end did not show the layout, and none was given")
    if not log.replayable:
        raise ValueError("the board's size was misread before a click: its clicks cannot be replayed")
    game = Game.from_layout(log.width, log.height, mines)
    for c, s in enumerate(log.first.states):  # the program's own opening, if it made one
        if s == 0 and game.visible[c] == COVERED:
            game.reveal(c)
    out = [game.position()]
    for turn in log.turns:
        if game.outcome == "playing":
            game.reveal(turn.cell)
        out.append(game.position())
    return [Position(p.width, p.height, p.states, len(mines)) for p in out]


@dataclass
class FrameCheck:
    """Reads checked against the truth."""

    cells: int = 0
    """Cells read (each read's every cell)."""
    correct: int = 0
    """Cells read as the truth shows them (hidden for hidden, the number for a number)."""
    wrong: list[dict[str, Any]] = field(default_factory=list)
    """Each read with a wrong cell: the frame's number, the cells, what was read, the truth."""


def check_frames(log: GameLog, layout: list[int] | None = None) -> FrameCheck:
    """Check every kept frame's read (``keep_frames``) against :func:`truths`. A frame is matched
    to the truth of the clicks made before it was read; a finished game's last read to the end.
    Flags read are taken as hidden (the truth never has flags)."""
    truth = truths(log, layout)
    check = FrameCheck()
    for index, (clicks, _picture, read) in enumerate(log.frames):
        want = truth[min(clicks, len(truth) - 1)].states
        got = read.position.states
        if len(got) != len(want):
            check.cells += len(want)
            check.wrong.append({"frame": index, "problem": "another board size"})
            continue
        pairs = enumerate(zip(got, want, strict=True))
        bad = [c for c, (g, w) in pairs if min(g, COVERED) != min(w, COVERED)]
        check.cells += len(want)
        check.correct += len(want) - len(bad)
        if bad:
            width = read.position.width
            cells = [list(divmod(c, width)) for c in bad]
            check.wrong.append({"frame": index, "cells": cells, "read": read.position.to_text()})
    return check


def save_failure(
    folder: Path,
    name: str,
    picture: Any,
    truth: Position | None,
    program: str,
    problem: str,
) -> Path:
    """Write a picture the reader failed on as ``NAME.png`` with its truth beside it
    (``NAME.json`` in :mod:`demine.screen.truth`'s form; ``truth`` null when the game's end did
    not show it), for the reader's authors."""
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    png = folder / f"{name}.png"
    Image.fromarray(picture).save(png)
    meta: dict[str, Any] = {
        "truth": None if truth is None else truth.to_text(),
        "mines": None if truth is None else truth.mines,
        "exploded": None,
        "mines_shown": [],
        "wrong_flags": [],
        "program": program,
        "source": "demine screen play (slive), a live window under Xvfb",
        "problem": problem,
    }
    png.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")
    return png
