"""Cells, board sizes, neighbour tables and presets.

A cell is a plain ``int``: ``row * width + col``. ``(row, col)`` pairs appear only at the edges
(parsing, printing, JSON). Neighbour tables are computed once per board size and shared.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from demine.engine.pickling import by_fields
from demine.errors import SizeError

#: The largest side a board may have. 1000x1000 boards are supported; beyond 2000 a side is
#: refused so that a typo cannot ask for gigabytes.
MAX_SIDE: Final = 2000

#: Boards up to this many cells keep a precomputed neighbour table; larger boards compute
#: neighbours on demand (a table for a million cells would cost hundreds of MB).
TABLE_LIMIT: Final = 1 << 16

RULES = ("safe", "zero", "none")


@dataclass(frozen=True, slots=True)
class Preset:
    """A named board size."""

    name: str
    """The preset's name, as used on the command line."""
    width: int
    """Columns."""
    height: int
    """Rows."""
    mines: int
    """Number of mines."""

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its constructor's arguments (see :mod:`demine.engine.pickling`)."""
        return by_fields(self)


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("beginner", 9, 9, 10),
        Preset("intermediate", 16, 16, 40),
        Preset("expert", 30, 16, 99),
        Preset("beginner-classic", 8, 8, 10),
    )
}


class Geometry:
    """The shape of a ``width`` x ``height`` board: cell numbering and neighbours.

    Use :func:`geometry` to get a shared instance per size.

    >>> g = geometry(3, 2)
    >>> g.neighbours(0)
    (1, 3, 4)
    >>> g.rowcol(4), g.cell(1, 1)
    ((1, 1), 4)
    """

    __slots__ = ("_table", "cells", "height", "width")

    def __init__(self, width: int, height: int) -> None:
        check_dimensions(width, height)
        self.width = width
        self.height = height
        self.cells = width * height
        self._table: tuple[tuple[int, ...], ...] | None = None
        if self.cells <= TABLE_LIMIT:
            self._table = tuple(self._compute(c) for c in range(self.cells))

    def _compute(self, cell: int) -> tuple[int, ...]:
        w, h = self.width, self.height
        r, c = divmod(cell, w)
        if 0 < r < h - 1 and 0 < c < w - 1:  # inside: all eight (the common case on big boards)
            up, down = cell - w, cell + w
            return (up - 1, up, up + 1, cell - 1, cell + 1, down - 1, down, down + 1)
        out = []
        for dr in (-1, 0, 1):
            rr = r + dr
            if 0 <= rr < h:
                base = rr * w
                for dc in (-1, 0, 1):
                    cc = c + dc
                    if (dr or dc) and 0 <= cc < w:
                        out.append(base + cc)
        return tuple(out)

    def table(self) -> tuple[tuple[int, ...], ...] | None:
        """The whole neighbour table (None on boards too large to keep one): for hot loops."""
        return self._table

    def neighbours(self, cell: int) -> tuple[int, ...]:
        """The up to 8 cells around ``cell``, in row-major order. O(1)."""
        table = self._table
        if table is not None:
            return table[cell]
        return self._compute(cell)

    def cell(self, row: int, col: int) -> int:
        """The cell at ``(row, col)``; ``ValueError`` when off the board."""
        if not (0 <= row < self.height and 0 <= col < self.width):
            raise SizeError(f"cell ({row}, {col}) is off the {self.width}x{self.height} board")
        return row * self.width + col

    def rowcol(self, cell: int) -> tuple[int, int]:
        """``(row, col)`` of ``cell``."""
        return divmod(cell, self.width)

    def name(self, cell: int) -> str:
        """A human name for ``cell``: ``(row, col)``."""
        r, c = divmod(cell, self.width)
        return f"({r},{c})"

    def __repr__(self) -> str:
        return f"geometry({self.width}, {self.height})"


@lru_cache(maxsize=64)
def geometry(width: int, height: int) -> Geometry:
    """The shared :class:`Geometry` for a size (cached)."""
    return Geometry(width, height)


def check_dimensions(width: int, height: int) -> None:
    """Raise :class:`SizeError` unless ``1 <= width, height <= MAX_SIDE``."""
    for what, n in (("width", width), ("height", height)):
        if not isinstance(n, int) or isinstance(n, bool):
            raise SizeError(f"{what} must be a whole number, not {n!r}")
        if n < 1:
            raise SizeError(f"{what} must be at least 1, got {n}")
        if n > MAX_SIDE:
            raise SizeError(f"{what} {n} is larger than the limit of {MAX_SIDE}")


def reserved_cells(width: int, height: int, rule: str, start: int | None) -> int:
    """How many cells the first-click ``rule`` keeps free of mines.

    ``safe`` keeps the first cell, ``zero`` the first cell and its neighbours, ``none`` nothing.
    With the start cell unknown, the fewest any first click keeps (a corner's): the exact check
    comes at the first click.
    """
    if rule == "none":
        return 0
    if rule == "safe":
        return 1
    if rule == "zero":
        corner = 0 if start is None else start
        return 1 + len(geometry(width, height).neighbours(corner))
    raise SizeError(f"unknown first-click rule {rule!r}; choose one of {', '.join(RULES)}")


def check_mines(width: int, height: int, mines: int, rule: str = "none", start: int | None = None) -> None:
    """Raise :class:`SizeError` unless ``mines`` fits the board under ``rule``."""
    check_dimensions(width, height)
    if not isinstance(mines, int) or isinstance(mines, bool):
        raise SizeError(f"the mine count must be a whole number, not {mines!r}")
    if mines < 0:
        raise SizeError(f"the mine count cannot be negative, got {mines}")
    room = width * height - reserved_cells(width, height, rule, start)
    if mines > room:
        raise SizeError(
            f"{mines} mines do not fit a {width}x{height} board under the {rule!r} rule (at most {room})"
        )


_SIZE_RE = re.compile(r"^\s*(\d+)\s*[xX]\s*(\d+)\s*(?:[xX]\s*(\d+)\s*)?$")


def parse_size(text: str, rule: str = "none") -> tuple[int, int, int]:
    """Parse a preset name or ``WxHxM`` into ``(width, height, mines)``.

    >>> parse_size("expert")
    (30, 16, 99)
    >>> parse_size("10x8x12")
    (10, 8, 12)
    >>> parse_size("0x5x1")
    Traceback (most recent call last):
    ...
    demine.errors.SizeError: width must be at least 1, got 0
    """
    preset = PRESETS.get(text.strip().lower())
    if preset is not None:
        return preset.width, preset.height, preset.mines
    m = _SIZE_RE.match(text)
    if not m or m.group(3) is None:
        names = ", ".join(PRESETS)
        raise SizeError(f"{text!r} is neither a preset ({names}) nor a size WxHxM like 30x16x99")
    width, height, mines = int(m.group(1)), int(m.group(2)), int(m.group(3))
    check_mines(width, height, mines, rule)
    return width, height, mines


def parse_cell(text: str, width: int, height: int) -> int:
    """Parse ``R,C`` into a cell of a ``width`` x ``height`` board."""
    parts = text.replace(" ", "").split(",")
    if len(parts) != 2 or not all(p.lstrip("-").isdigit() for p in parts):
        raise SizeError(f"{text!r} is not a cell; write it as ROW,COL like 3,3")
    return geometry(width, height).cell(int(parts[0]), int(parts[1]))


def mine_cells_allowed(geo: Geometry, rule: str, first: int) -> list[int]:
    """The cells that may hold a mine when the first click is ``first`` under ``rule``, in order:
    all but ``first`` (``safe``), nor its neighbours (``zero``), every cell (``none``)."""
    keep = set() if rule == "none" else {first}
    if rule == "zero":
        keep.update(geo.neighbours(first))
    out = list(range(geo.width * geo.height))
    for c in sorted(keep, reverse=True):  # (the last first: the others keep their places)
        del out[c]
    return out


def default_start(width: int, height: int, rule: str) -> int:
    """The field's usual start cell: the corner for ``safe``/``none``; for ``zero``, (3,3) on
    boards of expert size or more and (2,2) on smaller ones (clamped to the board)."""
    if rule != "zero":
        return 0
    k = 3 if width >= 30 and height >= 16 else 2
    return min(k, height - 1) * width + min(k, width - 1)
