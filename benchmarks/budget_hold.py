"""Do budgets hold? The time an analysis, a best guess and a web hint take against their ``Limit``.

Run: python benchmarks/budget_hold.py [--games 3]

Positions: two 100x100 boards of 1s and covered cells (one huge component, and many components
with huge counts: before 2026-11-25 the first spent 3 s ordering its boxes and the second 4.5 s in
convolutions under a 0.5 s budget) and 6 x ``--games`` guess points of seeded 100x100 games with
15% mines (``positions.guess_points``). For each: ``analyze`` with 0.5 s, ``best_move`` with the
web's 0.05 s given the analysis, and the web's whole hint (``hints``: 0.5 s analysis + 0.05 s best
guess). Printed: the worst and median time over each kind, and the worst as a multiple of its
budget, with the CPU time of that worst call (below its wall time when the process waited for a
core).
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from collections.abc import Callable

from demine import DemineError, Position, analyze, best_move
from demine.engine.position import COVERED
from demine.web.service import GUESS_LIMIT, HINT_LIMIT, hints
from positions import guess_points


def _grid(step_r: int, step_c: int, mines: int) -> Position:
    st = bytearray([COVERED]) * 10_000
    for r in range(0, 100, step_r):
        for c in range(0, 100, step_c):
            st[r * 100 + c] = 1
    return Position(100, 100, bytes(st), mines)


#: The CPU time of each call timed by :func:`_time`, by its wall time (to tell a slow step from
#: a process that waited for a core).
CPU: dict[float, float] = {}


def _time(fn: Callable[[], object]) -> float:
    t0, c0 = time.perf_counter(), time.process_time()
    with contextlib.suppress(DemineError):  # an impossible position is an answer too
        fn()
    wall = time.perf_counter() - t0
    CPU[wall] = time.process_time() - c0
    return wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=3)
    ns = ap.parse_args()
    positions = [
        _grid(2, 2, 2500),
        _grid(2, 3, 1200),
        *guess_points(6 * ns.games, seed="budget", size=(100, 100, 1500)),
    ]
    rows: dict[str, tuple[float, list[float]]] = {
        "analyze": (HINT_LIMIT.seconds or 0.0, []),
        "best_move": (GUESS_LIMIT.seconds or 0.0, []),
        "web hint": ((HINT_LIMIT.seconds or 0.0) + (GUESS_LIMIT.seconds or 0.0), []),
    }
    slow: list[tuple[float, str]] = []  # best_move's time and the kind of its move, per position
    for p in positions:
        rows["analyze"][1].append(_time(lambda p=p: analyze(p, limit=HINT_LIMIT)))  # type: ignore[misc]
        try:
            a = analyze(p, limit=HINT_LIMIT)
        except DemineError:
            a = None
        if a is not None and not a.safe:
            rows["best_move"][1].append(_time(lambda p=p, a=a: best_move(p, GUESS_LIMIT, analysis=a)))  # type: ignore[misc]
            slow.append((rows["best_move"][1][-1], best_move(p, GUESS_LIMIT, analysis=a).reason))
        rows["web hint"][1].append(_time(lambda p=p: hints(p)))  # type: ignore[misc]
    points = len(positions) - 2
    print(f"{len(positions)} positions (two 100x100 grids of 1s, {points} guess points of 100x100/1500)")
    for name, (budget, ts) in rows.items():
        worst = max(ts)
        print(
            f"  {name:>9}: budget {budget:.2f} s, median {statistics.median(ts):.3f} s, "
            f"worst {worst:.3f} s = {worst / budget:.2f} x the budget (n={len(ts)}; "
            f"that call's CPU time {CPU[worst]:.3f} s)"
        )
    print("  best_move's slowest: " + ", ".join(f"{t:.3f} s ({why})" for t, why in sorted(slow)[-3:]))


if __name__ == "__main__":
    main()
