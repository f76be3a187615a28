"""``demine screen``: other programs' boards. ``read`` (a screenshot in, the position out) and
``hint`` (the analysis drawn over the screenshot); ``watch`` and ``play`` (live windows) are
added by :mod:`demine.cli.screen_live` when it is there."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from demine.cli.needs import need_extra, suffix_of, writable_file
from demine.errors import InputError


def add_screen(sub: Any) -> None:
    p = sub.add_parser(
        "screen",
        help="boards of other programs: read a screenshot, hint it",
        description="Boards of other Minesweeper programs, from screenshots (PNG or JPEG).",
    )
    ss = p.add_subparsers(dest="screen_command", metavar="COMMAND")
    p.set_defaults(func=lambda ns: (p.print_help(), 0)[1])

    r = ss.add_parser(
        "read",
        help="the position a screenshot shows, in the text format",
        description="Read the board in a screenshot: the first line WxHxM when the mine count is "
        "known (the counter read, the count written beside the board read with Tesseract, or "
        "--mines), else WxH, then the rows (H covered, F flag, 0-8).",
    )
    _common(r)
    r.add_argument("--json", action="store_true", help="also where the board is, its cell size and skin")
    r.set_defaults(func=cmd_read)

    h = ss.add_parser(
        "hint",
        help="the analysis drawn over a screenshot",
        description="Read the board in a screenshot and draw what logic says over it: proven safe "
        "cells green with a check, proven mines blue with a star, flags proven wrong red, and the "
        "best move outlined with its reason.",
    )
    _common(h)
    h.add_argument("-o", "--output", metavar="OUT.png", help="the picture to write (PNG)")
    h.add_argument("--json", action="store_true", help="the hints as JSON (the web game's, and the move)")
    h.add_argument("--probabilities", action="store_true", help="each covered cell's chance of a mine")
    h.set_defaults(func=cmd_hint)

    try:
        from demine.cli.screen_live import add_live  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return
    add_live(ss)  # pragma: no cover - screen-live's commands


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("image", metavar="IMAGE", help="a screenshot: PNG or JPEG")
    p.add_argument("--mines", type=int, help="the total mine count (when the counter cannot be read)")
    p.add_argument("--skin", help="read with this skin's templates only (tatham, xdemineur, ...)")


def _read(ns: argparse.Namespace) -> tuple[Any, Any]:
    need_extra("screen", "demine screen")
    from PIL import Image, UnidentifiedImageError

    from demine.screen.read import read_board

    path = Path(ns.image)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    try:
        with Image.open(path) as im:
            image = im.convert("RGB")
    except (UnidentifiedImageError, OSError) as e:
        raise InputError(f"{path}: not an image Pillow can read ({e})") from None
    if ns.mines is not None and ns.mines < 0:
        raise InputError(f"--mines must be 0 or more, got {ns.mines}")
    from demine.screen.read import UnreadableScreen

    try:
        read = read_board(image, mines=ns.mines, skin=ns.skin)
    except UnreadableScreen as e:
        raise InputError(f"{path}: {e}") from None
    if ns.mines is not None and ns.mines > read.position.cells:
        raise InputError(f"--mines {ns.mines}: more than the {read.position.cells} cells read")
    return image, read


def cmd_read(ns: argparse.Namespace) -> int:
    _, read = _read(ns)
    if read.position.mines is None:
        from demine.screen.text import ocr_missing

        why = ocr_missing()
        also = f"; counts written as text are not read: {why}" if why else ""
        print(f"demine: no mine count read in {ns.image} (--mines N gives it){also}", file=sys.stderr)
    if ns.json:
        print(json.dumps(read.to_json()))
    else:
        sys.stdout.write(read.position.to_text())
    return 0


def _move(position: Any, hints: dict[str, Any]) -> dict[str, Any] | None:
    """The move to outline: ``best``'s, with its reason in words."""
    from demine import best_move
    from demine.errors import InconsistentPosition

    plain = position.without_flags()
    if not plain.covered_cells():
        return None
    try:
        bm = best_move(plain)
    except InconsistentPosition:
        return None
    w = position.width
    r, c = divmod(bm.move.cell, w)
    if bm.reason == "safe":
        why = hints.get("reasons", {}).get(f"{r},{c}", {}).get("text", f"({r},{c}) safe")
        text = f"Open {why}"
    else:
        text = f"Guess row {r}, column {c} ({bm.reason}): {bm.mine_probability:.1%} chance of a mine"
        if bm.outlook:
            text += f"; {bm.outlook}"
    return {
        "cell": [r, c],
        "reason": bm.reason,
        "mine_probability": round(bm.mine_probability, 4),
        "win_probability": None if bm.win_probability is None else round(bm.win_probability, 4),
        "text": text,
    }


def cmd_hint(ns: argparse.Namespace) -> int:
    if not ns.output and not ns.json:
        raise InputError("demine screen hint needs -o OUT.png, --json, or both")
    if ns.output:
        suffix_of(ns.output, (".png",), "-o")
        writable_file(ns.output, "-o")
    image, read = _read(ns)
    from demine.screen.hint import draw_hints
    from demine.web.hints import hints as hints_of

    hints = hints_of(read.position, probabilities=True, guess=False)
    if "error" in hints:
        raise InputError(f"{ns.image}: the position read has no layout that explains it: {hints['error']}")
    move = _move(read.position, hints)
    if ns.output:
        from demine.engine.formats import atomic_write

        picture = draw_hints(image, read, hints, move, probabilities=ns.probabilities)
        import io

        buf = io.BytesIO()
        picture.save(buf, "PNG")
        atomic_write(ns.output, buf.getvalue())
    if ns.json:
        out = {"read": read.to_json(), **hints, "move": move}
        if not ns.probabilities:
            out.pop("probabilities", None)
        print(json.dumps(out))
    return 0
