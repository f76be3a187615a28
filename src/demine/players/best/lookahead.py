"""The look-ahead: when no cell is safe and the endgame is out of reach, each candidate guess is
scored by the chance to survive it and the best next reveals (two or three in all).

The candidates are the frontier cells whose safety is close to the best and the off-frontier cells
most likely to open a zero (the farthest from what is revealed first); with long-term risk, the
cells with long-term credit too, each weighed by its long-term safety.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cmp_to_key
from operator import itemgetter

from demine.analysis import Analysis, Limit, analyze
from demine.analysis.constraints import System, position_system, system_after
from demine.analysis.exact import CountCache, solve_system
from demine.analysis.incremental import Frame
from demine.analysis.order import OverBudget
from demine.analysis.result import Pace, Ratio
from demine.analysis.totals import quotient
from demine.engine.game import Move
from demine.engine.position import COVERED, FLAG, Position
from demine.errors import InconsistentPosition
from demine.players.best.moves import (
    BestMove,
    distances,
    frontier_split,
    neighbour_counts,
    off_candidates,
    safe_enough,
    touches_revealed,
    zero_chance_keys,
)
from demine.players.best.settings import DEFAULT_SETTINGS, NO_HOOKS, BestSettings, Hooks
from demine.players.best.survive import (
    SLACK,
    STOP_MARGIN,
    TIE,
    Chances,
    Rank,
    Stop,
    _compare,
    _safest,
    by_chance,
    by_first_rank,
    by_second_ratio,
    chance_floats,
    dropper,
    make_stop,
    rank_cmp,
    rank_of,
    scaled,
    survivals,
    survive_one,
)
from demine.players.longterm import Influence

#: A look-ahead candidate's sort key as :class:`Ranked` shows it (the highest is played): its
#: two-guess score, live, lower probability, farther (with ``far_off``), lower cell. The search
#: ranks with the same order in integers (:data:`~demine.players.best.survive.Rank`).
RankKey = tuple[Fraction, int, Fraction, int, int]
#: The deeper ranking's winner so far: its cell, its chance to survive three reveals, its depth-2 rank
Leader = tuple[int, float, Rank]
#: One number a candidate could show: its count of layouts, the safety of the best next guess
#: (exact: a Fraction's two terms), the chance to survive one more reveal (:func:`survive_one`),
#: the analysis and the position after (its :class:`~demine.analysis.incremental.Frame` when the
#: outcome was derived from one: its analysis is then None, made from it only when needed).
Outcome = tuple[int, Ratio, float, Analysis | None, Position | Frame]


def _outcomes(
    position: Position,
    cell: int,
    limit: Limit,
    system: System | Frame | None = None,
    cache: CountCache | None = None,
    deadline: float | None = None,
) -> list[Outcome] | None:
    """For each number ``cell`` could show: the count of layouts, the analysis afterwards and the
    position. Without ``system`` an approximate analysis, past the budget, is kept with its count
    1 so callers can tell; with it, an outcome past the budget ends the call with None (callers
    drop such a candidate anyway, so no approximation is made for nothing). None too once less
    time is left before ``deadline`` than ``SLACK`` times the slowest outcome so far (no analysis
    is started that would run past it). ``system``, when given, is the position's: each
    outcome's is derived from it, and its components' counts are kept in ``cache`` (one per
    look-ahead). With ``deadline`` (a ``time.perf_counter()`` value), each analysis may use the
    time left until then instead of ``limit.seconds``. ``system`` may be the position's
    :class:`~demine.analysis.incremental.Frame` instead: each outcome is then derived from it
    (the same analysis, its untouched components not rebuilt) and carries its own frame."""
    st = position.states
    nb = position.geometry.neighbours(cell)
    flags = sum(1 for d in nb if st[d] == FLAG)
    covered = sum(1 for d in nb if st[d] == COVERED)
    out: list[Outcome] = []
    pace = Pace(deadline, SLACK)
    for v in range(flags, flags + covered + 1):
        after = position.with_state(cell, v)
        budget = limit
        if not pace.fits():
            return None
        if deadline is not None:
            budget = Limit(seconds=deadline - pace.started, states=limit.states)
        try:
            found = _outcome(after, cell, budget, system, cache, deadline)
        except OverBudget:  # (the callers drop a candidate with an approximate outcome anyway)
            return None
        pace.done()
        if found is not None:
            out.append(found)
    return out


def _outcome(
    after: Position,
    cell: int,
    budget: Limit,
    system: System | Frame | None,
    cache: CountCache | None,
    deadline: float | None,
) -> Outcome | None:
    """:func:`_outcomes`'s one number (``after``), or None when impossible or without a layout;
    the best next safety is 1 when a safe cell exists. (Compiled: no ``continue`` in a ``try``.)"""
    try:
        if isinstance(system, Frame):
            frame = system.after_if(after, cell, deadline)
            if frame is None or not frame.possible(deadline):  # (no exception for most such numbers)
                return None
            z, n, d = frame.lowest(deadline)  # (z > 0: no layout left raises)
            g = d if n == 0 else math.gcd(d - n, d)  # (Fraction(d - n, d)'s terms)
            return (z, ((d - n) // g, d // g), 1.0 if n == 0 or n == d else 1.0 - n / d, None, frame)
        if system is None:
            a = analyze(after, limit=budget)
        else:
            sys_after = system_after(system, after, cell)
            a = solve_system(sys_after, budget, explain=False, cache=cache, approximate=False)
    except InconsistentPosition:
        return None
    if a.approximate:
        return (1, (0, 1), 0.0, a, after)
    if a.solutions:
        low = a.min_probability()  # (1 - low in lowest terms: its denominator is low's)
        safety = (1, 1) if a.safe else (low.denominator - low.numerator, low.denominator)
        return (a.solutions, safety, survive_one(a), a, after)
    return None


def look_ahead(
    position: Position,
    a: Analysis,
    limit: Limit,
    influence: Influence | None = None,
    system: System | None = None,
    settings: BestSettings = DEFAULT_SETTINGS,
    hooks: Hooks = NO_HOOKS,
    counts: CountCache | None = None,
) -> BestMove | None:
    """Score the candidates by the chance to survive them and the next guess.

    A candidate's score is ``P(safe) * sum over its numbers v of P(v | safe) * S(v)``, where
    ``S(v)`` is the best safety after it shows ``v`` (1 when a safe cell appears). Candidates are
    tried safest first, and one is dropped as soon as even a perfect rest could not beat the
    leader (pruning). With ``depth=3`` the candidates are ranked again by the chance to survive
    three reveals (:func:`_three_guesses`); only the first cut is made (a candidate whose own
    safety is below the leader's two-guess score), and a candidate so skipped is scored after all
    if it is safer than the deeper ranking's winner's value (its safety bounds its own value).

    With ``influence`` (long-term risk, :mod:`demine.players.longterm`), a candidate's own safety
    is its long-term safety, and cells with long-term credit join the candidates.

    ``limit.seconds`` is the budget of the whole look-ahead, shared by the candidates' analyses:
    a candidate is left out only once it is spent, so the move does not depend on how busy the
    machine is unless the look-ahead needs the whole budget.

    ``counts``: components' counts made already (by ``a``'s count, with ``limit.states``), which
    the look-ahead's counts join (the same counts: speed only)."""
    # one budget for the whole look-ahead, from its first step (choosing the candidates visits
    # every covered cell: on a 100x100 board that is a good part of a 0.05 s budget)
    deadline = None if limit.seconds is None else time.perf_counter() + limit.seconds
    ratios = a.ratios
    depth3 = settings.depth >= 3
    zero_key = zero_chance_keys(position)
    far = distances(position, settings.far_off)
    picked = _chosen(position, a, settings, influence, zero_key, far)
    if picked is None:
        return None
    chosen, off, safety = picked
    # each one's chance of a mine as (numerator, denominator), compared in integers, and as a float
    prob: dict[int, Ratio] = {c: ratios[c] for c in chosen}
    p_of = {c: quotient(prob[c][0], prob[c][1]) for c in chosen}
    # (safest, then most likely a zero, then the lowest cell; compiled, a closure is a cycle)
    order = sorted([(prob[c][0], prob[c][1], zero_key(c), c) for c in chosen], key=cmp_to_key(by_chance))
    candidates = [t[3] for t in order]
    if len(candidates) == 1:
        c = candidates[0]
        return BestMove(Move("reveal", c), "safest", p_of[c])
    # a candidate is dropped only when the look-ahead has used all of its budget, not when one
    # analysis is slow (a pause of the process used to drop one)
    # the leader's key: (score, live, lower probability, farther when far_off, lower cell)
    best_key: Rank | None = None
    best_cell = candidates[0]
    # the outcomes' component counts, shared by the candidates
    count_cache: CountCache = {} if counts is None else counts
    # the outcomes are derived from the position's frame: only the components a number touches
    # are rebuilt and counted again (the same analyses)
    base: System | Frame | None = system
    if system is not None and system.mines_left is not None:
        try:
            base = Frame.root(system, position, count_cache, limit, deadline)
        except (OverBudget, InconsistentPosition):
            base = system
    # with depth 3: each candidate's depth-2 key, cell, own safety and outcomes
    deep: list[tuple[Rank, int, float, list[Outcome]]] = []
    # with depth 3: the candidates skipped for their safety, and that safety
    waiting: list[tuple[int, Ratio]] = []
    pace = Pace(deadline, SLACK)  # a candidate is started only if the slowest one so far fits
    for c in candidates:
        if not pace.fits():
            break
        safe_c = safety[c] if c in safety else (prob[c][1] - prob[c][0], prob[c][1])
        # (nothing is pruned while a hook records every candidate)
        beat = None if best_key is None or hooks.on_ranked is not None else (best_key[0], best_key[1])
        if beat is not None and _compare(safe_c, beat) < 0:
            # even a certain next move could not beat the leader's two-guess score; that bounds
            # its deeper value too, but not the leader's, so with depth 3 it waits for the
            # deeper ranking's winner (below)
            if depth3:
                waiting.append((c, safe_c))
            continue
        if depth3:
            # the two-guess score only bounds the deeper one: no candidate is cut on its outcomes
            beat = None
        kept: list[Outcome] | None = [] if depth3 else None
        outs = _outcomes_pruned(position, c, limit, safe_c, beat, base, count_cache, deadline, kept)
        pace.done()
        if outs is None:
            continue
        key = rank_of(safe_c, outs[1], outs[0], outs[2], prob[c], far(c), c)
        if hooks.on_ranked is not None:
            score = quotient(key[0], key[1])
            hooks.on_ranked(Ranked(_shown(key), c, p_of[c], score, c in off, outs[2]))
        if kept is not None:
            deep.append((key, c, quotient(safe_c[0], safe_c[1]), kept))
        if best_key is None or rank_cmp(key, best_key) > 0:
            best_key = key
            best_cell = c
    if best_key is None:
        return None
    if len(deep) + len(waiting) > 1:
        system = system or position_system(position)
        inner = settings.inner_candidates
        # its first step is started only if the time left covers the slowest candidate so far
        found = _three_guesses(position, deep, system, count_cache, deadline, inner, estimate=pace.slowest)
        # a skipped candidate safer than the winner's three-reveal value may still beat it
        # (its own safety bounds its value): it is scored now, safest first, while the budget
        # lasts (when it runs out here, the winner so far is played)
        for c, safe_c in sorted(waiting, key=cmp_to_key(by_second_ratio), reverse=True):
            if found is None or quotient(safe_c[0], safe_c[1]) < found[1] - TIE:
                break
            kept = []
            outs = _outcomes_pruned(position, c, limit, safe_c, None, base, count_cache, deadline, kept)
            if outs is None:
                break
            key = rank_of(safe_c, outs[1], outs[0], outs[2], prob[c], far(c), c)
            entry = (key, c, quotient(safe_c[0], safe_c[1]), kept)
            later = _three_guesses(
                position, [entry], system, count_cache, deadline, inner, found, pace.slowest
            )
            if later is None:
                break
            found = later
        if found is not None:
            cell, value, _ = found
            return BestMove(Move("reveal", cell), "look-ahead", p_of[cell], survive=value, reveals=3)
    value = quotient(best_key[0], best_key[1])
    return BestMove(Move("reveal", best_cell), "look-ahead", p_of[best_cell], survive=value, reveals=2)


def _chosen(
    position: Position,
    a: Analysis,
    settings: BestSettings,
    influence: Influence | None,
    zero_key: Callable[[int], int],
    far: Callable[[int], int],
) -> tuple[list[int], list[int], dict[int, Ratio]] | None:
    """:func:`look_ahead`'s candidates, or None when no covered cell is left: the safest frontier
    cells, the off-frontier ones most likely to open and (with ``influence``) the cells with
    long-term credit; then the off-frontier ones among them, and each one's long-term safety.
    (Its lists of cells are gone before the search starts.)"""
    st = position.states
    if not any(st[c] == COVERED for c in a.unknown):
        return None
    ratios = a.ratios

    best_p = a.min_probability()
    floor = (1 - best_p) * Fraction(settings.candidate_share)
    # the cells safe enough to weigh (this visits every covered cell: compiled), then on the
    # frontier or off it
    ok_cells = safe_enough(position, a.unknown, ratios, (floor.numerator, floor.denominator))
    near_ok, off_ok = frontier_split(position, ok_cells)
    # the safest, then the most likely zero, then the lowest cell (compiled, without a Fraction
    # per cell)
    chances = [(ratios[c], c) for c in near_ok]
    frontier = [c for _, _, c in _safest(chances, zero_key, settings.max_candidates)]
    if position.cells <= 65536:
        off = off_candidates(position, off_ok, settings.max_off_candidates, settings.far_off)
    else:
        keyed = [(zero_key(c), far(c), c) for c in off_ok]
        off = [c for _, _, c in heapq.nsmallest(settings.max_off_candidates, keyed)]
    chosen = frontier + off
    safety: dict[int, Ratio] = {}
    if influence is not None:
        # (every covered cell is unknown: the analysis's unknown cells are the covered ones, and
        # flagged ones when flags are doubted)
        extra = [c for c in influence.influenced() if st[c] == COVERED and c not in chosen]
        safety = {c: influence.long_term_ratio(c) for c in chosen + extra}
        low = (floor.numerator, floor.denominator)
        chosen += [c for c in extra if _compare(safety[c], low) >= 0]
    return chosen, off, safety


def _shown(key: Rank) -> RankKey:
    """A rank as :class:`Ranked` shows it (the same order, in fractions)."""
    return (Fraction(key[0], key[1]), key[2], -Fraction(key[3], key[4]), -key[5], -key[6])


@dataclass(frozen=True, slots=True)
class Ranked:
    """One look-ahead candidate as scored (passed to ``Hooks.on_ranked``)."""

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


def _outcomes_pruned(
    position: Position,
    cell: int,
    limit: Limit,
    safe_c: Ratio,
    beat: Ratio | None,
    system: System | Frame | None = None,
    cache: CountCache | None = None,
    deadline: float | None = None,
    kept: list[Outcome] | None = None,
) -> tuple[int, Ratio, int] | None:
    """Sum over the numbers ``cell`` can show of (layouts x best safety afterwards).

    Returns (layouts with the cell safe, the weighted sum as an unreduced ``(numerator, denominator)``,
    how many numbers are possible), or None when an analysis ran past its budget (``deadline``, see
    :func:`_outcomes`) or the candidate cannot beat ``beat`` any more."""
    found = _outcomes(position, cell, limit, system, cache, deadline)
    if found is None or any(o is not None and o.approximate for _, _, _, o, _ in found):
        return None
    if kept is not None:
        kept.extend(found)
    outs = [(n, safety) for n, safety, _, _, _ in found]
    total = sum(n for n, _ in outs)
    if not total:
        return None
    # the sum of n x f over a common denominator (the caller makes it a fraction)
    num, den = 0, 1
    for n, (p, q) in outs:
        num, den = num * q + n * p * den, den * q
    # (safe_c x num / (den x total) below beat, in integers: the denominators are positive)
    if beat is not None and safe_c[0] * num * beat[1] < beat[0] * safe_c[1] * den * total:
        return None
    return total, (num, den), len(outs)


def _survive_two(
    position: Position,
    a: Analysis | None,
    system: System | Frame,
    cache: CountCache,
    deadline: float | None,
    inner: int,
    drops: Callable[[float], bool] | None = None,
) -> float | None:
    """The chance to survive the next two reveals of ``position`` (analysis ``a``, system
    ``system``), playing the best of a few candidates: with two proven safe cells 1; with one, it
    is opened and the best safety after its number follows; else the best two-guess score among
    the ``inner`` safest frontier cells and the off-frontier cell most likely to be a zero. None
    when the budget (``deadline``) ran out.

    ``drops``, the caller's test: once it holds for an upper bound of the chance (a number at
    least the chance this function would return), that bound may be returned instead: the caller
    then decides the same with it. With a :class:`~demine.analysis.incremental.Frame`, the numbers
    of a candidate are counted one at a time, and the candidate is left as soon as the layouts
    counted so far show that it cannot beat the best so far, or that ``drops`` holds for what it
    could still be worth (then the others must show the same, or one of them is worth more and
    the result is exact); the chances are then read from the frame
    (:meth:`~demine.analysis.incremental.Frame.chances`, the same numbers as its analysis's) and
    ``a`` may be None."""
    z: int | None
    if isinstance(system, Frame):
        try:  # (the frame's weights are made here, the first time they are read)
            z, safe, boxes, off_nd = system.chances(deadline)
        except OverBudget:
            return None
    else:
        assert a is not None  # (a system comes with its analysis)
        z, safe, boxes, off_nd = a.solutions, list(a.safe), [], None
    if len(safe) >= 2:
        return 1.0
    # the frame's chances as floats: the order a candidate's numbers are counted in
    chances: Chances | None = None
    if isinstance(system, Frame):
        chances = chance_floats(boxes, system.decided, off_nd)
    if safe:
        (s,) = safe
        found = _reveal_worth(
            position, s, system, cache, deadline, make_stop(z, (0, 1), 1.0, 0.0, drops), chances
        )
        if found is None or isinstance(found, float):
            return found
        total, weighted = found
        return weighted / total if total else 1.0
    zero_key = zero_chance_keys(position)
    n_nb = neighbour_counts(position.width, position.height)
    front: list[tuple[Ratio, int]] = []
    off: tuple[int, int] | None = None
    off_p: Ratio | None = None
    if isinstance(system, Frame):
        # the frame's parts hold the frontier's cells no rule decided (a cell in a constraint
        # touches its number), its off cells the others; the rules' cells are safe or mines
        for chance, box in boxes:
            if chance[0] != chance[1]:
                shared: Ratio = chance  # (one object a box for _safest: compiled, boxed per use)
                for c in box:
                    front.append((shared, c))
        if off_nd is not None and off_nd[0] != off_nd[1]:  # (one chance for them all)
            c = system.least_off(n_nb)
            off, off_p = (n_nb[c], c), off_nd
    else:
        assert a is not None
        ratios = a.ratios
        st = position.states
        cells = [c for c, nd in ratios.items() if nd[0] != nd[1] and st[c] == COVERED]
        for c, near in zip(cells, touches_revealed(position, cells), strict=True):
            if near:
                front.append((ratios[c], c))
            elif off is None or (n_nb[c], c) < off:  # off the frontier every neighbour is hidden
                off, off_p = (n_nb[c], c), ratios[c]
    if not front and off is None:
        return 1.0  # every covered cell is a mine: won
    cands = [(1.0 - t[0][0] / t[0][1], t[2], t[0]) for t in _safest(front, zero_key, inner)]
    if off is not None and off_p is not None:
        cands.append((1.0 - off_p[0] / off_p[1], off[1], off_p))
    cands.sort(key=itemgetter(0), reverse=True)
    best = 0.0
    # the most a candidate left early for ``drops`` could be worth: below what keeps the caller,
    # so it is the answer only if every other candidate is below that too (then it is a bound the
    # caller drops with; else the best is above it, and exact)
    cut = 0.0
    for i, (safety, c, nd) in enumerate(cands):
        if safety <= best:
            break  # even a certain next reveal could not beat it
        # this one and those after it are worth at most their own safety (as floats, within the
        # margin: a value is a product of safety and a share that rounds to 1 or just above)
        if i and drops is not None and drops(max(best, cut, safety + STOP_MARGIN)):
            return max(best, cut, safety + STOP_MARGIN)
        found = _reveal_worth(
            position, c, system, cache, deadline, make_stop(z, nd, safety, best, drops), chances
        )
        if found is None:
            return None
        if isinstance(found, float):
            cut = max(cut, found)  # (at most the best when it only could not beat it)
            continue
        total, weighted = found
        if total:
            best = max(best, safety * weighted / total)
    return max(best, cut)


def _reveal_worth(
    position: Position,
    cell: int,
    system: System | Frame,
    cache: CountCache,
    deadline: float | None,
    stop: Stop | None = None,
    chances: Chances | None = None,
) -> tuple[float, float] | float | None:
    """Over the numbers ``cell`` can show: the layouts with it safe, and their sum of the chance
    to survive one more reveal afterwards (both scaled by :func:`scaled`). None when the budget
    (``deadline``) ran out; with a frame and ``stop``, what ``stop`` returned when it stopped the
    count (see :func:`survivals`, which counts the numbers in the order ``chances`` gives)."""
    if isinstance(system, Frame):
        found = survivals(position, cell, system, deadline, stop, chances)
        if found is None or isinstance(found, float):
            return found
        weights, total = scaled([n for n, _ in found])
        return total, sum(w * s for w, (_, s) in zip(weights, found, strict=True))
    outs = _outcomes(position, cell, Limit(), system, cache, deadline)
    if outs is None or any(o is None or o.approximate for _, _, _, o, _ in outs):
        return None
    weights, total = scaled([n for n, _, _, _, _ in outs])
    return total, sum(w * s for w, (_, _, s, _, _) in zip(weights, outs, strict=True))


def _three_guesses(
    position: Position,
    deep: list[tuple[Rank, int, float, list[Outcome]]],
    system: System,
    cache: CountCache,
    deadline: float | None,
    inner: int,
    leader: Leader | None = None,
    estimate: float = 0.0,
) -> Leader | None:
    """The candidate with the best chance to survive three reveals (itself, then the best two),
    that chance and its depth-2 key; None when the budget ran out. ``deep`` holds each
    candidate's depth-2 key, cell, own safety and outcomes; ``inner`` how many frontier cells
    the inner level weighs; ``leader`` is one found before, which
    a candidate of ``deep`` must beat. Values equal to within ``TIE`` are ties, won by the higher
    depth-2 key. The two-guess score bounds the three-guess one, so candidates go in depth-2 order
    and stop once none can beat the leader. ``estimate``: the time a step is expected to take
    before one has been timed."""
    deep = sorted(deep, key=cmp_to_key(by_first_rank), reverse=True)
    best = leader
    # one outcome's next two reveals are a step: started only if the slowest so far fits
    pace = Pace(deadline, SLACK, estimate)
    for key, cell, safe_c, found in deep:
        best_v = -1.0 if best is None else best[1] - TIE
        if quotient(key[0], key[1]) < best_v:
            break
        if not any(t[0] for t in found):
            continue
        # outcomes with the most layouts first; the rest's two-guess worth bounds what is left
        found = sorted(found, key=itemgetter(0), reverse=True)
        weights, total = scaled([t[0] for t in found])
        rest = sum(w * t[2] for w, t in zip(weights, found, strict=True))
        acc = 0.0
        pruned = False
        for n, (_, _, s1, o, after) in zip(weights, found, strict=True):
            rest -= n * s1
            if not pace.fits():
                return None
            if isinstance(after, Frame):
                # (its counts are kept: nothing is counted again; no analysis is made)
                base: System | Frame = after
                after = after.position
            else:
                try:
                    base = system_after(system, after, cell)
                except InconsistentPosition:
                    continue
            # (the test below, with an upper bound of v2: when it drops the candidate, so does v2)
            drops = dropper(safe_c, acc, n, rest, total, best_v)
            v2 = _survive_two(after, o, base, cache, deadline, inner, drops)
            pace.done()
            if v2 is None:
                return None
            acc += n * v2
            if safe_c * (acc + rest) / total < best_v:
                pruned = True
                break
        if pruned:
            continue
        v = safe_c * acc / total
        if best is None or v > best[1] + TIE or (v >= best[1] - TIE and rank_cmp(key, best[2]) > 0):
            best = (cell, v, key)
    return best
