"""Videos of the community's programs, read with ms-toollib (the ``video`` extra): Arbiter
``.avf``, Viennasweeper ``.rmv``, Metasweeper ``.evf`` and Minesweeper X ``.mvf``.

A video is parsed in a child process with a time limit: ms-toollib aborts the whole process on
some malformed files (a Rust panic that Python cannot catch), and a file from the web is
untrusted. The child prints what the review needs as JSON; the parent turns it into a game
record and checks that the layout replays to what the video shows after every move.

Each mouse event that changed the board becomes a move: a flag, a reveal (a click on a covered
cell) or a chord (a click on a number), at the cell under the cursor, with its time. Clicks that
changed nothing are not moves; the video's own count of clicks (left, right and chords, as
ms-toollib reads them) is kept for the efficiency (IOE).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from demine.engine.formats import Board, GameRecord
from demine.engine.game import Move
from demine.errors import DemineError, FormatError

#: The video formats, by file ending, and ms-toollib's class for each.
VIDEO_CLASSES = {".avf": "AvfVideo", ".rmv": "RmvVideo", ".evf": "EvfVideo", ".mvf": "MvfVideo"}
#: Seconds a video may take to parse.
PARSE_SECONDS = 20.0
#: ms-toollib's mouse events that changed the board (``useful_level``), as moves.
USEFUL = {1: "flag", 2: "reveal", 3: "chord"}
COVERED_OR_FLAG = (10, 11)
#: The folder that holds the ``demine`` package, for the child's import path (its working
#: directory is a temporary folder, so a relative ``PYTHONPATH`` would not find it).
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


def parse_video(path: str | Path, timeout: float = PARSE_SECONDS) -> dict[str, Any]:
    """What the review needs from a video, parsed in a child process (see the module's note).
    Raises :class:`FormatError` naming the file when it cannot be read."""
    p = Path(path)
    if p.suffix.lower() not in VIDEO_CLASSES:
        raise FormatError(f"not a video this reads ({', '.join(VIDEO_CLASSES)})", source=str(p))
    if not p.is_file():
        raise FormatError("no such file", source=str(p))
    # The child works in a folder of its own, removed afterwards: ms-toollib's panic handler
    # writes crash.log into the working directory, which must not replace a user's file.
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [_PACKAGE_ROOT, env.get("PYTHONPATH")]))
    try:
        with tempfile.TemporaryDirectory(prefix="demine-video-") as work:
            done = subprocess.run(
                [sys.executable, "-m", "demine.review.video", str(p.resolve())],
                capture_output=True,
                timeout=timeout,
                check=False,
                cwd=work,
                env=env,
            )
    except subprocess.TimeoutExpired:
        raise FormatError(
            f"the video took over {timeout:g} s to parse: is it a video?", source=str(p)
        ) from None
    if done.returncode != 0:
        why = done.stderr.decode(errors="replace").strip().splitlines()
        if done.returncode < 0 or done.returncode == 134:
            reason = "the parser crashed on it (a damaged or unsupported file)"
        else:
            reason = why[-1] if why else f"the parser failed (exit {done.returncode})"
        raise FormatError(f"cannot read the video: {reason}", source=str(p))
    out: dict[str, Any] = json.loads(done.stdout)
    return out


def video_game(
    path: str | Path, timeout: float = PARSE_SECONDS
) -> tuple[GameRecord, list[float], dict[str, Any]]:
    """The game in a video: its record, each move's time, and the figures ms-toollib reports
    (``bbbv``, ``ioe``, ``pluck``, ``cl``, ``ce``, ``rtime``, ``software``, ``player``...).
    Raises :class:`FormatError` when the video's board does not replay to what it shows."""
    return game_from_video(parse_video(path, timeout), str(path))


def game_from_video(data: dict[str, Any], path: str) -> tuple[GameRecord, list[float], dict[str, Any]]:
    """:func:`video_game` from what :func:`parse_video` read."""
    w, h = data["width"], data["height"]
    try:
        board = Board(w, h, tuple(sorted(r * w + c for r, c in data["mines"])), rule="safe")
        g = board.game()
    except DemineError as e:
        raise FormatError(f"the video's board is not a board: {e}", source=str(path)) from None
    moves, times = [], []
    for k, (kind, r, c, t, opened) in enumerate(data["moves"], start=1):
        if not (0 <= r < h and 0 <= c < w):
            raise FormatError(f"move {k} at ({r},{c}) is off the {w}x{h} board", source=str(path))
        mv = Move(kind, r * w + c)
        if g.over:
            raise FormatError(
                f"move {k} ({kind} at {r},{c}, {t:.2f} s) comes after the game ended", source=str(path)
            )
        g.play(mv)
        ours = sum(1 for v in g.visible if v < 9)
        if ours != opened:
            raise FormatError(
                f"move {k} ({kind} at {r},{c}, {t:.2f} s): the video shows {opened} cells open, its "
                f"board replays to {ours}: the board does not match its moves",
                source=str(path),
            )
        moves.append(mv)
        times.append(float(t))
    return GameRecord(board, moves), times, data["figures"]


def _read(path: str) -> dict[str, Any]:
    """In the child: parse with ms-toollib and keep plain values."""
    import ms_toollib  # type: ignore[import-not-found,unused-ignore]

    cls = getattr(ms_toollib, VIDEO_CLASSES[Path(path).suffix.lower()])
    v = cls(file_name=path)
    v.parse()
    v.analyse()
    v.analyse_for_features(["pluck"])
    v.current_time = 1e9  # its statistics read 0 until the clock is past the end
    pix = v.pix_size
    moves = []
    for e in v.events:
        if e.useful_level not in USEFUL or not e.event.is_mouse():
            continue
        m = e.event.unwrap_mouse()
        after = e.next_game_board.game_board
        opened = sum(1 for row in after for x in row if x not in COVERED_OR_FLAG)
        moves.append([USEFUL[e.useful_level], m.y // pix, m.x // pix, e.time, opened])
    board = v.board
    figures = {
        "bbbv": v.bbbv,
        "bbbv_solved": v.bbbv_solved,
        "ioe": v.ioe,
        "pluck": v.pluck,
        "cl": v.cl,
        "ce": v.ce,
        "left": v.left,
        "right": v.right,
        "double": v.double,
        "rtime": v.rtime,
        "completed": bool(v.is_completed),
        "software": str(v.software),
        "player": str(v.player_identifier),
        "mode": v.mode,
    }
    return {
        "width": v.column,
        "height": v.row,
        "mines": [[r, c] for r, row in enumerate(board) for c, x in enumerate(row) if x == -1],
        "moves": moves,
        "figures": figures,
    }


if __name__ == "__main__":
    try:
        result = _read(sys.argv[1])
    except ImportError:
        sys.exit('reading videos needs ms-toollib: pip install "demine[video]"')
    except Exception as e:
        sys.exit(f"{type(e).__name__}: {e}")
    json.dump(result, sys.stdout)
