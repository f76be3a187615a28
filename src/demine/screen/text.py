"""Mine counts written as text beside a board, read with Tesseract's OCR: Tatham's Mines'
status line (``Marked: 3 / 10``), GNOME Mines' label under its flag (``0/40``), KMines' status
bar (``Mines: 5/40``), demine's page (``Mines left 7``, ``Expert 30x16/99``).

The words near the board are read (the board itself painted over, so its numbers are not taken
for text), line by line, and each line is matched against the forms above
(:func:`count_from_lines`). A wrong total would mislead every probability that uses the count,
so the reader answers only when it is sure: a ``flags / total`` form only where its first
number is the flags the board shows, and every form found agreeing. Anything else is no count.

Tesseract is a program (Debian's ``tesseract-ocr``), reached through ``pytesseract``; where
either is missing, :func:`ocr_missing` says which and nothing is read.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from PIL import Image

#: The board's box is grown by this many cells, and at least ``MARGIN_PX``, to find the text
#: about it (a count is written beside the board, not across the screen).
MARGIN_CELLS, MARGIN_PX = 10, 160
#: The reads tried in turn until one gives a count: Tesseract's page segmentation mode (6: one
#: block of text, 11: sparse words) and the scale the text is read at. On the 63 screenshots and
#: variants of tests/data/screen that show a count as text, the first read gave all 63 (0.51 s
#: each on average); sparse words at their own size gave 56, twice the size 59.
ATTEMPTS = ((6, 1), (11, 2))

_SIZE_TOTAL = re.compile(r"(\d+)\s*[x×]\s*(\d+)\s*/\s*(\d+)")
_LEFT = re.compile(r"mines\s+left\s*:?\s*(-?\d+)", re.IGNORECASE)
_SHOWN_TOTAL = re.compile(r"(?<![\d/])(\d+)\s*/\s*(\d+)(?![\d/])")
#: A lone letter O before a slash and a number: a 0 that Tesseract read as a letter (GNOME's
#: "0/40" scaled 1.5x); the flags it then says are checked like any other.
_O_FOR_ZERO = re.compile(r"(?<![A-Za-z\d])[oO](?=\s*/\s*\d)")


@dataclass(frozen=True)
class CountText:
    """A mine total read from text."""

    total: int
    """The mines on the board."""
    text: str
    """The line it was read from."""


def count_from_lines(lines: Iterable[str], width: int, height: int, flags: int) -> CountText | None:
    """The mine total that lines of text beside a ``width`` x ``height`` board with ``flags``
    flags say, or None when they say none or disagree. The forms: ``W x H / M`` (a size and a
    total, taken only for this board's size), ``Mines left N`` (the total less the flags), and
    ``F / M`` (the flags and the total, taken only where ``F`` is ``flags``).

    >>> count_from_lines(["[0:06] Marked: 3 / 10 (4 safe squares r..."], 9, 9, 3)
    CountText(total=10, text='[0:06] Marked: 3 / 10 (4 safe squares r...')
    >>> count_from_lines(["Mines left 95 playing", "Board Expert 30x16/99"], 30, 16, 4)
    CountText(total=99, text='Mines left 95 playing')
    >>> count_from_lines(["Mines: 5/40 Time: 00:28"], 16, 16, 4) is None  # 5 flags said, 4 shown
    True
    >>> count_from_lines(["o/40", "00:03"], 16, 16, 0).total  # a 0 read as a letter
    40
    """
    found: list[CountText] = []
    for line in lines:
        rest = _O_FOR_ZERO.sub("0", line)
        for m in _SIZE_TOTAL.finditer(line):
            w, h, total = (int(g) for g in m.groups())
            if (w, h) == (width, height):
                found.append(CountText(total, line))
            rest = rest.replace(m.group(0), " ")
        for m in _LEFT.finditer(rest):
            found.append(CountText(int(m.group(1)) + flags, line))
        for m in _SHOWN_TOTAL.finditer(rest):
            shown, total = int(m.group(1)), int(m.group(2))
            if shown == flags:
                found.append(CountText(total, line))
    totals = {c.total for c in found}
    if len(totals) != 1 or not 0 < found[0].total < width * height:
        return None
    return found[0]


def ocr_missing() -> str | None:
    """Why counts written as text cannot be read here (with what to install), or None."""
    try:
        import pytesseract  # noqa: F401
    except ImportError:
        return "pytesseract is not installed (pip install 'demine[screen]')"
    if shutil.which("tesseract") is None:
        return "the tesseract program is not installed (Debian: apt-get install tesseract-ocr)"
    return None


def read_count(
    img: Image.Image,
    box: tuple[int, int, int, int],
    cell: float,
    width: int,
    height: int,
    flags: int,
    *,
    margin: int | None = None,
    fits: Callable[[int], bool] | None = None,
) -> CountText | None:
    """The mine total written beside the ``width`` x ``height`` board at ``box`` in ``img``
    (:func:`count_from_lines` of :func:`text_lines` within ``margin``), or None; the reads of
    ``ATTEMPTS`` in turn until one gives a count (that ``fits`` takes, when given: a count the
    board cannot hold is a misread, and the next read may get it right)."""
    for layout, scale in ATTEMPTS:
        lines = text_lines(img, box, cell, margin=margin, layout=layout, scale=scale)
        found = count_from_lines(lines, width, height, flags)
        if found is not None and (fits is None or fits(found.total)):
            return found
    return None


def text_lines(
    img: Image.Image,
    box: tuple[int, int, int, int],
    cell: float,
    *,
    margin: int | None = None,
    layout: int = 11,
    scale: int = 1,
) -> list[str]:
    """The lines of text within ``margin`` pixels of the board at ``box`` in ``img`` (default:
    ``MARGIN_CELLS`` cells, at least ``MARGIN_PX``), the board painted over, as Tesseract reads
    them with its page segmentation mode ``layout`` (11: sparse words, 6: a block; Tesseract
    inverts light text on dark itself); none where OCR is missing (:func:`ocr_missing`). A line
    that the margin's edge cuts through is left out."""
    if ocr_missing() is not None:
        return []
    import pytesseract

    width, height = img.size
    left, top, right, bottom = box
    if margin is None:
        margin = max(MARGIN_PX, round(MARGIN_CELLS * cell))
    x0, y0 = max(0, left - margin), max(0, top - margin)
    x1, y1 = min(width, right + margin), min(height, bottom + margin)
    grey = np.array(img.convert("L").crop((x0, y0, x1, y1)))
    # the board painted over, so that Tesseract takes the text beside it for the only content:
    # in the shade of the band a cell wide around it (its window's, not a desktop's; white,
    # or a shade far from the window's, unsettles Tesseract's threshold and layout)
    pad, band = max(1, round(cell / 2)), max(2, round(cell))

    def around(p: int) -> NDArray[np.bool_]:
        inside = np.zeros(grey.shape, dtype=bool)
        inside[
            max(0, top - p - y0) : max(0, bottom + p - y0), max(0, left - p - x0) : max(0, right + p - x0)
        ] = True
        return inside

    board = around(pad)
    ring = grey[around(pad + band) & ~board]
    grey[board] = np.uint8(np.median(ring)) if ring.size else 255
    shot = Image.fromarray(grey)
    if scale > 1:
        shot = shot.resize((shot.width * scale, shot.height * scale), Image.Resampling.LANCZOS)
    data: dict[str, list[Any]] = pytesseract.image_to_data(
        shot, config=f"--psm {layout}", output_type=pytesseract.Output.DICT
    )
    # a line with a word near the crop's edge (not the image's), closer than the word is tall,
    # is left out whole: "0/40" cut to "0/4" would be a wrong total (the cut "0" is no glyph,
    # so the "4" ends short of the edge)
    edges = (x0 > 0, y0 > 0, x1 < width, y1 < height)
    lines: dict[tuple[int, int, int], list[str]] = {}
    cut: set[tuple[int, int, int]] = set()
    for i, word in enumerate(data["text"]):
        if not str(word).strip():
            continue
        key = (data["block_num"][i], data["par_num"][i], data["line_num"][i])
        wl, wt = data["left"][i], data["top"][i]
        wr, wb = wl + data["width"][i], wt + data["height"][i]
        gap = max(3, data["height"][i])
        touches = (wl < gap, wt < gap, wr > shot.width - gap, wb > shot.height - gap)
        if any(e and t for e, t in zip(edges, touches, strict=True)):
            cut.add(key)
        lines.setdefault(key, []).append(str(word))
    return [" ".join(words) for key, words in lines.items() if key not in cut]
