"""``demine play``: the terminal game (:mod:`demine.cli.tui`, the ``tui`` extra), and its
options; Textual is imported only when the game starts."""

from __future__ import annotations

import argparse
from typing import Any

from demine.cli.needs import need_extra, writable_file
from demine.engine.grid import PRESETS, RULES, check_mines, parse_size


def add_play(sub: Any) -> None:
    p = sub.add_parser(
        "play",
        help="play in the terminal with hints, mouse and keys, and keep a record for review (tui extra)",
        description="A game in the terminal. Mouse: left opens (on a number: chords), right flags, "
        "middle chords. Keys: arrows or hjkl move, space or enter opens, f flags, c chords, t hints "
        "on/off, ? one hint, n new game, q quits. With --record FILE the game's record is written "
        "when it ends (or when you quit or start another), for demine review.",
    )
    p.add_argument("size", nargs="?", default="expert", help=f"a preset ({', '.join(PRESETS)}) or WxHxM")
    p.add_argument("--rule", choices=RULES, default="safe", help="first-click rule (default: safe)")
    p.add_argument("--seed", default=None, help="seed for the layout (default: random)")
    p.add_argument("--record", metavar="FILE", help="write the game's record here (a JSON game record)")
    p.add_argument("--hints", action="store_true", help="start with hints on (t turns them on and off)")
    p.add_argument(
        "--no-guess",
        nargs="?",
        const="complete",
        choices=("complete", "local"),
        help="a board that never needs a guess from the first click",
    )
    p.set_defaults(func=cmd_play)


def cmd_play(ns: argparse.Namespace) -> int:
    need_extra("tui", "demine play")
    width, height, mines = parse_size(ns.size, ns.rule)
    check_mines(width, height, mines, ns.rule)
    if width > 60 or height > 40:
        from demine.errors import InputError

        raise InputError(f"demine play draws boards up to 60x40 cells, got {width}x{height}")
    if ns.record:
        writable_file(ns.record, "--record")
    from demine.cli.tui import PlayApp

    app = PlayApp(width, height, mines, ns.rule, ns.seed, ns.record, ns.no_guess, ns.hints)
    app.run()
    if app.saved is not None:
        print(f"record written to {app.saved}: demine review {app.saved}")
    return 0
