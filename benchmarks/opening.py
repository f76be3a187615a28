"""The second move of a game by rollouts: which cell to open after the first click shows a number.

Run: python benchmarks/opening.py --size expert --rule safe --games N --seed SEED CELL [CELL ...]

Each CELL is ``ROW,COL``, ``best`` (what ``best`` plays) or ``off`` (every cell not next to the
first click at (0,0); on a square board only those with ROW <= COL, the others being their mirror
images). Only the boards whose first click shows a number (so that a second guess is needed) are
played; on each of them every CELL in turn is opened as the second move, and ``best`` plays the
rest of the game. Every CELL plays the same boards, so the comparison is paired: the script prints
each one's wins, the ranking, and, against the first CELL, the boards only one of them won and the
two-sided sign test. With ``--number K`` only the boards whose first click shows K are kept.

With ``--then ROW,COL`` the second move is that cell and the CELLs are third moves: only the boards
where the first click and that cell both show a number are played (``off`` then leaves out the cells
next to either).
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable

from boards import add_board_options, board_specs
from demine.bench import bench, paired
from demine.engine.game import Move
from demine.engine.grid import parse_cell
from demine.engine.position import COVERED, Position
from demine.errors import DemineError
from demine.players import Player, register
from demine.players.base import Decision
from demine.players.best import BestPlayer


class _Forced:
    """``best``, except for its first guesses: with k cells revealed (all numbers), it opens
    ``moves[k - 1]`` (None: what ``best`` plays)."""

    name = "opening"

    def __init__(self, moves: list[int | None]) -> None:
        self.moves = moves
        self.inner = BestPlayer()

    def decide(self, position: Position, rng: random.Random) -> Decision:
        st = position.states
        k = sum(s < COVERED for s in st)
        cell = self.moves[k - 1] if 1 <= k <= len(self.moves) else None
        if cell is not None and st[cell] == COVERED:
            return Decision([Move("reveal", cell)], guess=True, reason="safest")
        return self.inner.decide(position, rng)


def _factory(moves: list[int | None]) -> Callable[[], Player]:
    return lambda: _Forced(moves)


def _cell(text: str, width: int, height: int, what: str = "cell") -> int | None:
    """A CELL argument: ``best`` (None) or ROW,COL; a bad one ends the script with one line."""
    if text == "best" and what == "cell":
        return None
    try:
        return parse_cell(text, width, height)
    except DemineError as e:
        also = " (or 'best', or 'off')" if what == "cell" and "," not in text else ""
        raise SystemExit(f"{what} {text!r}: {e}{also}") from None


def _off_cells(width: int, height: int, opened: list[int]) -> list[str]:
    """The cells two or more steps from every opened cell, as ROW,COL (on a square board with
    only (0, 0) opened, ROW <= COL: the others are mirror images)."""
    mirror = width == height and opened == [0]
    return [
        f"{r},{c}"
        for r in range(height)
        for c in range(width)
        if all(max(abs(r - o // width), abs(c - o % width)) >= 2 for o in opened) and (not mirror or r <= c)
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("cells", nargs="+")
    add_board_options(ap, "open1", "boards drawn (those that open at the first click are skipped)")
    ap.add_argument("--number", type=int, default=None)
    ap.add_argument("--then", default=None, help="ROW,COL: a fixed second move; the CELLs are third moves")
    ap.add_argument("--jobs", type=int, default=2)
    ns = ap.parse_args()
    drawn = board_specs(ns)
    if not drawn:
        raise SystemExit("--games: draw at least one board")
    w, h = drawn[0].width, drawn[0].height
    then = None
    if ns.then is not None:
        then = _cell(ns.then, w, h, "--then")
        if then == drawn[0].start:
            raise SystemExit(f"--then {ns.then!r} is the first click")
    opened = [drawn[0].start] + ([] if then is None else [then])
    texts: list[str] = []
    for t in ns.cells:
        texts += _off_cells(w, h, opened) if t == "off" else [t]
    cells = [_cell(t, w, h) for t in texts]
    for text, cell in zip(texts, cells, strict=True):
        if cell in opened:
            raise SystemExit(f"cell {text!r} is already opened (the first click or --then)")
    specs = []
    for sp in drawn:
        g = sp.game()
        g.reveal(sp.start)
        shown = g.position().states[sp.start]
        if g.over or shown == 0 or (ns.number is not None and shown != ns.number):
            continue
        if then is not None:
            g.reveal(then)
            if g.over or g.position().states[then] == 0:
                continue  # a mine, or an opening: no third guess to compare
        specs.append(sp)
    which = "second" if then is None else "third"
    print(f"{len(specs)} of {ns.games} boards need a {which} move")
    if not specs:
        why = "too few boards drawn?"
        if ns.rule == "zero":
            why = "under --rule zero no first click shows a number"
        raise SystemExit(f"no board needs a {which} move ({why}): nothing to compare")
    results = {}
    for text, cell in zip(texts, cells, strict=True):
        name = f"opening-{text}"
        moves = [cell] if then is None else [then, cell]
        register(name, _factory(moves), f"best, {which} move {text}")
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
