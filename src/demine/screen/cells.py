"""Cells read against a skin: each tile's nearest template, its distance, and whether the
read is sure (:func:`classify`); a tile partly hidden (a pointer over it) looked at again with
the pixels that differ most left out (:func:`occluded`)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from demine.screen.tiles import Skin

#: A cell is read when its tile is within this RMS distance (0-255) of one of the skin's
#: templates, and the next label's template is at least ``MARGIN`` times as far.
MAX_DISTANCE = 60.0
MARGIN = 1.2
#: The share of a tile's pixels that :func:`occluded` leaves out.
HIDDEN_SHARE = 0.3


def classify(
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
        lab_i, d_i, ok = occluded(skin, flat[i])
        if ok:
            labels[i] = lab_i
            dist[i] = d_i
            sure[i] = True
    return labels, dist.astype(np.float32), sure


def occluded(skin: Skin, tile: NDArray[np.float32]) -> tuple[str, float, bool]:
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
