"""The reader on a live program: Tatham's Mines under Xvfb, its screen grabbed with mss, a cell
clicked with xdotool where the read says it is, and the board read again. Skipped, saying why,
where Xvfb, xdotool or sgt-mines is missing (``.ci/run`` installs them)."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import time
from collections.abc import Iterator

import pytest

pytest.importorskip("numpy")
pytest.importorskip("PIL")
mss = pytest.importorskip("mss")

from demine.analysis import analyze  # noqa: E402
from demine.engine.game import Game  # noqa: E402
from demine.screen.read import read_board  # noqa: E402
from demine.screen.truth import read_labels  # noqa: E402

SGT = "/usr/games/sgt-mines"


def _missing() -> str | None:
    for prog in ("Xvfb", "xdotool"):
        if shutil.which(prog) is None:
            return f"{prog} is not installed (Debian: xvfb, xdotool)"
    if not os.path.exists(SGT):
        return f"{SGT} is not installed (Debian: sgt-puzzles)"
    return None


@pytest.fixture
def display() -> Iterator[str]:
    why = _missing()
    if why:
        pytest.skip(why)
    r, w = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(w), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(w,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(w)
    with os.fdopen(r) as f:
        name = ":" + f.readline().strip()
    try:
        yield name
    finally:
        proc.terminate()
        proc.wait(10)


def _layout(width: int, height: int, mines: int, start: tuple[int, int], seed: int) -> tuple[str, list[int]]:
    """A Tatham's Mines game id opening at ``start`` on a layout with no mine around it."""
    rng = random.Random(seed)
    r0, c0 = start
    allowed = [
        r * width + c for r in range(height) for c in range(width) if abs(r - r0) > 1 or abs(c - c0) > 1
    ]
    cells = sorted(rng.sample(allowed, mines))
    bits = [1 if i in set(cells) else 0 for i in range(width * height)] + [0, 0, 0]
    hexes = "".join(f"{int(''.join(map(str, bits[i : i + 4])), 2):x}" for i in range(0, width * height, 4))
    return f"{width}x{height}n{mines}:{c0},{r0},u{hexes}", cells


def _grab(name: str) -> object:
    from PIL import Image

    grabber = getattr(mss, "MSS", None) or mss.mss  # (mss 10.2 names it MSS; mss() is older)
    with grabber(display=name) as sct:
        shot = sct.grab(sct.monitors[0])
        return Image.frombytes("RGB", shot.size, shot.rgb)


def _labels(game: Game) -> list[str]:
    p = game.position()
    return ["H" if v == 9 else "F" if v == 10 else str(v) for v in p.states]


def test_a_live_tatham_window_is_read_and_a_click_lands_on_its_cell(display: str) -> None:
    width, height, mines = 16, 16, 40
    start = (8, 8)
    gid, layout = _layout(width, height, mines, start, seed=56)
    env = {**os.environ, "DISPLAY": display, "MINES_TILESIZE": "20", "NO_AT_BRIDGE": "1"}
    prog = subprocess.Popen(
        ["dbus-run-session", SGT, gid] if shutil.which("dbus-run-session") else [SGT, gid],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        game = Game.from_layout(width, height, layout)
        game.reveal(start[0] * width + start[1])
        read = None
        for _ in range(150):  # the window takes a moment to appear and draw
            time.sleep(0.2)
            try:
                read = read_board(_grab(display))
            except Exception:
                continue
            if read_labels(read) == _labels(game):
                break
        assert read is not None and (read.width, read.height) == (width, height)
        assert read_labels(read) == _labels(game)
        assert read.skin == "tatham"
        # click a cell proven safe where the read says it is; the next read shows it open
        a = analyze(game.position())
        cell = min(c for c in a.safe if game.position().state(c) == 9)
        x, y = read.centre(cell)
        subprocess.run(["xdotool", "mousemove", str(x), str(y), "click", "1"], env=env, check=True)
        subprocess.run(["xdotool", "mousemove", "1270", "790"], env=env, check=True)
        game.reveal(cell)
        for _ in range(50):
            time.sleep(0.2)
            again = read_board(_grab(display), hint_box=read.box)
            if read_labels(again) == _labels(game):
                break
        assert read_labels(again) == _labels(game)
        assert again.box == read.box
    finally:
        os.killpg(prog.pid, 15)
        prog.wait(10)
