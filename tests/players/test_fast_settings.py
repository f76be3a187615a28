"""fast's settings as a value (its guess rule chosen by a value, never by changing a module), its
two-step guess against a plain computation of the same score, and the progress estimate."""

from __future__ import annotations

import pickle
import random
from collections.abc import Iterator
from functools import partial
from math import prod

import pytest

from demine import InputError, PlayerSpec, Position, find_solver
from demine.analysis import Analysis, analyze
from demine.bench import generated_specs, run_games
from demine.engine.position import COVERED
from demine.players.best import FastPlayer
from demine.players.best.moves import (
    _away_best,
    _near,
    progress_chance,
    safest_move,
    touches_revealed,
    two_step_move,
    zero_chance_keys,
)
from demine.players.best.settings import FastSettings
from tests.helpers import guess_points

EXPERT = generated_specs(30, 16, 99, "safe", None, 6, "fast-settings")


def _moves(player: PlayerSpec) -> list[list[list[int]]]:
    results = run_games(EXPERT, player, jobs=1, keep_record=True)
    return [[m[:3] for m in r.game["moves"]] for r in results if r.game is not None]


def _chances(p: Position, a: Analysis) -> list[float]:
    """Each cell's chance of a mine (flags 1, revealed cells 0)."""
    mine = [0.0] * p.cells
    for c, (num, den) in a.ratios.items():
        mine[c] = num / den
    for c in p.flagged_cells():
        mine[c] = 1.0
    return mine


def _guess_points(games: int, settings: FastSettings) -> Iterator[tuple[Position, Analysis]]:
    """The positions where ``fast`` with ``settings`` guesses in a few expert games."""
    return guess_points(EXPERT[:games], partial(FastPlayer, settings), random.Random(2))


def test_the_default_is_the_two_step_guess_and_values_round_trip() -> None:
    assert FastSettings().two_step and FastPlayer().settings == FastSettings()
    old = FastSettings(two_step=False)
    assert eval(repr(old)) == old and pickle.loads(pickle.dumps(old)) == old
    assert FastSettings.parse(["two_step=no"]) == old
    spec = PlayerSpec.parse("fast(two_step=no)")
    assert str(spec) == "fast(two_step=False)"
    player = find_solver(spec)
    assert isinstance(player, FastPlayer) and not player.settings.two_step
    assert str(PlayerSpec.parse("fast")) == "fast"


def test_bad_settings_name_what_is_wrong() -> None:
    with pytest.raises(InputError, match="expected NAME=VALUE with NAME one of two_step"):
        FastSettings.parse(["depth=2"])
    with pytest.raises(InputError, match="two_step='maybe': not a valid bool") as caught:
        PlayerSpec.parse("fast(two_step=maybe)")
    # the error names where the bad text came from: the player's text, not an option not given
    assert "in player 'fast(two_step=maybe)'" in str(caught.value) and "--set" not in str(caught.value)
    with pytest.raises(InputError, match=r"^--set two_step='maybe': not a valid bool"):
        PlayerSpec.parse("fast(two_step=no)", ["two_step=maybe"])


def test_the_two_rules_play_differently_and_the_old_one_is_the_safest_cell() -> None:
    assert _moves(PlayerSpec("fast")) != _moves(PlayerSpec("fast", FastSettings(two_step=False)))
    points = list(_guess_points(2, FastSettings(two_step=False)))
    assert points
    rng = random.Random(0)
    for position, a in points:  # the old rule's guess is safest_move's
        assert (
            FastPlayer(FastSettings(two_step=False)).decide(position, rng).moves[0]
            == safest_move(position, a).move
        )


def test_the_two_step_guess_is_the_best_score_of_every_covered_cell() -> None:
    # the score computed plainly for every covered cell (no cell skipped, no quick product)
    checked = 0
    for position, a in _guess_points(3, FastSettings()):
        mine = _chances(position, a)
        covered = [c for c in a.unknown if position.states[c] == COVERED]
        safe = {c: 1.0 - mine[c] for c in covered}
        scores = {}
        for c in covered:
            rest = max((safe[d] for d in covered if d != c), default=0.0)
            g = progress_chance(position, c, mine)
            scores[c] = safe[c] * (g + (1.0 - g) * rest)
        top = max(scores.values())
        near_top = [c for c, s in scores.items() if s >= top - 1e-12]
        zero_key = zero_chance_keys(position)
        expected = min(near_top, key=lambda c: (zero_key(c), c))
        got = two_step_move(position, a).move.cell
        assert got == expected or scores[got] == pytest.approx(top, abs=1e-12)
        checked += 1
    assert checked >= 5


def _safeties(position: Position, a: Analysis) -> tuple[list[float], dict[int, float], list[float]]:
    """As the guess reads them: each cell's safety (1.0 where it is known: a number, or proven
    safe or a mine), each covered cell's own safety, and each cell's chance of a mine (a flag
    counting as one)."""
    st = position.states
    safety = [1.0] * position.cells
    mine = [0.0] * position.cells
    own: dict[int, float] = {}
    for c, (num, den) in a.ratios.items():
        s = 1.0 - num / den if num else 1.0
        if num != den:
            safety[c] = s
        if st[c] == COVERED:
            own[c] = s
        mine[c] = 1.0 - s
    for c in position.flagged_cells():
        mine[c] = 1.0
    return safety, own, mine


def _plain_pick(position: Position, a: Analysis) -> int:
    """The two-step guess cell by cell, each product of neighbour safeties taken one by one: the
    rule as first written (before the cells away from the numbers were weighed together)."""
    nb = position.geometry.neighbours
    safety, own, mine = _safeties(position, a)
    ranked = sorted(own.values(), reverse=True)
    best, second = ranked[0], (ranked[1] if len(ranked) > 1 else 0.0)
    near = _near(position, list(own))
    scores = {}
    for c, s in own.items():
        if s >= best * second:
            if near[c]:
                g = progress_chance(position, c, mine)
            else:
                zero = prod(safety[d] for d in nb(c))
                g = 0.0 if zero == 1.0 else zero
            scores[c] = s * (g + (1.0 - g) * (second if s == best else best))
    top = max(scores.values())
    key = zero_chance_keys(position)
    return min((c for c, v in scores.items() if v == top), key=lambda c: (key(c), c))


def test_the_two_step_guess_picks_exactly_what_the_cell_by_cell_score_picks() -> None:
    # the same floats, not close ones: the cells away from the numbers are weighed by their count
    # of covered neighbours, which must give each the product it had one by one
    checked = 0
    for position, a in _guess_points(5, FastSettings()):
        assert two_step_move(position, a).move.cell == _plain_pick(position, a)
        checked += 1
    assert checked >= 10


def test_the_cells_away_from_the_numbers_score_as_one_by_one_to_the_last_bit() -> None:
    # the premise of weighing them together: same best score, same cells, compared with ==
    checked = 0
    for position, a in _guess_points(5, FastSettings()):
        nb = position.geometry.neighbours
        safety, own, _ = _safeties(position, a)
        covered = list(own)
        ranked = sorted(own.values(), reverse=True)
        best, second = ranked[0], (ranked[1] if len(ranked) > 1 else 0.0)
        front = dict(zip(covered, touches_revealed(position, covered), strict=True))
        near = _near(position, covered)
        away = [c for c in covered if not near[c] and not front[c]]
        us = {safety[c] for c in covered if not front[c]}
        if not away or len(us) != 1 or us == {1.0}:
            continue
        (u,) = us
        scores = {}
        for c in away:
            zero = prod(safety[d] for d in nb(c))
            g = 0.0 if zero == 1.0 else zero
            scores[c] = own[c] * (g + (1.0 - g) * (second if own[c] == best else best))
        top, tied = _away_best(position, sum(1 << (8 * c) for c in away), u, best, second)
        assert top == max(scores.values())
        assert sorted(tied) == sorted(c for c, v in scores.items() if v == top)
        checked += 1
    assert checked >= 10


def test_away_from_numbers_the_progress_chance_is_the_chance_of_a_zero() -> None:
    # the premise of the guess's quick product: a cell none of whose neighbours touches a shown
    # number makes progress only by a zero
    checked = 0
    for position, a in _guess_points(3, FastSettings()):
        mine = _chances(position, a)
        covered = [c for c in a.unknown if position.states[c] == COVERED]
        near = _near(position, covered)
        nb = position.geometry.neighbours
        for c in covered:
            g = progress_chance(position, c, mine)
            assert 0.0 <= g <= 1.0 + 1e-12
            if not near[c]:
                zero = prod(1.0 - mine[d] if mine[d] < 1.0 else 1.0 for d in nb(c))
                assert g == pytest.approx(0.0 if zero == 1.0 else zero, abs=1e-12)
                checked += 1
    assert checked > 500


def test_a_number_that_must_show_one_value_promises_no_progress() -> None:
    # the 1 holds one mine among the other three cells: whichever opens shows the same count
    p = Position.from_rows(["1H", "HH"], mines=1)
    assert [progress_chance(p, c, _chances(p, analyze(p))) for c in (1, 2, 3)] == [0.0, 0.0, 0.0]
    # a cell whose neighbours are all known proves nothing
    q = Position.from_rows(["1F", "11"], mines=1)
    assert progress_chance(q, 1, _chances(q, analyze(q))) == 0.0
