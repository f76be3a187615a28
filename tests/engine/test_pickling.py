"""The frozen dataclasses of the compiled modules read back by pickle in both builds (the compiled
build refused: FrozenInstanceError). CI runs this on the compiled build."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from demine.engine.game import Move
from demine.engine.grid import PRESETS
from demine.engine.position import Position
from demine.players.best.moves import BestMove
from demine.players.longterm import Structure

VALUES: list[Any] = [
    PRESETS["expert"],
    Position.from_text("3x2x1\n1FH\n11H"),
    BestMove(Move("reveal", 4), "look-ahead", 0.125, None, 0.5, 3),
    Structure((1, 2, 31, 32), (0,)),
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_a_frozen_value_pickles_and_reads_back_equal(value: Any) -> None:
    for protocol in (2, pickle.HIGHEST_PROTOCOL):
        back = pickle.loads(pickle.dumps(value, protocol))
        assert back == value and type(back) is type(value) and hash(back) == hash(value)
