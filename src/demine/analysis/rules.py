"""The cheap rules, with reasons: one number alone, and two numbers together.

- **number**: a constraint whose remaining value is 0 (all its cells safe) or equals its remaining
  cells (all mines).
- **pair** (the subset rule and its generalisation): for constraints A and B, with
  ``a = A - B`` and ``b = B - A``: when ``value(B) - value(A) == |b|``, every cell of ``b`` is a
  mine and every cell of ``a`` is safe. With ``a`` empty this is the classic subset rule.

Both are sound: they never decide a cell that some consistent layout leaves the other way. They are
not complete; the exact counter is.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any, TypeVar

from demine.analysis.result import Reason
from demine.errors import InconsistentPosition

_C = TypeVar("_C")

try:
    from mypy_extensions import mypyc_attr
except ImportError:  # not installed (the engine needs nothing): the mark only matters to mypyc

    def mypyc_attr(*attrs: str, **kwattrs: object) -> Callable[[_C], _C]:
        return lambda cls: cls


Constraint = tuple[tuple[int, ...], int, int]


@mypyc_attr(allow_interpreted_subclasses=True)  # puzzles.find traces its proofs in a subclass
class Propagator:
    """Applies the cheap rules to a fixed point, recording a reason for each decided cell.

    ``decided`` maps cell -> 0 (safe) / 1 (mine). Costs O(total constraint size) for the number
    rule; the pair rule adds O(pairs of overlapping constraints) per round.
    """

    def __init__(
        self,
        constraints: Sequence[Constraint],
        describe: Callable[[int], str],
        note: str = "",
    ) -> None:
        # (the constraints' items read as objects: a number made again from the compiled code's
        # own integer is a new object for every cell past 256)
        # (one pass over the rows, each row's cells read from its tuple: compiled, a tuple is
        # read by index, a set through the generic iterator)
        rows: Sequence[tuple[tuple[Any, ...], Any, Any]] = constraints
        cells: list[set[int]] = []
        value: list[int] = []
        label: list[int] = []
        involved: list[set[int]] = []
        own: list[tuple[Any, ...]] = []
        cell_cons: dict[Any, list[int]] = {}
        for i, (cs, v, lab) in enumerate(rows):
            s = set(cs)
            cells.append(s)
            value.append(v)
            label.append(lab)
            involved.append({lab})
            if len(s) != len(cs):  # a cell written twice counts once
                cs = tuple(s)
            own.append(cs)
            for c in cs:
                got = cell_cons.get(c)
                if got is None:
                    cell_cons[c] = [i]
                else:
                    got.append(i)
        self.cells = cells
        self.value = value
        self.label = label
        self.involved = involved
        self.cell_cons: dict[int, list[int]] = cell_cons
        self._own = own
        """Each constraint's cells as given, once each (what :meth:`remaining` gives for a
        constraint none of whose cells is decided, when they are in order)."""
        self.decided: dict[int, int] = {}
        self.reasons: dict[int, Reason] = {}
        self.describe = describe
        self.note = note
        self._queue = list(range(len(self.cells)))
        self._queued = [True] * len(self.cells)
        self._near: list[list[int]] | None = None
        self.paired = False
        """Whether the pair rule is at its fixed point: :meth:`run_all` or :meth:`run_changed`
        ended, and no cell was decided since (running the rules again decides nothing)."""

    # ------------------------------------------------------------------ core
    def _conflict(self, i: int) -> InconsistentPosition:
        labels = sorted(self.involved[i])
        names = ", ".join(self.describe(lab) for lab in labels)
        if len(labels) == 1:
            msg = f"{names} cannot be satisfied{self.note}"
        else:
            msg = f"these numbers cannot all hold: {names}{self.note}"
        return InconsistentPosition(msg, tuple(labels))

    def decide(self, cell: int, value: int, reason: Reason) -> None:
        """Fix ``cell``; raises InconsistentPosition when it was fixed the other way."""
        old = self.decided.get(cell)
        if old is not None:
            if old != value:
                labels = set(reason.numbers) | set(self.reasons[cell].numbers)
                names = ", ".join(self.describe(lab) for lab in sorted(labels))
                raise InconsistentPosition(
                    f"these numbers cannot all hold: {names}{self.note}", tuple(sorted(labels))
                )
            return
        self.decided[cell] = value
        self.reasons[cell] = reason
        self.paired = False
        for i in self.cell_cons.get(cell, ()):
            self.cells[i].discard(cell)
            self.value[i] = self.value[i] - value  # (compiled: ``-=`` on an item is a generic call)
            self.involved[i].update(reason.numbers)
            if not self._queued[i]:
                self._queued[i] = True
                self._queue.append(i)

    def run_numbers(self) -> None:
        """The number rule, to a fixed point."""
        q = self._queue
        while q:
            i = q.pop()
            self._queued[i] = False
            cs, v = self.cells[i], self.value[i]
            if v < 0 or v > len(cs):
                raise self._conflict(i)
            if cs and (v == 0 or v == len(cs)):
                reason = Reason("number", (self.label[i],))
                val = 1 if v else 0
                for c in sorted(cs):
                    self.decide(c, val, reason)

    def _neighbours(self) -> list[list[int]]:
        """For each constraint, the others that share a cell with it, in order: found once, at
        the first round of the pair rule (cells only leave the constraints, so a constraint that
        shares none then shares none later, and the rule on such a pair does nothing)."""
        near = self._near
        if near is None:
            near = []
            cell_cons = self.cell_cons
            for i, A in enumerate(self.cells):
                others: set[int] = set()
                cells_o: set[Any] = A
                for c in cells_o:
                    others.update(cell_cons[c])
                others.discard(i)
                near.append(sorted(others))
            self._near = near
        return near

    def run_pairs(self) -> bool:
        """One round of the pair rule (then numbers again); returns whether anything changed."""
        changed = False
        cells = self.cells
        value = self.value
        n = len(cells)
        near = self._neighbours()
        for i in range(n):
            A = cells[i]
            if not A:
                continue
            for j in near[i]:
                # (sizes alone show when the rule can neither fire nor find a conflict, whatever
                # cells the two share: then not counted; see _pair)
                la, lb = len(A), len(cells[j])
                diff = value[j] - value[i]
                most = la if la < lb else lb
                if lb - diff > most and la + diff >= most:
                    continue
                before = len(self.decided)
                self._pair(i, j)
                if len(self.decided) != before:  # it fired (its cells were all undecided)
                    changed = True
                    if not A:
                        break
        return changed

    def run_all(self) -> None:
        """Numbers and pairs to a fixed point."""
        self.run_numbers()
        while self.run_pairs():
            pass
        self.paired = True

    def run_changed(self, labels: Collection[int]) -> None:
        """Numbers and pairs to a fixed point, when only the constraints labelled in ``labels``
        changed since the rules last found these constraints at a fixed point that decided
        nothing: the pair rule then looks only at pairs with such a constraint, then at pairs
        with one that a decision changed, round after round. The rules' fixed point is one
        whatever the order (a pair that could fire still fires, or its cells are decided, after
        other sound decisions), so the cells decided are those of :meth:`run_all`; the reasons
        may differ."""
        self.run_numbers()
        todo = {i for i, lab in enumerate(self.label) if lab in labels}
        todo.update(i for c in self.decided for i in self.cell_cons.get(c, ()))  # the number rule's
        while todo:
            before = len(self.decided)
            for i in sorted(todo):
                A = self.cells[i]
                if not A:
                    continue
                others: set[int] = set()
                cells_o: set[Any] = A
                for c in cells_o:
                    others.update(self.cell_cons[c])
                for j in sorted(others):
                    if j != i and not self._pair(i, j):
                        self._pair(j, i)
            todo = {i for c in list(self.decided)[before:] for i in self.cell_cons.get(c, ())}
        self.paired = True

    def _pair(self, i: int, j: int) -> bool:
        """The pair rule on constraints ``i`` and ``j``, ``i`` first (the cells of ``j`` alone are
        mines when its value exceeds ``i``'s by their count, and those of ``i`` alone are then
        safe), then the number rule when it decided cells. Returns whether the rule with
        ``j`` first need not be tried now: it fired (the next round looks at both again), or the
        sizes show it cannot. The sets of cells are made only for a rule that fires."""
        A, B = self.cells[i], self.cells[j]
        if not A or not B:
            return False
        # the cells in common counted without making their set (the cells read as objects: a
        # number made again from the compiled code's integer is a new object past 256)
        small: set[Any] = A if len(A) <= len(B) else B
        large: set[Any] = B if len(A) <= len(B) else A
        common = 0
        for c in small:
            if c in large:
                common += 1
        if not common:
            return False
        only_a, only_b = len(A) - common, len(B) - common
        diff = self.value[j] - self.value[i]
        if diff == only_b:
            if not only_a and not only_b:
                return False
            b, a = B - A, A - B
            reason = Reason("pair", (self.label[i], self.label[j]))
            for c in sorted(b):
                self.decide(c, 1, reason)
            for c in sorted(a):
                self.decide(c, 0, reason)
            self.run_numbers()
            return True
        if diff > only_b or -diff > only_a:
            labels = sorted(self.involved[i] | self.involved[j])
            names = ", ".join(self.describe(lab) for lab in labels)
            raise InconsistentPosition(f"these numbers cannot all hold: {names}{self.note}", tuple(labels))
        return -diff != only_a

    def remaining(self) -> list[Constraint]:
        """The constraints left over the undecided cells (those with no cells dropped), each one's
        cells in order: a constraint none of whose cells is decided keeps its own tuple when its
        cells are in order already (as a position's are), not a sorted copy."""
        out: list[Constraint] = []
        own = self._own
        for i, cs in enumerate(self.cells):
            if cs:
                row = own[i]
                out.append(
                    (
                        _in_order(row) if len(cs) == len(row) else tuple(sorted(cs)),
                        self.value[i],
                        self.label[i],
                    )
                )
        return out


def _in_order(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """A constraint's cells (each once) in increasing order: ``row`` itself when they are so
    already (as a position's are), else a sorted copy."""
    for k in range(1, len(row)):
        if row[k - 1] >= row[k]:
            return tuple(sorted(row))
    return row


def number_rule(constraints: Sequence[Constraint]) -> tuple[dict[int, int], list[Constraint]]:
    """:func:`number_rule_if`, raising :class:`InconsistentPosition` (without naming the numbers)
    where it gives None."""
    got = number_rule_if(constraints)
    if got is None:
        raise InconsistentPosition("these numbers cannot all hold", ())
    return got


def number_rule_if(constraints: Sequence[Constraint]) -> tuple[dict[int, int], list[Constraint]] | None:
    """What :class:`Propagator`'s :meth:`~Propagator.run_numbers` and then
    :meth:`~Propagator.remaining` give on ``constraints``, without reasons: the cells decided (1 a
    mine, 0 safe; the same cells decided in the same order) and the constraints left over the
    undecided cells; None where it raises :class:`InconsistentPosition` (for a search that only
    needs to know: no exception to make and catch)."""
    # (read as objects: see Propagator; no set per row: a row's cells are read from its tuple,
    # and what is left of it is its cells not decided, counted in ``size``)
    rows: Sequence[tuple[tuple[Any, ...], Any, Any]] = constraints
    own: list[tuple[Any, ...]] = []  # each row's cells, once each
    size: list[int] = []  # how many of them are not decided
    value: list[int] = []
    cell_cons: dict[Any, list[int]] = {}
    for i, (row, v, _) in enumerate(rows):
        twice = False
        for c in row:
            got = cell_cons.get(c)
            if got is None:
                cell_cons[c] = [i]
            elif got[-1] != i:
                got.append(i)
            else:
                twice = True  # a cell written twice counts once
        if twice:
            row = tuple(set(row))
        own.append(row)
        size.append(len(row))
        value.append(v)
    decided: dict[int, int] = {}
    queue = list(range(len(rows)))
    queued = [True] * len(rows)
    while queue:
        i = queue.pop()
        queued[i] = False
        n, v = size[i], value[i]
        if v < 0 or v > n:
            return None
        if n and (v == 0 or v == n):
            val = 1 if v else 0
            row = own[i]
            todo = list(row) if n == len(row) else [c for c in row if c not in decided]
            todo.sort()
            for c in todo:  # (each not decided, once)
                decided[c] = val
                for j in cell_cons[c]:
                    size[j] = size[j] - 1  # (compiled: ``-=`` on an item is a generic call)
                    value[j] = value[j] - val
                    if not queued[j]:
                        queued[j] = True
                        queue.append(j)
    rest: list[Constraint] = []
    for i, row in enumerate(own):
        n = size[i]
        if n:
            # (untouched: its own tuple, when in order already)
            kept = _in_order(row) if n == len(row) else tuple(sorted([c for c in row if c not in decided]))
            rest.append((kept, value[i], rows[i][2]))
    return decided, rest
