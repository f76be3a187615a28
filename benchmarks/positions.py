"""Position sets for the analysis benchmarks, all generated from seeds (nothing downloaded)."""

from __future__ import annotations

import random
from pathlib import Path

from demine.analysis import analyze
from demine.engine.game import Game
from demine.engine.position import COVERED, FLAG, Position

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "ms_toollib"


def guess_points(
    count: int, seed: str = "guess", size: tuple[int, int, int] = (30, 16, 99)
) -> list[Position]:
    """Positions where the exact player had to guess, from seeded expert games (safe rule,
    corner start). Every guess point of each game is taken until ``count`` are collected."""
    out: list[Position] = []
    i = 0
    while len(out) < count:
        g = Game(*size, rule="safe", seed=f"{seed}/{i}")
        i += 1
        g.reveal(0)
        while not g.over and len(out) < count:
            p = g.position()
            a = analyze(p)
            if a.safe:
                for c in sorted(a.safe):
                    if not g.over:
                        g.reveal(c)
                continue
            out.append(p)
            covered = p.covered_cells()
            g.reveal(min(covered, key=lambda c: (a.probability(c), c)))
    return out


def random_recipe(
    width: int, height: int, mines: int, seed: int, reveal: float = 0.35, flag: float = 0.30
) -> Position:
    """A random layout with a share of its safe cells revealed and a share of its mines flagged,
    both chosen uniformly at random (not by play): a hard, tangled frontier."""
    rng = random.Random(seed)
    game = Game.from_layout(width, height, rng.sample(range(width * height), mines))
    vis = bytearray([COVERED]) * (width * height)
    safe = [c for c in range(width * height) if not game.is_mine(c)]
    mine = [c for c in range(width * height) if game.is_mine(c)]
    counts = game._count
    assert counts is not None
    for c in rng.sample(safe, round(reveal * len(safe))):
        vis[c] = counts[c]
    for c in rng.sample(mine, round(flag * len(mine))):
        vis[c] = FLAG
    return Position(width, height, bytes(vis), mines)


def speed_board() -> Position:
    """ms-toollib's speed test board (21x10, 75 mines)."""
    return Position.from_text((DATA / "mstl_speed_board1_21x10.txt").read_text())


def to_ms_toollib(p: Position) -> list[list[int]]:
    """The position in ms-toollib's board encoding (10 covered, 11 flag)."""
    enc = {COVERED: 10, FLAG: 11}
    w = p.width
    return [[enc.get(v, v) for v in p.states[r * w : (r + 1) * w]] for r in range(p.height)]
