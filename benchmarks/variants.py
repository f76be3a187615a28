"""Paired experiments on settings of the ``best`` player (docs/research/guesses.md).

Run: python benchmarks/variants.py --games N --size WxHxM --rule RULE --seed SEED VARIANT [VARIANT ...]
     [--record-dir DIR] [--jobs 2]

A variant is a name below, or settings written out as ``name=value`` pairs joined by commas
(``depth=2,far_off=no``); each is a :class:`~demine.BestSettings` value built from the defaults,
so no variant can inherit another's settings, and the players reach the worker processes as
picklable specs (any start method). Every variant plays the same boards (the seed), so the
comparison is paired: for each pair of variants it prints the boards only one of them won and the
two-sided sign test. With ``--record-dir`` each variant's results also go to
``DIR/VARIANT.jsonl``, one line per game as ``demine bench --record`` writes them (so
``benchmarks/pair_records.py`` can pair them with a ``demine bench`` run of the same seed).

The variants that were measured and not adopted, and whose code has left ``best``, are in the
docs/research/guesses.md with the commit where their code last lived.
"""

from __future__ import annotations

import argparse
from fractions import Fraction
from pathlib import Path
from typing import Any

from boards import add_board_options, board_specs
from demine import BestSettings, PlayerSpec
from demine.bench import bench, paired
from demine.bench.records import write_results
from demine.errors import DemineError

#: `best`'s two endgame searches (exact and sampled) switched off.
NO_ENDGAME: dict[str, Any] = {"endgame_layouts": 1, "sampled_layouts": 0}
#: The steps of `best` that minesolve's pure search lacks, switched off (the ``pure`` variants).
_PURE: dict[str, Any] = {**NO_ENDGAME, "long_term_risk": False, "far_off": False}
#: Every candidate minesolve weighs: every frontier cell at the root and inside.
_FULLWIDE: dict[str, Any] = {"candidate_share": 0.0, "max_candidates": 10**6, "inner_candidates": 10**6}

#: Named settings (fields of BestSettings that differ from the defaults); None: the exact player.
VARIANTS: dict[str, dict[str, Any] | None] = {
    "current": {},
    "exact": None,  # the exact player, for reference
    "endgame60": {"endgame_layouts": 60, "endgame_nodes": 20_000},  # the default before 2026-11-23
    "endgame300": {"endgame_layouts": 300, "endgame_nodes": 100_000},
    "endgame1000": {"endgame_layouts": 1000, "endgame_nodes": 200_000},
    "wide": {"candidate_share": 0.8, "max_candidates": 12, "max_off_candidates": 4},
    "noltr": {"long_term_risk": False},  # without long-term risk (on by default since measured)
    "credit1": {"credit_weight": Fraction(1)},  # the whole long-term credit counted (default 9/10)
    "tieonly": {"candidate_share": 1.0},  # the look-ahead chooses only among the safest cells
    "nofar": {"far_off": False},  # equal off-frontier cells in reading order
    "nosample": {"sampled_layouts": 0},  # no sampled endgame (on since 2026-11-24)
    "sample50k": {"sampled_layouts": 50_000},  # the sampled endgame up to 50,000 layouts
    # the sampled endgame from 1000 draws instead of 500 (a larger node budget, which it needs)
    "sample1000": {"endgame_sample": 1000, "endgame_nodes": 200_000},
    # and the exact endgame up to 1000 layouts
    "exact1000": {"endgame_layouts": 1000, "endgame_sample": 1000, "endgame_nodes": 200_000},
    # exact to 2,500 layouts, 2,500 draws up to 10,000, a node budget of 600,000 (the default
    # since 2026-12-04), and the endgame before it (the hints' own, HINT_SETTINGS)
    "v2500": {
        "endgame_layouts": 2500,
        "sampled_layouts": 10_000,
        "endgame_sample": 2500,
        "endgame_nodes": 600_000,
    },
    "before2500": {
        "endgame_layouts": 1000,
        "sampled_layouts": 5000,
        "endgame_sample": 1000,
        "endgame_nodes": 200_000,
    },
    "depth2": {"depth": 2},  # two reveals ahead (the default before 2026-11-24)
    # three reveals without long-term risk and the sampled endgame (nearer minesolve's pure search)
    "bare3": {"long_term_risk": False, "sampled_layouts": 0},
    # nearer still: no endgame search, no long-term risk, equal off-frontier cells in reading order
    "pure2": {**_PURE, "depth": 2},
    "pure3": {**_PURE},
    # the same with the exact endgame from 500 layouts (is depth 3's gain the endgame's?)
    "pure2e": {**_PURE, "depth": 2, "endgame_layouts": 500},
    "pure3e": {**_PURE, "endgame_layouts": 500},
    # without the sampled endgame and the far-corner tie (long-term risk kept)
    "lean": {"sampled_layouts": 0, "far_off": False},
    "fullwide": _FULLWIDE,
    # and every covered cell off the frontier too
    "everycell": {**_FULLWIDE, "max_off_candidates": 10**6},
    # every covered cell off the frontier weighed (best weighs the 2 likeliest to open)
    "alloff": {"max_off_candidates": 10**6},
    # from more candidates: 80% of the best safety, 12 + 4 at the root, 10 frontier cells inside
    "depth3wide": {
        "candidate_share": 0.8,
        "max_candidates": 12,
        "max_off_candidates": 4,
        "inner_candidates": 10,
    },
}


def variant_spec(name: str) -> PlayerSpec:
    """The player a variant names: one of :data:`VARIANTS`, or ``name=value`` pairs joined by
    commas (:class:`DemineError` naming the problem otherwise)."""
    if name in VARIANTS:
        changes = VARIANTS[name]
        return PlayerSpec("exact") if changes is None else PlayerSpec("best", BestSettings(**changes))
    if "=" in name:
        return PlayerSpec("best", BestSettings.parse(name.split(",")))
    raise DemineError(f"unknown variant {name!r}: one of {', '.join(VARIANTS)}, or NAME=VALUE[,NAME=VALUE]")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("variants", nargs="+", help="names above, or NAME=VALUE[,NAME=VALUE] settings")
    add_board_options(ap, "exp1")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--record-dir", type=Path, help="write DIR/VARIANT.jsonl, one line per game")
    ns = ap.parse_args()
    if ns.record_dir is not None and not ns.record_dir.is_dir():
        raise SystemExit(f"--record-dir {ns.record_dir}: not a directory")
    try:
        players = {name: variant_spec(name) for name in ns.variants}
    except DemineError as e:
        raise SystemExit(str(e)) from None
    specs = board_specs(ns)
    results = {}
    for name, player in players.items():
        summary, res = bench(player, specs, jobs=ns.jobs)
        results[name] = res
        if ns.record_dir is not None:
            write_results(ns.record_dir / f"{name}.jsonl", str(player), res, variant=name)
        rate = 100 * summary.win_rate
        print(f"{name}: {summary.wins}/{summary.games} = {rate:.2f}%, {summary.ms_per_game:.1f} ms/game")
    for i, a in enumerate(ns.variants):
        for b in ns.variants[i + 1 :]:
            pr = paired(a, results[a], b, results[b])
            print(f"{a} vs {b}: only {a} {pr.only_a}, only {b} {pr.only_b}, sign test p = {pr.p_value:.4g}")


if __name__ == "__main__":
    main()
