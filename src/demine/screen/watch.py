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

from demine.engine.position import COVERED
from demine.errors import DemineError
from demine.screen.live import BoardView, LiveWindow, Reader, revealed, same_picture
from demine.screen.overlay import Mark, Overlay
from demine.screen.programs import Program
from demine.screen.x11 import Connection, WindowGone


@dataclass(frozen=True)
class Hints:
    """What demine says of a read board (the web game's hints, :func:`demine.web.hints.hints`)."""

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
    """Why: the first safe cell's proof in words, or the guess's reason and outlook."""
    mine_probability: float | None = None
    """The guess's chance of a mine."""
    problem: str | None = None
    """Why there are no hints (no layout explains the board, the game is over)."""

    def to_json(self) -> dict[str, Any]:
        """The hints as JSON: the state, the position read, the cells as [row, col]."""
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
            "mine_probability": self.mine_probability,
            "problem": self.problem,
        }

    def marks(self, origin: tuple[int, int]) -> list[Mark]:
        """The overlay's frames, in screen pixels (``origin``: the window's top left)."""
        out = []
        kinds = [("wrong", self.wrong_flags), ("mine", self.mines), ("safe", self.safe)]
        if self.best is not None:
            kinds.append(("guess", frozenset([self.best])))
        cw, ch = self.read.cell_w, self.read.cell_h
        for kind, cells in kinds:
            for c in sorted(cells):
                x, y = self.read.centre(c)
                left, top = origin[0] + round(x - cw / 2), origin[1] + round(y - ch / 2)
                out.append(Mark(left, top, round(cw), round(ch), kind))
        return out


def hints_for(read: BoardView) -> Hints:
    """The hints for ``read`` (the player's flags are claims: never trusted); none on a
    finished game or an untouched board."""
    from demine.web.hints import hints

    p = read.position
    if read.state != "playing":
        return Hints(read, problem=f"the game is {read.state}")
    if revealed(p) == 0:
        return Hints(read, problem="no cell opened yet")
    found = hints(p, probabilities=False)
    if "error" in found:
        return Hints(read, problem=f"no layout explains the board: {found['error']}")
    w = p.width

    def cells(key: str) -> frozenset[int]:
        return frozenset(r * w + c for r, c in found[key])

    mines = frozenset(c for c in cells("mines") if p.states[c] == COVERED)
    safe = cells("safe")
    if safe:
        first = min(safe)
        why = found["reasons"].get(f"{first // w},{first % w}", {}).get("text", "")
        return Hints(read, safe, mines, cells("wrong_flags"), reason=why)
    guess = found.get("best")
    wrong = cells("wrong_flags")
    if guess is None:
        left = "a flag proven wrong is the only safe cell" if wrong else "no covered cell left to open"
        return Hints(read, safe, mines, wrong, problem=left)
    r, c = guess["cell"]
    reason = " ".join(str(x) for x in (guess["reason"], guess.get("outlook") or "") if x)
    return Hints(read, safe, mines, wrong, r * w + c, reason, guess["mine_probability"])


class KnownTotal:
    """The mine total of the board watched: ``given``, or the first one read (a count written
    as text costs an OCR pass, 0.15-1.7 s) and passed to the reads after it while the board keeps
    its size; a board of another size is another game, its total read again."""

    def __init__(self, given: int | None) -> None:
        self.given = given
        self.known: tuple[int, int, int] | None = None
        """The total read, with the board's width and height then."""

    def read(self, reader: Reader, picture: Any, skin: str | None) -> BoardView:
        """``reader``'s read of ``picture``, with the total known so far."""
        if self.given is not None:
            return reader(picture, mines=self.given, skin=skin)
        if self.known is not None:
            mines, width, height = self.known
            read = reader(picture, mines=mines, skin=skin)
            if (read.position.width, read.position.height) == (width, height):
                return read
            self.known = None
        read = reader(picture, mines=None, skin=skin)
        if read.position.mines is not None:
            self.known = (read.position.mines, read.position.width, read.position.height)
        return read


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
    total = KnownTotal(mines)
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
                read = total.read(reader, picture, program.skin)
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
