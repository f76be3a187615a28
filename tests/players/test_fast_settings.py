"""fast's settings as a value: today's rule by default, other guess rules chosen by a value (never
by changing a module), and the progress estimate they weigh."""

from __future__ import annotations

import pickle
import random

import pytest

from demine import InputError, PlayerSpec, Position, find_solver
from demine.analysis import analyze
from demine.bench import generated_specs, run_games
from demine.players.best import FastPlayer
from demine.players.best.moves import _gains, blended_move, progress_chance, safest_move
from demine.players.best.settings import FastSettings

EXPERT = generated_specs(30, 16, 99, "safe", None, 6, "fast-settings")


def _moves(player: PlayerSpec) -> list[list[list[int]]]:
    results = run_games(EXPERT, player, jobs=1, keep_record=True)
    return [[m[:3] for m in r.game["moves"]] for r in results if r.game is not None]


def _chances(p: Position) -> list[float]:
    """Each cell's chance of a mine (flags 1, revealed cells 0)."""
    a = analyze(p)
    mine = [0.0] * p.cells
    for c, (num, den) in a.ratios.items():
        mine[c] = num / den
    for c in p.flagged_cells():
        mine[c] = 1.0
    return mine


def test_the_default_is_todays_rule_and_values_round_trip() -> None:
    assert FastSettings().plain and FastPlayer().settings == FastSettings()
    s = FastSettings(two_step=True)
    assert not s.plain
    assert eval(repr(s)) == s and pickle.loads(pickle.dumps(s)) == s
    assert FastSettings.parse(["two_step=yes", "tolerance=0.02"]) == FastSettings(
        tolerance=0.02, two_step=True
    )
    spec = PlayerSpec.parse("fast(two_step=yes)")
    assert str(spec) == "fast(two_step=True)"
    player = find_solver(spec)
    assert isinstance(player, FastPlayer) and player.settings.two_step
    assert str(PlayerSpec.parse("fast")) == "fast"


def test_bad_settings_name_what_is_wrong() -> None:
    with pytest.raises(InputError, match="zero_weight must be a number in"):
        FastSettings(zero_weight=-1)
    with pytest.raises(InputError, match="tolerance must be a number in"):
        FastSettings(tolerance=2.0)
    with pytest.raises(InputError, match="expected NAME=VALUE with NAME one of zero_weight"):
        FastSettings.parse(["depth=2"])
    with pytest.raises(InputError, match="two_step='maybe': not a valid bool"):
        PlayerSpec.parse("fast(two_step=maybe)")


def test_another_rule_plays_other_moves_and_the_default_plays_safest_move() -> None:
    plain = _moves(PlayerSpec("fast"))
    assert plain == _moves(PlayerSpec("fast", FastSettings()))
    assert _moves(PlayerSpec("fast", FastSettings(two_step=True))) != plain
    # with no option set the guess is the safest cell's, at every guess point of a game
    rng = random.Random(1)
    game = EXPERT[0].game()
    game.reveal(EXPERT[0].start)
    player = FastPlayer()
    while not game.over:
        position = game.position()
        decision = player.decide(position, rng)
        if decision.guess:
            a = analyze(position)
            assert blended_move(position, a) == safest_move(position, a)
        for move in decision.moves:
            game.play(move)
            if game.over:
                break


def test_a_number_that_must_show_one_value_promises_no_progress() -> None:
    # the 1 holds one mine among the other three cells: whichever opens shows the same count
    p = Position.from_rows(["1H", "HH"], mines=1)
    mine = _chances(p)
    assert [progress_chance(p, c, mine) for c in (1, 2, 3)] == [0.0, 0.0, 0.0]
    # a cell whose neighbours are all known proves nothing
    q = Position.from_rows(["1F", "11"], mines=1)
    assert progress_chance(q, 1, _chances(q)) == 0.0


def test_the_progress_chance_of_a_cell_away_from_numbers_is_its_chance_of_a_zero() -> None:
    # the quick product and the whole estimate agree on every cell of fast's guess positions
    rng = random.Random(2)
    checked = 0
    for spec in EXPERT[:3]:
        game = spec.game()
        game.reveal(spec.start)
        player = FastPlayer()
        while not game.over:
            position = game.position()
            decision = player.decide(position, rng)
            if decision.guess:
                a = analyze(position)
                mine, safety = _chances(position), [1.0] * position.cells
                for c, (num, den) in a.ratios.items():
                    if num != den:
                        safety[c] = 1.0 - num / den
                covered = [c for c in a.unknown if position.states[c] == 9]
                quick = _gains(position, [(c, 0.5) for c in covered], covered, safety, mine)
                for c, g in zip(covered, quick, strict=True):
                    assert g == pytest.approx(progress_chance(position, c, mine), abs=1e-12)
                    assert 0.0 <= g <= 1.0
                checked += len(covered)
            for move in decision.moves:
                game.play(move)
                if game.over:
                    break
    assert checked > 1000
