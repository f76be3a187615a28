"""The certifier of guess-free boards: deduction-only play of a layout it knows, made fast.

Generating a guess-free board by rejection sampling certifies several layouts per board, and a
rejected layout usually stalls late (most of its safe cells open), so the generator's speed is the
certifier's. :class:`Certifier` plays a known layout by deduction alone, keeping for every open
number the mines it still needs and the unknown cells it still touches, in flat arrays, with the
rules in order of cost:

1. **twins**, before any play: a mine ``a`` and a safe cell ``b`` (not the first click) such that
   every safe cell other than ``a`` and ``b`` touches both or neither. Swapping them changes no
   number that can ever be seen and keeps the mine count, so no deduction tells them apart and
   ``b`` is never opened: the layout needs a guess. (The classic 50/50 at an edge; about four in
   ten rejected expert layouts, found for a tenth of a play's cost.)
2. the **number rule**, from a worklist of the numbers that changed; proven safe cells are opened at
   once (zeros flood);
3. the **pair rule** on the numbers changed since the last stall and the numbers near them;
4. an **exact count of each frontier component** holding a changed number, without the total;
5. for the ``complete`` certificate only, the **exact count of the whole board with the mine
   total**, where it can decide something (:func:`count_may_help`).

Rules 2-4 together prove every cell the numbers alone prove and rule 5 every cell the total adds,
so the verdict is the same as that of any complete deduction (the move-by-move player
:func:`~demine.analysis.noguess.solve_by_deduction` is checked against it in the tests), only
cheaper. A component past :data:`CERTIFY_LIMIT` states is not counted (nothing proven there), so the
same layout gets the same verdict on any machine.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal

from demine.analysis.result import Limit
from demine.analysis.settle import settled_cells
from demine.engine.grid import Geometry, geometry

Certificate = Literal["complete", "local"]
CERTIFICATES: tuple[Certificate, ...] = ("complete", "local")

#: The exact counts a certificate makes are bounded by states, never by time, so the same layout
#: gets the same verdict on any machine (a component past it is not counted: nothing proven there).
CERTIFY_LIMIT = Limit(seconds=None, states=200_000)

#: Twins are looked for only where at most this many other cells must be mines (a pair along an
#: edge or a wall; the rest, ten or more cells, almost never are twins: on expert, no fewer found).
TWIN_CELLS: Final = 6

#: A cell's state in :meth:`Certifier.stall`: not known, opened, proven a mine (``Final``: the
#: compiled build writes them into the code rather than reading the module's names at each use).
UNKNOWN: Final = 0
OPEN: Final = 1
MINE: Final = 2


def count_may_help(front: int, away: int, left: int) -> bool:
    """Whether the total mine count could prove a cell that the numbers alone do not.

    With ``front`` unknown cells next to a number, ``away`` unknown cells away from every number
    and ``left`` mines not yet known, a frontier layout with ``t`` mines (``0 <= t <= front``)
    leaves ``left - t`` for the ``away`` cells. When ``front < left < away`` that is between 1 and
    ``away - 1`` for every ``t``: the total rules out no frontier layout and decides no cell away
    from the numbers, so it can prove nothing more (and the exact count is skipped).

    >>> count_may_help(10, 200, 40), count_may_help(10, 30, 0)
    (False, True)
    """
    return not front < left < away


class Certifier:
    """Decides whether layouts of one board are won from a first click by deduction alone.

    Made once per board size and certificate, then used for many layouts. A play costs O(1) per
    cell opened plus the rules at each stall; the twin test O(mines).

    On ``..*..`` from the left end the numbers find the mine, and only the mine count then tells
    that the two cells past it are safe:

    >>> Certifier(5, 1).guess_free([2], 0), Certifier(5, 1, "local").guess_free([2], 0)
    (True, False)
    """

    def __init__(
        self, width: int, height: int, certificate: Certificate = "complete", limit: Limit = CERTIFY_LIMIT
    ) -> None:
        geo = geometry(width, height)
        n = width * height
        self.width, self.height, self.n = width, height, n
        self.certificate: Certificate = certificate
        self.limit = limit
        table = geo.table()
        self.nbs = _Neighbours(geo, table)
        # made cell by cell when first needed (a huge board's tables would not fit in memory):
        self.near: list[tuple[int, ...] | None] = [None] * n
        """The cells within two steps (the numbers that can share an unknown cell with one)."""
        self.twins: list[tuple[tuple[int, tuple[int, ...]], ...] | None] = [None] * n
        """For a cell ``a``: the cells ``b`` that can be its twins, each with the cells that must all
        be mines for a mine at ``a`` and a safe ``b`` to be twins (the others touching only one)."""

    def _near(self, c: int) -> tuple[int, ...]:
        w = self.width
        r, col = divmod(c, w)
        got = self.near[c] = tuple(
            rr * w + cc
            for rr in range(max(0, r - 2), min(self.height, r + 3))
            for cc in range(max(0, col - 2), min(w, col + 3))
            if rr * w + cc != c
        )
        return got

    def _around(self, c: int, steps: int) -> list[int]:
        """The cells within ``steps`` king's moves of ``c`` (itself included)."""
        w = self.width
        r, col = divmod(c, w)
        return [
            rr * w + cc
            for rr in range(max(0, r - steps), min(self.height, r + steps + 1))
            for cc in range(max(0, col - steps), min(w, col + steps + 1))
        ]

    def _twin_row(self, a: int) -> tuple[tuple[int, tuple[int, ...]], ...]:
        na = set(self.nbs[a])
        row = []
        w, (r, c) = self.width, divmod(a, self.width)
        if 2 <= r < self.height - 2 and 2 <= c < w - 2:
            # two steps from every wall only the four beside it qualify (six cells must be mines;
            # a diagonal or farther pair needs ten)
            candidates: tuple[int, ...] = (a - w, a - 1, a + 1, a + w)
        else:
            candidates = self.near[a] or self._near(a)
        for b in candidates:
            nb = set(self.nbs[b])
            if not (na & nb or b in na):
                continue  # sharing nothing, they are twins only where walled in by mines
            must = (na ^ nb) - {a, b}
            if len(must) <= TWIN_CELLS:
                row.append((b, tuple(sorted(must))))
        row.sort(key=lambda t: len(t[1]))
        got = self.twins[a] = tuple(row)
        return got

    # ------------------------------------------------------------------ verdicts
    def guess_free(self, layout: Iterable[int], first: int) -> bool:
        """Whether ``layout`` (its mines) is won from ``first`` by deduction alone."""
        mine = self._mines(layout)
        if mine[first] or self.twin(mine, first) is not None:
            return False
        return self._play(mine, first) is None

    def stall(self, layout: Iterable[int], first: int) -> list[int] | None:
        """Play ``layout`` from ``first`` (not a mine) by deduction alone: None when it is won, else
        every cell's state where deduction stalls (:data:`UNKNOWN`, :data:`OPEN`, :data:`MINE`).
        Plays the game out even where a twin already condemns it (the caller wants the stall)."""
        mine = self._mines(layout)
        if mine[first]:
            raise ValueError(f"the first click {first} is a mine")
        return self._play(mine, first)

    def _mines(self, layout: Iterable[int]) -> list[int]:
        mine = [0] * self.n
        for c in layout:
            mine[c] = 1
        return mine

    def twin(self, mine: list[int], first: int, among: Iterable[int] | None = None) -> tuple[int, int] | None:
        """A mine and a safe cell that no deduction can tell apart (see the module's docstring),
        or None. O(mines): most candidate pairs fail on their first cell. With ``among``, only
        the mines among those cells are looked at (:meth:`swapped`: near the swap)."""
        twins = self.twins
        cells = range(self.n) if among is None else among
        for a in cells:
            if not mine[a]:
                continue
            row = twins[a]
            if row is None:
                row = self._twin_row(a)
            for b, must in row:
                if mine[b] or b == first:
                    continue
                for x in must:
                    if not mine[x]:
                        break
                else:
                    return a, b
        return None

    def trace(self, layout: Iterable[int], first: int) -> Trace:
        """Certify ``layout`` from ``first`` as :meth:`guess_free` does, keeping what
        :meth:`swapped` needs to certify a layout one swap away from it without playing again
        the part of the play that the swap cannot change."""
        mine = self._mines(layout)
        trace = Trace(mine, first, False, [], [])
        if not mine[first] and self.twin(mine, first) is None:
            trace.won = self._play(mine, first, trace) is None
        return trace

    def swapped(self, base: Trace, out: int, to: int) -> Trace:
        """The :class:`Trace` of ``base``'s layout with the mine at ``out`` moved to the free cell
        ``to``: the same verdict as :meth:`trace` of that layout, and the start of its trace (all
        of it, unless the play stopped early, below).

        A deduction reads only the numbers of opened cells, so the swapped layout's play is the
        base's, step for step, until the base opens a cell whose number the swap changes (or
        ``out`` or ``to``): the play is taken up from the base's last checkpoint before that.

        And it is won as soon as those cells are all known (``base`` being won): swapping ``out``
        and ``to`` back maps each layout the swapped play cannot rule out to one the base's
        play could not rule out at the same step, with the same cells safe elsewhere, so every
        cell the base proved safe is proven here too. The play stops there: its trace then
        ends early, and is still the start of the whole play (what a later swap needs). Where
        a component's count stops at the certifier's state cap, a stop this early could call
        guess-free a layout a whole play would not prove: the caller certifies the board it
        keeps at the end (:func:`~demine.analysis.noguess.no_guess_layout` does)."""
        mine = base.mine[:]
        mine[out], mine[to] = 0, 1
        first = base.first
        trace = Trace(mine, first, False, [], [])
        # a won base has no twins: a new one holds a cell the swap changed, within three steps
        # of its mine (its twin is within two, the cells that must be mines one step further)
        near = self._around(out, 3) + self._around(to, 3) if base.won else None
        if mine[first] or self.twin(mine, first, near) is not None:
            return trace
        nbs = self.nbs
        changed = set(nbs[out]).symmetric_difference(nbs[to])
        changed.add(out)
        changed.add(to)
        order = base.order
        at = base.at
        if at is None:  # (made once per base: each is tried against a few swaps)
            at = base.at = [len(order)] * self.n
            for i, c in enumerate(order):
                at[c] = i
        part = min([at[c] for c in changed])
        resume = None
        for point in base.points:
            if point.opened > part:
                break
            resume = point
        if resume is not None:
            trace.order.extend(order[: resume.opened])
            trace.points.extend(p for p in base.points if p.opened <= resume.opened)
        trace.won = self._play(mine, first, trace, resume, changed if base.won else ()) is None
        return trace

    # ------------------------------------------------------------------ play
    def _play(
        self,
        mine: list[int],
        first: int,
        trace: Trace | None = None,
        resume: Point | None = None,
        watch: Iterable[int] = (),
    ) -> list[int] | None:
        """Play the layout by deduction alone: None when won, else the states at the stall. With
        ``trace``, the cells opened in order and a checkpoint now and then go into it; with
        ``resume``, the play starts from that checkpoint (of a layout whose opened numbers there
        are this one's); with ``watch``, it ends (None) as soon as every one of those cells is
        known (see :meth:`swapped`)."""
        nbs, n = self.nbs, self.n
        num = [0] * n
        total = 0
        for c in range(n):
            if not mine[c]:
                continue
            total += 1
            for d in nbs[c]:
                num[d] += 1
        order: list[int] = trace.order if trace is not None else []
        # a checkpoint every `gap` cells opened (a few dozen a play, on any board)
        gap = max(16, n // 24)
        if resume is None:
            # (lists, not bytearrays: the compiled build reads and writes a list in place, and
            # goes through a generic call for a bytearray)
            st = [0] * n
            need = [0] * n
            unk = [0] * n
            left = n - total  # safe cells not yet open
            known = 0  # mines proven
            stack = [first]
            dirty: list[int] = []
            stale: set[int] = set()  # numbers changed since the last count
            last = -gap  # (the first checkpoint: before anything is opened)
        else:
            st, need, unk = resume.st[:], resume.need[:], resume.unk[:]
            left, known = resume.left, resume.known
            stack, dirty, stale = list(resume.stack), list(resume.dirty), set(resume.stale)
            last = resume.opened
        watched = [0] * n
        for c in watch:
            if not st[c]:
                watched[c] = 1
        pending = sum(watched)  # watched cells not yet known (none watched: never 0 here)
        hits: list[int] = []  # the watched cells proven mines
        if watch and not pending:
            return None
        # (a cell proven a mine is marked by a method, not a closure here: a closure would make
        # every variable of this loop a compiled closure's attribute, read through an object)

        while True:
            # the number rule: open what it proves (flooding zeros), to a fixed point
            while stack or dirty:
                if trace is not None and len(order) - last >= gap:
                    last = len(order)
                    trace.points.append(
                        Point(
                            last,
                            st[:],
                            need[:],
                            unk[:],
                            left,
                            known,
                            tuple(stack),
                            tuple(dirty),
                            frozenset(stale),
                        )
                    )
                while stack:
                    x = stack.pop()
                    if st[x]:
                        continue
                    st[x] = OPEN
                    order.append(x)
                    left -= 1
                    if watched[x]:
                        pending -= 1
                        if pending == len(hits):
                            return None
                    k = u = 0
                    for d in nbs[x]:
                        s = st[d]
                        if s == UNKNOWN:
                            u += 1
                        elif s == MINE:
                            k += 1
                        elif num[d]:  # an open number: one unknown cell fewer (zeros keep none)
                            unk[d] -= 1
                            dirty.append(d)
                    if num[x] == 0:
                        stack.extend(d for d in nbs[x] if not st[d])
                    elif u:
                        need[x] = num[x] - k
                        unk[x] = u
                        dirty.append(x)
                while dirty and not stack:
                    x = dirty.pop()
                    u = unk[x]
                    if not u:
                        continue
                    stale.add(x)
                    k = need[x]
                    if k == 0:
                        stack.extend(d for d in nbs[x] if not st[d])
                    elif k == u:
                        for d in nbs[x]:
                            if not st[d]:
                                known += self._mark(d, st, need, unk, dirty, watched, hits)
                        if hits and pending == len(hits):
                            return None
            if not left:
                return None
            # a stall: the dearer rules, each only when the cheaper ones prove nothing
            masks, front = self._masks(st, unk)
            safe, mines = self._pairs(masks, front, need, stale)
            if not safe and not mines:
                unknown = total + left - known
                if self.certificate == "complete" and count_may_help(
                    len(front), unknown - len(front), total - known
                ):
                    # the count with the total proves all the components' counts would and more
                    safe = self._global(masks, front, st, need, total - known)
                else:
                    safe, mines = self._components(masks, front, need, stale)
                stale = set()  # (a component left unproven stays so until one of its numbers changes)
                if not safe and not mines:
                    return st
            stack.extend(safe)
            for d in mines:
                if not st[d]:
                    known += self._mark(d, st, need, unk, dirty, watched, hits)
            if hits and pending == len(hits):
                return None

    def _mark(
        self,
        d: int,
        st: list[int],
        need: list[int],
        unk: list[int],
        dirty: list[int],
        watched: list[int],
        hits: list[int],
    ) -> int:
        """``d`` is proven a mine: the numbers around it need one fewer (returns 1, counted)."""
        st[d] = MINE
        if watched[d]:
            hits.append(d)
        for e in self.nbs[d]:
            if st[e] == OPEN:
                need[e] -= 1
                unk[e] -= 1
                dirty.append(e)
        return 1

    def _masks(self, st: list[int], unk: list[int]) -> tuple[dict[int, int], list[int]]:
        """The open numbers that still touch unknown cells, each with those cells as a bit mask,
        and the frontier: the unknown cells those bits stand for, in order (a bit per frontier
        cell, not per board cell, so that a mask stays small on any board)."""
        nbs = self.nbs
        index: dict[int, int] = {}
        front: list[int] = []
        out = {}
        for c in range(self.n):
            if not unk[c]:
                continue
            m = 0
            for d in nbs[c]:
                if not st[d]:
                    i = index.get(d)
                    if i is None:
                        i = index[d] = len(front)
                        front.append(d)
                    m |= 1 << i
            out[c] = m
        return out, front

    def _pairs(
        self, masks: dict[int, int], front: list[int], need: list[int], stale: set[int]
    ) -> tuple[set[int], set[int]]:
        """The pair rule between each changed number and the numbers within two steps of it: for
        numbers ``x`` and ``y`` whose cells overlap in ``I``, the mines in ``I`` are bounded by both,
        which can settle ``I`` or either side's own cells."""
        safe = mines = 0
        near = self.near
        mk = [0] * self.n
        for c, m in masks.items():
            mk[c] = m
        for x in stale:
            ux = mk[x]
            if not ux:
                continue
            kx = need[x]
            for y in near[x] or self._near(x):
                uy = mk[y]
                if not ux & uy or (y < x and y in stale):  # (each pair once)
                    continue
                ky = need[y]
                both = ux & uy
                a, b = ux ^ both, uy ^ both
                na, nb, ni = a.bit_count(), b.bit_count(), both.bit_count()
                lo = kx - na
                if ky - nb > lo:
                    lo = ky - nb
                if lo < 0:
                    lo = 0
                hi = kx if kx < ky else ky
                if ni < hi:
                    hi = ni
                if hi == 0:
                    safe |= both
                elif lo == ni:
                    mines |= both
                if a:
                    if kx == lo:
                        safe |= a
                    elif kx - hi == na:
                        mines |= a
                if b:
                    if ky == lo:
                        safe |= b
                    elif ky - hi == nb:
                        mines |= b
        return {front[i] for i in _bits(safe)}, {front[i] for i in _bits(mines)}

    def _components(
        self, masks: dict[int, int], front: list[int], need: list[int], stale: set[int]
    ) -> tuple[set[int], set[int]]:
        """Count exactly, without the total, each frontier component holding a changed number."""
        numbers = list(masks)
        cons = [([front[i] for i in _bits(masks[c])], need[c]) for c in numbers]
        changed = {i for i, c in enumerate(numbers) if c in stale}
        safe, mines = settled_cells(cons, self.limit.states, only=changed)
        return set(safe), set(mines)

    def _global(
        self, masks: dict[int, int], front: list[int], st: list[int], need: list[int], left: int
    ) -> set[int]:
        """The cells proven safe by the exact count of the whole board with the mine total."""
        frontier = set(front)
        off = [c for c in range(self.n) if not st[c] and c not in frontier]
        cons = [([front[i] for i in _bits(m)], need[c]) for c, m in masks.items()]
        return set(settled_cells(cons, self.limit.states, off=off, mines=left)[0])


class Point:
    """A checkpoint of a play: everything it knows after ``opened`` cells were opened (never
    changed once made). A plain class, not a dataclass: compiled, a dataclass's ``__init__`` is
    still the interpreted one ``dataclasses`` writes, and a play makes a few dozen of these."""

    __slots__ = ("dirty", "known", "left", "need", "opened", "st", "stack", "stale", "unk")

    def __init__(
        self,
        opened: int,
        st: list[int],
        need: list[int],
        unk: list[int],
        left: int,
        known: int,
        stack: tuple[int, ...],
        dirty: tuple[int, ...],
        stale: frozenset[int],
    ) -> None:
        self.opened, self.st, self.need, self.unk = opened, st, need, unk
        self.left, self.known, self.stack, self.dirty, self.stale = left, known, stack, dirty, stale


class Trace:
    """A layout's certification (:meth:`Certifier.trace`): its verdict, the cells its play opened
    in order and checkpoints of that play, for :meth:`Certifier.swapped` (a plain class, as
    :class:`Point` is: a chain makes one for each swap it tries).

    - ``mine``: the layout, 1 where a mine is;
    - ``first``: the first click;
    - ``won``: whether the layout is guess-free from ``first``;
    - ``order``: the cells opened, in the order the play opened them (empty when rejected
      before play);
    - ``points``: checkpoints, by cells opened;
    - ``at``: where each cell is in ``order`` (past its end: not opened), made when first needed.
    """

    __slots__ = ("at", "first", "mine", "order", "points", "won")

    def __init__(self, mine: list[int], first: int, won: bool, order: list[int], points: list[Point]) -> None:
        self.mine, self.first, self.won, self.order, self.points = mine, first, won, order, points
        self.at: list[int] | None = None


class _Neighbours:
    """The cells around each cell: ``nbs[c]``, from the geometry's table, or computed when asked on
    a huge board (whose geometry keeps no table). A class of its own, not the table or a
    protocol, so that the compiled build calls its ``__getitem__`` directly."""

    __slots__ = ("geo", "table")

    def __init__(self, geo: Geometry, table: tuple[tuple[int, ...], ...] | None) -> None:
        self.geo, self.table = geo, table

    def __getitem__(self, c: int, /) -> tuple[int, ...]:
        table = self.table
        return table[c] if table is not None else self.geo.neighbours(c)


def _bits(mask: int) -> list[int]:
    """The positions of a mask's set bits."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def certifier(width: int, height: int, certificate: Certificate = "complete") -> Certifier:
    """The shared :class:`Certifier` of a board size and certificate (kept for the last few)."""
    key = (width, height, certificate)
    cert = _CACHE.get(key)
    if cert is None:
        cert = _CACHE[key] = Certifier(width, height, certificate)
        while len(_CACHE) > 8:
            del _CACHE[next(iter(_CACHE))]
    return cert


_CACHE: dict[tuple[int, int, str], Certifier] = {}
