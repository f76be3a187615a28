"""Speed of the exact analysis on four position sets, with ms-toollib beside it.

Run: python benchmarks/bench_analyze.py [--guess N] [--recipes N] [--repeat R] [--no-mstl]

Each position is analysed once to warm up, then ``repeat`` times; a position's time is the
minimum of its repeats (the least disturbed by other load on a shared machine). Per set it prints
the median and max over positions, and the ratio of medians against ms-toollib where compared.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from demine.analysis import Limit, analyze
from demine.engine.position import Position
from positions import guess_points, random_recipe, speed_board, to_ms_toollib


def timed(fn: Callable[[], object], repeat: int) -> float:
    fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def run_set(name: str, positions: list[Position], repeat: int, mstl: bool) -> dict[str, object]:
    ours = []
    approx = 0
    for p in positions:
        ours.append(timed(lambda p=p: analyze(p), repeat))
        approx += analyze(p).approximate
    row: dict[str, object] = {
        "set": name,
        "n": len(positions),
        "median_ms": statistics.median(ours) * 1000,
        "max_ms": max(ours) * 1000,
        "approximate": approx,
    }
    if mstl:
        import ms_toollib

        theirs = []
        for p in positions:
            board = to_ms_toollib(p)
            mines = float(p.mines or 0)
            theirs.append(timed(lambda b=board, m=mines: ms_toollib.cal_probability_onboard(b, m), repeat))
        row["mstl_median_ms"] = statistics.median(theirs) * 1000
        row["mstl_max_ms"] = max(theirs) * 1000
        row["ratio_of_medians"] = statistics.median(theirs) / statistics.median(ours)
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--guess", type=int, default=120, help="guess-point positions (expert)")
    ap.add_argument("--recipes", type=int, default=10, help="random-recipe positions per size")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-mstl", action="store_true", help="skip ms-toollib")
    ns = ap.parse_args()
    try:
        import ms_toollib  # noqa: F401

        have_mstl = not ns.no_mstl
    except ImportError:
        have_mstl = False
        print("ms_toollib not installed (pip install ms_toollib): demine only", file=sys.stderr)
    print(f"python {sys.version.split()[0]}, Limit default {Limit()}")
    t0 = time.perf_counter()
    sets = [
        ("guess points, expert", guess_points(ns.guess), have_mstl),
        ("mstl_speed_board1_21x10", [speed_board()], have_mstl),
        (
            "30x16/130, 35% revealed, 30% flagged",
            [random_recipe(30, 16, 130, s) for s in range(ns.recipes)],
            False,
        ),
        (
            "50x50/500, 35% revealed, 30% flagged",
            [random_recipe(50, 50, 500, s) for s in range(ns.recipes)],
            False,
        ),
    ]
    print(f"(generated the positions in {time.perf_counter() - t0:.1f} s)")
    for name, positions, mstl in sets:
        row = run_set(name, positions, ns.repeat if len(positions) > 1 else max(ns.repeat, 10), mstl)
        line = (
            f"{row['set']:<40} n={row['n']:<4} median {row['median_ms']:9.3f} ms  max {row['max_ms']:9.3f} ms"
            f"  approximate {row['approximate']}"
        )
        if "mstl_median_ms" in row:
            line += (
                f"  | ms-toollib median {row['mstl_median_ms']:8.3f} ms max {row['mstl_max_ms']:8.3f} ms"
                f"  ratio (mstl/demine) {row['ratio_of_medians']:.2f}"
            )
        print(line, flush=True)


if __name__ == "__main__":
    main()
