"""The exact counting engine.

Given a :class:`~demine.analysis.constraints.System`, count every mine layout that satisfies it and
derive each unknown cell's exact chance of a mine, the cells forced either way, and the number of
solutions.

**Method.**

1. The number rule decides what single constraints force (cheap; shrinks the problem).
2. The rest is split into boxes (cells in the same constraints) and independent components.
3. Each component is counted by dynamic programming over its boxes in an elimination order that
   keeps few constraints *open* (some boxes counted, some not). A partial state is the tuple of
   open constraints' remaining values plus the mines used so far; states that agree are merged, so
   a long, thin frontier costs about linear time. The forward pass gives ``W[t]``, the weighted
   number of the component's layouts with ``t`` mines (a box of ``s`` cells with ``k`` mines weighs
   ``C(s, k)``).
4. Components are combined by convolution over mine totals, weighting a frontier total ``T`` by
   ``C(off-frontier cells, mines left - T)``. For each component this gives ``R[t]``, the weight of
   everything else when the component holds ``t`` mines.
5. A backward pass over the stored forward states, seeded with ``R``, gives for every box the
   weighted number of mines in it over all layouts; dividing by the total gives the probability.

All counts are Python ints, exact. Cost: O(sum over steps of states x box size) per pass, where the
number of states depends on the frontier's width, not its length.

>>> from demine.analysis.constraints import constraint_system
>>> sys = constraint_system([({0, 1, 2}, 1), ({1, 2, 3}, 2)], cells=4, mines=None)
>>> res = solve_system(sys)
>>> sorted(res.safe), sorted(res.mines)
([0], [3])
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import partial
from itertools import filterfalse
from typing import Final, cast

from demine.analysis.constraints import Component, System, components
from demine.analysis.order import (
    OverBudget,
    Slots,
    Step,
    elimination_order,
    greedy_order,
    plan_slots,
    plan_steps,
)
from demine.analysis.result import Analysis, Limit, Ratio, Reason
from demine.analysis.rules import Constraint, Propagator
from demine.analysis.totals import off_weights, prefix_products, weights_with_total
from demine.errors import InconsistentPosition
from demine.text import plural

#: The prior chance of a mine per cell when the total is not known (about expert's density).
DEFAULT_DENSITY = Fraction(1, 5)


#: Run the pair rule before counting when a component has at least this many boxes and its
#: elimination order keeps at least this many constraints open at once.
PAIR_BOXES: Final = 20
PAIR_WIDTH: Final = 6


def _width(comp: Component, deadline: float | None = None) -> int:
    """How many constraints the greedy elimination order keeps open at most."""
    return plan_slots(comp, greedy_order(comp, None, deadline))[1]


def wide(comps: list[Component], deadline: float | None = None) -> bool:
    """Whether a component is wide enough for the pair rule to run before the count."""
    return any(len(c.boxes) >= PAIR_BOXES and _width(c, deadline) >= PAIR_WIDTH for c in comps)


def ruled(prop: Propagator, deadline: float | None = None) -> tuple[list[Constraint], list[Component]]:
    """The constraints ``prop``'s number rule left and their components, after its pair rule on a
    :func:`wide` frontier (cheap next to the count it saves) unless at its fixed point already."""
    rest = prop.remaining()
    comps = components(rest)
    if not prop.paired and wide(comps, deadline):
        prop.run_all()
        rest = prop.remaining()
        comps = components(rest)
    return rest, comps


class Counted:
    """One component counted (:func:`count_component`): what :func:`marginals` walks back."""

    # (not a dataclass: its __init__ would stay Python code in the compiled build)
    __slots__ = ("W", "comp", "layers", "low", "mask", "order", "shift_m", "steps", "unit")

    def __init__(
        self,
        comp: Component,
        order: list[int],
        steps: list[Step],
        layers: list[dict[object, int]],
        shift_m: int,
        mask: int,
        W: list[int],
    ) -> None:
        self.comp = comp
        self.order = order
        self.steps = steps  # (:data:`~demine.analysis.order.Step`)
        self.layers = layers
        self.shift_m = shift_m
        self.mask = mask
        self.W = W
        self.low: tuple[int, int] | None = None
        """With one mine total: a box's lowest chance of a mine, once asked for (``(-1, 1)``: more)."""
        self.unit: tuple[int, list[int]] | None = None  # (one mine total t: t, each box's mine weight)


def layouts_by_mines(comp: Component) -> list[int]:
    """A component's count of local layouts by their number of mines (item ``m``: the layouts
    with ``m`` mines), without a budget."""
    return list(count_component(comp, comp.cells, None, 1 << 62).W)


def _count_cached(
    comp: Component,
    max_mines: int,
    deadline: float | None,
    state_cap: int,
    cache: CountCache,
    order: list[int] | None = None,
) -> Counted:
    """:func:`count_component`, or the count of an identical component (same boxes, constraints and
    values) made earlier with as many mines allowed (or both at least its cells: the same count).
    Without ``order``, a count of the same structure made earlier (other values, or mines allowed)
    lends its elimination order (any order counts the same; :class:`~demine.analysis.order.Piece`
    shares one so too): the order is kept in ``cache`` under the structure alone."""
    most = min(max_mines, comp.cells)  # (past its cells the cap never binds)
    boxes = tuple(comp.boxes)
    links = tuple(map(tuple, comp.box_cons))
    key = (boxes, links, tuple(comp.cons_value), most)
    got = cache.get(key)
    if got is None:
        shape = (boxes, links)
        if order is None and len(boxes) > 1:
            like = cache.get(shape)
            if like is not None:
                order = like.order
        got = cache[key] = count_component(comp, max_mines, deadline, state_cap, order)
        if shape not in cache:
            cache[shape] = got
    return got


def count_component(
    comp: Component,
    max_mines: int,
    deadline: float | None,
    state_cap: int,
    order: list[int] | None = None,
    slots: Slots | None = None,
) -> Counted:
    """The forward pass over one component: the states after each step, and ``W[t]`` (its
    layouts with ``t`` mines), at most ``max_mines`` mines; :class:`OverBudget` past ``deadline``
    or ``state_cap`` stored states. ``order``: the boxes' elimination order, when the caller has
    one for this structure (any order gives the same count; default :func:`elimination_order`),
    and ``slots`` its :func:`~demine.analysis.order.plan_slots` (made here without)."""
    if order is None:
        order = elimination_order(comp, deadline)
    steps, shift_m, bits = plan_steps(comp, order, slots)
    mask = (1 << bits) - 1
    # (the states keyed by objects: compiled, an int key is made an object at each lookup, so a
    # state's key is made one once for its lookup and its store, and read back as an int)
    F: dict[object, int] = {0: 1}
    layers = []
    stored = 0
    for bin_s, items, lo0, hi0, delta, step in steps:
        G: dict[object, int] = {}
        for obj, w in F.items():
            key = cast(int, obj)
            m = key >> shift_m
            lo = lo0
            hi = hi0 if hi0 < max_mines - m else max_mines - m
            for i in range(0, len(items), 2):
                sh, cp = items[i], items[i + 1]
                r = (key >> sh) & mask
                if r < hi:
                    hi = r
                if r - cp > lo:
                    lo = r - cp
            if lo > hi:
                continue
            base = key + delta
            for k in range(lo, hi + 1):
                t: object = base + k * step
                G[t] = G.get(t, 0) + w * bin_s[k]  # (compiled: a direct lookup; a bound get is a call)
        layers.append(F)
        stored += len(G)
        if stored > state_cap:
            raise OverBudget
        if deadline is not None and time.perf_counter() > deadline:
            raise OverBudget
        F = G
    top = 0  # (a loop: compiled, ``max`` of a generator with a default is a generic call)
    for obj in F:
        if cast(int, obj) >> shift_m > top:
            top = cast(int, obj) >> shift_m
    W = [0] * (top + 1)
    for obj, w in F.items():
        m = cast(int, obj) >> shift_m
        W[m] = W[m] + w
    layers.append(F)
    return Counted(comp, order, steps, layers, shift_m, mask, W)


def marginals(cnt: Counted, R: list[int]) -> tuple[list[int], int]:
    """The backward pass: for each box, the weighted mine count over all layouts, where a layout
    with ``t`` mines in this component weighs ``R[t]``; and the total weight."""
    shift_m = cnt.shift_m
    mask = cnt.mask
    nR = len(R)
    # (the states' keys kept as the objects they are, as in count_component: a state's store
    # takes its key as it was read)
    G: dict[object, int] = {}
    for obj in cnt.layers[-1]:
        m = cast(int, obj) >> shift_m
        G[obj] = R[m] if m < nR else 0
    M = [0] * len(cnt.comp.boxes)
    for j in range(len(cnt.steps) - 1, -1, -1):
        bin_s, items, lo0, hi0, delta, step = cnt.steps[j]
        H: dict[object, int] = {}
        num = 0
        for obj, w in cnt.layers[j].items():
            key = cast(int, obj)
            # the same bounds on k as in count_component (inline on purpose: this is the hot loop, and a
            # call per state would cost more than the count itself on small positions)
            lo, hi = lo0, hi0
            for i in range(0, len(items), 2):
                sh, cp = items[i], items[i + 1]
                r = (key >> sh) & mask
                if r < hi:
                    hi = r
                if r - cp > lo:
                    lo = r - cp
            g = 0
            mk = 0
            base = key + delta
            for k in range(lo, hi + 1):
                v = G.get(base + k * step, 0)  # (an int: compiled, the product is not a generic one)
                if v:
                    v *= bin_s[k]
                    g += v
                    mk += k * v
            if g:
                H[obj] = g
                if mk:
                    num += w * mk
        M[cnt.order[j]] = num
        G = H
    return M, G.get(0, 0)


#: Counts of components, kept by a caller across related systems (see :func:`solve_system`).
CountCache = dict[tuple[object, ...], Counted]


def marginals_reduced(cnt: Counted, R: list[int]) -> tuple[list[int], int]:
    """:func:`marginals` (the same integers), run on ``R`` divided by its greatest common divisor
    and its results multiplied back: weights under a mine total share most of their digits (the
    off cells' binomials; 316 of 325 bits, median, in 3 expert games), and the pass then runs on
    small numbers."""
    g = math.gcd(*R)
    if g <= 1:
        return marginals(cnt, R)
    M, Z = marginals(cnt, [r // g for r in R])
    return [m * g for m in M], Z * g


def solve_system(
    system: System,
    limit: Limit | None = None,
    density: Fraction | None = None,
    explain: bool = True,
    cache: CountCache | None = None,
    approximate: bool = True,
    rules: Propagator | None = None,
) -> Analysis:
    """Analyse a constraint system exactly (or approximately, past ``limit``). Without
    ``explain``, an impossible system raises :class:`InconsistentPosition` without looking for
    the smallest set of numbers in conflict (the look-ahead tries many impossible numbers).
    ``cache`` keeps each component's count by its structure, so that related systems (the
    outcomes of one look-ahead, which differ in one component) count the others once. Without
    ``approximate``, past the limit :class:`~demine.analysis.order.OverBudget` is raised instead
    of an approximation being made (for callers that would throw it away). ``rules``: a
    :class:`Propagator` of this very system whose rules already ran without a conflict (a
    player's pair rule before the count): the count starts from the cells they decided. The same
    chances, safe cells, mines and solutions (a decided cell is so in every layout); the pairs of
    ``ratios`` may be written with other (equal) numbers."""
    t0 = time.perf_counter()
    limit = limit or Limit()
    prop = rules if rules is not None else Propagator(system.constraints, system.describe, system.flag_note)
    try:
        return _solve(system, limit, density, explain, cache, t0, prop)
    except OverBudget:  # past the deadline (the ordering, a count, a convolution) or the states
        if not approximate:
            raise
        return _approximate(system, t0, prop)


class Gathered:
    """An exact analysis's probabilities as they are assigned, box by box: each cell's value, the
    cells proven safe and mines, and each distinct value object once (the lowest chance is then
    found among a few values, not per cell; cells of a box share one value object). The cells the
    rules ``decided`` (1 a mine, 0 safe) come first, sharing one value object each."""

    __slots__ = ("mines", "prob", "safe", "values")

    def __init__(self, decided: Mapping[int, int]) -> None:
        self.prob: dict[int, Ratio] = {}
        self.values: list[Ratio] = []
        self.safe: list[int] = []
        self.mines: list[int] = []
        zero: Ratio = (0, 1)
        one: Ratio = (1, 1)
        for c, v in decided.items():
            self.prob[c] = one if v else zero
            (self.mines if v else self.safe).append(c)
        if self.mines:
            self.values.append(one)
        if self.safe:
            self.values.append(zero)

    def assign(self, cells: Sequence[int], nd: Ratio) -> None:
        """Gives ``cells`` the chance ``nd`` (numerator, denominator)."""
        if len(cells) > 8:
            self.prob.update(dict.fromkeys(cells, nd))
        else:  # most boxes: a few cells (no dict made)
            prob = self.prob
            for c in cells:
                prob[c] = nd
        self.values.append(nd)
        if nd[0] == 0:
            self.safe.extend(cells)
        elif nd[0] == nd[1]:
            self.mines.extend(cells)


def frontier(
    system: System, prop: Propagator, deadline: float | None = None
) -> tuple[list[Component], dict[int, int], int, list[int], int | None]:
    """What is left to count after :func:`ruled`: the components, the cells the rules decided (1 a
    mine, 0 safe), the count of frontier cells, the covered cells off the frontier, and the mines
    left for them (None: no total). Raises :class:`InconsistentPosition` if the decided mines are
    more than are left."""
    rest, comps = ruled(prop, deadline)
    decided = dict(prop.decided)
    placed: set[int] = set()  # the frontier's cells, then the decided ones too
    for cs, _, _ in rest:
        placed.update(cs)  # (as the objects they are: the compiled code makes none)
    n_frontier = len(placed)
    placed.update(decided)
    off = list(filterfalse(placed.__contains__, system.unknown))
    forced_mines = sum(decided.values())
    L = None if system.mines_left is None else system.mines_left - forced_mines
    if L is not None and L < 0:
        raise InconsistentPosition(
            f"the numbers need at least {plural(forced_mines, 'mine')} among the covered cells, but "
            f"only {plural(L + forced_mines, 'is', 'are')} left{system.flag_note}",
            (),
            mine_count=True,
        )
    return comps, decided, n_frontier, off, L


def _solve(
    system: System,
    limit: Limit,
    density: Fraction | None,
    explain: bool,
    cache: CountCache | None,
    t0: float,
    prop: Propagator,
) -> Analysis:
    """:func:`solve_system`'s exact count (:class:`OverBudget` past the budget), starting from the
    system's rules in ``prop`` (which an approximation past the budget carries on)."""
    deadline = t0 + limit.seconds if limit.seconds is not None else None
    prop.run_numbers()
    if deadline is not None and limit.seconds is not None:
        # keep back for the approximation past the budget (the rest of the rules, a pass over
        # what they leave) about four times what setting up the rules and the number rule took
        # here (``t0`` to now): measured now, it is as slow as the machine is now
        deadline -= min(4 * (time.perf_counter() - t0), limit.seconds / 4)
    comps, decided, n_frontier, off, L = frontier(system, prop, deadline)
    n_off = len(off)
    forced_mines = sum(decided.values())
    max_mines = L if L is not None else n_frontier
    comps.sort(key=lambda c: c.cells)
    if cache is None:
        counted = [count_component(c, max_mines, deadline, limit.states) for c in comps]
    else:
        counted = [_count_cached(c, max_mines, deadline, limit.states, cache) for c in comps]
    for cnt in counted:
        if not any(cnt.W):
            if not explain:
                raise InconsistentPosition("these numbers cannot all hold", ())
            raise _component_conflict(cnt.comp, system, max_mines)
    g = Gathered(decided)
    if L is None:
        p = density if density is not None else DEFAULT_DENSITY
        a, d = p.numerator, p.denominator
        solutions = 2**n_off
        for cnt in counted:
            n = cnt.comp.cells
            R = [a**t * (d - a) ** (n - t) for t in range(n + 1)]
            M, Z = marginals(cnt, R)
            solutions *= sum(cnt.W)
            for b, cells in enumerate(cnt.comp.boxes):
                g.assign(cells, (M[b], len(cells) * Z))
        if n_off:  # (as with a total: no cell off the frontier, no value; the lowest is some cell's)
            g.assign(off, (a, d))
    else:
        polys = [cnt.W for cnt in counted]
        pre = prefix_products(polys, deadline)
        total_poly = pre[-1]
        num, Z = off_weights(total_poly, n_off, L)
        if Z == 0:
            lo = next(T for T, w in enumerate(total_poly) if w) + forced_mines
            hi = len(total_poly) - 1 + forced_mines + n_off
            allowed = f"exactly {lo}" if lo == hi else f"between {lo} and {hi}"
            raise InconsistentPosition(
                f"the mine count cannot be met: {plural(L + forced_mines, 'mine is', 'mines are')} left, "
                f"but the numbers allow {allowed} among the covered cells{system.flag_note}",
                (),
                mine_count=True,
            )
        solutions = Z
        # (a position the count cannot explain is refused above, before the costliest step)
        for cnt, R in zip(counted, weights_with_total(polys, pre, n_off, L, deadline), strict=True):
            M, Zc = marginals_reduced(cnt, R)
            assert Zc == Z, (Zc, Z)
            for b, cells in enumerate(cnt.comp.boxes):
                g.assign(cells, (M[b], len(cells) * Z))
        if n_off:
            g.assign(off, (num, Z))
    safe = frozenset(g.safe)
    mines = frozenset(g.mines)

    return Analysis(
        unknown=tuple(system.unknown),
        safe=safe,
        mines=mines,
        solutions=solutions,
        approximate=False,
        ms=(time.perf_counter() - t0) * 1000.0,
        known_mines=system.known_mines,
        _prob=g.prob,
        # (a partial, not a closure: compiled, a closure's environment and the closure are a cycle
        # that would hold the whole count until the collector ran)
        _reasons_fn=partial(_reasons, system, safe | mines, comps, L is not None),
        _values=g.values,
    )


def _feasible(comp: Component, max_mines: int) -> bool:
    return any(count_component(comp, max_mines, None, 1 << 62).W)


def _sub_component(comp: Component, keep: list[int]) -> Component:
    """The component restricted to constraints ``keep`` (boxes re-grouped)."""
    cons = []
    for ci in keep:
        cells = tuple(c for b in comp.cons_boxes[ci] for c in comp.boxes[b])
        cons.append((cells, comp.cons_value[ci], comp.cons_label[ci]))
    parts = components(cons)
    merged = Component([], [], [], [], [])
    for p in parts:
        off_c = len(merged.cons_value)
        off_b = len(merged.boxes)
        merged.boxes += p.boxes
        merged.box_cons += [[c + off_c for c in bc] for bc in p.box_cons]
        merged.cons_value += p.cons_value
        merged.cons_label += p.cons_label
        merged.cons_boxes += [[b + off_b for b in cb] for cb in p.cons_boxes]
    return merged


def _component_conflict(comp: Component, system: System, max_mines: int) -> InconsistentPosition:
    """An error naming a small set of numbers that cannot hold together (deletion-minimal when
    the component is small enough to test cheaply)."""
    if max_mines < comp.cells and _feasible(comp, comp.cells):
        left = system.mines_left
        return InconsistentPosition(
            f"the mine count cannot be met: the numbers need more mines than the {left} "
            f"left{system.flag_note}",
            (),
            mine_count=True,
        )
    keep = list(range(len(comp.cons_value)))
    if len(keep) <= 40:
        i = 0
        while i < len(keep):
            trial = keep[:i] + keep[i + 1 :]
            if trial and not _feasible(_sub_component(comp, trial), max_mines):
                keep = trial
            else:
                i += 1
    labels = sorted(comp.cons_label[i] for i in keep)
    names = ", ".join(system.describe(lab) for lab in labels)
    return InconsistentPosition(f"these numbers cannot all hold: {names}{system.flag_note}", tuple(labels))


def _reasons(
    system: System, forced: frozenset[int], comps: list[Component], counted_total: bool
) -> dict[int, Reason]:
    """Attribute a reason to every forced cell: the cheapest rule that proves it."""
    prop = Propagator(system.constraints, system.describe, system.flag_note)
    prop.run_all()
    out = {c: r for c, r in prop.reasons.items() if c in forced}
    todo = forced.difference(out)  # a frozenset (``forced - out.keys()`` is a set: mypyc refuses it)
    if not todo:
        return out
    for comp in comps:
        cells = {c for b in comp.boxes for c in b}
        mine = cells & todo
        if not mine:
            continue
        # forced inside the component whatever its mine total?
        cnt = count_component(comp, comp.cells, None, 1 << 62)
        M, Z = marginals(cnt, [1] * len(cnt.W))
        labels = tuple(sorted(comp.cons_label))
        for b, box in enumerate(comp.boxes):
            local_forced = M[b] == 0 or M[b] == len(box) * Z
            for c in box:
                if c in todo:
                    out[c] = Reason("component", labels) if local_forced else Reason("mine-count", ())
        todo -= mine
    for c in todo:
        out[c] = Reason("mine-count", ())
    return out


def _add_ratio(n1: int, d1: int, n2: int, d2: int) -> tuple[int, int]:
    """``n1/d1 + n2/d2`` over the least common denominator (not reduced further)."""
    d = math.lcm(d1, d2)
    return n1 * (d // d1) + n2 * (d // d2), d


def _approximate(system: System, t0: float, prop: Propagator) -> Analysis:
    """Past the budget: what the cheap rules prove, and estimated probabilities. ``prop`` holds
    the rules as far as the exact attempt ran them; they run on to their fixed point, which is
    the same from any such start (and so are the reasons)."""
    prop.run_all()
    decided = prop.decided
    rest = prop.remaining()
    prob: dict[int, Ratio] = {c: (v, 1) for c, v in decided.items()}
    # a cell's estimate is the mean of value/size over its constraints: summed in integers over
    # the sizes' common multiple (one Fraction per distinct estimate, not several per cell: this
    # runs after the budget is spent, on boards of thousands of cells)
    common = math.lcm(*(len(cells) for cells, _, _ in rest)) if rest else 1
    est: dict[int, list[int]] = {}  # per cell: [sum of value * common / size, constraints]
    for cells, value, _ in rest:
        share = value * (common // len(cells))
        for c in cells:
            acc = est.get(c)
            if acc is None:
                est[c] = [share, 1]
            else:
                acc[0] += share
                acc[1] += 1
    made: dict[tuple[int, int], Fraction] = {}
    frontier_num, frontier_den = 0, 1  # the expected mines on the frontier, exactly
    for c, (total, k) in est.items():
        p = made.get((total, k))
        if p is None:
            p = made[(total, k)] = Fraction(total, common * k)
        prob[c] = (p.numerator, p.denominator)
        frontier_num, frontier_den = _add_ratio(frontier_num, frontier_den, total, common * k)
    frontier_expect = Fraction(frontier_num, frontier_den)
    off = [c for c in system.unknown if c not in prob]
    if off:
        if system.mines_left is None:
            p_off = DEFAULT_DENSITY
        else:
            left = system.mines_left - sum(decided.values()) - frontier_expect
            p_off = min(Fraction(1), max(Fraction(0), left / len(off)))
        for c in off:
            prob[c] = (p_off.numerator, p_off.denominator)
    safe = frozenset(c for c, v in decided.items() if v == 0)
    mines = frozenset(c for c, v in decided.items() if v == 1)
    return Analysis(
        unknown=tuple(system.unknown),
        safe=safe,
        mines=mines,
        solutions=None,
        approximate=True,
        ms=(time.perf_counter() - t0) * 1000.0,
        known_mines=system.known_mines,
        _prob=prob,
        _reasons=dict(prop.reasons),
    )
