"""A player's speed at two commits, measured in the same minutes (the machine is shared and noisy).

Run: python benchmarks/speed_compare.py --base REV [--players fast,best] [--games 300] [--rounds 2]

The commit ``--base`` is checked out into a temporary git worktree; then, for each round and each
player, the same expert games (safe rule, start (0,0), ``--seed``) are played in one process with
the base's code and with this checkout's code, alternately. Printed: each run's wins and ms/game,
and per player the ratio of the medians (this checkout / base). The wins must agree when the
change is meant to be speed only.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN = """
from demine.bench import generated_specs, bench
s, _ = bench({player!r}, generated_specs(30, 16, 99, "safe", None, {games}, {seed!r}), jobs=1)
print(s.wins, s.ms_per_game)
"""


def _play(src: Path, player: str, games: int, seed: str) -> tuple[int, float]:
    code = RUN.format(player=player, games=games, seed=seed)
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": str(src)},
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or [f"exit status {out.returncode}"])[-1]
        raise SystemExit(f"{player} at {src}: {last}")
    wins, ms = out.stdout.split()
    return int(wins), float(ms)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, help="the commit to compare against")
    ap.add_argument("--players", default="fast,best")
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--seed", default="speed")
    ap.add_argument("--rounds", type=int, default=2)
    ns = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "base"
        made = subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), ns.base],
            capture_output=True,
            text=True,
            check=False,
        )
        if made.returncode != 0:
            raise SystemExit(f"--base {ns.base}: {made.stderr.strip()}")
        try:
            times: dict[tuple[str, str], list[float]] = {}
            for r in range(ns.rounds):
                for player in ns.players.split(","):
                    for name, src in (("base", tree / "src"), ("this", ROOT / "src")):
                        wins, ms = _play(src, player, ns.games, ns.seed)
                        times.setdefault((player, name), []).append(ms)
                        print(f"round {r + 1} {player:5} {name}: {wins} won, {ms:.1f} ms/game", flush=True)
            for player in ns.players.split(","):
                base = statistics.median(times[(player, "base")])
                this = statistics.median(times[(player, "this")])
                print(f"{player}: median {this:.1f} against {base:.1f} ms/game, ratio {this / base:.2f}")
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)


if __name__ == "__main__":
    main()
