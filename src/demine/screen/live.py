"""Playing another program's games through its window: read, decide, click once, read again.

A turn grabs the window, reads the board (:func:`demine.screen.read.read_board`), checks the read
against the last one, decides with ``best`` (:func:`~demine.players.best.best_move`) and clicks
one cell; then it waits until the window has changed and holds still, and the next turn reads it
again. At most one click is made per read, and every click lands inside the window (the
:class:`~demine.screen.x11.Connection` refuses any other).

A *misread* is a read that contradicts the one before (a revealed cell covered again or showing
another number, another board size) or that no layout explains
(:class:`~demine.errors.InconsistentPosition`); the turn then clicks nothing and reads again.

The window and the reader are seams (:class:`Window`, :data:`Reader`): the tests play a
:class:`~demine.engine.game.Game` through fakes of both, and the command the real program.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from demine.analysis import Limit
from demine.engine.grid import default_start
from demine.engine.position import COVERED, FLAG, Position
from demine.errors import DemineError, IllegalMove, InconsistentPosition
from demine.players.best import BestSettings, best_move
from demine.screen.programs import Program
from demine.screen.x11 import Connection, ScreenError


class BoardView(Protocol):
    """What the play loop uses of a read (:class:`demine.screen.read.BoardRead`)."""

    @property
    def position(self) -> Position: ...
    @property
    def box(self) -> tuple[int, int, int, int]: ...
    @property
    def state(self) -> str: ...
    @property
    def cell_w(self) -> float: ...
    @property
    def cell_h(self) -> float: ...
    @property
    def face(self) -> tuple[int, int] | None: ...
    @property
    def exploded(self) -> int | None: ...
    @property
    def mines_shown(self) -> frozenset[int]: ...
    def centre(self, cell: int) -> tuple[int, int]: ...


#: Reads an image: ``reader(image, mines=..., skin=..., hint_box=...)``; raises a
#: :class:`~demine.errors.DemineError` (``UnreadableScreen``) when it cannot.
Reader = Callable[..., BoardView]


class Window(Protocol):
    """A window to play in: its picture and its input, in the picture's pixels."""

    def grab(self) -> Any:
        """The window's picture, an HxWx3 uint8 array."""
        ...

    def click(self, x: int, y: int, button: str = "left") -> None:
        """Click at pixel (x, y) of the picture."""
        ...

    def key(self, combo: str) -> None:
        """Type a key (``n``, ``ctrl+n``) into the window."""
        ...


class LiveWindow:
    """A real window on a display: grabbed from the screen, clicked through XTest (never
    outside its box: the box is looked up again for every click)."""

    def __init__(self, conn: Connection, window_id: int, *, unobscured: bool = False) -> None:
        self.conn = conn
        self.id = window_id
        self.unobscured = unobscured
        """Grab the window's own pixels through Composite (for a window with an overlay over it)."""
        self.origin = conn.window(window_id).box[:2]
        if unobscured:
            conn.redirect(window_id)  # now, before an overlay is drawn over it

    def grab(self) -> Any:
        box = self.conn.box(self.id)
        self.origin = box[:2]
        if self.unobscured:
            return self.conn.grab_unobscured(self.id)
        return self.conn.grab(box)

    def click(self, x: int, y: int, button: str = "left") -> None:
        self.conn.click(self.id, self.origin[0] + x, self.origin[1] + y, button)

    def key(self, combo: str) -> None:
        self.conn.key(self.id, combo)

    def move(self, x: int, y: int) -> None:
        """The pointer to (x, y) in the window."""
        self.conn.move(self.id, self.origin[0] + x, self.origin[1] + y)


@dataclass(frozen=True)
class PlaySettings:
    """How :func:`play_game` plays and waits."""

    best: BestSettings = field(default_factory=BestSettings)
    """``best``'s settings."""
    seconds: float = 2.0
    """The budget of one decision."""
    max_misreads: int = 8
    """Misreads or unreadable pictures in a row after which the game is given up
    (``unreadable``)."""
    settle: float = 3.0
    """How long to wait for the window to change after a click (seconds)."""
    poll: float = 0.015
    """How often to look at the window while waiting (seconds)."""
    end_wait: float = 0.6
    """How long to let a program draw its end after the click that wins (seconds)."""


@dataclass
class Turn:
    """One turn: the click and what it cost."""

    cell: int
    row: int
    col: int
    reason: str
    """``start`` (the first click), or ``best``'s reason (``safe``, ``look-ahead``, ...)."""
    mine_probability: float | None
    grab_ms: float
    read_ms: float
    decide_ms: float
    click_ms: float
    wait_ms: float = 0.0
    """How long the window took to change and settle after the click (not part of the turn)."""

    @property
    def turn_ms(self) -> float:
        """Grab, read, decide and click."""
        return self.grab_ms + self.read_ms + self.decide_ms + self.click_ms

    def to_json(self) -> dict[str, Any]:
        p = None if self.mine_probability is None else round(self.mine_probability, 6)
        return {
            "cell": [self.row, self.col],
            "reason": self.reason,
            "mine_probability": p,
            "ms": {
                "grab": round(self.grab_ms, 2),
                "read": round(self.read_ms, 2),
                "decide": round(self.decide_ms, 2),
                "click": round(self.click_ms, 2),
                "wait": round(self.wait_ms, 2),
            },
        }


@dataclass
class GameLog:
    """One game played through the window."""

    width: int = 0
    height: int = 0
    mines: int | None = None
    outcome: str = "playing"
    """``won``, ``lost``, ``unreadable`` (too many misreads in a row), ``stopped`` (a key, or
    the window closed)."""
    turns: list[Turn] = field(default_factory=list)
    reads: int = 0
    misreads: list[str] = field(default_factory=list)
    """What each misread contradicted, in words: a read against the one before, or a board no
    layout explains."""
    unreadable: list[str] = field(default_factory=list)
    """Why each picture the reader could not read was refused (a window caught redrawing, a
    dialog): nothing is clicked on it, and the next picture is read."""
    lost_on_proven_safe: bool = False
    """Lost on a cell ``best`` had proven safe: a misread or a solver's error."""
    exploded: int | None = None
    first: Position | None = None
    """The first read (an opened board for a program that opens one itself)."""
    last: Position | None = None
    """The last read."""
    layout: list[int] | None = None
    """The mines, when the end shows them all (a win: every covered cell; a loss where the
    program shows every mine)."""
    replayable: bool = True
    """False when the board's size was misread before a click (the clicks made on it name
    cells of another grid: the game cannot be replayed against the truth)."""
    final: BoardView | None = None
    """The last read that agreed with the one before (a finished game's face is on it)."""
    frames: list[tuple[int, Any, BoardView]] = field(default_factory=list)
    """With ``keep_frames``: each picture read and its read, after how many clicks (for checking
    against the truth, :mod:`demine.screen.groundtruth`)."""
    failed: list[tuple[int, Any, str]] = field(default_factory=list)
    """With ``keep_frames``: each picture refused (a misread or unreadable), after how many
    clicks, and why."""

    def _rc(self, cell: int) -> list[int]:
        return list(divmod(cell, self.width))

    def to_json(self) -> dict[str, Any]:
        """The game as JSON: moves with reasons and times, reads, misreads, outcome."""
        return {
            "width": self.width,
            "height": self.height,
            "mines": self.mines,
            "outcome": self.outcome,
            "moves": [t.to_json() for t in self.turns],
            "reads": self.reads,
            "misreads": self.misreads,
            "unreadable": self.unreadable,
            "lost_on_proven_safe": self.lost_on_proven_safe,
            "exploded": None if self.exploded is None else self._rc(self.exploded),
            "first": None if self.first is None else self.first.to_text(),
            "last": None if self.last is None else self.last.to_text(),
            "mine_cells": None if self.layout is None else [self._rc(c) for c in self.layout],
        }


def contradiction(before: Position, after: Position) -> str | None:
    """What ``after`` contradicts in ``before`` (a later read of the same game), or None: a
    revealed cell is covered or flagged again, or shows another number; the size changed.

    >>> a = Position.from_text("3x1\\n1HH")
    >>> contradiction(a, Position.from_text("3x1\\n12H")) is None
    True
    >>> contradiction(a, Position.from_text("3x1\\n2HH"))
    'cell (0, 0) showed 1, now 2'
    """
    if (before.width, before.height) != (after.width, after.height):
        return f"the board was {before.width}x{before.height}, now {after.width}x{after.height}"
    shown = "012345678HF"
    for c, (b, a) in enumerate(zip(before.states, after.states, strict=True)):
        if b < COVERED and a != b:
            r, col = divmod(c, before.width)
            return f"cell ({r}, {col}) showed {shown[b]}, now {shown[a]}"
    return None


def revealed(position: Position) -> int:
    """How many cells show a number."""
    return sum(1 for s in position.states if s < COVERED)


def decide(position: Position, rule: str, settings: PlaySettings) -> tuple[int, str, float | None]:
    """The cell to click, the reason and its chance of a mine: the rule's usual start on an
    untouched board, else ``best``'s move (flags taken as claims: as covered cells)."""
    if revealed(position) == 0:
        start = default_start(position.width, position.height, rule)
        p = None
        if position.mines is not None and rule == "none":
            p = position.mines / (position.width * position.height)
        return start, "start", 0.0 if rule in ("zero", "safe") else p
    unflagged = position.without_flags() if FLAG in position.states else position
    bm = best_move(unflagged, Limit(seconds=settings.seconds), settings=settings.best)
    if bm.move.kind != "reveal":
        raise IllegalMove(f"best chose a {bm.move.kind}, not a reveal")
    return bm.move.cell, str(bm.reason), bm.mine_probability


def same_picture(a: Any, b: Any) -> bool:
    """Whether two pictures are the same, pixel for pixel."""
    return bool(a.shape == b.shape and (a == b).all())


def settle(window: Window, before: Any, settings: PlaySettings) -> tuple[Any, float]:
    """Wait until the window differs from ``before`` and then holds still for one look; the
    picture and the ms waited. Past ``settings.settle`` seconds, the picture as it is."""
    t0 = time.perf_counter()
    last = before
    changed = False
    while True:
        time.sleep(settings.poll)
        now = window.grab()
        if changed and same_picture(now, last):
            return now, 1000 * (time.perf_counter() - t0)
        if not same_picture(now, before):
            changed = True
        last = now
        if time.perf_counter() - t0 > settings.settle:
            return now, 1000 * (time.perf_counter() - t0)


def _final(log: GameLog, read: BoardView, won: bool = False) -> None:
    """Fill in the end of ``log`` from the read that shows the game over (``won``: a win the
    read's state does not say)."""
    p = read.position
    log.outcome = "won" if won else read.state
    log.last = p
    log.exploded = read.exploded
    if log.outcome == "won":
        log.layout = [c for c, s in enumerate(p.states) if s >= COVERED]
    elif read.exploded is not None and read.mines_shown:
        shown = set(read.mines_shown) | {read.exploded}
        if p.mines is None or len(shown) == p.mines:
            log.layout = sorted(shown)
    if log.outcome == "lost" and log.turns:
        last = log.turns[-1]
        log.lost_on_proven_safe = last.reason == "safe"


def play_game(
    window: Window,
    program: Program,
    reader: Reader,
    *,
    mines: int | None = None,
    settings: PlaySettings | None = None,
    stop: Callable[[], bool] = lambda: False,
    keep_frames: bool = False,
    on_turn: Callable[[GameLog, BoardView], None] | None = None,
) -> GameLog:
    """Play the game shown in ``window`` to its end: one click per read.

    ``mines`` is the total when the program's counter cannot be read; ``stop`` is asked before
    every turn (a key pressed); ``on_turn`` sees the log and each read. Ends when the game is won
    or lost, ``stop()`` says so (``stopped``), or the reads keep contradicting each other
    (``unreadable``). :class:`~demine.screen.x11.WindowGone` when the window closes.
    """
    settings = settings or PlaySettings()
    log = GameLog()
    last: BoardView | None = None
    doubted: Position | None = None  # a read that contradicted the last one, to be confirmed
    picture, grab_ms = _grab(window)
    in_a_row = 0
    while True:
        if stop():
            log.outcome = "stopped"
            return log
        t1 = time.perf_counter()
        read: BoardView | None = None
        problem: str | None = None
        try:
            box = None if last is None else last.box
            read = reader(picture, mines=mines, skin=program.skin, hint_box=box)
        except ScreenError:
            raise
        except DemineError as e:
            problem = str(e)
        t2 = time.perf_counter()
        log.reads += 1
        if read is not None and last is not None:
            problem = contradiction(last.position, read.position)
            if problem is not None and doubted == read.position:
                problem = None  # read twice alike: the board did change (the last read was the wrong one)
            doubted = read.position if problem is not None else None
        cell, reason, risk = -1, "", None
        if read is not None and problem is None:
            p = read.position
            if keep_frames:
                log.frames.append((len(log.turns), picture, read))
            if log.first is None or (p.width, p.height) != (log.width, log.height):
                # the first read, or a board of another size read twice alike: the first was wrong
                log.replayable = log.replayable and not log.turns
                log.width, log.height, log.mines = p.width, p.height, p.mines
                log.first = p
                if keep_frames:
                    log.frames = [f for f in log.frames if f[2].position.states is p.states]
            last = log.final = read
            if on_turn is not None:
                on_turn(log, read)
            if read.state in ("won", "lost"):
                _final(log, read)
                return log
            if COVERED not in p.states:
                # every hidden cell flagged (Tatham's Mines flags them all at a win): nothing is
                # left to click, so the game is won whatever the read's state says
                _final(log, read, won=True)
                return log
            try:
                cell, reason, risk = decide(p, program.rule, settings)
            except InconsistentPosition as e:
                problem = f"no layout explains it: {e}"
            except IllegalMove as e:
                problem = f"nothing to click: {e}"
        if read is None or problem is not None:
            (log.unreadable if read is None else log.misreads).append(problem or "unreadable")
            if keep_frames:
                log.failed.append((len(log.turns), picture, problem or "unreadable"))
            in_a_row += 1
            if in_a_row >= settings.max_misreads:
                log.outcome = "unreadable"
                return log
            time.sleep(settings.poll * 4)
            picture, grab_ms = _grab(window)
            continue
        in_a_row = 0
        t3 = time.perf_counter()
        x, y = read.centre(cell)
        window.click(x, y, "left")
        if program.pointer_away and isinstance(window, LiveWindow):
            window.move(2, 2)
        t4 = time.perf_counter()
        row, col = divmod(cell, read.position.width)
        ms = [1000 * (t2 - t1), 1000 * (t3 - t2), 1000 * (t4 - t3)]
        turn = Turn(cell, row, col, reason, risk, grab_ms, *ms)
        log.turns.append(turn)
        if _last_safe_cell(read.position, reason):
            # the click that wins: programs mark the end (Tatham's Mines flashes the board);
            # the end is read once it has been drawn, not half-way
            time.sleep(settings.end_wait)
        _, turn.wait_ms = settle(window, picture, settings)
        picture, grab_ms = _grab(window)  # the next turn's grab, timed alone


def _last_safe_cell(position: Position, reason: str) -> bool:
    """Whether opening a cell proven safe wins: it is the only hidden cell not a mine."""
    if position.mines is None or reason != "safe":
        return False
    hidden = sum(1 for s in position.states if s >= COVERED)
    return hidden - position.mines == 1


def _grab(window: Window) -> tuple[Any, float]:
    """The window's picture and the ms it took."""
    t0 = time.perf_counter()
    picture = window.grab()
    return picture, 1000 * (time.perf_counter() - t0)


def new_game(window: Window, program: Program, read: BoardView | None, settings: PlaySettings) -> None:
    """Start a new game the program's own way (its key, or a click on its face), and wait for
    the window to show it."""
    if program.dialogs is not None and isinstance(window, LiveWindow):
        close_dialogs(window, program.dialogs)
    before = window.grab()
    if program.new_game == "face":
        face = None if read is None else read.face
        if face is None and program.face is not None:
            face = (int(program.face[0] * before.shape[1]), program.face[1])
        if face is None:
            raise ScreenError(f"{program.title}'s new game is a click on its face, and none was read")
        window.click(*face)
    else:
        window.key(program.new_game.removeprefix("key:"))
    settle(window, before, settings)


def close_dialogs(window: LiveWindow, suffix: str) -> int:
    """Close (Escape) the windows other than ``window`` whose names end with ``suffix``: the
    program's own windows over its board at a game's end. How many there were."""
    closed = 0
    for info in window.conn.windows():
        if info.id != window.id and (info.name or "").endswith(suffix):
            window.conn.key(info.id, "Escape")
            closed += 1
    if closed:
        time.sleep(0.3)
    return closed


def percentile(values: list[float], q: float) -> float | None:
    """The ``q`` quantile (0-1) of ``values`` by the nearest rank, or None when empty.

    >>> percentile([4.0, 1.0, 3.0, 2.0], 0.5), percentile([4.0, 1.0, 3.0, 2.0], 0.95)
    (2.0, 4.0)
    """
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q * len(ordered)))
    return ordered[rank - 1]


#: The parts of a turn, timed each.
PARTS = ("grab", "read", "decide", "click")


def summary(logs: list[GameLog], program: Program) -> dict[str, Any]:
    """The JSON summary of games played: counts, the win rate with its Wilson 95% interval,
    misreads, and one turn's time (grab, read, decide, click) at p50 and p95 in ms."""
    from demine.bench.stats import wilson

    finished = [g for g in logs if g.outcome in ("won", "lost")]
    won = sum(1 for g in finished if g.outcome == "won")
    turns = [t for g in logs for t in g.turns]
    low, high = wilson(won, len(finished)) if finished else (0.0, 0.0)

    def ms(values: list[float]) -> dict[str, float | None]:
        return {"p50": _round(percentile(values, 0.5)), "p95": _round(percentile(values, 0.95))}

    return {
        "program": program.name,
        "rule": program.rule,
        "games": len(logs),
        "won": won,
        "lost": len(finished) - won,
        "unreadable": sum(1 for g in logs if g.outcome == "unreadable"),
        "stopped": sum(1 for g in logs if g.outcome == "stopped"),
        "lost_on_proven_safe": sum(1 for g in logs if g.lost_on_proven_safe),
        "misreads": sum(len(g.misreads) for g in logs),
        "unreadable_reads": sum(len(g.unreadable) for g in logs),
        "reads": sum(g.reads for g in logs),
        "moves": len(turns),
        "win_rate": won / len(finished) if finished else None,
        "win_rate_95": [low, high] if finished else None,
        "ms_per_move": ms([t.turn_ms for t in turns]),
        "ms_parts": {
            part: ms([getattr(t, f"{part}_ms") for t in turns])
            for part in ("grab", "read", "decide", "click")
        },
        "ms_wait": ms([t.wait_ms for t in turns]),
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)
