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
from demine.screen.cells import MAX_DISTANCE, classify
from demine.screen.counter import read_counter, total_from_counter
from demine.screen.grid import Grid, Lattice, find_grid, find_grids
from demine.screen.outline import extend, numbers_contradicted, trim, zero_beside_covered
from demine.screen.text import read_count
from demine.screen.tiles import Skin, cut_tiles, skins

#: A grid whose cells are on average within this distance of their templates is a board of
#: that skin; a lattice of something else (a table, lines of text) fits far worse.
GOOD_FIT = 15.0
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
        grid, labels, dist, sure = extend(img, grid, chosen, labels, dist)
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
    for forbidden, why in (
        (
            zero_beside_covered(labels, cols, rows),
            "an open 0 beside a covered cell, which no game shows (a 0 opens its neighbours)",
        ),
        (
            numbers_contradicted(labels, cols, rows),
            "a number that its neighbours rule out (fewer than the mines shown around it, or more "
            "than those and the cells that may hold one)",
        ),
    ):
        if forbidden:
            cells = tuple((c // cols, c % cols, read.cell_box(c)) for c in forbidden)
            shown = ", ".join(f"row {r} col {c} at {b}" for r, c, b in cells[:8])
            more = f" and {len(cells) - 8} more" if len(cells) > 8 else ""
            raise UnreadableScreen(
                f"a {cols}x{rows} grid of {grid.x.period:.1f}x{grid.y.period:.1f} px cells at "
                f"{read.box}, read as {chosen.name}, shows {why}: a cell misread, at {shown}{more}",
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
            written = read_count(
                img,
                read.box,
                grid.x.period,
                read.width,
                read.height,
                flags,
                fits=lambda t: _fits(read, t) is not None,
            )
            if written is not None:
                total, said = written.total, written.text
        if total is not None:
            read = _assemble(grid, labels, chosen.name, total, float(dist.max()))
    face = find_face(rgb, read.box, grid.x.period)
    return dataclasses.replace(read, counter=counter, count_text=said, face=face)


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
    if not shown <= total <= room:
        return None
    return total if _count_explains(read.position, total) else None


def _count_explains(position: Position, total: int) -> bool:
    """Whether some layout of ``total`` mines gives the numbers shown, or the numbers are
    explained by none at all (then the board is what is wrong, not the count): a count read
    as text with a digit dropped (GNOME's ``0/114`` as ``0/14``) is then no count. The flags
    are left out, as the player's guesses."""
    from demine.analysis import analyze
    from demine.errors import InconsistentPosition

    open_board = position.without_flags()
    try:
        analyze(open_board.with_mines(total))
    except InconsistentPosition:
        try:
            analyze(open_board.with_mines(None))
        except InconsistentPosition:
            return True
        return False
    return True


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
    distances, which cells are sure, the grid less what is no part of the board:
    :func:`~demine.screen.outline.trim`).

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
        trimmed, labels, dist, sure = trim(grid, *classify(s, tiles))
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
