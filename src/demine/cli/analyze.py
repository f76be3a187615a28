"""Commands about positions and games: ``analyze`` (exact probabilities and forced cells),
``render`` (SVG pictures) and ``replay`` (a recorded game at any move)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from demine.analysis import Analysis, Limit, analyze
from demine.analysis.explain import describe_reason
from demine.cli import positive_float, positive_int
from demine.engine.formats import GameRecord
from demine.engine.position import COVERED, FLAG, Position
from demine.errors import DemineError, FormatError, InputError
from demine.text import big_count, fold, output_width, plural, wrap

if TYPE_CHECKING:
    from demine import BestMove

#: The CLI's default budget per position, in seconds.
DEFAULT_SECONDS = 10.0


#: What ``--overlay`` draws (render, replay).
OVERLAY_HELP = (
    "over the board: hints (proven safe cells and mines marked) or probabilities (those, and each "
    "other covered cell's chance of a mine, in percent); default none"
)


def add_analyze(sub: Any) -> None:
    p = sub.add_parser(
        "analyze",
        help="exact mine probabilities, safe cells and mines of text positions",
        description="Analyse positions in the .mine text format (FILE '-' reads standard input).",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="position files ('-' for stdin)")
    p.add_argument("--json", action="store_true", help="one JSON object per file")
    p.add_argument("--why", action="store_true", help="say what proves each safe cell and mine")
    p.add_argument("--mines", type=int, help="total mine count (overrides the file's)")
    p.add_argument("--no-trust-flags", action="store_true", help="treat flags as covered cells, not mines")
    p.add_argument(
        "--best",
        action="store_true",
        help="also the move the best player would make: a safe cell, else its best guess",
    )
    p.add_argument(
        "--seconds",
        type=positive_float,
        default=DEFAULT_SECONDS,
        help=f"budget per position before falling back to estimates (default {DEFAULT_SECONDS:g})",
    )
    p.set_defaults(func=cmd_analyze)


def add_render(sub: Any) -> None:
    p = sub.add_parser(
        "render",
        help="draw a text position as SVG (optionally with probabilities or hints)",
        description="Draw a position in the .mine text format as an SVG picture.",
    )
    p.add_argument("file", metavar="FILE", help="position file ('-' for stdin)")
    p.add_argument(
        "-o",
        "--output",
        help="picture to write: FILE.svg, or FILE.png (the png extra) (default: SVG on standard output)",
    )
    p.add_argument(
        "--overlay",
        choices=("none", "probabilities", "hints"),
        default="none",
        help=OVERLAY_HELP,
    )
    p.add_argument("--cell", type=int, default=24, help="cell size in pixels (default 24)")
    p.set_defaults(func=cmd_render)


def cmd_render(ns: argparse.Namespace) -> int:
    from demine.cli.needs import check_picture, write_picture
    from demine.render import render_svg

    if not 4 <= ns.cell <= 200:
        raise DemineError(f"--cell must be between 4 and 200 pixels, got {ns.cell}")
    if ns.output:
        check_picture(ns.output, "-o")
    _, text = _read(ns.file)
    try:
        svg = render_svg(Position.from_text(text), overlay=ns.overlay, cell=ns.cell)
    except ValueError as e:
        if isinstance(e, DemineError):
            raise
        raise DemineError(str(e)) from None
    if ns.output:
        write_picture(ns.output, svg)
    else:
        sys.stdout.write(svg + "\n")
    return 0


def add_replay(sub: Any) -> None:
    p = sub.add_parser(
        "replay",
        help="show a recorded game at any move, or draw every move",
        description=(
            "Replay a game record (GameRecord.save) or a line of a bench record made with "
            "--record --record-moves."
        ),
    )
    p.add_argument("file", metavar="FILE", help="a game record, or a bench record file")
    p.add_argument(
        "--game",
        type=positive_int,
        metavar="N",
        help="game N of a bench record file, numbered from 1 in the file's order as review names "
        "them FILE:N (default: 1)",
    )
    p.add_argument("--move", type=int, help="show the position after this many moves (default: all)")
    p.add_argument("--svg", metavar="FILE", help="draw that position to FILE.svg or FILE.png")
    p.add_argument("--frames", metavar="DIR", help="write one SVG per move into DIR (frame_0000.svg, ...)")
    p.add_argument(
        "--overlay",
        choices=("none", "probabilities", "hints"),
        default="none",
        help=OVERLAY_HELP,
    )
    p.set_defaults(func=cmd_replay)


def _load_record(name: str, number: int) -> tuple[GameRecord, int]:
    """Game ``number`` of the file (from 1, in the file's order: review's ``FILE:N``) and the
    number of games the file holds."""
    from demine.bench.records import parse_lines

    source, text = _read(name, "a game record or a bench record")
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, dict) and whole.get("format"):
        if number != 1:
            raise InputError(f"{source} holds one game: --game takes 1, got {number}")
        return GameRecord.from_json(whole, source=source), 1
    lines = list(parse_lines(text, source))
    if not lines:
        raise FormatError("no games here", source=source)
    if not 1 <= number <= len(lines):
        raise InputError(
            f"{source} holds {plural(len(lines), 'game')}: --game takes 1 to {len(lines)} "
            f"(counting from 1), got {number}"
        )
    return lines[number - 1].game(source), len(lines)


def cmd_replay(ns: argparse.Namespace) -> int:
    from demine.cli.needs import check_picture, writable_folder, write_picture
    from demine.engine.formats import atomic_write
    from demine.render import render_svg

    if ns.svg:
        check_picture(ns.svg, "--svg")
    if ns.frames:
        writable_folder(ns.frames, "--frames")
    rec, games = _load_record(ns.file, ns.game or 1)
    total = len(rec.moves)
    k = total if ns.move is None else ns.move
    if not 0 <= k <= total:
        raise DemineError(
            f"--move must be between 0 and {total} (game {ns.game or 1} has {plural(total, 'move')}), "
            f"got {ns.move}"
        )
    b = rec.board
    end = rec.replay()
    geo = end.geometry
    start = geo.name(b.start) if b.start is not None else "?"
    print(
        fold(
            (f"game {ns.game or 1} of {games}: " if games > 1 else "")
            + f"{b.width}x{b.height}/{b.mines}, rule {b.rule}, start {start}, seed {rec.seed!r}: "
            f"{plural(total, 'move')}, {end.outcome}"
            + (f" (mine hit at {geo.name(end.exploded)})" if end.exploded is not None else "")
        )
    )
    if ns.frames:
        os.makedirs(ns.frames, exist_ok=True)
        game = rec.replay(0)
        for j in range(total + 1):
            if j:
                game.play(rec.moves[j - 1])
            atomic_write(
                os.path.join(ns.frames, f"frame_{j:04d}.svg"), render_svg(game.position(), ns.overlay)
            )
        print(f"wrote {plural(total + 1, 'frame')} to {ns.frames}")
    position = rec.replay(k).position()
    if k:
        mv = rec.moves[k - 1]
        note = rec.note(k - 1)
        why = ""
        if note is not None and mv.kind == "flag":  # (a flag's chance is that of a mine, not a risk)
            why = " (a proven mine)" if note[1] == 1.0 else ""
        elif note is not None:
            why = f" ({note[0]}" + (f", {100 * note[1]:.1f}% risk" if note[1] is not None else "") + ")"
        print(fold(f"after move {k}/{total}: {mv.kind} {geo.name(mv.cell)}{why}"))
    else:
        print(f"before the first move (0/{total})")
    sys.stdout.write(position.to_text())
    if ns.svg:
        write_picture(ns.svg, render_svg(position, ns.overlay))
    return 0


def _read(name: str, what: str = "a position file") -> tuple[str, str]:
    """The name to show and the text of a file ('-': standard input)."""
    from demine.engine.formats import decode_text, read_text

    if name == "-":
        return "<stdin>", decode_text(sys.stdin.buffer.read(), "<stdin>", what)
    return name, read_text(name, what)


def analysis_json(position: Position, a: Analysis) -> dict[str, Any]:
    """The ``--json`` object of one analysis."""
    w = position.width
    covered = [c for c in a.unknown if position.states[c] == COVERED]
    return {
        "width": position.width,
        "height": position.height,
        "mines": position.mines,
        "solutions": None if a.solutions is None else str(a.solutions),
        "probabilities": [[*divmod(c, w), a.p(c)] for c in covered],
        "safe": [list(divmod(c, w)) for c in sorted(a.safe)],
        "mine_cells": [list(divmod(c, w)) for c in sorted(a.mines)],
        "approximate": a.approximate,
        "ms": round(a.ms, 3),
        "reasons": [
            [*divmod(c, w), r.kind, [list(divmod(n, w)) for n in r.numbers]]
            for c, r in sorted(a.reasons.items())
        ],
    }


def best_of(position: Position, a: Analysis, limit: Limit, trust_flags: bool) -> BestMove | None:
    """The ``best`` player's move in ``position`` (None when no covered cell is left but proven
    mines). Without trusted flags it is chosen as if the flags were not there (``a`` analysed
    them as covered cells, which is the same analysis)."""
    from demine import best_move
    from demine.errors import IllegalMove

    if all(position.states[c] != COVERED or c in a.mines for c in range(len(position.states))):
        return None  # (best_move would name a proven mine as its "safest" guess)
    try:
        return best_move(position if trust_flags else position.without_flags(), limit, analysis=a)
    except IllegalMove:
        return None


def best_json(position: Position, bm: BestMove | None) -> dict[str, Any] | None:
    """The ``best`` field of ``--json --best``."""
    if bm is None:
        return None
    return {
        "cell": list(divmod(bm.move.cell, position.width)),
        "reason": bm.reason,
        "mine_probability": bm.mine_probability,
        "win_probability": bm.win_probability,
        "survive": bm.survive,
        "reveals": bm.reveals,
    }


def best_text(position: Position, bm: BestMove | None) -> str:
    """One line for the ``best`` player's move."""
    if bm is None:
        return "best move: none (no covered cell left that is not a proven mine)"
    cell = position.geometry.name(bm.move.cell)
    if bm.reason == "safe":
        return f"best move: open {cell} (proven safe)"
    risk = f"{100 * bm.mine_probability:.1f}% chance of a mine"
    if bm.outlook:
        risk += f"; {bm.outlook}"
    return f"best move: open {cell} ({bm.reason}: {risk})"


def _cell_text(position: Position, a: Analysis, cell: int) -> str:
    v = position.states[cell]
    if v < COVERED:
        return str(v)
    if v == FLAG and cell in a.known_mines:
        return "F"
    if cell in a.safe:
        return "S"
    if cell in a.mines:
        return "M"
    p = a.p(cell) * 100
    if p < 1:
        return "<1%"
    if p > 99:
        return ">99%"
    return f"{round(p)}%"


#: Characters a cell takes in the analysis grid (">99%" and a space).
GRID_CELL = 5


def render_grid(position: Position, a: Analysis, columns: int = 0) -> str:
    """Mine percentages on a grid: numbers as shown, F trusted flag, S safe, M mine. With
    ``columns`` (a terminal's width), a grid wider than that is folded into blocks of columns,
    one under the other, each with its column numbers."""
    w = position.width
    per_block = max(1, (columns - 4) // GRID_CELL) if columns else w
    blocks = []
    for first in range(0, w, per_block):
        cols = range(first, min(w, first + per_block))
        lines = ["    " + "".join(f"{c:>{GRID_CELL}}" for c in cols)]
        for r in range(position.height):
            lines.append(
                f"{r:>3} " + "".join(f"{_cell_text(position, a, r * w + c):>{GRID_CELL}}" for c in cols)
            )
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def cmd_analyze(ns: argparse.Namespace) -> int:
    status = 0
    limit = Limit(seconds=ns.seconds)
    for name in ns.files:
        try:
            source, text = _read(name)
            position = Position.from_text(text)
            if ns.mines is not None:
                position = position.with_mines(ns.mines)
            a = analyze(position, limit=limit, trust_flags=not ns.no_trust_flags)
        except (DemineError, OSError) as e:
            msg = str(e) if isinstance(e, DemineError) else f"{e.strerror}: {e.filename}"
            status = 2
            if ns.json:
                print(json.dumps({"file": name, "error": msg}))
            else:
                named = isinstance(e, FormatError) and e.source  # (the message names the file)
                print(f"demine analyze: {'' if named else f'{name}: '}error: {msg}", file=sys.stderr)
            continue
        bm = best_of(position, a, limit, not ns.no_trust_flags) if ns.best else None
        if ns.json:
            extra = {"best": best_json(position, bm)} if ns.best else {}
            print(json.dumps({"file": source, **analysis_json(position, a), **extra}))
            continue
        g = position.geometry
        total = (
            f"mines {position.mines}"
            if position.mines is not None
            else "mine count unknown (no WxHxM header or mines=N line: the numbers alone are used)"
        )
        width = output_width()
        print(wrap(f"{source}: {position.width}x{position.height}, {total}", width=width))
        print(render_grid(position, a, width))
        whole = 4 + GRID_CELL * position.width
        if width and whole > width:
            print(
                wrap(
                    f"(the grid is {whole} columns wide, folded to fit {width}: a terminal that "
                    f"wide, or COLUMNS={whole}, shows it whole)",
                    width=width,
                )
            )
        print(
            wrap(
                "legend: digits = revealed, F = flag (trusted), S = safe, M = mine, others = % chance",
                width=width,
            )
        )
        for label, cells in (("safe", a.safe), ("mines", a.mines)):
            names = " ".join(g.name(c) for c in sorted(cells)) or "none"
            print(wrap(names, f"{label}: ", " " * (len(label) + 2), width=width))
        if ns.why and (a.safe or a.mines):
            print("why:")
            for c in sorted(a.safe | a.mines):
                print(wrap(describe_reason(position, c, a), "  ", "    ", width=width))
        if ns.best:
            print(wrap(best_text(position, bm), indent="  ", width=width))
        if a.approximate:
            print(
                wrap(
                    f"approximate: the exact count did not finish in {ns.seconds:g} s; estimates shown",
                    width=width,
                )
            )
        else:
            print(f"solutions: {big_count(a.solutions) if a.solutions is not None else '?'}")
        print(f"time: {a.ms:.2f} ms")
    return status
