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
import re
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
def xvfb(numbers: tuple[int, ...] = (92, 93, 94)) -> Iterator[str]:
    """A fresh Xvfb display (1920x1080x24) on the first free number of ``numbers`` (a range of
    its own, so no other program's clicks land on it), its name; stopped after."""
    for n in numbers:
        if Path(f"/tmp/.X{n}-lock").exists():
            continue
        proc = subprocess.Popen(
            ["Xvfb", f":{n}", "-screen", "0", "1920x1080x24", "-nolisten", "tcp", "-noreset"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(100):
            time.sleep(0.1)
            if Path(f"/tmp/.X11-unix/X{n}").exists() or proc.poll() is not None:
                break
        if proc.poll() is not None:
            continue
        try:
            yield f":{n}"
        finally:
            proc.terminate()
            proc.wait(5)
        return
    raise RuntimeError(f"no free display among {numbers}")


class Program:
    """A program's process on a display, its window, grabs and clicks."""

    def __init__(self, display: str, argv: list[str], env: dict[str, str], find: list[str]) -> None:
        self.display = display
        self.env = {**os.environ, "DISPLAY": display, "NO_AT_BRIDGE": "1", **env}
        self.proc = subprocess.Popen(
            argv, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        self.window = ""
        for _ in range(300):  # a loaded machine may take a minute
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
        """The pointer off the board but on the window (a window without the pointer may lose
        its focus, and GNOME Mines pauses then)."""
        subprocess.run(["xdotool", "mousemove", "--window", self.window, "4", "4"], env=self.env, check=True)
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
    return tatham_layout_id(width, height, sorted(rng.sample(allowed, mines)), start)


def eights_layout(width: int, height: int, start: tuple[int, int]) -> list[int]:
    """A layout whose safe cells are the 3x3 around ``start`` and, on every third row and
    column, cells whose eight neighbours are all mines: opened, each shows an 8."""
    r0, c0 = start
    safe = {
        r * width + c
        for r in range(1, height - 1, 3)
        for c in range(1, width - 1, 3)
        if max(abs(r - r0), abs(c - c0)) >= 3
    }
    safe |= {(r0 + dr) * width + c0 + dc for dr in (-1, 0, 1) for dc in (-1, 0, 1)}
    return [c for c in range(width * height) if c not in safe]


def tatham_layout_id(
    width: int, height: int, cells: list[int], start: tuple[int, int]
) -> tuple[str, list[int]]:
    """The game id of Tatham's Mines that plays ``cells`` (the mines) opened at ``start``."""
    r0, c0 = start
    mines = len(cells)
    bits = [0] * (width * height + 3)
    for c in cells:
        bits[c] = 1
    hexes = "".join(f"{int(''.join(map(str, bits[i : i + 4])), 2):x}" for i in range(0, width * height, 4))
    return f"{width}x{height}n{mines}:{c0},{r0},u{hexes}", cells


#: The boards and cell sizes of ``--eights`` (the mine count is the layout's).
EIGHTS = [
    ((9, 9, 0), 10),
    ((16, 16, 0), 16),
    ((16, 16, 0), 24),
    ((9, 9, 0), 32),
    ((9, 9, 0), 48),
    ((9, 9, 0), 80),
]

#: ``--eights`` without ``--train``: the test data's cell sizes (none of the templates').
EIGHTS_TEST = [((30, 16, 0), 12), ((9, 9, 0), 20), ((16, 16, 0), 40)]


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
    display: str,
    out: Path,
    name: str,
    size: tuple[int, int, int],
    tile: int,
    seed: int,
    end: str,
    opened: float = 0.0,
    eights: bool = False,
) -> None:
    """A game of Tatham's Mines on a layout drawn from ``seed`` (or with ``eights`` the layout of
    :func:`eights_layout`), ``opened`` of its safe cells opened at random (else a few moves of
    logic), ended as ``end`` asks: ``NAME.png`` with its truth."""
    width, height, mines = size
    start = (height // 2, width // 2)
    if eights:
        gid, layout = tatham_layout_id(width, height, eights_layout(width, height, start), start)
        mines = len(layout)
    else:
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
        if opened:
            # the templates' boards: safe cells opened at random, so every number shows up
            safe = [c for c in range(width * height) if not game.is_mine(c)]
            if eights:  # one 8 left covered: the game goes on
                safe.remove(rng.choice([c for c in safe if game.position().state(c) == COVERED]))
            for c in rng.sample(safe, round(opened * len(safe))):
                if game.position().state(c) == COVERED:
                    game.reveal(c)
                    prog.click(*centre(grid, c, width))
            for c in rng.sample(game.mine_cells(), 3):
                game.flag(c)
                prog.click(*centre(grid, c, width), button=3)
        else:
            play_some(game, prog, grid, steps=6, flags=3, rng=rng)
        if end == "lost":
            # wrong flags (beside numbers, where Tatham's marks the numbers with too many flags
            # around them), then a mine
            p = game.position()
            geo = p.geometry
            cover = [c for c in p.covered_cells() if not game.is_mine(c)]
            beside = [c for c in cover if any(p.is_revealed(n) for n in geo.neighbours(c))]
            for c in rng.sample(beside or cover, min(3 if opened else 1, len(beside or cover))):
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


#: The games played of each program (its extra arguments).
GAMES: dict[str, list[list[str]]] = {
    "xdemineur": [[], ["-m", "60"], [], ["-m", "130"], []],
    "gnome": [["--small"], ["--medium"], ["--small"], ["--medium"]],
    # KMines: the board (WxHxM) and the cells' size (its settings file and window, not arguments)
    "kmines": [
        ["9x9x10", "30"],
        ["16x16x40", "24"],
        ["30x16x99", "20"],
        ["30x16x99", "36"],
        ["16x16x40", "44"],
        ["30x16x99", "28"],
    ],
}
#: How each program with a layout of its own is started: argv, environment, how its window is
#: found, and its board size when it is given at the start.
PROGRAMS = {
    "xdemineur": (["/usr/games/xdemineur"], {}, ["--classname", "xdemineur"]),
    "gnome": (
        ["dbus-run-session", "/usr/games/gnome-mines"],
        {"GSETTINGS_BACKEND": "memory"},
        ["--class", "gnome-mines"],
    ),
    "kmines": (["dbus-run-session", "/usr/games/kmines"], {}, ["--class", "kmines"]),
}


def gnome_custom_keyfile(cols: int, rows: int, mines: int, tile: int) -> str:
    """GNOME Mines' settings (GLib's keyfile backend) for a custom board of that size: its
    window sized for cells of about ``tile`` px, question marks on (its default)."""
    return (
        "[org/gnome/Mines]\n"
        f"window-width={cols * tile + 220}\nwindow-height={rows * tile + 80}\n"
        f"mode=3\nxsize={cols}\nysize={rows}\nnmines={mines}\n"
        "use-animations=false\nuse-question-marks=true\n"
    )


def gnome_start_custom(prog: Program) -> None:
    """Past GNOME Mines' first screen (four buttons, two by two: the custom board is the lower
    right) and its custom board's form (its Play Game button, blue, under three fields filled
    from the settings): the board is shown, all covered."""
    img = prog.grab()
    h, w = img.shape[:2]
    prog.click(0.72 * w, 0.72 * h)
    time.sleep(0.8)
    img = prog.grab().astype(np.int16)
    blue = (img[..., 2] > 200) & (img[..., 0] < 90) & (img[..., 1] > 90) & (img[..., 1] < 160)
    ys, xs = np.nonzero(blue)
    if len(xs) < 50:
        raise RuntimeError("GNOME Mines: no Play Game button on its custom board's form")
    prog.click(float(np.median(xs)), float(np.median(ys)))
    time.sleep(0.8)


def tile_of(img: np.ndarray, grid, cell: int, width: int) -> np.ndarray:
    """The cell's tile (16x16, softened), as the reader cuts it."""
    from demine.screen.tiles import _soft, cut_tiles

    r, c = divmod(cell, width)
    return _soft(cut_tiles(Image.fromarray(img), grid)[r : r + 1, c])[0]


def tiles_of(img: np.ndarray, grid) -> np.ndarray:
    """Every cell's tile (cells, 16, 16, 3), softened, row-major."""
    from demine.screen.tiles import _soft, cut_tiles

    t = cut_tiles(Image.fromarray(img), grid)
    return _soft(t.reshape(-1, *t.shape[2:]))


def _trim_to_covered(img: np.ndarray, grid, covered: np.ndarray, near: float = 12):
    """The grid less outer rows and columns with no cell like ``covered`` (within ``near``, an
    RMS distance: a start's board is all covered, so a column found beside it is something
    else)."""
    from demine.screen.grid import Grid, Lattice

    width, height = grid.x.count, grid.y.count
    like = (np.sqrt(((tiles_of(img, grid) - covered) ** 2).mean(axis=(1, 2, 3))) < near).reshape(
        height, width
    )
    r0, r1, c0, c1 = 0, height, 0, width
    while not like[r0, c0:c1].any():
        r0 += 1
    while not like[r1 - 1, c0:c1].any():
        r1 -= 1
    while not like[r0:r1, c0].any():
        c0 += 1
    while not like[r0:r1, c1 - 1].any():
        c1 -= 1
    x, y = grid.x, grid.y
    new = Grid(
        Lattice(x.start + c0 * x.period, x.period, c1 - c0, x.score),
        Lattice(y.start + r0 * y.period, y.period, r1 - r0, y.score),
    )
    return new, c1 - c0, r1 - r0


def _reader_grid(img: np.ndarray, program: str, grid):
    """The grid as demine's reader finds it where it reads the program's start (it also looks
    past the lattice's edges for lines that read as board: a GNOME board of 31 px cells was
    found a line short by the lattice alone), else ``grid``; with its width and height."""
    from demine.screen.grid import Grid, Lattice
    from demine.screen.read import UnreadableScreen, read_board
    from demine.screen.tiles import skins

    if program in {s.name for s in skins()}:
        try:
            read = read_board(img, skin=program, text=False)
        except UnreadableScreen:
            read = None
        if read is not None:
            left, top, right, bottom = read.box
            grid = Grid(
                Lattice(left, (right - left) / read.width, read.width, grid.x.score),
                Lattice(top, (bottom - top) / read.height, read.height, grid.y.score),
            )
    return grid, grid.x.count, grid.y.count


def _kmines_exploded(img: np.ndarray, grid) -> bool:
    """Whether KMines shows its exploded mine (an orange cell) on the board."""
    x0, y0 = int(grid.x.start), int(grid.y.start)
    x1, y1 = (
        int(grid.x.start + grid.x.period * grid.x.count),
        int(grid.y.start + grid.y.period * grid.y.count),
    )
    part = img[y0:y1, x0:x1].astype(np.int16)
    orange = (part[..., 0] > 220) & (part[..., 1] > 150) & (part[..., 1] < 215) & (part[..., 2] < 120)
    return int(orange.sum()) > 0.2 * grid.x.period * grid.y.period


def _logic(img: np.ndarray, program: str, width: int, height: int) -> tuple[list[int], list[int]]:
    """The cells demine proves safe and mined on ``img``, read with the program's skin (none
    when it cannot be read: its templates are not made yet, or a cell looks new)."""
    from demine.screen.read import UnreadableScreen, read_board
    from demine.screen.tiles import skins

    if program not in {s.name for s in skins()}:
        return [], []
    try:
        read = read_board(img, skin=program)
    except UnreadableScreen:
        return [], []
    if (read.width, read.height) != (width, height):
        return [], []
    try:
        a = analyze(read.position.without_flags())
    except Exception:
        return [], []
    return sorted(a.safe), sorted(a.mines)


def random_game(
    display: str,
    out: Path,
    name: str,
    program: str,
    extra: list[str],
    seed: int,
    smart: int = 0,
    question: bool = True,
) -> None:
    """A game of ``program`` played until it is lost (a click on a covered cell that changes
    nothing: the board is frozen), a screenshot after every move: ``NAME-NN.png`` and
    ``NAME.game.json`` (the moves, and the screenshots after each). The first ``smart`` reveals
    open cells demine proves safe where the program's skin can be read, the rest are random;
    flags (on proven mines when known) and question marks now and then. The truth comes later,
    from the last screenshot's mines (benchmarks/screen_label.py)."""
    argv, env, find = PROGRAMS[program]
    config = None
    if program == "kmines":  # KMines takes its level from its settings file
        from demine.screen.programs import kmines_config, kmines_window

        board_text = extra[0]
        (cols, rows, count), tile = (int(v) for v in board_text.split("x")), int(extra[1])
        config = tempfile.TemporaryDirectory(prefix="kmines-")
        (Path(config.name) / "kminesrc").write_text(kmines_config(cols, rows, count))
        env = {**env, "XDG_CONFIG_HOME": config.name}
        extra = []
    elif program == "gnome" and extra and "x" in extra[0]:  # a custom board (WxHxM, cell px)
        board_text = extra[0]
        (cols, rows, count), tile = (int(v) for v in board_text.split("x")), int(extra[1])
        config = tempfile.TemporaryDirectory(prefix="gnome-")
        keyfile = Path(config.name) / "glib-2.0" / "settings" / "keyfile"
        keyfile.parent.mkdir(parents=True)
        keyfile.write_text(gnome_custom_keyfile(cols, rows, count, tile))
        env = {**env, "GSETTINGS_BACKEND": "keyfile", "XDG_CONFIG_HOME": config.name}
        extra = []
    prog = Program(display, [*argv, *extra], env, find)
    if config is not None and program == "kmines":
        w, h = kmines_window(cols, rows, tile)
        subprocess.run(["xdotool", "windowsize", prog.window, str(w), str(h)], env=prog.env, check=True)
        time.sleep(1.0)
    elif config is not None:
        gnome_start_custom(prog)
    try:
        prog.move_away()
        img = prog.grab()
        grid = find_grid(img)
        assert grid is not None, f"{program}: no grid"
        width, height = grid.x.count, grid.y.count
        covered = np.median(tiles_of(img, grid), axis=0)
        # KMines' last row and column hold its dark frame where other cells hold a light gap
        near = 20 if program == "kmines" else 12
        grid, width, height = _trim_to_covered(img, grid, covered, near)
        grid, width, height = _reader_grid(img, program, grid)

        def board(img: np.ndarray) -> np.ndarray:
            return tiles_of(img, grid)

        def is_covered(tiles: np.ndarray) -> np.ndarray:
            return np.sqrt(((tiles - covered) ** 2).mean(axis=(1, 2, 3))) < near

        rng = random.Random(seed)
        moves: list[list] = []
        shots = [f"{name}-00.png"]
        Image.fromarray(img).save(out / shots[0], optimize=True)
        first = (height // 2) * width + width // 2
        flags: list[int] = []
        frozen = 0
        now = board(img)
        questions: list[int] = []
        for step in range(1, 200):
            cover = [
                c for c in np.flatnonzero(is_covered(now)).tolist() if c not in flags and c not in questions
            ]
            if not cover:
                break
            safe, mines = _logic(img, program, width, height)
            safe = [c for c in safe if c in cover]
            mines = [c for c in mines if c in cover]
            if step == 1 and first in cover:
                kind, c = "reveal", first
            elif len(flags) < 6 and rng.random() < 0.1:
                kind, c = "flag", rng.choice(mines or cover)
            elif len(questions) < 2 and question and rng.random() < 0.05:
                kind, c = "question", rng.choice(cover)
            elif safe and len(moves) < smart:
                kind, c = "reveal", rng.choice(safe)
            else:
                kind, c = "reveal", rng.choice(cover)
            clicks = 2 if kind == "question" else 1
            for _ in range(clicks):
                prog.click(*centre(grid, c, width), button=1 if kind == "reveal" else 3)
            prog.move_away()
            new = prog.grab()
            lost = program == "kmines" and _kmines_exploded(new, grid)
            if lost:
                # KMines shows "You have lost." over the board for about 5 s (longer on a busy
                # machine), fading out: the picture once it stops changing
                time.sleep(4)
                new = prog.grab()
                for _ in range(20):
                    time.sleep(1)
                    again = prog.grab()
                    if np.array_equal(again, new):
                        break
                    new = again
            new_board = board(new)
            changed = float(np.abs(new_board - now).max()) > 40
            if not changed:  # a lost game's board takes no more moves
                frozen += 1
                if frozen >= 3:
                    break
                continue
            if kind == "flag":
                flags.append(c)
            elif kind == "question":
                questions.append(c)
            frozen = 0
            img, now = new, new_board
            moves.append([kind, *divmod(c, width)])
            shot = f"{name}-{len(moves):02d}.png"
            Image.fromarray(img).save(out / shot, optimize=True)
            shots.append(shot)
            if lost:
                break
        record = {
            "program": program,
            "argv": [*argv, *extra] if config is None else [*argv, f"board {board_text}", f"{tile} px cells"],
            "width": width,
            "height": height,
            "moves": moves,
            "shots": shots,
            "grid": [grid.x.start, grid.x.period, grid.y.start, grid.y.period],
        }
        (out / f"{name}.game.json").write_text(json.dumps(record) + "\n")
        print(name, f"{width}x{height}", len(moves), "moves", file=sys.stderr)
    finally:
        prog.stop()
        if config is not None:
            config.cleanup()


def _listed(pattern: str, what: str):
    """An argparse type: the text as given where it matches ``pattern`` whole, else an error
    that says what was wanted."""

    def check(text: str) -> str:
        if re.fullmatch(pattern, text) is None:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
        return text

    return check


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--only", default="tatham")
    ap.add_argument("--train", action="store_true", help="other seeds and sizes: the templates' boards")
    ap.add_argument("--smart", type=int, default=0, help="reveals of proven safe cells before random ones")
    ap.add_argument("--seed", type=int, default=10, help="the random games' first seed")
    ap.add_argument("--prefix", default="", help="before each random game's name")
    ap.add_argument(
        "--tiles",
        default="24,30,36",
        type=_listed(r"\d+(,\d+)*", "cell sizes in px, comma-separated: 24,30,36"),
        help="GNOME's custom boards: their cell sizes (px), in turn",
    )
    ap.add_argument(
        "--board",
        default="16x16",
        type=_listed(r"\d+x\d+", "a size WxH: 30x16"),
        help="GNOME's custom boards: their size (WxH)",
    )
    ap.add_argument(
        "--eights", action="store_true", help="Tatham's: layouts whose opened cells are 8s (and the start's)"
    )
    ap.add_argument(
        "--mines",
        help="instead of the usual games, one game of each of these mine counts (comma-separated; "
        "xdemineur's -m; KMines' and GNOME Mines' custom 16x16: dense boards show the numbers 5 to 8)",
    )
    ns = ap.parse_args()
    out = Path(ns.out)
    out.mkdir(parents=True, exist_ok=True)
    only = set(ns.only.split(","))
    with xvfb() as display:
        if "tatham" in only and ns.train:
            # dense boards, safe cells opened at random: every number from 1 to 8 shows
            sizes = [
                ((9, 9, 30), 10),
                ((30, 16, 170), 12),
                ((16, 16, 90), 16),
                ((16, 16, 90), 20),
                ((9, 9, 30), 24),
                ((30, 16, 170), 28),
                ((30, 16, 170), 32),
                ((9, 9, 30), 40),
                ((16, 16, 90), 48),
                ((9, 9, 30), 80),
            ]
            for i, (size, tile) in enumerate(sizes):
                for end in ("playing", "lost"):
                    seed = 100 + 2 * i + (end == "lost")
                    tatham(display, out, f"train-tatham-{i}-{end}", size, tile, seed, end, opened=0.6)
        if "tatham" in only and ns.eights:
            # every safe cell opened on layouts made of 8s (with --train the templates' cell sizes)
            for i, (size, tile) in enumerate(EIGHTS if ns.train else EIGHTS_TEST):
                for end in ("playing", "lost"):
                    name = f"{'train-' if ns.train else ''}tatham-eights-{i}-{end}"
                    tatham(
                        display, out, name, size, tile, 300 + 2 * i + (end == "lost"), end, 1.0, eights=True
                    )
        for program in ("xdemineur", "gnome", "kmines"):
            if program in only:
                plays = GAMES[program]
                if ns.mines and program == "kmines":  # a custom board of each count, 16x16 at 30 px
                    plays = [[f"16x16x{m}", "30"] for m in ns.mines.split(",")]
                elif ns.mines and program == "gnome":  # custom --board boards, cells of --tiles px in turn
                    counts, tiles = ns.mines.split(","), ns.tiles.split(",")
                    plays = [[f"{ns.board}x{m}", tiles[k % len(tiles)]] for k, m in enumerate(counts)]
                elif ns.mines:
                    plays = [["-m", m] for m in ns.mines.split(",")]
                for k, extra in enumerate(plays):
                    random_game(
                        display, out, f"{ns.prefix}{program}-{k}", program, extra, ns.seed + k, ns.smart
                    )
        if "tatham" in only and not ns.train and not ns.eights:
            tatham(display, out, "tatham-9x9-t24", (9, 9, 10), 24, 1, "playing")
            tatham(display, out, "tatham-16x16-t16-lost", (16, 16, 40), 16, 2, "lost")
            tatham(display, out, "tatham-30x16-t12", (30, 16, 99), 12, 3, "playing")
            tatham(display, out, "tatham-9x9-t48-lost", (9, 9, 10), 48, 4, "lost")
            tatham(display, out, "tatham-30x16-t32", (30, 16, 99), 32, 5, "playing")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
