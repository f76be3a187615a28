"""Every player, and the web hint, on boards off the presets: no crash on any size or density.

A few seeded games per board, from 5x5 to 100x100, 5% to 25% mines, under both first-click rules
(the wide sweep, more games a board, is ``benchmarks/any_board.py``). ``best`` used to crash on
40x40 with 320 mines: the three-reveal look-ahead turned a layout count of over 300 digits into a
float.
"""

from __future__ import annotations

import pytest

from demine import Game, Limit, PlayerSpec, analyze
from demine.bench import generated_specs, play_game
from demine.engine.grid import default_start
from demine.web.service import hints

#: (width, height, density): the corners of what a user can ask for, and the crash that was.
BOARDS = [(5, 5, 0.05), (5, 5, 0.25), (12, 20, 0.25), (40, 40, 0.2), (100, 100, 0.05)]
PLAYERS = ["best", "fast", "exact", "twosat", "window-sat", "equations", "gauss", "random"]


def _mines(width: int, height: int, density: float) -> int:
    return max(1, round(width * height * density))


@pytest.mark.parametrize("rule", ["safe", "zero"])
@pytest.mark.parametrize(("width", "height", "density"), BOARDS)
@pytest.mark.parametrize("player", PLAYERS)
def test_every_player_finishes_games_on_any_board(
    player: str, width: int, height: int, density: float, rule: str
) -> None:
    mines = _mines(width, height, density)
    # no time budget where a player takes one: the moves depend on the board alone
    spec = PlayerSpec(player, limit=Limit()) if player in ("best", "fast", "exact") else PlayerSpec(player)
    for game in generated_specs(width, height, mines, rule, None, 1, f"any/{player}"):
        result = play_game(game, spec)
        # the game ended (won or lost) within the engine's own move limit
        assert result.moves >= 1
        assert result.won or result.guesses >= 1 or rule == "none"


@pytest.mark.parametrize("rule", ["safe", "zero"])
@pytest.mark.parametrize(("width", "height", "density"), BOARDS)
def test_the_web_hint_answers_at_every_guess_of_a_game(
    width: int, height: int, density: float, rule: str
) -> None:
    mines = _mines(width, height, density)
    game = Game(width, height, mines, rule=rule, seed=f"any-hint/{width}x{height}")
    game.reveal(default_start(width, height, rule))
    asked = 0
    while not game.over and asked < 4:
        position = game.position()
        h = hints(position)
        assert "error" not in h
        if h["safe"]:
            r, c = h["safe"][0]
            game.reveal(game.geometry.cell(r, c))
            continue
        best = h["best"]
        assert best is not None and 0.0 <= best["mine_probability"] <= 1.0
        r, c = best["cell"]
        cell = game.geometry.cell(r, c)
        assert position.states[cell] == 9  # a covered cell
        # the hint's risk is the exact engine's, unless its analysis ran past the hint's time
        # budget (on a loaded machine: the hint then says so, and its figures are estimates)
        assert isinstance(h["approximate"], bool)
        if not h["approximate"]:
            exact = analyze(position.without_flags()).p(cell)
            assert best["mine_probability"] == pytest.approx(exact, abs=1e-4)
        asked += 1
        game.reveal(cell)
    assert asked >= 1 or game.won


def test_best_plays_the_boards_that_crashed_it() -> None:
    # `demine bench --size 40x40x320 --games 6 --player best --seed 1` raised OverflowError
    results = [play_game(s, "best") for s in generated_specs(40, 40, 320, "safe", None, 6, "1")]
    assert len(results) == 6 and sum(r.guesses for r in results) >= 6


def test_layout_counts_too_big_for_a_float_keep_their_ratios() -> None:
    from demine.players.best.survive import scaled

    small = [3, 1, 4]
    assert scaled(small) == ([3.0, 1.0, 4.0], 8.0)  # counts that fit: converted as they are
    huge = [3 * 10**400, 10**400, 4 * 10**400]
    weights, total = scaled(huge)
    assert [w / total for w in weights] == pytest.approx([3 / 8, 1 / 8, 4 / 8])
    assert all(0 < w < float("inf") for w in weights)
