"""Boards that never need a guess: generated, and certified by deduction.

A layout is **guess-free** from a first click when, after that click, at every step some covered
cell is proven safe, until every safe cell is open. What "proven" means is the certificate:

- ``complete`` (the default): every layout consistent with the numbers *and the total mine count*
  has no mine there (the exact engine, :func:`~demine.analyze`). A player who counts mines and
  reasons perfectly never has to guess.
- ``local``: every layout consistent with the numbers alone has no mine there, whatever the total
  (each frontier component counted on its own). A player who never counts mines never has to
  guess. Every ``local`` board is a ``complete`` one; the converse fails where the count decides.

Two ways to draw one (``mode``):

- ``uniform``: rejection sampling. Layouts are drawn uniformly among those the first-click rule
  allows, each is played by deduction alone from the first click
  (:class:`~demine.analysis.certify.Certifier`), and the first that is won is returned: every
  guess-free layout for that board, rule and first click is equally likely. A layout with a
  *twin* (a mine and a safe cell no number can tell apart) is rejected before any play, the rest
  as soon as deduction stalls.
- ``dense``: for densities where guess-free layouts are too rare to draw. A layout is repaired:
  where deduction stalls, a mine next to the stall is moved to a covered cell away from it
  (outside the first click's area), and deduction starts again, until the board is won. Then a
  Markov chain of symmetric moves (swap a mine and a safe cell; keep the swap only if the board
  stays guess-free), whose stationary law is uniform over the guess-free layouts it can reach,
  runs ``mix`` steps (by default :data:`MIX_PER_MINE` per mine) to wear away the repair's bias.
  Not exactly uniform: its bias is measured in the results page. Each proposed swap is certified
  from the current layout's play where the swap starts to show, and kept as soon as the swapped
  cells' surroundings are known (:meth:`~demine.analysis.certify.Certifier.swapped`): the same
  verdicts, so the same boards, as certifying each from nothing.
- ``auto``: ``uniform`` when one of its first 200 layouts is guess-free, else ``dense``: on 30x16
  mostly uniform up to about 120 mines, dense above.

Every board returned has passed its certificate; past the budget (``limit``) generation stops with
:class:`NoGuessTimeout`, never a board that failed.

How dense a guess-free board can be found in a few seconds was measured per size and rule
(``benchmarks/noguess_reach.py``, shipped as ``noguess_reach.json``): :func:`no_guess_reach`
says it for any board, and :func:`check_no_guess_reach` refuses at once, with what can be found
there, a board denser than anything found in that time (the web game does, for its 5 s budget).

>>> board = no_guess_layout(9, 9, 10, "zero", 20, seed=1)
>>> board.certificate, board.mode, len(board.mine_cells)
('complete', 'uniform', 10)
>>> is_guess_free(9, 9, board.mine_cells, 20)
True
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Literal

from demine.analysis.certify import (
    CERTIFICATES,
    CERTIFY_LIMIT,
    OPEN,
    Certificate,
    Certifier,
    certifier,
    count_may_help,
)
from demine.analysis.local import LocalEngine
from demine.analysis.result import Limit
from demine.engine.game import Game, seeded_random
from demine.engine.grid import check_mines, geometry, mine_cells_allowed
from demine.errors import DemineError, InconsistentPosition, InputError
from demine.text import plural

Mode = Literal["uniform", "dense", "auto"]
MODES: tuple[Mode, ...] = ("uniform", "dense", "auto")

#: The default budget of one generation.
GENERATE_LIMIT = Limit(seconds=10.0)
#: Under ``auto``, how many layouts ``uniform`` may draw before ``dense`` takes over (a count, not a
#: time, so that the same seed gives the same board on any machine).
AUTO_UNIFORM_ATTEMPTS = 200
#: A repair step moves one mine in this many of those next to the stall (at least one).
REPAIR_SHARE = 4
#: Swap steps of the ``dense`` mode's Markov chain after the repair, per mine (the chain must move
#: each mine a few times: on 16x16 with 70 mines, 7 per mine brings the per-cell frequencies and
#: the mean 3BV near uniform sampling's; see the results page).
MIX_PER_MINE = 7


def _check_certificate(certificate: str) -> None:
    if certificate not in CERTIFICATES:
        raise InputError(f"unknown certificate {certificate!r}; choose one of {', '.join(CERTIFICATES)}")


class NoGuessTimeout(DemineError):
    """No guess-free board was found within the budget."""


class NoGuessOutOfReach(InputError):
    """A guess-free board denser than any found in the budget on a board of its size: refused
    before any try (:func:`check_no_guess_reach`)."""


@dataclass(frozen=True, slots=True)
class Reach:
    """How dense a guess-free board was found within ``seconds`` on the measured board nearest a
    board (``benchmarks/noguess_reach.py``), scaled to that board's cells."""

    measured: str
    """The measured size (``WxH``) the figures come from: the one with the most cells not above
    the board's (a bigger board is harder, so its figures would refuse too much)."""
    rule: str
    """The first-click rule measured."""
    found: int
    """The most mines a guess-free board was found with, scaled to the board (rounded down)."""
    refused: int | None
    """From how many mines none was found, scaled to the board (rounded up); None when boards were
    found at every count tried."""
    refused_to: int | None
    """Up to how many mines none was found, scaled to the board (rounded down): from ``refused``
    to this is refused (past it, boards crowded with mines may be found again: they have few safe
    cells to certify)."""
    seconds: float
    """The budget of each try."""

    def advice(self, width: int, height: int) -> str:
        """What can be found on the board, in a sentence's end for its player."""
        cells = width * height
        said = (
            f"on {width}x{height} guess-free boards are found in {self.seconds:g} s up to about "
            f"{self.found} mines ({100 * self.found / cells:.0f}%)"
        )
        if self.refused is not None and self.refused_to is not None:
            said += (
                f", none from {self.refused} to {self.refused_to} ({100 * self.refused / cells:.0f}-"
                f"{100 * self.refused_to / cells:.0f}%)"
            )
        return f"{said} (measured on {self.measured}, {self.rule} first click)"


@cache
def _reach_table() -> dict[str, object]:
    text = resources.files("demine.analysis").joinpath("noguess_reach.json").read_text(encoding="utf-8")
    data: dict[str, object] = json.loads(text)
    return data


def no_guess_reach(width: int, height: int, rule: str) -> Reach | None:
    """What the shipped measurements say of guess-free boards on ``width`` x ``height`` under
    ``rule`` (``none`` is read as ``safe``): the figures of the measured size with the most cells
    not above this board's, scaled by its cells; None for a board smaller than every measured one.

    >>> no_guess_reach(30, 16, "safe").refused is None  # found at every density tried
    True
    >>> r = no_guess_reach(50, 50, "safe")  # 40x40's figures, scaled
    >>> r.measured, r.found < r.refused <= r.refused_to < 50 * 50
    ('40x40', True)
    """
    data = _reach_table()
    sizes: dict[str, dict[str, dict[str, int | None]]] = data["sizes"]  # type: ignore[assignment]
    rule = "safe" if rule == "none" else rule
    cells = width * height
    best: tuple[int, str] | None = None
    for size, rules in sizes.items():
        w, _, h = size.partition("x")
        n = int(w) * int(h)
        if rule in rules and n <= cells and (best is None or n > best[0]):
            best = (n, size)
    if best is None:
        return None
    n, size = best
    row = sizes[size][rule]
    refused, refused_to = row["refused"], row["refused_to"]
    return Reach(
        size,
        rule,
        math.floor((row["found"] or 0) * cells / n),
        None if refused is None else math.ceil(refused * cells / n),
        None if refused_to is None else math.floor(refused_to * cells / n),
        float(data["budget_seconds"]),  # type: ignore[arg-type]
    )


def check_no_guess_reach(width: int, height: int, mines: int, rule: str, limit: Limit) -> None:
    """Refuse at once (:class:`NoGuessOutOfReach`) a guess-free board that its budget cannot find:
    as dense as those of which none was found in the measured time (from ``refused`` to
    ``refused_to`` of :class:`Reach`), with a budget no longer than it (a longer budget, or none,
    is never refused here)."""
    reach = no_guess_reach(width, height, rule)
    if reach is None or limit.seconds is None or limit.seconds > reach.seconds:
        return
    if reach.refused is None or reach.refused_to is None or not reach.refused <= mines <= reach.refused_to:
        return
    raise NoGuessOutOfReach(
        f"no guess-free board with {mines} mines can be found in time: {reach.advice(width, height)}. "
        f"Choose at most {reach.found} mines, or turn no guess off"
    )


@dataclass(frozen=True, slots=True)
class NoGuessBoard:
    """A guess-free layout and how it was made."""

    width: int
    """Columns."""
    height: int
    """Rows."""
    mine_cells: tuple[int, ...]
    """The mines, sorted."""
    first: int
    """The first click it is guess-free from."""
    rule: str
    """The first-click rule it respects."""
    certificate: Certificate
    """What proved it guess-free: ``complete`` (with the mine count) or ``local`` (without)."""
    mode: Literal["uniform", "dense"]
    """How it was drawn (``auto`` says which it used)."""
    attempts: int
    """Layouts drawn (uniform) or certifications run (dense)."""
    seconds: float
    """Time taken."""

    def describe(self) -> str:
        """How the board was made, in a line for its user.

        >>> no_guess_layout(9, 9, 10, "zero", 20, seed=1).describe().split(":")[0]
        'guess-free from (2,2) by the complete certificate'
        """
        if self.mode == "uniform":
            how = f"uniform sampling, {plural(self.attempts, 'layout')} drawn"
        else:
            how = (
                f"the dense mode, {plural(self.attempts, 'certification')} (not uniform: its bias is in "
                "BENCHMARKS.md)"
            )
        r, c = divmod(self.first, self.width)
        ms = 1000 * self.seconds
        return f"guess-free from ({r},{c}) by the {self.certificate} certificate: {how}, {ms:.0f} ms"


def solve_by_deduction(game: Game, certificate: Certificate = "complete") -> bool:
    """Play ``game`` (after its first click) by deduction alone: open every proven safe cell
    until the game is won (True) or no covered cell is proven safe (False). Never guesses, never
    flags. O(1) a cell opened, plus the counts at the steps where the number rule stalls.

    A player of real games, through the incremental engine: the generator certifies with the
    faster :class:`~demine.analysis.certify.Certifier`, and the tests hold the two to the same
    verdict on every layout."""
    eng = LocalEngine(game.width, game.height, None, limit=CERTIFY_LIMIT)
    try:
        eng.update(game.position())
        while not game.over:
            safe = eng.safe
            if not safe:
                # the pair rule first (it settles most stalls cheaply), then the components' counts;
                # what they prove may be mines only, which can let the rules go on: look again
                if eng.pairs() or eng.count():
                    continue
                if certificate == "complete" and _count_may_help(eng, game.mines):
                    safe = eng.safe_by_count(game.mines)
                if not safe:
                    return False
            opened: list[int] = []
            for c in sorted(safe):
                if game.over:
                    break
                opened += game.reveal(c)  # a cell an earlier one's opening reached is left alone
            eng.opened(opened, game.visible)
    except InconsistentPosition:  # cannot happen on a real game's positions
        return False
    return game.won


def _count_may_help(eng: LocalEngine, mines: int) -> bool:
    """Whether the total could prove more (:func:`~demine.analysis.certify.count_may_help`)."""
    front = eng.frontier_unknown()
    return count_may_help(front, eng.unknown - front, mines - len(eng.mines))


def is_guess_free(
    width: int,
    height: int,
    mine_cells: tuple[int, ...] | list[int],
    first: int,
    certificate: Certificate = "complete",
) -> bool:
    """Whether the layout is won from ``first`` by deduction alone (a mine at ``first`` is not)."""
    return certifier(width, height, certificate).guess_free(mine_cells, first)


def no_guess_layout(
    width: int,
    height: int,
    mines: int,
    rule: str,
    first: int,
    *,
    seed: int | str | None = None,
    certificate: Certificate = "complete",
    mode: Mode = "auto",
    limit: Limit = GENERATE_LIMIT,
    mix: int | None = None,
) -> NoGuessBoard:
    """A guess-free layout for this board, first-click rule and first click (see the module's
    docstring for the certificates and modes). The same arguments and seed give the same board.
    ``mix``: the dense mode's swap steps (None: :data:`MIX_PER_MINE` per mine).

    Raises :class:`~demine.errors.SizeError` at once when the mines cannot fit outside the first
    click's area, :class:`~demine.errors.InputError` for an unknown certificate or mode, and
    :class:`NoGuessTimeout` past ``limit``."""
    _check_certificate(certificate)
    if mode not in MODES:
        raise InputError(f"unknown no-guess mode {mode!r}; choose one of {', '.join(MODES)}")
    if mix is not None and mix < 0:
        raise InputError(f"mix is the dense mode's swap steps, at least 0; got {mix}")
    geo = geometry(width, height)
    if not 0 <= first < width * height:
        raise InputError(f"first click {first} is off the {width}x{height} board")
    check_mines(width, height, mines, rule, first)
    rng = seeded_random(seed)
    t0 = time.perf_counter()
    deadline = None if limit.seconds is None else t0 + limit.seconds
    allowed = mine_cells_allowed(geo, rule, first)
    if mode in ("uniform", "auto"):
        most = AUTO_UNIFORM_ATTEMPTS if mode == "auto" else None
        found = _uniform(width, height, mines, first, allowed, rng, certificate, deadline, most)
        if found is not None:
            layout, attempts = found
            return NoGuessBoard(
                width, height, layout, first, rule, certificate, "uniform", attempts, time.perf_counter() - t0
            )
        if mode == "uniform":
            raise NoGuessTimeout(
                f"no guess-free {width}x{height} board with {mines} mines found in {limit.seconds:g} s "
                f"by uniform sampling{reach_note(width, height, rule)}; try fewer mines, a longer time "
                "limit, or the dense mode"
            )
    steps = MIX_PER_MINE * mines if mix is None else mix
    found = _dense(width, height, mines, first, allowed, rng, certificate, deadline, steps)
    if found is None:
        raise NoGuessTimeout(
            f"no guess-free {width}x{height} board with {mines} mines found in {limit.seconds:g} s"
            f"{reach_note(width, height, rule)}; try fewer mines or a longer time limit"
        )
    layout, attempts = found
    return NoGuessBoard(
        width, height, layout, first, rule, certificate, "dense", attempts, time.perf_counter() - t0
    )


def reach_note(width: int, height: int, rule: str) -> str:
    """What :func:`no_guess_reach` says of the board, in brackets after a space, for the end of a
    message ('' for a board smaller than every measured one)."""
    reach = no_guess_reach(width, height, rule)
    return "" if reach is None else f" ({reach.advice(width, height)})"


def _uniform(
    width: int,
    height: int,
    mines: int,
    first: int,
    allowed: list[int],
    rng: random.Random,
    certificate: Certificate,
    deadline: float | None,
    most: int | None = None,
) -> tuple[tuple[int, ...], int] | None:
    """Rejection sampling: uniform layouts until one is guess-free (None past ``deadline`` or
    after ``most`` layouts)."""
    cert = certifier(width, height, certificate)
    attempts = 0
    while (deadline is None or time.perf_counter() < deadline) and (most is None or attempts < most):
        attempts += 1
        layout = tuple(sorted(rng.sample(allowed, mines)))
        if cert.guess_free(layout, first):
            return layout, attempts
    return None


def _dense(
    width: int,
    height: int,
    mines: int,
    first: int,
    allowed: list[int],
    rng: random.Random,
    certificate: Certificate,
    deadline: float | None,
    mix: int,
) -> tuple[tuple[int, ...], int] | None:
    """Repair a uniform layout until guess-free, then ``mix`` steps of the swap chain."""
    cert = certifier(width, height, certificate)
    attempts = 0
    while True:
        found = _repair(width, height, mines, first, allowed, rng, cert, deadline)
        if found is None:
            return None
        layout, tries = found
        attempts += tries
        chained = _chain(set(allowed), layout, first, rng, cert, deadline, mix)
        if chained is None:
            return None
        board, tries = chained
        attempts += tries
        if cert.guess_free(board, first):
            return board, attempts
        # (a swap kept as soon as its cells were known, where a component's count had stopped
        # at the certifier's state cap: guess-free, but not by the certifier's proof; again)


def _repair(
    width: int,
    height: int,
    mines: int,
    first: int,
    allowed: list[int],
    rng: random.Random,
    cert: Certifier,
    deadline: float | None,
) -> tuple[set[int], int] | None:
    """A uniform layout, repaired until guess-free (None past ``deadline``), and the
    certifications it took."""
    nb = cert.nbs
    movable = set(allowed)
    layout = set(rng.sample(allowed, mines))
    attempts = 0
    while True:
        if deadline is not None and time.perf_counter() > deadline:
            return None
        attempts += 1
        if first in layout:  # the first click hits a mine (the 'none' rule)
            layout = set(rng.sample(allowed, mines))
            continue
        st = cert.stall(layout, first)
        if st is None:
            return layout, attempts
        # the covered cells at the stall: next to a number (the frontier) or away from every one
        near = bytearray(width * height)  # 1 next to an open cell
        for c in range(width * height):
            if st[c] == OPEN:
                for d in nb[c]:
                    near[d] = 1
        frontier = {c for c in range(width * height) if st[c] != OPEN and near[c]}
        stuck_mines = sorted(c for c in frontier if c in layout)
        away = [c for c in movable if c not in layout and st[c] != OPEN and not near[c]]
        if not away:  # no room away from the frontier: anywhere covered and free
            away = [c for c in movable if c not in layout and st[c] != OPEN and c not in frontier]
        if not stuck_mines or not away:
            layout = set(rng.sample(allowed, mines))  # nothing to move: start over
            continue
        # a few mines at once (a quarter of those at the stall): each step costs a certification
        k = min(len(away), max(1, len(stuck_mines) // REPAIR_SHARE))
        for m, to in zip(rng.sample(stuck_mines, k), rng.sample(away, k), strict=True):
            layout.discard(m)
            layout.add(to)


def _chain(
    movable: set[int],
    layout: set[int],
    first: int,
    rng: random.Random,
    cert: Certifier,
    deadline: float | None,
    mix: int,
) -> tuple[tuple[int, ...], int] | None:
    """``mix`` steps of the swap chain from the guess-free ``layout`` (None past ``deadline``):
    propose swapping a mine and a free cell, keep it if still guess-free. Each proposal's play is
    taken up from the current layout's where the swap starts to show, and ends once the swapped
    cells' surroundings are known (:meth:`~demine.analysis.certify.Certifier.swapped`)."""
    free = sorted(movable - layout)
    mined = sorted(layout)
    if not mix or not free:  # (no free cell: nothing to swap)
        return tuple(mined), 0
    base = cert.trace(layout, first)
    for _ in range(mix):
        if deadline is not None and time.perf_counter() > deadline:
            return None  # (stopping the chain early would make the board depend on the machine)
        i, j = rng.randrange(len(mined)), rng.randrange(len(free))
        m, f = mined[i], free[j]
        trial = cert.swapped(base, m, f)
        if trial.won:
            base = trial
            mined[i], free[j] = f, m
    return tuple(sorted(mined)), mix


def no_guess_game(
    width: int,
    height: int,
    mines: int,
    *,
    rule: str = "zero",
    seed: int | str | None = None,
    certificate: Certificate = "complete",
    mode: Mode = "auto",
    limit: Limit = GENERATE_LIMIT,
    lives: int = 0,
    report: Callable[[NoGuessBoard], None] | None = None,
) -> Game:
    """A game whose mines are placed at the first click, like any game's, so that the board is
    guess-free from that click (:func:`no_guess_layout`). The same seed and first click give the
    same board. Impossible sizes are refused at once; past ``limit`` the first reveal raises
    :class:`NoGuessTimeout` and the game stays unplaced. ``report`` is told how the board was made
    (its :class:`NoGuessBoard`) when it is placed.

    >>> game = no_guess_game(9, 9, 10, seed=3)
    >>> _ = game.reveal(40)
    >>> game.no_guess, is_guess_free(9, 9, game.mine_cells(), 40)
    ('complete', True)
    """
    _check_certificate(certificate)
    check_mines(width, height, mines, rule)

    def place(first: int) -> tuple[int, ...]:
        board = no_guess_layout(
            width, height, mines, rule, first, seed=seed, certificate=certificate, mode=mode, limit=limit
        )
        if report is not None:
            report(board)
        return board.mine_cells

    return Game(width, height, mines, rule=rule, seed=seed, lives=lives, placer=place, no_guess=certificate)
