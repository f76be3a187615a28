"""Elimination orders for the exact counter: which box of a component to count next, so that few
constraints are open at once (the counter's states grow with the open constraints, not with the
component's length). Also the budget's tools: :class:`OverBudget` and :class:`Pace` (compiled with
the rest: the searches ask a pace at every step)."""

from __future__ import annotations

import time
from functools import lru_cache
from math import comb
from typing import Final

from demine.analysis.constraints import Component

#: Steps of the greedy order between two looks at the clock.
CLOCK_EVERY: Final = 32


class OverBudget(Exception):
    """The count (its ordering included) ran past its deadline or its state budget."""


class Pace:
    """The steps of one search under a deadline (a ``time.perf_counter()`` value): a step is
    started only if the time left covers ``slack`` times the slowest step so far (``estimate``
    before one is timed), so the search stops before a step that would run past the deadline.
    Without a deadline every step fits::

        pace = Pace(deadline)
        for step in steps:
            if not pace.fits():
                break
            ...  # the step
            pace.done()
    """

    __slots__ = ("deadline", "slack", "slowest", "started")

    def __init__(self, deadline: float | None, slack: float = 1.0, estimate: float = 0.0) -> None:
        self.deadline = deadline
        self.slack = slack
        self.slowest = estimate
        """The longest step so far."""
        self.started = 0.0
        """When the step asked about last began."""

    def fits(self) -> bool:
        """Whether a step begun now fits in the time left (and its clock starts)."""
        self.started = time.perf_counter()
        return self.deadline is None or self.started + self.slack * self.slowest <= self.deadline

    def done(self) -> None:
        """The step begun at the last :meth:`fits` is over: its time counts."""
        took = time.perf_counter() - self.started  # (compiled: a comparison, not a call of max)
        if took > self.slowest:
            self.slowest = took


def greedy_order(comp: Component, start: int | None = None, deadline: float | None = None) -> list[int]:
    """A greedy elimination order: next, the box that leaves the fewest constraints open; on ties,
    the one whose open constraints are nearest to closing (then the lowest box). Raises
    :class:`OverBudget` past ``deadline`` (a ``time.perf_counter()`` value): on a huge component
    the ordering alone can take seconds."""
    nb = len(comp.boxes)
    box_cons = comp.box_cons
    cons_boxes = comp.cons_boxes
    left = [len(bs) for bs in cons_boxes]  # unprocessed boxes per constraint
    is_open = [False] * len(cons_boxes)
    done = [False] * nb
    # the candidates: the boxes not done of the open constraints, kept as constraints open (a
    # constraint closes only when all its boxes are done); flags and lists, no set per step
    listed = [False] * nb
    cand: list[int] = []
    order: list[int] = []
    while len(order) < nb:
        if deadline is not None and len(order) % CLOCK_EVERY == 0 and time.perf_counter() > deadline:
            raise OverBudget
        if not cand:
            if start is not None and not order:
                best = start
            else:
                # a fresh start: the box whose constraints touch the fewest other boxes (the
                # lowest such box)
                best = -1
                fewest = 0
                for b in range(nb):
                    if not done[b]:
                        links = 0
                        for c in box_cons[b]:
                            links += len(cons_boxes[c])
                        if best < 0 or links < fewest:
                            best, fewest = b, links
        else:
            # the least (opened - closed, near, box): compared item by item as tuples compare
            # (the candidates' order does not matter: the box breaks every tie)
            best = -1
            at = 0
            best_d = 0
            best_near = 0.0
            for k in range(len(cand)):
                b = cand[k]
                opened = closed = 0
                near = 0.0
                for c in box_cons[b]:
                    if left[c] == 1:
                        closed += 1
                    elif not is_open[c]:
                        opened += 1
                    else:
                        near -= 1.0 / left[c]
                d = opened - closed
                if (
                    best < 0
                    or d < best_d
                    or (d == best_d and (near < best_near or (near == best_near and b < best)))
                ):
                    best, best_d, best_near, at = b, d, near, k
            cand[at] = cand[-1]
            cand.pop()
        done[best] = True
        order.append(best)
        for c in box_cons[best]:
            n = left[c] - 1
            left[c] = n
            if n == 0:
                is_open[c] = False
            elif not is_open[c]:
                is_open[c] = True
                for b in cons_boxes[c]:
                    if not done[b] and not listed[b]:
                        listed[b] = True
                        cand.append(b)
    return order


def _order_cost(comp: Component, order: list[int]) -> int:
    """An estimate of the states an order creates: per step, the product over open constraints
    of the values each could still take."""
    left = [len(bs) for bs in comp.cons_boxes]
    is_open = [False] * len(left)
    # the product kept as constraints open and close (a factor 0 counted apart: the product is
    # then 0, and it cannot be divided out)
    prod = 1
    zeros = 0
    total = 0
    values = comp.cons_value
    box_cons = comp.box_cons
    for b in order:
        for c in box_cons[b]:
            n = left[c] - 1
            left[c] = n
            if n == 0:
                if is_open[c]:
                    is_open[c] = False
                    f = min(values[c], 4) + 1
                    if f == 0:
                        zeros -= 1
                    else:
                        prod //= f
            elif not is_open[c]:
                is_open[c] = True
                f = min(values[c], 4) + 1
                if f == 0:
                    zeros += 1
                else:
                    prod *= f
        if not zeros:
            total += prod
    return total


#: Components whose greedy order is estimated to cost more than this many states try several
#: start boxes and keep the cheapest order.
MULTI_START_COST: Final = 5000
MULTI_STARTS: Final = 8


def elimination_order(comp: Component, deadline: float | None = None) -> list[int]:
    """The elimination order for a component (see :func:`greedy_order`; :class:`OverBudget` past
    ``deadline``)."""
    nb = len(comp.boxes)
    if nb == 1:
        return [0]  # (what the greedy order gives, at once)
    order = greedy_order(comp, None, deadline)
    cost = _order_cost(comp, order)
    if cost <= MULTI_START_COST:
        return order
    cons_boxes, box_cons = comp.cons_boxes, comp.box_cons
    starts = sorted(range(nb), key=lambda b: (sum(len(cons_boxes[c]) for c in box_cons[b]), b))
    best, best_cost = order, cost
    for st in starts[:MULTI_STARTS]:
        o = greedy_order(comp, st, deadline)
        cost = _order_cost(comp, o)
        if cost < best_cost:
            best, best_cost = o, cost
    return best


#: A step's part of a counting plan that depends on the constraints' values only through the
#: slots' width (:func:`plan_steps`): the ways to place 0, 1, ... mines in its box, the (shift,
#: capacity) pairs read from the key, the box's size, the key's step per mine, and the
#: constraints first met at the step as (shift, capacity, constraint) triples.
Fixed = tuple[tuple[int, ...], tuple[int, ...], int, int, tuple[int, ...]]

#: A counting plan's part that does not depend on the constraints' values (:func:`plan_slots`):
#: per step of an elimination order, its box's size and for each of the box's constraints (its
#: slot, whether it opens here, the cells of it not counted yet after this step, the constraint);
#: how many slots there are; and :data:`Fixed` steps by slot width, made by :func:`plan_steps`
#: as the widths are met (the counts of a structure with other values reuse them).
Slots = tuple[list[tuple[int, tuple[tuple[int, bool, int, int], ...]]], int, dict[int, list[Fixed]]]


def plan_slots(comp: Component, order: list[int]) -> Slots:
    """Each constraint's slot while it is open as the boxes are counted in ``order`` (a slot is
    reused once its constraint closes), with what each step needs of it (see :data:`Slots`): the
    counter's plan (:func:`plan_steps`) adds the values."""
    sizes = [len(b) for b in comp.boxes]
    cons_boxes = comp.cons_boxes
    box_cons = comp.box_cons
    cap: list[int] = []
    for bs in cons_boxes:  # (loops: compiled, a generator's sum is a generic call)
        t = 0
        for b in bs:
            t += sizes[b]
        cap.append(t)
    slot = [-1] * len(cons_boxes)  # each open constraint's slot (-1: not open)
    free: list[int] = []
    used = 0
    raw: list[tuple[int, tuple[tuple[int, bool, int, int], ...]]] = []
    for b in order:
        s = sizes[b]
        items: list[tuple[int, bool, int, int]] = []
        for c in box_cons[b]:
            cp = cap[c] - s  # (compiled: ``-=`` on an item is a generic call)
            cap[c] = cp
            sl = slot[c]
            new = sl < 0
            if new:
                if free:
                    sl = free.pop()
                else:
                    sl = used
                    used += 1
                slot[c] = sl
            items.append((sl, new, cp, c))
        raw.append((s, tuple(items)))  # (tuples: a kept plan leaves the collector's sight)
        for sl, _, cp, c in items:
            if cp == 0:  # (closed: all its boxes are counted, it is not met again)
                free.append(sl)
                slot[c] = -1
    return raw, used, {}


#: A step's plan (``exact.Counted.steps``): the ways to place 0, 1, ... mines in its box (C(box
#: size, k)), the (shift, capacity) pairs read from the key, the bounds on the mines placed, the
#: key's offset and its step per mine. Tuples of ints, which leave the collector's sight at the
#: first young collection (a list stays; nested tuples leave one level a collection). A
#: constraint first met at the step has its whole value left in every state: its bounds are made
#: once.
Step = tuple[tuple[int, ...], tuple[int, ...], int, int, int, int]


@lru_cache(maxsize=64)
def binom_row(s: int) -> tuple[int, ...]:
    """C(s, 0..s), cached (box sizes repeat)."""
    return tuple(comb(s, k) for k in range(s + 1))


#: :func:`binom_row` of the usual box sizes (a box's cells share their numbers: at most 8 of them
#: around one number), read without a call.
_BINOMS: Final = tuple(binom_row(s) for s in range(9))


def plan_steps(comp: Component, order: list[int], slots: Slots | None = None) -> tuple[list[Step], int, int]:
    """Give each constraint a slot of bits while it is open and precompute each step's key
    arithmetic.

    A partial state is one int: the open constraints' remaining values, ``bits`` bits each (enough
    for the largest value), and above them the mines used so far. Placing ``k`` mines in the step's
    box adds ``delta + k * step`` to the key. Returns the steps, the shift of the mine count, and
    the slot width. ``slots``: :func:`plan_slots` of ``comp`` and ``order`` when the caller keeps
    it for the structure (it does not depend on the values).
    """
    top = 1  # (a loop: compiled, ``max`` with a default is a generic call)
    for v in comp.cons_value:
        if v > top:
            top = v
    bits = top.bit_length()
    raw, used, by_bits = slots if slots is not None else plan_slots(comp, order)
    shift_m = bits * used
    fixed = by_bits.get(bits)
    if fixed is None:
        # what does not depend on the values but through ``bits``, made once per width
        fixed = []
        for s, items in raw:
            step = 1 << shift_m
            out: list[int] = []
            opens: list[int] = []
            for sl, new, cp, c in items:
                sh = bits * sl
                if new:
                    opens.append(sh)
                    opens.append(cp)
                    opens.append(c)
                else:
                    out.append(sh)
                    out.append(cp)
                step -= 1 << sh
            binom = _BINOMS[s] if s < len(_BINOMS) else binom_row(s)
            fixed.append((binom, tuple(out), s, step, tuple(opens)))
        by_bits[bits] = fixed
    values = comp.cons_value
    steps: list[Step] = []
    for binom, out_t, s, step, opens_t in fixed:
        delta = 0
        lo, hi = 0, s
        for i in range(0, len(opens_t), 3):
            v = values[opens_t[i + 2]]
            delta += v << opens_t[i]
            if v - opens_t[i + 1] > lo:
                lo = v - opens_t[i + 1]
            if v < hi:
                hi = v
        steps.append((binom, out_t, lo, hi, delta, step))
    return steps, shift_m, bits


class Piece:
    """A component's structure, shared by the frames whose constraints differ only in value."""

    __slots__ = ("boxes", "cells", "comp", "links", "members", "order", "slots")

    def __init__(self, comp: Component, members: list[int]) -> None:
        self.comp = comp
        """The component as first built (its boxes and links; values filled in per frame)."""
        self.members = members
        """For each of its constraints, its index among the constraints it was built from."""
        self.boxes = tuple(comp.boxes)
        self.links = tuple(map(tuple, comp.box_cons))
        """Its boxes and each box's constraints as the count cache's key holds them
        (:func:`~demine.analysis.exact._count_cached`)."""
        self.cells = sum(len(b) for b in self.boxes)
        """Its cells (a count with at least as many mines left is the same whatever their
        number)."""
        self.order: list[int] | None = None
        """Its elimination order, once made (made for the values first met; any order counts
        the same)."""
        self.slots: Slots | None = None
        """The value-free part of its counting plan for that order
        (:func:`~demine.analysis.order.plan_slots`)."""
