"""Players (strategies) behind one interface, found by name with :func:`find_solver`."""

from __future__ import annotations

from collections.abc import Callable

from demine.errors import InputError
from demine.solvers.base import Decision, Player
from demine.solvers.random_player import RandomPlayer

_REGISTRY: dict[str, tuple[Callable[[], Player], str]] = {}


def register(name: str, factory: Callable[[], Player], summary: str) -> None:
    """Make a player available to :func:`find_solver` under ``name``."""
    _REGISTRY[name] = (factory, summary)


def find_solver(name: str) -> Player:
    """A new player by name; :class:`InputError` lists the names when ``name`` is unknown."""
    try:
        factory, _ = _REGISTRY[name]
    except KeyError:
        raise InputError(f"unknown player {name!r}; available: {', '.join(sorted(_REGISTRY))}") from None
    return factory()


def available_solvers() -> dict[str, str]:
    """Registered player names with a one-line summary each."""
    return {name: summary for name, (_, summary) in sorted(_REGISTRY.items())}


def _exact() -> Player:
    from demine.solvers.exact_player import ExactPlayer

    return ExactPlayer()


def _twosat() -> Player:
    from demine.solvers.twosat import TwoSatPlayer

    return TwoSatPlayer()


def _window_sat() -> Player:
    from demine.solvers.window_sat import WindowSatPlayer

    return WindowSatPlayer()


def _equations() -> Player:
    from demine.solvers.equations import EquationsPlayer

    return EquationsPlayer()


def _gauss() -> Player:
    from demine.solvers.gauss import GaussPlayer

    return GaussPlayer()


def _best() -> Player:
    from demine.solvers.best import BestPlayer

    return BestPlayer()


def _fast() -> Player:
    from demine.solvers.best import FastPlayer

    return FastPlayer()


register("random", RandomPlayer, "opens a uniformly random covered cell; never flags")
register("exact", _exact, "exact probabilities; opens proven safe cells, else the safest (row-major ties)")
register("twosat", _twosat, "2-SAT implication graph + Tarjan SCC; random guesses")
register("window-sat", _window_sat, "each number's 3x3 window as SAT (PySAT); averaged window probabilities")
register("equations", _equations, "subset subtraction, backtracking enumeration, global probability")
register("gauss", _gauss, "components, Gaussian elimination, free-variable enumeration, DP over counts")

register("best", _best, "the strongest: exact deduction, endgame search, 50/50s, look-ahead guesses")
register("fast", _fast, "exact probabilities, lowest-probability cell, ties toward likely zeros")

#: The player used when none is named: always the strongest one registered.
DEFAULT_PLAYER = "best"

__all__ = ["DEFAULT_PLAYER", "Decision", "Player", "available_solvers", "find_solver", "register"]
