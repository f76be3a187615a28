"""Long-term risk: 50/50s that no later move can resolve, counted before they form.

Two covered cells side by side (a *pair*), or the diagonal pattern of a 2x2 *box*, can only be
told apart by the cells that touch one of them and not the other: the *flanks* (the three cells
beyond each end of a pair, the four diagonal corners of a box). When every flank is a mine (or off
the board), no number that will ever be revealed tells the cells apart, and the game ends in a coin
toss there. Call the layouts where that happens the structure's layouts; by the symmetry, the cells
of the structure are mines in exactly half of them.

What that changes for a guess at cell ``x``: in the structure's layouts the game is lost with
probability 1/2 whatever is done, so opening ``x`` now costs nothing extra there when ``x`` is in
the structure (it hits the mine in half of them and resolves the coin toss in the other half), and
costs only half when ``x`` is a flank (lost now instead of half the time later). A cell's *credit*
is that count of layouts; its long-term safety is ``(layouts where x is safe + credit) / layouts``.

A *pseudo 50/50* is a structure cell whose every mine layout is a structure layout: opening it now
is safe or a coin toss the game must take anyway, so it is played at once.

Counting a structure's layouts is one exact count of the position's system with the structure's
mines and safe cells added as constraints.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

from demine.analysis import Analysis, Limit
from demine.analysis.constraints import System, components
from demine.analysis.exact import CountCache, _count_cached, frontier, wide
from demine.analysis.order import OverBudget
from demine.analysis.result import Pace
from demine.analysis.rules import Constraint, Propagator, number_rule
from demine.analysis.totals import layouts
from demine.engine.pickling import by_fields
from demine.engine.position import COVERED, COVERED_MASK, Position
from demine.errors import InconsistentPosition

#: Flanks still to become mines that a pseudo-50/50 scan allows (pair; a box allows none).
SCAN_MISSING = 1
#: ... and that a candidate's credit allows.
CREDIT_MISSING = 3
#: The share of the credit counted by default (the structure may still be avoided in ways not
#: modelled); ``best`` passes its ``BestSettings.credit_weight``.
CREDIT_WEIGHT = Fraction(9, 10)
#: The budget of one count.
COUNT_LIMIT = Limit(seconds=None, states=200_000)

# What a cell is as a structure's flank (Influence._flank): not yet a known mine, a known mine,
# or revealed / proven safe (the structure cannot form).
_MISSING: Final = 0
_KNOWN: Final = 1
_BLOCK: Final = 2
_FLANK_OF_STATE: Final = bytes(_BLOCK if v < COVERED else _MISSING for v in range(256))
# The flanks of a structure, as (row, column) steps from its top-left cell, in the order they are
# looked at (a pair across, a pair down, a box).
_PAIR_H: Final = ((-1, -1), (0, -1), (1, -1), (-1, 2), (0, 2), (1, 2))
_PAIR_V: Final = ((-1, -1), (-1, 0), (-1, 1), (2, -1), (2, 0), (2, 1))
_BOX: Final = ((-1, -1), (-1, 2), (2, -1), (2, 2))


@dataclass(frozen=True, slots=True)
class Structure:
    """A pair or box that ends in a coin toss when its flanks are mines."""

    cells: tuple[int, ...]
    """The pair's two cells, or the box's four in row-major order."""
    missing: tuple[int, ...]
    """Flanks that are not yet known mines."""

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its constructor's arguments (see :mod:`demine.engine.pickling`)."""
        return by_fields(self)

    @property
    def mines(self) -> tuple[int, ...]:
        """The structure's mines in the orientation that is counted."""
        return (self.cells[0],) if len(self.cells) == 2 else (self.cells[0], self.cells[3])

    @property
    def safe(self) -> tuple[int, ...]:
        """Its safe cells in that orientation."""
        return (self.cells[1],) if len(self.cells) == 2 else (self.cells[1], self.cells[2])


class Influence:
    """Structure counts for one position (cached), its pseudo 50/50 and each cell's credit."""

    def __init__(
        self,
        position: Position,
        a: Analysis,
        system: System,
        credit_weight: Fraction = CREDIT_WEIGHT,
        deadline: float | None = None,
    ) -> None:
        """``deadline`` (a ``time.perf_counter()`` value): a structure is counted only while the
        time left covers the slowest count so far; past it, structures not yet counted count as
        never formed (no credit: the risk of a cell is its plain chance of a mine)."""
        if a.solutions is None:
            raise ValueError("long-term risk needs an exact analysis")
        self.position = position
        self.a = a
        self.system = system
        self.credit_weight = credit_weight
        self._pace = Pace(deadline)
        # known mines: proven ones and trusted flags (a doubted flag is an unknown like any other)
        self._known = a.mines | a.known_mines
        self._tally: dict[Structure, int] = {}
        self._counts: CountCache = {}  # the tallies' component counts (most are shared)
        self._enablers: dict[int, int] | None = None
        self._scan: list[Structure] | None = None
        self._root: _Root | None = None
        self._plain = system.mines_left is None  # (then every tally is counted as a whole)
        # each cell as a structure's cell (covered, not a known mine) and as a flank, found once
        # (the structures around the candidates look at the same cells again and again)
        # (as bytes: the collector does not walk them while the look-ahead searches)
        st = position.states
        hidden = bytearray(st.translate(COVERED_MASK))
        flank = bytearray(st.translate(_FLANK_OF_STATE))
        for m in self._known:
            hidden[m] = 0
            if flank[m] == _MISSING:
                flank[m] = _KNOWN
        for c in a.safe:
            flank[c] = _BLOCK
        self._hid = bytes(hidden)
        self._flank = bytes(flank)
        left = system.mines_left
        self._room = None if left is None else left - len(a.mines)
        """Further mines a structure may need (None: any number)."""

    # --------------------------------------------------------------------- structures
    def _hidden(self, r: int, c: int) -> bool:
        p = self.position
        if not (0 <= r < p.height and 0 <= c < p.width):
            return False
        return self._hid[r * p.width + c] != 0

    def _make(
        self, cells: tuple[int, ...], r: int, c: int, flanks: tuple[tuple[int, int], ...], limit: int
    ) -> Structure | None:
        """The structure of ``cells`` whose flanks are the steps ``flanks`` from ``(r, c)``, or None
        when it cannot form (a flank is revealed or proven safe) or needs more than ``limit``
        further mines."""
        p = self.position
        w, h = p.width, p.height
        flank = self._flank
        missing: list[int] = []
        for dr, dc in flanks:
            rr, cc = r + dr, c + dc
            if not (0 <= rr < h and 0 <= cc < w):
                continue
            f = rr * w + cc
            k = flank[f]
            if k == _BLOCK:
                return None
            if k == _MISSING:
                missing.append(f)
                if len(missing) > limit:
                    return None
        need = len(missing) + (1 if len(cells) == 2 else 2)
        room = self._room
        if room is not None and need > room:
            return None
        return Structure(cells, tuple(missing))

    def _pair_h(self, r: int, c: int, limit: int) -> Structure | None:
        if not (self._hidden(r, c) and self._hidden(r, c + 1)):
            return None
        w = self.position.width
        return self._make((r * w + c, r * w + c + 1), r, c, _PAIR_H, limit)

    def _pair_v(self, r: int, c: int, limit: int) -> Structure | None:
        if not (self._hidden(r, c) and self._hidden(r + 1, c)):
            return None
        w = self.position.width
        return self._make((r * w + c, (r + 1) * w + c), r, c, _PAIR_V, limit)

    def _box(self, r: int, c: int, limit: int) -> Structure | None:
        if not (self._hidden(r, c) and self._hidden(r, c + 1)):
            return None
        if not (self._hidden(r + 1, c) and self._hidden(r + 1, c + 1)):
            return None
        w = self.position.width
        cells = (r * w + c, r * w + c + 1, (r + 1) * w + c, (r + 1) * w + c + 1)
        return self._make(cells, r, c, _BOX, limit)

    def scan(self) -> list[Structure]:
        """Every structure over the board that needs at most ``SCAN_MISSING`` more mines (pairs)
        or none (boxes)."""
        if self._scan is None:
            self._scan = self.scan_from(self._anchors())
        return self._scan

    def scan_from(self, anchors: list[int]) -> list[Structure]:
        """The structures :meth:`scan` finds, started at the cells ``anchors`` only (their
        top-left cells; :meth:`scan` starts at those near a known mine)."""
        p = self.position
        found = []
        for cell in anchors:
            r, c = divmod(cell, p.width)
            for s in (
                self._pair_h(r, c, SCAN_MISSING),
                self._pair_v(r, c, SCAN_MISSING),
                self._box(r, c, SCAN_MISSING - 1),
            ):
                if s is not None:
                    found.append(s)
        return found

    def _anchors(self) -> list[int]:
        """The cells a scanned structure can start at (its top-left cell). On a board of at least
        4x4 every structure has two flanks on the board (a box one), so with at most
        ``SCAN_MISSING`` missing it has a known mine among them, within two steps of its start:
        only the cells that near a known mine are tried."""
        p = self.position
        w, h = p.width, p.height
        if w < 4 or h < 4:
            return list(self.a.unknown)
        near = [False] * (w * h)  # (marks, not a set of cells: compiled, no object per cell)
        for m in self._known:
            r, c = divmod(m, w)
            lo, hi = max(0, c - 2), min(w, c + 3)
            for rr in range(max(0, r - 2), min(h, r + 3)):
                for cell in range(rr * w + lo, rr * w + hi):
                    near[cell] = True
        return [cell for cell in self.a.unknown if near[cell]]

    def _around(self, cell: int) -> list[tuple[str, Structure]]:
        """The pairs and boxes through ``cell`` that could still form, pairs first (a list: no
        generator, compiled)."""
        r, c = divmod(cell, self.position.width)
        out: list[tuple[str, Structure]] = []
        for s in (
            self._pair_h(r, c, CREDIT_MISSING),
            self._pair_h(r, c - 1, CREDIT_MISSING),
            self._pair_v(r, c, CREDIT_MISSING),
            self._pair_v(r - 1, c, CREDIT_MISSING),
        ):
            if s is not None:
                out.append(("pair", s))
        for dr in (0, -1):
            for dc in (0, -1):
                s = self._box(r + dr, c + dc, CREDIT_MISSING)
                if s is not None:
                    out.append(("box", s))
        return out

    # --------------------------------------------------------------------- counts
    def tally(self, s: Structure) -> int:
        """Layouts in which ``s`` is formed, in one orientation (the other has as many)."""
        got = self._tally.get(s)
        if got is None:
            if not self._pace.fits():
                self._tally[s] = 0  # out of time: counted as never formed
                return 0
            extra: list[Constraint] = [((m,), 1, -1) for m in (*s.missing, *s.mines)]
            extra += [((c,), 0, -1) for c in s.safe]
            sys = self.system
            try:
                found = None if self._plain else self._touched(extra)
                got = (
                    count_layouts(
                        System(sys.unknown, [*sys.constraints, *extra], sys.mines_left, sys.known_mines),
                        COUNT_LIMIT.states,
                        self._counts,
                    )
                    if found is None
                    else found
                )
            except (InconsistentPosition, OverBudget):  # never formed, or too many to count
                got = 0
            self._pace.done()
            self._tally[s] = got
        return got

    def _touched(self, extra: list[Constraint]) -> int | None:
        """:func:`count_layouts` of the system with the unit constraints ``extra``, counting again
        only the components they touch (None when the plain count must run: the pair rule would
        run before it). The same count, and the same :class:`OverBudget`: the number rule leaves
        the other components as they are at the root, and they are counted by the same calls."""
        root = self._root
        if root is None:
            try:
                root = self._root = _Root(self.system, COUNT_LIMIT.states)
            except InconsistentPosition:
                self._plain = True
                return None
        return root.count(extra, self.system, self._counts)

    def _mine_tally(self, cell: int) -> tuple[int, int]:
        """(layouts where ``cell`` is a mine, all layouts)."""
        n, d = self.a.ratios[cell]
        total = self.a.solutions or 0
        return total * n // d, total

    def pseudos(self) -> list[int]:
        """Every cell that is safe or part of a coin toss the game cannot avoid, in scan order.

        Opening any of them costs only what the game loses anyway, but they are not worth the
        same: a box can hold three such cells, of which one shows a number that settles the rest
        of the board and another shows the same number in every layout (the caller chooses)."""
        found: list[int] = []
        for s in self.scan():
            t = self.tally(s)
            if not t:
                continue
            for cell in s.cells:
                if cell not in found and self._mine_tally(cell)[0] == t:
                    found.append(cell)
        return found

    def credit(self, cell: int) -> int:
        """Layouts in which a mine at ``cell`` would cost at most what the game loses anyway: the
        pairs through it summed, the best box, and the structures it is a missing flank of (capped
        at the layouts where it is a mine and where it is safe)."""
        pairs = 0
        box = 0
        for kind, s in self._around(cell):
            t = self.tally(s)
            if kind == "pair":
                pairs += t
            else:
                box = max(box, t)
        total_mines, total = self._mine_tally(cell)
        credit = pairs + box + self.enablers().get(cell, 0)
        return min(credit, total_mines, total - total_mines)

    def enablers(self) -> dict[int, int]:
        """For each missing flank of a scanned structure, the layouts of the structures it enables."""
        if self._enablers is None:
            out: dict[int, int] = {}
            for s in self.scan():
                if s.missing:
                    t = self.tally(s)
                    for f in s.missing:
                        out[f] = out.get(f, 0) + t
            self._enablers = out
        return self._enablers

    def influenced(self) -> set[int]:
        """Cells with some credit from the board-wide scan (extra look-ahead candidates)."""
        cells: set[int] = set(self.enablers())
        for s in self.scan():
            if self.tally(s):
                cells.update(s.cells)
        return cells

    def long_term_safety(self, cell: int) -> Fraction:
        """``(layouts where cell is safe + credit_weight x credit) / layouts``."""
        return Fraction(*self.long_term_ratio(cell))

    def long_term_ratio(self, cell: int) -> tuple[int, int]:
        """:meth:`long_term_safety` as ``(numerator, denominator)``, not in lowest terms (for
        exact comparisons without a Fraction)."""
        mines, total = self._mine_tally(cell)
        wn, wd = self.credit_weight.numerator, self.credit_weight.denominator
        return (total - mines) * wd + wn * self.credit(cell), total * wd


def count_layouts(system: System, state_cap: int, cache: CountCache) -> int:
    """The count of layouts of ``system``: the ``solutions`` of
    :func:`~demine.analysis.exact.solve_system` without a time limit, by the same steps (the same
    rules, components and counts, so the same :class:`OverBudget` past ``state_cap`` stored
    states), without the probabilities; the components' counts are kept in ``cache``. Raises
    :class:`InconsistentPosition` when no layout is left."""
    prop = Propagator(system.constraints, system.describe, system.flag_note)
    prop.run_numbers()
    comps, _, n_frontier, off, left = frontier(system, prop)
    polys = [_count_cached(c, n_frontier if left is None else left, None, state_cap, cache).W for c in comps]
    if left is None:  # (the count solve_system gives without a mine total)
        z = 1 << len(off)
        for W in polys:
            z *= sum(W)
    else:
        z = layouts(polys, len(off), left)
    if not z:
        raise InconsistentPosition("these numbers cannot all hold", ())
    return z


class _Root:
    """A system after its number rule, split into components once, for counts of the system
    with a few unit constraints added (:meth:`count`): a unit constraint changes only the
    component of its cell (the number rule's fixed point elsewhere is the same), so the others
    are not set up, ruled or split again. The components the constraints touch are made from
    the root's remaining constraints of those components, in their order, with the constraints
    added: the same boxes and constraints, in the same order, as the whole system's rules give."""

    def __init__(self, system: System, state_cap: int) -> None:
        """``state_cap``: the stored states a component's count may use (:func:`count_layouts`'s)."""
        assert system.mines_left is not None
        self.cap = state_cap
        # (the number rule without reasons: the same cells decided, the same constraints left)
        self.decided, self.rest = number_rule(system.constraints)
        self.comps = components(self.rest)
        self.comp_of: dict[int, int] = {}
        for k, comp in enumerate(self.comps):
            for box in comp.boxes:
                for c in box:
                    self.comp_of[c] = k
        self.cons_of: list[list[int]] = [[] for _ in self.comps]
        for i, (cs, _, _) in enumerate(self.rest):
            self.cons_of[self.comp_of[cs[0]]].append(i)
        placed = set(self.comp_of)
        placed.update(self.decided)
        self.off = {c for c in system.unknown if c not in placed}
        self.left = system.mines_left - sum(self.decided.values())
        self.wide = [wide([comp]) for comp in self.comps]
        self.kept: dict[tuple[int, int], list[int]] = {}
        """Each untouched component's layouts by mine count, by (component, mines left)."""

    def count(self, extra: list[Constraint], system: System, cache: CountCache) -> int | None:
        """The layouts of ``system`` (this root's) with the unit constraints ``extra``: the
        count :func:`count_layouts` gives (the same :class:`OverBudget` and
        :class:`InconsistentPosition`), or None when the pair rule would run first (a wide
        component: the caller counts the whole system)."""
        decided, comp_of = self.decided, self.comp_of
        touched: set[int] = set()
        units: list[Constraint] = []
        off: dict[int, int] = {}
        for cs, v, lab in extra:
            (c,) = cs
            d = decided.get(c)
            if d is not None:
                if d != v:
                    raise InconsistentPosition("a structure's cell is decided the other way", ())
                continue
            k = comp_of.get(c)
            if k is None:
                if off.get(c, v) != v:
                    raise InconsistentPosition("a structure's cell is set both ways", ())
                off[c] = v
            else:
                touched.add(k)
                units.append((cs, v, lab))
        rows = sorted(i for k in touched for i in self.cons_of[k])
        found, rest = number_rule([*(self.rest[i] for i in rows), *units])
        comps = components(rest)
        left = self.left - sum(found.values()) - sum(off.values())
        if left < 0:
            raise InconsistentPosition("too few mines left for the structure", ())
        if wide(comps) or any(self.wide[k] for k in range(len(self.comps)) if k not in touched):
            return None
        polys = []
        for k, comp in enumerate(self.comps):
            if k not in touched:
                W = self.kept.get((k, left))
                if W is None:
                    W = self.kept[(k, left)] = _count_cached(comp, left, None, self.cap, cache).W
                polys.append(W)
        for comp in comps:
            polys.append(_count_cached(comp, left, None, self.cap, cache).W)
        n_off = len(self.off) - sum(1 for c in off if c in self.off)
        z = layouts(polys, n_off, left)
        if not z:
            raise InconsistentPosition("these numbers cannot all hold", ())
        return z
