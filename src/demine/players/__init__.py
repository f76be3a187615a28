"""Players (strategies) behind one interface, found by name with :func:`find_solver`."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from demine.errors import InputError
from demine.players.base import Decision, Player
from demine.players.random_player import RandomPlayer

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


def _lazy(module: str, cls: str) -> Callable[[], Player]:
    """A factory that imports its player's module on first use (keeps optional extras optional
    and start-up fast)."""

    def make() -> Player:
        player: Player = getattr(import_module(f"demine.players.{module}"), cls)()
        return player

    return make


register("random", RandomPlayer, "opens a uniformly random covered cell; never flags")
register(
    "exact",
    _lazy("exact_player", "ExactPlayer"),
    "exact probabilities; opens proven safe cells, else the safest (row-major ties)",
)
register("twosat", _lazy("twosat", "TwoSatPlayer"), "2-SAT implication graph + Tarjan SCC; random guesses")
register(
    "window-sat",
    _lazy("window_sat", "WindowSatPlayer"),
    "each number's 3x3 window as SAT (PySAT); averaged window probabilities",
)
register(
    "equations",
    _lazy("equations", "EquationsPlayer"),
    "subset subtraction, backtracking enumeration, global probability",
)
register(
    "gauss",
    _lazy("gauss", "GaussPlayer"),
    "components, Gaussian elimination, free-variable enumeration, DP over counts",
)

register(
    "best",
    _lazy("best", "BestPlayer"),
    "the strongest: exact deduction, endgame search, 50/50s, look-ahead guesses",
)
register(
    "fast",
    _lazy("best", "FastPlayer"),
    "exact probabilities, lowest-probability cell, ties toward likely zeros",
)

#: The player used when none is named: always the strongest one registered.
DEFAULT_PLAYER = "best"

__all__ = ["DEFAULT_PLAYER", "Decision", "Player", "available_solvers", "find_solver", "register"]
