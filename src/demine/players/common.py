"""Pieces the players share: acting on proven cells, guessing, and combining per-component
counts into global probabilities with the total mine count."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from math import comb

from demine.engine.game import Move
from demine.engine.position import FLAG, Position
from demine.players.base import Decision


def proven_moves(
    position: Position, safe: Iterable[int], mines: Iterable[int], reason: str
) -> Decision | None:
    """Flag the proven mines not yet flagged and open the proven safe cells (None if neither).

    ``forced`` counts the cells proven at this decision (safe cells plus unflagged mines)."""
    st = position.states
    new_mines = sorted(c for c in set(mines) if st[c] != FLAG)
    safe_cells = sorted(set(safe))
    if not safe_cells and not new_mines:
        return None
    moves = [Move("flag", c) for c in new_mines] + [Move("reveal", c) for c in safe_cells]
    return Decision(
        moves,
        guess=False,
        reason=reason,
        mine_probability=0.0 if safe_cells else None,
        forced=len(safe_cells) + len(new_mines),
    )


def lowest(position: Position, prob: Mapping[int, Fraction | float], default: Fraction | float) -> int:
    """The covered cell with the lowest probability (``default`` for cells not in ``prob``),
    first in row-major order on ties."""
    return min(position.covered_cells(), key=lambda c: (prob.get(c, default), c))


def count_or_guess(
    position: Position, prob: Mapping[int, Fraction], default: Fraction, exact: bool, reason: str
) -> Decision:
    """After a count: act on the cells it proves (probability 0 or 1, trusted only when every
    part was counted ``exact``ly), else open the lowest-probability cell."""
    if exact:
        covered = position.covered_cells()
        zero = [c for c in covered if prob.get(c, default) == 0]
        one = [c for c in covered if prob.get(c, default) == 1]
        found = proven_moves(position, zero, one, reason)
        if found is not None:
            return found
    cell = lowest(position, prob, default)
    return Decision(
        [Move("reveal", cell)],
        guess=True,
        reason="lowest-probability",
        mine_probability=float(prob.get(cell, default)),
    )


def remaining_density(position: Position) -> Fraction:
    """Mines not flagged over covered cells: the chance for a cell the player knows nothing of."""
    covered = len(position.covered_cells())
    if position.mines is None or covered == 0:
        return Fraction(1, 5)
    left = position.mines - len(position.flagged_cells())
    return Fraction(max(0, min(left, covered)), covered)


def combine_components(
    parts: Sequence[tuple[list[int], Mapping[int, list[int]]]],
    n_off: int,
    mines_left: int | None,
    off_weight: bool = True,
) -> tuple[dict[int, Fraction], Fraction | None]:
    """Global probabilities from per-component counts.

    Each part is ``(W, hits)``: ``W[t]`` is the number of the component's solutions with ``t``
    mines, ``hits[cell][t]`` how many of those put a mine on ``cell``. Components are combined by
    convolution over mine totals; a frontier total ``T`` weighs ``C(n_off, mines_left - T)`` (the
    ways to place the other mines off the frontier). ``off_weight=False`` leaves that weight out,
    as some published methods do (it is wrong; kept to show the difference). With no total known
    each component counts alone. Returns the cell probabilities and the off-frontier probability
    (None when unknown).
    """
    out: dict[int, Fraction] = {}
    if mines_left is None:
        for W, hits in parts:
            count = sum(W)
            for c, h in hits.items():
                out[c] = Fraction(sum(h), count)
        return out, None

    def weight(x: int) -> int:
        if not off_weight:
            return 1 if 0 <= x <= n_off else 0
        return comb(n_off, x) if 0 <= x <= n_off else 0

    from demine.analysis.totals import convolve_all_but_one

    total, all_others = convolve_all_but_one([W for W, _ in parts])
    Z = sum(w * weight(mines_left - T) for T, w in enumerate(total))
    if Z == 0:
        return {}, None
    for (_, hits), others in zip(parts, all_others, strict=True):
        for c, h in hits.items():
            num = 0
            for t, x in enumerate(h):
                if x:
                    num += x * sum(o * weight(mines_left - t - u) for u, o in enumerate(others) if o)
            out[c] = Fraction(num, Z)
    off = None
    if n_off:
        num = sum(w * weight(mines_left - T) * (mines_left - T) for T, w in enumerate(total))
        off = Fraction(num, Z * n_off)
    return out, off


Equation = tuple[frozenset[int], int]


def basic_rules(
    equations: Iterable[Equation], decided: dict[int, int] | None = None
) -> tuple[dict[int, int], list[Equation]]:
    """The two basic rules to a fixed point: an equation with value 0 makes its cells 0, one
    whose value equals its size makes them 1; decided cells are substituted everywhere.
    Returns the decided cells (``decided`` extended) and the remaining equations."""
    from demine.errors import InconsistentPosition

    decided = {} if decided is None else decided
    eqs = list(equations)
    while True:
        out: list[Equation] = []
        changed = False
        for cs, v in eqs:
            known = [c for c in cs if c in decided]
            if known:
                v -= sum(decided[c] for c in known)
                cs = cs.difference(known)
            if v < 0 or v > len(cs):
                raise InconsistentPosition("an equation cannot be satisfied", ())
            if not cs:
                continue
            if v == 0 or v == len(cs):
                for c in cs:
                    decided[c] = 1 if v else 0
                changed = True
            else:
                out.append((cs, v))
        eqs = out
        if not changed:
            return decided, eqs
