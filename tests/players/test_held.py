"""The cycle collector held off through ``best``'s and ``fast``'s decisions (speed only)."""

from __future__ import annotations

import gc
import random
from collections.abc import Callable, Iterator
from functools import partial
from types import SimpleNamespace
from typing import Any

import pytest

from demine.analysis import Analysis, Limit
from demine.analysis.constraints import System
from demine.analysis.exact import Counted
from demine.bench import generated_specs
from demine.engine.position import Position
from demine.players import held as held_module
from demine.players.best import BestPlayer, FastPlayer, Hooks
from demine.players.best.moves import BestMove, two_step_move
from demine.players.best.play import Follower, _decide
from demine.players.held import collector_held


@pytest.fixture
def collector_on() -> Iterator[None]:
    """The collector on for the test, as the test found it after."""
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_collector_held_turns_back_on_only_what_it_turned_off(collector_on: None) -> None:
    with collector_held():
        assert not gc.isenabled()
    assert gc.isenabled()
    with collector_held(hold=False):
        assert gc.isenabled()
    with pytest.raises(ValueError), collector_held():
        raise ValueError("the search failed")
    assert gc.isenabled()  # (back on after an error too)
    gc.disable()
    with collector_held():
        assert not gc.isenabled()
    assert not gc.isenabled()  # a program that turned it off keeps it off


def _watched(
    on_enable: Callable[[], None] | None = None, on_disable: Callable[[], None] | None = None
) -> Any:
    """A stand-in for the ``gc`` module as :mod:`demine.players.held` uses it: the collector's own
    calls, with ``on_enable`` run before it is turned on and ``on_disable`` before it is turned
    off."""

    def enable() -> None:
        if on_enable is not None:
            on_enable()
        gc.enable()

    def disable() -> None:
        if on_disable is not None:
            on_disable()
        gc.disable()

    return SimpleNamespace(isenabled=gc.isenabled, enable=enable, disable=disable)


def _play(player: BestPlayer | FastPlayer, games: int, seed: str) -> list[tuple[int, str, int]]:
    """The moves of seeded intermediate games, each tagged with its game."""
    moves = []
    for i, spec in enumerate(generated_specs(16, 16, 40, "safe", None, games, seed)):
        game = spec.game()
        game.reveal(spec.start)
        rng = random.Random(i)
        while not game.over:
            for m in player.decide(game.position(), rng).moves:
                if not game.over:
                    game.play(m)
                    moves.append((i, m.kind, m.cell))
    return moves


@pytest.mark.parametrize("hold", [True, False])
def test_best_holds_the_collector_through_its_look_ahead_only(collector_on: None, hold: bool) -> None:
    seen: list[bool] = []
    player = BestPlayer(
        limit=Limit(), hooks=Hooks(on_ranked=lambda _: seen.append(gc.isenabled())), hold_collector=hold
    )
    moves = _play(player, 4, "held")
    assert gc.isenabled()
    assert len(seen) >= 10  # (look-aheads ranked candidates)
    assert set(seen) == {not hold}
    # the same moves either way
    assert moves == _play(BestPlayer(limit=Limit(), hold_collector=not hold), 4, "held")


def test_best_drops_its_counts_before_the_collector_comes_back(
    collector_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The collection that came due during a decision runs as soon as the collector is back on.
    # The search's counts must be gone by then: alive, that collection walks them all once more
    # just before they are freed (it did, in about one decision of seven, when the count's cache
    # outlived the hold).
    alive: list[int] = []

    def counted_alive() -> None:
        alive.append(sum(1 for o in gc.get_objects() if type(o) is Counted))

    monkeypatch.setattr(held_module, "gc", _watched(on_enable=counted_alive))
    _play(BestPlayer(limit=Limit()), 4, "held")
    assert len(alive) >= 20  # (decisions made)
    assert alive == [0] * len(alive)


@pytest.mark.parametrize("hold", [True, False])
def test_fast_holds_the_collector_through_its_guess(
    collector_on: None, hold: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # held as fast holds it, the shared turn runs the guess it is given with the collector off
    # (no name in the compiled turn is replaced: the guess is watched instead)...
    seen: list[bool] = []

    def watched(position: Position, a: Analysis, system: System | None) -> BestMove:
        seen.append(gc.isenabled())
        return two_step_move(position, a)

    follower = Follower()
    for spec in generated_specs(16, 16, 40, "safe", None, 6, "held"):
        game = spec.game()
        game.reveal(spec.start)
        while not game.over:
            p = game.position()
            with collector_held(hold):
                decision = _decide(p, Limit(), partial(watched, p), follower, from_rules=True)
            for m in decision.moves:
                if not game.over:
                    game.play(m)
    assert gc.isenabled()
    assert len(seen) >= 6
    assert set(seen) == {not hold}
    # ...and fast hands it its own choice: the collector is turned off at each decision or never
    turned_off: list[int] = []

    monkeypatch.setattr(held_module, "gc", _watched(on_disable=lambda: turned_off.append(1)))
    moves = _play(FastPlayer(limit=Limit(), hold_collector=hold), 6, "held")
    monkeypatch.setattr(held_module, "gc", gc)
    assert gc.isenabled()
    assert len(turned_off) >= (len(seen) if hold else 0) and (hold or not turned_off)
    assert moves == _play(FastPlayer(limit=Limit(), hold_collector=not hold), 6, "held")
