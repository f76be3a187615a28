"""Time per move of ``fast`` against board side, at 15% density, with lives (huge boards).

Run: python benchmarks/huge_boards.py [--sides 100,300,1000] [--games 5,3,1] [--lives 100000]

Plays seeded games (rule safe, start (0,0)) with ``bench.play_game`` and reports per side the
median over games of the wall time, the moves, microseconds per move, guesses and mines hit. A flat
microseconds-per-move column means a move costs what it changes, not what the board holds.
"""

from __future__ import annotations

import argparse
import statistics
import time

from demine.bench import GameSpec, play_game


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sides", default="100,300,1000")
    ap.add_argument("--games", default="5,3,1", help="games per side")
    ap.add_argument("--density", type=float, default=0.15)
    ap.add_argument("--lives", type=int, default=100_000)
    ns = ap.parse_args()
    sides = [int(x) for x in ns.sides.split(",")]
    games = [int(x) for x in ns.games.split(",")]
    print("| side | cells | mines | games | won | s/game | moves/game | us/move | guesses | mines hit |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for side, n in zip(sides, games, strict=True):
        mines = int(side * side * ns.density)
        rows = []
        for i in range(n):
            spec = GameSpec(i, side, side, mines, "safe", 0, f"huge/{side}/{i}", None, ns.lives)
            t0 = time.perf_counter()
            r = play_game(spec, "fast")
            rows.append((time.perf_counter() - t0, r))
        secs = statistics.median(t for t, _ in rows)
        moves = statistics.median(r.moves for _, r in rows)
        us = statistics.median(t / r.moves * 1e6 for t, r in rows)
        print(
            f"| {side} | {side * side:,} | {mines:,} | {n} | {sum(r.won for _, r in rows)} | {secs:.2f} | "
            f"{moves:,.0f} | {us:.1f} | {statistics.median(r.guesses for _, r in rows):.0f} | "
            f"{statistics.median(r.hits for _, r in rows):.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
