"""From what a player sees to a system of constraints, and from constraints to boxes and
independent components.

A *constraint* says how many mines lie among a set of unknown cells (one per revealed number on a
board). A *box* is a set of unknown cells that lie in exactly the same constraints: they are
interchangeable, so the counter treats a box of ``s`` cells as one variable 0..s weighted by the
binomial ``C(s, k)``. A *component* is a set of boxes linked by shared constraints; components are
independent except through the total mine count.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import compress
from typing import Any, Final

from demine.engine.grid import Geometry
from demine.engine.lanes import cell_numbers
from demine.engine.position import (
    COVERED,
    COVERED_MASK,
    FLAG,
    FLAG_MASK,
    HIDDEN_MASK,
    Position,
    changed_cells,
)
from demine.errors import InconsistentPosition, InputError
from demine.text import plural

#: Whether this module runs compiled (mypyc, an extension module): a loop over bytes or a list
#: then runs at C speed, faster than picking cells by a mask or collecting them in a set.
_COMPILED: Final = not __file__.endswith(".py")


@dataclass(slots=True)
class System:
    """Constraints over unknown cells, plus the mines left among them.

    ``constraints[i] = (cells, value, label)``; ``label`` names the source (a revealed cell on a
    board) for reasons and errors, through ``describe``.
    """

    unknown: list[int]
    """Every variable cell (also those in no constraint: the off-frontier cells)."""
    constraints: list[tuple[tuple[int, ...], int, int]]
    """``(cells, mines among them, label)``."""
    mines_left: int | None
    """Mines among the unknown cells; None when the total is not known."""
    known_mines: frozenset[int] = frozenset()
    """Cells taken as mines without analysis (trusted flags)."""
    describe: Callable[[int], str] = field(default=lambda label: f"constraint #{label}")
    """Names a label for messages."""
    flag_note: str = ""
    """Added to inconsistency messages when trusted flags may be the cause."""


def _number_constraint(
    position: Position, cell: int, trust_flags: bool, around: tuple[int, ...], value: int | None = None
) -> tuple[tuple[int, ...], int] | None:
    """The constraint of the revealed number at ``cell`` (None when no unknown cell is around it);
    raises :class:`InconsistentPosition` when its flags or covered cells make it impossible.
    ``value``: the number, when ``cell`` does not show it in ``position`` yet (a look-ahead's
    position before the cell is opened: its neighbours are the same)."""
    states = position.states
    v = states[cell] if value is None else value
    cells = []
    flags = 0
    for d in around:
        s = states[d]
        if s == COVERED:
            cells.append(d)
        elif s == FLAG:
            if trust_flags:
                flags += 1
            else:
                cells.append(d)
    need = v - flags
    if need < 0 or need > len(cells):
        geo = position.geometry
        r, c = divmod(cell, position.width)
        flagged = [d for d in around if states[d] == FLAG]
        if need < 0:
            names = ", ".join(geo.name(d) for d in flagged)
            msg = f"the {v} at ({r},{c}) has {plural(flags, 'flag')} around it ({names}): more than it allows"
        else:
            room = f"only {plural(len(cells), 'covered cell')}" if cells else "no covered cell"
            msg = f"the {v} at ({r},{c}) needs {plural(need, 'more mine')} but has {room} around it"
        raise InconsistentPosition(msg, (cell, *flagged))
    return (tuple(cells), need) if cells else None


def _describer(position: Position) -> Callable[[int], str]:
    """Names a number of ``position`` by its label (its cell): ``the 3 at (2,5)``. (A partial, not
    a closure: compiled, a closure and its environment are a cycle only the collector frees.)"""
    return partial(_describe, position.states, position.width)


def _describe(states: bytes, width: int, cell: int) -> str:
    r, c = divmod(cell, width)
    return f"the {states[cell]} at ({r},{c})"


def _finish(
    position: Position, trust_flags: bool, constraints: list[tuple[tuple[int, ...], int, int]]
) -> System:
    """The System of a position, given its constraints (in cell order)."""
    states = position.states
    cells = cell_numbers(len(states))
    if _COMPILED and trust_flags and isinstance(cells, tuple):
        # compiled, one pass over the states at C speed, the cells' number objects taken from
        # the kept tuple (typed Any: a number made from the loop's own integer would be a new
        # object for every cell past 256): a third of the time of the masks below
        nums: tuple[Any, ...] = cells
        unknown: list[Any] = []
        flags: list[Any] = []
        for c in range(len(states)):
            v = states[c]
            if v == COVERED:
                unknown.append(nums[c])
            elif v == FLAG:
                flags.append(nums[c])
        known = frozenset(flags)
    else:
        # cells picked by a byte mask at C speed (this runs at every decision of a game)
        unknown = list(compress(cells, states.translate(COVERED_MASK if trust_flags else HIDDEN_MASK)))
        known = frozenset(compress(cells, states.translate(FLAG_MASK))) if trust_flags else frozenset()

    mines_left = None
    if position.mines is not None:
        mines_left = position.mines - len(known)
        if mines_left < 0:
            raise InconsistentPosition(
                f"{len(known)} flags but only {position.mines} mines in all",
                tuple(sorted(known)),
                mine_count=True,
            )
    note = " (flags are trusted as mines; analyse with trust_flags=False to doubt them)" if known else ""
    return System(unknown, constraints, mines_left, known, _describer(position), note)


def system_after(system: System, after: Position, cell: int) -> System:
    """The system of ``after``, a position that differs from ``system``'s (built with trusted
    flags) only in ``cell``, covered there and now showing a number: what
    :func:`position_system` would give, without visiting the board. The look-ahead builds one
    such system for each number a candidate could show. Raises :class:`InconsistentPosition`
    when the number cannot hold with its flags and covered cells."""
    nb = after.geometry.neighbours(cell)
    own = _number_constraint(after, cell, True, nb)
    constraints: list[tuple[tuple[int, ...], int, int]] = []
    placed = own is None
    for cells, v, lab in system.constraints:
        if not placed and lab > cell:
            assert own is not None
            constraints.append((own[0], own[1], cell))
            placed = True
        if cell in cells:
            cells = tuple(d for d in cells if d != cell)
            if not cells:
                if v:  # the number needed a mine at cell: as position_system would, say so
                    _number_constraint(after, lab, True, after.geometry.neighbours(lab))
                continue
        constraints.append((cells, v, lab))
    if not placed:
        assert own is not None
        constraints.append((own[0], own[1], cell))
    unknown = system.unknown.copy()  # the cell dropped at C speed (the look-ahead makes many)
    with contextlib.suppress(ValueError):
        unknown.remove(cell)
    return System(
        unknown, constraints, system.mines_left, system.known_mines, _describer(after), system.flag_note
    )


def position_system(position: Position, *, trust_flags: bool = True) -> System:
    """The constraint system of a position. O(cells).

    With ``trust_flags`` the flags are mines and each number's value is reduced by its flags; a
    flag that makes a number impossible raises :class:`InconsistentPosition` naming both.
    Without it, flags are covered cells like any other.
    """
    geo = position.geometry
    table = geo.table()
    nb = geo.neighbours
    constraints: list[tuple[tuple[int, ...], int, int]] = []
    for cell, v in enumerate(position.states):
        if v >= COVERED:
            continue
        found = _number_constraint(
            position, cell, trust_flags, table[cell] if table is not None else nb(cell)
        )
        if found is not None:
            constraints.append((found[0], found[1], cell))
    return _finish(position, trust_flags, constraints)


class SystemTracker:
    """Keeps the constraint system of a game's positions up to date from one to the next.

    Between two positions only the numbers next to a changed cell are rebuilt: finding the changed
    cells is one pass over the states (fast for the board sizes people play), where a full rebuild
    visits every neighbour of every number. Gives exactly :func:`position_system`'s result.
    """

    def __init__(self, trust_flags: bool = True) -> None:
        self.trust_flags = trust_flags
        self._states: bytes | None = None
        self._shape: tuple[int, int] = (0, 0)
        self._cons: dict[int, tuple[tuple[int, ...], int, int]] = {}
        """Each number's constraint ``(cells, need, label)``, by its cell (the label)."""
        self._changed: set[int] | None = None

    def take_changed(self) -> set[int] | None:
        """The labels (number cells) whose constraint was made, changed or dropped by the systems
        given since the last call (None: every one, as after a rebuild from scratch); the caller
        takes them and the record starts over. For work kept across positions: a part of the
        system none of whose constraints changed gives what it gave before."""
        out = self._changed
        self._changed = set()
        return out

    def _look(self, position: Position, geo: Geometry, cell: int, key: Any) -> None:
        """Make, change or drop the constraint of ``cell`` (``key``: the same number) in
        ``position``, noting a change."""
        found = None
        if position.states[cell] < COVERED:
            found = _number_constraint(position, cell, self.trust_flags, geo.neighbours(cell))
        cons = self._cons
        record = self._changed
        if found is None:
            if cons.pop(key, None) is not None and record is not None:
                record.add(key)
        else:
            con = (found[0], found[1], key)
            if record is not None and cons.get(key) != con:
                record.add(key)
            cons[key] = con

    def system(self, position: Position) -> System:
        """The constraint system of ``position`` (a later position of the same game, or any)."""
        st = position.states
        geo = position.geometry
        shape = (position.width, position.height)
        n = position.cells
        try:
            old = self._states
            full = old is None or shape != self._shape
            if full:
                self._cons = {}
                self._changed = None
            if _COMPILED and n <= 65536:
                # the cells next to a change (or all), marked in a list and taken in cell order;
                # the dictionary and the set get the cells' number objects from a kept tuple
                # (typed Any: a number made from the loop's integer is a new object past 256)
                mark = [full] * n
                if old is not None and not full:
                    for c in changed_cells(old, st):
                        mark[c] = True
                        for d in geo.neighbours(c):
                            mark[d] = True
                nums: Sequence[Any] = cell_numbers(n)
                for cell in range(n):
                    if mark[cell]:
                        self._look(position, geo, cell, nums[cell])
            else:  # (pure Python, or past 65,536 cells: the cells next to a change in a set)
                cells: Iterable[int]
                if old is None or full:
                    cells = range(n)
                else:
                    changed = changed_cells(old, st)
                    touched: set[int] = set(changed)
                    for c in changed:
                        touched.update(geo.neighbours(c))
                    cells = sorted(touched)
                for cell in cells:
                    self._look(position, geo, cell, cell)
        except InconsistentPosition:
            self._states = None  # rebuild from scratch next time
            self._changed = None
            raise
        self._states = st
        self._shape = shape
        cons = self._cons
        # in cell order: the kept tuples, picked by their sorted keys (sorting the items, tuples
        # compared, and making each tuple again cost three times as much, compiled)
        constraints: list[tuple[tuple[int, ...], int, int]] = list(map(cons.__getitem__, sorted(cons)))
        return _finish(position, self.trust_flags, constraints)


def constraint_system(
    constraints: Iterable[tuple[Iterable[int], int]],
    *,
    cells: Iterable[int] | int,
    mines: int | None,
) -> System:
    """A system from hand-written constraints ``(cells, mines among them)``.

    ``cells`` is every variable (or a count ``n`` for ``range(n)``); variables in no constraint
    are free cells weighted by the total ``mines`` (None: no total is known).
    """
    unknown = list(range(cells)) if isinstance(cells, int) else sorted(set(cells))
    known = set(unknown)
    out = []
    for i, (group, value) in enumerate(constraints):
        cs = tuple(sorted(set(group)))
        missing = [c for c in cs if c not in known]
        if missing:
            raise InputError(f"constraint #{i} names cells {missing} that are not among the cells")
        if not isinstance(value, int) or value < 0:
            raise InputError(f"constraint #{i} has value {value!r}; it must be a whole number >= 0")
        out.append((cs, value, i))
    if mines is not None and (mines < 0 or mines > len(unknown)):
        raise InconsistentPosition(
            f"{mines} mines do not fit among {len(unknown)} cells", (), mine_count=True
        )
    return System(unknown, out, mines)


class Component:
    """Boxes linked by shared constraints. (A plain class, not a dataclass: compiled, a
    dataclass's ``__init__`` is the interpreted code the dataclass decorator makes.)"""

    __slots__ = ("box_cons", "boxes", "cons_boxes", "cons_label", "cons_value")

    def __init__(
        self,
        boxes: list[tuple[int, ...]],
        box_cons: list[list[int]],
        cons_value: list[int],
        cons_label: list[int],
        cons_boxes: list[list[int]] | None = None,
    ) -> None:
        self.boxes = boxes
        """The cells of each box."""
        self.box_cons = box_cons
        """For each box, the local indices of its constraints."""
        self.cons_value = cons_value
        """Each constraint's value."""
        self.cons_label = cons_label
        """Each constraint's label."""
        self.cons_boxes: list[list[int]] = [] if cons_boxes is None else cons_boxes
        """For each constraint, its boxes."""

    def __repr__(self) -> str:
        return (
            f"Component(boxes={self.boxes!r}, box_cons={self.box_cons!r}, cons_value={self.cons_value!r}, "
            f"cons_label={self.cons_label!r}, cons_boxes={self.cons_boxes!r})"
        )

    @property
    def cells(self) -> int:
        """Cells in the component."""
        n = 0
        for b in self.boxes:
            n += len(b)
        return n


def components(
    constraints: Sequence[tuple[Sequence[int], int, int]],
) -> list[Component]:
    """Group the constrained cells into boxes and split them into independent components.

    O(total constraint size) with a union-find over constraints. (Not bit masks over the
    constraints: their unions and tests grow with the number of constraints, each, so a board of
    thousands of them took 30 times as long; measured in docs/research/minesolve.md, the tenth run.)
    """
    # (the cells as objects, typed Any, for the dictionaries: a number made from the compiled
    # code's integer is a new object past 256; the union-find's lookups inline, not a closure)
    cell_cons: dict[Any, list[int]] = {}
    for i in range(len(constraints)):
        cells: Sequence[Any] = constraints[i][0]
        for c in cells:
            got = cell_cons.get(c)
            if got is None:
                cell_cons[c] = [i]
            else:
                got.append(i)
    parent = list(range(len(constraints)))
    boxes: dict[tuple[int, ...], list[Any]] = {}
    for c, cs in cell_cons.items():
        key = tuple(cs)
        got = boxes.get(key)
        if got is None:
            boxes[key] = [c]
        else:
            got.append(c)
        r0 = cs[0]
        while parent[r0] != r0:
            parent[r0] = parent[parent[r0]]
            r0 = parent[r0]
        for k in range(1, len(cs)):
            r = cs[k]
            while parent[r] != r:
                parent[r] = parent[parent[r]]
                r = parent[r]
            if r != r0:
                parent[r] = r0
    groups: dict[int, list[tuple[int, ...]]] = {}
    for key in boxes:
        r = key[0]
        while parent[r] != r:
            parent[r] = parent[parent[r]]
            r = parent[r]
        groups.setdefault(r, []).append(key)
    out = []
    for keys in groups.values():
        local: dict[int, int] = {}
        comp = Component([], [], [], [])
        for key in keys:
            for ci in key:
                if ci not in local:
                    local[ci] = len(comp.cons_value)
                    comp.cons_value.append(constraints[ci][1])
                    comp.cons_label.append(constraints[ci][2])
                    comp.cons_boxes.append([])
        for key in keys:
            b = len(comp.boxes)
            comp.boxes.append(tuple(sorted(boxes[key])))
            lc = [local[ci] for ci in key]
            comp.box_cons.append(lc)
            for ci in lc:
                comp.cons_boxes[ci].append(b)
        out.append(comp)
    return out


def constraints_of(comp: Component) -> list[tuple[tuple[int, ...], int, int]]:
    """A component's constraints, ``(sorted cells, value, label)``, in label order."""
    boxes = comp.boxes
    out = [
        (tuple(sorted(c for b in bs for c in boxes[b])), v, lab)
        for bs, v, lab in zip(comp.cons_boxes, comp.cons_value, comp.cons_label, strict=True)
    ]
    out.sort(key=lambda t: t[2])
    return out
