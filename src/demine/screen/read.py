"""The reader: a screenshot of a Minesweeper board in, the position it shows out.

>>> from demine.screen.read import read_board          # doctest: +SKIP
>>> read = read_board(Image.open("shot.png"))           # doctest: +SKIP
>>> print(read.position.to_text())                      # doctest: +SKIP

How: the grid is found from the edges that repeat at the cell's period (:mod:`.grid`); each cell
is resampled to a small tile (:mod:`.tiles`) and matched with the templates of each known skin,
learned from real screenshots of its program; the skin whose templates fit the cells best is
the one read. A cell that no template of that skin fits is not guessed: the error names it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from PIL import Image

from demine.engine.position import COVERED, FLAG, Position
from demine.errors import DemineError
from demine.screen.counter import read_counter, total_from_counter
from demine.screen.grid import Grid, Lattice, edge_maps, find_grid, find_grids
from demine.screen.text import read_count
from demine.screen.tiles import TILE, Skin, cut_tiles, skins

#: A cell is read when its tile is within this RMS distance (0-255) of one of the skin's
#: templates, and the next label's template is at least ``MARGIN`` times as far.
MAX_DISTANCE = 60.0
MARGIN = 1.2
#: A grid whose cells are on average within this distance of their templates is a board of
#: that skin; a lattice of something else (a table, lines of text) fits far worse.
GOOD_FIT = 15.0
#: Rows of pixels above and below a band looked at for edges (an edge counts in runs of 8 px).
MIN_RUN_PAD = 8
#: A skin is tried on a grid's cells when a sample of them fits it within this many times the
#: distance of the skin that fits the sample best (and that one does not read them all).
SKIN_RIVAL = 2.0
#: The names a skin may have (``generic``: no template of its own).
SKIN_NAMES = ("tatham", "xdemineur", "gnome", "kmines", "demine-web", "jsm-web", "generic")


class UnreadableScreen(DemineError):
    """A screenshot the reader cannot read: no grid found, or cells it could not classify.

    ``cells`` lists the cells it could not classify, each ``(row, col, (left, top, right,
    bottom))`` in the image's pixels; ``read`` is the rest of the read (those cells given their
    nearest template's label, not to be trusted), when a grid was found.
    """

    def __init__(
        self,
        message: str,
        cells: tuple[tuple[int, int, tuple[int, int, int, int]], ...] = (),
        read: BoardRead | None = None,
    ) -> None:
        super().__init__(message)
        self.cells = cells
        self.read = read


@dataclass(frozen=True)
class BoardRead:
    """What a screenshot shows: the position, where the board is, and how it was read."""

    position: Position
    """Covered ``H``, flags ``F``, numbers; the total mine count when known (the counter read,
    or ``mines`` given). In a finished game the mines shown (the exploded one too) are covered
    cells and wrong flags are flags, as the player saw them before the end."""
    width: int
    """Cells across."""
    height: int
    """Cells down."""
    box: tuple[int, int, int, int]
    """The grid's box in the image's pixels: left, top, right, bottom (exclusive)."""
    cell_w: float
    """A cell's width in pixels."""
    cell_h: float
    """A cell's height in pixels."""
    skin: str
    """The skin matched (one of ``SKIN_NAMES``)."""
    counter: int | None
    """The mine counter as the program shows it (mines less flags), when read."""
    state: str
    """``playing``, ``won`` or ``lost``."""
    questions: frozenset[int] = frozenset()
    """Cells showing a question mark (covered in ``position``)."""
    exploded: int | None = None
    """The mine that lost the game, if shown."""
    mines_shown: frozenset[int] = frozenset()
    """A lost game's mines shown (not the exploded one; covered in ``position``)."""
    wrong_flags: frozenset[int] = frozenset()
    """Flags the finished game marks as wrong (flags in ``position``)."""
    face: tuple[int, int] | None = None
    """The new-game button's centre (a smiley), in the image's pixels, if the skin has one."""
    count_text: str | None = None
    """The line of text the mine total was read from (:mod:`demine.screen.text`), when it was."""
    distance: float = field(default=0.0, compare=False)
    """The largest distance of a cell's tile to its template (0-255; small: a sure read)."""

    def centre(self, cell: int) -> tuple[int, int]:
        """The pixel centre of ``cell`` (row-major index), for clicking."""
        r, c = divmod(cell, self.width)
        left, top = self.box[0], self.box[1]
        return round(left + (c + 0.5) * self.cell_w), round(top + (r + 0.5) * self.cell_h)

    def cell_box(self, cell: int) -> tuple[int, int, int, int]:
        """The pixel box of ``cell``: left, top, right, bottom (exclusive)."""
        r, c = divmod(cell, self.width)
        left, top = self.box[0], self.box[1]
        return (
            round(left + c * self.cell_w),
            round(top + r * self.cell_h),
            round(left + (c + 1) * self.cell_w),
            round(top + (r + 1) * self.cell_h),
        )

    def to_json(self) -> dict[str, Any]:
        """The read as JSON: the position's text and rows, the size, box, cell size, skin,
        counter, state, and the finished game's cells as ``[row, col]``."""
        w = self.width

        def rc(cells: frozenset[int]) -> list[list[int]]:
            return [list(divmod(c, w)) for c in sorted(cells)]

        return {
            "width": self.width,
            "height": self.height,
            "mines": self.position.mines,
            "text": self.position.to_text(),
            "rows": self.position.to_text().splitlines()[1:],
            "box": list(self.box),
            "cell_w": round(self.cell_w, 3),
            "cell_h": round(self.cell_h, 3),
            "skin": self.skin,
            "counter": self.counter,
            "count_text": self.count_text,
            "state": self.state,
            "questions": rc(self.questions),
            "exploded": None if self.exploded is None else list(divmod(self.exploded, w)),
            "mines_shown": rc(self.mines_shown),
            "wrong_flags": rc(self.wrong_flags),
            "face": None if self.face is None else list(self.face),
        }


def as_image(image: Any) -> Image.Image:
    """A PIL image (RGB) from a PIL image or an HxWx3 (or HxWx4) uint8 array."""
    if isinstance(image, Image.Image):
        return image if image.mode == "RGB" else image.convert("RGB")
    a = np.asarray(image)
    if a.ndim != 3 or a.shape[2] not in (3, 4) or a.dtype != np.uint8:
        raise UnreadableScreen(f"an image is an HxWx3 array of uint8, got shape {a.shape} of {a.dtype}")
    return Image.fromarray(np.ascontiguousarray(a[:, :, :3]), "RGB")


def read_board(
    image: Any,
    *,
    mines: int | None = None,
    skin: str | None = None,
    hint_box: tuple[int, int, int, int] | None = None,
    text: bool = True,
) -> BoardRead:
    """Read the board in ``image`` (a PIL image, or an HxWx3 uint8 array: a whole screen or a
    window). ``mines``: the total, when the counter cannot be read (it wins over the counter).
    ``skin``: read with that skin's templates only. ``hint_box``: where the board was last time
    (left, top, right, bottom): the grid is looked for there first. ``text``: where neither
    ``mines`` nor a seven-segment counter gives the total, read a count written as text beside
    the board (:mod:`demine.screen.text`, Tesseract's OCR: 0.15-1.7 s a read, where it is
    installed).

    Raises :class:`UnreadableScreen` when no grid is found or cells cannot be classified (it
    names them, with their pixel boxes).
    """
    img = as_image(image)
    if skin is not None and skin not in SKIN_NAMES:
        raise UnreadableScreen(f"unknown skin {skin!r}; the skins are {', '.join(SKIN_NAMES)}")
    rgb = np.asarray(img)
    candidates = [s for s in skins() if skin is None or s.name == skin]
    if not candidates:
        raise UnreadableScreen(f"no templates for the skin {skin!r}")
    grids = []
    near = _grid_near(rgb, hint_box) if hint_box is not None else None
    if near is not None:
        grids.append(near)
    if near is None or not _readable(img, near, candidates):
        # the whole image's strongest lattice first; the parts of a busy screen dense in
        # edges only when that one does not read
        first = find_grids(rgb, 1, regions=False)
        grids.extend(first)
        if not first or not _readable(img, first[0], candidates):
            grids.extend(find_grids(rgb, 3))
    if not grids:
        raise UnreadableScreen(
            f"no grid found in the {img.width}x{img.height} image: no lattice of at least 4x4 "
            "equal cells (10-80 px) with straight edges between them"
        )
    # the grid the templates read best: one whose cells they fit (a table or lines of text on
    # a desktop fit badly), then the most cells read (a part of the board also fits), then the
    # closest fit
    reads = [_match(img, g, candidates) for g in grids]
    best = max(reads, key=lambda m: _rank(m[0], m[4]))
    _, chosen, labels, dist, sure, grid = best  # (trimmed by _match)
    if bool(sure.all()):
        grid, labels, dist, sure = _extend(img, grid, chosen, labels, dist)
    rows, cols = grid.y.count, grid.x.count
    bad = np.flatnonzero(~sure)
    if len(bad):
        read = _assemble(grid, labels, chosen.name, mines, float(dist.max()))
        cells = tuple((int(c) // cols, int(c) % cols, read.cell_box(int(c))) for c in bad)
        shown = ", ".join(f"row {r} col {c} at {b}" for r, c, b in cells[:8])
        more = f" and {len(cells) - 8} more" if len(cells) > 8 else ""
        raise UnreadableScreen(
            f"a {cols}x{rows} grid of {grid.x.period:.1f}x{grid.y.period:.1f} px cells at "
            f"{read.box}, read as {chosen.name}, has {len(cells)} cell(s) that match no "
            f"template: {shown}{more}",
            cells,
            read,
        )
    read = _assemble(grid, labels, chosen.name, mines, float(dist.max()))
    forbidden = zero_beside_covered(labels, cols, rows)
    if forbidden:
        cells = tuple((c // cols, c % cols, read.cell_box(c)) for c in forbidden)
        shown = ", ".join(f"row {r} col {c} at {b}" for r, c, b in cells[:8])
        more = f" and {len(cells) - 8} more" if len(cells) > 8 else ""
        raise UnreadableScreen(
            f"a {cols}x{rows} grid of {grid.x.period:.1f}x{grid.y.period:.1f} px cells at "
            f"{read.box}, read as {chosen.name}, shows an open 0 beside a covered cell, which "
            f"no game shows (a 0 opens its neighbours): a cell misread, at {shown}{more}",
            cells,
            read,
        )
    counter = read_counter(rgb, read.box, grid.x.period)
    total, said = None, None
    if mines is None:
        flags = read.position.states.count(FLAG)
        if counter is not None:
            total = _fits(read, total_from_counter(counter, flags, read.width * read.height))
        if total is None and text:
            written = read_count(img, read.box, grid.x.period, read.width, read.height, flags)
            if written is not None and _fits(read, written.total) is not None:
                total, said = written.total, written.text
        if total is not None:
            read = _assemble(grid, labels, chosen.name, total, float(dist.max()))
    face = find_face(rgb, read.box, grid.x.period)
    return dataclasses.replace(read, counter=counter, count_text=said, face=face)


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
    covered = lab == "H"
    near = np.zeros((rows + 2, cols + 2), dtype=bool)
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            near[dy : dy + rows, dx : dx + cols] |= covered
    return [int(c) for c in np.flatnonzero((lab == "0") & near[1:-1, 1:-1])]


def _fits(read: BoardRead, total: int | None) -> int | None:
    """``total``, or None where the board cannot hold that many mines: fewer than it shows (the
    flags that are right, the mines a lost game shows), or more than its covered cells and
    flags."""
    if total is None:
        return None
    states = read.position.states
    flags = states.count(FLAG)
    shown = len(read.mines_shown) + (read.exploded is not None) + flags - len(read.wrong_flags)
    room = states.count(COVERED) + flags
    return total if shown <= total <= room else None


def find_face(rgb: NDArray[np.uint8], box: tuple[int, int, int, int], cell: float) -> tuple[int, int] | None:
    """The centre of a yellow face just above the board (in the three cells' height over it,
    within its width): the smiley that starts a new game (JSMinesweeper's page, xdemineur's),
    or None when there is none (its yellow at least a fifth of a cell's area).

    >>> img = np.full((200, 200, 3), 190, dtype=np.uint8)
    >>> img[40:60, 90:110] = (250, 220, 40)
    >>> find_face(img, (20, 80, 180, 180), 20.0)
    (99, 49)
    >>> find_face(img, (20, 150, 180, 190), 20.0) is None
    True
    """
    left, top, right, _ = box
    x0, y0 = max(0, left), max(0, int(top - 3 * cell))
    above = rgb[y0 : max(0, top), x0:right].astype(np.int16)
    if above.size == 0:
        return None
    yellow = (above[..., 0] > 200) & (above[..., 1] > 150) & (above[..., 0] - above[..., 2] > 80)
    if int(yellow.sum()) < cell * cell / 5:
        return None
    ys, xs = np.nonzero(yellow)
    return int(xs.mean()) + x0, int(ys.mean()) + y0


def _match(
    img: Image.Image, grid: Grid, candidates: list[Skin]
) -> tuple[float, Skin, list[str], NDArray[np.float32], NDArray[np.bool_], Grid]:
    """The skin that reads ``grid``'s cells best: (its mean distance, the skin, labels,
    distances, which cells are sure, the grid less what is no part of the board: :func:`_trim`).

    The skins are tried in the order they fit a sample of the cells, the first that reads every
    cell within ``GOOD_FIT`` kept; where it does not, the next ones whose sample fits nearly as
    well (``SKIN_RIVAL`` times as far at most) are tried too and the best read kept (as
    :func:`read_board` ranks grids): skins alike in their covered cells (demine's page and
    Tatham's, both grey bevels) may sample alike."""
    tiles = cut_tiles(img, grid)
    order = list(candidates)
    if len(candidates) > 1:
        flat = tiles.reshape(-1, *tiles.shape[2:])
        sample = flat[:: max(1, len(flat) // 48)]
        fits = {id(s): float(np.mean(np.minimum(s.distances(sample).min(axis=1), 99))) for s in candidates}
        order.sort(key=lambda s: fits[id(s)])
        first = fits[id(order[0])]
        order = [s for s in order if fits[id(s)] <= SKIN_RIVAL * max(first, 1.0)]
    best = None
    best_rank: tuple[bool, int, float] | None = None
    for s in order:
        # each skin's read less what is no part of the board by its templates (a page's panel
        # beside the board fits no skin's cells, but one skin may take it for cells)
        trimmed, labels, dist, sure = _trim(grid, *_classify(s, tiles))
        cost = float(np.mean(np.minimum(dist, MAX_DISTANCE * 2)))
        rank = _rank(cost, sure)
        if best_rank is None or rank > best_rank:
            best, best_rank = (cost, s, labels, dist, sure, trimmed), rank
        if rank[0] and bool(sure.all()):
            break
    assert best is not None
    return best


def _rank(cost: float, sure: NDArray[np.bool_]) -> tuple[bool, int, float]:
    """How well a read fits, to compare reads (of other grids or skins): first whether its cells
    fit their templates (a table or lines of text on a desktop fit badly), then the most cells
    read sure less three for each unsure one (a part of the board also fits), then the closest."""
    sure_count = int(sure.sum())
    return (cost <= GOOD_FIT, sure_count - 3 * (len(sure) - sure_count), -cost)


def _readable(img: Image.Image, grid: Grid, candidates: list[Skin]) -> bool:
    m = _match(img, grid, candidates)
    return bool(m[4].all()) and m[0] <= GOOD_FIT


def _grid_near(rgb: NDArray[np.uint8], box: tuple[int, int, int, int]) -> Grid | None:
    """The grid looked for in ``box`` grown by a fifth each way, in the image's pixels."""
    h, w = rgb.shape[:2]
    left, top, right, bottom = box
    mx, my = (right - left) // 5 + 8, (bottom - top) // 5 + 8
    x0, y0 = max(0, left - mx), max(0, top - my)
    x1, y1 = min(w, right + mx), min(h, bottom + my)
    if x1 - x0 < 40 or y1 - y0 < 40:
        return None
    g = find_grid(rgb[y0:y1, x0:x1])
    if g is None:
        return None
    return Grid(_shift(g.x, x0), _shift(g.y, y0))


def _shift(lat: Lattice, by: int) -> Lattice:
    return Lattice(lat.start + by, lat.period, lat.count, lat.score)


def _classify(
    skin: Skin, tiles: NDArray[np.float32], second_look: bool = True
) -> tuple[list[str], NDArray[np.float32], NDArray[np.bool_]]:
    """Each tile's nearest template's label, its distance, and whether it is sure: near enough,
    and the nearest template of another label at least ``MARGIN`` times as far (with
    ``second_look``, a tile not sure so is looked at again as partly hidden)."""
    flat = tiles.reshape(-1, tiles.shape[2], tiles.shape[3], 3)
    d = skin.distances(flat)
    order = np.argsort(d, axis=1)
    nearest = order[:, 0]
    dist = d[np.arange(len(d)), nearest]
    labels = [skin.labels[i] for i in nearest]
    lab = np.array(skin.labels)
    other = np.where(lab[None, :] == lab[nearest][:, None], np.inf, d).min(axis=1)
    sure = (dist <= MAX_DISTANCE) & (other >= MARGIN * dist)
    for i in np.flatnonzero(~sure).tolist() if second_look else []:
        # a second look at a cell partly hidden (a pointer over it): the pixels that differ
        # most, up to 30% of the tile, left out; taken only when one label is clearly nearest
        lab_i, d_i, ok = _occluded(skin, flat[i])
        if ok:
            labels[i] = lab_i
            dist[i] = d_i
            sure[i] = True
    return labels, dist.astype(np.float32), sure


#: The share of a tile's pixels that :func:`_occluded` leaves out.
HIDDEN_SHARE = 0.3


def _occluded(skin: Skin, tile: NDArray[np.float32]) -> tuple[str, float, bool]:
    """The nearest label of ``tile`` by a trimmed distance (the ``HIDDEN_SHARE`` of pixels that
    differ most left out), its distance, and whether it is sure: within MAX_DISTANCE / 2 and
    the next label at least 1.5 times as far."""
    t = tile.reshape(1, -1, 3)
    temps = skin.templates.reshape(len(skin.templates), -1, 3)
    d2 = ((temps - t) ** 2).sum(axis=2)  # (templates, pixels)
    keep = int(d2.shape[1] * (1 - HIDDEN_SHARE))
    trimmed = np.sqrt(np.sort(d2, axis=1)[:, :keep].mean(axis=1) / 3)
    order = np.argsort(trimmed)
    best = int(order[0])
    lab = skin.labels[best]
    others = [float(trimmed[j]) for j in order[1:] if skin.labels[j] != lab]
    d = float(trimmed[best])
    ok = d <= MAX_DISTANCE / 2 and (not others or others[0] >= 1.5 * max(d, 1.0))
    return lab, d, ok


def _extend(
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
        all_labels, all_dist, all_sure = _classify(skin, tiles[None], second_look=False)
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
            labels, dist, sure = _classify(skin, cut_tiles(img, bigger))
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


def _trim(
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


def _assemble(grid: Grid, labels: list[str], skin: str, mines: int | None, distance: float) -> BoardRead:
    cols, rows = grid.x.count, grid.y.count
    states = bytearray()
    questions: set[int] = set()
    shown: set[int] = set()
    wrong: set[int] = set()
    exploded: int | None = None
    for i, lab in enumerate(labels):
        if lab.isdigit():
            states.append(int(lab))
        elif lab in ("F", "wrong"):
            states.append(FLAG)
            if lab == "wrong":
                wrong.add(i)
        else:
            states.append(COVERED)
            if lab == "?":
                questions.add(i)
            elif lab == "mine":
                shown.add(i)
            elif lab == "exploded":
                exploded = i
    position = Position(cols, rows, bytes(states), mines)
    left = [i for i, v in enumerate(states) if v == COVERED and i not in shown]
    if exploded is None and not wrong and shown and not left:
        state = "won"  # every safe cell open and the mines shown: demine's page shows them at a win
    elif exploded is not None or shown or wrong:
        state = "lost"
    elif mines is not None and position.unrevealed_count() == mines:
        state = "won"
    else:
        state = "playing"
    box = (round(grid.x.start), round(grid.y.start), round(grid.x.end), round(grid.y.end))
    return BoardRead(
        position=position,
        width=cols,
        height=rows,
        box=box,
        cell_w=grid.x.period,
        cell_h=grid.y.period,
        skin=skin,
        counter=None,
        state=state,
        questions=frozenset(questions),
        exploded=exploded,
        mines_shown=frozenset(shown),
        wrong_flags=frozenset(wrong),
        face=None,
        distance=distance,
    )
