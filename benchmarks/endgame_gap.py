"""What exact endgame search would add over the look-ahead, measured without the noise of games.

Run: python benchmarks/endgame_gap.py --games N --seed SEED --below 60 --upto 2000

``best`` plays with its exact endgame search limited to ``--below`` layouts, and its sampled
endgame (a search over a sample of the layouts) up to ``--sampled`` layouts (0: none; the default
is ``best``'s own limit) from ``--sample`` draws. At each guess it makes with more layouts than
``--below`` but at most ``--upto``, every layout is enumerated and the game tree searched: the
chance to win after the move ``best`` played and after the best move are both exact, and their
difference is what the exact search would have gained at that guess. The sum over the games, divided
by the games, is the gain in win rate from those guesses alone (later guesses in the same
range would gain more). Printed per range of layouts, with the search's time, and by the reason
of the move played.
"""

from __future__ import annotations

import argparse
import itertools
import time

from boards import add_board_options, board_specs
from demine import Analysis, BestMove, BestSettings, Hooks, PlayerSpec, Position
from demine.analysis.enumerate import enumerate_layouts
from demine.bench import play_game
from demine.cli import positive_int
from demine.players.best import Endgame

RANGES = (60, 200, 500, 1000, 2000, 5000)
#: The measuring search's node budget (the player's own searches keep theirs).
MEASURE_NODES = 1_000_000


def main() -> None:
    defaults = BestSettings()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_board_options(ap, "gap1")
    ap.add_argument("--below", type=int, default=60, help="best's own endgame limit while playing")
    ap.add_argument("--upto", type=int, default=2000, help="the most layouts measured")
    ap.add_argument(
        "--sampled", type=int, default=defaults.sampled_layouts, help="best's sampled endgame limit"
    )
    ap.add_argument(
        "--sample", type=positive_int, default=defaults.endgame_sample, help="the sampled endgame's draws"
    )
    ap.add_argument(
        "--nodes", type=positive_int, default=defaults.endgame_nodes, help="best's node budget per search"
    )
    ns = ap.parse_args()
    settings = defaults.replace(
        endgame_layouts=ns.below, endgame_nodes=ns.nodes, sampled_layouts=ns.sampled, endgame_sample=ns.sample
    )
    # (layouts, gain, ms, reason) per measured guess; searches past MEASURE_NODES are counted
    seen: list[tuple[int, float, float, str]] = []
    given_up = 0

    def measure(position: Position, analysis: Analysis, bm: BestMove) -> None:
        nonlocal given_up
        n = analysis.solutions
        if n is None or not ns.below < n <= ns.upto:
            return
        t0 = time.perf_counter()
        layouts = enumerate_layouts(position, ns.upto)
        if not layouts:
            return
        search = Endgame.of(position, layouts, nodes=MEASURE_NODES)
        try:
            found = search.best_move()
            chosen = search.value(bm.move.cell, (1 << len(layouts)) - 1, len(layouts))
        except TimeoutError:
            given_up += 1
            return
        assert found is not None
        seen.append((n, found[1] - chosen, 1000 * (time.perf_counter() - t0), bm.reason))

    player = PlayerSpec("best", settings, hooks=Hooks(on_guess=measure))
    specs = board_specs(ns)
    wins = sum(play_game(spec, player).won for spec in specs)
    print(
        f"{ns.size} {ns.rule}, {ns.games} games (seed {ns.seed}), endgame up to {ns.below} layouts, "
        f"sampled up to {ns.sampled} ({ns.sample} draws): {wins} won"
    )
    print(f"{'layouts':>14} {'guesses':>8} {'worse':>6} {'gain/game (points)':>19} {'search ms/game':>15}")
    bounds = [ns.below, *(r for r in RANGES if ns.below < r < ns.upto), ns.upto]

    def row(label: str, part: list[tuple[int, float, float, str]]) -> str:
        """A table row: the guesses, those where best's move was worse, the gain a game."""
        worse = sum(1 for s in part if s[1] > 1e-9)
        gain = 100 * sum(s[1] for s in part) / ns.games
        return f"{label:>14} {len(part):>8} {worse:>6} {gain:>19.3f}"

    for lo, hi in itertools.pairwise(bounds):
        part = [s for s in seen if lo < s[0] <= hi]
        print(f"{row(f'{lo + 1}-{hi}', part)} {sum(s[2] for s in part) / ns.games:>15.1f}")
    print(f"{'by reason':>14} {'guesses':>8} {'worse':>6} {'gain/game (points)':>19}")
    for reason in sorted({s[3] for s in seen}):
        print(row(reason, [s for s in seen if s[3] == reason]))
    if given_up:
        print(f"searches given up (over 1,000,000 nodes): {given_up}")


if __name__ == "__main__":
    main()
