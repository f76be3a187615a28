"""``demine puzzles make|export`` (the puzzle set) and ``demine puzzle`` (train in the terminal)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from demine.cli import positive_int
from demine.errors import DemineError, FormatError
from demine.puzzles import KINDS, SHIPPED, Puzzle, read_puzzles, write_puzzles
from demine.puzzles.find import MakeSettings
from demine.puzzles.mine import Collector, select
from demine.puzzles.model import BANDS
from demine.text import fold, plural

#: Games played between two saves of what is found.
CHUNK = 10


def add_puzzles(sub: Any) -> None:
    p = sub.add_parser("puzzles", help="the training puzzles: mine more from games, or export them")
    psub = p.add_subparsers(dest="action", metavar="ACTION")
    p.set_defaults(func=lambda ns: (p.print_help(), 0)[1])

    m = psub.add_parser(
        "make",
        help="mine puzzles from games: records, bench files (--record-moves), videos, or games played here",
        description="Find puzzles in every position of the games given (files or folders: game "
        "records, bench record files written with --record-moves, videos) and in games played "
        "here (--play), keep one per position up to rotation and mirroring, and write them.",
    )
    m.add_argument("paths", nargs="*", metavar="PATH", help="game records, bench files, videos, or folders")
    m.add_argument(
        "--play",
        action="append",
        default=[],
        metavar="PLAYER:PRESET:GAMES[:RULE]",
        help="play GAMES seeded games with a player (best, fast, exact, twosat, equations...) and mine "
        "them, e.g. fast:expert:20 (repeat for several)",
    )
    m.add_argument("--seed", default="puzzles", help="seed of the games played (default: puzzles)")
    m.add_argument("--out", required=True, help="file to write (JSON lines; gzip'd when it ends in .gz)")
    m.add_argument("--add", action="store_true", help="keep the puzzles already in --out and add to them")
    m.add_argument(
        "--per-kind",
        type=positive_int,
        help="keep at most this many of each kind, spread over the difficulties",
    )
    m.add_argument(
        "--enough",
        type=positive_int,
        help="keep at most this many of a kind and difficulty (a kind is no longer "
        "looked for once each of its difficulties has them)",
    )
    m.add_argument("--kinds", help="only these kinds, comma-separated (default: all four)")
    m.add_argument(
        "--max-layouts",
        type=positive_int,
        default=200,
        help="guess puzzles: exact search up to this many layouts",
    )
    m.set_defaults(func=cmd_make)

    e = psub.add_parser("export", help="write the puzzles: one JSON line each with --json")
    e.add_argument("--file", help="a puzzle file (default: the shipped set)")
    e.add_argument(
        "--json",
        action="store_true",
        help='one JSON line per puzzle: {"id", "position", "kind", "answer", "rating", "themes", '
        '"source", ...}',
    )
    e.add_argument("--kind", choices=KINDS, help="only this kind")
    e.set_defaults(func=cmd_export)

    q = sub.add_parser(
        "puzzle",
        help="train: one puzzle at a time, answered by cell",
        description="Training: a position from a real game at a time, with a question (which cells "
        "are safe, which is the best guess...). Answer by cell, on the board or typed (c3: column "
        "letter, row number); your rating and streak are kept between sessions (--profile). "
        "Filter by kind, theme or difficulty, or play today's puzzle (--daily).",
    )
    q.add_argument("--file", help="a puzzle file (default: the shipped set)")
    q.add_argument("--kind", choices=KINDS, help="only this kind")
    q.add_argument("--theme", help="only puzzles with this theme (pair, 1-2-1, mine count, 50/50...)")
    q.add_argument("--difficulty", choices=[b for b, _ in BANDS], help="only this difficulty")
    q.add_argument("--id", help="this puzzle")
    q.add_argument("--daily", action="store_true", help="today's puzzle (the same for everyone)")
    q.add_argument(
        "--profile",
        help="where your rating and streak are kept (default: ~/.local/share/demine/training.json)",
    )
    q.add_argument("--seed", type=int, help="seed for the order of puzzles")
    q.add_argument(
        "--plain",
        action="store_true",
        help="a plain prompt (answers typed as c3) instead of the board; the default when not "
        "in a terminal or without Textual",
    )
    q.set_defaults(func=cmd_puzzle)


def _kind_counts(c: Collector) -> dict[str, int]:
    """The puzzles a collector holds, by kind."""
    return {k: sum(v.values()) for k, v in c.counts().items()}


def _parse_play(text: str) -> tuple[str, str, int, str]:
    parts = text.split(":")
    if len(parts) not in (3, 4) or not parts[2].isdigit() or int(parts[2]) < 1:
        raise DemineError(f"--play {text!r}: expected PLAYER:PRESET:GAMES[:RULE], e.g. fast:expert:20")
    return parts[0], parts[1], int(parts[2]), parts[3] if len(parts) == 4 else "safe"


def cmd_make(ns: argparse.Namespace) -> int:
    plays = [_parse_play(t) for t in ns.play]
    if not plays and not ns.paths:
        raise DemineError("nothing to mine: give game files or folders, or --play PLAYER:PRESET:GAMES")
    c = Collector(MakeSettings(max_layouts=ns.max_layouts))
    c.enough = ns.enough
    if ns.kinds:
        wanted = tuple(k.strip() for k in ns.kinds.split(","))
        bad = [k for k in wanted if k not in KINDS]
        if bad:
            raise DemineError(f"--kinds: {', '.join(bad)} not one of {', '.join(KINDS)}")
        c.only = wanted
    out = Path(ns.out)
    if ns.add and out.exists():
        for p in read_puzzles(out):
            c.keep(p)
    before = len(c.found)
    last_kinds, last_positions = _kind_counts(c), 0
    t0 = time.perf_counter()

    def report(what: str) -> None:
        """What this step found, then the run's totals so far."""
        nonlocal last_kinds, last_positions
        kinds = _kind_counts(c)
        step = ", ".join(f"{k} {n - last_kinds[k]}" for k, n in kinds.items() if n > last_kinds[k])
        new = sum(kinds.values()) - sum(last_kinds.values())
        print(
            fold(
                f"{what}: {plural(new, 'new puzzle')}{f' ({step})' if step else ''} in "
                f"{plural(c.positions - last_positions, 'position')}; so far "
                f"{plural(len(c.found) - before, 'new puzzle')} in {plural(c.positions, 'position')}, "
                f"{time.perf_counter() - t0:.0f} s",
                "  ",
            ),
            file=sys.stderr,
            flush=True,
        )
        last_kinds, last_positions = kinds, c.positions
        write_puzzles(out, list(c.found.values()))  # what is found so far is kept

    def skipped(e: FormatError) -> None:
        print(f"demine puzzles make: skipped {e}", file=sys.stderr)

    for path in ns.paths:
        c.add_files(path, skipped)
        report(path)
    for player, preset, games, rule in plays:
        for start in range(0, games, CHUNK):  # kept every CHUNK games
            n = min(CHUNK, games - start)
            c.add_played(player, preset, n, f"{ns.seed}/{player}/{preset}/{rule}/{start}", rule)
            report(f"{player} {preset} games {start + 1}-{start + n}")
    puzzles = list(c.found.values())
    if ns.per_kind:
        puzzles = select(puzzles, ns.per_kind)
    n = write_puzzles(out, puzzles)
    secs = time.perf_counter() - t0
    print(f"{n} puzzles written to {out} ({c.games} games, {c.positions} positions, {secs:.0f} s)")
    _table(puzzles)
    return 0


def _table(puzzles: list[Puzzle]) -> None:
    bands = [b for b, _ in BANDS]
    print(f"{'kind':<6} " + " ".join(f"{b:>7}" for b in bands) + "   total")
    for k in KINDS:
        row = [sum(1 for p in puzzles if p.kind == k and p.difficulty == b) for b in bands]
        print(f"{k:<6} " + " ".join(f"{n:>7}" for n in row) + f"   {sum(row):>5}")


def cmd_export(ns: argparse.Namespace) -> int:
    puzzles = read_puzzles(ns.file)
    if ns.kind:
        puzzles = [p for p in puzzles if p.kind == ns.kind]
    out = sys.stdout
    for p in puzzles:
        if ns.json:
            out.write(json.dumps(p.to_json(), separators=(",", ":")) + "\n")
        else:
            out.write(
                f"# {p.id}  {p.kind}  {p.difficulty} ({p.rating:.0f})  {', '.join(p.themes)}  [{p.source}]\n"
            )
            out.write(p.position.to_text() + "\n")
    return 0


def interactive() -> bool:
    """Whether both ends are a terminal (the board needs one)."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def cmd_puzzle(ns: argparse.Namespace) -> int:
    from demine.cli.needs import has_extra
    from demine.cli.train import train

    if ns.plain or not interactive():
        code: int = train(ns)
        return code
    if not has_extra("tui"):
        print(
            "demine puzzle: the board needs Textual: pip install 'demine[tui]'; a plain prompt instead",
            file=sys.stderr,
        )
        code = train(ns)
        return code
    from demine.cli.train import choose, load_profile, profile_path
    from demine.cli.train_tui import PuzzleApp

    path = profile_path(ns.profile)
    prof = load_profile(path)
    chosen = choose(read_puzzles(ns.file), ns, prof)
    if ns.id or ns.daily:
        chosen = chosen[:1]
    app = PuzzleApp(chosen, prof, path)
    app.run()
    p = prof
    print(f"Rating {p['rating']:.0f}, streak {p['streak']} (best {p['best_streak']}), "
          f"solved {p['solved']} of {p['attempted']}; kept in {path}")  # fmt: skip
    return 0


__all__ = ["SHIPPED", "add_puzzles"]
