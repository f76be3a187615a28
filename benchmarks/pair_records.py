"""Pair two record files of the same boards (two versions of a player, say) game by game.

Run: python benchmarks/pair_records.py BEFORE.jsonl AFTER.jsonl [--same-moves]

Both files are ``demine bench --record`` output for the same preset, rule and seed (so game ``i``
is the same layout in both). Prints the wins of each, the boards only one of them won and the
two-sided sign test. With ``--same-moves`` (files written with ``--record-moves``) it also checks
that every game has the same moves in both, and exits with status 1 naming the first game that
differs: the proof that a change meant to keep behaviour kept it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from demine.bench import GameResult, paired
from demine.bench.records import read_records
from demine.errors import FormatError


def _games(path: Path) -> dict[int, GameResult]:
    try:
        return {line.result.index: line.result for line in read_records(path)}
    except FormatError as e:
        raise SystemExit(str(e)) from None


def _moves(result: GameResult) -> list[tuple[str, int, int]] | None:
    if result.game is None:
        return None
    return [(m[0], m[1], m[2]) for m in result.game["moves"]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--same-moves", action="store_true", help="check every game's moves are the same")
    ns = ap.parse_args()
    a, b = _games(ns.before), _games(ns.after)
    common = sorted(a.keys() & b.keys())
    if not common:
        raise SystemExit("the two files share no game index")
    x, y = str(ns.before), str(ns.after)
    pr = paired(x, [a[i] for i in common], y, [b[i] for i in common])
    n = pr.games
    rate_a, rate_b = 100 * pr.wins_a / n, 100 * pr.wins_b / n
    print(f"{n} games in both: {x} {pr.wins_a} ({rate_a:.2f}%), {y} {pr.wins_b} ({rate_b:.2f}%)")
    print(f"only {x}: {pr.only_a}, only {y}: {pr.only_b}, sign test p = {pr.p_value:.4g}")
    if ns.same_moves:
        moves = 0
        for i in common:
            ma, mb = _moves(a[i]), _moves(b[i])
            if ma is None or mb is None:
                raise SystemExit(f"game {i}: no moves in the records (record with --record-moves)")
            if ma != mb:
                k = next(
                    (k for k, (p, q) in enumerate(zip(ma, mb, strict=False)) if p != q), min(len(ma), len(mb))
                )
                print(f"game {i}: the moves differ from move {k} on", file=sys.stderr)
                sys.exit(1)
            moves += len(ma)
        print(f"same moves: all {n} games, {moves} moves")


if __name__ == "__main__":
    main()
