"""The look-ahead's candidates: the cells safe enough to weigh and the safest frontier cells, as the
plain definitions with a ``Fraction`` per cell give them."""

from __future__ import annotations

from fractions import Fraction

from demine import analyze
from demine.engine.game import Game
from demine.engine.position import COVERED
from demine.players.best import BestSettings
from demine.players.best.lookahead import _chosen
from demine.players.best.moves import distances, safe_enough, touches_revealed, zero_chance_keys


def test_candidates_match_the_plain_definitions() -> None:
    settings = BestSettings(max_candidates=5)
    checked = 0
    for seed in range(12):
        checked += _check_game(settings, f"candidates/{seed}")
    assert checked >= 15


def _check_game(settings: BestSettings, seed: str) -> int:
    """Checks each position of a game (the safest cell opened at a guess); how many guesses."""
    game = Game(30, 16, 99, rule="safe", seed=seed)
    game.reveal(0)
    checked = 0
    while not game.over:
        p = game.position()
        a = analyze(p)
        covered = [c for c in a.unknown if p.states[c] == COVERED]
        floor = (1 - a.min_probability()) * Fraction(settings.candidate_share)
        plain_ok = [c for c in covered if 1 - a.probability(c) >= floor]
        assert safe_enough(p, a.unknown, a.ratios, (floor.numerator, floor.denominator)) == plain_ok
        if not a.safe:
            zero_key = zero_chance_keys(p)
            picked = _chosen(p, a, settings, None, zero_key, distances(p, True))
            assert picked is not None
            near = [c for c, on in zip(plain_ok, touches_revealed(p, plain_ok), strict=True) if on]
            plain_front = sorted(near, key=lambda c: (a.probability(c), zero_key(c), c))[:5]
            assert picked[0][: len(plain_front)] == plain_front
            checked += 1
            game.reveal(min(covered, key=lambda c: (a.probability(c), c)))
        else:
            game.reveal(min(a.safe))
    return checked
