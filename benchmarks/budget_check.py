"""Does a time budget change `best`'s moves? Each guess checked against a search with no time limit.

Run: python benchmarks/budget_check.py --games 300 --seed fresh1
     python benchmarks/budget_check.py --games 150 --seed web1 --limit 0.05   # the web hint's budget

`best` plays the games. At each guess, the position is searched again from scratch twice:
- once with ``best_move(position, Limit(seconds=--limit), analysis=...)``, the default being the
  player's own budget (the web game's hint searches this way, with 0.05 s);
- once with no time limit.
The script counts the guesses where the player's own move, or the budgeted search, differs from
the unlimited search, and how often the budgeted search fell back to the safest cell.

With the look-ahead's budget shared by its candidates, the counts should be 0 unless a search
needs the whole budget. Run it while other work keeps the cores busy to see the effect of
stalls (for example `demine bench --games 40000 --jobs 2` at the same time).
"""

from __future__ import annotations

import argparse
import random
from collections import Counter

from boards import add_board_options, board_specs
from demine import Limit, analyze, best_move, find_solver
from demine.players.best import DEFAULT_LIMIT


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_board_options(ap, "fresh1", games_help="games to play (default: 1000)")
    ap.add_argument(
        "--limit",
        type=float,
        default=DEFAULT_LIMIT.seconds,
        help=f"seconds for the budgeted search (default: the player's own, {DEFAULT_LIMIT.seconds})",
    )
    ns = ap.parse_args()
    if ns.games < 1 or ns.limit <= 0:
        raise SystemExit("--games and --limit must be positive")
    budget = Limit(seconds=ns.limit)
    unlimited = Limit(seconds=None)
    counts: Counter[str] = Counter()
    for spec in board_specs(ns):
        game = spec.game()
        game.reveal(spec.start)
        player = find_solver("best")
        rng = random.Random(f"{spec.seed}/player")
        while not game.over:
            position = game.position()
            decision = player.decide(position, rng)
            if decision.guess:
                a = analyze(position)
                exact = best_move(position, unlimited, analysis=a).move
                budgeted = best_move(position, budget, analysis=a)
                counts["guesses"] += 1
                counts["player's move differs"] += decision.moves[0] != exact
                counts["budgeted search differs"] += budgeted.move != exact
                counts["budgeted search fell back to the safest cell"] += (
                    budgeted.move != exact and budgeted.reason == "safest"
                )
            for m in decision.moves:
                if not game.over:
                    game.play(m)
    print(f"{ns.games} games ({ns.size}, {ns.rule}, seed {ns.seed}), budget {ns.limit} s")
    for k in (
        "guesses",
        "player's move differs",
        "budgeted search differs",
        "budgeted search fell back to the safest cell",
    ):
        print(f"{counts[k]:7}  {k}")


if __name__ == "__main__":
    main()
