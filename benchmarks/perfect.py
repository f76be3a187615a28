"""How far a player is from perfect play, exactly, on boards small enough to enumerate.

Run: python benchmarks/perfect.py [VARIANT ...] --size 5x4x4 [--rule safe] [--start R,C] [--jobs 2]

Every layout the rule allows is enumerated (``safe``: no mine on the start cell; ``zero``: nor
on its neighbours), each as likely as any other, as in a real game. Then:

- **Perfect play**: its chance to win is the value of the exact game tree over all of them
  (``best``'s endgame search, run without its limits from the first click on).
- **The player** (``best``, or its variants named as in ``variants.py``) plays every
  layout once, so its win rate is exact too: no sampling, no confidence interval.
- **Where it loses**: at each of the player's guesses the script finds the layouts still
  consistent with what the player sees, and what its move gives away: the best move's chance to
  win minus the chance after the move played (both exact). Divided by the number of layouts,
  these losses add up to the whole gap between perfect play and the player (the performance
  difference identity); the script checks that they do, then prints them by the player's reason
  and by how many layouts were left.

The search's time and memory grow fast with the board: 6x4 with 4 mines (8855 layouts under
``safe``) takes seconds.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import math
import multiprocessing
import random
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import demine.players.best as best
from demine import PlayerSpec
from demine.engine.game import Game
from demine.engine.grid import RULES, Geometry, default_start, mine_cells_allowed, parse_cell, parse_size
from demine.engine.position import COVERED, FLAG, Position
from demine.errors import DemineError
from variants import NO_ENDGAME, variant_spec

RANGES = (1, 10, 100, 1000, 10_000, 100_000, 10**9)


def count_layouts(geo: Geometry, mines: int, rule: str, start: int) -> int:
    """How many layouts the rule allows."""
    return math.comb(len(mine_cells_allowed(geo, rule, start)), mines)


def layouts(geo: Geometry, mines: int, rule: str, start: int) -> list[frozenset[int]]:
    """Every layout the rule allows, in a fixed order."""
    return [frozenset(m) for m in itertools.combinations(mine_cells_allowed(geo, rule, start), mines)]


class DigestMemo(dict[bytes, float]):
    """The search's memo keyed by a 128-bit digest of each set of layouts instead of the set.

    The search keys its memo by the bitset of the layouts left, an integer as long as all the
    layouts (5 KB each with 42,504 of them): millions of them do not fit in memory. A BLAKE2b
    digest takes 16 bytes; two sets would share one with a chance of about 2^-128 per pair."""

    @staticmethod
    def _key(S: int) -> bytes:
        return hashlib.blake2b(S.to_bytes((S.bit_length() + 7) // 8, "little"), digest_size=16).digest()

    def get(self, S: Any, default: Any = None) -> Any:  # type: ignore[override]
        return dict.get(self, self._key(S), default)

    def __setitem__(self, S: Any, value: float) -> None:  # type: ignore[override]
        dict.__setitem__(self, self._key(S), value)


def search_over(geo: Geometry, lays: list[frozenset[int]]) -> best.Endgame:
    """The exact game tree over ``lays`` from an all-covered board (revealed cells add nothing
    later), with the digest memo and no limit on its positions."""
    # no node limit here (the player's own searches keep theirs)
    search = best.Endgame.of(Position.covered(geo.width, geo.height), lays, nodes=10**18)
    search.memo = DigestMemo()
    return search


def band(n: int) -> str:
    for lo, hi in itertools.pairwise(RANGES):
        if lo <= n < hi:
            return f"{lo}-{hi - 1}" if hi < 10**9 else f"{lo}+"
    return "?"


@dataclass
class Tally:
    """What a player did over a share of the layouts."""

    wins: int = 0
    lost_by_reason: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    guesses_by_reason: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    lost_by_band: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    guesses_by_band: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    costly: dict[str, tuple[float, int, str]] = field(default_factory=dict)  # position: loss, layouts, reason

    def add(self, other: Tally) -> None:
        self.wins += other.wins
        for mine, theirs in (
            (self.lost_by_reason, other.lost_by_reason),
            (self.guesses_by_reason, other.guesses_by_reason),
            (self.lost_by_band, other.lost_by_band),
            (self.guesses_by_band, other.guesses_by_band),
        ):
            for k, v in theirs.items():
                mine[k] += v  # type: ignore[operator]
        self.costly.update(other.costly)


# set in the parent before the workers fork, so they share the search's memo
_JOB: dict[str, Any] = {}


def _play(indices: range) -> Tally:
    search: best.Endgame = _JOB["search"]
    lays: list[frozenset[int]] = _JOB["lays"]
    geo: Geometry = _JOB["geo"]
    rule, start = _JOB["rule"], _JOB["start"]
    player = _JOB["player"].make()
    everything = (1 << len(lays)) - 1
    t = Tally()
    for i in indices:
        game = Game.from_layout(geo.width, geo.height, sorted(lays[i]), rule=rule)
        game.reveal(start)
        rng = random.Random(f"perfect/{i}")
        while not game.over:
            position = game.position()
            decision = player.decide(position, rng)
            reveal = next((mv for mv in decision.moves if mv.kind == "reveal"), None)
            if decision.guess and reveal is not None:
                S = everything
                for c, v in enumerate(position.states):
                    if v != COVERED and v != FLAG:
                        S &= search.shows[c][v]
                n = S.bit_count()
                loss = search.win(S) - search.value(reveal.cell, S, n)
                k = band(n)
                t.guesses_by_reason[decision.reason] += 1
                t.guesses_by_band[k] += 1
                if loss > 1e-12:
                    t.lost_by_reason[decision.reason] += loss
                    t.lost_by_band[k] += loss
                    t.costly[position.to_text()] = (loss, n, decision.reason)
            for mv in decision.moves:
                game.play(mv)
                if game.over:
                    break
        t.wins += game.won
    return t


def perfect_play(geo: Geometry, lays: list[frozenset[int]]) -> tuple[best.Endgame, float]:
    """The search over every layout, and perfect play's chance to win from the first click."""
    search = search_over(geo, lays)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    return search, search.win((1 << len(lays)) - 1)


def play_all(
    search: best.Endgame,
    lays: list[frozenset[int]],
    geo: Geometry,
    rule: str,
    start: int,
    player: PlayerSpec,
    jobs: int = 1,
) -> Tally:
    """The player (a variant of ``best``, say) plays every layout once."""
    _JOB.update(search=search, lays=lays, geo=geo, rule=rule, start=start, player=player)
    if jobs <= 1:
        return _play(range(len(lays)))
    tally = Tally()
    chunks = [range(i, len(lays), jobs * 8) for i in range(jobs * 8)]
    with multiprocessing.get_context("fork").Pool(jobs) as pool:  # the workers share the memo
        for part in pool.imap_unordered(_play, chunks):
            tally.add(part)
    return tally


def report(name: str, t: Tally, total: int, perfect: float, seconds: float) -> None:
    rate = t.wins / total
    print(
        f"\n{name}: {t.wins:,} / {total:,} = {rate:.4%} ({seconds:.0f} s); "
        f"perfect play wins {perfect - rate:+.4%} more",
        flush=True,
    )
    summed = sum(t.lost_by_reason.values()) / total
    print(f"  losses summed over its guesses: {summed:.4%} (the gap, by the identity)")
    if abs(summed - (perfect - rate)) > 1e-9:
        print("  warning: the summed losses do not match the gap", file=sys.stderr)
    print("  by reason: guesses, win rate given away")
    for reason in sorted(t.guesses_by_reason, key=lambda r: -t.lost_by_reason[r]):
        print(f"    {reason:16} {t.guesses_by_reason[reason]:8,} {t.lost_by_reason[reason] / total:9.4%}")
    print("  by layouts left at the guess: guesses, win rate given away")
    for lo, _ in itertools.pairwise(RANGES):
        k = band(lo)
        if t.guesses_by_band[k]:
            print(f"    {k:16} {t.guesses_by_band[k]:8,} {t.lost_by_band[k] / total:9.4%}")
    print("  the costliest positions (share of all games given away = loss x layouts / all layouts):")
    for text, (loss, n, reason) in sorted(t.costly.items(), key=lambda kv: -kv[1][0] * kv[1][1])[:3]:
        print(
            f"  - {reason}, {n} layouts, the move gives away {loss:.4f}: {loss * n / total:.4%} of all games"
        )
        print("    " + text.strip().replace("\n", "\n    "))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "variants",
        nargs="*",
        metavar="VARIANT",
        help="variants of best, as in variants.py: a name or NAME=VALUE[,NAME=VALUE] (default: current)",
    )
    ap.add_argument("--size", default="5x4x4", help="WxHxM or a preset (default: 5x4x4)")
    ap.add_argument("--rule", default="safe", choices=[r for r in RULES if r != "none"])
    ap.add_argument("--start", help="ROW,COL of the first click (default: the rule's usual one)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument(
        "--look-ahead-only",
        action="store_true",
        help="every variant without its endgame searches: the look-ahead plays every guess",
    )
    ap.add_argument("--max-layouts", type=int, default=50_000, help="refuse boards with more layouts")
    ns = ap.parse_args()
    try:
        w, h, m = parse_size(ns.size, ns.rule)
        geo = Geometry(w, h)
        start = parse_cell(ns.start, w, h) if ns.start else default_start(w, h, ns.rule)
    except (DemineError, ValueError) as e:
        raise SystemExit(f"perfect.py: {e}") from None
    names = ns.variants or ["current"]
    try:
        players = {name: variant_spec(name) for name in names}
    except DemineError as e:
        raise SystemExit(f"perfect.py: {e}") from None
    if any(p.name != "best" for p in players.values()):
        raise SystemExit("perfect.py: the variants are of best (not the exact player)")
    total = count_layouts(geo, m, ns.rule, start)
    if not total:
        raise SystemExit("perfect.py: the rule leaves no room for the mines")
    if total > ns.max_layouts:
        raise SystemExit(f"perfect.py: {total:,} layouts, more than --max-layouts {ns.max_layouts:,}")
    lays = layouts(geo, m, ns.rule, start)
    print(f"{w}x{h}/{m}, rule {ns.rule}, start {divmod(start, w)}: {total:,} layouts", flush=True)

    t0 = time.perf_counter()
    search, perfect = perfect_play(geo, lays)
    print(
        f"perfect play: {perfect:.4%} ({len(search.memo):,} positions, {time.perf_counter() - t0:.0f} s)",
        flush=True,
    )
    for name, player in players.items():
        if ns.look_ahead_only:
            player = PlayerSpec("best", player.settings.replace(**NO_ENDGAME))
        t0 = time.perf_counter()
        tally = play_all(search, lays, geo, ns.rule, start, player, ns.jobs)
        report(
            name + (" (look-ahead only)" if ns.look_ahead_only else ""),
            tally,
            total,
            perfect,
            time.perf_counter() - t0,
        )


if __name__ == "__main__":
    main()
