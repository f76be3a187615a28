"""The eight symmetries of a board (rotations and mirrors), and a position's canonical form: two
positions that are the same up to turning or flipping the board have the same key.

A symmetry is a number 0-7: bit 0 mirrors left-right, bit 1 mirrors top-bottom, bit 2 swaps rows
and columns (applied first). Rotations are combinations: a quarter turn clockwise is a swap then a
left-right mirror (``5``).
"""

from __future__ import annotations

import hashlib

from demine.engine.position import Position

SYMMETRIES = tuple(range(8))


def transform_cell(width: int, height: int, cell: int, sym: int) -> int:
    """Where ``cell`` of a ``width`` x ``height`` board goes under symmetry ``sym``."""
    r, c = divmod(cell, width)
    w, h = width, height
    if sym & 4:
        r, c, w, h = c, r, h, w
    if sym & 1:
        c = w - 1 - c
    if sym & 2:
        r = h - 1 - r
    return r * w + c


def transform(position: Position, sym: int) -> Position:
    """``position`` turned or mirrored by symmetry ``sym`` (the mine count kept). O(cells), by
    rows (slices and one transpose) rather than cell by cell."""
    w, h = position.width, position.height
    st = position.states
    rows = [st[r * w : (r + 1) * w] for r in range(h)]
    if sym & 4:
        rows = [bytes(col) for col in zip(*rows, strict=True)]
        w, h = h, w
    if sym & 1:
        rows = [row[::-1] for row in rows]
    if sym & 2:
        rows = rows[::-1]
    return Position(w, h, b"".join(rows), position.mines)


def canonical(position: Position) -> tuple[str, int]:
    """The smallest text of the eight copies of ``position``, and the symmetry that gives it.
    O(8 x cells)."""
    best: tuple[str, int] | None = None
    for sym in SYMMETRIES:
        text = transform(position, sym).to_text()
        if best is None or text < best[0]:
            best = (text, sym)
    assert best is not None
    return best


def position_key(position: Position) -> str:
    """A short name shared by exactly the symmetric copies of ``position`` (12 hex digits of
    the canonical text's SHA-256)."""
    return hashlib.sha256(canonical(position)[0].encode()).hexdigest()[:12]
