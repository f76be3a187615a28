"""Each look-ahead guess against its runner-up, by forking the game (paired on the same layout).

Run: python benchmarks/forks.py --games N --size SIZE --rule RULE --seed SEED [--out FILE]

``best`` plays each game. At every look-ahead guess (every candidate scored, nothing pruned) the
game is copied, the runner-up candidate is opened in the copy instead, and ``best`` plays the copy
to its end. Both branches share the layout, so for each guess the pair (main line won, fork won)
compares the two choices with everything else equal. Prints the totals and, by the runner-up's
score gap, kind and the stage of the game, the forks only one branch won; ``--out`` writes one
JSON line per fork, and ``--report FILE`` reports on such a file again without playing.
"""

from __future__ import annotations

import argparse
import json
import random
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from typing import Any

import demine.players.best as best
from boards import add_board_options, board_specs
from demine.bench import GameSpec, sign_test
from demine.engine.game import Game, Move
from demine.engine.position import COVERED


def _finish(game: Game, rng: random.Random) -> bool:
    player = best.BestPlayer()
    while not game.over:
        d = player.decide(game.position(), rng)
        for mv in d.moves:
            game.play(mv)
            if game.over:
                break
    return game.won


def play(spec: GameSpec) -> list[dict[str, Any]]:
    # the forks compare the two-guess ranking's top two (its figures in BENCHMARKS.md were run
    # before the three-reveal ranking, DEPTH = 3, which may play a cell other than its top)
    best.DEPTH = 2
    rng = random.Random(f"{spec.seed}/player")
    game = spec.game()
    game.reveal(spec.start)
    player = best.BestPlayer()
    forks: list[dict[str, Any]] = []
    guess_no = 0
    while not game.over:
        best.RANKING = []
        position = game.position()
        d = player.decide(position, rng)
        ranking = best.RANKING
        best.RANKING = None
        if d.guess:
            guess_no += 1
        if d.reason == "look-ahead" and len(ranking) >= 2:
            ranking.sort(key=lambda r: r.key, reverse=True)
            top, alt = ranking[0], ranking[1]
            if top.cell != d.moves[0].cell:
                raise SystemExit(
                    f"game {spec.index}: the ranking's top {top.cell} is not the move played {d.moves[0]}"
                )
            fork = game.copy()
            fork.play(Move("reveal", alt.cell))
            alt_won = _finish(fork, random.Random(f"{spec.seed}/fork{guess_no}"))
            forks.append(
                {
                    "game": spec.index,
                    "guess": guess_no,
                    "covered": position.states.count(COVERED),
                    "p": top.probability,
                    "score": top.score,
                    "off": top.off_frontier,
                    "values": top.numbers,
                    "alt_p": alt.probability,
                    "alt_score": alt.score,
                    "alt_off": alt.off_frontier,
                    "alt_values": alt.numbers,
                    "n": len(ranking),
                    "alt_won": alt_won,
                }
            )
        for mv in d.moves:
            game.play(mv)
            if game.over:
                break
    for f in forks:
        f["won"] = game.won
    return forks


#: What report() reads from each fork's line.
_FIELDS = {"won", "alt_won", "p", "alt_p", "score", "alt_score", "off", "alt_off", "guess", "covered"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    add_board_options(ap, "fork1")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", help="write one JSON line per fork to this file")
    ap.add_argument("--report", metavar="FILE", help="only report on the forks in FILE (an --out file)")
    ns = ap.parse_args()
    if ns.report:
        try:
            with open(ns.report) as f:
                rows = [json.loads(line) for line in f]
            for i, r in enumerate(rows, 1):
                missing = _FIELDS - set(r)
                if missing:
                    raise ValueError(f"line {i} has no {', '.join(sorted(missing))}")
        except (OSError, ValueError, AttributeError, TypeError) as e:
            raise SystemExit(f"--report {ns.report}: {e}") from None
        report(rows)
        return
    specs = board_specs(ns)
    rows: list[dict[str, Any]] = []
    with ExitStack() as stack:
        out = None
        if ns.out:  # opened before the games, so that a bad path fails at once, not after them
            try:
                out = stack.enter_context(open(ns.out, "w"))
            except OSError as e:
                raise SystemExit(f"--out {ns.out}: {e}") from None
        ex = stack.enter_context(ProcessPoolExecutor(ns.jobs))
        for forks in ex.map(play, specs, chunksize=20):
            rows.extend(forks)
            if out is not None:
                out.writelines(json.dumps(r) + "\n" for r in forks)
    report(rows)


def report(rows: list[dict[str, Any]]) -> None:
    def line(name: str, rs: list[dict[str, Any]]) -> None:
        main_only = sum(1 for r in rs if r["won"] and not r["alt_won"])
        alt_only = sum(1 for r in rs if r["alt_won"] and not r["won"])
        p = sign_test(main_only, alt_only)
        counts = f"only best's choice won {main_only}, only the runner-up {alt_only}"
        print(f"{name:<36} {len(rs):>6} forks: {counts} (p = {p:.3g})")

    line("all", rows)
    for lo, hi in ((0, 0.001), (0.001, 0.005), (0.005, 0.02), (0.02, 1)):
        line(
            f"score gap {lo}-{hi}", [r for r in rows if lo <= (r["score"] - r["alt_score"]) / r["score"] < hi]
        )
    for a in (False, True):
        for b in (False, True):
            line(f"best off={a} runner-up off={b}", [r for r in rows if r["off"] == a and r["alt_off"] == b])
    line("runner-up safer", [r for r in rows if r["alt_p"] < r["p"] - 1e-12])
    line("same safety", [r for r in rows if abs(r["alt_p"] - r["p"]) <= 1e-12])
    line("best safer", [r for r in rows if r["alt_p"] > r["p"] + 1e-12])
    for g in (1, 2, 3, 4):
        line(f"guess {g} of the game", [r for r in rows if r["guess"] == g])
    line("guess 5 or later", [r for r in rows if r["guess"] >= 5])
    for lo, hi in ((0, 100), (100, 200), (200, 400)):
        line(f"{lo}-{hi - 1} cells covered", [r for r in rows if lo <= r["covered"] < hi])
    line("400 or more cells covered", [r for r in rows if r["covered"] >= 400])


if __name__ == "__main__":
    main()
