"""The review of one game: each move replayed on its record, judged from the position the player
saw just before it.

What the player saw is the position with their flags taken off: flags are the player's claims,
checked against the numbers (a flag on a cell the numbers prove safe is a wrong flag) and never
used as facts. For each move:

- a **reveal of a proven-safe cell** (or a chord that opens only such cells) is *forced*;
- a reveal of any other cell is a **guess**: a *needless guess* when a covered cell was proven
  safe at that moment (anywhere on the board, not only near the click); else it is weighed
  against the engine's best move by the chance to win each keeps: exact by the endgame's
  game-tree search when at most ``endgame_layouts`` layouts remain; otherwise an estimate, the
  chance of surviving the click against the engine's pick (its risk of a mine now), marked
  ``exact=False``. The chance lost makes the mark: *best guess* (none lost), *inaccuracy*,
  *mistake* or *blunder* at the thresholds of :class:`ReviewSettings`;
- a **flag** on a cell proven safe is a *wrong flag*; other flags cost nothing;
- the click that hits a mine is also the *losing click*, with its chance of a mine (bad luck
  when the decision itself lost little; its own mark says which).

Proven cells stay proven as the game goes on (more numbers only remove layouts), so an analysis
is made only when a move is not already known to be safe: a game of forced moves costs little.
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from demine.analysis import Analysis, Limit, analyze
from demine.analysis.enumerate import enumerate_layouts
from demine.engine.formats import GameRecord
from demine.engine.game import Game, Move
from demine.engine.position import COVERED, FLAG, Position
from demine.errors import DemineError, InputError
from demine.players.best import best_move
from demine.players.best.endgame import Endgame

#: Every mark a decision can get, in the order the summary counts them.
MARKS = (
    "first click",
    "forced",
    "best guess",
    "inaccuracy",
    "mistake",
    "blunder",
    "needless guess",
    "flag",
    "wrong flag",
    "no effect",
)
#: The marks of a guess: a reveal or chord that was not forced (the first click aside).
GUESS_MARKS = ("best guess", "inaccuracy", "mistake", "blunder", "needless guess")


@dataclass(frozen=True, slots=True)
class ReviewSettings:
    """How a review judges. Thresholds are chances to win lost by one decision."""

    inaccuracy: float = 0.02
    """A guess that loses at least this much (and less than a mistake) is an inaccuracy..."""
    mistake: float = 0.05
    """...at least this much a mistake..."""
    blunder: float = 0.10
    """...and at least this much a blunder."""
    endgame_layouts: int = 500
    """Win chances are exact (the endgame's game-tree search) with at most this many layouts."""
    endgame_nodes: int = 200_000
    """The search's budget in positions; past it the decision is estimated instead."""
    limit: Limit = field(default_factory=lambda: Limit(seconds=0.5))
    """Each decision's analysis and the engine's best move are bounded by this."""

    def __post_init__(self) -> None:
        if not 0 < self.inaccuracy <= self.mistake <= self.blunder <= 1:
            raise InputError("the thresholds must satisfy 0 < inaccuracy <= mistake <= blunder <= 1")
        if self.endgame_layouts < 2 or self.endgame_nodes < 1:
            raise InputError("endgame_layouts must be at least 2 and endgame_nodes at least 1")


@dataclass(slots=True)
class Decision:
    """One move of the game and its judgement."""

    index: int
    """The move's place in the game, from 0."""
    kind: str
    """``reveal``, ``flag`` or ``chord``."""
    row: int
    col: int
    mark: str
    """One of :data:`MARKS`."""
    mine_probability: float | None = None
    """The chance the move hit a mine, from what the player saw (a chord: its riskiest cell)."""
    safe_known: int | None = None
    """Covered cells proven safe at that moment (None where no analysis was needed)."""
    best: tuple[int, int] | None = None
    """The engine's move at a guess (row, col)."""
    best_mine_probability: float | None = None
    """Its chance of a mine."""
    win_played: float | None = None
    """The chance to win after this move with best play from there (at a guess)."""
    win_best: float | None = None
    """The same for the best move."""
    lost: float = 0.0
    """The chance to win this decision gave away (0 for a forced or best move), in points of
    the chance at that moment."""
    kept: float = 1.0
    """The share of the best move's chance to win that the move played keeps (1 for a forced or
    best move; ``win_played / win_best``, or for an estimate the ratio of the chances to
    survive the click)."""
    exact: bool = True
    """Whether ``win_played``, ``win_best`` and ``lost`` are exact (else estimates)."""
    hit_mine: bool = False
    """This click lost the game (a mine)."""
    time: float | None = None
    """Seconds from the start of the game, when the record has times."""
    approximate_analysis: bool = False
    """The position's analysis ran out of its limit (probabilities are estimates)."""


@dataclass(slots=True)
class Review:
    """A reviewed game: its decisions and the totals."""

    width: int
    height: int
    mines: int
    rule: str
    outcome: str
    """``won``, ``lost`` or ``playing`` (a record that stops before the end)."""
    decisions: list[Decision]
    bbbv: int
    """The layout's 3BV: the fewest clicks that clear it without flags."""
    solved_bbbv: int
    """The 3BV the player cleared (all of it in a won game)."""
    seconds: float | None = None
    """The game's length, when the record has times."""
    all_clicks: int | None = None
    """Every click the player made, wasted ones included, when the source counts them (a video);
    else the moves are the clicks."""
    engine_seconds: float = 0.0
    """Time the review spent in the engine (analyses, endgame searches, best moves)."""

    def counts(self) -> dict[str, int]:
        """How many decisions got each mark."""
        out = dict.fromkeys(MARKS, 0)
        for d in self.decisions:
            out[d.mark] += 1
        return out

    @property
    def guesses(self) -> list[Decision]:
        """The reveals and chords that were not forced (the first click aside)."""
        return [d for d in self.decisions if d.mark in GUESS_MARKS]

    @property
    def lost(self) -> float:
        """The share of the chance to win that the decisions gave away over the game: 1 minus
        the product of each decision's :attr:`Decision.kept` (0: every decision was the best;
        0.5: the player's choices halved their chances)."""
        return 1.0 - math.prod(d.kept for d in self.decisions)

    @property
    def luck(self) -> float:
        """The chance of surviving the guesses the player took, as they were taken (the product
        of each guess's chance to be safe; the losing click included). ``-log10`` of it is what
        ms-toollib calls *pluck*."""
        return math.prod(1.0 - (d.mine_probability or 0.0) for d in self.guesses)

    @property
    def pluck(self) -> float:
        """``-log10(luck)``: ms-toollib's measure of the luck a game needed (inf for a game lost
        on a proven mine)."""
        return -math.log10(self.luck) if self.luck > 0 else math.inf

    @property
    def accuracy(self) -> float | None:
        """The share of decisions (reveals and chords with an effect, the first click aside) that
        lost less than an inaccuracy: forced moves and good guesses."""
        judged = [d for d in self.decisions if d.mark in ("forced", *GUESS_MARKS)]
        if not judged:
            return None
        good = sum(1 for d in judged if d.mark in ("forced", "best guess"))
        return good / len(judged)

    @property
    def clicks(self) -> int:
        """The clicks: a video's own count, else every move (reveal, flag, chord)."""
        return self.all_clicks if self.all_clicks is not None else len(self.decisions)

    @property
    def ioe(self) -> float | None:
        """Efficiency: 3BV cleared per click."""
        return self.solved_bbbv / self.clicks if self.clicks else None

    @property
    def bbbv_per_second(self) -> float | None:
        return self.solved_bbbv / self.seconds if self.seconds else None

    def thinking(self) -> dict[str, float | None]:
        """For a game with times (a video): the median seconds since the previous move before a
        guess, and before a forced move (None without times or without such moves)."""
        gaps: dict[str, list[float]] = {"guess": [], "forced": []}
        for before, d in zip(self.decisions, self.decisions[1:], strict=False):
            if before.time is None or d.time is None:
                continue
            kind = "guess" if d.mark in GUESS_MARKS else "forced" if d.mark == "forced" else None
            if kind is not None:
                gaps[kind].append(d.time - before.time)
        return {k: statistics.median(v) if v else None for k, v in gaps.items()}

    def summary(self) -> dict[str, Any]:
        """The totals, as plain values."""
        exact = [d for d in self.guesses if d.exact]
        think = self.thinking()
        return {
            "outcome": self.outcome,
            "board": f"{self.width}x{self.height}/{self.mines}",
            "rule": self.rule,
            "marks": self.counts(),
            "guesses": len(self.guesses),
            "chance_lost": self.lost,
            "chance_lost_exact": 1.0 - math.prod(d.kept for d in exact),
            "luck": self.luck,
            "pluck": self.pluck if self.luck > 0 else None,
            "accuracy": self.accuracy,
            "bbbv": self.bbbv,
            "solved_bbbv": self.solved_bbbv,
            "clicks": self.clicks,
            "ioe": self.ioe,
            "seconds": self.seconds,
            "bbbv_per_second": self.bbbv_per_second,
            "seconds_before_guess": think["guess"],
            "seconds_before_forced": think["forced"],
        }

    def to_json(self) -> dict[str, Any]:
        """The whole review as JSON-ready values."""
        return {"summary": self.summary(), "decisions": [asdict(d) for d in self.decisions]}


class _Reviewer:
    def __init__(self, record: GameRecord, settings: ReviewSettings) -> None:
        self.record, self.settings = record, settings
        self.safe: set[int] = set()  # cells proven safe so far (stays true as the game goes on)
        self.mines: set[int] = set()  # cells proven mines so far
        self.analysis: Analysis | None = None
        self.analysed_at: bytes | None = None
        self.engine_seconds = 0.0
        self.hit: set[int] = set()  # mines hit and played on (a game with lives)

    def analyse(self, seen: Position) -> Analysis:
        """The analysis of ``seen`` (flags off), made once per position."""
        if self.analysis is None or self.analysed_at != seen.states:
            t0 = time.perf_counter()
            try:
                self.analysis = analyze(seen, limit=self.settings.limit)
            except DemineError as e:
                raise InputError(f"the record's position is impossible ({e}): was it edited?") from None
            self.engine_seconds += time.perf_counter() - t0
            self.analysed_at = seen.states
            self.safe |= self.analysis.safe
            self.mines |= self.analysis.mines
        return self.analysis

    def decide(self, k: int, g: Game, move: Move) -> Decision:
        p = g.position()
        seen = p.without_flags()
        if self.hit:  # mines hit in a game with lives are facts, not claims: they stay flagged
            st = bytearray(seen.states)
            for c in self.hit:
                st[c] = FLAG
            seen = Position(seen.width, seen.height, bytes(st), seen.mines)
        row, col = g.geometry.rowcol(move.cell)
        d = Decision(k, move.kind, row, col, "no effect")
        if move.kind == "flag":
            if p.states[move.cell] == COVERED and move.cell not in self.mines:
                self.analyse(seen)
            d.mark = "wrong flag" if move.cell in self.safe and p.states[move.cell] == COVERED else "flag"
            return d
        if all(v >= COVERED for v in seen.states):
            d.mark = "first click"
            d.mine_probability = 0.0 if self.record.board.rule != "none" else g.mines / (g.width * g.height)
            return d
        targets = [move.cell] if move.kind == "reveal" else g.chord_targets(move.cell)
        targets = [c for c in targets if p.states[c] == COVERED]
        if not targets:
            return d
        # proofs made earlier still hold: an analysis only when they do not settle the move
        a = None if all(c in self.safe for c in targets) else self.analyse(seen)
        if a is None or all(c in self.safe for c in targets):
            d.mark, d.mine_probability = "forced", 0.0
            return d
        d.approximate_analysis = a.approximate
        d.mine_probability = max(a.p(c) for c in targets)
        live_safe = [c for c in a.safe if seen.states[c] == COVERED]
        d.safe_known = len(live_safe)
        self.judge(d, seen, a, move, targets, live_safe)
        return d

    def judge(
        self, d: Decision, seen: Position, a: Analysis, move: Move, targets: list[int], live_safe: list[int]
    ) -> None:
        """Weigh a guess against the best move: exact in the endgame, else estimated."""
        t0 = time.perf_counter()
        try:
            self._judge(d, seen, a, move, targets, live_safe)
        finally:
            self.engine_seconds += time.perf_counter() - t0

    def _judge(
        self, d: Decision, seen: Position, a: Analysis, move: Move, targets: list[int], live_safe: list[int]
    ) -> None:
        s = self.settings
        exact = self._endgame(seen, a)
        if exact is not None and len(targets) == 1:
            search, n = exact
            full = (1 << n) - 1
            d.win_best = search.win(full)
            d.win_played = search.value(targets[0], full, n)
            found = search.best_move()
            if found is not None:
                d.best = seen.geometry.rowcol(found[0])
                d.best_mine_probability = a.p(found[0])
            d.lost = max(0.0, d.win_best - d.win_played)
            d.kept = d.win_played / d.win_best if d.win_best > 0 else 1.0
            d.exact = True
        else:
            d.exact = False
            if live_safe:
                c = min(live_safe)
                d.best, d.best_mine_probability = seen.geometry.rowcol(c), 0.0
            else:
                bm = best_move(seen, s.limit, analysis=a)
                d.best, d.best_mine_probability = seen.geometry.rowcol(bm.move.cell), bm.mine_probability
                if bm.move.cell in targets:
                    d.best_mine_probability = d.mine_probability or 0.0
            # the estimate: the chance of surviving this click given up against the engine's pick
            mine, best = d.mine_probability or 0.0, d.best_mine_probability or 0.0
            d.lost = max(0.0, mine - best)
            d.kept = min(1.0, (1.0 - mine) / (1.0 - best)) if best < 1 else 1.0
        if live_safe:
            d.mark = "needless guess"
        elif d.lost >= s.blunder:
            d.mark = "blunder"
        elif d.lost >= s.mistake:
            d.mark = "mistake"
        elif d.lost >= s.inaccuracy:
            d.mark = "inaccuracy"
        else:
            d.mark = "best guess"

    def _endgame(self, seen: Position, a: Analysis) -> tuple[Endgame, int] | None:
        """The exact game-tree search over the layouts left, when there are few enough."""
        s = self.settings
        if a.approximate or a.solutions is None or a.solutions > s.endgame_layouts:
            return None
        layouts = enumerate_layouts(seen, s.endgame_layouts)
        if not layouts:
            return None
        search = Endgame.of(seen, layouts, s.endgame_nodes)
        try:
            search.win((1 << len(layouts)) - 1)
        except TimeoutError:
            return None
        return search, len(layouts)


def review_game(
    record: GameRecord,
    settings: ReviewSettings | None = None,
    times: list[float] | None = None,
    *,
    clicks: int | None = None,
    seconds: float | None = None,
) -> Review:
    """Review every move of ``record``. For a video: ``times``, each move's time in seconds;
    ``clicks``, every click the player made, wasted ones included (else the moves are counted);
    ``seconds``, the game's time as its program timed it (else from the first move to the last).
    Raises :class:`~demine.errors.InputError` when the moves do not fit the layout (a move on an
    opened cell is allowed: it does nothing)."""
    settings = settings or ReviewSettings()
    if times is not None and len(times) != len(record.moves):
        raise InputError(f"{len(times)} times for {len(record.moves)} moves")
    g = record.board.game(record.lives)
    r = _Reviewer(record, settings)
    decisions = []
    for k, move in enumerate(record.moves):
        if g.over:
            raise InputError(f"move {k + 1} comes after the end of the game")
        d = r.decide(k, g, move)
        hits = g.hits
        try:
            g.play(move)
        except DemineError as e:
            raise InputError(f"move {k + 1} ({move.kind} at {d.row},{d.col}) cannot be played: {e}") from None
        # with lives, a mine hit is flagged by the game and play goes on
        d.hit_mine = g.outcome == "lost" or g.hits > hits
        if g.hits > hits:
            r.hit.add(move.cell)
        if times is not None:
            d.time = times[k]
        decisions.append(d)
    solved = _solved_bbbv(g)
    return Review(
        g.width,
        g.height,
        g.mines,
        record.board.rule,
        g.outcome,
        decisions,
        g.bbbv(),
        solved,
        seconds=seconds
        if seconds is not None
        else times[-1] - times[0]
        if times and len(times) > 1
        else None,
        all_clicks=clicks,
        engine_seconds=r.engine_seconds,
    )


def _solved_bbbv(g: Game) -> int:
    """The 3BV the player cleared: all of it in a won game, else what ms-toollib calls solved
    3BV (openings fully opened and numbers outside openings opened)."""
    return g.bbbv() if g.outcome == "won" else g.solved_bbbv()
