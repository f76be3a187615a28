"""Live hints for a game a person plays in another window: look, read when the picture changes,
say what logic proves and what ``best`` would play. It never clicks.

The hints are those of the web game: proven safe cells, proven mines, flags that logic proves
wrong (the player's flags are claims, never trusted), and when nothing is safe the best guess
with its chance of a mine and its reason. :func:`watch` hands each new set to a ``show``
function (the command's terminal panel or JSON lines) and, with an :class:`Overlay`, draws them
over the board.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from demine.analysis import Limit, analyze
from demine.engine.position import COVERED, FLAG
from demine.errors import DemineError, IllegalMove, InconsistentPosition
from demine.players.best import best_move
from demine.screen.live import BoardView, LiveWindow, Reader, revealed, same_picture
from demine.screen.overlay import Mark, Overlay
from demine.screen.programs import Program
from demine.screen.x11 import Connection, WindowGone


@dataclass(frozen=True)
class Hints:
    """What demine says of a read board."""

    read: BoardView
    safe: frozenset[int] = frozenset()
    """Covered cells proven safe."""
    mines: frozenset[int] = frozenset()
    """Covered cells proven mined (flagged ones not repeated)."""
    wrong_flags: frozenset[int] = frozenset()
    """Flags on cells proven safe."""
    best: int | None = None
    """When no cell is proven safe: ``best``'s guess."""
    reason: str = ""
    mine_probability: float | None = None
    problem: str | None = None
    """Why there are no hints (no layout explains the board, the game is over)."""

    def to_json(self) -> dict[str, Any]:
        w = self.read.position.width

        def cells(cs: frozenset[int]) -> list[list[int]]:
            return [list(divmod(c, w)) for c in sorted(cs)]

        return {
            "state": self.read.state,
            "position": self.read.position.to_text(),
            "safe": cells(self.safe),
            "mines": cells(self.mines),
            "wrong_flags": cells(self.wrong_flags),
            "best": None if self.best is None else list(divmod(self.best, w)),
            "reason": self.reason,
            "mine_probability": None if self.mine_probability is None else round(self.mine_probability, 6),
            "problem": self.problem,
        }

    def marks(self, origin: tuple[int, int]) -> list[Mark]:
        """The overlay's frames, in screen pixels (``origin``: the window's top left)."""
        out = []
        kinds = [("wrong", self.wrong_flags), ("mine", self.mines), ("safe", self.safe)]
        if self.best is not None:
            kinds.append(("guess", frozenset([self.best])))
        for kind, cells in kinds:
            for c in sorted(cells):
                x, y = self.read.centre(c)
                cw, ch = self.read.cell_w, self.read.cell_h
                left, top = origin[0] + round(x - cw / 2), origin[1] + round(y - ch / 2)
                out.append(Mark(left, top, round(cw), round(ch), kind))
        return out


def hints_for(read: BoardView, seconds: float = 1.0) -> Hints:
    """The hints for ``read``: nothing on a finished game or an untouched board."""
    p = read.position
    if read.state != "playing":
        return Hints(read, problem=f"the game is {read.state}")
    if revealed(p) == 0:
        return Hints(read, problem="no cell opened yet")
    claims = p.without_flags() if FLAG in p.states else p
    try:
        a = analyze(claims, limit=Limit(seconds=seconds))
    except InconsistentPosition as e:
        return Hints(read, problem=f"no layout explains the board: {e}")
    flags = {c for c, s in enumerate(p.states) if s == FLAG}
    safe = frozenset(c for c in a.safe if p.states[c] == COVERED)
    mines = frozenset(c for c in a.mines if p.states[c] == COVERED)
    wrong = frozenset(c for c in a.safe if c in flags)
    if safe:
        return Hints(read, safe, mines, wrong)
    try:
        bm = best_move(claims, Limit(seconds=seconds), analysis=a)
    except IllegalMove as e:
        return Hints(read, safe, mines, wrong, problem=str(e))
    return Hints(read, safe, mines, wrong, bm.move.cell, str(bm.reason), bm.mine_probability)


def watch(
    conn: Connection,
    program: Program,
    window_id: int,
    reader: Reader,
    *,
    show: Callable[[Hints | str], None],
    mines: int | None = None,
    overlay: bool = False,
    interval: float = 0.2,
    updates: int | None = None,
    stop: Callable[[], bool] = lambda: False,
) -> str:
    """Watch the window until ``stop()``, ``updates`` updates, or the window closes; return why
    it ended. ``show`` gets each new :class:`Hints` (or a line saying why the board could not be
    read). With ``overlay`` the hints are also drawn over the board (and the window is grabbed
    from its own pixels, so the overlay is never read)."""
    window = LiveWindow(conn, window_id, unobscured=overlay)
    drawn = Overlay(conn) if overlay else None
    last_picture: Any = None
    last_seen: tuple[bytes, str] | None = None
    done = 0
    try:
        while True:
            if stop():
                return "stopped by a key"
            try:
                picture = window.grab()
            except WindowGone:
                return "the window closed"
            if drawn is not None:
                drawn.pump()
            if last_picture is not None and same_picture(picture, last_picture):
                time.sleep(interval)
                continue
            last_picture = picture
            try:
                read = reader(picture, mines=mines, skin=program.skin)
            except DemineError as e:
                show(f"cannot read the board: {e}")
                time.sleep(interval)
                continue
            seen = (read.position.states, read.state)
            if seen == last_seen:  # only the clock or the pointer moved
                time.sleep(interval)
                continue
            last_seen = seen
            hints = hints_for(read)
            if drawn is not None:
                drawn.show(hints.marks(window.origin), max(2, round(read.cell_w / 8)))
            show(hints)
            done += 1
            if updates is not None and done >= updates:
                return f"{done} updates shown"
            time.sleep(interval)
    finally:
        if drawn is not None:
            drawn.close()
