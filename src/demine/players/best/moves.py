"""What ``best`` recommends (:class:`BestMove`), and the cell keys its choices share: the chance
to open a zero, the distance from what is revealed, and the safest cell."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter
from typing import Any, Literal

from demine.analysis import Analysis
from demine.engine.game import Move
from demine.engine.grid import geometry
from demine.engine.position import COVERED, HIDDEN_MASK, Position

MoveReason = Literal["safe", "safest", "look-ahead", "endgame", "sampled endgame", "50-50"]


@dataclass(frozen=True, slots=True)
class BestMove:
    """A recommended move with its estimate and the reason for it."""

    move: Move
    """The move to play."""
    reason: MoveReason
    """``safe``, ``safest``, ``look-ahead``, ``endgame``, ``sampled endgame`` or ``50-50``."""
    mine_probability: float
    """The chance the move hits a mine."""
    win_probability: float | None = None
    """The chance to win from here with this move (exact in the endgame; None otherwise)."""
    survive: float | None = None
    """For a look-ahead guess: the chance to survive it and the next ``reveals - 1`` reveals (a
    reveal of a proven safe cell counting as one), playing the best of the cells weighed."""
    reveals: int | None = None
    """How many reveals ``survive`` covers: 3 with ``depth=3``, 2 when the look-ahead ranks by
    two (``depth=2``, or the budget ran out before the deeper ranking). With long-term risk the
    guess's own safety in it is its long-term safety (a mine that only decides a coin toss the
    game must take anyway counts as nearly safe)."""

    @property
    def outlook(self) -> str:
        """What the move's search says of what follows, in words ("" when it says nothing more
        than the risk): the chance to win with best play in the endgame, else after a look-ahead
        the chance to survive the next reveals."""
        if self.win_probability is not None:
            return f"wins {100 * self.win_probability:.1f}% with best play"
        if self.survive is not None:
            return f"{100 * self.survive:.1f}% to survive {self.reveals} reveals from here"
        return ""

    @property
    def estimate(self) -> float:
        """The best estimate of the chance to win from here that this move carries: exact in
        the endgame, else an upper bound (surviving this guess, or this and the next one or two
        reveals)."""
        if self.win_probability is not None:
            return self.win_probability
        if self.survive is not None:
            return self.survive
        return 1.0 - self.mine_probability


@lru_cache(maxsize=8)
def _neighbour_getters(width: int, height: int) -> tuple[Callable[[bytes], Any], ...]:
    """Per cell, a C-level getter of its neighbours' bytes (for counting them fast); a cell with
    fewer than two neighbours gets a slice, so every getter returns something ``sum`` can add."""
    nb = geometry(width, height).neighbours
    out: list[Callable[[bytes], Any]] = []
    for c in range(width * height):
        cells = nb(c)
        if len(cells) >= 2:
            out.append(itemgetter(*cells))
        else:
            out.append(itemgetter(slice(cells[0], cells[0] + 1) if cells else slice(0, 0)))
    return tuple(out)


@lru_cache(maxsize=8)
def neighbour_counts(width: int, height: int) -> tuple[int, ...]:
    """Per cell, how many neighbours it has (3 in a corner, 5 on an edge, 8 inside)."""
    nb = geometry(width, height).neighbours
    return tuple(len(nb(c)) for c in range(width * height))


def zero_chance_keys(position: Position) -> Callable[[int], int]:
    """A cell's count of covered or flagged neighbours in ``position``: fewer, more likely to be a
    zero (and open an area). The count for many cells, the board's mask made once."""
    if position.cells > 65536:
        st = position.states
        nb = position.geometry.neighbours
        return lambda c: sum(1 for d in nb(c) if st[d] >= COVERED)
    getters = _neighbour_getters(position.width, position.height)
    hidden = position.states.translate(HIDDEN_MASK)
    return lambda c: sum(getters[c](hidden))


def distances(position: Position, far_off: bool) -> Callable[[int], int]:
    """Each cell's distance (steps in rows and columns) to the nearest revealed cell, negated when
    ``far_off`` (so that sorting puts the farthest first), else 0 for every cell. The search runs
    at the first call (and once per position: the look-ahead and the safest move share it)."""
    if not far_off:
        return lambda c: 0
    dist: tuple[int, ...] = ()

    def key(c: int) -> int:
        nonlocal dist
        if not dist:
            dist = _steps_to_revealed(position.width, position.height, position.states)
        return -dist[c]

    return key


@lru_cache(maxsize=4)
def _steps_to_revealed(width: int, height: int, states: bytes) -> tuple[int, ...]:
    """Breadth-first search from all revealed cells at once (-1 where none can be reached)."""
    n4 = _four_neighbours(width, height)
    dist = [-1] * (width * height)
    todo = [c for c, v in enumerate(states) if v < COVERED]
    for c in todo:
        dist[c] = 0
    for c in todo:  # the list grows as the search goes
        step = dist[c] + 1
        for d in n4[c]:
            if dist[d] < 0:
                dist[d] = step
                todo.append(d)
    return tuple(dist)


@lru_cache(maxsize=8)
def _four_neighbours(width: int, height: int) -> tuple[tuple[int, ...], ...]:
    """Per cell, its neighbours up, down, left and right."""
    out = []
    for c in range(width * height):
        r, col = divmod(c, width)
        sides = ((c - width, r > 0), (c + width, r < height - 1), (c - 1, col > 0), (c + 1, col < width - 1))
        out.append(tuple(d for d, ok in sides if ok))
    return tuple(out)


def touches_revealed(position: Position, cells: list[int]) -> list[bool]:
    """For each of ``cells`` (covered ones), whether a neighbour is revealed (it is on the
    frontier). Marks the neighbours of the revealed cells, or counts each cell's hidden
    neighbours, whichever visits fewer cells."""
    st = position.states
    n = position.cells
    revealed = n - st.translate(HIDDEN_MASK).count(1)
    if revealed * 8 < len(cells) * 3 or n > 65536:
        mark = bytearray(n)
        nb = position.geometry.neighbours
        for c, v in enumerate(st):
            if v < COVERED:
                for d in nb(c):
                    mark[d] = 1
        return [bool(mark[c]) for c in cells]
    zero_key = zero_chance_keys(position)
    n_nb = neighbour_counts(position.width, position.height)
    return [zero_key(c) != n_nb[c] for c in cells]


def safest_move(position: Position, a: Analysis, far_ties: bool = False) -> BestMove:
    """The lowest-probability covered cell, ties toward the cell most likely to be a zero, then
    (with ``far_ties``: ``best`` with ``far_off``) toward the farthest from every revealed cell."""
    st = position.states
    tied = [c for c in a.safest() if st[c] == COVERED] or [c for c in a.unknown if st[c] == COVERED]
    zero_key = zero_chance_keys(position)
    if position.cells <= 65536:
        # a cell away from every revealed one has all its neighbours hidden: its key is their number
        n_nb = neighbour_counts(position.width, position.height)
        near = touches_revealed(position, tied)
        keys = {c: zero_key(c) if on else n_nb[c] for c, on in zip(tied, near, strict=True)}
    else:
        keys = {c: zero_key(c) for c in tied}
    least = min(keys.values())
    tied = [c for c in tied if keys[c] == least]
    if far_ties and len(tied) > 1:  # the distances only when they decide something
        far = distances(position, True)
        c = min(tied, key=lambda c: (far(c), c))
    else:
        c = min(tied)
    return BestMove(Move("reveal", c), "safest", a.p(c))
