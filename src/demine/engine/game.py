"""The game: a hidden mine layout, what the player sees of it, and the rules.

Layouts are generated at the first reveal (or given with :meth:`Game.from_layout`). The
first-click rule decides which cells are kept free:

- ``safe``: the first cell has no mine;
- ``zero``: the first cell and its neighbours have no mine (the first click opens an area);
- ``none``: no cell is kept free (the first click may lose).

**Uniformity.** The mines are drawn with ``random.Random(seed).sample(allowed, mines)``, where
``allowed`` is every cell the rule does not keep free. ``sample`` draws a uniformly random
subset of the given size, so every layout the rule allows has the same probability,
``1 / C(len(allowed), mines)``. Nothing is relocated after the draw (relocating a mine from the first
cell to a fixed place, as old versions of the game did, is *not* uniform and skews probabilities).

**Cost.** A move costs time in proportion to the cells it changes: a reveal floods only the cells it
opens, the win test is a counter, and the position is one ``bytes`` copy. Placing the layout costs
O(cells) once.
"""

from __future__ import annotations

import random
from array import array
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from demine.engine.grid import RULES, Geometry, check_mines, geometry, mine_cells_allowed
from demine.engine.lanes import neighbour_sums
from demine.engine.position import COVERED, FLAG, Position
from demine.errors import IllegalMove, SizeError

MoveKind = Literal["reveal", "flag", "chord"]
MOVE_KINDS: tuple[MoveKind, ...] = ("reveal", "flag", "chord")


@dataclass(frozen=True, slots=True)
class Move:
    """One player action."""

    kind: MoveKind
    """``reveal``, ``flag`` (toggles a flag) or ``chord``."""
    cell: int
    """The cell acted on."""


@lru_cache(maxsize=4096)
def reveal_move(cell: int) -> Move:
    """``Move("reveal", cell)``, one object kept for each recent cell (moves are values). A player
    that opens hundreds of cells a game asks for the same moves game after game, and a frozen
    dataclass costs more to make than to look up.

    >>> reveal_move(3) == Move("reveal", 3), reveal_move(3) is reveal_move(3)
    (True, True)
    """
    return Move("reveal", cell)


@lru_cache(maxsize=4096)
def flag_move(cell: int) -> Move:
    """``Move("flag", cell)``, kept as :func:`reveal_move` keeps its moves."""
    return Move("flag", cell)


def seeded_random(seed: int | str | None) -> random.Random:
    """``random.Random(seed)``, for any text: a string is seeded through its UTF-8 bytes with
    ``surrogatepass``, so a lone surrogate (``"\\ud800"``, which plain UTF-8 refuses) seeds too.
    For every other string the bytes are the ones ``random.Random`` hashes itself, so each seed
    keeps its board.

    >>> seeded_random("abc").random() == random.Random("abc").random()
    True
    >>> 0 <= seeded_random("\\ud800").random() < 1
    True
    """
    if isinstance(seed, str):
        return random.Random(seed.encode("utf-8", "surrogatepass"))
    return random.Random(seed)


class Game:
    """A game of Minesweeper.

    >>> g = Game(9, 9, 10, rule="zero", seed=1)
    >>> opened = g.reveal(g.geometry.cell(4, 4))
    >>> len(opened) >= 9, g.outcome
    (True, 'playing')
    """

    def __init__(
        self,
        width: int,
        height: int,
        mines: int,
        *,
        rule: str = "safe",
        seed: int | str | None = None,
        lives: int = 0,
        placer: Callable[[int], Sequence[int]] | None = None,
        no_guess: str | None = None,
    ) -> None:
        if rule not in RULES:
            raise SizeError(f"unknown first-click rule {rule!r}; choose one of {', '.join(RULES)}")
        check_mines(width, height, mines, rule)
        self.width = width
        self.height = height
        self.mines = mines
        self.rule = rule
        self.seed = seed
        self.geometry: Geometry = geometry(width, height)
        n = width * height
        self._visible = bytearray([COVERED]) * n
        self._mine: bytearray | None = None
        self._count: bytearray | None = None
        self._hidden_safe = n - mines
        self._flags = 0
        self._bbbv: int | None = None
        self._parts: tuple[list[array[int]], array[int]] | None = None
        """The layout's openings (the zeros of each) and the numbers outside every opening, made
        once for :meth:`bbbv` and :meth:`solved_bbbv` (a replay frame of a finished game asks it);
        4 bytes a cell."""
        self.start: int | None = None
        """The first revealed cell (the first click), once there is one."""
        self.outcome: Literal["playing", "won", "lost"] = "playing"
        """``playing``, ``won`` or ``lost``."""
        self.exploded: int | None = None
        """The mine that lost the game, if any."""
        self.moves: list[Move] = []
        """Every move that changed the board, in order."""
        if lives < 0:
            raise SizeError(f"lives must be 0 or more, got {lives}")
        self.lives = lives
        """Mines that may be hit without losing: a hit mine is marked with a flag and play goes
        on (as some versions of the game allow, so huge boards can be played to the end)."""
        self.hits = 0
        """Mines hit so far (each used a life)."""
        self.placer = placer
        """Places the mines at the first click instead of a uniform draw: given the first click,
        the mine cells (they must respect the rule). A no-guess generator is one."""
        self.no_guess = no_guess
        """The certificate that makes the layout guess-free from the first click (``complete`` or
        ``local``), or None for an ordinary game."""

    # ------------------------------------------------------------------ layout
    @classmethod
    def from_layout(
        cls,
        width: int,
        height: int,
        mine_cells: list[int] | tuple[int, ...] | set[int],
        *,
        rule: str = "none",
        lives: int = 0,
    ) -> Game:
        """A game on a given layout (to replay a board). ``rule`` is kept as information."""
        cells = sorted(set(mine_cells))
        if len(cells) != len(mine_cells):
            raise SizeError("the layout names a mine cell twice")
        n = width * height
        check_mines(width, height, len(cells))
        for c in cells:
            if not (0 <= c < n):
                raise SizeError(f"mine cell {c} is off the {width}x{height} board")
        g = cls(width, height, len(cells), rule="none", lives=lives)
        g.rule = rule
        g._set_layout(cells)
        return g

    def _set_layout(self, cells: list[int]) -> None:
        mine = bytearray(self.width * self.height)
        for c in cells:
            mine[c] = 1
        self._mine = mine
        self._count = bytearray(neighbour_sums(self.width, self.height, bytes(mine)))  # (at C speed)
        self._parts = None

    def _place(self, first: int) -> None:
        try:
            check_mines(self.width, self.height, self.mines, self.rule, first)
        except SizeError as e:
            raise SizeError(f"first click at {self.geometry.name(first)}: {e}") from None
        allowed = mine_cells_allowed(self.geometry, self.rule, first)
        if self.placer is not None:
            cells = sorted(set(self.placer(first)))
            if len(cells) != self.mines or not set(cells) <= set(allowed):
                raise IllegalMove(f"the placer's {len(cells)} mines do not respect the {self.rule!r} rule")
            self._set_layout(cells)
            return
        rng = seeded_random(self.seed)
        self._set_layout(rng.sample(allowed, self.mines))

    @property
    def placed(self) -> bool:
        """Whether the mine layout exists yet (it is drawn at the first reveal)."""
        return self._mine is not None

    def mine_cells(self) -> list[int]:
        """The hidden layout (sorted cells). Raises IllegalMove before the first reveal."""
        if self._mine is None:
            raise IllegalMove("the layout is drawn at the first reveal; there is none yet")
        return [i for i, v in enumerate(self._mine) if v]

    def is_mine(self, cell: int) -> bool:
        """Whether ``cell`` holds a mine (for tests and replays, never for solvers)."""
        if self._mine is None:
            raise IllegalMove("the layout is drawn at the first reveal; there is none yet")
        return bool(self._mine[cell])

    # ------------------------------------------------------------------ moves
    def _playable(self, cell: int) -> None:
        """Raise :class:`IllegalMove` unless a move on ``cell`` may be made now."""
        if self.outcome != "playing":
            raise IllegalMove(f"the game is over ({self.outcome})")
        if not (0 <= cell < self.width * self.height):
            raise IllegalMove(f"cell {cell} is off the {self.width}x{self.height} board")

    def reveal(self, cell: int) -> list[int]:
        """Open ``cell`` (flooding zeros); returns the cells opened. A flagged or already open
        cell is left alone. Opening a mine loses."""
        return self._reveal(cell, None)

    def _reveal(self, cell: int, move: Move | None) -> list[int]:
        """:meth:`reveal`, noting ``move`` (``Move("reveal", cell)``, made here when None)."""
        self._playable(cell)
        if self._visible[cell] != COVERED:
            return []
        if self._mine is None:
            self._place(cell)
        if self.start is None:
            self.start = cell
        self.moves.append(move or Move("reveal", cell))
        return self._open(cell)

    def _open(self, cell: int) -> list[int]:
        mine, count, vis = self._mine, self._count, self._visible
        assert mine is not None and count is not None
        if mine[cell]:
            if self.hits < self.lives:  # a life is used: the mine is marked and play goes on
                self.hits += 1
                vis[cell] = FLAG
                self._flags += 1
                return []
            self.outcome = "lost"
            self.exploded = cell
            return []
        nb = self.geometry.neighbours
        opened = [cell]
        vis[cell] = count[cell]
        if count[cell] == 0:
            todo = deque([cell])
            while todo:
                c = todo.popleft()
                for d in nb(c):
                    if vis[d] == COVERED:
                        vis[d] = count[d]
                        opened.append(d)
                        if count[d] == 0:
                            todo.append(d)
        self._hidden_safe -= len(opened)
        if self._hidden_safe == 0:
            self.outcome = "won"
        return opened

    def flag(self, cell: int) -> bool:
        """Toggle a flag on a covered cell; returns whether the cell is now flagged."""
        return self._flag(cell, None)

    def _flag(self, cell: int, move: Move | None) -> bool:
        """:meth:`flag`, noting ``move`` (``Move("flag", cell)``, made here when None)."""
        self._playable(cell)
        v = self._visible[cell]
        if v == COVERED:
            self._visible[cell] = FLAG
            self._flags += 1
        elif v == FLAG:
            self._visible[cell] = COVERED
            self._flags -= 1
        else:
            raise IllegalMove(f"cell {self.geometry.name(cell)} is open and cannot be flagged")
        self.moves.append(move or Move("flag", cell))
        return self._visible[cell] == FLAG

    def chord_targets(self, cell: int) -> list[int]:
        """The cells a chord on ``cell`` would open now: the covered neighbours of an open number
        whose flag count equals it (none otherwise)."""
        v = self._visible[cell]
        if v >= COVERED or self._mine is None:
            return []
        nb = self.geometry.neighbours(cell)
        vis = self._visible
        if sum(1 for d in nb if vis[d] == FLAG) != v:
            return []
        return [d for d in nb if vis[d] == COVERED]

    def chord(self, cell: int) -> list[int]:
        """Open the unflagged neighbours of an open number whose flag count equals it.

        As in Windows, a wrong flag makes the chord open a mine and lose (or use a life). A number
        whose flags do not match, or a covered cell, is left alone (returns ``[]``).
        """
        self._playable(cell)
        targets = self.chord_targets(cell)
        if not targets:
            return []
        vis = self._visible
        self.moves.append(Move("chord", cell))
        opened: list[int] = []
        for d in targets:
            if vis[d] == COVERED:
                opened += self._open(d)
                if self.outcome == "lost":
                    break
        return opened

    def play(self, move: Move) -> list[int]:
        """Apply a :class:`Move` (noted in :attr:`moves` as given: moves are values); returns the
        cells opened (empty for a flag)."""
        kind = move.kind
        if kind == "reveal":
            return self._reveal(move.cell, move)
        if kind == "chord":
            return self.chord(move.cell)
        if kind == "flag":
            self._flag(move.cell, move)
            return []
        raise IllegalMove(f"unknown move kind {move.kind!r}")

    def _check(self) -> None:
        """Assert every invariant of the game's state (for tests; O(cells))."""
        vis, mine, count = self._visible, self._mine, self._count
        n = self.width * self.height
        assert self._flags == sum(1 for v in vis if v == FLAG)
        assert 0 <= self.hits <= self.lives
        assert (self.outcome == "lost") == (self.exploded is not None)
        if mine is None or count is None:
            assert all(v == COVERED for v in vis) and self.start is None and not self.moves
            assert self._hidden_safe == n - self.mines
            return
        nb = self.geometry.neighbours
        flagged_once = {m.cell for m in self.moves if m.kind == "flag"}
        assert sum(mine) == self.mines
        assert self.start is not None and self.moves and self.moves[0] == Move("reveal", self.start)
        for c in range(n):
            assert count[c] == sum(mine[d] for d in nb(c)), c
            v = vis[c]
            if v < COVERED:
                assert not mine[c] and v == count[c], c
                if v == 0:  # an opening is opened whole, but for cells the player flagged then
                    assert all(vis[d] != COVERED or d in flagged_once for d in nb(c)), c
        hidden_safe = sum(1 for c in range(n) if not mine[c] and vis[c] >= COVERED)
        assert self._hidden_safe == hidden_safe
        if self.outcome == "won":
            assert hidden_safe == 0
        elif self.outcome == "playing":
            assert hidden_safe > 0
        else:
            assert self.exploded is not None and mine[self.exploded]

    # ------------------------------------------------------------------ views
    @property
    def visible(self) -> bytes:
        """What the player sees, cell by cell (a copy): a number, ``COVERED`` or ``FLAG``."""
        return bytes(self._visible)

    def position(self) -> Position:
        """What the player sees now (with the total mine count)."""
        return Position.unchecked(self.width, self.height, bytes(self._visible), self.mines)

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.outcome != "playing"

    @property
    def won(self) -> bool:
        """Whether the game was won."""
        return self.outcome == "won"

    @property
    def flags(self) -> int:
        """Flags on the board."""
        return self._flags

    @property
    def safe_left(self) -> int:
        """Safe cells not yet opened."""
        return self._hidden_safe

    def bbbv(self) -> int:
        """The 3BV of the layout: the fewest clicks that clear it without flags (openings plus
        numbers not at the edge of an opening). O(cells), cached."""
        if self._bbbv is None:
            openings, alone = self._openings()
            self._bbbv = len(openings) + len(alone)
        return self._bbbv

    def solved_bbbv(self) -> int:
        """The 3BV cleared so far: each opening with a cell opened, and each number outside
        every opening that is opened (all of the 3BV once the game is won). O(cells)."""
        if self._mine is None or self._count is None:
            return 0
        openings, alone = self._openings()
        v = self._visible
        return sum(any(v[c] < 9 for c in cells) for cells in openings) + sum(v[c] < 9 for c in alone)

    def _openings(self) -> tuple[list[array[int]], array[int]]:
        """The layout's openings and its numbers outside every opening (:func:`_parts`), made once."""
        if self._parts is None:
            if self._mine is None or self._count is None:
                raise IllegalMove("the layout is drawn at the first reveal; there is none yet")
            self._parts = _parts(self.geometry, self._mine, self._count)
        return self._parts

    def copy(self) -> Game:
        """An independent copy (same layout, same state)."""
        g = Game.__new__(Game)
        g.__dict__.update(self.__dict__)
        g._visible = bytearray(self._visible)
        g.moves = list(self.moves)
        return g

    def __repr__(self) -> str:
        return (
            f"<Game {self.width}x{self.height}/{self.mines} rule={self.rule} "
            f"seed={self.seed!r} {self.outcome}"
            + (f" hits={self.hits}/{self.lives}" if self.lives else "")
            + ">"
        )


def _parts(geo: Geometry, mine: bytearray, count: bytearray) -> tuple[list[array[int]], array[int]]:
    """A layout's openings (the zeros of each) and its numbers outside every opening: the 3BV is
    their count, and an opened zero clears its opening."""
    n = geo.cells
    seen = bytearray(n)
    nb = geo.neighbours
    openings: list[array[int]] = []
    for c in range(n):
        if mine[c] or count[c] or seen[c]:
            continue
        seen[c] = 1
        todo, cells = [c], [c]
        while todo:
            x = todo.pop()
            for d in nb(x):
                if not seen[d]:
                    seen[d] = 1
                    if count[d] == 0:
                        todo.append(d)
                        cells.append(d)
        openings.append(array("i", cells))
    return openings, array("i", [c for c in range(n) if not seen[c] and not mine[c]])
