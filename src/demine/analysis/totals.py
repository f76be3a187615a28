"""The mine total across independent components: polynomials of layouts by mine count.

Each frontier component's layouts, counted by how many mines they hold, form a polynomial; the
board's layouts under a mine total are their product with the ways the cells off the frontier take
the rest. The exact counter (:mod:`demine.analysis.exact`), the certifier of guess-free boards and
the literature's players share these steps.
"""

from __future__ import annotations

import time
from math import comb
from typing import Any, Final

from demine.analysis.order import OverBudget

#: Integers below this convert to floats exactly.
_EXACT: Final = 1 << 53


def quotient(n: int, d: int) -> float:
    """``n / d`` rounded once, as Python divides integers (``d > 0``), in both builds: compiled,
    mypyc divides two integers below 2**62 as doubles, which rounds each of them first past 2**53
    (a chance's float could then differ from the pure build's, and so could a move)."""
    if -_EXACT < n < _EXACT and d < _EXACT:
        return n / d
    x: Any = n  # (a generic division: Python's, correctly rounded)
    q: float = x / d
    return q


#: :func:`comb_row`'s rows by ``(n, k)``, as far as they were read.
_ROWS: Final[dict[tuple[int, int], list[int]]] = {}

#: :data:`_ROWS` is emptied when it holds this many rows.
_ROWS_KEPT: Final = 4096


def comb_row(n: int, k: int, size: int) -> list[int]:
    """At least the first ``size`` items of C(n, k), C(n, k - 1), ... (item ``j``: C(n, k - j), 0
    outside 0..n): the ways ``n`` cells off the frontier take the rest of ``k`` mines when the
    components hold ``j``. Kept by ``(n, k)`` and made longer when more is read (the same
    off-frontier weights recur frame after frame and move after move; the totals read them item
    by item, without a call per item); each item from the one before (``C(n, i) = C(n, i + 1) *
    (i + 1) / (n - i)``). A kept row is never changed: a longer one replaces it, so a row read in
    another thread stays whole. Not to be changed by the caller."""
    row = _ROWS.get((n, k))
    if row is not None and len(row) >= size:
        return row
    longer = [] if row is None else list(row)
    for j in range(len(longer), size):
        i = k - j
        if i < 0 or i > n:
            longer.append(0)
        elif j == 0 or longer[j - 1] == 0:
            longer.append(comb(n, i))
        else:
            longer.append(longer[j - 1] * (i + 1) // (n - i))
    if len(_ROWS) >= _ROWS_KEPT:
        _ROWS.clear()
    _ROWS[(n, k)] = longer
    return longer


def convolve_all_but_one(
    polys: list[list[int]], deadline: float | None = None
) -> tuple[list[int], list[list[int]]]:
    """The convolution of all ``polys``, and for each one the convolution of all the others
    (prefix and suffix products: O(k) convolutions for k polynomials, not O(k^2)). Raises
    :class:`~demine.analysis.order.OverBudget` past ``deadline``."""
    pre = prefix_products(polys, deadline)
    return pre[-1], all_but_one(polys, pre, deadline)


def prefix_products(polys: list[list[int]], deadline: float | None = None) -> list[list[int]]:
    """``[1]`` and the convolution of the first 1, 2, ... of ``polys`` (the last: all of them)."""
    pre = [[1]]
    for W in polys:
        pre.append(_convolve(pre[-1], W, deadline))
    return pre


def all_but_one(
    polys: list[list[int]], pre: list[list[int]], deadline: float | None = None, only: list[int] | None = None
) -> list[list[int]]:
    """For each of ``polys`` (those at the indices ``only``, when given), the convolution of all
    the others, from the prefix products ``pre`` (:class:`OverBudget` past ``deadline``: with many
    components of huge counts this is the costliest step of an analysis). The suffix products
    are made only as far back as the first index asked for."""
    # (loops, not ``min`` with a default, ``reversed`` and a comprehension over either of two
    # iterables: compiled, each of those is a generic call)
    n = len(polys)
    first = 0 if only is None else n
    if only is not None:
        for i in only:
            if i < first:
                first = i
    suf = [[1]]  # (then suf[j - first]: the product of polys[j:])
    for j in range(n - 1, first - 1, -1):
        suf.append(_convolve(suf[-1], polys[j], deadline))
    suf.reverse()
    out = []
    if only is None:
        for i in range(n):
            out.append(_convolve(pre[i], suf[i + 1 - first], deadline))
    else:
        for i in only:
            out.append(_convolve(pre[i], suf[i + 1 - first], deadline))
    return out


def _convolve(a: list[int], b: list[int], deadline: float | None = None) -> list[int]:
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if deadline is not None and i % 16 == 0 and time.perf_counter() > deadline:
            raise OverBudget
        if x:
            for j, y in enumerate(b):
                if y:
                    # (not ``out[i + j] += ...``: compiled, an item's augmented sum is a generic one)
                    out[i + j] = out[i + j] + x * y
    return out


#: :func:`weights_with_total`'s and :func:`off_weights`' results by their arguments, for the
#: totals of at most :data:`_KEPT_LEN` items and at most :data:`_KEPT_OFF` cells off the frontier
#: (each result a few small lists then); emptied when they hold :data:`_KEPT` results. About
#: half of their calls in expert games of ``best`` repeat an earlier one (a frame's parts and
#: off cells recur in other frames of a search and in the next move's search).
_WEIGHTS: Final[dict[tuple[object, ...], list[list[int]]]] = {}
_OFF: Final[dict[tuple[object, ...], tuple[int, int]]] = {}
_KEPT: Final = 2048
_KEPT_LEN: Final = 64
_KEPT_OFF: Final = 600


def weights_with_total(
    polys: list[list[int]],
    pre: list[list[int]],
    n_off: int,
    left: int,
    deadline: float | None = None,
    only: list[int] | None = None,
) -> list[list[int]]:
    """For each component (``polys``: each one's layouts by mine count; ``pre``: their
    :func:`prefix_products`; only those at the indices ``only``, when given), ``R[t]``: the ways
    the other components and the ``n_off`` cells off the frontier complete a layout of ``left``
    mines when this one holds ``t`` (the weights :func:`marginals` takes under a mine total;
    :class:`OverBudget` past ``deadline``); 0 where the component has no layout with ``t`` mines
    (never read: no layout weighs it). Kept by the arguments when small (the same lists are
    handed out again: not to be changed by the caller)."""
    key: tuple[object, ...] | None = None
    if len(pre[-1]) <= _KEPT_LEN and n_off <= _KEPT_OFF:
        # (one flat tuple: each count's length and items, then -1 and the indices asked for)
        flat: list[int] = [n_off, left]
        for W in polys:
            flat.append(len(W))
            flat.extend(W)
        if only is not None:
            flat.append(-1)
            flat.extend(only)
        key = tuple(flat)
        got = _WEIGHTS.get(key)
        if got is not None:
            return got
    out = _weights_with_total(polys, pre, n_off, left, deadline, only)
    if key is not None:
        if len(_WEIGHTS) >= _KEPT:
            _WEIGHTS.clear()
        _WEIGHTS[key] = out
    return out


def _weights_with_total(
    polys: list[list[int]],
    pre: list[list[int]],
    n_off: int,
    left: int,
    deadline: float | None,
    only: list[int] | None,
) -> list[list[int]]:
    """:func:`weights_with_total`, made."""
    # the ways the off cells take the rest when the components hold j mines in all, read by
    # every component (j = t + u < the length of the product of them all)
    rest = comb_row(n_off, left, len(pre[-1]))
    out = []
    mine = polys if only is None else [polys[i] for i in only]
    alls = all_but_one(polys, pre, deadline, only)
    for i in range(len(mine)):  # (compiled, a zip with ``strict`` is a generic call)
        W, others = mine[i], alls[i]
        R = [0] * len(W)
        for t in range(len(W)):
            if not W[t]:
                continue
            acc = 0
            for u, o in enumerate(others):
                if o:
                    acc += o * rest[t + u]
            R[t] = acc
        out.append(R)
    return out


def off_weights(total_poly: list[int], n_off: int, left: int) -> tuple[int, int]:
    """With the components' layouts by mine count (``total_poly``, the product of them all) and
    ``n_off`` cells off the frontier taking the rest of ``left`` mines: the weight of the layouts
    with a mine on one given off cell, and of all layouts (0: the total cannot be met). Kept by
    the arguments when small (see :data:`_OFF`)."""
    key: tuple[object, ...] | None = None
    if len(total_poly) <= _KEPT_LEN and n_off <= _KEPT_OFF:
        flat: list[int] = [n_off, left]
        flat.extend(total_poly)
        key = tuple(flat)
        got = _OFF.get(key)
        if got is not None:
            return got
    # (the first: the layouts of the other off cells with one mine fewer)
    out = _completed(total_poly, n_off - 1, left - 1), _completed(total_poly, n_off, left)
    if key is not None:
        if len(_OFF) >= _KEPT:
            _OFF.clear()
        _OFF[key] = out
    return out


def _completed(total_poly: list[int], n_off: int, left: int) -> int:
    """The layouts of ``left`` mines in all, ``total_poly`` the components' by mine count and the
    ``n_off`` cells off the frontier taking the rest (a plain loop: no generator, compiled)."""
    row = comb_row(n_off, left, len(total_poly))
    z = 0
    for t in range(len(total_poly)):
        w = total_poly[t]
        if w:
            z += w * row[t]
    return z


def layouts(polys: list[list[int]], n_off: int, left: int) -> int:
    """The layouts of ``left`` mines in all: the components' (``polys``: each one's layouts by
    mine count) with the ``n_off`` cells off the frontier taking the rest: ``off_weights``'s
    second value of their product, without the first."""
    total = [1]
    for W in polys:
        total = _convolve(total, W)
    return _completed(total, n_off, left)
