"""The ``demine`` command."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from typing import Any

from demine import __version__
from demine._build import build
from demine.cli.needs import writable_file
from demine.engine.formats import Board
from demine.engine.game import Game
from demine.engine.grid import PRESETS, RULES, check_mines, default_start, parse_cell, parse_size
from demine.errors import DemineError
from demine.players import DEFAULT_PLAYER, available_solvers, settings_type


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (the scripts in benchmarks/ use it too)."""
    n = _whole(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def non_negative_int(text: str) -> int:
    """An argparse type: a whole number of at least 0."""
    n = _whole(text)
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {n}")
    return n


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def positive_float(text: str) -> float:
    """An argparse type: a number above 0 (seconds, a rate), finite."""
    value = _number(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
    return value


def non_negative_float(text: str) -> float:
    """An argparse type: a number of at least 0, finite."""
    value = _number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


# ------------------------------------------------------------------------------ new
def cmd_new(ns: argparse.Namespace) -> int:
    width, height, mines = parse_size(ns.size, ns.rule)
    start = parse_cell(ns.start, width, height) if ns.start else default_start(width, height, ns.rule)
    if ns.record:
        writable_file(ns.record, "--record")
    if ns.no_guess:
        from demine.analysis.noguess import NoGuessBoard, no_guess_game

        check_mines(width, height, mines, ns.rule, start)
        from demine.analysis import Limit

        limit = Limit(seconds=ns.no_guess_seconds)
        made: list[NoGuessBoard] = []
        game = no_guess_game(
            width,
            height,
            mines,
            rule=ns.rule,
            seed=ns.seed,
            certificate=ns.no_guess,
            mode=ns.no_guess_mode,
            limit=limit,
            report=made.append,
        )
    else:
        game = Game(width, height, mines, rule=ns.rule, seed=ns.seed)
    game.reveal(start)
    for b in made if ns.no_guess else ():
        print(b.describe(), file=sys.stderr)
    if ns.record:
        from demine.engine.formats import GameRecord

        GameRecord.from_game(game).save(ns.record)
    if ns.board:
        print(json.dumps(Board.from_game(game).to_json()))
    else:
        sys.stdout.write(game.position().to_text())
    return 0


# ------------------------------------------------------------------------------ bench
def cmd_players(ns: argparse.Namespace) -> int:
    from dataclasses import fields

    from demine.text import field_docs, wrap

    for name, summary in available_solvers().items():
        mark = " (default)" if name == DEFAULT_PLAYER else ""
        print(wrap(f"{name}{mark}: {summary}", indent="    "))
        kind = settings_type(name)
        if kind is not None:
            defaults, docs = kind(), field_docs(kind)
            print("    settings (bench --set FIELD=VALUE), with their defaults:")
            for f in fields(defaults):
                print(
                    wrap(
                        f"{f.name}={getattr(defaults, f.name)}: {docs.get(f.name, '')}".rstrip(": "),
                        "      ",
                        "        ",
                    )
                )
    return 0


# ------------------------------------------------------------------------------ parser
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="demine",
        description="Minesweeper engine, exact solver and playing assistant.",
    )
    parser.add_argument("--version", action="version", version=f"demine {__version__} ({build()})")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("new", help="start a game and print the position after the first click")
    p.add_argument("size", help=f"a preset ({', '.join(PRESETS)}) or WxHxM")
    p.add_argument("--seed", default=None, help="seed for the layout (default: random)")
    p.add_argument("--rule", choices=RULES, default="safe", help="first-click rule (default: safe)")
    p.add_argument("--start", help="first click as ROW,COL (default: the rule's usual cell)")
    p.add_argument("--board", action="store_true", help="print the layout as a board-file line instead")
    p.add_argument("--record", metavar="FILE", help="also write the game so far as a game record")
    _add_no_guess(p)
    p.add_argument(
        "--no-guess-seconds",
        type=positive_float,
        default=10.0,
        help="with --no-guess: how long to search before giving up (default: 10)",
    )
    p.set_defaults(func=cmd_new)

    from demine.cli.bench import add_bench

    add_bench(sub)

    p = sub.add_parser(
        "players",
        help="list the players",
        description="The players bench, review and the web game can use, each with what it does, "
        "and for those that take settings (bench --set FIELD=VALUE, or NAME(FIELD=VALUE) in "
        "--compare) every setting with its default.",
    )
    p.set_defaults(func=cmd_players)
    _add_more(sub)
    return parser


def _add_no_guess(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--no-guess",
        nargs="?",
        const="complete",
        choices=("complete", "local"),
        help="boards that never need a guess from the first click: complete (proven with the mine "
        "count, the default) or local (proven by the numbers alone)",
    )
    p.add_argument(
        "--no-guess-mode",
        choices=("uniform", "dense", "auto"),
        default="auto",
        help="uniform (every guess-free board equally likely), dense (repaired: any density, "
        "biased) or auto (uniform while it is fast enough; the default)",
    )


def _add_more(sub: Any) -> None:
    """Subcommands whose code lives in other modules."""
    from demine.cli.analyze import add_analyze, add_render, add_replay

    add_analyze(sub)
    add_render(sub)
    add_replay(sub)

    from demine.cli.play import add_play
    from demine.cli.review import add_review

    add_review(sub)
    add_play(sub)

    from demine.cli.puzzles import add_puzzles

    add_puzzles(sub)

    from demine.cli.serve import add_serve

    add_serve(sub)

    from demine.cli.screen import add_screen

    add_screen(sub)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    ns = parser.parse_args(argv)
    if ns.command is None:
        parser.print_help()
        return 0
    try:
        code: int = ns.func(ns)
        return code
    except DemineError as e:
        print(f"demine {ns.command}: error: {_with_notes(e)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (demine ... | head): stop quietly, as other tools do
        sys.stderr.close()
        return 0
    except OSError as e:
        print(
            f"demine {ns.command}: error: {e.strerror or e}: {e.filename or ''}".rstrip(": "),
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt as e:
        from demine.cli.longrun import Stopped

        if isinstance(e, Stopped):
            print(_with_notes(e, f"demine {ns.command}: stopped by {e.name}"), file=sys.stderr)
            return 128 + e.signum
        print(_with_notes(e, "demine: interrupted"), file=sys.stderr)
        return 130


def _with_notes(e: BaseException, text: str | None = None) -> str:
    """An error's text (or ``text``) with the notes added to it on the way up, one a sentence."""
    return "; ".join([str(e) if text is None else text, *getattr(e, "__notes__", ())])


if __name__ == "__main__":
    sys.exit(main())
