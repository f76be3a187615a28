"""A game being served (:class:`Session`): the engine's game, its times, what the page may see of
it, and how it is stored and restored."""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from demine.analysis import Limit
from demine.analysis.certify import Certificate
from demine.analysis.noguess import NoGuessTimeout, no_guess_game, no_guess_layout, reach_note
from demine.engine.game import Game, Move
from demine.engine.grid import default_start
from demine.engine.position import COVERED, FLAG, Position
from demine.web.hints import _rc, _rows, approx_bytes, as_tuples
from demine.web.store import StoredGame

#: The budget of finding a guess-free layout at a no-guess game's first click.
NO_GUESS_LIMIT = Limit(seconds=5.0)


def _new_game(width: int, height: int, mines: int, rule: str, seed: int | str, no_guess: str | None) -> Game:
    """An unplaced game: an ordinary one, or one whose mines are placed guess-free."""
    if no_guess is None:
        return Game(width, height, mines, rule=rule, seed=seed)
    cert: Certificate = "local" if no_guess == "local" else "complete"
    return no_guess_game(width, height, mines, rule=rule, seed=seed, certificate=cert, limit=NO_GUESS_LIMIT)


def _guess_free(
    width: int, height: int, mines: int, rule: str, first: int, seed: int | str | None, certificate: str
) -> tuple[int, ...]:
    """The guess-free layout a no-guess game places at its first click (what its placer would
    find: the same arguments, the same layout)."""
    cert: Certificate = "local" if certificate == "local" else "complete"
    try:
        board = no_guess_layout(
            width, height, mines, rule, first, seed=seed, certificate=cert, limit=NO_GUESS_LIMIT
        )
    except NoGuessTimeout:
        # the library's advice names a longer time limit, which a player here cannot give
        raise NoGuessTimeout(
            f"no guess-free {width}x{height} board with {mines} mines was found in "
            f"{NO_GUESS_LIMIT.seconds:g} s{reach_note(width, height, rule)}. Click again for another "
            "try, or start a new game with fewer mines or with no guess off"
        ) from None
    return board.mine_cells


def _fixed(cells: tuple[int, ...]) -> Callable[[int], tuple[int, ...]]:
    return lambda first: cells


def seen_bbbv(p: Position) -> int:
    """The 3BV cleared so far, as far as the player can see it: each region of opened zeros (an
    opening) and each opened number with no opened zero beside it. It reads only ``p``, so a
    game being played shows it without telling anything of the hidden layout; it can count a
    number whose opening is still covered (the layout's count would not), and equals the
    layout's count once every opening beside an opened number is open (a won game: its 3BV).
    O(cells)."""
    states = p.states
    nb = p.geometry.neighbours
    seen = bytearray(len(states))
    total = 0
    for c, v in enumerate(states):
        if v == 0 and not seen[c]:
            total += 1  # a new opening: mark its zeros
            seen[c] = 1
            todo = [c]
            while todo:
                for d in nb(todo.pop()):
                    if states[d] == 0 and not seen[d]:
                        seen[d] = 1
                        todo.append(d)
    for c, v in enumerate(states):
        if 0 < v < COVERED and not any(states[d] == 0 for d in nb(c)):
            total += 1
    return total


#: A replay keeps a copy of the board every this many moves at least (see :meth:`Session.frame`)...
REPLAY_STEP = 256
#: ...and at most this many copies a game: a frame replays at most ``moves / REPLAY_FRAMES`` moves.
REPLAY_FRAMES = 16


def _seed_text(seed: int | str | None) -> str | None:
    """A seed as the page shows it: text (a 64-bit number does not survive JavaScript's numbers)."""
    return None if seed is None else str(seed)


@dataclass(eq=False)
class Session:
    """A game being served: the engine's game and the times the page shows."""

    id: str
    """The game's id."""
    game: Game
    """The engine's game (holds the layout: never sent while the game is played)."""
    seed_given: bool
    """Whether the player chose the seed."""
    created: float
    """When it was made."""
    started: float | None = None
    """When the first cell was opened."""
    ended: float | None = None
    """When it ended."""
    hints_cache: tuple[int, dict[str, Any]] | None = field(default=None, repr=False)
    """The hints of the last position asked about, with its move count (set by :meth:`keep_hints`)."""
    review_bytes: bytes | None = field(default=None, repr=False)
    """The review of the finished game as sent (JSON), once asked for (a finished game never
    changes)."""
    export_cache: bytes | None = field(default=None, repr=False)
    """The finished game's export, as sent (JSON)."""
    client: str | None = None
    """The address that made it."""
    hints_used: bool = False
    """Whether hints (or the probabilities) were shown on the game while it was played: its
    record lists it apart from the games played alone."""
    owner: str | None = None
    """The hash of the secret of whoever made it (:attr:`~demine.web.store.StoredGame.owner`)."""
    frames: dict[int, Game] = field(default_factory=dict, repr=False)
    """Copies of a finished game's board after every ``step`` moves, for replays (their move
    lists left empty: only the board is needed)."""
    _final: tuple[bytes, tuple[tuple[int, int], ...], int | None] | None = field(default=None, repr=False)
    """A finished game's layout as :meth:`_layout` gives it, once made."""
    _mines_json: bytes | None = field(default=None, repr=False)
    """A finished game's ``mine_cells`` as the API encodes them, once made (:meth:`mine_cells_json`)."""
    _extra: dict[str, int] = field(default_factory=dict, repr=False)
    """The bytes of each cache above, measured when it is set."""

    def weight(self) -> int:
        """About the bytes this session holds in memory: its board's arrays and its moves
        (measured: a 100x100 game restored with 201 moves holds 41 KiB by tracemalloc, 40 KiB by
        the process's RSS; this says 56 KiB), and its caches of hints, review, export and replay
        frames as measured by :func:`approx_bytes` when they were kept."""
        g = self.game
        frames = len(self.frames) * (200 + g.width * g.height)
        return 2048 + 4 * g.width * g.height + 72 * len(g.moves) + sum(self._extra.values()) + frames

    def keep_hints(self, moves: int, hints: dict[str, Any], size: int | None = None) -> None:
        """Keep the hints of the position after ``moves`` moves (counted in :meth:`weight`, as
        their :func:`~demine.web.hints.approx_bytes`; ``size``: that figure when made already).
        Their lists become tuples, in place (:func:`~demine.web.hints.as_tuples`; already so when
        made by :func:`~demine.web.hints.sized_hints`)."""
        as_tuples(hints)
        self.hints_cache = (moves, hints)
        self._extra["hints"] = approx_bytes(hints) if size is None else size

    def keep_review(self, review: bytes) -> None:
        """Keep the finished game's review, encoded (counted in :meth:`weight`)."""
        self.review_bytes = review
        self._extra["review"] = sys.getsizeof(review)

    def keep_export(self, data: bytes) -> None:
        """Keep the finished game's export (counted in :meth:`weight`)."""
        self.export_cache = data
        self._extra["export"] = sys.getsizeof(data)

    def frame(self, k: int, fresh: Callable[[], Game]) -> Game:
        """The finished game's board after its first ``k`` moves, from the nearest kept copy at
        or before ``k`` (``fresh()``: the board before any move). Copies are kept every
        ``max(REPLAY_STEP, moves / REPLAY_FRAMES)`` moves as they are passed, and the board before
        any move at the first look, so after the first look a frame replays at most that many
        moves, however long the game, and ``fresh`` is called once. The game returned
        is the caller's; its ``moves`` holds only the moves played since the copy."""
        g = self.game
        step = max(REPLAY_STEP, math.ceil(len(g.moves) / REPLAY_FRAMES))
        base = max((b for b in self.frames if b <= k), default=0)
        if base not in self.frames:
            # the board before any move is kept too: a 100x100 board with 5,000 mines took ~10 ms
            # to make from its layout, for every frame before the first kept copy (issue 34)
            start = fresh()
            start.moves = []
            start.bbbv()  # its openings, made once here, are shared by the copies (solved_bbbv)
            self.frames[0] = start
        board = self.frames[base].copy()
        for i in range(base, k):
            board.play(g.moves[i])
            if (i + 1) % step == 0 and i + 1 not in self.frames:
                kept = board.copy()
                kept.moves = []
                self.frames[i + 1] = kept
        return board

    def _layout(self) -> tuple[bytes, tuple[tuple[int, int], ...], int | None]:
        """The finished game's mines, as a mask (1 at each mine's cell) and as the page's
        ``[row, col]`` pairs, and its 3BV: made once (every replay frame of a finished game shows
        them; on a 100x100 board with 5,000 mines they took about half of a frame's time). The
        pairs are tuples and the mask bytes: a finished game's layout stays in memory while it is
        replayed, and its 5,000 pairs made as lists (and a set of 5,000 numbers) were walked by
        every full collection of the cycle collector; a tuple of numbers is left out of its scans
        after its first one (docs/research/web-abuse.md, part m)."""
        g = self.game
        if g.placed and g.over and self._final is not None:
            return self._final
        layout = g.mine_cells() if g.placed else []
        w = g.width
        mask = bytearray(w * g.height)
        for c in layout:
            mask[c] = 1
        out = (bytes(mask), tuple((c // w, c % w) for c in layout), g.bbbv() if g.placed else None)
        if g.placed and g.over:
            self._final = out
            # (+ the mask and the openings the game keeps for its frames' solved_bbbv: 1 + 4 bytes a cell)
            self._extra["layout"] = 64 * len(layout) + 64 + 5 * g.width * g.height
        return out

    def mine_cells_json(self) -> bytes:
        """A finished game's ``mine_cells`` (the views' ``[row, col]`` list) as compact JSON, made
        once: every replay frame of the game holds the same list, and on a 100x100 board with 5,000
        mines encoding it took most of a frame's JSON (about 3 ms, all of it holding the GIL, so
        the event loop waits), so a frame's answer has it spliced in
        (:meth:`~demine.web.finished.FinishedReads.replay_bytes`). Counted in :meth:`weight`."""
        if self._mines_json is None:
            self._mines_json = json.dumps(self._layout()[1], separators=(",", ":")).encode()
            self._extra["mines_json"] = sys.getsizeof(self._mines_json)
        return self._mines_json

    def stored(self) -> StoredGame:
        """The row that restores this game."""
        g = self.game
        return StoredGame(
            id=self.id,
            width=g.width,
            height=g.height,
            mines=g.mines,
            rule=g.rule,
            seed=g.seed if g.seed is not None else "",
            seed_given=self.seed_given,
            layout=g.mine_cells() if g.placed else None,
            moves=[(m.kind, m.cell) for m in g.moves],
            outcome=g.outcome,
            created=self.created,
            started=self.started,
            ended=self.ended,
            no_guess=g.no_guess,
            client=self.client,
            hints_used=self.hints_used,
            owner=self.owner,
        )

    @classmethod
    def restore(cls, row: StoredGame) -> Session:
        """The game a row describes, with its moves replayed."""
        if row.layout is None:
            game = _new_game(row.width, row.height, row.mines, row.rule, row.seed, row.no_guess)
        else:
            game = Game.from_layout(row.width, row.height, row.layout, rule=row.rule)
            game.seed = row.seed
            game.no_guess = row.no_guess
        for kind, cell in row.moves:
            game.play(Move(kind, cell))  # type: ignore[arg-type]
        times = (row.created, row.started, row.ended)
        return cls(
            row.id,
            game,
            row.seed_given,
            *times,
            client=row.client,
            hints_used=row.hints_used,
            owner=row.owner,
        )

    def elapsed(self, now: float | None = None) -> float:
        """Seconds played: from the first reveal to the end (or to now)."""
        if self.started is None:
            return 0.0
        end = self.ended if self.ended is not None else (now if now is not None else time.time())
        return max(0.0, end - self.started)

    def view(self, game: Game | None = None, *, final: bool | None = None) -> dict[str, Any]:
        """What the page may know of the game: the visible board, counters and, once the game is
        over (or for a replay frame, ``final``), the layout, 3BV and the seed."""
        g = game or self.game
        over = self.game.over if final is None else final
        p = g.position()
        w = g.width
        out: dict[str, Any] = {
            "id": self.id,
            "width": g.width,
            "height": g.height,
            "mines": g.mines,
            "rule": g.rule,
            "start": _rc(w, default_start(g.width, g.height, g.rule)),
            "rows": _rows(p),
            "outcome": g.outcome,
            "flags": g.flags,
            "mines_left": 0 if g.won else g.mines - g.flags,  # a won game has every mine accounted for
            "moves": len(g.moves),
            "elapsed": round(self.elapsed(), 3),
            "running": self.started is not None and not self.game.over,
            "seed": _seed_text(self.game.seed) if self.seed_given else None,
            "no_guess": g.no_guess,
            "hints_used": self.hints_used,
            # 3BV cleared (what the player sees; the layout's own count once over), for live 3BV/s
            "solved_bbbv": g.solved_bbbv() if over and g.placed else seen_bbbv(p),
        }
        if over:
            layout, shown, bbbv = self._layout()
            out["mine_cells"] = shown
            out["wrong_flags"] = [_rc(w, c) for c, v in enumerate(p.states) if v == FLAG and not layout[c]]
            out["exploded"] = None if g.exploded is None else _rc(w, g.exploded)
            out["bbbv"] = bbbv
            out["seed"] = _seed_text(self.game.seed)
            out["total_moves"] = len(self.game.moves)
        return out
