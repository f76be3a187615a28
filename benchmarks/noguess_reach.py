"""Where guess-free boards stop being found within the web game's budget, per board size and
first-click rule: the data behind :func:`demine.analysis.noguess.no_guess_reach`.

Run: python benchmarks/noguess_reach.py [--sizes 9x9,16x16,30x16,24x24,40x40,60x60,100x100]
     [--rules safe,zero] [--seeds 3] [--budget 5] [--step 1] [--record FILE.jsonl] [--ship]

For each size and rule, the mine count climbs ``--step`` percent of the board's cells at a time from
``--start`` (a density every generator meets at once): at each count ``--seeds`` boards are asked
of ``no_guess_layout`` (the complete certificate, the ``auto`` mode, the first click in the middle,
the budget the web game gives a first click), and the climb stops after ``--stop`` counts in a
row where none was found. Each try is one line of ``--record`` (JSON), so a run that stops can be
resumed with the same command: the tries already made are not made again.

``--ship`` writes ``src/demine/analysis/noguess_reach.json`` from every try in the record: per
size and rule,
the most mines found below the first run of ``--stop`` counts where nothing was found
(``found``), and that run's first count and how far it goes (``refused``, ``refused_to``: to the
last count tried, or the last before a denser board was found again: past the climb, boards at
every tenth percent up to ``--spot-top`` are asked too, since a board crowded with mines has few
safe cells to certify). The web game refuses a no-guess board in that range at once
(:func:`~demine.analysis.noguess.check_no_guess_reach`).
The times depend on the machine and its load: the file says which, and when.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from demine import Limit
from demine.analysis.noguess import NoGuessTimeout, no_guess_layout

Tries = dict[tuple[str, str, int, int], dict[str, Any]]
"""The tries already made, by size, rule, mines and seed."""

SHIP = Path(__file__).resolve().parents[1] / "src" / "demine" / "analysis" / "noguess_reach.json"


def _size(text: str) -> tuple[int, int]:
    w, _, h = text.partition("x")
    return int(w), int(h)


def _try(w: int, h: int, m: int, rule: str, seed: int, budget: float) -> dict[str, object]:
    first = (h // 2) * w + w // 2
    t0 = time.perf_counter()
    try:
        board = no_guess_layout(w, h, m, rule, first, seed=f"reach/{seed}", limit=Limit(seconds=budget))
        found, mode = True, board.mode
    except NoGuessTimeout:
        found, mode = False, None
    return {
        "size": f"{w}x{h}",
        "rule": rule,
        "mines": m,
        "seed": seed,
        "budget": budget,
        "found": found,
        "mode": mode,
        "seconds": round(time.perf_counter() - t0, 3),
        "load": round(os.getloadavg()[0], 2),
    }


def _level(w: int, h: int, m: int, rule: str, ns: argparse.Namespace, done: Tries) -> list[dict[str, object]]:
    """The tries at one mine count (made, or read from the record), printed in a line."""
    level = []
    for seed in range(ns.seeds):
        key = (f"{w}x{h}", rule, m, seed)
        row = done.get(key)
        if row is None:
            row = _try(w, h, m, rule, seed, ns.budget)
            if ns.record:
                with open(ns.record, "a", encoding="utf-8") as f:
                    f.write(json.dumps(row) + "\n")
        level.append(row)
    hits = sum(bool(r["found"]) for r in level)
    secs = statistics.median(float(r["seconds"]) for r in level)  # type: ignore[arg-type]
    share = 100 * m / (w * h)
    print(f"{w}x{h} {rule:4} {m:5} mines ({share:4.1f}%): {hits}/{ns.seeds} found, median {secs:.2f} s")
    sys.stdout.flush()
    return level


def climb(w: int, h: int, rule: str, ns: argparse.Namespace, done: Tries) -> list[dict[str, object]]:
    """The tries of one size and rule, made (or read from the record) in climbing order."""
    cells = w * h
    step = max(1, round(cells * ns.step / 100))
    m = max(1, math.ceil(cells * ns.start / 100))
    misses, rows = 0, []
    while misses < ns.stop and m <= cells - 9:
        level = _level(w, h, m, rule, ns, done)
        rows += level
        hits = sum(bool(r["found"]) for r in level)
        misses = 0 if hits else misses + 1
        m += step
    # past the climb, a few denser boards: a board crowded with mines may be found again (its
    # few safe cells are quick to certify), and nothing is refused where that was not looked at
    spot = 10 * (math.floor(100 * (m - step) / cells / 10) + 1)
    while misses >= ns.stop and spot <= ns.spot_top:
        rows += _level(w, h, math.ceil(cells * spot / 100), rule, ns, done)
        spot += 10
    return rows


def ship(rows: list[dict[str, object]], ns: argparse.Namespace) -> dict[str, object]:
    """The shipped table from the tries (see the module's docstring)."""
    table: dict[str, dict[str, dict[str, object]]] = {}
    keys = sorted({(str(r["size"]), str(r["rule"])) for r in rows})
    for size, rule in keys:
        mine = [r for r in rows if r["size"] == size and r["rule"] == rule]
        counts = sorted({int(r["mines"]) for r in mine})  # type: ignore[call-overload]
        hit = {m for m in counts if any(r["found"] for r in mine if r["mines"] == m)}
        # the first run of at least --stop counts in a row where nothing was found, and how far
        # it goes (to the next count where a board was found again, or the last one tried)
        run: list[int] = []
        for m in counts:
            if m in hit:
                if len(run) >= ns.stop:
                    break
                run = []
            else:
                run.append(m)
        if len(run) < ns.stop:  # boards were found all the way: nothing is refused on this size
            row = {"found": max(hit, default=0), "refused": None, "refused_to": None}
            table.setdefault(size, {})[rule] = row
            continue
        found = max((m for m in hit if m < run[0]), default=0)
        table.setdefault(size, {})[rule] = {"found": found, "refused": run[0], "refused_to": run[-1]}
    loads = [float(r["load"]) for r in rows]  # type: ignore[arg-type]
    return {
        "about": (
            "Guess-free boards found within the budget: per size (WxH) and first-click rule, the most "
            "mines any try found and the fewest mines from which no try found one "
            "(benchmarks/noguess_reach.py; the complete certificate, the auto mode, the first click "
            "in the middle)."
        ),
        "budget_seconds": ns.budget,
        "seeds": ns.seeds,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "load": f"{min(loads):.1f}-{max(loads):.1f}",
        "date": time.strftime("%Y-%m-%d"),
        "sizes": table,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="9x9,16x16,30x16,24x24,40x40,60x60,100x100")
    ap.add_argument("--rules", default="safe,zero")
    ap.add_argument("--seeds", type=int, default=3, help="boards asked at each mine count")
    ap.add_argument("--budget", type=float, default=5.0, help="seconds a board (the web's first click)")
    ap.add_argument("--start", type=float, default=12.0, help="the first density tried, percent")
    ap.add_argument("--step", type=float, default=1.0, help="the climb's step, %% of the cells")
    ap.add_argument("--stop", type=int, default=2, help="counts in a row with nothing found that end a climb")
    ap.add_argument("--spot-top", type=float, default=90.0, help="the densest try past a climb, %%")
    ap.add_argument("--record", help="a JSON-lines file of every try (resumable)")
    ap.add_argument(
        "--ship",
        nargs="?",
        const=str(SHIP),
        help="write the shipped table from the record (to FILE: elsewhere)",
    )
    ns = ap.parse_args()
    done: Tries = {}
    if ns.record and os.path.exists(ns.record):
        with open(ns.record, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                if r["budget"] == ns.budget:
                    done[(r["size"], r["rule"], r["mines"], r["seed"])] = r
    rows: list[dict[str, object]] = []
    for text in ns.sizes.split(","):
        w, h = _size(text)
        for rule in ns.rules.split(","):
            rows += climb(w, h, rule, ns, done)
    if ns.ship:  # (from every try of the record at this budget, whatever climb made it)
        every = {**done, **{(r["size"], r["rule"], r["mines"], r["seed"]): r for r in rows}}
        data = ship(list(every.values()), ns)
        Path(ns.ship).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {ns.ship}")


if __name__ == "__main__":
    main()
