"""The games file under churn: N games created (and played a little), then expired.

Run: python benchmarks/store_size.py [--games 100000] [--moves 20]

Games are made through the web service (expert, zero rule, each given ``--moves`` moves: the first
click and flags) into a fresh SQLite file; the file's size is read when they are all in, then
after every game has expired (their idle time set to pass) and the space was given back. Printed:
sizes, bytes per stored game, and the time taken.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from demine.web.limits import ServeLimits
from demine.web.service import Service
from demine.web.store import Store


def _file_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--moves", type=int, default=20)
    ns = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "games.db"
        limits = ServeLimits(games_per_client=ns.games + 1, idle_expiry=1000.0, max_db_bytes=None)
        svc = Service(Store(path), limits=limits)
        t0 = time.perf_counter()

        async def play(gid: str) -> None:
            await svc.move(gid, "reveal", 3, 3)
            for i in range(ns.moves - 1):
                await svc.move(gid, "flag", 15, 29 - (i % 2))

        for i in range(ns.games):
            gid = svc.new_game(preset="expert", rule="zero", seed=i, client="bench", now=float(i) / 1e6)["id"]
            asyncio.run(play(gid))
        made = time.perf_counter() - t0
        svc.store.compact()
        full = _file_bytes(path)
        per = full / ns.games
        print(
            f"{ns.games} games, {ns.moves} moves each, {made:.1f} s: {full / 1e6:.1f} MB, {per:.0f} B a game"
        )
        t1 = time.perf_counter()
        gone = svc.store.expire(now=time.time() + 2000.0, idle=1000.0, age=1000.0)
        svc.store.compact()
        empty = _file_bytes(path)
        took = time.perf_counter() - t1
        print(f"expired {len(gone)} in {took:.1f} s; file {empty / 1e6:.2f} MB after (space given back)")
        svc.close()


if __name__ == "__main__":
    main()
