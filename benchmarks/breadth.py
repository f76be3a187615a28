"""How much the breadth of the three-reveal search matters (BENCHMARKS.md, "Three reveals ahead").

Run: python benchmarks/breadth.py --games N --size SIZE --rule RULE --seed SEED [--long-term-risk]

``best`` plays each game. At each of its look-ahead guesses the search runs twice: as ``best``
runs it (the candidates within ``CANDIDATE_SHARE`` of the best safety at the root, the
``INNER_CANDIDATES`` safest frontier cells inside) and over every covered cell at the root and
every frontier cell inside, as minesolve's search does. Prints how many moves differ and the sum
of the three-reveal value the wide search gains. Long-term risk is off unless asked for, so that
each value is a plain chance to survive three reveals; the wide search weighs a superset of the
candidates, so its value is then never lower (checked).
"""

from __future__ import annotations

import argparse
import random
import time

import demine.players.best as best
from boards import add_board_options, board_specs
from demine import Position, analyze
from demine.analysis import Analysis, Limit

#: The wide search: every covered cell at the root, every frontier cell inside.
WIDE = {"CANDIDATE_SHARE": 0.0, "MAX_CANDIDATES": 10**6, "INNER_CANDIDATES": 10**6}
#: A budget no search here reaches, so neither falls back on a cheaper choice.
LIMIT = Limit(seconds=600)


def _wide_move(position: Position, a: Analysis) -> best.BestMove:
    saved = {k: getattr(best, k) for k in WIDE}
    try:
        for k, v in WIDE.items():
            setattr(best, k, v)
        return best.best_move(position, LIMIT, analysis=a)
    finally:
        for k, v in saved.items():
            setattr(best, k, v)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_board_options(ap, "breadth")
    ap.add_argument("--long-term-risk", action="store_true", help="keep long-term risk on")
    ns = ap.parse_args()
    best.DEPTH = 3
    best.LONG_TERM_RISK = ns.long_term_risk
    guesses = differ = 0
    gain = 0.0
    seconds = [0.0, 0.0]
    for spec in board_specs(ns):
        game = spec.game()
        game.reveal(spec.start)
        player = best.BestPlayer()
        rng = random.Random(f"{spec.seed}/player")
        while not game.over:
            position = game.position()
            a = analyze(position)
            if not a.safe:
                # both searches get the same analysis, so the times compare the searches alone
                t = time.perf_counter()
                narrow = best.best_move(position, LIMIT, analysis=a)
                seconds[0] += time.perf_counter() - t
                if narrow.reason == "look-ahead":
                    t = time.perf_counter()
                    wide = _wide_move(position, a)
                    seconds[1] += time.perf_counter() - t
                    guesses += 1
                    if wide.move != narrow.move:
                        differ += 1
                        g = wide.estimate - narrow.estimate
                        if g < -1e-9 and not ns.long_term_risk:
                            raise SystemExit(f"game {spec.index}: the wide search found less ({g:.6f})")
                        gain += g
            for move in player.decide(position, rng).moves:
                if not game.over:
                    game.play(move)
    print(
        f"{ns.games} games ({ns.size}, {ns.rule}, seed {ns.seed}): {guesses} look-ahead guesses, "
        f"{differ} moved by the wide search; three-reveal value gained {gain:.4f} in all, "
        f"{gain / max(ns.games, 1):.5f} a game; seconds: default {seconds[0]:.1f}, wide {seconds[1]:.1f}"
    )


if __name__ == "__main__":
    main()
