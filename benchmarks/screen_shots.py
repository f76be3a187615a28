"""Screenshots of real Minesweeper programs, with the truth beside each: the test data of
demine.screen's reader (tests/data/screen/) and the benchmark's boards.

    python benchmarks/screen_shots.py OUT_DIR [--only tatham,xdemineur]

Runs each program under its own Xvfb (no window manager; the display number from
``Xvfb -displayfd``), plays a few moves with xdotool, grabs the program's window and writes
``NAME.png`` with ``NAME.json``: the program, the size of its cells, and the truth (the position
in demine's text format, the finished game's mines, wrong flags and exploded mine).

Where the truth comes from:
- Tatham's Mines takes its layout on the command line (a game id ``WxHnM:X,Y,u<hex>`` opens at
  (X, Y) on the mines given), so the truth is that layout played with the same moves in
  demine's engine.
- xdemineur, GNOME Mines and KMines draw their own layouts: each game is played until it is
  lost, where the program shows every mine; that layout (read from the last screenshot, and
  checked: every number shown on every screenshot of the game must be its count, and the cells
  open must be those the moves open on it) is played with the same moves in demine's engine.

Needs Xvfb, xdotool, ImageMagick's ``import`` and the programs (Debian: xvfb xdotool imagemagick
sgt-puzzles xdemineur gnome-mines kmines dbus-x11).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import numpy as np
from PIL import Image

from demine.analysis import analyze
from demine.engine.game import Game
from demine.engine.position import COVERED
from demine.screen.grid import find_grid


@contextmanager
def xvfb() -> Iterator[str]:
    """A fresh Xvfb display (1920x1080x24), its name; stopped after."""
    r, w = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(w), "-screen", "0", "1920x1080x24", "-nolisten", "tcp"],
        pass_fds=(w,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(w)
    with os.fdopen(r) as f:
        display = ":" + f.readline().strip()
    try:
        yield display
    finally:
        proc.terminate()
        proc.wait(5)


class Program:
    """A program's process on a display, its window, grabs and clicks."""

    def __init__(self, display: str, argv: list[str], env: dict[str, str], find: list[str]) -> None:
        self.display = display
        self.env = {**os.environ, "DISPLAY": display, "NO_AT_BRIDGE": "1", **env}
        self.proc = subprocess.Popen(
            argv, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        self.window = ""
        for _ in range(100):
            time.sleep(0.2)
            out = subprocess.run(
                ["xdotool", "search", "--onlyvisible", *find], env=self.env, capture_output=True, text=True
            ).stdout.split()
            if out:
                self.window = out[-1]
                break
        if not self.window:
            self.stop()
            raise RuntimeError(f"no window for {argv[0]}")
        time.sleep(1.0)

    def grab(self) -> np.ndarray:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "w.png"
            subprocess.run(["import", "-window", self.window, str(path)], env=self.env, check=True)
            return np.asarray(Image.open(path).convert("RGB"))

    def click(self, x: float, y: float, button: int = 1) -> None:
        subprocess.run(
            [
                "xdotool",
                "mousemove",
                "--window",
                self.window,
                str(round(x)),
                str(round(y)),
                "click",
                str(button),
            ],
            env=self.env,
            check=True,
        )
        time.sleep(0.35)

    def move_away(self) -> None:
        subprocess.run(["xdotool", "mousemove", "1900", "1070"], env=self.env, check=True)
        time.sleep(0.2)

    def stop(self) -> None:
        with suppress(ProcessLookupError):
            os.killpg(self.proc.pid, 15)
        self.proc.wait(5)


def tatham_id(
    width: int, height: int, mines: int, start: tuple[int, int], seed: int
) -> tuple[str, list[int]]:
    """A Tatham's Mines game id that opens at ``start`` (row, col) on a random layout with no
    mine around it, and the layout."""
    r0, c0 = start
    rng = random.Random(seed)
    allowed = [
        r * width + c
        for r in range(height)
        for c in range(width)
        if not (abs(r - r0) <= 1 and abs(c - c0) <= 1)
    ]
    cells = sorted(rng.sample(allowed, mines))
    bits = [0] * (width * height + 3)
    for c in cells:
        bits[c] = 1
    hexes = "".join(f"{int(''.join(map(str, bits[i : i + 4])), 2):x}" for i in range(0, width * height, 4))
    return f"{width}x{height}n{mines}:{c0},{r0},u{hexes}", cells


def centre(grid, cell: int, width: int) -> tuple[float, float]:
    r, c = divmod(cell, width)
    return grid.x.start + (c + 0.5) * grid.x.period, grid.y.start + (r + 0.5) * grid.y.period


def save(out: Path, name: str, image: np.ndarray, meta: dict) -> None:
    Image.fromarray(image).save(out / f"{name}.png", optimize=True)
    (out / f"{name}.json").write_text(json.dumps(meta) + "\n")
    print(name, meta["truth"].splitlines()[0], file=sys.stderr)


def truth_of(game: Game, shows_mines: bool = True) -> dict:
    """The truth of a screenshot of ``game``: its position (a mine shown, the exploded one too,
    is a covered cell there), and when lost, the exploded mine and what the program shows of
    the rest (``shows_mines``: every mine not flagged, and the wrong flags marked; Tatham's
    shows only the exploded mine)."""
    p = game.position()
    w = game.width
    meta: dict = {
        "truth": p.to_text(),
        "state": game.outcome,
        "exploded": None,
        "mines_shown": [],
        "wrong_flags": [],
    }
    if game.outcome == "lost":
        mines = set(game.mine_cells())
        flags = set(p.flagged_cells())
        meta["exploded"] = list(divmod(game.exploded, w)) if game.exploded is not None else None
        if shows_mines:
            meta["mines_shown"] = [list(divmod(c, w)) for c in sorted(mines - flags - {game.exploded})]
            meta["wrong_flags"] = [list(divmod(c, w)) for c in sorted(flags - mines)]
    return meta


def play_some(game: Game, prog: Program, grid, steps: int, flags: int, rng: random.Random) -> None:
    """A few moves of logic on ``game`` mirrored in the program: flags on proven mines, then
    reveals of proven safe cells (else a random covered cell)."""
    w = game.width
    for _ in range(flags):
        a = analyze(game.position())
        pick = sorted(c for c in a.mines if game.position().state(c) == COVERED)
        if not pick:
            break
        c = rng.choice(pick)
        game.flag(c)
        prog.click(*centre(grid, c, w), button=3)
    for _ in range(steps):
        if game.outcome != "playing":
            break
        a = analyze(game.position())
        safe = sorted(c for c in a.safe if game.position().state(c) == COVERED)
        if not safe:
            break
        c = rng.choice(safe)
        game.reveal(c)
        prog.click(*centre(grid, c, w))


def tatham(
    display: str, out: Path, name: str, size: tuple[int, int, int], tile: int, seed: int, end: str
) -> None:
    width, height, mines = size
    start = (height // 2, width // 2)
    gid, layout = tatham_id(width, height, mines, start, seed)
    prog = Program(
        display,
        ["/usr/games/sgt-mines", gid],
        {"MINES_TILESIZE": str(tile)},
        ["--name", "^Mines$"],
    )
    try:
        game = Game.from_layout(width, height, layout)
        game.reveal(start[0] * width + start[1])
        img = prog.grab()
        grid = find_grid(img)
        assert grid is not None and (grid.x.count, grid.y.count) == (width, height), grid
        rng = random.Random(seed)
        play_some(game, prog, grid, steps=6, flags=3, rng=rng)
        if end == "lost":
            # a wrong flag, then a mine
            cover = [c for c in game.position().covered_cells() if not game.is_mine(c)]
            c = rng.choice(cover)
            game.flag(c)
            prog.click(*centre(grid, c, width), button=3)
            c = rng.choice([c for c in game.position().covered_cells() if game.is_mine(c)])
            game.reveal(c)
            prog.click(*centre(grid, c, width))
        prog.move_away()
        img = prog.grab()
        meta = {
            "program": "tatham",
            "source": f"sgt-puzzles 20230122 /usr/games/sgt-mines '{gid}', MINES_TILESIZE={tile}, Xvfb",
            "tile": tile,
            "mines": mines,
            **truth_of(game, shows_mines=False),
        }
        save(out, name, img, meta)
    finally:
        prog.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--only", default="tatham")
    ap.add_argument("--train", action="store_true", help="other seeds and sizes: the templates' boards")
    ns = ap.parse_args()
    out = Path(ns.out)
    out.mkdir(parents=True, exist_ok=True)
    only = set(ns.only.split(","))
    with xvfb() as display:
        if "tatham" in only and ns.train:
            for i, (size, tile) in enumerate(
                [
                    ((9, 9, 10), 10),
                    ((16, 16, 40), 20),
                    ((30, 16, 99), 28),
                    ((9, 9, 10), 40),
                    ((16, 16, 40), 48),
                    ((9, 9, 10), 80),
                ]
            ):
                for end in ("playing", "lost"):
                    tatham(
                        display,
                        out,
                        f"train-tatham-{i}-{end}",
                        size,
                        tile,
                        100 + 2 * i + (end == "lost"),
                        end,
                    )
        elif "tatham" in only:
            tatham(display, out, "tatham-9x9-t24", (9, 9, 10), 24, 1, "playing")
            tatham(display, out, "tatham-16x16-t16-lost", (16, 16, 40), 16, 2, "lost")
            tatham(display, out, "tatham-30x16-t12", (30, 16, 99), 12, 3, "playing")
            tatham(display, out, "tatham-9x9-t48-lost", (9, 9, 10), 48, 4, "lost")
            tatham(display, out, "tatham-30x16-t32", (30, 16, 99), 32, 5, "playing")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
