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

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from PIL import Image

from demine.engine.position import COVERED, FLAG, Position
from demine.errors import DemineError
from demine.screen.grid import Grid, Lattice, find_grid
from demine.screen.tiles import Skin, cut_tiles, skins

#: A cell is read when its tile is within this RMS distance (0-255) of one of the skin's
#: templates, and the next label's template is at least ``MARGIN`` times as far.
MAX_DISTANCE = 60.0
MARGIN = 1.2
#: The names a skin may have (``generic``: no template of its own).
SKIN_NAMES = ("tatham", "xdemineur", "gnome", "kmines", "demine-web", "jsm-web", "generic")


class UnreadableScreen(DemineError):
    """A screenshot the reader cannot read: no grid found, or cells it could not classify.

    ``cells`` lists the cells it could not classify, each ``(row, col, (left, top, right,
    bottom))`` in the image's pixels.
    """

    def __init__(
        self, message: str, cells: tuple[tuple[int, int, tuple[int, int, int, int]], ...] = ()
    ) -> None:
        super().__init__(message)
        self.cells = cells


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
) -> BoardRead:
    """Read the board in ``image`` (a PIL image, or an HxWx3 uint8 array: a whole screen or a
    window). ``mines``: the total, when the counter cannot be read (it wins over the counter).
    ``skin``: read with that skin's templates only. ``hint_box``: where the board was last time
    (left, top, right, bottom): the grid is looked for there first.

    Raises :class:`UnreadableScreen` when no grid is found or cells cannot be classified (it
    names them, with their pixel boxes).
    """
    img = as_image(image)
    if skin is not None and skin not in SKIN_NAMES:
        raise UnreadableScreen(f"unknown skin {skin!r}; the skins are {', '.join(SKIN_NAMES)}")
    rgb = np.asarray(img)
    grid = _grid_near(rgb, hint_box) if hint_box is not None else None
    if grid is None:
        grid = find_grid(rgb)
    if grid is None:
        raise UnreadableScreen(
            f"no grid found in the {img.width}x{img.height} image: no lattice of at least 4x4 "
            "equal cells (10-80 px) with straight edges between them"
        )
    tiles = cut_tiles(img, grid)
    candidates = [s for s in skins() if skin is None or s.name == skin]
    if not candidates:
        raise UnreadableScreen(f"no templates for the skin {skin!r}")
    best: tuple[float, Skin, list[str], NDArray[np.float32], NDArray[np.bool_]] | None = None
    for s in candidates:
        labels, dist, sure = _classify(s, tiles)
        cost = float(np.mean(np.minimum(dist, MAX_DISTANCE * 2)))
        if best is None or cost < best[0]:
            best = (cost, s, labels, dist, sure)
    assert best is not None
    _, chosen, labels, dist, sure = best
    rows, cols = grid.y.count, grid.x.count
    grid, labels, dist, sure = _trim(grid, labels, dist, sure)
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
        )
    return _assemble(grid, labels, chosen.name, mines, float(dist.max()))


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
    skin: Skin, tiles: NDArray[np.float32]
) -> tuple[list[str], NDArray[np.float32], NDArray[np.bool_]]:
    """Each tile's nearest template's label, its distance, and whether it is sure: near enough,
    and the nearest template of another label at least ``MARGIN`` times as far."""
    flat = tiles.reshape(-1, tiles.shape[2], tiles.shape[3], 3)
    d = skin.distances(flat)
    order = np.argsort(d, axis=1)
    nearest = order[:, 0]
    dist = d[np.arange(len(d)), nearest]
    labels = [skin.labels[i] for i in nearest]
    lab = np.array(skin.labels)
    other = np.where(lab[None, :] == lab[nearest][:, None], np.inf, d).min(axis=1)
    sure = (dist <= MAX_DISTANCE) & (other >= MARGIN * dist)
    return labels, dist.astype(np.float32), sure


def _trim(
    grid: Grid, labels: list[str], dist: NDArray[np.float32], sure: NDArray[np.bool_]
) -> tuple[Grid, list[str], NDArray[np.float32], NDArray[np.bool_]]:
    """The grid less outer rows and columns in which no cell is sure (a frame or a toolbar
    taken for cells)."""
    rows, cols = grid.y.count, grid.x.count
    ok = sure.reshape(rows, cols)
    r0, r1, c0, c1 = 0, rows, 0, cols
    while r1 - r0 > 4 and not ok[r0, c0:c1].any():
        r0 += 1
    while r1 - r0 > 4 and not ok[r1 - 1, c0:c1].any():
        r1 -= 1
    while c1 - c0 > 4 and not ok[r0:r1, c0].any():
        c0 += 1
    while c1 - c0 > 4 and not ok[r0:r1, c1 - 1].any():
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
    if exploded is not None or shown or wrong:
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
