"""Options shared by the scripts that play generated boards (variants, endgame_gap, endgame_time,
budget_check)."""

from __future__ import annotations

import argparse

from demine.bench import GameSpec, generated_specs
from demine.cli import positive_int
from demine.engine.grid import RULES, parse_size
from demine.errors import DemineError


def add_board_options(ap: argparse.ArgumentParser, seed: str, games_help: str | None = None) -> None:
    """--games, --size, --rule and --seed (with this default seed)."""
    ap.add_argument("--games", type=positive_int, default=1000, help=games_help)
    ap.add_argument("--size", default="expert", help="a preset or WxHxM (default: expert)")
    ap.add_argument("--rule", default="safe", choices=RULES)
    ap.add_argument("--seed", default=seed)


def board_specs(ns: argparse.Namespace) -> list[GameSpec]:
    """The games those options ask for; a bad --size ends the script with a one-line message."""
    try:
        w, h, m = parse_size(ns.size, ns.rule)
    except DemineError as e:
        raise SystemExit(f"--size {ns.size}: {e}") from None
    return generated_specs(w, h, m, ns.rule, None, ns.games, ns.seed)
