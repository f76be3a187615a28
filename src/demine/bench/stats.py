"""Statistics of bench runs: Wilson intervals, summaries, paired comparisons and sign tests."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from demine.errors import InputError

#: What the "forced found" column means, printed under a table that has it.
FORCED_NOTE = (
    "forced found: of the cells the exact engine proves at each of a player's decision points, "
    "the share that decision played. best and fast first open what one number proves, without the "
    "full count, and play the rest of what is provable at their next decisions: their share is "
    "lower without a provable cell missed (they guess only when their exact analysis finds no "
    "safe cell)."
)

if TYPE_CHECKING:
    from demine.bench.play import GameResult, GameSpec


def wilson(wins: int, games: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval for a proportion (95% by default).

    >>> lo, hi = wilson(50, 100)
    >>> round(lo, 4), round(hi, 4)
    (0.4038, 0.5962)
    """
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    lo = 0.0 if wins == 0 else max(0.0, centre - half)
    hi = 1.0 if wins == games else min(1.0, centre + half)
    return (lo, hi)


@dataclass(frozen=True, slots=True)
class Summary:
    """The outcome of a bench run for one player."""

    player: str
    """The player's name."""
    games: int
    """Games played."""
    wins: int
    """Games won."""
    rule: str
    """First-click rule."""
    start: str
    """The start cell as ``R,C`` (or ``per board``)."""
    ms_per_game: float
    """Mean wall time per game."""
    guesses_per_game: float
    """Mean number of guesses per game."""
    forced_share: float | None = None
    """Cells the player proved over cells the exact engine proved, at the player's decision
    points (when measured)."""
    lives: int = 0
    """Lives per game (0: the first mine hit loses)."""
    hits_per_game: float = 0.0
    """Mean mines hit and played on per game (with lives)."""
    moves_per_game: float = 0.0
    """Mean moves per game."""
    no_guess: str | None = None
    """The certificate of the guess-free boards played (``complete`` or ``local``), if they were."""

    @property
    def win_rate(self) -> float:
        """wins / games."""
        return self.wins / self.games if self.games else 0.0

    @property
    def ci95(self) -> tuple[float, float]:
        """Wilson 95% interval of the win rate."""
        return wilson(self.wins, self.games)

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` object."""
        lo, hi = self.ci95
        return {
            "player": self.player,
            "games": self.games,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "ci95": [lo, hi],
            "rule": self.rule,
            "start": self.start,
            "ms_per_game": self.ms_per_game,
            "guesses_per_game": self.guesses_per_game,
            **({"forced_share": self.forced_share} if self.forced_share is not None else {}),
            **({"lives": self.lives, "hits_per_game": self.hits_per_game} if self.lives else {}),
            "moves_per_game": self.moves_per_game,
            **({"no_guess": self.no_guess} if self.no_guess else {}),
        }


def summarise(player: str, specs: Sequence[GameSpec], results: Iterable[GameResult]) -> Summary:
    """Sum results up."""
    res = list(results)
    n = len(res)
    starts = {(s.width, s.start) for s in specs}
    if len(starts) == 1:
        w, st = next(iter(starts))
        r, c = divmod(st, w)
        start = f"{r},{c}"
    else:
        start = "per board"
    rules = {s.rule for s in specs}
    exact = sum(r.forced_exact for r in res)
    return Summary(
        player=player,
        games=n,
        wins=sum(r.won for r in res),
        rule=rules.pop() if len(rules) == 1 else "mixed",
        start=start,
        ms_per_game=sum(r.ms for r in res) / n if n else 0.0,
        guesses_per_game=sum(r.guesses for r in res) / n if n else 0.0,
        forced_share=(sum(r.forced_found for r in res) / exact) if exact else None,
        lives=max((s.lives for s in specs), default=0),
        hits_per_game=sum(r.hits for r in res) / n if n else 0.0,
        moves_per_game=sum(r.moves for r in res) / n if n else 0.0,
        no_guess=_one({s.no_guess for s in specs}),
    )


def _one(values: set[str | None]) -> str | None:
    """The value all specs share, or None (also when they differ)."""
    return values.pop() if len(values) == 1 else None


@dataclass(frozen=True, slots=True)
class Paired:
    """A paired comparison of two players on the same boards."""

    a: str
    """The first player."""
    b: str
    """The second player."""
    games: int
    """Boards both played."""
    wins_a: int
    """Boards the first player won."""
    wins_b: int
    """Boards the second player won."""
    only_a: int
    """Boards only the first player won."""
    only_b: int
    """Boards only the second player won."""

    @property
    def p_value(self) -> float:
        """Two-sided exact sign test on the boards only one player won."""
        return sign_test(self.only_a, self.only_b)

    def to_json(self) -> dict[str, Any]:
        """As a JSON object."""
        return {**asdict(self), "p_value": self.p_value}


def sign_test(x: int, y: int) -> float:
    """Two-sided exact binomial sign test of ``x`` successes against ``y`` (p = 1/2).

    >>> round(sign_test(10, 0), 5)
    0.00195
    >>> sign_test(3, 3)
    1.0
    """
    n = x + y
    if n == 0:
        return 1.0
    k = min(x, y)
    tail = sum(math.comb(n, i) for i in range(k + 1))
    return min(1.0, 2 * tail / (1 << n))


def paired(a: str, ra: Sequence[GameResult], b: str, rb: Sequence[GameResult]) -> Paired:
    """Compare two players' results on the same boards (matched by index)."""
    wa = {r.index: r.won for r in ra}
    wb = {r.index: r.won for r in rb}
    common = sorted(wa.keys() & wb.keys())
    return Paired(
        a,
        b,
        len(common),
        sum(wa[i] for i in common),
        sum(wb[i] for i in common),
        sum(wa[i] and not wb[i] for i in common),
        sum(wb[i] and not wa[i] for i in common),
    )


SWEEP_PARAMS = ("mines", "width", "height")


def parse_sweep(text: str) -> tuple[str, list[int]]:
    """``mines=60:140:10`` (start:stop:step, stop included) or ``mines=60,80,100``.

    >>> parse_sweep("mines=60:100:20")
    ('mines', [60, 80, 100])
    """
    name, sep, spec = text.partition("=")
    name = name.strip()
    if not sep or name not in SWEEP_PARAMS:
        raise InputError(
            f"--sweep takes NAME=START:STOP:STEP or NAME=A,B,C with NAME one of {SWEEP_PARAMS}, got {text!r}"
        )
    try:
        if ":" in spec:
            parts = [int(x) for x in spec.split(":")]
            if len(parts) != 3 or parts[2] <= 0 or parts[1] < parts[0]:
                raise ValueError
            values = list(range(parts[0], parts[1] + 1, parts[2]))
        else:
            values = [int(x) for x in spec.split(",")]
    except ValueError:
        raise InputError(
            f"--sweep {text!r}: expected START:STOP:STEP with STEP > 0 and STOP >= START, or A,B,C"
        ) from None
    if not values or len(values) > 200:
        raise InputError(f"--sweep {text!r} gives {len(values)} values; 1 to 200 are allowed")
    return name, values
