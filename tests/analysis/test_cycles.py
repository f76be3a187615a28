"""The analyses leave no reference cycles: what they made is freed by reference counting as soon
as it is dropped, not held until the cyclic collector runs (compiled, a closure and its
environment form a cycle; the analyses' callbacks are partials instead)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from demine import analyze
from demine.analysis import Limit
from demine.analysis.constraints import position_system
from demine.analysis.incremental import Frame
from demine.engine.game import Game
from demine.errors import InconsistentPosition
from demine.players.best.fifty import forced_fifty


@pytest.fixture
def collector_off() -> Iterator[None]:
    """The collector off for the test (nothing collected behind its back), as found after."""
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    yield
    if was:
        gc.enable()


def test_analyses_leave_no_cycles(collector_off: None) -> None:
    checked = 0
    for seed in range(20):
        if checked >= 8:
            break
        game = Game(30, 16, 99, rule="safe", seed=f"cycles/{seed}")
        game.reveal(0)
        while not game.over and checked < 8:
            p = game.position()
            a = analyze(p)  # (its reasons are made later, from what it keeps)
            assert gc.collect() == 0
            if a.safe:
                game.reveal(min(a.safe))
                continue
            system = position_system(p)
            root = Frame.root(system, p, {}, Limit())
            cell = min(a.unknown, key=lambda c: (a.probability(c), c))
            derived, made, frame = [], [], None
            for v in range(9):
                try:
                    frame = root.after(p.with_state(cell, v), cell)
                    made.append(frame.analysis())
                except InconsistentPosition:
                    continue
                derived.append(frame)
            forced_fifty(p, a)
            named = system.describe(system.constraints[0][2]) if system.constraints else ""
            reasons = a.reasons
            del system, root, derived, made, named, reasons, frame
            assert gc.collect() == 0, "an analysis left a cycle"
            checked += 1
            game.reveal(cell)
    assert checked >= 8
