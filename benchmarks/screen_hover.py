"""Screenshots of GNOME Mines with the pointer over a cell (it lightens the cell under the
pointer), with the truth beside each: for the reader's templates and its tests.

    python benchmarks/screen_hover.py OUT_DIR [--games 2] [--seed hover] [--per-game 12]

Each game runs GNOME Mines (16x16, 40 mines) under its own Xvfb, started by
:func:`demine.screen.programs.launch`. A few moves are played through its window (the first
click in the middle, then cells ``best`` proves safe, and a proven mine flagged). Then, for a
sample of cells of every kind on the board (covered, flagged, numbers, open 0s), the pointer is
moved over the cell and the window grabbed, then moved off the board and grabbed again (the
board's pixels compared: the clock beside it changes every second).

The truth of a hovered picture is the read of the window with the pointer off the board, taken
just before, and kept only where the two pictures differ inside the hovered cell alone (the
hover changed that cell and nothing else) and the picture with the pointer off again is the same
as the one before. The read with the pointer off is the reader's own, checked against games
played to their end in ``tests/screen/`` (GNOME's screenshots read right at every scale): these
pictures test that the pointer over a cell changes no read, and teach the templates what a
lightened cell looks like. Each is ``gnome-hover-GAME-K.png`` with its ``.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

from demine import analyze
from demine.engine.position import COVERED, FLAG
from demine.errors import DemineError
from demine.screen.programs import find_program, launch
from demine.screen.read import BoardRead, read_board
from demine.screen.x11 import Connection, connect, xvfb

#: Seconds GNOME Mines takes to redraw after the pointer moves or a click.
SETTLE = 0.4


def _grab(conn: Connection, window: int) -> np.ndarray:
    return np.asarray(conn.grab(conn.box(window)))


def _off_board(conn: Connection, window: int, read: BoardRead) -> None:
    """The pointer to the window's top left corner, off the board."""
    left, top, _, _ = conn.box(window)
    conn.move(window, left + 3, top + read.box[1] // 2)
    time.sleep(SETTLE)


def _at(conn: Connection, window: int, read: BoardRead, cell: int) -> tuple[int, int]:
    left, top, _, _ = conn.box(window)
    x, y = read.centre(cell)
    return left + x, top + y


def _play_some(conn: Connection, window: int, moves: int) -> BoardRead:
    """The first click in the middle, then up to ``moves`` cells proven safe opened and one proven
    mine flagged; the read after them, the pointer off the board."""
    read = read_board(_grab(conn, window), skin="gnome", text=False)
    conn.click(window, *_at(conn, window, read, (read.height // 2) * read.width + read.width // 2))
    time.sleep(SETTLE)
    _off_board(conn, window, read)
    flagged = False
    for _ in range(moves):
        read = read_board(_grab(conn, window), skin="gnome", text=False, hint_box=read.box)
        a = analyze(read.position.with_mines(40).without_flags())
        if not flagged and a.mines:
            conn.click(window, *_at(conn, window, read, min(a.mines)), button="right")
            flagged = True
        elif a.safe:
            conn.click(window, *_at(conn, window, read, min(a.safe)))
        else:
            break
        time.sleep(SETTLE)
        _off_board(conn, window, read)
    return read_board(_grab(conn, window), skin="gnome", text=False, hint_box=read.box)


def _sample(read: BoardRead, per_game: int, rng: random.Random) -> list[int]:
    """Cells to hover: of every kind the board shows, about as many of each."""
    kinds: dict[str, list[int]] = {}
    for c, v in enumerate(read.position.states):
        kind = "covered" if v == COVERED else "flag" if v == FLAG else "zero" if v == 0 else "number"
        kinds.setdefault(kind, []).append(c)
    out: list[int] = []
    while len(out) < per_game and any(kinds.values()):
        for cells in kinds.values():
            if cells and len(out) < per_game:
                out.append(cells.pop(rng.randrange(len(cells))))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--seed", default="hover")
    ap.add_argument("--per-game", type=int, default=12)
    ap.add_argument("--moves", type=int, default=6, help="cells proven safe opened before the hovering")
    ns = ap.parse_args()
    from PIL import Image

    ns.out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(ns.seed)
    program = find_program("gnome")
    kept = refused = unchanged = 0
    for game in range(ns.games):
        with xvfb() as display, launch(program, display, 16, 16, 40) as launched, connect(display) as conn:
            window = launched.window.id
            time.sleep(1.0)
            try:
                before = _play_some(conn, window, ns.moves)
            except DemineError as e:
                print(f"game {game}: {e}", file=sys.stderr)
                continue
            _off_board(conn, window, before)
            off = _grab(conn, window)
            for k, cell in enumerate(_sample(before, ns.per_game, rng)):
                conn.move(window, *_at(conn, window, before, cell))
                time.sleep(SETTLE)
                hovered = _grab(conn, window)
                _off_board(conn, window, before)
                again = _grab(conn, window)
                # on the board (GNOME's clock beside it changes every second)
                bl, bt, br, bb = before.box
                changed = np.argwhere((hovered[bt:bb, bl:br] != off[bt:bb, bl:br]).any(axis=2)) + np.array(
                    [bt, bl]
                )
                same_again = np.array_equal(again[bt:bb, bl:br], off[bt:bb, bl:br])
                x0, y0, x1, y1 = before.cell_box(cell)
                inside = (
                    len(changed) > 0
                    and changed[:, 1].min() >= x0 - 2
                    and changed[:, 1].max() < x1 + 2
                    and changed[:, 0].min() >= y0 - 2
                    and changed[:, 0].max() < y1 + 2
                )
                if len(changed) == 0 and same_again:
                    unchanged += 1  # (GNOME lightens covered cells only)
                    continue
                if not inside or not same_again:
                    refused += 1
                    print(
                        f"game {game} cell {divmod(cell, 16)}: the picture changed elsewhere", file=sys.stderr
                    )
                    continue
                name = f"gnome-hover-{game}-{k}"
                Image.fromarray(hovered).save(ns.out / f"{name}.png")
                meta = {
                    "program": "gnome",
                    "source": (
                        f"dbus-run-session /usr/games/gnome-mines --medium under Xvfb "
                        f"(benchmarks/screen_hover.py, seed {ns.seed!r}, game {game}), the pointer "
                        f"over row {cell // 16} col {cell % 16}; truth: the read with the pointer "
                        "off the board, the pictures differing inside that cell alone"
                    ),
                    "mines": 40,
                    "truth": before.position.with_mines(40).to_text(),
                    "state": "playing",
                    "exploded": None,
                    "mines_shown": [],
                    "wrong_flags": [],
                    "hovered": [cell // 16, cell % 16],
                    "grid": [before.box[0], before.cell_w, before.box[1], before.cell_h],
                }
                (ns.out / f"{name}.json").write_text(json.dumps(meta) + "\n")
                kept += 1
    print(
        f"{kept} pictures kept, {unchanged} cells the pointer did not change, {refused} refused, in {ns.out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
