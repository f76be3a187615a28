"""Whole-board counts around every cell at once: a board's 0/1 marks, one byte a cell, read as
one integer (a *lane* of 8 bits per cell) and added up shifted by a row or a column. Python's
integers do the work at C speed: a few operations on a number of ``cells`` bytes instead of a
loop over the cells (what a guess rule needs when it looks at hundreds of cells).

A count is at most 9 (a cell and its 8 neighbours), so the lanes never carry into each other.

>>> sums = neighbour_sums(3, 3, bytes([1, 0, 0, 0, 0, 0, 0, 0, 1]))
>>> list(sums)
[0, 1, 0, 1, 2, 1, 0, 1, 0]
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

#: 1 for a count above 0, for :meth:`bytes.translate`.
NONZERO = bytes(1 if v else 0 for v in range(256))


@lru_cache(maxsize=8)
def _edges(width: int, height: int) -> tuple[int, int, int]:
    """The lanes of every cell, of the cells not in the last column and of those not in the
    first column (255 in each such cell's byte: masks)."""
    n = width * height
    every = int.from_bytes(b"\xff" * n, "little")
    not_last = int.from_bytes(bytes(0 if c % width == width - 1 else 255 for c in range(n)), "little")
    not_first = int.from_bytes(bytes(0 if c % width == 0 else 255 for c in range(n)), "little")
    return every, not_last, not_first


def neighbour_sums(width: int, height: int, marks: bytes) -> bytes:
    """For each cell of a ``width`` x ``height`` board, how many of its neighbours (up to 8, not
    itself) have a 1 in ``marks`` (one byte a cell, each 0 or 1)."""
    n = width * height
    every, not_last, not_first = _edges(width, height)
    x = int.from_bytes(marks, "little")
    row = 8 * width
    col = x + (x >> row) + ((x << row) & every)  # the cell, above and below it
    total = col + ((col >> 8) & not_last) + ((col << 8) & not_first)
    return (total - x).to_bytes(n, "little")


@lru_cache(maxsize=8)
def _numbers(n: int) -> tuple[int, ...]:
    return tuple(range(n))


def cell_numbers(n: int) -> Sequence[int]:
    """The cells ``0 .. n - 1``, to pick cells by a mask with :func:`itertools.compress`: a kept
    tuple of them on a board of at most 65,536 cells (a ``range`` makes a new number object for
    every cell, picked or not: twice the time), else a ``range``."""
    return _numbers(n) if n <= 65536 else range(n)
