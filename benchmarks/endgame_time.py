"""How long each of ``best``'s endgame searches takes, search by search.

Run: python benchmarks/endgame_time.py [VARIANT ...] --games 300 --seed speed

The searches are bounded by a count of positions, not by time (so that a game plays the same on
any machine), and a decision waits for them whatever its time budget: the web game's best-guess
hint too. Per-game times (``variants.py``) hide how long one search can take; this script plays
the games with each variant (names as in ``variants.py``; default ``current``), one process, and
times every call of the exact search (``best.endgame``) and of the sampled one
(``best.sampled_endgame``) whose position is in its range of layouts. It prints the games won, the
time a game and, per search, the count, median, 90th percentile and longest time, and how many
gave up (past their node budget: the look-ahead then plays).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import demine.players.best as best
from boards import add_board_options, board_specs
from demine.bench import play_game
from variants import VARIANTS, _factory


def _in_range(kind: str, n: int | None) -> bool:
    """Whether a search of this kind runs (rather than returning at once) with ``n`` layouts."""
    return best.search_kind(n) == kind


def _timed(kind: str, search: Callable[..., Any], into: list[tuple[float, bool]]) -> Callable[..., Any]:
    """``search`` (``best.endgame`` or ``best.sampled_endgame``), appending to ``into`` the time in
    ms of each call that searched and whether it gave up."""

    def run(position: Any, a: Any) -> Any:
        t0 = time.perf_counter()
        found = search(position, a)
        if _in_range(kind, a.solutions):
            into.append((1000 * (time.perf_counter() - t0), found is None))
        return found

    return run


#: The table's columns and their widths.
HEADER = ("variant", "won", "ms/game", "search", "count", "median ms", "p90 ms", "max ms", "gave up")
ROW = "{:>12} {:>5} {:>8} {:>8} {:>6} {:>10} {:>8} {:>8} {:>8}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    # (not ``choices``: Python 3.11's argparse checks an empty ``nargs="*"`` against them and fails)
    ap.add_argument("variants", nargs="*", help="names as in variants.py (default: current)")
    add_board_options(ap, "speed")
    ns = ap.parse_args()
    unknown = [v for v in ns.variants if v not in VARIANTS]
    if unknown:
        ap.error(f"unknown variant {unknown[0]!r} (choose from {', '.join(sorted(VARIANTS))})")
    specs = board_specs(ns)
    originals = {"exact": best.endgame, "sampled": best.sampled_endgame}
    print(f"{ns.size} {ns.rule}, {ns.games} games (seed {ns.seed}), one process")
    print(ROW.format(*HEADER))
    for name in ns.variants or ["current"]:
        _factory(VARIANTS[name] or {})()  # sets best's constants for this variant
        # per kind of search: (ms, gave up) of each call that searched
        times: dict[str, list[tuple[float, bool]]] = {kind: [] for kind in originals}
        best.endgame = _timed("exact", originals["exact"], times["exact"])
        best.sampled_endgame = _timed("sampled", originals["sampled"], times["sampled"])
        try:
            t0 = time.perf_counter()
            won = sum(play_game(spec, "best").won for spec in specs)
            per_game = f"{1000 * (time.perf_counter() - t0) / len(specs):.1f}"
        finally:
            best.endgame, best.sampled_endgame = originals["exact"], originals["sampled"]
        for kind, rows in times.items():
            ms = sorted(t for t, _ in rows)
            spread = (statistics.median(ms), ms[int(0.9 * len(ms))], ms[-1]) if ms else (0.0, 0.0, 0.0)
            gave_up = sum(1 for _, g in rows if g)
            print(ROW.format(name, won, per_game, kind, len(ms), *(f"{t:.1f}" for t in spread), gave_up))


if __name__ == "__main__":
    main()
