"""Guess-free boards of one mode from two source trees, alternated board by board in one run:
their times and whether they made the same boards (a change meant to keep the boards proves it
here).

Run: python benchmarks/noguess_compare.py --base-src DIR [--size 30x16x200] [--boards 20]
     [--rule zero] [--mode dense]

``--base-src`` is another tree's ``src`` (for example ``git archive REV src | tar -x -C /tmp/base``;
it runs as pure Python unless it holds compiled modules); this tree runs as installed. Each tree
plays in a child process of its own, fed one seed at a time (``bench/0``, ``bench/1``, ...), first
click at (3,3), the complete certificate.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = """
import json, sys, time
from demine.analysis.noguess import no_guess_layout
from demine.analysis.result import Limit
w, h, m, rule, mode = json.loads(sys.argv[1])
for line in sys.stdin:
    t = time.perf_counter()
    seed = f"bench/{int(line)}"
    b = no_guess_layout(w, h, m, rule, 3 * w + 3, seed=seed, mode=mode, limit=Limit(seconds=600))
    print(json.dumps([time.perf_counter() - t, b.mine_cells]), flush=True)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base-src", required=True, help="the other tree's src folder")
    ap.add_argument("--size", default="30x16x200", help="WxHxM")
    ap.add_argument("--boards", type=int, default=20)
    ap.add_argument("--rule", default="zero")
    ap.add_argument("--mode", default="dense", choices=("uniform", "dense", "auto"))
    ns = ap.parse_args()
    w, h, m = (int(x) for x in ns.size.split("x"))
    spec = json.dumps([w, h, m, ns.rule, ns.mode])
    base_env = {**os.environ, "PYTHONPATH": ns.base_src}
    procs = {
        "base": subprocess.Popen(
            [sys.executable, "-c", CHILD, spec],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=base_env,
        ),
        "this": subprocess.Popen(
            [sys.executable, "-c", CHILD, spec], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        ),
    }
    times: dict[str, list[float]] = {k: [] for k in procs}
    same = 0
    for i in range(ns.boards):
        got = {}
        for k, p in procs.items():
            assert p.stdin is not None and p.stdout is not None
            p.stdin.write(f"{i}\n")
            p.stdin.flush()
            t, cells = json.loads(p.stdout.readline())
            times[k].append(t)
            got[k] = cells
        same += got["base"] == got["this"]
    for p in procs.values():
        p.kill()
    print(f"{ns.size} {ns.rule} {ns.mode}, {ns.boards} boards, load {os.getloadavg()[0]:.2f}")
    for k, ts in times.items():
        print(f"{k:5} median {1000 * statistics.median(ts):.0f} ms, max {1000 * max(ts):.0f} ms")
    ratio = statistics.median(times["this"]) / statistics.median(times["base"])
    print(f"ratio of medians {ratio:.3f}; the same boards: {same} of {ns.boards}")


if __name__ == "__main__":
    main()
