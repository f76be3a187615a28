"""Pair two record files of the same boards (two versions of a player, say) game by game.

Run: python benchmarks/pair_records.py BEFORE.jsonl AFTER.jsonl

Both files are ``demine bench --record`` output for the same preset, rule and seed (so game ``i``
is the same layout in both). Prints the wins of each, the boards only one of them won and the
two-sided sign test.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from demine.bench import sign_test


def _wins(path: Path) -> dict[int, bool]:
    out: dict[int, bool] = {}
    try:
        f = path.open(encoding="utf-8")
    except OSError as e:
        raise SystemExit(f"{path}: cannot read it ({e.strerror})") from None
    with f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                out[int(rec["index"])] = bool(rec["won"])
            except (ValueError, KeyError, TypeError) as e:
                raise SystemExit(f"{path}, line {n}: not a game record ({e})") from None
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ns = ap.parse_args()
    a, b = _wins(ns.before), _wins(ns.after)
    common = sorted(a.keys() & b.keys())
    if not common:
        raise SystemExit("the two files share no game index")
    only_a = sum(1 for i in common if a[i] and not b[i])
    only_b = sum(1 for i in common if b[i] and not a[i])
    wa = sum(a[i] for i in common)
    wb = sum(b[i] for i in common)
    n = len(common)
    x, y = str(ns.before), str(ns.after)
    print(f"{n} games in both: {x} {wa} ({100 * wa / n:.2f}%), {y} {wb} ({100 * wb / n:.2f}%)")
    print(f"only {x}: {only_a}, only {y}: {only_b}, sign test p = {sign_test(only_a, only_b):.4g}")


if __name__ == "__main__":
    main()
