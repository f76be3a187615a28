"""How well and how fast demine.screen reads real screenshots, and ms-toollib's obr_board beside it.

    python benchmarks/screen_read.py [FOLDER ...] [--json OUT.json] [--repeat 5]

FOLDER (default tests/data/screen) holds screenshots with their truth (``NAME.json`` beside
``NAME.png``; benchmarks/screen_shots.py makes them). Each screenshot is read as it is and as
variants: scaled by 1.25, 1.5 and 2 (bilinear, bicubic, Lanczos, nearest), JPEG at quality 75
and 90, and scaled 1.5 then JPEG 75. Per program and scale it counts the cells read right, the
cells misread (a wrong label: the error that matters) and the cells refused (the reader said it
could not classify them, or found no grid: every cell of that screenshot). The mine total too,
per program and scale: read right, not read, read wrong (the counter's red digits, or the count
written as text, with Tesseract). ms to read: the median of ``--repeat`` reads of each
expert-size (30x16) screenshot, as it is, and without the text count (``text=False``).

obr_board (ms-toollib, the one open library that reads a board from a screenshot) runs in a
child process, since it aborts its process where it cannot load its model (``params.onnx``,
which the pip wheel does not ship); the report says how the child ended.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from PIL import Image

from demine.screen.read import UnreadableScreen, read_board
from demine.screen.truth import count_shown, load_truth, read_labels, truth_labels

R = Image.Resampling


def _jpeg(img: Image.Image, quality: int) -> Image.Image:
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=quality)
    return Image.open(io.BytesIO(buf.getvalue())).convert("RGB")


def _scaled(s: float, f: R) -> Callable[[Image.Image], Image.Image]:
    return lambda im: im.resize((round(im.width * s), round(im.height * s)), f)


FILTERS = (("bilinear", R.BILINEAR), ("bicubic", R.BICUBIC), ("lanczos", R.LANCZOS), ("nearest", R.NEAREST))
#: (name, scale, make).
VARIANTS: list[tuple[str, str, Callable[[Image.Image], Image.Image]]] = [
    ("as grabbed", "1", lambda im: im),
    *[
        (f"x{s} {fname}", f"{s}", _scaled(s, f))
        for s in (1.25, 1.5, 2.0)
        for fname, f in (
            ("bilinear", R.BILINEAR),
            ("bicubic", R.BICUBIC),
            ("lanczos", R.LANCZOS),
            ("nearest", R.NEAREST),
        )
    ],
    ("jpeg 75", "1 jpeg", lambda im: _jpeg(im, 75)),
    ("jpeg 90", "1 jpeg", lambda im: _jpeg(im, 90)),
    ("x1.5 bicubic, jpeg 75", "1.5 jpeg", lambda im: _jpeg(_scaled(1.5, R.BICUBIC)(im), 75)),
]


def shots(folders: list[str]) -> Iterator[tuple[Path, dict]]:
    for folder in folders:
        for png in sorted(Path(folder).glob("*.png")):
            if png.with_suffix(".json").exists():
                yield png, load_truth(png)


def obr_board(png: Path, timeout: float = 60) -> dict:
    """ms-toollib's obr_board on one screenshot, in a child process in a scratch folder (it
    writes crash.log where it runs): how it ended, and its board when it gave one."""
    code = (
        "import json, sys\n"
        "from PIL import Image\n"
        "import ms_toollib\n"
        "im = Image.open(sys.argv[1]).convert('RGBA')\n"
        "b = ms_toollib.obr_board(list(im.tobytes()), im.height, im.width)\n"
        "print(json.dumps(b))\n"
    )
    with tempfile.TemporaryDirectory() as tmp:
        try:
            p = subprocess.run(
                [sys.executable, "-c", code, str(png.resolve())],
                cwd=tmp,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return {"ended": f"no answer in {timeout:.0f} s"}
        crash = Path(tmp) / "crash.log"
        why = ""
        if crash.exists():
            lines = crash.read_text(errors="replace").splitlines()
            why = " ".join(line.strip() for line in lines[:4])
    if p.returncode == 0:
        return {"ended": "ok", "board": json.loads(p.stdout)}
    sig = -p.returncode if p.returncode < 0 else None
    ended = f"signal {sig}" if sig else f"exit {p.returncode}"
    if p.returncode == 134:
        ended = "exit 134 (SIGABRT)"
    last = (p.stderr.strip().splitlines() or [""])[-1]
    return {"ended": ended, "crash_log": why, "stderr": last}


def _read_ms(img: Image.Image, repeat: int, **options: bool) -> list[float]:
    """ms of each of ``repeat`` reads of ``img`` (a read refused still counts its time: its
    cells were counted in the table)."""
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        with contextlib.suppress(UnreadableScreen):
            read_board(img, **options)
        out.append((time.perf_counter() - t) * 1000)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="*", default=["tests/data/screen"])
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--repeat", type=int, default=5)
    ns = ap.parse_args()
    table: dict[tuple[str, str], list[int]] = {}  # (program, scale) -> [right, misread, refused]
    failures: list[str] = []
    times: dict[str, list[float]] = {}
    bare: dict[str, list[float]] = {}  # the same reads without the text count
    totals: dict[tuple[str, str], list[int]] = {}  # (program, scale) -> [right, not read, wrong]
    found = list(shots(ns.folders))
    if not found:
        print("no screenshots with their truth in " + ", ".join(ns.folders), file=sys.stderr)
        return 2
    for png, meta in found:
        want = truth_labels(meta)
        with Image.open(png) as im:
            img = im.convert("RGB")
        program = meta["program"]
        for name, scale, make in VARIANTS:
            row = table.setdefault((program, scale), [0, 0, 0])
            refused: set[int] = set()
            try:
                read = read_board(make(img))
            except UnreadableScreen as e:
                if e.read is None:
                    row[2] += len(want)
                    failures.append(f"{png.name} {name}: no grid")
                    continue
                read = e.read
                refused = {r * read.width + c for r, c, _ in e.cells}
                failures.append(f"{png.name} {name}: {len(refused)} cells refused")
            else:
                shown = count_shown(meta)
                if shown is not None:
                    t = totals.setdefault((program, scale), [0, 0, 0])
                    t[0 if read.position.mines == shown else 1 if read.position.mines is None else 2] += 1
                    if read.position.mines != shown:
                        failures.append(f"{png.name} {name}: total {read.position.mines}, {shown} shown")
            got = read_labels(read)
            if len(got) != len(want):
                if refused:  # a wrong grid, but refused: nothing was claimed
                    row[2] += len(want)
                else:
                    row[1] += len(want)
                failures.append(f"{png.name} {name}: a grid of {len(got)} cells, {len(want)} there")
                continue
            wrong = sum(
                1 for i, (a, b) in enumerate(zip(got, want, strict=True)) if a != b and i not in refused
            )
            row[0] += len(want) - wrong - len(refused)
            row[1] += wrong
            row[2] += len(refused)
            if wrong:
                failures.append(f"{png.name} {name}: {wrong} cells misread")
        rows = meta["truth"].splitlines()[1:]
        if (len(rows[0]), len(rows)) == (30, 16):
            times.setdefault(program, []).extend(_read_ms(img, ns.repeat))
            bare.setdefault(program, []).extend(_read_ms(img, ns.repeat, text=False))
    load = os.getloadavg()
    print(f"{len(found)} screenshots; load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print(
        f"{'program':<12} {'scale':<10} {'cells':>7} {'right':>7} {'misread':>8} {'refused':>8}  share right"
    )
    for (program, scale), (right, mis, ref) in sorted(table.items()):
        total = right + mis + ref
        print(f"{program:<12} {scale:<10} {total:>7} {right:>7} {mis:>8} {ref:>8}  {right / total:.2%}")
    print(f"{'program':<12} {'scale':<10} {'totals':>7} {'right':>7} {'not read':>8} {'wrong':>8}")
    for (program, scale), (right, unread, wrong) in sorted(totals.items()):
        print(f"{program:<12} {scale:<10} {right + unread + wrong:>7} {right:>7} {unread:>8} {wrong:>8}")
    for program, ts in sorted(times.items()):
        plain = statistics.median(bare[program])
        print(
            f"ms to read a 30x16 {program} screenshot: median {statistics.median(ts):.0f} "
            f"({plain:.0f} without the text count; of {len(ts)})"
        )
    for f in failures:
        print("  " + f)
    obr = obr_board(found[0][0])
    print(f"obr_board on {found[0][0].name}: {obr['ended']}; {obr.get('crash_log', '')[:200]}")
    if ns.json:
        out = {
            "load": load,
            "cells": [
                {"program": p, "scale": s, "right": r, "misread": m, "refused": f}
                for (p, s), (r, m, f) in sorted(table.items())
            ],
            "totals": [
                {"program": p, "scale": s, "right": r, "not_read": u, "wrong": w}
                for (p, s), (r, u, w) in sorted(totals.items())
            ],
            "ms_expert": {p: statistics.median(ts) for p, ts in times.items()},
            "ms_expert_no_text": {p: statistics.median(ts) for p, ts in bare.items()},
            "failures": failures,
            "obr_board": obr,
        }
        Path(ns.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
