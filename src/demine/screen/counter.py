"""The mine counter over a board: red seven-segment digits on black, as xdemineur and
JSMinesweeper's page draw it (and Windows' Minesweeper, which both copy).

The counter shows the mines less the flags placed, so the total is the counter plus the flags
on the board (:func:`total_from_counter`). A wrong total would mislead every probability and
every deduction that uses the count, so the reader answers only when it is sure: each digit's
seven segments each clearly lit or clearly dark, on a black box, in a pattern that is a digit.
Anything else is no counter (None), and the position keeps no total unless one is given.

Programs that write their count as text (Tatham's Mines' status line, GNOME Mines' and KMines'
labels, demine's page) are read by :mod:`demine.screen.text`, with Tesseract's OCR; their total
can also be given (``--mines``), and ``demine screen play`` knows it from the board it asked for.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

#: The segments lit for each digit, in the order a (top), b (top right), c (bottom right),
#: d (bottom), e (bottom left), f (top left), g (middle).
SEGMENTS: dict[tuple[int, ...], str] = {
    (1, 1, 1, 1, 1, 1, 0): "0",
    (0, 1, 1, 0, 0, 0, 0): "1",
    (1, 1, 0, 1, 1, 0, 1): "2",
    (1, 1, 1, 1, 0, 0, 1): "3",
    (0, 1, 1, 0, 0, 1, 1): "4",
    (1, 0, 1, 1, 0, 1, 1): "5",
    (1, 0, 1, 1, 1, 1, 1): "6",
    (1, 1, 1, 0, 0, 0, 0): "7",
    (1, 1, 1, 1, 1, 1, 1): "8",
    (1, 1, 1, 1, 0, 1, 1): "9",
    (0, 0, 0, 0, 0, 0, 1): "-",
}
#: A digit's height in pixels at the least (a counter drawn smaller is not read).
MIN_HEIGHT = 9
#: A segment is lit when at least this share of its pixels is, dark when at most ``DARK``.
LIT, DARK = 0.65, 0.15


def _lit(rgb: NDArray[np.int16]) -> NDArray[np.bool_]:
    """A lit segment's pixels: bright red (an unlit one is black or dark red)."""
    return (rgb[..., 0] > 140) & (rgb[..., 1] < 100) & (rgb[..., 2] < 100)


def _runs(flags: NDArray[np.bool_]) -> list[tuple[int, int]]:
    """The runs of True in a 1-D array, as (first, last)."""
    out: list[tuple[int, int]] = []
    start = None
    for i, f in enumerate(flags.tolist()):
        if f and start is None:
            start = i
        elif not f and start is not None:
            out.append((start, i - 1))
            start = None
    if start is not None:
        out.append((start, len(flags) - 1))
    return out


def read_counter(rgb: NDArray[np.uint8], box: tuple[int, int, int, int], cell: float) -> int | None:
    """The leftmost seven-segment counter in the band over the board (``box``: its left, top,
    right, bottom; ``cell``: a cell's width), or None where there is none or a digit of it is
    not sure. A minus sign (the middle segment alone, first) makes it negative: more flags
    than mines.

    >>> img = np.full((80, 200, 3), 190, dtype=np.uint8)
    >>> img[10:40, 10:60] = 0
    >>> for x in (14, 38):  # two sevens, each a top bar and a right side
    ...     img[13:16, x : x + 14] = (255, 0, 0)
    ...     img[13:37, x + 11 : x + 14] = (255, 0, 0)
    >>> read_counter(img, (0, 60, 200, 80), 20.0)
    77
    """
    left, top, right, _ = box
    y0 = max(0, int(top - max(3 * cell, 64)))
    x0 = max(0, int(left - cell))
    band = rgb[y0 : max(0, top), x0:right].astype(np.int16)
    if band.size == 0:
        return None
    lit = _lit(band)
    blobs = []  # each lit column run with the rows it lights
    for a, b in _runs(np.asarray(lit.any(axis=0))):
        rows = np.flatnonzero(lit[:, a : b + 1].any(axis=1))
        blobs.append((a, b, int(rows[0]), int(rows[-1]), int(lit[:, a : b + 1].sum())))
    if not blobs:
        return None
    height = max(y1 - y0_ + 1 for _, _, y0_, y1, _ in blobs)
    if height < MIN_HEIGHT:
        return None
    # a few red pixels apart (a compressed image's fringe, a face's mouth) are no digit: the
    # least of one, a minus sign, lights a digit's width by a tenth of its height
    blobs = [blob for blob in blobs if blob[4] >= height]
    if not blobs:
        return None
    # the leftmost counter: blobs each closer to the last than 1.2 digit heights (a one sits at
    # its digit's right, most of a digit from the one before)
    group = [blobs[0]]
    for blob in blobs[1:]:
        if blob[0] - group[-1][1] > 1.2 * height:
            break
        group.append(blob)
    ya, yb = min(g[2] for g in group), max(g[3] for g in group)
    if yb - ya + 1 < 0.9 * height:
        return None
    xa, xb = group[0][0], group[-1][1]
    area = band[ya : yb + 1, xa : xb + 1]
    reddish = (area[..., 1] < 100) & (area[..., 2] < 100)  # black, dark red or red
    if reddish.mean() < 0.9:
        return None  # red on something else: not a counter
    full = max(b - a + 1 for a, b, _, _, _ in group)
    text = ""
    for a, b, _, _, _ in group:
        digit = _digit(lit[ya : yb + 1], a, b, full)
        if digit is None:
            return None
        text += digit
    if "-" in text[1:] or text == "-":
        return None
    return int(text)


def _digit(lit: NDArray[np.bool_], a: int, b: int, full: int) -> str | None:
    """The digit lit in columns ``a``-``b`` of ``lit`` (the counter's rows), ``full`` the
    widest digit's width; None when a segment is neither clearly lit nor clearly dark."""
    h = lit.shape[0]
    w = b - a + 1
    t = max(1, round(h * 0.1))  # a segment's thickness, about a tenth of the height
    if w < 0.5 * full:  # a one: the right side alone, narrower than the others
        upper, lower = lit[t : h // 2 - t, a : b + 1], lit[h // 2 + t : h - t, a : b + 1]
        if upper.size and lower.size and upper.any(axis=1).mean() > 0.8 and lower.any(axis=1).mean() > 0.8:
            return "1"
        return None
    cell = lit[:, a : b + 1]
    mid_x = slice(max(t, w // 4), min(w - t, w - w // 4))
    q, r = h // 4, max(1, h // 12)
    # each segment's window, away from its neighbours, and whether it lies across (its lines
    # are rows) or along (columns); its share is its best line's, whatever its thickness
    across = ((0, 2 * t), (h // 2 - t, h // 2 + t), (h - 1 - 2 * t, h - 1))
    windows = (
        (cell[across[0][0] : across[0][1] + 1, mid_x], 1),  # a
        (cell[q - r : q + r + 1, w - 2 * t - 1 : w], 0),  # b
        (cell[3 * q - r : 3 * q + r + 1, w - 2 * t - 1 : w], 0),  # c
        (cell[across[2][0] : across[2][1] + 1, mid_x], 1),  # d
        (cell[3 * q - r : 3 * q + r + 1, 0 : 2 * t + 1], 0),  # e
        (cell[q - r : q + r + 1, 0 : 2 * t + 1], 0),  # f
        (cell[across[1][0] : across[1][1] + 1, mid_x], 1),  # g
    )
    pattern = []
    for part, axis in windows:
        share = float(part.mean(axis=axis).max()) if part.size else 0.0
        if share >= LIT:
            pattern.append(1)
        elif share <= DARK:
            pattern.append(0)
        else:
            return None
    return SEGMENTS.get(tuple(pattern))


def total_from_counter(counter: int, flags: int, cells: int) -> int | None:
    """The mine total a counter of ``counter`` means with ``flags`` flags on a board of
    ``cells`` cells (the counter is the mines less the flags), or None when no board could
    show it: no mine, or every cell one.

    >>> total_from_counter(129, 1, 480), total_from_counter(-2, 12, 81), total_from_counter(0, 0, 81)
    (130, 10, None)
    """
    total = counter + flags
    return total if 0 < total < cells else None
