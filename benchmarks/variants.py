"""Paired experiments on variants of the ``best`` player (the figures in BENCHMARKS.md, section 3).

Run: python benchmarks/variants.py --games N --size WxHxM --rule RULE --seed SEED VARIANT [VARIANT ...]
[--record-dir DIR]

Each variant sets some of ``demine.players.best``'s module constants (``longterm.NAME``: of
``demine.players.longterm``) before its games, every other constant some variant sets back at
its default (``DEFAULTS``); every variant
plays the same boards (the seed), so the comparison is paired: for each pair of variants it prints
the boards only one of them won and the two-sided sign test. With ``--record-dir`` each variant's
results also go to ``DIR/VARIANT.jsonl``, one line per game as ``demine bench --record`` writes
them (so ``benchmarks/pair_records.py`` can pair them with a ``demine bench`` run of the same seed).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import demine.players.best as best
import demine.players.longterm as longterm
from boards import add_board_options, board_specs
from demine.bench import bench, paired
from demine.players import Player, register

#: `best`'s two endgame searches (exact and sampled) switched off.
NO_ENDGAME = {"ENDGAME_LAYOUTS": 1, "SAMPLED_LAYOUTS": 0}
#: The steps of `best` that minesolve's pure search lacks, switched off (the ``pure`` variants).
_PURE = {**NO_ENDGAME, "LONG_TERM_RISK": False, "FAR_OFF": False}

VARIANTS: dict[str, dict[str, Any] | None] = {
    "current": {},
    "exact": None,  # the exact player, for reference
    "progress": {"SCORE": "progress"},  # safety x (1 + 0.2 x chance a safe cell appears)
    "both": {"SCORE": "both"},  # the two-guess score times that bonus
    "endgame60": {"ENDGAME_LAYOUTS": 60, "ENDGAME_NODES": 20_000},  # the default before 2026-11-23
    "endgame300": {"ENDGAME_LAYOUTS": 300, "ENDGAME_NODES": 100_000},
    "endgame1000": {"ENDGAME_LAYOUTS": 1000, "ENDGAME_NODES": 200_000},
    "wide": {"CANDIDATE_SHARE": 0.8, "MAX_CANDIDATES": 12, "MAX_OFF_CANDIDATES": 4},
    "longterm": {"LONG_TERM": True},  # outcomes that leave a forced 50/50 count half
    "ltr": {"LONG_TERM_RISK": True},  # structures that end in a coin toss (solvers/longterm.py)
    "noltr": {"LONG_TERM_RISK": False},  # without them (on by default since they were measured)
    "credit1": {"longterm.CREDIT_WEIGHT": 1},  # the whole credit counted (default 9/10)
    "blend": {"NEXT": "blend"},  # an outcome is worth 4/5 of the best safety + 1/5 of the second
    "ltrblend": {"LONG_TERM_RISK": True, "NEXT": "blend"},
    "deadlast": {"DEAD_LAST": True},  # a dead candidate only when no live one is left
    "near": {"NEAR_OFF": 4},  # also 4 off-frontier cells two steps from a number
    "tieonly": {"CANDIDATE_SHARE": 1.0},  # the look-ahead chooses only among the safest cells
    "nofar": {"FAR_OFF": False},  # equal off-frontier cells in reading order (the farthest since 2026-11-23)
    "nosample": {"SAMPLED_LAYOUTS": 0},  # no sampled endgame (on since 2026-11-24)
    "sample50k": {"SAMPLED_LAYOUTS": 50_000},  # the sampled endgame up to 50,000 layouts
    # the sampled endgame from 1000 draws instead of 500 (a larger node budget, which it needs)
    "sample1000": {"ENDGAME_SAMPLE": 1000, "ENDGAME_NODES": 200_000},
    # and the exact endgame up to 1000 layouts
    "exact1000": {"ENDGAME_LAYOUTS": 1000, "ENDGAME_SAMPLE": 1000, "ENDGAME_NODES": 200_000},
    # D. N. Hill's Java solver's weight of progress: x (1 + 0.001 x the chance a safe cell appears)
    "tinyprogress": {"SCORE": "both", "PROGRESS_WEIGHT": Fraction(1, 1000)},
    # three reveals ahead (minesolve's depth 3: survive three reveals, a free one counting); the
    # default since 2026-11-24, so "depth2" is the look-ahead before it
    "depth3": {"DEPTH": 3},
    "depth2": {"DEPTH": 2},
    # three reveals without long-term risk and the sampled endgame (nearer minesolve's pure search)
    "bare3": {"DEPTH": 3, "LONG_TERM_RISK": False, "SAMPLED_LAYOUTS": 0},
    # nearer still: no endgame search of either kind, no long-term risk, equal off-frontier cells
    # in reading order (minesolve's depths 2 and 3, with `best`'s candidates and 50/50 rule)
    "pure2": {**_PURE, "DEPTH": 2},
    "pure3": {**_PURE, "DEPTH": 3},
    # the same with the exact endgame from 500 layouts (is depth 3's gain the endgame's?)
    "pure2e": {**_PURE, "DEPTH": 2, "ENDGAME_LAYOUTS": best.ENDGAME_LAYOUTS},
    "pure3e": {**_PURE, "DEPTH": 3, "ENDGAME_LAYOUTS": best.ENDGAME_LAYOUTS},
    # `best` without the sampled endgame and the far-corner tie (long-term risk kept)
    "lean": {"SAMPLED_LAYOUTS": 0, "FAR_OFF": False},
    # and from every candidate minesolve weighs: every frontier cell at the root and inside
    "fullwide": {"CANDIDATE_SHARE": 0.0, "MAX_CANDIDATES": 10**6, "INNER_CANDIDATES": 10**6},
    # and every covered cell off the frontier too
    "everycell": {
        "CANDIDATE_SHARE": 0.0,
        "MAX_CANDIDATES": 10**6,
        "INNER_CANDIDATES": 10**6,
        "MAX_OFF_CANDIDATES": 10**6,
    },
    # every covered cell off the frontier weighed (`best` weighs the 2 likeliest to open), and
    # the frontier as usual
    "alloff": {"MAX_OFF_CANDIDATES": 10**6},
    # every off-frontier cell only when there are at most 30 of them (D. N. Hill's rule)
    "fewoff": {"ALL_OFF_BELOW": 30},
    # among several pseudo 50/50 cells, the first found (before 2026-11-24 evening), not the one
    # whose number tells the most
    "firstpseudo": {"PSEUDO_CHOICE": False},
    # and from more candidates: 80% of the best safety, 12 + 4 at the root, 10 frontier cells inside
    "depth3wide": {
        "DEPTH": 3,
        "CANDIDATE_SHARE": 0.8,
        "MAX_CANDIDATES": 12,
        "MAX_OFF_CANDIDATES": 4,
        "INNER_CANDIDATES": 10,
    },
}


def _module(key: str) -> tuple[Any, str]:
    module, _, name = key.rpartition(".")
    return (longterm if module == "longterm" else best), name


#: Every constant some variant sets, at its default (read when this module is imported). Each
#: variant starts from these: the settings live in the module, so without the reset a variant
#: would inherit the ones of the variant run before it in the same process (the pool's workers
#: are forked from it).
DEFAULTS: dict[str, Any] = {
    k: getattr(*_module(k)) for settings in VARIANTS.values() if settings for k in settings
}


def _factory(settings: dict[str, Any]) -> Callable[[], Player]:
    def make() -> Player:
        for k, v in {**DEFAULTS, **settings}.items():
            setattr(*_module(k), v)
        return best.BestPlayer()

    return make


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("variants", nargs="+", choices=sorted(VARIANTS))
    add_board_options(ap, "exp1")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--record-dir", type=Path, help="write DIR/VARIANT.jsonl, one line per game")
    ns = ap.parse_args()
    if ns.record_dir is not None and not ns.record_dir.is_dir():
        raise SystemExit(f"--record-dir {ns.record_dir}: not a directory")
    specs = board_specs(ns)
    results = {}
    for name in ns.variants:
        settings = VARIANTS[name]
        player = "exact" if settings is None else f"variant-{name}"
        if settings is not None:
            register(player, _factory(settings), name)
        summary, res = bench(player, specs, jobs=ns.jobs)
        results[name] = res
        if ns.record_dir is not None:
            lines = [json.dumps({"player": "best", "variant": name, **r.to_json()}) + "\n" for r in res]
            (ns.record_dir / f"{name}.jsonl").write_text("".join(lines), encoding="utf-8")
        rate = 100 * summary.win_rate
        print(f"{name}: {summary.wins}/{summary.games} = {rate:.2f}%, {summary.ms_per_game:.1f} ms/game")
    for i, a in enumerate(ns.variants):
        for b in ns.variants[i + 1 :]:
            pr = paired(a, results[a], b, results[b])
            print(f"{a} vs {b}: only {a} {pr.only_a}, only {b} {pr.only_b}, sign test p = {pr.p_value:.4g}")


if __name__ == "__main__":
    main()
