"""Forced 50/50s: two cells holding one mine that no cell left to open can ever tell apart."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from demine.analysis import Analysis
from demine.engine.position import COVERED, FLAG, Position


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

    def unknown(d: int) -> bool:
        """Covered and not a known mine, or flagged without being known to be a mine."""
        return (st[d] == COVERED and d not in known_mine) or (st[d] == FLAG and d not in a.known_mines)

    def tells_apart(d: int, pair: tuple[int, int], near_both: set[int]) -> bool:
        """Whether cell ``d``, next to ``pair``, could ever tell its two cells apart."""
        if d in pair:
            return False
        if unknown(d):
            return True  # it may be opened and show a number
        if st[d] >= COVERED or d in near_both:
            return False  # a known mine, or a number that sees x + y: 1 either way
        # a number next to one of them: other unknown cells it sees would tie the pair to them
        return any(e not in pair and unknown(e) for e in geo.neighbours(d))

    if around is None:
        scan: Iterable[int] = range(position.cells)
    else:
        r0, c0 = divmod(around, position.width)
        rows = range(max(0, r0 - 3), min(position.height, r0 + 4))
        cols = range(max(0, c0 - 3), min(position.width, c0 + 4))
        scan = [r * position.width + c for r in rows for c in cols]
    for cell in scan:
        v = st[cell]
        if v >= COVERED:
            continue
        nb = geo.neighbours(cell)
        unknowns = [d for d in nb if st[d] == COVERED and d not in known_mine]
        if len(unknowns) != 2:
            continue
        flagged = sum(1 for d in nb if d in known_mine)
        if v - flagged != 1:
            continue
        x, y = pair = (unknowns[0], unknowns[1])
        near_x, near_y = set(geo.neighbours(x)), set(geo.neighbours(y))
        both = near_x & near_y
        forced = not any(tells_apart(d, pair, both) for d in near_x | near_y)
        if forced and a.probability(x) == Fraction(1, 2):
            return min(x, y)
    return None
