"""``best``'s knobs as one value (:class:`BestSettings`), and the hooks an experiment passes in to
watch its search (:class:`Hooks`).

The defaults are the adopted values, each measured (docs/research/guesses.md and
docs/research/endgame.md). An experiment builds another value (``BestSettings(depth=2)``,
``BestSettings.parse(["depth=2"])``, ``demine bench --set depth=2``) and passes it in; nothing is
changed in a module, so two settings can play side by side in one process, and a settings value
travels to worker processes by pickling under every start method.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from demine.errors import InputError

if TYPE_CHECKING:
    from demine.analysis import Analysis
    from demine.engine.position import Position
    from demine.players.best.lookahead import Ranked
    from demine.players.best.moves import BestMove


@dataclass(frozen=True, slots=True)
class BestSettings:
    """How ``best`` plays. ``repr()`` can be pasted back into Python (with ``Fraction`` imported).

    >>> settings = BestSettings(depth=2, credit_weight=Fraction(1, 2))
    >>> eval(repr(settings)) == settings
    True
    >>> BestSettings.parse(["depth=2", "far_off=no"]) == BestSettings(depth=2, far_off=False)
    True
    """

    endgame_layouts: int = 2500
    """The exact endgame search runs when at most this many layouts remain (2 or more). 500 until
    2026-12-03: 1,000 won 166 expert boards that 500 lost against 123 the other way, p 0.013 over
    100,000. 1,000 until 2026-12-04: 2,500 (with the three values below) won 167 against 113,
    p 0.0015 over 100,000 fresh expert boards, and lost nothing on the smaller boards
    (docs/research/jsminesweeper.md)."""
    sampled_layouts: int = 10_000
    """Above ``endgame_layouts`` and up to this many layouts, the search runs over a uniform
    sample of them (0: never; 5,000 until 2026-12-04)."""
    endgame_sample: int = 2500
    """The sampled search's draws (a layout drawn twice counts once; 500 until 2026-12-03, 1,000
    until 2026-12-04)."""
    sample_assignments: int = 20_000
    """No sampled search when the frontier cells have more assignments than this (drawing lists
    them all)."""
    endgame_nodes: int = 600_000
    """Search nodes an endgame search may visit before it gives up for this move (a count, not a
    time, so a game plays the same on any machine; 50,000 until 2026-12-03, 200,000 until
    2026-12-04)."""
    candidate_share: float = 0.9
    """Look-ahead candidates: frontier cells whose safety is at least this share of the best."""
    max_candidates: int = 8
    """At most this many frontier candidates..."""
    max_off_candidates: int = 2
    """...plus this many off-frontier cells (those most likely to open a zero)."""
    inner_candidates: int = 6
    """At the inner level of the three-reveal look-ahead: how many frontier cells (safest first)
    are weighed, besides the off-frontier cell most likely to be a zero."""
    depth: int = 3
    """Reveals the look-ahead scores: 2 (a candidate and the best next guess) or 3 (and the best
    one after that, a reveal of a proven safe cell counting as one)."""
    long_term_risk: bool = True
    """Structures that end in a coin toss (:mod:`demine.players.longterm`): a pseudo 50/50 is
    played at once, and look-ahead candidates are weighed by their long-term safety."""
    credit_weight: Fraction = Fraction(9, 10)
    """In a long-term safety, how much of a mine that only decides a coin toss the game must take
    anyway counts as safe."""
    far_off: bool = True
    """Among equally promising off-frontier cells, the farthest from every revealed cell first
    (off: the first in reading order)."""
    pair_first: bool = True
    """Try the pair rule before the full count (speed only: the same moves either way)."""

    def __post_init__(self) -> None:
        problems = []
        if self.depth not in (2, 3):
            problems.append(f"depth must be 2 or 3, got {self.depth}")
        if not 0 <= self.candidate_share <= 1:
            problems.append(f"candidate_share must lie in [0, 1], got {self.candidate_share}")
        if not 0 <= self.credit_weight <= 1:
            problems.append(f"credit_weight must lie in [0, 1], got {self.credit_weight}")
        for f in fields(self):
            v = getattr(self, f.name)
            if f.type == "int" and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
                problems.append(f"{f.name} must be a whole number >= 0, got {v!r}")
        if problems:
            raise InputError("; ".join(problems))

    def replace(self, **changes: Any) -> BestSettings:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def parse(
        cls, items: Iterable[str], base: BestSettings | None = None, source: str = "--set"
    ) -> BestSettings:
        """Settings from ``NAME=VALUE`` texts (as ``--set`` takes them), over ``base``; an error
        names ``source``, where the texts came from."""
        return dataclasses.replace(base or cls(), **_changes(cls, items, source))


@dataclass(frozen=True, slots=True)
class FastSettings:
    """How ``fast`` guesses (the default: the adopted rule, docs/research/guesses.md). An experiment
    builds another value (``FastSettings(two_step=False)``, ``fast(two_step=no)`` as a player text).

    >>> FastSettings.parse(["two_step=no"]) == FastSettings(two_step=False)
    True
    """

    two_step: bool = True
    """The cell with the highest ``s x (g + (1 - g) x r)``: ``s`` its chance to be safe, ``g``
    about the chance that its number proves a cell safe at once, ``r`` the best safety of the
    other cells (an estimate of surviving this guess and the next). Off: the safest cell, ties
    toward the cell most likely to be a zero (``fast`` until 2026-11-26)."""

    def replace(self, **changes: Any) -> FastSettings:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def parse(
        cls, items: Iterable[str], base: FastSettings | None = None, source: str = "--set"
    ) -> FastSettings:
        """Settings from ``NAME=VALUE`` texts (as ``--set`` takes them), over ``base``; an error
        names ``source``, where the texts came from."""
        return dataclasses.replace(base or cls(), **_changes(cls, items, source))


def _changes(cls: type, items: Iterable[str], source: str) -> dict[str, Any]:
    """The fields of ``cls`` named by ``NAME=VALUE`` texts, with their values."""
    kinds = {f.name: f.type for f in fields(cls)}
    changes: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or name not in kinds:
            raise InputError(f"{source} {item!r}: expected NAME=VALUE with NAME one of {', '.join(kinds)}")
        changes[name] = _value(name, kinds[name], text.strip(), source)
    return changes


def _value(name: str, kind: Any, text: str, source: str) -> Any:
    try:
        if kind == "bool":
            lowered = text.lower()
            if lowered in ("1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off"):
                return False
            raise ValueError
        if kind == "int":
            return int(text.replace("_", ""))
        if kind == "float":
            return float(text)
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise InputError(f"{source} {name}={text!r}: not a valid {kind}") from None


@dataclass(frozen=True, slots=True)
class Hooks:
    """Callbacks an experiment passes in to watch ``best``'s search (none by default). They only
    observe, except ``on_ranked``: with it, the look-ahead prunes nothing, so that every
    candidate's score is complete (the move played is the same: pruning is sound, tested)."""

    on_ranked: Callable[[Ranked], None] | None = None
    """Called with each look-ahead candidate as scored."""
    on_search: Callable[[str, float, BestMove | None], None] | None = None
    """Called after each endgame search that ran: its kind (``"exact"`` or ``"sampled"``), its
    time in seconds, and its move (None when it gave up)."""
    on_guess: Callable[[Position, Analysis, BestMove], None] | None = None
    """Called with each move :func:`best_move` returns that is not a proven safe cell."""


#: No hooks.
NO_HOOKS = Hooks()
#: The adopted settings (the functions' defaults).
DEFAULT_SETTINGS = BestSettings()
#: The settings of a hint a person waits for (the web game's best guess, which ``screen watch``
#: shows too, and the terminal game's hint key): the adopted ones with the endgame ``best`` had
#: until 2026-12-04. The endgame's searches are bounded by nodes, not by the hint's time budget;
#: the adopted, larger one's took up to 4.1 s a search on 2,000 expert games here against 0.76 s
#: for this one (``benchmarks/endgame_time.py current v2500``), and a hint comes on every click.
HINT_SETTINGS = BestSettings(
    endgame_layouts=1000, sampled_layouts=5000, endgame_sample=1000, endgame_nodes=200_000
)
#: ``fast``'s adopted settings.
DEFAULT_FAST = FastSettings()
