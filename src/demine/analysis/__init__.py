"""Reasoning about positions: exact probabilities, forced cells and their reasons."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from demine.analysis.constraints import constraint_system, position_system
from demine.analysis.exact import DEFAULT_DENSITY, solve_system
from demine.analysis.result import Analysis, Limit, Reason
from demine.engine.position import Position


def analyze(
    position: Position,
    *,
    limit: Limit | None = None,
    trust_flags: bool = True,
    density: Fraction | None = None,
) -> Analysis:
    """Everything that can be known about the covered cells of ``position``.

    Uses the total mine count when the position has one (off-frontier cells weighted by
    ``C(off-frontier cells, mines left - frontier mines)``); otherwise each cell is a mine with
    probability ``density`` (default 1/5), independently. Flags are trusted as mines unless
    ``trust_flags=False``. Raises :class:`~demine.errors.InconsistentPosition` naming the numbers
    (or the mine count) in conflict.

    >>> a = analyze(Position.from_text("3x1x1\\n1H1"))
    >>> sorted(a.mines), a.solutions
    ([1], 1)
    """
    system = position_system(position, trust_flags=trust_flags)
    return solve_system(system, limit, density)


def analyze_constraints(
    constraints: Iterable[tuple[Iterable[int], int]],
    *,
    cells: Iterable[int] | int,
    mines: int | None,
    limit: Limit | None = None,
    density: Fraction | None = None,
) -> Analysis:
    """Analyse a hand-written system: each constraint is ``(cells, mines among them)``.

    ``cells`` is every variable (or ``n`` for ``range(n)``); ``mines`` the total, or None.
    Reasons name constraints by their index.

    >>> eqs = [({0, 1}, 1), ({3, 4}, 1), ({0, 1, 2, 3, 4}, 2)]
    >>> a = analyze_constraints(eqs, cells=5, mines=None)
    >>> sorted(a.safe)
    [2]
    """
    return solve_system(constraint_system(constraints, cells=cells, mines=mines), limit, density)


__all__ = [
    "DEFAULT_DENSITY",
    "Analysis",
    "Limit",
    "Reason",
    "analyze",
    "analyze_constraints",
]
