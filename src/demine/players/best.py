"""``best`` and ``fast``: the strongest player we have, and a quick one.

``best`` decides, in order:

1. **safe**: every cell the exact engine proves safe is opened (batched: they cannot lose).
2. **endgame**: when few layouts remain (at most ``ENDGAME_LAYOUTS``), the game tree is searched
   exactly, memoised on the set of layouts still consistent, and the move with the highest chance
   of winning is played.
3. **50-50**: a forced 50/50 (two cells holding one mine that no other cell can ever tell apart)
   is taken at once: waiting cannot help, and further guesses before it only add risk. So is a
   *pseudo* 50/50 (:mod:`demine.players.longterm`): a cell that is a mine only in layouts where it
   ends up in such a coin toss anyway (of several, the one whose number tells the most).
4. **sampled endgame**: with more layouts, up to ``SAMPLED_LAYOUTS``, the same search runs over
   a uniform sample of ``ENDGAME_SAMPLE`` of them; its move is not exact, but it gives away less
   than the look-ahead's (measured against the exact search, BENCHMARKS.md).
5. **look-ahead**: among the cells whose safety is close to the best, each candidate is scored by
   the chance to survive it *and* the next guess: for every number it could show, the position
   is re-analysed and the best safety afterwards is taken (1 when a safe cell appears). Candidates
   off the frontier are the ones most likely to open a zero (fewest covered neighbours), and among
   those the farthest from every revealed cell (after (0,0) shows a number on expert, the opposite
   corner (15,29): rollouts found it better than (0,29), and (0,29) better than (15,0)). A dead
   cell (whose number is already certain) is never preferred to a live one of equal score. A
   candidate's own safety is its *long-term* safety: a mine there that would only decide a coin
   toss the game must take anyway counts (nine tenths) as safe. Then the candidates are ranked
   again one reveal deeper (``DEPTH = 3``): by the chance to survive the candidate and the best
   two reveals after each of its numbers (a proven safe cell is such a reveal, free of risk).
6. **safest**: the lowest-probability cell, when the budget allows nothing better.

``fast`` is exact probabilities and the lowest-probability cell, ties broken toward the cell most
likely to open a zero.
"""

from __future__ import annotations

import random
import time
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from operator import itemgetter
from typing import Any, Literal

from demine.analysis import Analysis, Limit, analyze
from demine.analysis.constraints import System, SystemTracker, position_system, system_after
from demine.analysis.enumerate import enumerate_layouts, sample_layouts
from demine.analysis.exact import CountCache, solve_system
from demine.analysis.local import LocalEngine
from demine.analysis.rules import Propagator
from demine.engine.game import Move
from demine.engine.grid import geometry
from demine.engine.position import COVERED, FLAG, HIDDEN_MASK, Position
from demine.errors import InconsistentPosition
from demine.players.base import Decision
from demine.players.longterm import Influence

MoveReason = Literal["safe", "safest", "look-ahead", "endgame", "sampled endgame", "50-50"]
#: A look-ahead candidate's sort key (the highest is played): live first when DEAD_LAST, score,
#: live, lower probability, farther when FAR_OFF, lower cell.
RankKey = tuple[int, Fraction, int, Fraction, int, int]
#: The deeper ranking's winner so far: its cell, its chance to survive three reveals, its depth-2 key
Leader = tuple[int, float, RankKey]
#: One number a candidate could show: its count of layouts, the analysis and the position after.
Outcome = tuple[int, Analysis, Position]

#: The endgame search runs when at most this many layouts remain.
ENDGAME_LAYOUTS = 500
#: Above that and up to this many layouts, the search runs over a uniform sample of them...
SAMPLED_LAYOUTS = 5000
#: ...of this many draws (a layout drawn twice counts once)...
ENDGAME_SAMPLE = 500
#: ...unless the frontier cells have more assignments than this (drawing lists them all).
SAMPLE_ASSIGNMENTS = 20_000
#: Search nodes the endgame may visit before it gives up for this move (a count, not a time, so
#: a game plays the same on any machine).
ENDGAME_NODES = 50_000
#: Look-ahead candidates: frontier cells whose safety is at least this share of the best...
CANDIDATE_SHARE = 0.9
#: ...at most this many of them, plus this many off-frontier cells.
MAX_CANDIDATES = 8
MAX_OFF_CANDIDATES = 2
#: With at most this many covered cells off the frontier, every one of them is a candidate (late in
#: a game they differ in what their numbers can tell; D. N. Hill's solver weighs all below 30).
ALL_OFF_BELOW = 0
#: The default budget of one decision.
DEFAULT_LIMIT = Limit(seconds=2.0)
LOCAL_CELLS = 5000
"""Above this many cells ``fast`` follows the game incrementally (:class:`LocalEngine`): each move
costs what it changed, and components are weighted by the remaining density instead of the exact
global count (a negligible difference on such boards)."""


@dataclass(frozen=True, slots=True)
class BestMove:
    """A recommended move with its estimate and the reason for it."""

    move: Move
    """The move to play."""
    reason: MoveReason
    """``safe``, ``safest``, ``look-ahead``, ``endgame``, ``sampled endgame`` or ``50-50``."""
    mine_probability: float
    """The chance the move hits a mine."""
    win_probability: float | None = None
    """The chance to win from here with this move (exact in the endgame; None otherwise)."""
    survive: float | None = None
    """For a look-ahead guess: the chance to survive it and the next ``reveals - 1`` reveals (a
    reveal of a proven safe cell counting as one), playing the best of the cells weighed."""
    reveals: int | None = None
    """How many reveals ``survive`` covers: 3 with ``DEPTH = 3``, 2 when the look-ahead ranks by
    two (``DEPTH = 2``, or the budget ran out before the deeper ranking). With long-term risk the
    guess's own safety in it is its long-term safety (a mine that only decides a coin toss the
    game must take anyway counts as nearly safe)."""

    @property
    def outlook(self) -> str:
        """What the move's search says of what follows, in words ("" when it says nothing more
        than the risk): the chance to win with best play in the endgame, else after a look-ahead
        the chance to survive the next reveals."""
        if self.win_probability is not None:
            return f"wins {100 * self.win_probability:.1f}% with best play"
        if self.survive is not None:
            return f"{100 * self.survive:.1f}% to survive {self.reveals} reveals from here"
        return ""

    @property
    def estimate(self) -> float:
        """The best estimate of the chance to win from here that this move carries: exact in
        the endgame, else an upper bound (surviving this guess, or this and the next one or two
        reveals)."""
        if self.win_probability is not None:
            return self.win_probability
        if self.survive is not None:
            return self.survive
        return 1.0 - self.mine_probability


@lru_cache(maxsize=8)
def _neighbour_getters(width: int, height: int) -> tuple[Callable[[bytes], Any], ...]:
    """Per cell, a C-level getter of its neighbours' bytes (for counting them fast); a cell with
    fewer than two neighbours gets a slice, so every getter returns something ``sum`` can add."""
    nb = geometry(width, height).neighbours
    out: list[Callable[[bytes], Any]] = []
    for c in range(width * height):
        cells = nb(c)
        if len(cells) >= 2:
            out.append(itemgetter(*cells))
        else:
            out.append(itemgetter(slice(cells[0], cells[0] + 1) if cells else slice(0, 0)))
    return tuple(out)


@lru_cache(maxsize=8)
def _neighbour_counts(width: int, height: int) -> tuple[int, ...]:
    """Per cell, how many neighbours it has (3 in a corner, 5 on an edge, 8 inside)."""
    nb = geometry(width, height).neighbours
    return tuple(len(nb(c)) for c in range(width * height))


def _zero_chance_keys(position: Position) -> Callable[[int], int]:
    """A cell's count of covered or flagged neighbours in ``position``: fewer, more likely to be a
    zero (and open an area). The count for many cells, the board's mask made once."""
    if position.cells > 65536:
        st = position.states
        nb = position.geometry.neighbours
        return lambda c: sum(1 for d in nb(c) if st[d] >= COVERED)
    getters = _neighbour_getters(position.width, position.height)
    hidden = position.states.translate(HIDDEN_MASK)
    return lambda c: sum(getters[c](hidden))


def _distances(position: Position) -> Callable[[int], int]:
    """Each cell's distance (steps in rows and columns) to the nearest revealed cell, negated when
    ``FAR_OFF`` is on (so that sorting puts the farthest first), else 0 for every cell. The search
    runs at the first call."""
    if not FAR_OFF:
        return lambda c: 0
    dist: list[int] = []

    def key(c: int) -> int:
        if not dist:
            dist.extend(_steps_to_revealed(position))
        return -dist[c]

    return key


def _steps_to_revealed(position: Position) -> list[int]:
    """Breadth-first search from all revealed cells at once (-1 where none can be reached)."""
    st = position.states
    w, h = position.width, position.height
    dist = [-1] * position.cells
    todo = [c for c in range(position.cells) if st[c] < COVERED]
    for c in todo:
        dist[c] = 0
    for c in todo:  # the list grows as the search goes
        r, col = divmod(c, w)
        for d, ok in ((c - w, r > 0), (c + w, r < h - 1), (c - 1, col > 0), (c + 1, col < w - 1)):
            if ok and dist[d] < 0:
                dist[d] = dist[c] + 1
                todo.append(d)
    return dist


def _off_frontier(position: Position, cell: int) -> bool:
    st = position.states
    return not any(st[d] < COVERED for d in position.geometry.neighbours(cell))


# ----------------------------------------------------------------------------- 50/50s
def forced_fifty(position: Position, a: Analysis, around: int | None = None) -> int | None:
    """A cell of a forced 50/50, or None.

    Two covered cells ``x``, ``y`` form one when some revealed number has exactly them as its
    unknown neighbours and needs one more mine, every other neighbour of ``x`` and ``y`` is
    revealed or a known mine (no cell left to open can ever show a number that tells them apart),
    and every revealed number next to only one of them has no other unknown neighbour (else its
    other cells could tell them apart when they are settled some other way: a ``1`` touching
    ``y`` and a covered ``z``, not ``x``, makes ``z`` a mine exactly when ``y`` is safe). A number
    next to both sees ``x + y``, which is 1 whichever holds the mine.
    With ``around``, only numbers within three cells of it are looked at (a 50/50 that opening
    ``around`` could have made lies there).
    """
    st = position.states
    geo = position.geometry
    known_mine = a.mines | a.known_mines

    def unknown(d: int) -> bool:
        """Covered and not a known mine, or flagged without being known to be a mine."""
        return (st[d] == COVERED and d not in known_mine) or (st[d] == FLAG and d not in a.known_mines)

    def tells_apart(d: int, pair: tuple[int, int], near_both: set[int]) -> bool:
        """Whether cell ``d``, next to ``pair``, could ever tell its two cells apart."""
        if d in pair:
            return False
        if unknown(d):
            return True  # it may be opened and show a number
        if st[d] >= COVERED or d in near_both:
            return False  # a known mine, or a number that sees x + y: 1 either way
        # a number next to one of them: other unknown cells it sees would tie the pair to them
        return any(e not in pair and unknown(e) for e in geo.neighbours(d))

    if around is None:
        scan: Iterable[int] = range(position.cells)
    else:
        r0, c0 = divmod(around, position.width)
        rows = range(max(0, r0 - 3), min(position.height, r0 + 4))
        cols = range(max(0, c0 - 3), min(position.width, c0 + 4))
        scan = [r * position.width + c for r in rows for c in cols]
    for cell in scan:
        v = st[cell]
        if v >= COVERED:
            continue
        nb = geo.neighbours(cell)
        unknowns = [d for d in nb if st[d] == COVERED and d not in known_mine]
        if len(unknowns) != 2:
            continue
        flagged = sum(1 for d in nb if d in known_mine)
        if v - flagged != 1:
            continue
        x, y = pair = (unknowns[0], unknowns[1])
        near_x, near_y = set(geo.neighbours(x)), set(geo.neighbours(y))
        both = near_x & near_y
        forced = not any(tells_apart(d, pair, both) for d in near_x | near_y)
        if forced and a.probability(x) == Fraction(1, 2):
            return min(x, y)
    return None


# ----------------------------------------------------------------------------- look-ahead
def _near_off(
    position: Position,
    prob: dict[int, Fraction],
    floor: Fraction,
    zero_key: Callable[[int], int],
    taken: list[int],
) -> list[int]:
    """Up to ``NEAR_OFF`` off-frontier cells two steps (in a row or a column) from a revealed
    number: if safe, their own number also tells about the frontier cells between
    (JSMinesweeper's off-edge candidates). Fewest covered neighbours first."""
    st = position.states
    w, h = position.width, position.height
    near: set[int] = set()
    for cell in range(position.cells):
        if st[cell] >= COVERED:
            continue
        r, c = divmod(cell, w)
        for dr, dc in ((2, 0), (-2, 0), (0, 2), (0, -2)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < h and 0 <= cc < w:
                d = rr * w + cc
                if d in prob and st[d] == COVERED and 1 - prob[d] >= floor and _off_frontier(position, d):
                    near.add(d)
    near.difference_update(taken)
    return sorted(near, key=lambda d: (zero_key(d), d))[:NEAR_OFF]


def _outcomes(
    position: Position,
    cell: int,
    limit: Limit,
    system: System | None = None,
    cache: CountCache | None = None,
    deadline: float | None = None,
) -> list[Outcome]:
    """For each number ``cell`` could show: the count of layouts, the analysis afterwards and the
    position (an approximate analysis, past the budget, is kept with its count 1 so callers can
    tell). ``system``, when given, is the position's: each outcome's is derived from it, and its
    components' counts are kept in ``cache`` (one per look-ahead). With ``deadline`` (a
    ``time.perf_counter()`` value), each analysis may use the time left until then instead of
    ``limit.seconds``."""
    st = position.states
    nb = position.geometry.neighbours(cell)
    flags = sum(1 for d in nb if st[d] == FLAG)
    covered = sum(1 for d in nb if st[d] == COVERED)
    out = []
    for v in range(flags, flags + covered + 1):
        after = position.with_state(cell, v)
        budget = limit
        if deadline is not None:
            budget = Limit(seconds=max(0.0, deadline - time.perf_counter()), states=limit.states)
        try:
            if system is None:
                a = analyze(after, limit=budget)
            else:
                a = solve_system(system_after(system, after, cell), budget, explain=False, cache=cache)
        except InconsistentPosition:
            continue
        if a.approximate:
            out.append((1, a, after))
        elif a.solutions:
            out.append((a.solutions, a, after))
    return out


def _best_safety(a: Analysis) -> Fraction:
    """The safety of the best next guess (1 when a safe cell exists); with ``NEXT = "blend"``,
    four fifths of it and one fifth of the second best cell's."""
    if NEXT == "blend":
        return _blended_safety(a)
    if a.safe:
        return Fraction(1)
    return 1 - a.min_probability()


def _blended_safety(a: Analysis) -> Fraction:
    counts: dict[tuple[int, int], int] = {}
    for nd in a._prob.values():
        counts[nd] = counts.get(nd, 0) + 1
    ranked = sorted(counts, key=lambda nd: Fraction(*nd))
    first = ranked[0]
    second = first if counts[first] > 1 or len(ranked) == 1 else ranked[1]
    return 1 - (4 * Fraction(*first) + Fraction(*second)) / 5


def look_ahead(
    position: Position,
    a: Analysis,
    limit: Limit,
    influence: Influence | None = None,
    system: System | None = None,
) -> BestMove | None:
    """Score the candidates by the chance to survive them and the next guess.

    A candidate's score is ``P(safe) * sum over its numbers v of P(v | safe) * S(v)``, where
    ``S(v)`` is the best safety after it shows ``v`` (1 when a safe cell appears). Candidates are
    tried safest first, and one is dropped as soon as even a perfect rest could not beat the
    leader (pruning). With ``DEPTH = 3`` the candidates are ranked again by the chance to survive
    three reveals (:func:`_three_guesses`); only the first cut is made (a candidate whose own
    safety is below the leader's two-guess score), and a candidate so skipped is scored after all
    if it is safer than the deeper ranking's winner's value (its safety bounds its own value).

    With ``influence`` (long-term risk, :mod:`demine.players.longterm`), a candidate's own safety
    is its long-term safety, and cells with long-term credit join the candidates.

    ``limit.seconds`` is the budget of the whole look-ahead, shared by the candidates' analyses:
    a candidate is left out only once it is spent, so the move does not depend on how busy the
    machine is unless the look-ahead needs the whole budget."""
    covered = [c for c in a.unknown if position.states[c] == COVERED]
    if not covered:
        return None
    cache: dict[tuple[int, int], Fraction] = {}

    def prob_of(c: int) -> Fraction:
        nd = a._prob[c]
        f = cache.get(nd)
        if f is None:
            f = cache[nd] = Fraction(*nd)
        return f

    prob = {c: prob_of(c) for c in covered}
    best_p = a.min_probability()
    floor = (1 - best_p) * Fraction(CANDIDATE_SHARE)
    zero_key = _zero_chance_keys(position)
    # the cells safe enough to weigh, on the frontier and off it (integer tests, one per
    # probability: this visits every covered cell)
    fn, fd = floor.numerator, floor.denominator
    passes: dict[tuple[int, int], bool] = {}
    near_ok: list[int] = []
    off_ok: list[int] = []
    # off the frontier: every neighbour covered or flagged (none revealed)
    n_nb = _neighbour_counts(position.width, position.height) if position.cells <= 65536 else None
    for c in covered:
        nd = a._prob[c]
        ok = passes.get(nd)
        if ok is None:
            n, d = nd
            ok = passes[nd] = (d - n) * fd >= fn * d
        if ok:
            is_off = zero_key(c) == n_nb[c] if n_nb is not None else _off_frontier(position, c)
            (off_ok if is_off else near_ok).append(c)
    frontier = sorted(near_ok, key=lambda c: (prob[c], zero_key(c), c))[:MAX_CANDIDATES]
    far = _distances(position)
    off = sorted(off_ok, key=lambda c: (zero_key(c), far(c), c))
    if len(off) > ALL_OFF_BELOW:
        off = off[:MAX_OFF_CANDIDATES]
    if NEAR_OFF:
        off += _near_off(position, prob, floor, zero_key, off)
    chosen = frontier + off
    safety: dict[int, Fraction] = {}
    if influence is not None:
        extra = [c for c in influence.influenced() if c in prob and c not in chosen]
        safety = {c: influence.long_term_safety(c) for c in chosen + extra}
        chosen += [c for c in extra if safety[c] >= floor]
    candidates = sorted(chosen, key=lambda c: (prob[c], zero_key(c), c))
    if len(candidates) == 1:
        c = candidates[0]
        return BestMove(Move("reveal", c), "safest", float(prob[c]))
    # one budget for the whole look-ahead: a candidate is dropped only when the look-ahead has
    # used all of it, not when one analysis is slow (a pause of the process used to drop one)
    deadline = None if limit.seconds is None else time.perf_counter() + limit.seconds
    # the leader's key: (live first when DEAD_LAST, score, live, lower probability, farther when
    # FAR_OFF, lower cell)
    best_key: RankKey | None = None
    best_cell = candidates[0]
    count_cache: CountCache = {}  # the outcomes' component counts, shared by the candidates
    # with DEPTH 3: each candidate's depth-2 key, cell, own safety and outcomes
    deep: list[tuple[RankKey, int, float, list[Outcome]]] = []

    def rank_key(c: int, safe_c: Fraction, outs: tuple[int, Fraction, int, Fraction]) -> RankKey:
        total, weighted, values, progress = outs
        live = 1 if values > 1 else 0
        score = _score(safe_c, weighted / total, progress)
        return (live if DEAD_LAST else 0, score, live, -prob[c], -far(c), -c)

    # with DEPTH 3: the candidates skipped for their safety, and that safety
    waiting: list[tuple[int, Fraction]] = []
    for c in candidates:
        if deadline is not None and time.perf_counter() > deadline:
            break
        safe_c = safety[c] if c in safety else 1 - prob[c]
        # pruning is sound only against a leader that no candidate outranks by being live
        # (and nothing is pruned while RANKING records every candidate)
        beat = (
            None
            if best_key is None or (DEAD_LAST and not best_key[0]) or RANKING is not None
            else best_key[1]
        )
        if beat is not None and _score(safe_c, Fraction(1), Fraction(1)) < beat:
            # even a certain next move could not beat the leader's two-guess score; that bounds
            # its deeper value too, but not the leader's, so with DEPTH 3 it waits for the
            # deeper ranking's winner (below)
            if DEPTH >= 3:
                waiting.append((c, safe_c))
            continue
        if DEPTH >= 3:
            # the two-guess score only bounds the deeper one: no candidate is cut on its outcomes
            beat = None
        kept: list[Outcome] | None = [] if DEPTH >= 3 else None
        outs = _outcomes_pruned(position, c, limit, safe_c, beat, system, count_cache, deadline, kept)
        if outs is None:
            continue
        key = rank_key(c, safe_c, outs)
        if RANKING is not None:
            RANKING.append(Ranked(key, c, float(prob[c]), float(key[1]), c in off, outs[2]))
        if kept is not None:
            deep.append((key, c, float(safe_c), kept))
        if best_key is None or key > best_key:
            best_key = key
            best_cell = c
    if best_key is None:
        return None
    if len(deep) + len(waiting) > 1:
        system = system or position_system(position)
        found = _three_guesses(position, deep, system, count_cache, deadline)
        # a skipped candidate safer than the winner's three-reveal value may still beat it
        # (its own safety bounds its value): it is scored now, safest first, while the budget
        # lasts (when it runs out here, the winner so far is played)
        for c, safe_c in sorted(waiting, key=lambda t: -t[1]):
            if found is None or float(safe_c) < found[1] - TIE:
                break
            kept = []
            outs = _outcomes_pruned(position, c, limit, safe_c, None, system, count_cache, deadline, kept)
            if outs is None:
                break
            entry = (rank_key(c, safe_c, outs), c, float(safe_c), kept)
            later = _three_guesses(position, [entry], system, count_cache, deadline, found)
            if later is None:
                break
            found = later
        if found is not None:
            cell, value, _ = found
            return BestMove(Move("reveal", cell), "look-ahead", float(prob[cell]), survive=value, reveals=3)
    return BestMove(
        Move("reveal", best_cell), "look-ahead", float(prob[best_cell]), survive=float(best_key[1]), reveals=2
    )


@dataclass(frozen=True, slots=True)
class Ranked:
    """One look-ahead candidate as scored (recorded when :data:`RANKING` is a list)."""

    key: RankKey
    """The look-ahead's sort key: the highest is played."""
    cell: int
    probability: float
    """Its chance of a mine."""
    score: float
    """Its two-guess score."""
    off_frontier: bool
    numbers: int
    """How many numbers it could show."""


#: For experiments (``benchmarks/forks.py``): when a list, every look-ahead appends each candidate
#: it scored, and prunes nothing (so every candidate's score is complete). Pruning is sound, so
#: the move played is the same either way (tested).
RANKING: list[Ranked] | None = None

#: How a look-ahead candidate is scored: "two" (survive it and the next guess), "progress"
#: (safety times 1 + PROGRESS_WEIGHT x the chance a safe cell appears), or "both".
SCORE = "two"
PROGRESS_WEIGHT = Fraction(1, 5)


#: Long-term risk: an outcome that leaves a forced 50/50 near the candidate (one no later move can
#: resolve) is worth half, since that coin will have to be tossed.
LONG_TERM = False
#: The worth of an outcome of a look-ahead guess: "best" (the best safety afterwards) or "blend"
#: (four fifths of it and one fifth of the second best, JSMinesweeper's blended safety).
NEXT = "best"
#: Long-term risk from structures that end in a coin toss (:mod:`demine.players.longterm`): a pseudo
#: 50/50 is played at once, and look-ahead candidates are weighed by their long-term safety.
LONG_TERM_RISK = True
#: A dead look-ahead candidate (one whose number is certain if it is safe) is played only when no
#: live candidate is left, whatever its score (JSMinesweeper's order): its guess tells nothing but
#: its own content, which later numbers might still tell for free.
DEAD_LAST = False
#: Look-ahead also weighs this many off-frontier cells two steps from a number (none by default).
NEAR_OFF = 0
#: Among equally promising off-frontier cells, the one farthest from every revealed cell first
#: (steps in rows and columns; off: the first in reading order). Measured in BENCHMARKS.md.
FAR_OFF = True


def _long_term(after: Position, a: Analysis, cell: int) -> Fraction:
    if LONG_TERM and forced_fifty(after, a, around=cell) is not None:
        return Fraction(1, 2)
    return Fraction(1)


def _score(safe_c: Fraction, next_safety: Fraction, progress: Fraction) -> Fraction:
    if SCORE == "progress":
        return safe_c * (1 + PROGRESS_WEIGHT * progress)
    if SCORE == "both":
        return safe_c * next_safety * (1 + PROGRESS_WEIGHT * progress)
    return safe_c * next_safety


def _outcomes_pruned(
    position: Position,
    cell: int,
    limit: Limit,
    safe_c: Fraction,
    beat: Fraction | None,
    system: System | None = None,
    cache: CountCache | None = None,
    deadline: float | None = None,
    kept: list[Outcome] | None = None,
) -> tuple[int, Fraction, int, Fraction] | None:
    """Sum over the numbers ``cell`` can show of (layouts x best safety afterwards).

    Returns (layouts with the cell safe, the weighted sum, how many numbers are possible, the
    chance a safe cell appears), or None when an analysis ran past its budget (``deadline``, see
    :func:`_outcomes`) or the candidate cannot beat ``beat`` any more."""
    found = _outcomes(position, cell, limit, system, cache, deadline)
    if any(o.approximate for _, o, _ in found):
        return None
    if kept is not None:
        kept.extend(found)
    outs = [(n, _best_safety(o) * _long_term(after, o, cell)) for n, o, after in found]
    total = sum(n for n, _ in outs)
    if not total:
        return None
    weighted = sum((n * f for n, f in outs), Fraction(0))
    progress = Fraction(sum(n for n, o, _ in found if o.safe), total)
    if beat is not None and _score(safe_c, weighted / total, progress) < beat:
        return None
    return total, weighted, len(outs), progress


#: How many reveals the look-ahead scores: 2 (a candidate and the best next guess) or 3 (and the
#: best one after that: minesolve's depth 3, the chance to survive three reveals, a free reveal of
#: a proven safe cell counting as one of them). 3 since 2026-11-24 (BENCHMARKS.md: +0.16 point on
#: expert under ``zero`` over 120,000 paired boards, no change under ``safe`` over 80,000).
DEPTH = 3
#: At the inner level of ``DEPTH = 3``: how many frontier cells (safest first) are weighed, besides
#: the off-frontier cell most likely to be a zero.
INNER_CANDIDATES = 6
#: Three-reveal values (floats) closer than this are equal: the depth-2 ranking decides.
TIE = 1e-12


def _survive_one(a: Analysis) -> float:
    """The chance to survive one more reveal: 1 with a proven safe cell or nothing left to open
    (every covered cell a mine: the game is won), else the best safety."""
    if a.safe:
        return 1.0
    p = a.min_probability()
    return 1.0 if p == 1 else 1.0 - float(p)


def _survive_two(
    position: Position, a: Analysis, system: System, cache: CountCache, deadline: float | None
) -> float | None:
    """The chance to survive the next two reveals of ``position`` (analysis ``a``, system
    ``system``), playing the best of a few candidates: with two proven safe cells 1; with one, it
    is opened and the best safety after its number follows; else the best two-guess score among
    the safest frontier cells and the off-frontier cell most likely to be a zero. None when the
    budget (``deadline``) ran out."""
    if len(a.safe) >= 2:
        return 1.0
    if a.safe:
        (s,) = a.safe
        worth = _reveal_worth(position, s, system, cache, deadline)
        if worth is None:
            return None
        total, weighted = worth
        return weighted / total if total else 1.0
    st = position.states
    zero_key = _zero_chance_keys(position)
    n_nb = _neighbour_counts(position.width, position.height)
    front: list[tuple[tuple[int, int], int, int]] = []
    off: tuple[int, int] | None = None
    off_p: tuple[int, int] | None = None
    for c, nd in a._prob.items():
        if nd[0] == nd[1] or st[c] != COVERED:
            continue
        z = zero_key(c)
        if z == n_nb[c]:
            if off is None or (z, c) < off:
                off, off_p = (z, c), nd
        else:
            front.append((nd, z, c))
    if not front and off is None:
        return 1.0  # every covered cell is a mine: won
    front.sort(key=lambda t: (Fraction(*t[0]), t[1], t[2]))
    cands = [(1.0 - t[0][0] / t[0][1], t[2]) for t in front[:INNER_CANDIDATES]]
    if off is not None and off_p is not None:
        cands.append((1.0 - off_p[0] / off_p[1], off[1]))
    cands.sort(key=lambda t: -t[0])
    best = 0.0
    for safety, c in cands:
        if safety <= best:
            break  # even a certain next reveal could not beat it
        worth = _reveal_worth(position, c, system, cache, deadline)
        if worth is None:
            return None
        total, weighted = worth
        if total:
            best = max(best, safety * weighted / total)
    return best


def _reveal_worth(
    position: Position, cell: int, system: System, cache: CountCache, deadline: float | None
) -> tuple[float, float] | None:
    """Over the numbers ``cell`` can show: the layouts with it safe, and their sum of the chance
    to survive one more reveal afterwards (both scaled by :func:`_scaled`). None when the budget
    (``deadline``) ran out."""
    outs = _outcomes(position, cell, Limit(), system, cache, deadline)
    if any(o.approximate for _, o, _ in outs):
        return None
    weights, total = _scaled([n for n, _, _ in outs])
    return total, sum(w * _survive_one(o) for w, (_, o, _) in zip(weights, outs, strict=True))


#: Layout counts of at most this many bits are used as floats as they are.
_FLOAT_BITS = 1000


def _scaled(counts: list[int]) -> tuple[list[float], float]:
    """Layout counts and their sum as floats for weighing, all divided by the same power of two
    when the sum would not fit in a float (a count of layouts can have thousands of digits on a
    big board). Scaling by a power of two keeps every ratio of the weights, so the chances
    computed from them are the same; counts that fit are converted as they are (the floats that
    ``n * x`` and ``x / n`` would use)."""
    total = sum(counts)
    shift = total.bit_length() - _FLOAT_BITS
    if shift <= 0:
        return [float(n) for n in counts], float(total)
    scale = 1 << shift
    return [n / scale for n in counts], total / scale


def _three_guesses(
    position: Position,
    deep: list[tuple[RankKey, int, float, list[Outcome]]],
    system: System,
    cache: CountCache,
    deadline: float | None,
    leader: Leader | None = None,
) -> Leader | None:
    """The candidate with the best chance to survive three reveals (itself, then the best two),
    that chance and its depth-2 key; None when the budget ran out. ``deep`` holds each
    candidate's depth-2 key, cell, own safety and outcomes; ``leader`` is one found before, which
    a candidate of ``deep`` must beat. Values equal to within ``TIE`` are ties, won by the higher
    depth-2 key. The two-guess score bounds the three-guess one, so candidates go in depth-2 order
    and stop once none can beat the leader."""
    deep = sorted(deep, key=lambda t: t[0], reverse=True)
    best = leader
    for key, cell, safe_c, found in deep:
        best_v = -1.0 if best is None else best[1] - TIE
        if float(key[1]) < best_v:
            break
        if not any(n for n, _, _ in found):
            continue
        # outcomes with the most layouts first; the rest's two-guess worth bounds what is left
        found = sorted(found, key=lambda t: -t[0])
        weights, total = _scaled([n for n, _, _ in found])
        rest = sum(w * _survive_one(o) for w, (_, o, _) in zip(weights, found, strict=True))
        acc = 0.0
        pruned = False
        for n, (_, o, after) in zip(weights, found, strict=True):
            rest -= n * _survive_one(o)
            try:
                sys2 = system_after(system, after, cell)
            except InconsistentPosition:
                continue
            v2 = _survive_two(after, o, sys2, cache, deadline)
            if v2 is None:
                return None
            acc += n * v2
            if safe_c * (acc + rest) / total < best_v:
                pruned = True
                break
        if pruned:
            continue
        v = safe_c * acc / total
        if best is None or v > best[1] + TIE or (v >= best[1] - TIE and key > best[2]):
            best = (cell, v, key)
    return best


# ----------------------------------------------------------------------------- endgame
class _Endgame:
    """Exact game-tree search over a small set of layouts.

    A set of layouts still consistent is a bitset (bit ``i``: layout ``i``); for each covered
    cell, one bitset per thing it can show (-1 for a mine) splits any set at once. A move's value
    is at most its chance to be safe, so moves are tried safest first and the search stops as
    soon as none left can beat the best found."""

    def __init__(self, observations: dict[int, list[int]]) -> None:
        """``observations``: per covered cell, what it shows in each layout (-1 for a mine)."""
        self.cells = list(observations)
        self.size = len(next(iter(observations.values()), []))
        # per covered cell: {what it shows: bitset of the layouts where it shows that}
        self.shows: dict[int, dict[int, int]] = {}
        for c, row in observations.items():
            masks: dict[int, int] = {}
            for i, v in enumerate(row):
                masks[v] = masks.get(v, 0) | (1 << i)
            self.shows[c] = masks
        self.mine = {c: m.get(-1, 0) for c, m in self.shows.items()}
        self.memo: dict[int, float] = {}
        self.nodes = 0

    @classmethod
    def of(cls, position: Position, layouts: list[frozenset[int]]) -> _Endgame:
        """The search over ``layouts`` of ``position`` (flags count as mines)."""
        st = position.states
        geo = position.geometry
        flagged = {c for c in range(position.cells) if st[c] == FLAG}
        obs = {}
        for c in range(position.cells):
            if st[c] == COVERED:
                nb = geo.neighbours(c)
                obs[c] = [
                    -1 if c in lay else sum(1 for d in nb if d in lay or d in flagged) for lay in layouts
                ]
        return cls(obs)

    def _value(self, c: int, S: int, n: int) -> float:
        """The chance to win by opening ``c`` when the layouts ``S`` (``n`` of them) remain."""
        total = 0.0
        for v, m in self.shows[c].items():
            if v == -1:
                continue
            part = S & m
            if part:
                total += part.bit_count() * self.win(part)
        return total / n

    def win(self, S: int) -> float:
        """The best chance to win when the layouts in bitset ``S`` remain."""
        n = S.bit_count()
        if n == 1:
            return 1.0
        got = self.memo.get(S)
        if got is not None:
            return got
        self.nodes += 1
        if self.nodes > ENDGAME_NODES:
            raise TimeoutError
        best = self._free_information(S)
        if best is None:
            best = 0.0
            ranked = []
            for c in self.cells:
                safe = (S & ~self.mine[c]).bit_count()
                if safe == n and sum(1 for m in self.shows[c].values() if S & m) == 1:
                    continue  # safe everywhere with the same number: no information
                if safe:
                    ranked.append((safe, c))
            ranked.sort(reverse=True)
            for safe, c in ranked:
                if safe <= best * n:
                    break  # even a certain win after it could not beat the best
                value = self._value(c, S, n)
                if value > best:
                    best = value
        self.memo[S] = best
        return best

    def _free_information(self, S: int) -> float | None:
        """Open every cell safe in all layouts of S at once; the value if that splits S."""
        groups = [S]
        informative = False
        for c in self.cells:
            if S & self.mine[c]:
                continue
            parts = [S & m for m in self.shows[c].values() if S & m]
            if len(parts) == 1:
                continue
            informative = True
            groups = [g & p for g in groups for p in parts if g & p]
        if not informative:
            return None
        n = S.bit_count()
        return sum(g.bit_count() * self.win(g) for g in groups) / n

    def best_move(self) -> tuple[int, float] | None:
        """The cell with the highest chance to win; on equal chances a live cell (one whose
        number is not yet certain), then the lower chance of a mine, then row-major order."""
        n = self.size
        S = (1 << n) - 1
        best: tuple[float, int, int, int] | None = None  # value, live, -mines, cell
        for c in self.cells:
            mines = self.mine[c].bit_count()
            if mines == n:
                continue
            value = self._value(c, S, n)
            live = 1 if len(self.shows[c]) - (1 if mines else 0) > 1 else 0
            if (
                best is None
                or value > best[0] + 1e-12
                or (value > best[0] - 1e-12 and (live, -mines) > (best[1], best[2]))
            ):
                best = (value, live, -mines, c)
        return None if best is None else (best[3], best[0])


def search_kind(layouts: int | None) -> str | None:
    """Which endgame search takes a position with this many layouts: ``"exact"`` (2 to
    ``ENDGAME_LAYOUTS``), ``"sampled"`` (up to ``SAMPLED_LAYOUTS``) or neither (None)."""
    if layouts is None or layouts < 2:
        return None
    if layouts <= ENDGAME_LAYOUTS:
        return "exact"
    return "sampled" if layouts <= SAMPLED_LAYOUTS else None


def endgame(position: Position, a: Analysis) -> BestMove | None:
    """The exact best move when few layouts remain (None when there are too many or the search
    runs past its budget)."""
    if search_kind(a.solutions) != "exact":
        return None
    return _search(position, a, enumerate_layouts(position, ENDGAME_LAYOUTS), sampled=False)


def sampled_endgame(position: Position, a: Analysis) -> BestMove | None:
    """With more layouts than the exact search takes, up to ``SAMPLED_LAYOUTS``: the best move
    over a uniform sample of them (drawn with a generator seeded by the position, so a position
    always gets the same move). None outside that range, with too many frontier assignments to
    draw from, or when the search runs past its budget."""
    if search_kind(a.solutions) != "sampled":
        return None
    rng = random.Random(zlib.crc32(position.states))
    drawn = sample_layouts(position, ENDGAME_SAMPLE, rng, SAMPLE_ASSIGNMENTS)
    # the search needs distinct layouts (identical ones could never be told apart)
    return _search(position, a, list(dict.fromkeys(drawn)) if drawn else None, sampled=True)


def _search(
    position: Position, a: Analysis, layouts: list[frozenset[int]] | None, sampled: bool
) -> BestMove | None:
    if not layouts:
        return None
    try:
        found = _Endgame.of(position, layouts).best_move()
    except TimeoutError:
        return None
    if found is None:
        return None
    cell, win = found
    if sampled:
        return BestMove(Move("reveal", cell), "sampled endgame", a.p(cell))
    return BestMove(Move("reveal", cell), "endgame", a.p(cell), win_probability=win)


def _most_telling(
    position: Position, cells: list[int], limit: Limit, system: System, deadline: float | None
) -> int:
    """Of ``cells`` (pseudo 50/50 cells, each costing only a coin toss the game must take anyway),
    the one whose number, when it is safe, leaves the safest next guess on average: the
    look-ahead's measure of a candidate's outcomes, its own safety left out (the first in order
    among equals; a cell whose analyses run past ``deadline`` is left out, as in the look-ahead).
    With ``PSEUDO_CHOICE`` off, or a single cell, the first."""
    if not PSEUDO_CHOICE or len(cells) == 1:
        return cells[0]
    cache: CountCache = {}
    best_cell, best_value = cells[0], Fraction(-1)
    for c in cells:
        outs = _outcomes_pruned(position, c, limit, Fraction(1), None, system, cache, deadline)
        if outs is None:
            continue
        total, weighted, _, _ = outs
        value = weighted / total
        if value > best_value:
            best_cell, best_value = c, value
    return best_cell


#: Choose among several pseudo 50/50 cells by what their numbers tell (else the first found).
PSEUDO_CHOICE = True


# ----------------------------------------------------------------------------- the API
def best_move(
    position: Position,
    limit: Limit | None = None,
    analysis: Analysis | None = None,
    system: System | None = None,
) -> BestMove:
    """The move ``best`` would play in ``position``, with its reason and estimates (``analysis``
    and ``system``, when given, are the position's: they are not computed again).

    Raises :class:`~demine.errors.InconsistentPosition` for an impossible position and
    ``IllegalMove`` when no covered cell is left.
    """
    from demine.errors import IllegalMove

    limit = limit or DEFAULT_LIMIT
    t0 = time.perf_counter()
    a = analysis or analyze(position, limit=limit)
    covered = [c for c in a.unknown if position.states[c] == COVERED]
    if not covered:
        raise IllegalMove("no covered cell left to open")
    if a.safe:
        c = min(a.safe)
        return BestMove(Move("reveal", c), "safe", 0.0, win_probability=None)
    if not a.approximate:
        found = endgame(position, a)
        if found is not None:
            return found
        c50 = forced_fifty(position, a)
        if c50 is not None:
            return BestMove(Move("reveal", c50), "50-50", 0.5)
        influence = None
        system = system or position_system(position)
        if LONG_TERM_RISK and a.solutions is not None:
            influence = Influence(position, a, system)
            pseudos = influence.pseudos()
            if pseudos:
                deadline = None if limit.seconds is None else t0 + limit.seconds
                pseudo = _most_telling(position, pseudos, limit, system, deadline)
                return BestMove(Move("reveal", pseudo), "50-50", a.p(pseudo))
        found = sampled_endgame(position, a)
        if found is not None:
            return found
        left = None if limit.seconds is None else max(0.05, limit.seconds - (time.perf_counter() - t0))
        la = look_ahead(position, a, Limit(seconds=left, states=limit.states), influence, system)
        if la is not None:
            return la
    return safest_move(position, a, far_ties=True)


class Follower:
    """What a player keeps between the positions of one game: a :class:`LocalEngine` for the
    number rule (work in proportion to what changed) and a :class:`SystemTracker` for the full
    count's constraint system. A position that does not follow the last one starts them over."""

    def __init__(self) -> None:
        self.tracker = SystemTracker()
        self.local: LocalEngine | None = None

    def engine(self, position: Position) -> LocalEngine:
        """The engine, up to date with ``position`` (raises InconsistentPosition if it is)."""
        eng = self.local
        shape = (position.width, position.height, position.mines)
        if eng is not None and (eng.width, eng.height, eng.total) == shape:
            try:
                eng.update(position)
                return eng
            except InconsistentPosition:
                pass  # not a later position of the same game
        self.local = None
        eng = LocalEngine(*shape)
        eng.update(position)
        self.local = eng
        return eng


def _proven(safe: Iterable[int], mines: Iterable[int]) -> Decision:
    """Open the proven safe cells and flag the proven mines, each in cell order."""
    reveal = sorted(safe)
    flag = sorted(mines)
    moves = [Move("reveal", c) for c in reveal] + [Move("flag", c) for c in flag]
    return Decision(moves, reason="safe", mine_probability=0.0, forced=len(reveal) + len(flag))


def _quick_safe(position: Position, follower: Follower) -> Decision | None:
    """Open what single numbers prove safe, without the full count, and flag the mines they
    prove (the player's own flags are proven, so trusting them is sound; they keep the numbers
    around them out of later work). The number rule to a fixed point, kept up to date move by
    move by the follower's :class:`LocalEngine`. Revealing provably safe cells in any batches leads
    to the same guess points, so this changes speed, never a game's outcome."""
    try:
        eng = follower.engine(position)
    except InconsistentPosition:
        return None  # let the full analysis report it
    if not eng.safe:
        return None
    st = position.states
    return _proven(eng.safe, (c for c in eng.mines if st[c] == COVERED))


#: Before the full count, try the pair rule (two numbers together) on the constraint system: it
#: proves most of what the count would, at a fraction of the cost. Speed only (see _quick_safe).
PAIR_FIRST = True


def _pair_safe(system: System) -> Decision | None:
    """What the number and pair rules prove on ``system``: its safe cells opened and its mines
    flagged, or None when they prove no safe cell (or find the position impossible: the full
    analysis then says why)."""
    prop = Propagator(system.constraints, system.describe, system.flag_note)
    try:
        prop.run_all()
    except InconsistentPosition:
        return None
    decided = prop.decided
    if all(decided.values()):
        return None  # no safe cell proven
    return _proven((c for c, v in decided.items() if not v), (c for c, v in decided.items() if v))


def _flags_for(a: Analysis) -> list[Move]:
    """Flag moves for the proven mines (after the decision's reveal)."""
    return [Move("flag", c) for c in sorted(a.mines)]


def _decide(
    position: Position,
    limit: Limit,
    guess: Callable[[Analysis, System | None], BestMove],
    follower: Follower,
) -> Decision:
    """The shared turn of ``best`` and ``fast``: what single numbers prove, else the full
    analysis's safe cells, else ``guess``; proven mines are flagged along the way."""
    quick = _quick_safe(position, follower)
    if quick is not None:
        return quick
    try:
        system: System | None = follower.tracker.system(position)
    except InconsistentPosition:
        system = None  # the full analysis reports it
    if PAIR_FIRST and system is not None:
        pair = _pair_safe(system)
        if pair is not None:
            return pair
    a = analyze(position, limit=limit) if system is None else solve_system(system, limit)
    if a.safe:
        return _proven(a.safe, a.mines)
    bm = guess(a, system)
    return Decision(
        [bm.move, *_flags_for(a)],
        guess=True,
        reason=bm.reason,
        mine_probability=bm.mine_probability,
        forced=len(a.mines),
    )


def safest_move(position: Position, a: Analysis, far_ties: bool = False) -> BestMove:
    """The lowest-probability covered cell, ties toward the cell most likely to be a zero, then
    (with ``far_ties`` and ``FAR_OFF``: ``best``) toward the farthest from every revealed cell."""
    st = position.states
    tied = [c for c in a.safest() if st[c] == COVERED] or [c for c in a.unknown if st[c] == COVERED]
    zero_key = _zero_chance_keys(position)
    keys = {c: zero_key(c) for c in tied}
    least = min(keys.values())
    tied = [c for c in tied if keys[c] == least]
    if far_ties and len(tied) > 1:  # the distances only when they decide something
        far = _distances(position)
        c = min(tied, key=lambda c: (far(c), c))
    else:
        c = min(tied)
    return BestMove(Move("reveal", c), "safest", a.p(c))


class BestPlayer:
    """The strongest player: exact deduction, endgame search, 50/50s, look-ahead guesses."""

    name = "best"

    def __init__(self, limit: Limit = DEFAULT_LIMIT) -> None:
        self.limit = limit
        self.follower = Follower()

    def decide(self, position: Position, rng: random.Random) -> Decision:
        """Open every safe cell, or play :func:`best_move`."""
        return _decide(
            position, self.limit, lambda a, system: best_move(position, self.limit, a, system), self.follower
        )


class FastPlayer:
    """Exact probabilities, the lowest-probability cell, ties toward likely zeros."""

    name = "fast"

    def __init__(self) -> None:
        self.follower = Follower()

    def decide(self, position: Position, rng: random.Random) -> Decision:
        """Open every safe cell, or the safest cell most likely to be a zero. Boards of more than
        :data:`LOCAL_CELLS` cells are followed incrementally (:func:`local_decide`)."""
        if position.cells > LOCAL_CELLS:
            return self._local_decide(position)
        return _decide(position, DEFAULT_LIMIT, lambda a, _: safest_move(position, a), self.follower)

    def _local_decide(self, position: Position) -> Decision:
        return local_decide(self.follower.engine(position))


def local_decide(eng: LocalEngine) -> Decision:
    """``fast`` on a huge board: every proven safe cell; else recount the changed components and
    open what they prove; else the lowest chance of a mine among the frontier and an off-frontier
    cell (one away from every number when there is one)."""
    if not eng.safe:
        eng.count()
    if eng.safe:
        return _proven(eng.safe, ())
    front = eng.safest()
    off, p_off = eng.off_frontier()
    if front is not None and (off is None or front[1] <= p_off):
        return Decision([Move("reveal", front[0])], guess=True, reason="safest", mine_probability=front[1])
    if off is None:
        raise InconsistentPosition("no covered cell is left that could be safe", ())
    return Decision([Move("reveal", off)], guess=True, reason="safest", mine_probability=p_off)
