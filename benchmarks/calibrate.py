"""Our rules against another solver's published figure: minesolve's "depth 1" player, rebuilt.

Run: python benchmarks/calibrate.py --games N --seed SEED [--size S --rule R]

minesolve (a C solver; its README gives 39.00% of 10,000,000 expert games at search depth 1,
safe first click in the corner) plays, at depth 1, the safest cell: the first frontier cell in
reading order with the lowest chance of a mine, or an off-frontier cell when that chance is
strictly lower there, the first in reading order with the fewest neighbours. This script plays
that rule (``ms1``) and ``fast`` (the safest cell, ties toward the cell most likely to be a zero)
on the same boards. If ``ms1`` wins what minesolve publishes, our rules and engine agree with
its; the two players differ only in how they break ties.
"""

from __future__ import annotations

import argparse
import random

from boards import add_board_options, board_specs
from demine.analysis import Analysis
from demine.analysis.constraints import System
from demine.bench import bench, paired
from demine.engine.game import Move
from demine.engine.position import COVERED, Position
from demine.players import register
from demine.players.base import Decision
from demine.players.best import DEFAULT_LIMIT, BestMove, Follower, _decide


def minesolve_depth1(position: Position, a: Analysis) -> BestMove:
    """The first frontier cell in reading order with the lowest chance of a mine; an
    off-frontier cell (fewest neighbours, then reading order) only when strictly safer."""
    st = position.states
    nb = position.geometry.neighbours
    front: list[tuple[int, int, int]] = []
    off: list[tuple[int, int, int]] = []
    for c, (n, d) in a._prob.items():
        if st[c] != COVERED or n == d:
            continue
        if any(st[x] < COVERED for x in nb(c)):
            front.append((n, d, c))
        else:
            off.append((n, d, c))
    best = min(front, key=lambda t: (t[0] / t[1], t[2])) if front else None
    if off and (best is None or off[0][0] * best[1] < best[0] * off[0][1]):
        cell = min(off, key=lambda t: (len(nb(t[2])), t[2]))[2]
    else:
        assert best is not None
        cell = best[2]
    return BestMove(Move("reveal", cell), "safest", a.p(cell))


class MinesolveDepth1:
    name = "ms1"

    def __init__(self) -> None:
        self.follower = Follower()

    def decide(self, position: Position, rng: random.Random) -> Decision:
        def guess(a: Analysis, _: System | None) -> BestMove:
            return minesolve_depth1(position, a)

        return _decide(position, DEFAULT_LIMIT, guess, self.follower)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    add_board_options(ap, "cal1")
    ap.add_argument("--jobs", type=int, default=2)
    ns = ap.parse_args()
    specs = board_specs(ns)
    register("ms1", MinesolveDepth1, "minesolve's depth-1 rule (benchmarks/calibrate.py)")
    results = {}
    for name in ("ms1", "fast"):
        summary, res = bench(name, specs, jobs=ns.jobs)
        results[name] = res
        lo, hi = summary.ci95
        print(
            f"{name}: {summary.wins}/{summary.games} = {100 * summary.win_rate:.2f}% "
            f"({100 * lo:.2f}-{100 * hi:.2f}), {summary.ms_per_game:.1f} ms/game"
        )
    pr = paired("ms1", results["ms1"], "fast", results["fast"])
    print(f"ms1 vs fast: only ms1 {pr.only_a}, only fast {pr.only_b}, sign test p = {pr.p_value:.4g}")


if __name__ == "__main__":
    main()
