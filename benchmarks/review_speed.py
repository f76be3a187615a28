"""How fast is a game review? Expert games played by ``best`` and the human expert videos in
tests/data/videos, then a folder of games with one and two processes, then a big custom game.

Run: python benchmarks/review_speed.py [--games 30] [--folder 100] [--big 36x60x540]

Printed: the median and worst review time per game with the share spent in the engine
(analyses, endgame searches, best moves), the folder's wall time with ``--jobs 1`` and
``--jobs 2`` (``demine review``), and the big game's review time and its estimated decisions
(the big game is played with lives, so it goes on to the end after a mine).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from demine.bench.play import GameSpec, play_game
from demine.bench.records import write_results
from demine.engine.formats import GameRecord
from demine.engine.grid import default_start
from demine.review import Review, review_game
from demine.review.video import video_game

VIDEOS = Path(__file__).resolve().parent.parent / "tests" / "data" / "videos"


def _games(width: int, height: int, mines: int, n: int, seed: str, lives: int = 0) -> list:  # type: ignore[type-arg]
    start = default_start(width, height, "zero")
    specs = [GameSpec(i, width, height, mines, "zero", start, f"{seed}/{i}", lives=lives) for i in range(n)]
    return [play_game(spec, "best", keep_record=True) for spec in specs]


def _timed(record: GameRecord, **kw: object) -> tuple[float, Review]:
    t0 = time.perf_counter()
    r = review_game(record, **kw)  # type: ignore[arg-type]
    return time.perf_counter() - t0, r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--folder", type=int, default=100)
    ap.add_argument("--big", default="36x60x540", help="WIDTHxHEIGHTxMINES of the big game")
    ns = ap.parse_args()

    results = _games(30, 16, 99, ns.games, "review")
    rows = [_timed(GameRecord.from_json(r.game)) for r in results]
    times = [t for t, _ in rows]
    share = sum(r.engine_seconds for _, r in rows) / sum(times)
    won = sum(r.outcome == "won" for _, r in rows)
    moves = statistics.median(len(r.decisions) for _, r in rows)
    print(
        f"best's expert games (zero rule, (3,3)), {len(rows)} ({won} won, median {moves:.0f} moves): review "
        f"median {statistics.median(times):.3f} s, worst {max(times):.3f} s, {share:.0%} in the engine"
    )
    for name in ("sweeping_view_test_subject.evf", "mstl_Zhang_Shen_Jia_Exp_38.82_3bv122.mvf"):
        t0 = time.perf_counter()
        rec, ts, fig = video_game(VIDEOS / name)
        parse = time.perf_counter() - t0
        t, r = _timed(rec, times=ts, clicks=fig["cl"], seconds=fig["rtime"])
        print(
            f"video {name}: parse {parse:.3f} s (child process), review {t:.3f} s, "
            f"{r.engine_seconds / t:.0%} in the engine"
        )

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        batch = _games(30, 16, 99, ns.folder, "review-folder")
        for k in range(0, len(batch), 10):
            write_results(folder / f"run{k:03d}.jsonl", "best", batch[k : k + 10])
        for jobs in (1, 2):
            t0 = time.perf_counter()
            cmd = [sys.executable, "-m", "demine", "review", str(folder), "--jobs", str(jobs), "--json"]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            wall = time.perf_counter() - t0
            print(f"folder of {len(batch)} expert games, demine review --jobs {jobs}: {wall:.1f} s")

    w, h, m = (int(x) for x in ns.big.split("x"))
    (big,) = _games(w, h, m, 1, "review-big", lives=100)  # played to the end, whatever it hits
    t, r = _timed(GameRecord.from_json(big.game))
    estimated = sum(1 for d in r.guesses if not d.exact)
    print(
        f"big game {w}x{h}/{m} ({r.bbbv} 3BV, {len(r.decisions)} moves, {r.outcome}, "
        f"{sum(d.hit_mine for d in r.decisions)} mines hit): review {t:.2f} s, "
        f"{len(r.guesses)} guesses of which {estimated} estimated, {r.engine_seconds / t:.0%} in the engine"
    )


if __name__ == "__main__":
    main()
