"""The truth kept beside a screenshot (``NAME.json`` beside ``NAME.png``): what each cell shows.

Keys: ``truth`` (the position in the text format; a mine shown, the exploded one too, is a
covered cell there), ``exploded`` (``[row, col]`` or null), ``mines_shown`` and ``wrong_flags``
(lists of ``[row, col]``), ``questions`` (the same, optional), ``mines`` (the total), and how
the screenshot was made (``program``, ``source``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from demine.engine.position import COVERED, FLAG, Position
from demine.screen.read import BoardRead


def load_truth(path: str | Path) -> dict[str, Any]:
    """The truth beside a screenshot: ``shot.png`` -> ``shot.json``."""
    p = Path(path)
    meta: dict[str, Any] = json.loads(p.with_suffix(".json").read_text())
    return meta


#: The programs that draw their mine count in red seven-segment digits (demine.screen.counter).
COUNTERS = frozenset({"xdemineur", "jsm-web"})
#: The programs that write it as text beside the board (demine.screen.text, with OCR).
TEXT_COUNTS = frozenset({"tatham", "gnome", "kmines", "demine-web"})


def count_shown(meta: dict[str, Any]) -> int | None:
    """The mine total a screenshot shows: every program's but a lost game of Tatham's, whose
    status line says "DEAD!" in place of its count."""
    if meta["program"] == "tatham" and meta["state"] == "lost":
        return None
    return int(meta["mines"]) if meta["program"] in COUNTERS | TEXT_COUNTS else None


def truth_labels(meta: dict[str, Any]) -> list[str]:
    """Each cell's label (see :data:`demine.screen.tiles.LABELS`), row-major."""
    p = Position.from_text(meta["truth"])
    w = p.width
    labels = []
    for v in p.states:
        labels.append("H" if v == COVERED else "F" if v == FLAG else str(v))

    def put(cells: list[list[int]] | None, label: str) -> None:
        for r, c in cells or []:
            labels[r * w + c] = label

    put(meta.get("questions"), "?")
    put(meta.get("mines_shown"), "mine")
    put(meta.get("wrong_flags"), "wrong")
    if meta.get("exploded"):
        put([meta["exploded"]], "exploded")
    return labels


def read_labels(read: BoardRead) -> list[str]:
    """Each cell's label as ``read`` says it, row-major (to compare with :func:`truth_labels`)."""
    out = []
    for i, v in enumerate(read.position.states):
        lab = "H" if v == COVERED else "F" if v == FLAG else str(v)
        if i in read.questions:
            lab = "?"
        elif i in read.mines_shown:
            lab = "mine"
        elif i in read.wrong_flags:
            lab = "wrong"
        elif i == read.exploded:
            lab = "exploded"
        out.append(lab)
    return out
