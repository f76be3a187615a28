"""Screenshots of two web pages played in Chromium, with the truth beside each: demine's own page
(``demine serve``) and JSMinesweeper's page, for demine.screen's reader (its templates and its
test data, tests/data/screen/).

    python benchmarks/screen_pages.py OUT_DIR [--only demine-web,jsm] [--train] [--seed N]
        [--jsm-page PATH]

Each page runs under its own Xvfb (benchmarks/screen_shots.py's ``xvfb``), in a Chromium app
window started by ``demine.screen.programs.launch`` (the board's size and cell size set through
the page's own controls, its hints off). Games are played by real clicks through the window
(XTest): reveals (cells demine proves safe where there are any, else a random covered cell: a
guess, which in the end loses the game), right-click flags now and then (mostly on proven
mines, some on random cells: a lost game shows those as wrong flags), and neither page has
question marks. The window is grabbed after some of the moves (the pointer moved off the board
first: JSMinesweeper shows a tooltip over the board under the pointer) and at the end:
``NAME.png`` with ``NAME.json``, the truth in the format of tests/data/screen/*.json
(``demine.screen.truth``), taken from the page itself and not from the reader:

- demine's page: every cell's classes in the DOM (``open n3``, ``flag``, ``flag wrong-flag``,
  ``mine-shown``, ``mine-shown exploded``, ``covered``), which its board.js draws from the
  server's view of the game;
- JSMinesweeper's page: its JavaScript board (``board.tiles``: covered, value, flagged, and at a
  loss ``is_bomb`` and ``exploded``), which its main.js draws onto the canvas.

A lost game's truth is checked: every number shown is the count of the mines around it (the
mines shown, the exploded one and the flags that are not wrong). ``grid`` is the board's
lattice from the page's layout (``getBoundingClientRect`` of the cells or the canvas, in the
window's pixels).

``--train`` plays other seeds (and more cell sizes) than the default: the templates' boards
(benchmarks/screen_templates.py), never the test data's.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent))
from demine.analysis import analyze
from demine.engine.position import Position
from demine.screen.pages import CHROMIUM
from demine.screen.programs import PROGRAMS, launch
from demine.screen.x11 import Connection
from screen_shots import xvfb

JSM_PAGE = Path(__file__).resolve().parents[2] / "shared" / "peers" / "jsminesweeper" / "index.html"
SCREEN = (1920, 1080)

#: Each cell's label (demine.screen.tiles.LABELS) from the page, row-major, and the board's
#: first cell's box and period in CSS pixels: [labels, left, top, period_x, period_y, ratio].
STATE_JS = {
    "demine-web": """(() => {
      const b = document.getElementById('board');
      const w = Number(b.dataset.width), h = Number(b.dataset.height);
      const out = [];
      for (let r = 0; r < h; r++) for (let c = 0; c < w; c++) {
        const el = b.children[r + 1].children[c + 1];
        const k = el.classList;
        let lab;
        if (k.contains('open')) lab = [...k].find(x => /^n[0-8]$/.test(x)).slice(1);
        else if (k.contains('mine-shown')) lab = k.contains('exploded') ? 'exploded' : 'mine';
        else if (k.contains('flag')) lab = k.contains('wrong-flag') ? 'wrong' : 'F';
        else if (k.contains('covered')) lab = 'H';
        else lab = '??' + el.className;
        out.push(lab);
      }
      const a = b.children[1].children[1].getBoundingClientRect();
      const z = b.children[h].children[w].getBoundingClientRect();
      return [out, w, h, a.left, a.top, (z.left - a.left) / Math.max(1, w - 1),
              (z.top - a.top) / Math.max(1, h - 1), window.devicePixelRatio,
              document.getElementById('face').textContent, a.width];
    })()""",
    "jsm": """(() => {
      const out = [];
      for (let y = 0; y < board.height; y++) for (let x = 0; x < board.width; x++) {
        const t = board.getTileXY(x, y);
        let lab;
        if (t.isBomb()) lab = t.exploded ? 'exploded' : 'mine';
        else if (t.isFlagged()) lab = t.isBomb() === false ? 'wrong' : 'F';
        else if (t.isCovered()) lab = 'H';
        else lab = String(t.getValue());
        out.push(lab);
      }
      const a = document.getElementById('myCanvas').getBoundingClientRect();
      const state = board.isGameover() ? (board.won ? 'won' : 'over') : 'playing';
      return [out, board.width, board.height, a.left, a.top, TILE_SIZE, TILE_SIZE,
              window.devicePixelRatio, state, TILE_SIZE];
    })()""",
}

#: After a move: the page has drawn what it changed (two animation frames: JSMinesweeper draws
#: its tiles in one).
PAINTED = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))"


class Page:
    """A page launched in Chromium on a display: its state, clicks and grabs."""

    def __init__(self, name: str, run: Any, conn: Connection) -> None:
        self.name = name
        self.run = run
        self.conn = conn
        self.page = run.page
        self.window = run.window

    def state(self) -> dict[str, Any]:
        labels, w, h, left, top, px, py, ratio, face, cell = self.page.evaluate(STATE_JS[self.name])
        bad = [lab for lab in labels if lab.startswith("??")]
        if bad:
            raise RuntimeError(f"{self.name}: a cell the truth cannot name: {bad[0]}")
        ox, oy = self.window.box[:2]
        if self.name == "demine-web":  # the cells' lattice runs through the 1 px gaps
            x0, y0 = left - (px - cell) / 2, top - (py - cell) / 2
        else:
            x0, y0 = left, top
        return {
            "labels": labels,
            "width": w,
            "height": h,
            "grid": [
                round(x0 * ratio + ox, 2),
                round(px * ratio, 3),
                round(y0 * ratio + oy, 2),
                round(py * ratio, 3),
            ],
            "face": face,
        }

    def centre(self, st: dict[str, Any], cell: int) -> tuple[int, int]:
        r, c = divmod(cell, st["width"])
        x0, px, y0, py = st["grid"]
        return round(x0 + (c + 0.5) * px), round(y0 + (r + 0.5) * py)

    def click(self, st: dict[str, Any], cell: int, button: str = "left") -> None:
        before = st["labels"]
        self.conn.click(self.window.id, *self.centre(st, cell), button)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            time.sleep(0.05)
            if self.state()["labels"] != before:
                break
        self.page.evaluate(PAINTED)

    def move_away(self) -> None:
        """The pointer off the board (JSMinesweeper's tooltip follows it over the board)."""
        right, bottom = self.window.box[2:]
        self.conn.move(self.window.id, right - 30, bottom - 30)
        time.sleep(0.15)
        self.page.evaluate(PAINTED)

    def grab(self) -> np.ndarray:
        self.move_away()
        return np.asarray(self.conn.grab(self.window.box))


def fit(page: Page, conn: Connection) -> None:
    """demine's page shows its controls above the board: the window made as large as the board
    needs (within the screen), and the page scrolled down where the board still does not fit."""
    if page.name != "demine-web":
        return
    need = page.page.evaluate(
        "(() => { const r = document.getElementById('board').getBoundingClientRect();"
        " return [r.right + window.scrollX + 40, r.bottom + window.scrollY + 24]; })()"
    )
    w = min(SCREEN[0], max(page.window.width, round(need[0])))
    h = min(SCREEN[1], max(page.window.height, round(need[1])))
    if (w, h) != (page.window.width, page.window.height):
        conn.move_resize(page.window.id, 0, 0, w, h)
        time.sleep(0.8)
        page.window = conn.window(page.window.id)
    page.page.evaluate(
        "(() => { const r = document.getElementById('board').getBoundingClientRect();"
        " const over = r.bottom + 8 - window.innerHeight;"
        " if (over > 0) window.scrollBy(0, over); return true; })()"
    )
    page.page.evaluate(PAINTED)
    time.sleep(0.3)


def position_of(st: dict[str, Any], mines: int) -> Position:
    """The truth's position: numbers, flags (wrong ones too), covered (mines shown too)."""
    rows = []
    w = st["width"]
    for r in range(st["height"]):
        row = ""
        for lab in st["labels"][r * w : (r + 1) * w]:
            row += lab if lab.isdigit() else "F" if lab in ("F", "wrong") else "H"
        rows.append(row)
    return Position.from_text(f"{w}x{st['height']}x{mines}\n" + "\n".join(rows) + "\n")


def truth(st: dict[str, Any], mines: int) -> dict[str, Any]:
    w = st["width"]
    labels = st["labels"]

    def cells(label: str) -> list[list[int]]:
        return [list(divmod(i, w)) for i, lab in enumerate(labels) if lab == label]

    exploded = cells("exploded")
    shown, wrong = cells("mine"), cells("wrong")
    lost = bool(exploded or shown or wrong) or st["face"] in ("lost", "over")
    p = position_of(st, mines)
    won = not lost and (st["face"] in ("won!", "won") or p.unrevealed_count() == mines)
    return {
        "mines": mines,
        "truth": p.to_text(),
        "state": "lost" if lost else "won" if won else "playing",
        "exploded": exploded[0] if exploded else None,
        "mines_shown": shown,
        "wrong_flags": wrong,
        "questions": [],
        "grid": st["grid"],
    }


def check_lost(st: dict[str, Any]) -> None:
    """A lost board's numbers are its mines' counts (mines shown, exploded, right flags)."""
    w, h, labels = st["width"], st["height"], st["labels"]
    mine = [lab in ("mine", "exploded", "F") for lab in labels]
    for i, lab in enumerate(labels):
        if lab.isdigit():
            r, c = divmod(i, w)
            n = sum(
                mine[rr * w + cc]
                for rr in range(max(0, r - 1), min(h, r + 2))
                for cc in range(max(0, c - 1), min(w, c + 2))
                if (rr, cc) != (r, c)
            )
            if n != int(lab):
                raise RuntimeError(f"row {r} col {c} shows {lab} but has {n} mines around it")


def seed_board(page: Page, seed: int) -> None:
    """demine's page: a new game on the board the seed gives (typed in its Seed field, as a
    player may), so that its layout is known once the first click has placed it."""
    page.page.evaluate(
        f"(() => {{ document.getElementById('seed').value = '{seed}';"
        " document.getElementById('new').click(); return true; })()"
    )
    page.page.wait_for("document.getElementById('seed').value === ''", 5)
    page.page.evaluate(PAINTED)


def layout(page: Page, st: dict[str, Any], first: int, seed: int, mines: int) -> set[int]:
    """The mines of the game in play, once its first click has placed them, to choose the
    moves by (never the truth, which is what the page shows): JSMinesweeper's own game in the
    page (it plays client side), demine's from its engine with the seed the page was given
    (checked against the numbers the page shows)."""
    w, h = st["width"], st["height"]
    if page.name == "jsm":
        bombs = page.page.evaluate("getGame(board.getID()).tiles.map(t => t.isBomb())")
        return {i for i, b in enumerate(bombs) if b}
    from demine.engine.game import Game

    game = Game(w, h, mines, rule="safe", seed=seed)
    game.reveal(first)
    cells = set(game.mine_cells())
    for i, lab in enumerate(st["labels"]):
        if lab.isdigit() and game.visible[i] != int(lab):
            raise RuntimeError(f"demine's page shows {lab} at {divmod(i, w)}: not the seed's board")
    return cells


@functools.cache
def chromium_version() -> str:
    for path in CHROMIUM:
        try:
            return subprocess.run(
                [path, "--version"], capture_output=True, text=True, timeout=20
            ).stdout.strip()
        except OSError:
            continue
    return "Chromium"


#: A game: its board, cell size, the moves after which a screenshot is taken, and the share of
#: its safe cells opened at random (0: played, see :func:`play`).
GameSpec = tuple[tuple[int, int, int], int, tuple[int, ...], float]


class Shots:
    """One game's screenshots: where they go, and what their ``source`` says."""

    def __init__(
        self, page: Page, out: Path, name: str, size: tuple[int, int, int], tile: int, seed: int
    ) -> None:
        self.page, self.out, self.name = page, out, name
        self.size, self.tile, self.seed = size, tile, seed
        self.moves: list[list[Any]] = []
        self.written = 0
        what = {"demine-web": "demine's page (demine serve)", "jsm": "JSMinesweeper's page (index.html, MIT)"}
        w, h, m = size
        self.about = (
            f"{what[page.name]} in {chromium_version()} (an app window, Xvfb), {w}x{h}x{m}, cells of "
            f"{tile} px, seed {seed} of benchmarks/screen_pages.py"
        )

    def move(self, st: dict[str, Any], kind: str, cell: int) -> dict[str, Any]:
        """Play a move by a click ("reveal": left, "flag": right); the page's state after it."""
        self.page.click(st, cell, "left" if kind == "reveal" else "right")
        self.moves.append([kind, *divmod(cell, st["width"])])
        return self.page.state()

    def save(self, suffix: str) -> dict[str, Any]:
        """Grab the window and write ``NAME-SUFFIX.png`` and its truth; the page's state."""
        img = self.page.grab()
        st = self.page.state()  # (nothing moves while the pointer is off the board)
        meta = truth(st, self.size[2])
        if meta["state"] == "lost":
            check_lost(st)
        record = {
            "program": PROGRAMS[self.page.name].skin,
            "source": f"{self.about}, after {len(self.moves)} moves {self.moves}",
            "tile": self.tile,
            **meta,
        }
        name = f"{self.name}-{suffix}"
        Image.fromarray(img).save(self.out / f"{name}.png", optimize=True)
        (self.out / f"{name}.json").write_text(json.dumps(record) + "\n")
        print(
            name, record["truth"].splitlines()[0], record["state"], len(self.moves), "moves", file=sys.stderr
        )
        self.written += 1
        return st


def play(
    display: str,
    out: Path,
    name: str,
    program: str,
    game: GameSpec,
    seed: int,
    jsm_page: str,
    flags: int = 6,
    wrong: float = 0.3,
) -> int:
    """One game played until it ends, ``NAME-mNN`` grabbed after the moves the game asks and
    ``NAME-end`` at the end; the number of screenshots written. A game with a share to open is
    :func:`opened_game`."""
    size, tile, shots_at, opened = game
    width, height, mines = size
    rng = random.Random(seed)
    url = jsm_page if program == "jsm" else None
    with (
        launch(PROGRAMS[program], display, width, height, mines, tile=tile, page_url=url) as run,
        Connection(display) as conn,
    ):
        page = Page(program, run, conn)
        fit(page, conn)
        if opened and program == "demine-web":
            seed_board(page, seed)
        st = page.state()
        assert (st["width"], st["height"]) == (width, height), (st["width"], st["height"])
        shown = "Number(document.getElementById('mines-left').textContent)"
        asked = page.page.evaluate(shown if program == "demine-web" else "board.num_bombs")
        assert asked == mines, f"{program} plays {asked} mines, not {mines}"
        shots = Shots(page, out, name, size, tile, seed)
        if opened:
            opened_game(shots, st, shots_at, rng, opened)
            return shots.written
        placed: list[int] = []
        while True:
            p = position_of(st, mines)
            cover = [i for i, lab in enumerate(st["labels"]) if lab == "H"]
            if not cover or truth(st, mines)["state"] != "playing":
                break
            if not shots.moves:  # the first click: safe on both pages
                r0 = rng.randrange(height // 4, height - height // 4)
                kind, cell = "reveal", r0 * width + rng.randrange(width // 4, width - width // 4)
            else:
                a = analyze(p.without_flags())
                safe = sorted(c for c in a.safe if c in set(cover))
                sure = sorted(c for c in a.mines if c in set(cover))
                if len(placed) < flags and rng.random() < 0.12:
                    kind = "flag"
                    cell = rng.choice(sure) if sure and rng.random() > wrong else rng.choice(cover)
                    placed.append(cell)
                elif safe:
                    kind, cell = "reveal", rng.choice(safe)
                else:  # a guess: mostly one of the safest cells, so that games go on
                    least = [c for c in a.safest() if c in set(cover)]
                    kind, cell = "reveal", rng.choice(least if least and rng.random() < 0.8 else cover)
            st = shots.move(st, kind, cell)
            if len(shots.moves) in shots_at and truth(st, mines)["state"] == "playing":
                st = shots.save(f"m{len(shots.moves):02d}")
        shots.save("end")
    return shots.written


def opened_game(
    shots: Shots, st: dict[str, Any], shots_at: tuple[int, ...], rng: random.Random, share: float
) -> None:
    """``share`` of the safe cells opened at random (the layout known: see :func:`layout`), so
    that a dense board shows its 5s to 8s; then 3 right flags and 2 wrong ones (a screenshot,
    when any are asked), and a mine."""
    width, height, mines = shots.size
    first = (height // 2) * width + width // 2
    st = shots.move(st, "reveal", first)
    bombs = layout(shots.page, st, first, shots.seed, mines)
    safe = [c for c in range(width * height) if c not in bombs]
    for c in rng.sample(safe, round(share * len(safe))):
        if st["labels"][c] == "H":
            st = shots.move(st, "reveal", c)
            if len(shots.moves) in shots_at:
                st = shots.save(f"m{len(shots.moves):02d}")
    cover = [c for c in range(width * height) if st["labels"][c] == "H"]
    right = [c for c in cover if c in bombs]
    wrong = [c for c in cover if c not in bombs]
    for c in rng.sample(right, min(3, len(right))) + rng.sample(wrong, min(2, len(wrong))):
        st = shots.move(st, "flag", c)
    if shots_at:
        st = shots.save(f"m{len(shots.moves):02d}")
    left = [c for c in range(width * height) if st["labels"][c] == "H" and c in bombs]
    if left:
        st = shots.move(st, "reveal", rng.choice(left))
    shots.save("end")


TEST_GAMES: dict[str, list[GameSpec]] = {
    "demine-web": [
        ((9, 9, 10), 44, (3,), 0.0),
        ((16, 16, 40), 16, (8,), 0.0),
        ((30, 16, 99), 24, (12, 40), 0.0),
        ((30, 16, 170), 32, (10,), 0.0),
        ((16, 16, 90), 24, (8,), 0.0),
        ((30, 16, 170), 24, (60,), 0.6),
    ],
    "jsm": [
        ((9, 9, 10), 24, (3,), 0.0),
        ((16, 16, 40), 44, (8,), 0.0),
        ((30, 16, 99), 32, (12, 40), 0.0),
        ((30, 16, 170), 16, (10,), 0.0),
        ((16, 16, 90), 32, (8,), 0.0),
        ((30, 16, 170), 32, (60,), 0.6),
    ],
}
#: The templates' cell sizes (px) and boards: each size plays two of the boards, a dense board
#: with most of its safe cells opened (its 5s and 6s) and a very dense 9x9 with all of them
#: opened (its 7s and 8s).
TRAIN_TILES = (12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 56)
TRAIN_BOARDS = ((9, 9, 10), (16, 16, 40), (30, 16, 99), (16, 16, 90), (30, 16, 170), (9, 9, 30))
DENSE = ((30, 16, 170), (16, 16, 90), (9, 9, 30))


def fits(board: tuple[int, int, int], tile: int) -> bool:
    """Whether the board at that cell size fits the window on a 1920x1080 screen."""
    return board[0] * (tile + 1) <= 1500 and board[1] * (tile + 1) <= 800


def train_games(program: str) -> list[GameSpec]:
    games: list[GameSpec] = []
    for k, tile in enumerate(TRAIN_TILES):
        for j in range(2):
            board = TRAIN_BOARDS[(2 * k + j) % len(TRAIN_BOARDS)]
            if not fits(board, tile):
                board = (9, 9, 10) if j == 0 else (9, 9, 30)
            games.append((board, tile, (4, 12, 25), 0.0))
        dense = next(b for b in DENSE[k % 2 :] if fits(b, tile))
        games.append((dense, tile, (40,), 0.6))
        games.append(((9, 9, 55), tile, (8, 16), 1.0))
    if program == "demine-web":
        # demine's page frames the cell last clicked (its keyboard cursor, while the board has
        # the focus): a screenshot after every move of a game, so that each kind of cell is
        # seen framed
        games += [((9, 9, 10), tile, tuple(range(1, 40)), 0.0) for tile in TRAIN_TILES]
    return games


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--only", default="demine-web,jsm")
    ap.add_argument("--train", action="store_true", help="other seeds and more sizes: the templates' boards")
    ap.add_argument(
        "--seed", type=int, default=None, help="the first game's seed (default 1, 1001 with --train)"
    )
    ap.add_argument("--jsm-page", default=str(JSM_PAGE), help="JSMinesweeper's index.html")
    ns = ap.parse_args()
    out = Path(ns.out)
    out.mkdir(parents=True, exist_ok=True)
    seed = ns.seed if ns.seed is not None else 1001 if ns.train else 1
    total = 0
    with xvfb() as display:
        for program in ns.only.split(","):
            games = train_games(program) if ns.train else TEST_GAMES[program]
            for k, game in enumerate(games):
                (w, h, m), tile = game[0], game[1]
                name = f"{'train-' if ns.train else ''}{program}-{w}x{h}x{m}-t{tile}-s{seed + k}"
                total += play(display, out, name, program, game, seed + k, ns.jsm_page)
    print(f"{total} screenshots in {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
