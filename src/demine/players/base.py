"""The players' interface.

A player sees a :class:`~demine.engine.position.Position`, never a :class:`~demine.engine.game.Game`: the type
boundary keeps it from peeking at mines even by accident.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Protocol

from demine.engine.game import Move
from demine.engine.position import Position


@dataclass(slots=True)
class Decision:
    """What a player wants to do next."""

    moves: list[Move]
    """Moves to apply in order (the bench stops early when the game ends)."""
    guess: bool = False
    """Whether the first move is a guess (not proven safe)."""
    reason: str = ""
    """Why: ``safe``, ``safest``, ``random``, ..."""
    mine_probability: float | None = None
    """The chance that the first move hits a mine, when the player knows it."""
    forced: int | None = None
    """How many cells the player proved safe or mined at this decision, when it reports it."""
    extra: dict[str, float] = field(default_factory=dict)
    """Anything else a player wants to report (for benchmarks)."""


class Player(Protocol):
    """Chooses moves from positions."""

    name: str

    def decide(self, position: Position, rng: random.Random) -> Decision:
        """The next move(s) for ``position``; ``rng`` is the only source of randomness."""
        ...
