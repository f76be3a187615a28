"""The cells a set of number constraints settles, each component counted exactly: the lean count
the certifier of guess-free boards (:mod:`demine.analysis.certify`) runs at a stall, apart from
the exact engine's probabilities and reasons."""

from __future__ import annotations

from collections.abc import Container, Sequence

from demine.analysis.constraints import components
from demine.analysis.exact import Counted, count_component, marginals
from demine.analysis.order import OverBudget
from demine.analysis.totals import off_weights, prefix_products, weights_with_total
from demine.errors import InconsistentPosition


def settled_cells(
    constraints: Sequence[tuple[Sequence[int], int]],
    state_cap: int,
    *,
    off: Sequence[int] = (),
    mines: int | None = None,
    only: Container[int] | None = None,
) -> tuple[list[int], list[int]]:
    """The cells safe and the cells mined in every solution of ``constraints`` (``(cells, mines
    among them)``), each component counted exactly. Without a total (``mines`` None) the
    components are independent, ``off`` is ignored, and a component past ``state_cap`` states
    settles nothing; with one, the ``off`` cells (in no constraint) take the mines the components
    leave, and a component past ``state_cap`` settles nothing anywhere. ``only`` (without a total):
    count only the components holding one of these constraints (their indices).

    The lean path for callers that need no probabilities and no reasons and have run the cheap
    rules already (the certifier of guess-free boards). The constraints must be satisfiable
    (:class:`InconsistentPosition` otherwise)."""
    safe: list[int] = []
    mined: list[int] = []
    counted: list[Counted] = []
    for comp in components([(cells, v, i) for i, (cells, v) in enumerate(constraints)]):
        if only is not None and mines is None and not any(i in only for i in comp.cons_label):
            continue
        n = comp.cells
        try:
            counted.append(count_component(comp, n if mines is None else min(n, mines), None, state_cap))
        except OverBudget:
            if mines is not None:
                return [], []
    if mines is None:
        Rs = [[1] * len(cnt.W) for cnt in counted]
    else:
        polys = [cnt.W for cnt in counted]
        pre = prefix_products(polys)
        Rs = weights_with_total(polys, pre, len(off), mines)
        if off:
            num, z = off_weights(pre[-1], len(off), mines)
            if num == 0:
                safe.extend(off)
            elif num == z:
                mined.extend(off)
    for cnt, R in zip(counted, Rs, strict=True):
        M, Z = marginals(cnt, R)
        if Z == 0:
            raise InconsistentPosition("these numbers cannot all hold", ())
        for b, cells in enumerate(cnt.comp.boxes):
            if M[b] == 0:
                safe.extend(cells)
            elif M[b] == len(cells) * Z:
                mined.extend(cells)
    return safe, mined
