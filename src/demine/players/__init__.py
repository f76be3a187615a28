"""Players (strategies) behind one interface, found by name (:func:`find_solver`) or made from a
:class:`PlayerSpec`: a name with, for a player that has knobs, a settings value and a budget.

A spec is a plain frozen value, so it travels to worker processes (and Dask workers) by pickling
under every start method: a worker makes its own player from it, and nothing has to be set up in
the worker beforehand.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from importlib import import_module
from typing import Any

from demine.analysis import Limit
from demine.errors import InputError
from demine.players.base import Decision, Player
from demine.players.random_player import RandomPlayer


@dataclass(frozen=True, slots=True)
class _Entry:
    factory: Callable[..., Player]
    summary: str
    settings: str | None = None
    """The ``module:Class`` of the player's settings, when it has knobs."""
    takes_limit: bool = False
    takes_hooks: bool = False


_REGISTRY: dict[str, _Entry] = {}


def register(
    name: str,
    factory: Callable[..., Player],
    summary: str,
    *,
    settings: str | None = None,
    takes_limit: bool = False,
    takes_hooks: bool = False,
) -> None:
    """Make a player available under ``name``. ``settings`` names its settings class as
    ``module:Class`` when the factory takes ``settings=``; ``takes_limit`` when it takes
    ``limit=``, ``takes_hooks`` when it takes ``hooks=``. A player registered at run time exists
    only in the process that registered it: worker processes under ``spawn`` know the built-in
    players only."""
    _REGISTRY[name] = _Entry(factory, summary, settings, takes_limit, takes_hooks)


@dataclass(frozen=True, slots=True)
class PlayerSpec:
    """A player to make: its name, its settings (None: its defaults), its budget per decision
    (None: its default), and hooks that watch its search (one process only: hooks are functions,
    which a worker process cannot be sent in general)."""

    name: str
    """A registered player's name."""
    settings: Any = None
    """A settings value of the player's own type (``BestSettings`` for ``best``)."""
    limit: Limit | None = None
    """The budget of each decision, for players that take one."""
    hooks: Any = field(default=None, compare=False)
    """Callbacks into the player's search (``Hooks`` for ``best``)."""

    def __post_init__(self) -> None:
        entry = _entry(self.name)
        if self.settings is not None:
            kind = settings_type(self.name)
            if kind is None:
                raise InputError(f"player {self.name!r} has no settings")
            if not isinstance(self.settings, kind):
                raise InputError(f"player {self.name!r} takes {kind.__name__}, got {self.settings!r}")
        if self.limit is not None and not entry.takes_limit:
            raise InputError(f"player {self.name!r} takes no time limit")
        if self.hooks is not None and not entry.takes_hooks:
            raise InputError(f"player {self.name!r} takes no hooks")

    def make(self) -> Player:
        """A new player."""
        kwargs: dict[str, Any] = {}
        if self.settings is not None:
            kwargs["settings"] = self.settings
        if self.limit is not None:
            kwargs["limit"] = self.limit
        if self.hooks is not None:
            kwargs["hooks"] = self.hooks
        return _entry(self.name).factory(**kwargs)

    @classmethod
    def parse(cls, text: str, changes: list[str] | None = None) -> PlayerSpec:
        """A spec from its text, ``NAME`` or ``NAME(FIELD=VALUE, ...)`` (what ``str()`` gives),
        with ``changes`` (``FIELD=VALUE`` texts, as ``--set`` takes them) on top.

        >>> str(PlayerSpec.parse("best(depth=2)", ["far_off=no"]))
        'best(depth=2, far_off=False)'
        """
        text = text.strip()
        name, paren, rest = text.partition("(")
        name = name.strip()
        items: list[str] = []
        if paren:
            if not rest.endswith(")"):
                raise InputError(f"player {text!r}: expected NAME or NAME(FIELD=VALUE, ...)")
            items = [x for x in rest[:-1].split(",") if x.strip()]
        kind = settings_type(name)  # (an unknown name: the list of names)
        if not items and not changes:
            return cls(name)
        if kind is None:
            raise InputError(f"player {name!r} has no settings")
        parse = getattr(kind, "parse", None)
        if parse is None:
            raise InputError(f"player {name!r}: its settings cannot be written as text")
        # each error names where its text came from: the player's text or --set
        settings = parse(items, source=f"in player {text!r}:")
        return cls(name, parse(changes or [], base=settings))

    def __str__(self) -> str:
        """The name, with the settings that differ from the defaults: ``best(depth=2)``."""
        changed = _changes(self.settings) if self.settings is not None else {}
        if not changed:
            return self.name
        return f"{self.name}({', '.join(f'{k}={v}' for k, v in changed.items())})"


def _changes(settings: Any) -> dict[str, Any]:
    base = type(settings)()
    return {
        f.name: getattr(settings, f.name)
        for f in fields(settings)
        if getattr(settings, f.name) != getattr(base, f.name)
    }


def _entry(name: str) -> _Entry:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise InputError(f"unknown player {name!r}; available: {', '.join(sorted(_REGISTRY))}") from None


def settings_type(name: str) -> type | None:
    """The settings class of player ``name``, None when it has no settings (:class:`InputError`
    for an unknown name)."""
    entry = _entry(name)
    if entry.settings is None:
        return None
    module, _, cls = entry.settings.partition(":")
    kind: type = getattr(import_module(module), cls)
    return kind


def split_players(text: str) -> list[str]:
    """Comma-separated player texts, commas inside parentheses kept (``best,best(depth=2)``)."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return [p for p in out if p]


def find_solver(name: str | PlayerSpec) -> Player:
    """A new player by name or spec; :class:`InputError` lists the names when ``name`` is unknown."""
    spec = name if isinstance(name, PlayerSpec) else PlayerSpec(name)
    return spec.make()


def available_solvers() -> dict[str, str]:
    """Registered player names with a one-line summary each."""
    return {name: entry.summary for name, entry in sorted(_REGISTRY.items())}


def _lazy(module: str, cls: str) -> Callable[..., Player]:
    """A factory that imports its player's module on first use (keeps optional extras optional
    and start-up fast)."""

    def make(**kwargs: Any) -> Player:
        player: Player = getattr(import_module(f"demine.players.{module}"), cls)(**kwargs)
        return player

    return make


register("random", RandomPlayer, "opens a uniformly random covered cell; never flags")
register(
    "exact",
    _lazy("exact_player", "ExactPlayer"),
    "exact probabilities; opens proven safe cells, else the safest (row-major ties)",
    takes_limit=True,
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
    settings="demine.players.best.settings:BestSettings",
    takes_limit=True,
    takes_hooks=True,
)
register(
    "fast",
    _lazy("best", "FastPlayer"),
    "exact probabilities; guesses by safety and the chance its number proves a cell safe",
    settings="demine.players.best.settings:FastSettings",
    takes_limit=True,
)

#: The player used when none is named: always the strongest one registered.
DEFAULT_PLAYER = "best"

__all__ = [
    "DEFAULT_PLAYER",
    "Decision",
    "Player",
    "PlayerSpec",
    "available_solvers",
    "find_solver",
    "register",
    "settings_type",
    "split_players",
]
