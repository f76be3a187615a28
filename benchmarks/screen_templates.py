"""Learn a skin's templates from screenshots with their truth, for demine.screen's reader.

    python benchmarks/screen_templates.py SKIN SHOTS_DIR [--out src/demine/screen/skins] [--extend]

Every ``*.png`` in SHOTS_DIR whose ``.json`` names the program SKIN is read for its grid (the
grid finder must find the size the truth says), each cell cut to a tile and labelled from the
truth; the tiles of a label are grouped (:func:`demine.screen.tiles.learn`) and written as the
skin's atlas. Make the screenshots with ``benchmarks/screen_shots.py`` (other seeds than the
test data's, so the tests read boards the templates were not learned from). ``--extend`` learns
from the shipped skin's templates too (each as one tile of its label): new screenshots add the
looks they show (xdemineur's 5 to 8 from dense boards) and keep the others; ``--labels`` takes
only the cells of those labels from the screenshots (GNOME's 5 and 6: the rest of its dense
boards, their many shown mines above all, would add templates without adding a look). A screenshot whose
truth names a ``hovered`` cell (``benchmarks/screen_hover.py``) gives that cell's tile alone: the
rest of its board looks as the other screenshots do.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from PIL import Image

from demine.screen.grid import Grid, Lattice, find_grid
from demine.screen.tiles import LABELS, TILE, Skin, cut_tiles, learn, skins
from demine.screen.truth import load_truth, truth_labels


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("skin")
    ap.add_argument("shots", nargs="+")
    ap.add_argument("--out", default="src/demine/screen/skins")
    ap.add_argument("--merge", type=float, default=6.0)
    ap.add_argument("--extend", action="store_true", help="keep the shipped skin's templates as samples")
    ap.add_argument(
        "--labels",
        help="take only these labels' cells from the screenshots (comma-separated, with --extend: the "
        "digits a skin lacks, its other looks kept as shipped)",
    )
    ns = ap.parse_args()
    only = set(ns.labels.split(",")) if ns.labels else None
    samples = []
    kept = []  # with --labels: the shipped templates of the other labels, as they are
    used = []
    if ns.extend:
        shipped = next((s for s in skins() if s.name == ns.skin), None)
        if shipped is None:
            raise SystemExit(f"no shipped skin {ns.skin!r} to extend")
        for t, lab in zip(shipped.templates, shipped.labels, strict=True):
            (samples if only is None or lab in only else kept).append((t.reshape(TILE, TILE, 3), lab))
        before = json.loads((Path(ns.out) / f"{ns.skin}.json").read_text()).get("source", "")
        used.append(f"the shipped {ns.skin} templates ({len(shipped.labels)}: {before})")
    for folder in ns.shots:
        for png in sorted(Path(folder).glob("*.png")):
            if not png.with_suffix(".json").exists():
                continue  # a game's screenshot not (yet) given its truth
            meta = load_truth(png)
            if meta.get("program") != ns.skin:
                continue
            img = Image.open(png).convert("RGB")
            labels = truth_labels(meta)
            rows = len(meta["truth"].splitlines()) - 1
            cols = len(labels) // rows
            if "grid" in meta:  # the grid the game was played on (benchmarks/screen_label.py)
                x0, px, y0, py = meta["grid"]
                grid = Grid(Lattice(x0, px, cols, 0.0), Lattice(y0, py, rows, 0.0))
            else:
                grid = find_grid(np.asarray(img))
            if grid is None or (grid.x.count, grid.y.count) != (cols, rows):
                print(
                    f"{png}: grid {grid and (grid.x.count, grid.y.count)}, truth {cols}x{rows}: skipped",
                    file=sys.stderr,
                )
                continue
            tiles = cut_tiles(img, grid).reshape(-1, *cut_tiles(img, grid).shape[2:])
            pairs = list(zip(tiles, labels, strict=True))
            if "hovered" in meta:  # (benchmarks/screen_hover.py) the new look is that cell's alone
                r, c = meta["hovered"]
                pairs = [pairs[r * cols + c]]
            if only is not None:
                pairs = [(t, lab) for t, lab in pairs if lab in only]
            samples += pairs
            used.append(meta.get("source", png.name))
    skin = learn(ns.skin, samples, ns.merge)
    if kept:
        pairs = [*zip(skin.templates, skin.labels, strict=True), *((t.reshape(-1), lab) for t, lab in kept)]
        pairs.sort(key=lambda p: LABELS.index(p[1]))  # (a stable sort: each label's looks in order)
        skin = Skin(
            skin.name, tuple(lab for _, lab in pairs), np.array([t for t, _ in pairs], dtype=np.float32)
        )
    source = f"learned by benchmarks/screen_templates.py from {len(used)} screenshots: " + "; ".join(used)
    skin.save(Path(ns.out), source)
    counts: dict[str, int] = {}
    for lab in skin.labels:
        counts[lab] = counts.get(lab, 0) + 1
    print(f"{ns.skin}: {len(skin.labels)} templates from {len(samples)} cells: {counts}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
