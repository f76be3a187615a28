"""Glicko-2 ratings (Glickman, "Example of the Glicko-2 system", 2013) for players and puzzles:
an attempt is a game between the two, won by the player when the puzzle is solved.

>>> player = Rating()
>>> after = attempt(player, Rating(1900.0, 80.0), solved=True)[0]
>>> after.rating > player.rating
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: The scale factor between Glicko and Glicko-2 units.
SCALE = 173.7178
#: The system constant: how much the volatility may change (0.3 to 1.2; smaller is steadier).
TAU = 0.5


@dataclass(frozen=True, slots=True)
class Rating:
    """A Glicko-2 rating on the familiar scale (1500 the start)."""

    rating: float = 1500.0
    """The estimate."""
    rd: float = 350.0
    """Its deviation: how unsure the estimate is (350 for a newcomer)."""
    volatility: float = 0.06
    """How erratic the performance is."""


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / math.pi**2)


def expected(player: Rating, opponent: Rating) -> float:
    """The chance that ``player`` beats ``opponent`` (solves the puzzle)."""
    mu, mu_j, phi_j = (player.rating - 1500) / SCALE, (opponent.rating - 1500) / SCALE, opponent.rd / SCALE
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def update(player: Rating, results: list[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """``player`` after one rating period of ``results`` (each an opponent and a score: 1 won,
    0 lost, 0.5 a draw). With no results only the deviation grows."""
    mu = (player.rating - 1500) / SCALE
    phi = player.rd / SCALE
    sigma = player.volatility
    if not results:
        phi_star = math.sqrt(phi * phi + sigma * sigma)
        return Rating(player.rating, min(350.0, phi_star * SCALE), sigma)
    v_inv = 0.0
    delta_sum = 0.0
    for opp, score in results:
        mu_j, phi_j = (opp.rating - 1500) / SCALE, opp.rd / SCALE
        g = _g(phi_j)
        e = 1.0 / (1.0 + math.exp(-g * (mu - mu_j)))
        v_inv += g * g * e * (1 - e)
        delta_sum += g * (score - e)
    v = 1.0 / v_inv
    delta = v * delta_sum
    # the new volatility (Illinois algorithm, step 5)
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2) - (x - a) / (
            tau * tau
        )

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    fa, fb = f(big_a), f(big_b)
    while abs(big_b - big_a) > 1e-6:
        c = big_a + (big_a - big_b) * fa / (fb - fa)
        fc = f(c)
        if fc * fb <= 0:
            big_a, fa = big_b, fb
        else:
            fa /= 2
        big_b, fb = c, fc
    sigma_new = math.exp(big_a / 2)
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * delta_sum
    return Rating(mu_new * SCALE + 1500, min(350.0, phi_new * SCALE), sigma_new)


def attempt(player: Rating, puzzle: Rating, solved: bool | float) -> tuple[Rating, Rating]:
    """The player's and the puzzle's ratings after one attempt (``solved`` may be a share of
    credit between 0 and 1)."""
    s = float(solved)
    return update(player, [(puzzle, s)]), update(puzzle, [(player, 1.0 - s)])
