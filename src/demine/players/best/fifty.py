"""Forced 50/50s: two cells holding one mine that no cell left to open can ever tell apart; and
which of several pseudo 50/50 cells to open first (:func:`most_telling`)."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from itertools import compress
from typing import Final

from demine.analysis import Analysis, Limit
from demine.analysis.constraints import System
from demine.analysis.exact import CountCache
from demine.analysis.incremental import Frame
from demine.analysis.order import OverBudget, Pace
from demine.engine.lanes import cell_numbers, neighbour_sums
from demine.engine.position import COVERED, COVERED_MASK, FLAG, Position
from demine.errors import InconsistentPosition
from demine.players.best.lookahead import _outcomes_pruned
from demine.players.best.survive import SLACK

#: 1 for a revealed number from 1 to 8, for :meth:`bytes.translate`.
NUMBER_MASK: Final = bytes(1 if 1 <= v < COVERED else 0 for v in range(256))
#: 1 for a count of two.
TWO_MASK: Final = bytes(1 if v == 2 else 0 for v in range(256))
#: 1 for a zero byte.
ZERO_MASK: Final = bytes(1 if v == 0 else 0 for v in range(256))


def forced_fifty(position: Position, a: Analysis, around: int | None = None) -> int | None:
    """A cell of a forced 50/50, or None.

    Two covered cells ``x``, ``y`` form one when some revealed number has exactly them as its
    unknown neighbours and needs one more mine, every other neighbour of ``x`` and ``y`` is
    revealed or a known mine (no cell left to open can ever show a number that tells them apart),
    and every revealed number next to only one of them has no other unknown neighbour (else its
    other cells could tell them apart when they are settled some other way: a ``1`` touching
    ``y`` and a covered ``z``, not ``x``, makes ``z`` a mine exactly when ``y`` is safe). A number
    next to both sees ``x + y``, which is 1 whichever holds the mine.
    With ``around``, only numbers within three cells of it are looked at (a 50/50 that opening
    ``around`` could have made lies there).
    """
    st = position.states
    geo = position.geometry
    known_mine = a.mines | a.known_mines

    picked = _candidates(position, known_mine)
    if around is None:
        scan: Iterable[int] = compress(cell_numbers(position.cells), picked)
    else:
        r0, c0 = divmod(around, position.width)
        rows = range(max(0, r0 - 3), min(position.height, r0 + 4))
        cols = range(max(0, c0 - 3), min(position.width, c0 + 4))
        scan = [r * position.width + c for r in rows for c in cols if picked[r * position.width + c]]
    ratios = a.ratios
    for cell in scan:
        v = st[cell]
        nb = geo.neighbours(cell)
        unknowns = [d for d in nb if st[d] == COVERED and d not in known_mine]
        if len(unknowns) != 2:
            continue
        flagged = sum(1 for d in nb if d in known_mine)
        if v - flagged != 1:
            continue
        x, y = pair = (unknowns[0], unknowns[1])
        num, den = ratios[x]
        if 2 * num != den:  # (its chance of a mine is not 1/2: integers, no Fraction made)
            continue
        near_x, near_y = set(geo.neighbours(x)), set(geo.neighbours(y))
        both = near_x & near_y
        if not any(_tells_apart(position, a, known_mine, d, pair, both) for d in near_x | near_y):
            return min(x, y)
    return None


def _unknown(st: bytes, known_mine: frozenset[int], known: frozenset[int], d: int) -> bool:
    """Covered and not a known mine, or flagged without being known to be a mine (``known_mine``
    the proven and known mines, ``known`` the known ones)."""
    return (st[d] == COVERED and d not in known_mine) or (st[d] == FLAG and d not in known)


def _tells_apart(
    position: Position,
    a: Analysis,
    known_mine: frozenset[int],
    d: int,
    pair: tuple[int, int],
    near_both: set[int],
) -> bool:
    """Whether cell ``d``, next to ``pair``, could ever tell its two cells apart. (Functions of
    the module, not closures of :func:`forced_fifty`: compiled, two closures that call each other
    are a cycle only the collector frees.)"""
    st = position.states
    known = a.known_mines
    if d in pair:
        return False
    if _unknown(st, known_mine, known, d):
        return True  # it may be opened and show a number
    if st[d] >= COVERED or d in near_both:
        return False  # a known mine, or a number that sees x + y: 1 either way
    # a number next to one of them: other unknown cells it sees would tie the pair to them
    return any(e not in pair and _unknown(st, known_mine, known, e) for e in position.geometry.neighbours(d))


def _candidates(position: Position, known_mine: frozenset[int]) -> bytes:
    """1 for each number that sees exactly two unknown cells (covered, not known mines) and needs
    one more mine than the known mines around it give: the numbers a forced 50/50 hangs on,
    picked over the whole board at once (neighbour counts in byte lanes)."""
    st = position.states
    n, w, h = position.cells, position.width, position.height
    unknown = bytearray(st.translate(COVERED_MASK))
    mines = bytearray(n)
    for m in known_mine:
        unknown[m] = 0
        mines[m] = 1
    two = int.from_bytes(neighbour_sums(w, h, bytes(unknown)).translate(TWO_MASK), "little")
    # a number equal to its known mines + 1: no byte differs (the counts are at most 8)
    need = int.from_bytes(neighbour_sums(w, h, bytes(mines)), "little") + int.from_bytes(
        b"\x01" * n, "little"
    )
    same = int.from_bytes(
        (int.from_bytes(st, "little") ^ need).to_bytes(n, "little").translate(ZERO_MASK), "little"
    )
    numbers = int.from_bytes(st.translate(NUMBER_MASK), "little")
    return (numbers & two & same).to_bytes(n, "little")


def most_telling(
    position: Position, cells: list[int], limit: Limit, system: System, deadline: float | None
) -> int:
    """Of ``cells`` (pseudo 50/50 cells, each costing only a coin toss the game must take anyway),
    the one whose number, when it is safe, leaves the safest next guess on average: the
    look-ahead's measure of a candidate's outcomes, its own safety left out (the first in order
    among equals; a cell whose analyses would run past ``deadline`` is left out, as in the
    look-ahead)."""
    if len(cells) == 1:
        return cells[0]
    cache: CountCache = {}
    # as in the look-ahead, the outcomes are derived from the position's frame (the same analyses)
    base: System | Frame = system
    if system.mines_left is not None:
        try:
            base = Frame.root(system, position, cache, limit, deadline)
        except (OverBudget, InconsistentPosition):
            base = system
    best_cell, best_value = cells[0], Fraction(-1)
    pace = Pace(deadline, SLACK)  # as in the look-ahead: a cell is started only if its like fits
    for c in cells:
        if not pace.fits():
            break
        outs = _outcomes_pruned(position, c, limit, (1, 1), None, base, cache, deadline)
        pace.done()
        if outs is None:
            continue
        total, (num, den), _ = outs
        value = Fraction(num, den * total)
        if value > best_value:
            best_cell, best_value = c, value
    return best_cell
