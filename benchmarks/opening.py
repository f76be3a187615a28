"""The second move of a game by rollouts: which cell to open after the first click shows a number.

Run: python benchmarks/opening.py --size expert --rule safe --games N --seed SEED CELL [CELL ...]

Each CELL is ``ROW,COL``, ``best`` (what ``best`` plays) or ``off`` (every cell not next to the
first click at (0,0); on a square board only those with ROW <= COL, the others being their mirror
images). Only the boards whose first click shows a number (so that a second guess is needed) are
played; on each of them every CELL in turn is opened as the second move, and ``best`` plays the
rest of the game. Every CELL plays the same boards, so the comparison is paired: the script prints
each one's wins, the ranking, and, against the first CELL, the boards only one of them won and the
two-sided sign test. With ``--number K`` only the boards whose first click shows K are kept.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable

from boards import add_board_options, board_specs
from demine.bench import bench, paired
from demine.game import Move
from demine.position import COVERED, Position
from demine.solvers import Player, register
from demine.solvers.base import Decision
from demine.solvers.best import BestPlayer


class _Forced:
    """``best``, except that its first guess (one revealed cell, a number) is ``cell``."""

    name = "opening"

    def __init__(self, cell: int | None) -> None:
        self.cell = cell
        self.inner = BestPlayer()

    def decide(self, position: Position, rng: random.Random) -> Decision:
        st = position.states
        if self.cell is not None and sum(s < COVERED for s in st) == 1 and st[self.cell] == COVERED:
            return Decision([Move("reveal", self.cell)], guess=True, reason="safest")
        return self.inner.decide(position, rng)


def _factory(cell: int | None) -> Callable[[], Player]:
    return lambda: _Forced(cell)


def _cell(text: str, width: int, height: int) -> int | None:
    if text == "best":
        return None
    try:
        r, c = (int(x) for x in text.split(","))
    except ValueError:
        raise SystemExit(f"cell {text!r}: expected ROW,COL, 'best' or 'off'") from None
    if not (0 <= r < height and 0 <= c < width):
        raise SystemExit(f"cell {text!r}: outside the {width}x{height} board")
    return r * width + c


def _off_cells(width: int, height: int) -> list[str]:
    """The cells two or more steps from (0, 0), as ROW,COL (ROW <= COL on a square board)."""
    return [
        f"{r},{c}"
        for r in range(height)
        for c in range(width)
        if max(r, c) >= 2 and (width != height or r <= c)
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("cells", nargs="+")
    add_board_options(ap, "open1", "boards drawn (those that open at the first click are skipped)")
    ap.add_argument("--number", type=int, default=None)
    ap.add_argument("--jobs", type=int, default=2)
    ns = ap.parse_args()
    drawn = board_specs(ns)
    if not drawn:
        raise SystemExit("--games: draw at least one board")
    w, h = drawn[0].width, drawn[0].height
    texts: list[str] = []
    for t in ns.cells:
        texts += _off_cells(w, h) if t == "off" else [t]
    cells = [_cell(t, w, h) for t in texts]
    for text, cell in zip(texts, cells, strict=True):
        if cell == drawn[0].start:
            raise SystemExit(f"cell {text!r} is the first click")
    specs = []
    for sp in drawn:
        g = sp.game()
        g.reveal(sp.start)
        shown = g.position().states[sp.start]
        if not g.over and shown > 0 and (ns.number is None or shown == ns.number):
            specs.append(sp)
    print(f"{len(specs)} of {ns.games} boards need a second move")
    if not specs:
        raise SystemExit("no first click showed a number (under --rule zero none does): nothing to compare")
    results = {}
    for text, cell in zip(texts, cells, strict=True):
        name = f"opening-{text}"
        register(name, _factory(cell), f"best, second move {text}")
        summary, res = bench(name, specs, jobs=ns.jobs)
        results[text] = res
        print(f"{text}: {summary.wins}/{summary.games} = {100 * summary.win_rate:.2f}%", flush=True)
    first = texts[0]
    ranked = sorted(texts, key=lambda t: -sum(r.won for r in results[t]))
    print("ranked: " + ", ".join(f"{t} {sum(r.won for r in results[t])}" for t in ranked))
    for text in texts[1:]:
        pr = paired(first, results[first], text, results[text])
        print(f"{first} vs {text}: only {first} {pr.only_a}, only {text} {pr.only_b}, p = {pr.p_value:.4g}")


if __name__ == "__main__":
    main()
