"""``random``: opens a uniformly random covered cell and never flags. The floor for comparisons."""

from __future__ import annotations

import random

from demine.engine.game import Move
from demine.engine.position import Position
from demine.errors import IllegalMove
from demine.players.base import Decision


class RandomPlayer:
    """Opens a uniformly random covered (unflagged) cell."""

    name = "random"

    def decide(self, position: Position, rng: random.Random) -> Decision:
        """Pick a covered cell uniformly at random."""
        covered = position.covered_cells()
        if not covered:
            raise IllegalMove("no covered cell left to open")
        return Decision([Move("reveal", rng.choice(covered))], guess=True, reason="random")
