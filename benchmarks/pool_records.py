"""Pool the records of one player's runs on other seeds into one win rate and its 95% interval.

Run: python benchmarks/pool_records.py R1.jsonl R2.jsonl ... [--json]

Each file is ``demine bench --record`` output (or ``--resume``, once it is complete). Runs on other
seeds play other boards, so their games add up: the pooled rate is all their wins over all their
games, with the Wilson interval of those counts. The files must hold one player each (the same
in all, settings included) on the same board, rule, start and options, each with its own seed;
a file that differs is refused, naming what differs (docs/big-runs.md, "Pool seeds").
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from demine.bench import wilson
from demine.bench.records import read_records, run_differences
from demine.errors import FormatError


def pooled(paths: list[Path]) -> dict[str, Any]:
    """Each file's run and counts, and the pool's (``SystemExit`` naming a file that does not fit)."""
    first: tuple[str, dict[str, Any], Path] | None = None
    seeds: dict[str, Path] = {}
    runs = []
    for path in paths:
        try:
            lines = read_records(path)
        except FormatError as e:
            raise SystemExit(str(e)) from None
        if not lines:
            raise SystemExit(f"{path}: no games in it")
        games: set[int] = set()
        wins, ms = 0, 0.0
        for line in lines:
            run = line.extra.get("run")
            where = f"{path}: line {line.line}"
            if not isinstance(run, dict) or line.player is None:
                raise SystemExit(f"{where}: no player or run on it (a record older than the run key)")
            if first is None:
                first = (line.player, run, path)
            player, run0, path0 = first
            if line.player != player:
                raise SystemExit(f"{where}: a game of {line.player}, and {path0} holds {player}'s")
            diff = run_differences({**run, "seed": None}, {**run0, "seed": None})
            if diff:
                raise SystemExit(
                    f"{where}: another run than {path0}'s: " + "; ".join(diff).replace("this run", path0.name)
                )
            if run["seed"] != lines[0].extra["run"]["seed"]:
                raise SystemExit(f"{where}: seed {run['seed']!r}, and line 1 of the file has another")
            if line.result.index in games:
                raise SystemExit(f"{where}: game {line.result.index} again")
            games.add(line.result.index)
            wins += line.result.won
            ms += line.result.ms
        seed = lines[0].extra["run"]["seed"]
        if seed in seeds:
            raise SystemExit(f"{path} and {seeds[seed]} are both seed {seed!r}: the same boards twice")
        seeds[seed] = path
        runs.append({"file": str(path), "seed": seed, "games": len(games), "wins": wins, "ms": ms})
    assert first is not None
    wins = sum(r["wins"] for r in runs)
    games = sum(r["games"] for r in runs)
    lo, hi = wilson(wins, games)
    return {
        "player": first[0],
        "run": {k: v for k, v in first[1].items() if k != "seed"},
        "runs": [{k: v for k, v in r.items() if k != "ms"} for r in runs],
        "games": games,
        "wins": wins,
        "win_rate": wins / games,
        "ci95": [lo, hi],
        "ms_per_game": sum(r["ms"] for r in runs) / games,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("records", type=Path, nargs="+", help="record files, one run (one seed) each")
    ap.add_argument("--json", action="store_true", help="print the pool as JSON")
    ns = ap.parse_args()
    pool = pooled(ns.records)
    if ns.json:
        print(json.dumps(pool))
        return
    run = pool["run"]
    print(f"{pool['player']} on {run['board']}, rule {run['rule']}, start ({run['start']}):")
    for r in pool["runs"]:
        rate = 100 * r["wins"] / r["games"]
        print(f"  seed {r['seed']}: {r['wins']:,}/{r['games']:,} = {rate:.2f}%  ({r['file']})")
    lo, hi = pool["ci95"]
    print(
        f"pooled: {pool['wins']:,}/{pool['games']:,} = {100 * pool['win_rate']:.2f}% "
        f"(95% CI {100 * lo:.2f}-{100 * hi:.2f}%), {pool['ms_per_game']:.1f} ms/game"
    )


if __name__ == "__main__":
    main()
