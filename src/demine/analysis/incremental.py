"""Analyses of the positions a search imagines, each derived from the one before it.

A look-ahead analyses the position after each number a candidate cell could show, and the
positions after those. Each such position differs from the one before in one cell, and that cell
touches at most a few of the frontier's independent components: a :class:`Frame` keeps a
position's components (their constraints after the number rule, and their counts), and
:meth:`Frame.after` rebuilds, propagates and counts only the components the new number touches.
The others are shared, uncounted and unordered again.

The result is the analysis :func:`~demine.analysis.exact.solve_system` gives on the derived
position's system, as exact numbers: the same layouts are counted, so every probability is the
same fraction and the count of layouts the same integer (the ``(numerator, denominator)`` pairs
may differ by a common factor; tested against a fresh analysis). Rules decide cells in another
order (the number rule runs only where the new number reached), which changes no probability.

Only positions with a known mine total are derived here; a cell's own number is read with the
flags trusted (the look-ahead's systems).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import partial
from typing import Any, cast

from demine.analysis.constraints import (
    Component,
    System,
    _describer,
    _number_constraint,
    components,
    constraints_of,
)
from demine.analysis.exact import (
    CountCache,
    Gathered,
    _count_cached,
    count_component,
    ruled,
    wide,
)
from demine.analysis.order import Piece, elimination_order, plan_slots
from demine.analysis.parts import Part, Path, Search, _own_lowest, by_rank
from demine.analysis.result import Analysis, Limit, reasons_of
from demine.analysis.rules import Constraint, Propagator, number_rule_if
from demine.analysis.totals import off_weights, prefix_products, quotient, weights_with_total
from demine.engine.position import Position
from demine.errors import InconsistentPosition


def _label(con: Constraint) -> int:
    """A constraint's label (its number's cell)."""
    return con[2]


def _mines(decided: dict[int, int]) -> int:
    """The mines among ``decided`` cells (1 a mine, 0 safe); a loop: compiled, ``sum`` of a
    dict's values is a generic call."""
    n = 0
    for v in decided.values():
        n += v
    return n


class Frame:
    """A position with a known mine total, analysed component by component (see the module's
    docstring). Built for the root of a search by :meth:`root`, then derived by :meth:`after`."""

    __slots__ = (
        "_multi",
        "_off",
        "_origin",
        "_part_of",
        "_position",
        "_totaled",
        "_weighed",
        "decided",
        "gone",
        "known_mines",
        "mines_left",
        "n_off",
        "note",
        "parts",
        "path",
        "search",
    )

    def __init__(
        self,
        position: Position | None,
        mines_left: int,
        known_mines: frozenset[int],
        note: str,
        decided: dict[int, int],
        parts: list[Part],
        n_off: int,
        search: Search,
        path: Path = (),
        gone: tuple[int, ...] = (),
        origin: tuple[Position, int, int] | None = None,
    ) -> None:
        self._position = position
        self._origin = origin
        """Without ``position``: the position it is derived from, the cell opened and its number
        (:attr:`position` made from them when asked for: most frames of a search never are)."""
        self.mines_left = mines_left
        self.known_mines = known_mines
        self.note = note
        self.decided = decided
        """Cells the rules decided: 1 a mine, 0 safe."""
        self.parts = parts
        self.n_off = n_off
        """How many unknown cells are in no constraint and not decided (:attr:`off`)."""
        self.gone = gone
        """The cells off the frontier at the search's root that are no longer (a number joined
        them to it, or they were opened)."""
        self._off: list[int] | None = None
        self.search = search
        """What the frames of its search share."""
        self.path = path
        """The cells opened since the search's root and their numbers, in cell order."""
        self._part_of: dict[int, Part] | None = None
        self._weighed: tuple[int, int, list[list[int]]] | None = None
        self._multi: dict[int, list[int]] | None = None
        """The weighed boxes :meth:`lowest` made, by part (those of more than one mine total):
        :meth:`_weigh` takes them instead of weighing those parts again."""
        self._totaled: tuple[int, list[list[int]], list[list[int]], int, int] | None = None

    @classmethod
    def root(
        cls,
        system: System,
        position: Position,
        cache: CountCache,
        limit: Limit,
        deadline: float | None = None,
    ) -> Frame:
        """The frame of ``system`` (``position``'s, with a known mine total), its components
        counted into ``cache``. Raises :class:`InconsistentPosition` for an impossible system and
        :class:`~demine.analysis.order.OverBudget` past ``deadline`` or ``limit.states``."""
        if system.mines_left is None:
            raise ValueError("a frame needs a known mine total")
        prop = Propagator(system.constraints, system.describe, system.flag_note)
        prop.run_numbers()
        _, comps = ruled(prop, deadline)
        decided = dict(prop.decided)
        left = system.mines_left - sum(decided.values())
        if left < 0:
            raise InconsistentPosition("the numbers need more mines than are left", (), mine_count=True)
        parts = [
            Part(constraints_of(c), _count_cached(c, left, deadline, limit.states, cache)) for c in comps
        ]
        placed = {c for p in parts for box in p.counted.comp.boxes for c in box}
        placed.update(decided)
        off = [c for c in system.unknown if c not in placed]
        return cls(
            position,
            system.mines_left,
            system.known_mines,
            system.flag_note,
            decided,
            parts,
            len(off),
            Search(cache, limit.states, list(system.unknown), off),
        )

    def _shape(self, local: list[Constraint], deadline: float | None) -> list[Piece] | None:
        """The components of ``local`` (constraints in label order that no rule changes) as
        pieces whose values are filled in from ``local``: made once per structure (the cells and
        labels) and kept in the search's cache; None when a component is wide enough for the
        pair rule to run first (:func:`~demine.analysis.exact.wide`)."""
        key = tuple([(cs, lab) for cs, _, lab in local])
        shapes = self.search.shapes
        if key in shapes:
            return shapes[key]
        comps = components(local)
        got: list[Piece] | None = None
        if not wide(comps, deadline):
            index = {lab: i for i, (_, _, lab) in enumerate(local)}
            got = [Piece(comp, [index[lab] for lab in comp.cons_label]) for comp in comps]
        shapes[key] = got
        return got

    @property
    def position(self) -> Position:
        """The frame's position."""
        if self._position is None:
            assert self._origin is not None  # (a frame has one or the other)
            base, cell, value = self._origin
            self._position = base.with_state(cell, value)
        return self._position

    @property
    def off(self) -> list[int]:
        """The unknown cells in no constraint and not decided, in cell order: the root's without
        those gone since (made when asked for: most frames of a search only count them)."""
        if self._off is None:
            gone = self.gone
            off = self.search.off
            self._off = [c for c in off if c not in gone] if gone else off
        return self._off

    def least_off(self, rank: Sequence[int]) -> int:
        """The cell off the frontier with the lowest ``(rank[cell], cell)`` (there must be one):
        the root's off cells are put in that order once per search (for one rank:
        :func:`~demine.analysis.parts.by_rank`)."""
        search = self.search
        ranked = search.ranked
        if ranked is None or ranked[0] is not rank:
            ranked = search.ranked = (rank, by_rank(search.off, rank))
        gone = self.gone
        for c in ranked[1]:
            if c not in gone:
                return c
        raise ValueError("no cell off the frontier")

    @property
    def unknown(self) -> list[int]:
        """The covered cells (the system's unknown cells), in cell order: the root's without
        those opened since (made when asked for: most frames of a search never are)."""
        if not self.path:
            return self.search.unknown
        opened = {c for c, _ in self.path}
        return [c for c in self.search.unknown if c not in opened]

    def part_of(self, cell: int) -> Part | None:
        """The part whose constraints hold ``cell`` (None: decided or off the frontier)."""
        if self._part_of is None:
            self._part_of = {c: p for p in self.parts for box in p.counted.comp.boxes for c in box}
        return self._part_of.get(cell)

    def after(self, after: Position, cell: int, deadline: float | None = None) -> Frame:
        """The frame of ``after``: this frame's position with ``cell`` (covered here) showing a
        number. Only the parts the number touches are rebuilt and counted. Raises
        :class:`InconsistentPosition` when the number cannot hold, and
        :class:`~demine.analysis.order.OverBudget` past ``deadline`` or the state budget."""
        got = self.after_if(after, cell, deadline)
        if got is None:
            raise InconsistentPosition("these numbers cannot all hold", ())
        return got

    def after_if(self, after: Position, cell: int, deadline: float | None = None) -> Frame | None:
        """:meth:`after`, or None (no exception to make and catch) for a number the number rule
        finds cannot hold; a frame may still have no layout (:meth:`possible`)."""
        value = after.states[cell]
        return self._after(after, cell, value, deadline, tuple(sorted((*self.path, (cell, value)))))

    def _after(
        self, after: Position | None, cell: int, value: int, deadline: float | None, path: Path
    ) -> Frame | None:
        """:meth:`after_if`, ``cell`` showing ``value``, its path (``path``) made by the caller;
        ``after`` may be None (the position is then made only if the frame's is asked for)."""
        decided = self.decided
        if decided.get(cell) == 1:
            raise InconsistentPosition("a proven mine cannot show a number", (cell,))
        # (without ``after``, from this frame's position: the cell's neighbours are the same)
        seen = after if after is not None else self.position
        own = _number_constraint(seen, cell, True, seen.geometry.neighbours(cell), value)
        # (cells as the objects they are, typed Any: compiled, an int past 256 made anew is new)
        at: Any = cell
        local: list[Constraint] = []
        home = self.part_of(cell)
        touched: list[Part] = [] if home is None else [home]  # (in the order met, by identity)
        part_of = self._part_of or {}  # (made by part_of)
        new_off: set[int] = set()
        if own is not None:
            cells: list[Any] = []
            need = own[1]
            for c in cast(Any, own[0]):
                v = decided.get(c)
                if v is not None:
                    need -= v
                    continue
                cells.append(c)
                p = part_of.get(c)
                if p is None:
                    new_off.add(c)
                elif p not in touched:
                    touched.append(p)
            if cells or need:
                local.append((tuple(cells), need, cell))
        for p in touched:
            for cs, v, lab in p.cons:
                if at in cs:
                    cs = tuple([c for c in cast(Any, cs) if c != at])
                local.append((cs, v, lab))
        local.sort(key=_label)
        # (a cell decided here is safe: the mines left are the same without it)
        left = self.mines_left - _mines(decided)
        # (the parts are the same for any number of mines left from the constraints' cells up:
        # a count reads the mines left only up to its own cells)
        size = 0
        for cs, _, _ in local:
            size += len(cs)
        key = (tuple(local), min(left, size))
        rebuilt = self.search.rebuilt
        if key in rebuilt:
            got = rebuilt[key]
            if got is None:
                return None
        else:
            try:
                got = self._rebuild(local, left, after, cell, value, deadline)
            except InconsistentPosition:
                rebuilt[key] = None
                raise
            rebuilt[key] = got
            if got is None:
                return None
        found, made = got
        if found or cell in decided:
            decided = dict(decided)
            decided.pop(cell, None)
            decided.update(found)
            left -= sum(found.values())
        parts = [p for p in self.parts if p not in touched]
        parts += made
        if left < 0:
            raise InconsistentPosition("the numbers need more mines than are left", (), mine_count=True)
        n_off = self.n_off
        gone = self.gone
        if new_off or home is None:  # cells off the frontier joined it (or were opened)
            out = list(new_off)
            if home is None and cell not in self.decided:
                out.append(cell)
            if out:
                gone = (*gone, *out)
                n_off -= len(out)
        return Frame(
            after,
            self.mines_left,
            self.known_mines,
            self.note,
            decided,
            parts,
            n_off,
            self.search,
            path,
            gone,
            None if after is not None else (self.position, cell, value),
        )

    def _rebuild(
        self,
        local: list[Constraint],
        left: int,
        after: Position | None,
        cell: int,
        value: int,
        deadline: float | None,
    ) -> tuple[dict[int, int], list[Part]] | None:
        """The parts of ``local`` (constraints in label order, ``left`` mines left for them and
        the parts they do not touch), counted, and the cells its rules decide; None or raises as
        :meth:`after_if` does (kept by it per search). ``after``: the position with
        ``cell`` showing ``value`` (made here only if the rules need to name its numbers)."""
        cache = self.search.cache
        states = self.search.states
        found: dict[int, int] = {}
        rest = local
        for cs, v, _ in local:
            if v <= 0 or v >= len(cs):
                # the number rule fires: what it leaves (in label order, no value 0 or full) is
                # counted as a list of constraints where no rule fires is
                got = number_rule_if(local)
                if got is None:
                    return None
                found, rest = got
                break
        # the parts are the shape's (known from an earlier number of the same cell, or another
        # search step), with these values
        shape = self._shape(rest, deadline)
        parts = []
        if shape is None:
            # wide (:func:`wide` of the components of ``rest``, by their structure): the pair
            # rule runs first, as :func:`ruled` runs it (the components made after it)
            named = after if after is not None else self.position.with_state(cell, value)
            prop = Propagator(local, _describer(named), self.note)
            prop.run_numbers()
            prop.run_all()
            comps = components(prop.remaining())
            found = dict(prop.decided)
            left -= sum(found.values())
            for comp in comps:
                parts.append(Part(constraints_of(comp), _count_cached(comp, left, deadline, states, cache)))
            return found, parts
        left -= sum(found.values())
        for piece in shape:
            cons = [rest[i] for i in piece.members]
            values = [v for _, v, _ in cons]
            # (_count_cached's key; with at least as many mines left as the piece has cells,
            # the count is the same whatever their number)
            key = (piece.boxes, piece.links, tuple(values), min(left, piece.cells))
            counted = cache.get(key)
            if counted is None or piece.order is None:
                shared = piece.comp
                comp = Component(shared.boxes, shared.box_cons, values, shared.cons_label, shared.cons_boxes)
                if piece.order is None:  # (for the values first met, as the count's was)
                    piece.order = elimination_order(comp, deadline)
                    piece.slots = plan_slots(comp, piece.order)
                if counted is None:
                    counted = count_component(comp, left, deadline, states, piece.order, piece.slots)
                    cache[key] = counted
            parts.append(Part(cons, counted))
        return found, parts

    def _weigh(self, deadline: float | None) -> tuple[int, int, list[list[int]]]:
        """Over all layouts: the weight of those with a mine on one given cell off the frontier,
        the count of layouts, and per part each box's weighted mine count (raises
        :class:`InconsistentPosition` when no layout is left); made once per frame."""
        if self._weighed is None:
            self._weighed = self._weigh_now(deadline)
        return self._weighed

    def _count(self, deadline: float | None) -> int:
        """The count of layouts (:meth:`_weigh`'s second number, without the weights; raises
        :class:`InconsistentPosition` when it is 0)."""
        return self._totals(deadline)[4]

    def _totals(self, deadline: float | None) -> tuple[int, list[list[int]], list[list[int]], int, int]:
        """The mines left off the decided cells, the parts' counts by mine total and their
        :func:`prefix_products`, and :func:`off_weights` of them all: the weight of the layouts
        with a mine on one given cell off the frontier and the count of layouts (raises
        :class:`InconsistentPosition` when it is 0). Made once per frame."""
        if not self.possible(deadline):
            raise InconsistentPosition("these numbers cannot all hold", ())
        assert self._totaled is not None  # (made by possible)
        return self._totaled

    def possible(self, deadline: float | None = None) -> bool:
        """Whether a layout is left (:meth:`_totals`'s count, made once; no exception)."""
        if self._totaled is None:
            left = self.mines_left - _mines(self.decided)
            polys = [p.counted.W for p in self.parts]
            pre = prefix_products(polys, deadline)
            num, z = off_weights(pre[-1], self.n_off, left)
            self._totaled = (left, polys, pre, num, z)
        return self._totaled[4] != 0

    def _weigh_now(self, deadline: float | None) -> tuple[int, int, list[list[int]]]:
        left, polys, pre, num, z = self._totals(deadline)
        weights = weights_with_total(polys, pre, self.n_off, left, deadline)
        parts = self.parts
        made = self._multi or {}
        return num, z, [made[i] if i in made else parts[i].weighted(weights[i]) for i in range(len(parts))]

    def survival_after(
        self, cell: int, value: int, deadline: float | None = None
    ) -> tuple[int, float] | None:
        """``self.after(after, cell, deadline).survival(deadline)`` where ``after`` is this
        frame's position with ``cell`` showing ``value`` (not made), counted once per position in
        a search: two cells opened in either order give the same position (a candidate's number
        and then another candidate's, or the other way round), and its survival is kept by path
        (the count and the chance are those of the position, whatever frame they are derived
        from). None for an impossible position (where those raise: no exception to make and
        catch in the search, where many numbers cannot hold); raises OverBudget as they do."""
        key = tuple(sorted((*self.path, (cell, value))))
        survived = self.search.survived
        if key in survived:
            return survived[key]
        got: tuple[int, float] | None = None
        try:
            frame = self._after(None, cell, value, deadline, key)
            if frame is not None and frame.possible(deadline):
                got = frame.survival(deadline)
        except InconsistentPosition:
            pass
        survived[key] = got
        return got

    def survival(self, deadline: float | None = None) -> tuple[int, float]:
        """The frame's count of layouts, and the chance to survive one more reveal: 1 with a
        proven safe cell or no cell left that could be safe, else one minus the lowest chance of
        a mine (as ``Analysis.min_probability`` gives it, as a float), without the analysis's
        table of every cell."""
        z, n, d = self.lowest(deadline)
        return z, 1.0 if n == 0 or n == d else 1.0 - quotient(n, d)

    def lowest(self, deadline: float | None = None) -> tuple[int, int, int]:
        """The frame's count of layouts and its lowest chance of a mine as ``(numerator,
        denominator)``: the value of its analysis's ``min_probability`` (0 when a cell is proven
        safe; 1 when every covered cell is a mine), without the analysis's table of every cell
        (the pair may be written with other numbers than the analysis's). Raises as
        :meth:`analysis` does."""
        if 0 in self.decided.values():
            # a cell is proven safe: only the count is needed, not each box's weight
            return (self._count(deadline) if self._weighed is None else self._weighed[1]), 0, 1
        best_n, best_d = 1, 1
        if self._weighed is not None:
            num, z, weighed = self._weighed
            parts = self.parts
        else:
            # a part with one mine total has the same chances whatever the rest weighs
            # (:func:`_own_lowest`): only the other parts are weighed
            left, polys, pre, num, z = self._totals(deadline)
            multi = []
            for i, p in enumerate(self.parts):
                low = _own_lowest(p.counted)
                if low[0] < 0:
                    multi.append(i)
                    continue
                n, d = low
                if n == 0:
                    return z, 0, 1
                if n * best_d < best_n * d:
                    best_n, best_d = n, d
            parts = [self.parts[i] for i in multi]
            Rs = weights_with_total(polys, pre, self.n_off, left, deadline, multi) if multi else []
            weighed = [parts[i].weighted(Rs[i]) for i in range(len(parts))]
            made: dict[int, list[int]] = {}
            for j in range(len(multi)):
                made[multi[j]] = weighed[j]
            self._multi = made
        # The boxes' chances are m / (len(cells) * z), one z for all: the first lowest box is
        # found comparing m * len (products of a large and a small number, where m * best_d
        # multiplied two large ones), then against the best before them (the same pair as
        # comparing each box in turn: the first lowest chance met). (index loops: compiled, a
        # zip with ``strict`` is a generic call)
        box_m, box_len = -1, 1
        for i in range(len(parts)):
            M = weighed[i]
            boxes = parts[i].counted.comp.boxes
            for b in range(len(M)):
                m = M[b]
                if m == 0:
                    return z, 0, 1
                size = len(boxes[b])
                if box_m < 0 or m * box_len < box_m * size:
                    box_m, box_len = m, size
        from_box = False
        if box_m >= 0:
            d = box_len * z
            if box_m * best_d < best_n * d:
                best_n, best_d = box_m, d
                from_box = True
        if self.n_off:
            if num == 0:
                return z, 0, 1
            # (against a box's chance: num / z < box_m / (box_len * z))
            if (num * box_len < box_m) if from_box else (num * best_d < best_n * z):
                best_n, best_d = num, z
        return z, best_n, best_d

    def chances(
        self, deadline: float | None = None
    ) -> tuple[int, list[int], list[tuple[tuple[int, int], tuple[int, ...]]], tuple[int, int] | None]:
        """What :meth:`analysis` gives, without its table of every cell: the count of layouts,
        the cells proven safe, each box of the parts with its chance of a mine as ``(numerator,
        denominator)`` (the same pair as the analysis's, one per box), and the chance of the
        cells off the frontier (None without any). Raises as :meth:`analysis` does."""
        num, z, weighed = self._weigh(deadline)
        safe = [c for c, v in self.decided.items() if v == 0]
        boxes = []
        for i in range(len(weighed)):  # (index loops: compiled, a zip with ``strict`` is a call)
            M = weighed[i]
            part_boxes = self.parts[i].counted.comp.boxes
            for b in range(len(M)):
                m = M[b]
                cells = part_boxes[b]
                boxes.append(((m, len(cells) * z), cells))
                if m == 0:
                    safe.extend(cells)
        off = None
        if self.n_off:
            off = (num, z)
            if num == 0:
                safe.extend(self.off)
        return z, safe, boxes, off

    def analysis(self, deadline: float | None = None) -> Analysis:
        """The frame's analysis: exact probabilities (what :func:`solve_system` gives on its
        system, as fractions), its safe cells and mines, its count of layouts; without reasons
        until asked for (then from a fresh analysis). Raises :class:`InconsistentPosition` when no
        layout is left, :class:`~demine.analysis.order.OverBudget` past ``deadline``."""
        t0 = time.perf_counter()
        decided = self.decided
        off = self.off
        n_off = len(off)
        num, z, weighed = self._weigh(deadline)
        g = Gathered(decided)
        assign = g.assign
        for p, M in zip(self.parts, weighed, strict=True):
            for b, cells in enumerate(p.counted.comp.boxes):
                assign(cells, (M[b], len(cells) * z))
        if n_off:
            assign(off, (num, z))
        position = self.position
        return Analysis(
            unknown=tuple(self.unknown),
            safe=frozenset(g.safe),
            mines=frozenset(g.mines),
            solutions=z,
            approximate=False,
            ms=(time.perf_counter() - t0) * 1000.0,
            known_mines=self.known_mines,
            _prob=g.prob,
            _reasons_fn=partial(reasons_of, position),  # (not a closure: see exact's)
            _values=g.values,
        )
