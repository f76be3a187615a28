"""Every player on boards off the presets: does any game crash, and how long does the slowest take?

Run: python benchmarks/any_board.py [--players best,fast,...] [--games 2] [--sides 5,8,16,30,40,60,100]
     [--densities 0.05,0.15,0.25]

Square-ish boards of each side (5x5 ... 100x100; the 30 is expert's 30x16), each density, both
first-click rules, ``--games`` seeded games each (seed ``any/SIDE``), one process. Prints one line
per player: games played, games that raised an error (each named on its own line, with the
command that replays it), and the slowest game. Players with a time budget run with their default
one, as ``demine bench`` does. Exit status 1 when any game failed.
"""

from __future__ import annotations

import argparse
import sys
import time

from demine.bench import generated_specs, play_game
from demine.players import available_solvers


def _board(side: int) -> tuple[int, int]:
    return (30, 16) if side == 30 else (side, side)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", default=",".join(available_solvers()))
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--sides", default="5,8,16,30,40,60,100")
    ap.add_argument("--densities", default="0.05,0.15,0.25")
    ns = ap.parse_args()
    sides = [int(x) for x in ns.sides.split(",")]
    densities = [float(x) for x in ns.densities.split(",")]
    failed = 0
    for player in ns.players.split(","):
        played, errors, slowest = 0, 0, (0.0, "")
        t_all = time.perf_counter()
        for side in sides:
            w, h = _board(side)
            for density in densities:
                for rule in ("safe", "zero"):
                    mines = max(1, round(w * h * density))
                    if rule == "zero" and mines > w * h - 9:
                        continue
                    for spec in generated_specs(w, h, mines, rule, None, ns.games, f"any/{side}"):
                        t0 = time.perf_counter()
                        try:
                            play_game(spec, player)
                        except Exception as e:  # the point of the sweep: report, go on
                            errors += 1
                            where = f"{player} {w}x{h}x{mines} {rule} game {spec.index}"
                            print(
                                f"  {where}: {type(e).__name__}: {e}\n"
                                f"    demine bench --size {w}x{h}x{mines} --rule {rule} --player {player} "
                                f"--seed any/{side} --games {spec.index + 1}",
                                flush=True,
                            )
                        dt = time.perf_counter() - t0
                        played += 1
                        if dt > slowest[0]:
                            slowest = (dt, f"{w}x{h}x{mines} {rule} game {spec.index}")
        failed += errors
        total = time.perf_counter() - t_all
        print(
            f"{player}: {played} games, {errors} failed, {total:.1f} s in all, "
            f"slowest {slowest[0]:.2f} s ({slowest[1]})",
            flush=True,
        )
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
