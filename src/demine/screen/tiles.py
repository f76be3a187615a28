"""Cells cut from a screenshot as small tiles, and the skins' templates they are matched with.

Every cell of the grid is resampled (area average) to a ``TILE`` x ``TILE`` RGB tile, in one
resize of the board's box: the same tile whatever the cell's size on screen, the screenshot's
scaling or its JPEG noise (averaged away). A skin is a set of labelled tiles learned from
real screenshots of its program (:func:`learn`), kept as a PNG atlas with a JSON list of labels
in ``demine/screen/skins/``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from PIL import Image

from demine.screen.grid import Grid

#: The side of a cell's tile, in pixels.
TILE = 16
#: What a tile can show. Digits are revealed numbers; ``H`` covered, ``F`` a flag, ``?`` a
#: question mark; a finished game's ``mine`` (shown, not exploded), ``exploded`` and ``wrong``
#: (a flag on a cell with no mine, marked so by the program).
LABELS = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "H", "F", "?", "mine", "exploded", "wrong")


def cut_tiles(image: Image.Image, grid: Grid) -> NDArray[np.float32]:
    """The grid's cells as tiles: an array (rows, cols, TILE, TILE, 3) of floats 0-255."""
    cols, rows = grid.x.count, grid.y.count
    box = (grid.x.start, grid.y.start, grid.x.end, grid.y.end)
    small = image.resize((cols * TILE, rows * TILE), Image.Resampling.BOX, box=box)
    a = np.asarray(small, dtype=np.float32)
    return a.reshape(rows, TILE, cols, TILE, 3).transpose(0, 2, 1, 3, 4)


@dataclass(frozen=True)
class Skin:
    """A program's look: labelled template tiles."""

    name: str
    """The skin's name (``tatham``, ``xdemineur``, ...)."""
    labels: tuple[str, ...]
    """Each template's label (one of ``LABELS``)."""
    templates: NDArray[np.float32]
    """The templates, (n, TILE * TILE * 3)."""

    def distances(self, tiles: NDArray[np.float32]) -> NDArray[np.float32]:
        """RMS distance (0-255) of each tile (n, TILE, TILE, 3) to each template: (n, templates).

        Both are softened first (a 3x3 mean) and the tile's middle (TILE - 2 square) is compared
        with the template's shifted by up to a pixel each way, the nearest shift kept: a grid
        placed a pixel off, or a screenshot scaled with another filter, moves a line or a glyph
        by a pixel, and that alone is no difference."""
        inner = _soft(tiles)[:, 1:-1, 1:-1].reshape(len(tiles), -1)
        windows = self._windows()  # (shifts, templates, features)
        a2 = (inner * inner).sum(axis=1)[:, None]
        best = None
        for win in windows:
            d2 = a2 + (win * win).sum(axis=1)[None, :] - 2.0 * inner @ win.T
            best = d2 if best is None else np.minimum(best, d2)
        assert best is not None
        out: NDArray[np.float32] = np.sqrt(np.maximum(best, 0.0) / inner.shape[1]).astype(np.float32)
        return out

    def _windows(self) -> list[NDArray[np.float32]]:
        key = id(self)
        cached = _WINDOWS.get(key)
        if cached is None or cached[0] is not self:
            soft = _soft(self.templates.reshape(-1, TILE, TILE, 3))
            wins = [
                np.ascontiguousarray(soft[:, dy : dy + TILE - 2, dx : dx + TILE - 2].reshape(len(soft), -1))
                for dy in range(3)
                for dx in range(3)
            ]
            cached = (self, wins)
            _WINDOWS[key] = cached
        return cached[1]

    def save(self, folder: Path, source: str) -> None:
        """Write ``NAME.png`` (the atlas, 16 templates a row) and ``NAME.json`` (labels, source)."""
        n = len(self.labels)
        per_row = 16
        rows = (n + per_row - 1) // per_row
        atlas = np.zeros((rows * TILE, per_row * TILE, 3), dtype=np.uint8)
        for i in range(n):
            r, c = divmod(i, per_row)
            tile = self.templates[i].reshape(TILE, TILE, 3)
            atlas[r * TILE : (r + 1) * TILE, c * TILE : (c + 1) * TILE] = np.clip(np.rint(tile), 0, 255)
        Image.fromarray(atlas).save(folder / f"{self.name}.png", optimize=True)
        meta = {"skin": self.name, "tile": TILE, "labels": list(self.labels), "source": source}
        (folder / f"{self.name}.json").write_text(json.dumps(meta, indent=1) + "\n")


_WINDOWS: dict[int, tuple[Skin, list[NDArray[np.float32]]]] = {}


def _soft(tiles: NDArray[np.float32]) -> NDArray[np.float32]:
    """Each tile (n, TILE, TILE, 3) averaged over 3x3 pixels (edges repeated)."""
    p = np.pad(tiles, ((0, 0), (1, 1), (1, 1), (0, 0)), mode="edge")
    acc = np.zeros_like(tiles)
    for dy in range(3):
        for dx in range(3):
            acc += p[:, dy : dy + TILE, dx : dx + TILE]
    out: NDArray[np.float32] = acc / 9.0
    return out


def _load(name: str, png: bytes, meta_text: str) -> Skin:
    import io

    meta = json.loads(meta_text)
    atlas = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.float32)
    labels = tuple(meta["labels"])
    per_row = atlas.shape[1] // TILE
    tiles = []
    for i in range(len(labels)):
        r, c = divmod(i, per_row)
        tiles.append(atlas[r * TILE : (r + 1) * TILE, c * TILE : (c + 1) * TILE].reshape(-1))
    return Skin(name, labels, np.array(tiles, dtype=np.float32))


@cache
def skins() -> tuple[Skin, ...]:
    """The skins shipped with demine (``demine/screen/skins/*.json`` and their atlases)."""
    folder = resources.files("demine.screen") / "skins"
    out = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            name = entry.name.removesuffix(".json")
            png = (folder / f"{name}.png").read_bytes()
            out.append(_load(name, png, entry.read_text()))
    return tuple(out)


def learn(name: str, samples: list[tuple[NDArray[np.float32], str]], merge: float = 6.0) -> Skin:
    """A skin from labelled tiles: per label, the tiles grouped greedily (a tile within
    ``merge`` RMS of a group's mean joins it and moves the mean), each group's mean a template.
    A label seen in several looks (a hovered cell, two tile sizes) keeps each look."""
    groups: dict[str, list[tuple[NDArray[np.float64], int]]] = {}
    for tile, label in samples:
        if label not in LABELS:
            raise ValueError(f"unknown label {label!r}")
        flat = tile.reshape(-1).astype(np.float64)
        gs = groups.setdefault(label, [])
        best = None
        best_d = merge
        for i, (mean, _count) in enumerate(gs):
            d = float(np.sqrt(((mean - flat) ** 2).mean()))
            if d < best_d:
                best, best_d = i, d
        if best is None:
            gs.append((flat, 1))
        else:
            mean, count = gs[best]
            gs[best] = ((mean * count + flat) / (count + 1), count + 1)
    labels = []
    templates = []
    for label in LABELS:
        for mean, _count in groups.get(label, []):
            labels.append(label)
            templates.append(mean.astype(np.float32))
    return Skin(name, tuple(labels), np.array(templates, dtype=np.float32))
