"""The cycle collector held off through ``best``'s and ``fast``'s decisions (speed only)."""

from __future__ import annotations

import gc
import random
from collections.abc import Iterator

import pytest

from demine.analysis import Limit
from demine.analysis.exact import Counted
from demine.bench import generated_specs
from demine.players import held as held_module
from demine.players.best import BestPlayer, FastPlayer, Hooks
from demine.players.best import play as play_module
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

    class Watched:
        isenabled = staticmethod(gc.isenabled)
        disable = staticmethod(gc.disable)

        @staticmethod
        def enable() -> None:
            alive.append(sum(1 for o in gc.get_objects() if type(o) is Counted))
            gc.enable()

    monkeypatch.setattr(held_module, "gc", Watched)
    _play(BestPlayer(limit=Limit()), 4, "held")
    assert len(alive) >= 20  # (decisions made)
    assert alive == [0] * len(alive)


@pytest.mark.parametrize("hold", [True, False])
def test_fast_holds_the_collector_through_its_guess(
    collector_on: None, hold: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[bool] = []
    real = play_module.two_step_move

    def watched(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(play_module, "two_step_move", watched)
    moves = _play(FastPlayer(limit=Limit(), hold_collector=hold), 6, "held")
    assert gc.isenabled()
    assert len(seen) >= 6
    assert set(seen) == {not hold}
    monkeypatch.setattr(play_module, "two_step_move", real)
    assert moves == _play(FastPlayer(limit=Limit(), hold_collector=not hold), 6, "held")
