"""``exact``: the exact engine, then the lowest-probability cell. The common baseline.

Each turn it opens every proven safe cell at once (they cannot lose, so batching them changes
nothing but speed); when there is none it guesses the covered cell with the lowest exact chance of
a mine, ties broken by row-major order.
"""

from __future__ import annotations

import random

from demine.analysis import Analysis, Limit, analyze
from demine.engine.game import Move
from demine.engine.position import COVERED, Position
from demine.players.base import Decision

#: Budget per decision: past it the analysis falls back to estimates (rare on standard boards).
PLAYER_LIMIT = Limit(seconds=5.0)


def safe_moves(a: Analysis) -> Decision | None:
    """Open every proven safe cell, or None when there is none."""
    if not a.safe:
        return None
    return Decision(
        [Move("reveal", c) for c in sorted(a.safe)],
        reason="safe",
        mine_probability=0.0,
        forced=len(a.safe) + len(a.mines),
    )


def lowest_probability(a: Analysis, position: Position) -> int:
    """The covered cell with the lowest chance of a mine, first in row-major order on ties."""
    st = position.states
    return next(c for c in a.safest() if st[c] == COVERED)


class ExactPlayer:
    """Exact probabilities; opens proven safe cells, else the safest cell."""

    name = "exact"

    def __init__(self, limit: Limit = PLAYER_LIMIT) -> None:
        self.limit = limit

    def decide(self, position: Position, rng: random.Random) -> Decision:
        """Open all safe cells, or guess the lowest-probability one."""
        a = analyze(position, limit=self.limit)
        found = safe_moves(a)
        if found is not None:
            return found
        cell = lowest_probability(a, position)
        return Decision(
            [Move("reveal", cell)],
            guess=True,
            reason="safest",
            mine_probability=a.p(cell),
            forced=len(a.mines),
        )
