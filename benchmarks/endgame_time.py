"""How long each of ``best``'s endgame searches takes, search by search.

Run: python benchmarks/endgame_time.py [VARIANT ...] --games 300 --seed speed

The searches are bounded by a count of positions, not by time (so that a game plays the same on
any machine), and a decision waits for them whatever its time budget: the web game's best-guess
hint too. Per-game times (``variants.py``) hide how long one search can take; this script plays
the games with each variant (names as in ``variants.py``; default ``current``), one process, and
times every exact and sampled search that runs (through ``Hooks.on_search``). It prints the games
won, the time a game and, per search, the count, median, 90th percentile and longest time, and
how many gave up (past their node budget: the look-ahead then plays).
"""

from __future__ import annotations

import argparse
import statistics
import time

from boards import add_board_options, board_specs
from demine import BestMove, Hooks, PlayerSpec
from demine.bench import GameSpec, play_game
from demine.errors import DemineError
from variants import variant_spec

#: The table's columns and their widths.
HEADER = ("variant", "won", "ms/game", "search", "count", "median ms", "p90 ms", "max ms", "gave up")
ROW = "{:>12} {:>5} {:>8} {:>8} {:>6} {:>10} {:>8} {:>8} {:>8}"


def timed_games(player: PlayerSpec, specs: list[GameSpec], times: dict[str, list[tuple[float, bool]]]) -> int:
    """Play ``specs`` with ``player`` (``best`` in some settings), appending (ms, gave up) of each
    search to ``times[kind]``; the games won."""

    def on_search(kind: str, seconds: float, found: BestMove | None) -> None:
        times[kind].append((1000 * seconds, found is None))

    watched = PlayerSpec(player.name, player.settings, hooks=Hooks(on_search=on_search))
    return sum(play_game(spec, watched).won for spec in specs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    # (not ``choices``: Python 3.11's argparse checks an empty ``nargs="*"`` against them and fails)
    ap.add_argument("variants", nargs="*", help="names as in variants.py (default: current)")
    add_board_options(ap, "speed")
    ns = ap.parse_args()
    try:
        players = {name: variant_spec(name) for name in ns.variants or ["current"]}
    except DemineError as e:
        ap.error(str(e))
    if any(p.name != "best" for p in players.values()):
        ap.error("the variants are of best (not the exact player)")
    specs = board_specs(ns)
    print(f"{ns.size} {ns.rule}, {ns.games} games (seed {ns.seed}), one process")
    print(ROW.format(*HEADER))
    for name, player in players.items():
        # per kind of search: (ms, gave up) of each search that ran
        times: dict[str, list[tuple[float, bool]]] = {"exact": [], "sampled": []}
        t0 = time.perf_counter()
        won = timed_games(player, specs, times)
        per_game = f"{1000 * (time.perf_counter() - t0) / len(specs):.1f}"
        for kind, rows in times.items():
            ms = sorted(t for t, _ in rows)
            spread = (statistics.median(ms), ms[int(0.9 * len(ms))], ms[-1]) if ms else (0.0, 0.0, 0.0)
            gave_up = sum(1 for _, g in rows if g)
            print(ROW.format(name, won, per_game, kind, len(ms), *(f"{t:.1f}" for t in spread), gave_up))


if __name__ == "__main__":
    main()
