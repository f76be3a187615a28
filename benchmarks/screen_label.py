"""The truth of games played in a program that draws its own layout (benchmarks/screen_shots.py's
``NAME.game.json`` and its screenshots), from the game's own end.

    python benchmarks/screen_label.py clusters GAMES_DIR PROGRAM OUT.png   # the looks, numbered
    python benchmarks/screen_label.py truth GAMES_DIR PROGRAM LABELS.json   # NAME-NN.json for each shot

``clusters`` cuts every cell of every screenshot of the program's games into a tile, groups
the tiles that look alike, and draws one of each group, numbered, for a person to name
(``LABELS.json``: ``{"0": "H", "1": "3", ...}``, the labels of demine.screen.tiles.LABELS).
``truth`` names every cell so, then checks each game against itself: the last screenshot (a
lost game shows its mines) gives the layout; every number on every screenshot must be that
layout's count, and the cells open after each move must be those demine's engine opens with
the same moves on that layout. Only a game that passes gets truth files, so a group named
wrongly shows up as a game that fails.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from demine.engine.game import Game
from demine.engine.position import COVERED, FLAG
from demine.errors import IllegalMove
from demine.screen.grid import Grid, Lattice
from demine.screen.tiles import TILE, _soft, cut_tiles


def games(folder: Path, program: str) -> list[tuple[Path, dict]]:
    out = []
    for f in sorted(folder.glob("*.game.json")):
        rec = json.loads(f.read_text())
        if rec["program"] == program:
            out.append((f, rec))
    return out


def shot_tiles(folder: Path, rec: dict) -> list[np.ndarray]:
    """Each screenshot's tiles (cells, TILE, TILE, 3), cut with the grid of the first one."""
    x0, px, y0, py = rec["grid"]
    grid = Grid(Lattice(x0, px, rec["width"], 0.0), Lattice(y0, py, rec["height"], 0.0))
    out = []
    for shot in rec["shots"]:
        img = Image.open(folder / shot).convert("RGB")
        out.append(cut_tiles(img, grid).reshape(-1, TILE, TILE, 3))
    return out


def cluster(tiles: np.ndarray, merge: float = 10.0) -> tuple[list[np.ndarray], list[int]]:
    """The tiles grouped greedily: a tile joins the first group whose first member is within
    ``merge`` RMS (softened, its middle compared a pixel shifted either way, as the reader does),
    else starts a group. The groups' first members, and each tile's group."""
    soft = _soft(tiles)
    firsts: list[np.ndarray] = []
    windows: list[np.ndarray] = []  # each group's first member, 9 shifted middles
    ids = []
    for t in soft:
        mid = t[1:-1, 1:-1].reshape(-1)
        if windows:
            w = np.array(windows)  # (groups, 9, features)
            d = np.sqrt(((w - mid) ** 2).mean(axis=2)).min(axis=1)
            k = int(np.argmin(d))
            if d[k] < merge:
                ids.append(k)
                continue
        firsts.append(t)
        windows.append(
            np.array(
                [t[dy : dy + TILE - 2, dx : dx + TILE - 2].reshape(-1) for dy in range(3) for dx in range(3)]
            )
        )
        ids.append(len(firsts) - 1)
    return firsts, ids


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", choices=("clusters", "truth"))
    ap.add_argument("folder")
    ap.add_argument("program")
    ap.add_argument("file")
    ns = ap.parse_args()
    folder = Path(ns.folder)
    all_tiles = []
    per_game = []
    for f, rec in games(folder, ns.program):
        ts = shot_tiles(folder, rec)
        per_game.append((f, rec, ts))
        all_tiles.extend(ts)
    stacked = np.concatenate(all_tiles)
    means, ids = cluster(stacked)
    if ns.mode == "clusters":
        scale = 4
        per_row = 10
        rows = (len(means) + per_row - 1) // per_row
        sheet = Image.new("RGB", (per_row * (TILE * scale + 30), rows * (TILE * scale + 20)), "white")
        draw = ImageDraw.Draw(sheet)
        for k in range(len(means)):
            r, c = divmod(k, per_row)
            # the group's first member, unsoftened
            first = stacked[ids.index(k)]
            img = Image.fromarray(np.clip(first, 0, 255).astype(np.uint8)).resize(
                (TILE * scale, TILE * scale)
            )
            x, y = c * (TILE * scale + 30), r * (TILE * scale + 20)
            sheet.paste(img, (x + 28, y))
            draw.text((x, y + 20), str(k), fill="black")
        sheet.save(ns.file)
        print(f"{len(means)} groups of {len(stacked)} tiles", file=sys.stderr)
        return 0
    names = json.loads(Path(ns.file).read_text())
    offset = 0
    failed = 0
    for f, rec, ts in per_game:
        labels = []
        for t in ts:
            labels.append([names.get(str(ids[offset + i]), "?unnamed") for i in range(len(t))])
            offset += len(t)
        err = check(rec, labels)
        if err:
            failed += 1
            print(f"{f.name}: {err}", file=sys.stderr)
            continue
        write_truth(folder, rec, labels)
        print(f"{f.name}: {len(rec['shots'])} screenshots checked", file=sys.stderr)
    return 1 if failed else 0


def layout_of(final: list[str], rec: dict) -> list[int] | None:
    mines = [i for i, lab in enumerate(final) if lab in ("mine", "exploded")]
    flags_right = [i for i, lab in enumerate(final) if lab == "F"]
    return sorted(mines + flags_right)


def replay(rec: dict, layout: list[int], start: list[str]) -> list[Game]:
    """The game after each move (the first: before any), as demine's engine plays it. A
    program that opens an area itself at the start (xdemineur) has it opened from one of its
    zeros in the first screenshot ``start``."""
    w, h = rec["width"], rec["height"]
    g = Game.from_layout(w, h, layout)
    if "0" in start:
        g.reveal(start.index("0"))
    out = [g.copy()]
    for kind, r, c in rec["moves"]:
        cell = r * w + c
        if kind == "flag":
            g.flag(cell)
        elif kind == "reveal":
            g.reveal(cell)
        out.append(g.copy())  # a question mark leaves the cell covered
    return out


def check(rec: dict, labels: list[list[str]]) -> str | None:
    final = labels[-1]
    if any(lab.startswith("?unnamed") for ls in labels for lab in ls):
        return "a tile of an unnamed group"
    layout = layout_of(final, rec)
    if not layout:
        return "the last screenshot shows no mine (the game did not end in a loss)"
    try:
        states = replay(rec, layout, labels[0])
    except IllegalMove as e:  # a game that was not lost (a won KMines board flags its mines)
        return f"its moves do not play on the layout its last screenshot shows ({e})"
    w = rec["width"]
    for k, (ls, g) in enumerate(zip(labels, states, strict=True)):
        p = g.position()
        for i, lab in enumerate(ls):
            want = p.states[i]
            shown = "H" if want == COVERED else "F" if want == FLAG else str(want)
            if k == len(labels) - 1 and g.outcome == "lost":
                mines = set(layout)
                if i == g.exploded:
                    shown = "exploded"
                elif want == COVERED and i in mines:
                    shown = "mine"
                elif want == FLAG and i not in mines:
                    shown = "wrong"
            asked = {r * w + c for kind, r, c in rec["moves"][:k] if kind == "question"}
            if lab != shown and not (lab == "?" and shown == "H" and i in asked):
                return f"screenshot {k} cell ({i // w},{i % w}): shows {lab}, the game says {shown}"
    if states[-1].outcome != "lost":
        return "the moves do not lose on the layout shown"
    return None


def write_truth(folder: Path, rec: dict, labels: list[list[str]]) -> None:
    layout = layout_of(labels[-1], rec)
    assert layout is not None
    states = replay(rec, layout, labels[0])  # (check passed: the moves play on it)
    w = rec["width"]
    for k, (shot, g) in enumerate(zip(rec["shots"], states, strict=True)):
        p = g.position()
        meta = {
            "program": rec["program"],
            "source": f"{' '.join(rec['argv'])} under Xvfb, after {k} of the moves {rec['moves']}",
            "mines": len(layout),
            "truth": p.to_text(),
            "state": g.outcome,
            "exploded": None,
            "mines_shown": [],
            "wrong_flags": [],
            "grid": rec["grid"],
        }
        if g.outcome == "lost":
            mines = set(layout)
            flags = set(p.flagged_cells())
            assert g.exploded is not None
            meta["exploded"] = list(divmod(g.exploded, w))
            meta["mines_shown"] = [list(divmod(c, w)) for c in sorted(mines - flags - {g.exploded})]
            meta["wrong_flags"] = [list(divmod(c, w)) for c in sorted(flags - mines)]
        asked = [[r, c] for kind, r, c in rec["moves"][:k] if kind == "question"]
        meta["questions"] = [rc for rc in asked if p.states[rc[0] * w + rc[1]] == COVERED]
        (folder / shot).with_suffix(".json").write_text(json.dumps(meta) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
