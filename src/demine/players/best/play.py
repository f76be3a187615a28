"""``best`` and ``fast`` as players: the hint (:func:`best_move`) and the turn they share (open
what is proven, flag proven mines, else guess).

``best_move`` decides, in order:

1. **safe**: the lowest cell the exact engine proves safe.
2. **endgame**: when few layouts remain (``endgame_layouts``), the game tree is searched exactly
   and the move with the highest chance of winning is played.
3. **50-50**: a forced 50/50 (two cells holding one mine that no other cell can ever tell apart)
   is taken at once: waiting cannot help, and further guesses before it only add risk. So is a
   *pseudo* 50/50 (:mod:`demine.players.longterm`): a cell that is a mine only in layouts where it
   ends up in such a coin toss anyway (of several, the one whose number tells the most).
4. **sampled endgame**: with more layouts, up to ``sampled_layouts``, the same search over a
   uniform sample of them.
5. **look-ahead** (:mod:`demine.players.best.lookahead`): the safest candidates scored by the
   chance to survive them and the best next reveals.
6. **safest**: the lowest-probability cell, when the budget allows nothing better.

``fast`` is exact probabilities and a cheap guess: safety weighed with the chance that the cell's
number proves a cell safe (:func:`~demine.players.best.moves.two_step_move`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from functools import partial

from demine.analysis import Analysis, Limit, analyze
from demine.analysis.constraints import System, SystemTracker, position_system
from demine.analysis.exact import CountCache, solve_system
from demine.analysis.local import LocalEngine
from demine.analysis.rules import Propagator
from demine.engine.game import Move, flag_move, reveal_move
from demine.engine.position import COVERED, Position
from demine.errors import IllegalMove, InconsistentPosition
from demine.players.base import Decision
from demine.players.best.endgame import endgame, sampled_endgame
from demine.players.best.fifty import forced_fifty, most_telling
from demine.players.best.lookahead import look_ahead
from demine.players.best.moves import BestMove, safest_move, two_step_move
from demine.players.best.settings import (
    DEFAULT_FAST,
    DEFAULT_SETTINGS,
    NO_HOOKS,
    BestSettings,
    FastSettings,
    Hooks,
)
from demine.players.held import collector_held
from demine.players.longterm import Influence

#: The default budget of one decision.
DEFAULT_LIMIT = Limit(seconds=2.0)
LOCAL_CELLS = 5000
"""Above this many cells ``fast`` follows the game incrementally (:class:`LocalEngine`): each move
costs what it changed, and components are weighted by the remaining density instead of the exact
global count (a negligible difference on such boards)."""


def best_move(
    position: Position,
    limit: Limit | None = None,
    analysis: Analysis | None = None,
    system: System | None = None,
    *,
    settings: BestSettings = DEFAULT_SETTINGS,
    hooks: Hooks = NO_HOOKS,
    counts: CountCache | None = None,
) -> BestMove:
    """The move ``best`` would play in ``position``, with its reason and estimates: the hint.

    ``limit`` bounds the work (default :data:`DEFAULT_LIMIT`; past it the move is the best found
    so far); ``settings`` says how ``best`` plays (:class:`BestSettings`, the adopted values by
    default); ``analysis`` and ``system``, when given, are the position's: they are not computed
    again; ``hooks`` let an experiment watch the search; ``counts``, when given, holds the
    components' counts of ``analysis``'s count (the look-ahead starts from them: speed only).

    Raises :class:`~demine.errors.InconsistentPosition` for an impossible position and
    ``IllegalMove`` when no covered cell is left, or every covered one is a proven mine.
    """
    limit = limit or DEFAULT_LIMIT
    t0 = time.perf_counter()
    a = analysis or analyze(position, limit=limit)
    states = position.states
    if not any(states[c] == COVERED for c in a.unknown):  # (no list kept through the search)
        raise IllegalMove("no covered cell left to open")
    if not a.safe and all(c in a.mines for c in a.unknown if states[c] == COVERED):
        raise IllegalMove("every covered cell is a proven mine: nothing is left to open")
    if a.safe:
        c = min(a.safe)
        return BestMove(Move("reveal", c), "safe", 0.0, win_probability=None)
    if not a.approximate:
        found = endgame(position, a, settings, hooks)
        if found is not None:
            return _noted(position, a, found, hooks)
        c50 = forced_fifty(position, a)
        if c50 is not None:
            return _noted(position, a, BestMove(Move("reveal", c50), "50-50", 0.5), hooks)
        influence = None
        system = system or position_system(position)
        if settings.long_term_risk and a.solutions is not None:
            deadline = None if limit.seconds is None else t0 + limit.seconds
            influence = Influence(position, a, system, settings.credit_weight, deadline)
            pseudos = influence.pseudos()
            if pseudos:
                pseudo = most_telling(position, pseudos, limit, system, deadline)
                return _noted(position, a, BestMove(Move("reveal", pseudo), "50-50", a.p(pseudo)), hooks)
        found = sampled_endgame(position, a, settings, hooks)
        if found is not None:
            return _noted(position, a, found, hooks)
        left = None if limit.seconds is None else max(0.0, limit.seconds - (time.perf_counter() - t0))
        budget = Limit(seconds=left, states=limit.states)
        la = look_ahead(position, a, budget, influence, system, settings, hooks, counts)
        if la is not None:
            return _noted(position, a, la, hooks)
    return _noted(position, a, safest_move(position, a, far_ties=settings.far_off), hooks)


def _noted(position: Position, a: Analysis, move: BestMove, hooks: Hooks) -> BestMove:
    """``move``, shown to ``hooks.on_guess`` first."""
    if hooks.on_guess is not None:
        hooks.on_guess(position, a, move)
    return move


class Follower:
    """What a player keeps between the positions of one game: a :class:`LocalEngine` for the
    number rule (work in proportion to what changed) and a :class:`SystemTracker` for the full
    count's constraint system. A position that does not follow the last one starts them over."""

    def __init__(self) -> None:
        self.tracker = SystemTracker()
        self.local: LocalEngine | None = None
        self.rules: Propagator | None = None
        """The pair rule's last run, when it ended without a conflict and proved no safe cell:
        ``fast``'s count starts from it (``solve_system``'s ``rules``)."""
        self.pair_open: set[int] | None = None
        """The labels of constraints whose components the pair rule must look at again though
        they did not change (it decided cells there last time), beside those that changed; None
        for every one."""

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
    moves = [*map(reveal_move, sorted(safe)), *map(flag_move, sorted(mines))]
    return Decision(moves, reason="safe", mine_probability=0.0, forced=len(moves))


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
    return _proven(eng.safe, eng.unflagged)


def _pair_safe(system: System, follower: Follower | None = None) -> Decision | None:
    """What the number and pair rules prove on ``system``: its safe cells opened and its mines
    flagged, or None when they prove no safe cell (or find the position impossible: the full
    analysis then says why).

    With the ``follower`` whose tracker made ``system``, the pair rule starts from the
    constraints changed since its last call and those holding a cell it decided then (a decision
    the caller may not have played): every other pair of constraints is as it was at the last
    fixed point, where it decided nothing (:meth:`Propagator.run_changed`; the same cells as a
    run on the whole system: speed only)."""
    again: set[int] | None = None
    if follower is not None:
        follower.rules = None
        again = follower.tracker.take_changed()
        if again is not None and follower.pair_open is not None:
            again |= follower.pair_open
        else:
            again = None
        follower.pair_open = None  # until this run ends well
    prop = Propagator(system.constraints, system.describe, system.flag_note)
    try:
        if again is None:
            prop.run_all()
        else:
            prop.run_changed(again)
    except InconsistentPosition:
        return None
    decided = prop.decided
    if follower is not None:
        label, cell_cons = prop.label, prop.cell_cons
        follower.pair_open = {label[i] for c in decided for i in cell_cons.get(c, ())}
    if all(decided.values()):
        if follower is not None:
            follower.rules = prop
        return None  # no safe cell proven
    return _proven((c for c, v in decided.items() if not v), (c for c, v in decided.items() if v))


def _flags_for(a: Analysis) -> list[Move]:
    """Flag moves for the proven mines (after the decision's reveal)."""
    return list(map(flag_move, sorted(a.mines)))


def _decide(
    position: Position,
    limit: Limit,
    guess: Callable[[Analysis, System | None], BestMove],
    follower: Follower,
    pair_first: bool = True,
    from_rules: bool = False,
    counts: CountCache | None = None,
) -> Decision:
    """The shared turn of ``best`` and ``fast``: what single numbers prove, else (with
    ``pair_first``) what the pair rule proves, else the full analysis's safe cells, else
    ``guess``; proven mines are flagged along the way. The pair rule proves most of what the
    count would, at a fraction of the cost: speed only (see :func:`_quick_safe`). With
    ``from_rules`` the count starts from what the pair rule decided (the same chances). ``counts``:
    where the count keeps its components' counts (``solve_system``'s ``cache``), for ``guess``.
    (The players hold the cycle collector off around it:
    :func:`~demine.players.held.collector_held`.)"""
    quick = _quick_safe(position, follower)
    if quick is not None:
        return quick
    try:
        system: System | None = follower.tracker.system(position)
    except InconsistentPosition:
        system = None  # the full analysis reports it
    rules = None
    if pair_first and system is not None:
        pair = _pair_safe(system, follower)
        if pair is not None:
            return pair
        if from_rules:
            rules = follower.rules
        follower.rules = None
    a = (
        analyze(position, limit=limit)
        if system is None
        else solve_system(system, limit, cache=counts, rules=rules)
    )
    rules = None  # (the pair rule's run is not kept alive through the guess's search)
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


class BestPlayer:
    """The strongest player: exact deduction, endgame search, 50/50s, look-ahead guesses.

    ``settings`` says how it plays (the adopted values by default), ``limit`` bounds each
    decision, ``hooks`` let an experiment watch its search."""

    name = "best"

    def __init__(
        self,
        settings: BestSettings = DEFAULT_SETTINGS,
        limit: Limit = DEFAULT_LIMIT,
        hooks: Hooks = NO_HOOKS,
        hold_collector: bool = True,
    ) -> None:
        self.settings = settings
        self.limit = limit
        self.hooks = hooks
        self.hold_collector = hold_collector
        """The cycle collector is held off while it counts and guesses
        (:func:`~demine.players.held.collector_held`; the same moves either way)."""
        self.follower = Follower()

    def decide(self, position: Position, rng: random.Random) -> Decision:
        """Open every safe cell, or play :func:`best_move`."""
        # the hold covers the count's cache too: made and dropped inside it, so the collection
        # that came due does not walk the search's counts once more just before they are freed
        # (the same moves: speed only)
        with collector_held(self.hold_collector):
            return self._turn(position)

    def _turn(self, position: Position) -> Decision:
        """:meth:`decide`, the collector as it finds it."""
        # the count's components' counts, for the look-ahead's root (the same counts: speed only)
        counts: CountCache = {}
        # (a partial, not a closure: compiled, a closure makes a reference cycle)
        guess = partial(_best_guess, position, self.limit, self.settings, self.hooks, counts)
        pair_first = self.settings.pair_first
        # (the count starts from the pair rule's run when it ran: the same chances)
        return _decide(
            position,
            self.limit,
            guess,
            self.follower,
            pair_first,
            from_rules=pair_first,
            counts=counts,
        )


def _best_guess(
    position: Position,
    limit: Limit,
    settings: BestSettings,
    hooks: Hooks,
    counts: CountCache,
    a: Analysis,
    system: System | None,
) -> BestMove:
    """``best``'s guess in ``position`` (:func:`best_move`), given its analysis and system."""
    return best_move(position, limit, a, system, settings=settings, hooks=hooks, counts=counts)


def _fast_guess(
    pick: Callable[[Position, Analysis], BestMove], position: Position, a: Analysis, system: System | None
) -> BestMove:
    """``fast``'s guess in ``position``: ``pick``'s move (its system unused)."""
    return pick(position, a)


class FastPlayer:
    """Exact probabilities; the guess weighs each cell's safety and the chance that its number
    proves a cell safe (:func:`two_step_move`).

    ``settings`` says how it guesses (:class:`FastSettings`; the adopted rule by default)."""

    name = "fast"

    def __init__(
        self, settings: FastSettings = DEFAULT_FAST, limit: Limit = DEFAULT_LIMIT, hold_collector: bool = True
    ) -> None:
        self.settings = settings
        self.limit = limit
        self.hold_collector = hold_collector
        """As :attr:`BestPlayer.hold_collector`."""
        self.follower = Follower()

    def decide(self, position: Position, rng: random.Random) -> Decision:
        """Open every safe cell, or guess (:func:`two_step_move`, or with ``two_step`` off the
        safest cell most likely to be a zero). Boards of more than :data:`LOCAL_CELLS` cells are
        followed incrementally (:func:`local_decide`), whatever the settings."""
        if position.cells > LOCAL_CELLS:
            return self._local_decide(position)
        pick = two_step_move if self.settings.two_step else safest_move
        with collector_held(self.hold_collector):
            return _decide(
                position, self.limit, partial(_fast_guess, pick, position), self.follower, from_rules=True
            )

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
