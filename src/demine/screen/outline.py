"""Where a board ends: a grid's outer lines that are no part of the board trimmed
(:func:`trim`: a frame, a toolbar, a panel taken for cells), the lines beyond its edges that read
as board grown onto it (:func:`extend`), and the rule every game keeps that tells a misread cell
(:func:`zero_beside_covered`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from PIL import Image

from demine.screen.cells import classify
from demine.screen.grid import Grid, Lattice, edge_maps
from demine.screen.tiles import TILE, Skin, cut_tiles

#: Rows of pixels above and below a band looked at for edges (an edge counts in runs of 8 px).
MIN_RUN_PAD = 8


def zero_beside_covered(labels: list[str], cols: int, rows: int) -> list[int]:
    """The cells read as an open 0 with a covered, unmarked neighbour (diagonals too), in
    reading order. No game shows one (opening a 0 opens its neighbours; a flag or a question
    mark may stay beside it), so each is a misread: a covered cell taken for a 0 would make
    its neighbours look proven safe.

    >>> zero_beside_covered(["0", "1", "H", "0", "1", "1", "1", "1", "1"], 3, 3)
    []
    >>> zero_beside_covered(["0", "H", "1", "1", "1", "1", "F", "0", "1"], 3, 3)
    [0]
    """
    lab = np.array(labels, dtype=object).reshape(rows, cols)
    return [int(c) for c in np.flatnonzero((lab == "0") & (_around(lab == "H") > 0))]


def _around(mask: NDArray[np.bool_]) -> NDArray[np.int32]:
    """Each cell's count of neighbours (diagonals too, the cell itself not) where ``mask``
    holds."""
    rows, cols = mask.shape
    padded = np.zeros((rows + 2, cols + 2), dtype=np.int32)
    padded[1:-1, 1:-1] = mask
    count = np.zeros((rows, cols), dtype=np.int32)
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            if (dy, dx) != (1, 1):
                count += padded[dy : dy + rows, dx : dx + cols]
    return count


def numbers_contradicted(labels: list[str], cols: int, rows: int) -> list[int]:
    """The cells read as a number that their neighbours (diagonals too) rule out, in reading
    order: fewer than the mines shown around it (a lost game's mines, its exploded one), or
    more than those and the neighbours that may hold one (covered, flagged, marked ``?``). Each
    is a misread: a digit the templates lack, read as one they hold (an 8 as a 0, a 5 as a 4).

    >>> numbers_contradicted(["mine", "mine", "H", "2", "1", "H"], 3, 2)
    [4]
    >>> numbers_contradicted(["0", "1", "1", "1", "2", "H", "1", "H", "F"], 3, 3)
    []
    """
    lab = np.array(labels, dtype=object).reshape(rows, cols)
    low = _around(np.isin(lab, ("mine", "exploded")))
    high = low + _around(np.isin(lab, ("H", "F", "?")))
    digit = np.isin(lab, tuple("012345678"))
    value = np.where(digit, lab, "0").astype(np.int32)
    return [int(c) for c in np.flatnonzero(digit & ((value < low) | (value > high)))]


def extend(
    img: Image.Image, grid: Grid, skin: Skin, labels: list[str], dist: NDArray[np.float32]
) -> tuple[Grid, list[str], NDArray[np.float32], NDArray[np.bool_]]:
    """The grid grown by the rows and columns beyond its edges that read as more of the board.

    The lattice found may stop short of the board where the lines between its cells are faint
    (a screenshot scaled by a smoothing filter softens them below an edge's step), or start on
    the window's frame a few pixels off the board with its period a little long, so that the
    outer row fits no template and is trimmed. A board read short is a wrong read, not an
    unreadable one.

    A line beyond an edge is looked for at the lattice's period, shifted by up to 15% of it (in
    steps of 5%). It is taken when every cell is sure under the board's skin and as close to its
    template as the board's own cells are (its median within 2.5 times theirs), it holds a cell
    other than an open 0 (a flat panel reads as a row of 0s), and it holds a number, a flag or a
    mine, or the boundaries between its cells show edges as the board's own outer line does (a flat
    background beside the board fits a covered cell of some skins). A shifted line refits that
    axis's lattice from the new line's outer edge to the far edge, and the whole grid is read again:
    taken only when every cell is sure and the rules allow it (no open 0 beside a covered cell).
    Lines are added while any is."""
    rgb = np.asarray(img)
    typical = max(float(np.median(dist)), 1.0)
    sure = np.ones(len(labels), dtype=bool)
    while True:
        grown = _grow(img, rgb, grid, skin, typical)
        if grown is None:
            return grid, labels, dist, sure
        grid, labels, dist = grown


def _grow(
    img: Image.Image, rgb: NDArray[np.uint8], grid: Grid, skin: Skin, typical: float
) -> tuple[Grid, list[str], NDArray[np.float32]] | None:
    """:func:`_extend`'s one step: the grid with one more line and its read, or None."""
    for side in ("top", "bottom", "left", "right"):
        along = grid.y if side in ("top", "bottom") else grid.x
        size = img.height if side in ("top", "bottom") else img.width
        inner = _inner_line(grid, side)
        edges_inner = _lines_at_teeth(rgb, inner, side)
        period = along.period
        base = along.start - period if side in ("top", "left") else along.end
        tried: list[tuple[float, float]] = []  # (median distance, start of the line)
        # in steps of 5% of a cell: a template matches a tile moved by a sixteenth of a cell
        lines: list[tuple[float, Grid]] = []
        for shift in (0.0, -0.05, 0.05, -0.1, 0.1, -0.15, 0.15):
            at = base + shift * period
            if at < -0.5 or at + period > size + 0.5:
                continue
            at = min(max(0.0, at), size - period)
            one = Lattice(at, period, 1, along.score)
            lines.append((at, Grid(grid.x, one) if side in ("top", "bottom") else Grid(one, grid.y)))
        if not lines:
            continue
        # every shift's tiles in one look, none looked at twice (a line off the board is many
        # tiles not sure, and the second look costs most of a read)
        tiles = np.concatenate([cut_tiles(img, line).reshape(-1, TILE, TILE, 3) for _, line in lines])
        all_labels, all_dist, all_sure = classify(skin, tiles[None], second_look=False)
        n = len(tiles) // len(lines)
        for k, (at, line) in enumerate(lines):
            new_labels = all_labels[k * n : (k + 1) * n]
            new_dist, new_sure = all_dist[k * n : (k + 1) * n], all_sure[k * n : (k + 1) * n]
            if (
                not bool(new_sure.all())
                or float(np.median(new_dist)) > max(2.5 * typical, 15.0)
                or all(v == "0" for v in new_labels)
            ):
                continue
            # a number, a flag or a mine is the board's; a line of covered cells and 0s only
            # when the boundaries between its cells show as many edges as the board's own line
            if (
                all(v in ("H", "0") for v in new_labels)
                and _lines_at_teeth(rgb, line, side) < 0.6 * edges_inner
            ):
                continue
            tried.append((float(np.median(new_dist)), at))
        for _, at in tried:  # the least shifted first
            if side in ("top", "left"):
                first, last = at, along.end
            else:
                first, last = along.start, at + period
            refit = Lattice(first, (last - first) / (along.count + 1), along.count + 1, along.score)
            bigger = Grid(grid.x, refit) if side in ("top", "bottom") else Grid(refit, grid.y)
            labels, dist, sure = classify(skin, cut_tiles(img, bigger))
            cols, rows = bigger.x.count, bigger.y.count
            if sure.all() and not zero_beside_covered(labels, cols, rows):
                return bigger, labels, dist
    return None


def _inner_line(grid: Grid, side: str) -> Grid:
    """The grid's own outermost line on ``side``, as a grid of one line."""
    x, y = grid.x, grid.y
    if side == "top":
        return Grid(x, Lattice(y.start, y.period, 1, y.score))
    if side == "bottom":
        return Grid(x, Lattice(y.end - y.period, y.period, 1, y.score))
    if side == "left":
        return Grid(Lattice(x.start, x.period, 1, x.score), y)
    return Grid(Lattice(x.end - x.period, x.period, 1, x.score), y)


def _lines_at_teeth(rgb: NDArray[np.uint8], line: Grid, side: str) -> float:
    """The share of the boundaries between (and around) the cells of a one-cell ``line`` that
    show an edge across most of the line's width: a row of cells has upright edges at the
    columns' boundaries, a flat background beside the board none (Tatham's covered cells and
    its window's grey fit the same template)."""
    across = line.x if side in ("top", "bottom") else line.y  # the lattice along the line
    band = line.y if side in ("top", "bottom") else line.x  # the line's one cell, across it
    h, w = rgb.shape[:2]
    lo, hi = band.start + 0.15 * band.period, band.end - 0.15 * band.period
    pad = int(band.period) + MIN_RUN_PAD
    if side in ("top", "bottom"):
        y0, y1 = max(0, int(lo) - pad), min(h, int(hi) + pad)
        x0, x1 = max(0, int(across.start) - 4), min(w, int(across.end) + 5)
        vx, _ = edge_maps(rgb[y0:y1, x0:x1])
        edges = vx[int(lo) - y0 : int(hi) - y0].sum(axis=0)  # per column boundary
        origin = x0
    else:
        y0, y1 = max(0, int(across.start) - 4), min(h, int(across.end) + 5)
        x0, x1 = max(0, int(lo) - pad), min(w, int(hi) + pad)
        _, hy = edge_maps(rgb[y0:y1, x0:x1])
        edges = hy[:, int(lo) - x0 : int(hi) - x0].sum(axis=1)
        origin = y0
    need = 0.5 * (hi - lo)
    found = 0
    for k in range(across.count + 1):
        at = round(across.start + k * across.period) - origin
        near = edges[max(0, at - 3) : at + 3]
        found += bool(len(near)) and float(near.max()) >= need
    return found / (across.count + 1)


def trim(
    grid: Grid, labels: list[str], dist: NDArray[np.float32], sure: NDArray[np.bool_]
) -> tuple[Grid, list[str], NDArray[np.float32], NDArray[np.bool_]]:
    """The grid less outer rows and columns that are no part of the board (a frame, a toolbar,
    a counter's panel, a window's background taken for cells), the worst first.

    First the lines a quarter or more unread, or all much further from their templates than the
    board is (a panel's flat grey fits an open cell loosely); then the lines with an open 0
    beside a covered cell, which the rules forbid (a 0 opens its neighbours)."""
    rows, cols = grid.y.count, grid.x.count
    ok = sure.reshape(rows, cols)
    dd = dist.reshape(rows, cols)
    typical = float(np.median(dd))
    lab = np.array(labels, dtype=object).reshape(rows, cols)
    zero = lab == "0"
    shut = np.isin(lab, ["H", "F", "?"])
    r0, r1, c0, c1 = 0, rows, 0, cols

    def unread(at: tuple[Any, Any], inward: tuple[Any, Any]) -> float:
        if float(np.median(dd[at])) > max(2.5 * typical, 15.0):
            return 1.0
        return 1.0 - float(ok[at].mean())

    def broken(at: tuple[Any, Any], inward: tuple[Any, Any]) -> float:
        near = shut[inward].copy()
        near[1:] |= shut[inward][:-1]
        near[:-1] |= shut[inward][1:]
        return float((zero[at] & near).mean())

    for measure, floor in ((unread, 0.25), (broken, 1e-9)):
        while r1 - r0 > 4 and c1 - c0 > 4:
            sides = [
                (measure((r0, slice(c0, c1)), (r0 + 1, slice(c0, c1))), "top"),
                (measure((r1 - 1, slice(c0, c1)), (r1 - 2, slice(c0, c1))), "bottom"),
                (measure((slice(r0, r1), c0), (slice(r0, r1), c0 + 1)), "left"),
                (measure((slice(r0, r1), c1 - 1), (slice(r0, r1), c1 - 2)), "right"),
            ]
            worst, side = max(sides)
            if worst < floor:
                break
            if side == "top":
                r0 += 1
            elif side == "bottom":
                r1 -= 1
            elif side == "left":
                c0 += 1
            else:
                c1 -= 1
    if (r0, r1, c0, c1) == (0, rows, 0, cols):
        return grid, labels, dist, sure
    keep = np.zeros((rows, cols), dtype=bool)
    keep[r0:r1, c0:c1] = True
    idx = np.flatnonzero(keep.reshape(-1))
    x, y = grid.x, grid.y
    new = Grid(
        Lattice(x.start + c0 * x.period, x.period, c1 - c0, x.score),
        Lattice(y.start + r0 * y.period, y.period, r1 - r0, y.score),
    )
    return new, [labels[i] for i in idx], dist[idx], sure[idx]
