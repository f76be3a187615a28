"""Finding a Minesweeper board's grid in a screenshot: the lattice of its cells.

A board is a rectangle of equal cells, and whatever the skin, the cells' sides make straight
edges that repeat at the cell's period: the bevels of covered cells, the lines between revealed
ones, the gaps between tiles. So the finder looks at edges only:

1. the edges between neighbouring pixels (the largest step of the three colour channels), kept
   where they belong to a straight run (8 px or more) along the edge, so that text and glyphs
   (short strokes) count little;
2. per column, how many such edge pixels it has (and per row for the other direction);
3. a comb: for each period (8 to 240 px, in quarter pixels) and phase, the longest chain of
   columns at that period each holding a strong edge; the chain with the most edge wins (the
   true period beats its multiples, which have fewer teeth, and its fractions, whose teeth
   alternate strong and empty);
4. the rows' chain is searched within the columns found, the columns' again within the rows
   found, so other windows around the board fall away.

The cell boundary within a period is the centre of the edges folded onto one period (the middle
of a line or a gap, the meeting of a shadow and a highlight). Cost: O(pixels) for the edges, and
O(periods x width) for the comb, in numpy: about 20 ms on a 1920x1080 screenshot.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

#: The smallest and largest cell period searched, in pixels (10-80 px cells, scaled up to 2x,
#: and a little room either side).
MIN_PERIOD = 8.0
MAX_PERIOD = 240.0
#: The most a cell's width and height may differ (a ratio): boards have square cells, a
#: screenshot scaled unevenly stretches them a little.
MAX_ASPECT = 1.4
#: The smallest board side the finder accepts, in cells.
MIN_CELLS = 4
#: A step between neighbouring pixels counted as an edge (of 255, the largest channel's; 10 until
#: 2026-12-04: KMines' lines between open cells, scaled 2x by a smoothing filter, fell below it).
EDGE_STEP = 8
#: An edge pixel counts when it belongs to a straight run at least this long.
MIN_RUN = 8


@dataclass(frozen=True)
class Lattice:
    """Equally spaced boundaries along one axis: ``start + i * period`` for ``i`` in 0..count."""

    start: float
    """The first boundary (the board's first pixel edge), in pixels."""
    period: float
    """The cell size along this axis, in pixels."""
    count: int
    """Cells along this axis."""
    score: float
    """The edge mass on its teeth (larger: more certain)."""

    @property
    def end(self) -> float:
        """The last boundary."""
        return self.start + self.count * self.period


@dataclass(frozen=True)
class Grid:
    """A board's cells in an image: the columns' and the rows' lattices."""

    x: Lattice
    y: Lattice

    @property
    def box(self) -> tuple[int, int, int, int]:
        """Left, top, right, bottom (exclusive), in whole pixels."""
        return (
            round(self.x.start),
            round(self.y.start),
            round(self.x.end),
            round(self.y.end),
        )


def edge_maps(rgb: NDArray[np.uint8]) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Vertical and horizontal edge pixels kept for their straight runs: ``vx[y, x]`` is an edge
    between pixel columns x and x+1 on row y, part of a vertical run of ``MIN_RUN`` or more;
    ``hy[y, x]`` the same between rows y and y+1, along a horizontal run."""
    chans = [
        rgb[:, :, c].astype(np.int16) for c in range(3)
    ]  # (a max over the last axis is several times slower)
    h, w = rgb.shape[:2]
    dx = np.zeros((h, w - 1), dtype=bool)
    dy = np.zeros((h - 1, w), dtype=bool)
    for ch in chans:
        dx |= np.abs(ch[:, 1:] - ch[:, :-1]) >= EDGE_STEP
        dy |= np.abs(ch[1:, :] - ch[:-1, :]) >= EDGE_STEP
    return _long_runs(dx, axis=0), _long_runs(dy, axis=1)


def _long_runs(b: NDArray[np.bool_], axis: int) -> NDArray[np.bool_]:
    """The pixels of ``b`` in runs along ``axis`` of at least ``MIN_RUN`` (8; one-pixel gaps
    bridged first: bevel corners and JPEG noise break a line for a pixel). An opening by a line
    of 8 pixels, in three shifted ANDs (windows of 2, 4, 8 all set) and three shifted ORs back."""
    m = b if axis == 0 else b.T
    filled = m.copy()
    filled[1:-1] |= m[:-2] & m[2:]
    win = filled
    for step in (1, 2, 4):  # win[i]: pixels i .. i + 2*step - 1 all set
        nxt = np.zeros_like(win)
        nxt[:-step] = win[:-step] & win[step:]
        win = nxt
    for step in (4, 2, 1):  # back: pixel i is set when a full window covers it
        nxt = win.copy()
        nxt[step:] |= win[:-step]
        win = nxt
    keep = win & m  # the bridged pixels were not edges
    return keep if axis == 0 else keep.T


def find_lattice(
    profile: NDArray[np.float64], max_period: float = MAX_PERIOD, min_period: float = MIN_PERIOD
) -> Lattice | None:
    """The best comb of equally spaced strong columns in ``profile`` (edge pixels per column),
    or None when none of ``MIN_CELLS`` cells stands out.

    The periods tried are the autocorrelation's strongest lags and their halves and thirds
    (the lag of a board's edges is its cell, or a multiple when a cell has edges of several
    kinds). For each, every phase (half a pixel apart) is a comb whose teeth are the strongest
    column within 5% of a period (2 px at least); the longest run of strong teeth (30% of the
    strongest columns; one missing tooth between two strong ones is passed over) scores its
    edge mass times the share of teeth found, so half the true period (every other tooth
    missing) loses to it, and twice the period (half the teeth) too. The winning comb's teeth
    refit the period (least squares), and the comb is searched once more at that period.
    O(periods x phases x cells) in numpy.

    >>> p = np.zeros(200); p[[20, 45, 70, 95, 120, 145]] = 30.0; p[180] = 50.0
    >>> lat = find_lattice(p)
    >>> (round(lat.start, 3), round(lat.period, 3), lat.count)
    (20.0, 25.0, 5)
    """
    found = find_lattices(profile, 1, max_period, min_period)
    return found[0] if found else None


def find_lattices(
    profile: NDArray[np.float64], limit: int, max_period: float = MAX_PERIOD, min_period: float = MIN_PERIOD
) -> list[Lattice]:
    """Up to ``limit`` combs of :func:`find_lattice`, the best first, each of another period
    (a screenshot may hold several lattices: lines of text, a table, the board)."""
    n = len(profile)
    if n < MIN_PERIOD * (MIN_CELLS + 1):
        return []
    top = float(np.sort(profile)[-max(3, n // 50) :].mean())
    if top <= 0:
        return []
    periods: set[float] = set()
    for lag in _lags(profile, max_period):
        for div in (1, 2, 3):
            if lag / div >= MIN_PERIOD:
                periods.add(round(lag / div, 3))
    combs: list[Lattice] = []
    cache: _Maxes = {}
    for period in sorted(periods):
        if not min_period <= period <= max_period:
            continue
        lat = _comb(profile, period, top, cache)
        for _ in range(2):
            if lat is None:
                break
            refit = _refit(profile, lat, cache)
            if refit is None:
                break
            if abs(refit[0] - lat.period) < 0.005:
                break
            again = _comb(profile, refit[0], top, cache)
            if again is None or again.score < lat.score * 0.98:
                break
            lat = again
        if lat is not None:
            combs.append(_fitted(profile, _widest(profile, lat, top, max_period, cache), cache))
    combs.sort(key=lambda c: -c.score)
    out: list[Lattice] = []
    for c in combs:
        if all(abs(c.period - o.period) > 0.03 * o.period or abs(c.start - o.start) > o.period for o in out):
            out.append(c)
        if len(out) == limit:
            break
    return out


def _fitted(profile: NDArray[np.float64], lat: Lattice, cache: _Maxes) -> Lattice:
    """``lat`` placed on its teeth's own line (a comb's phases are half a pixel apart)."""
    refit = _refit(profile, lat, cache)
    return lat if refit is None else Lattice(refit[1], refit[0], lat.count, lat.score)


def _widest(
    profile: NDArray[np.float64], lat: Lattice, top: float, max_period: float, cache: _Maxes
) -> Lattice:
    """A comb whose every second or third tooth alone keeps most of its mass is that multiple
    (the true period's comb keeps a half or a third: its teeth are alike). The multiple is
    weighed within the comb's own span: past it, a wider comb's teeth may reach strong edges
    that are not the board's (KMines' window edge and frame beside 25 px cells made a 50 px comb
    of the frame and every other cell)."""
    while True:
        lo = max(0, int(np.floor(lat.start - lat.period / 2)))
        hi = min(len(profile), int(np.ceil(lat.start + lat.period * (lat.count + 0.5))) + 1)
        inside = np.zeros_like(profile)
        inside[lo:hi] = profile[lo:hi]
        inside_cache: _Maxes = {}
        for mult in (2, 3):
            if lat.period * mult > max_period:
                continue
            wider = _comb(inside, lat.period * mult, top, inside_cache)
            if wider is not None and wider.score >= 0.6 * lat.score:
                lat = wider
                break
        else:
            return lat


def _window_max(profile: NDArray[np.float64], half: int) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """The largest value within ``half`` columns of each column, and where it is."""
    n = len(profile)
    best = profile.copy()
    where = np.arange(n)
    for d in range(1, half + 1):
        for shifted, off in ((profile[d:], d), (profile[:-d], -d)):
            lo = 0 if off > 0 else d
            hi = n - d if off > 0 else n
            better = shifted > best[lo:hi]
            best[lo:hi] = np.where(better, shifted, best[lo:hi])
            where[lo:hi] = np.where(better, np.arange(lo, hi) + off, where[lo:hi])
    return best, where


_Maxes = dict[int, tuple[NDArray[np.float64], NDArray[np.int64]]]


def _maxes(
    profile: NDArray[np.float64], half: int, cache: _Maxes
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    got = cache.get(half)
    if got is None:
        got = cache[half] = _window_max(profile, half)
    return got


def _comb(profile: NDArray[np.float64], period: float, top: float, cache: _Maxes) -> Lattice | None:
    """The best comb at ``period`` (see :func:`find_lattice`); ``cache`` keeps the profile's
    window maxima by width."""
    n = len(profile)
    half = int(np.ceil(max(1.0, 0.05 * period)))
    wide, _ = _maxes(profile, half, cache)
    strong = wide >= 0.3 * top
    phases = np.arange(0.0, period, 0.5)
    teeth = int((n - 1) // period) + 1
    pos = np.rint(phases[:, None] + period * np.arange(teeth)[None, :]).astype(np.int64)
    valid = pos < n
    pos = np.minimum(pos, n - 1)
    ok = strong[pos] & valid
    val = np.where(ok, wide[pos], 0.0)
    bridged = ok.copy()
    bridged[:, 1:-1] |= ok[:, :-2] & ok[:, 2:]
    padded = np.zeros((len(phases), teeth + 2), dtype=np.int8)
    padded[:, 1:-1] = bridged
    d = np.diff(padded, axis=1)
    rs, cs = np.nonzero(d == 1)
    re, ce = np.nonzero(d == -1)
    if len(rs) == 0:
        return None
    length = ce - cs  # teeth in the run
    csum = np.zeros((len(phases), teeth + 1))
    csum[:, 1:] = np.cumsum(val, axis=1)
    hsum = np.zeros((len(phases), teeth + 1))
    hsum[:, 1:] = np.cumsum(ok, axis=1)
    mass = csum[rs, ce] - csum[rs, cs]
    hits = hsum[rs, ce] - hsum[rs, cs]
    score = mass * hits / np.maximum(length, 1)
    score[length - 1 < MIN_CELLS] = 0.0
    k = int(np.argmax(score))
    if score[k] <= 0:
        return None
    del re
    return Lattice(float(phases[rs[k]] + cs[k] * period), period, int(length[k]) - 1, float(score[k]))


def _refit(profile: NDArray[np.float64], lat: Lattice, cache: _Maxes) -> tuple[float, float] | None:
    """The period and first tooth fitted (least squares) to the strongest column near each
    tooth of ``lat``."""
    half = int(np.ceil(max(1.0, 0.05 * lat.period)))
    _, where = _maxes(profile, half, cache)
    ks = np.arange(lat.count + 1)
    pos = np.rint(lat.start + lat.period * ks).astype(np.int64)
    pos = pos[(pos >= 0) & (pos < len(profile))]
    if len(pos) < 3:
        return None
    xs = where[pos].astype(np.float64)
    ks = np.rint((pos - lat.start) / lat.period)
    slope, icept = np.polyfit(ks, xs, 1)
    if abs(slope - lat.period) >= 0.05 * lat.period:
        return None
    return float(slope), float(icept)


def _lags(profile: NDArray[np.float64], max_period: float) -> list[float]:
    """The autocorrelation's strongest lags between MIN_PERIOD and ``max_period`` (up to 6,
    each refined to a fraction of a pixel): periods that many edges share."""
    x = profile - profile.mean()
    n = len(x)
    size = 1 << (2 * n - 1).bit_length()
    f = np.fft.rfft(x, size)
    ac = np.fft.irfft(f * np.conj(f), size)[:n]
    lo, hi = int(MIN_PERIOD), min(n - 2, int(max_period) + 1)
    if hi <= lo + 2:
        return []
    seg = ac[lo - 1 : hi + 2]
    is_max = (seg[1:-1] > seg[:-2]) & (seg[1:-1] >= seg[2:]) & (seg[1:-1] > 0)
    idx = np.flatnonzero(is_max) + lo
    if len(idx) == 0:
        return []
    top = idx[np.argsort(ac[idx])[::-1][:6]]
    out = []
    for k in top.tolist():
        a, b, c = ac[k - 1], ac[k], ac[k + 1]
        den = a - 2 * b + c
        out.append(float(k + (0.5 * (a - c) / den if den < 0 else 0.0)))
    return out


def _longest_run(ok: NDArray[np.bool_]) -> tuple[int, int]:
    """The start and length of the longest run of True."""
    padded = np.concatenate(([False], ok, [False])).astype(np.int8)
    d = np.diff(padded)
    starts = np.flatnonzero(d == 1)
    ends = np.flatnonzero(d == -1)
    if len(starts) == 0:
        return 0, 0
    i = int(np.argmax(ends - starts))
    return int(starts[i]), int(ends[i] - starts[i])


def find_grid(rgb: NDArray[np.uint8]) -> Grid | None:
    """The board's grid in ``rgb`` (an HxWx3 image), or None when no lattice of at least
    ``MIN_CELLS`` cells each way is found. The first of :func:`find_grids`."""
    grids = find_grids(rgb, 1)
    return grids[0] if grids else None


def find_grids(rgb: NDArray[np.uint8], limit: int = 3, regions: bool = True) -> list[Grid]:
    """Up to ``limit`` grids in ``rgb``, the strongest first: a screenshot may hold other
    lattices (a spreadsheet, lines of text), so each grid found is blanked out and the search
    made again.

    For one grid: columns first over the whole image, then rows within the columns found, then
    columns within those rows, until they settle (and the same starting with rows; the better
    pair is kept). Within a span, a line counts only for the part of it that does not run on
    past the board (a menu bar's edge spans the window, a board's line stops at the board).
    """
    vx, hy = edge_maps(rgb)
    found: list[Grid] = []
    boxes = [(0, 0, vx.shape[1] + 1, hy.shape[0] + 1), *(_regions(vx, hy) if regions else [])]
    for x0, y0, x1, y1 in boxes:
        sub_vx, sub_hy = vx[y0:y1, x0 : x1 - 1], hy[y0 : y1 - 1, x0:x1]
        starts: list[tuple[str, Lattice]] = []
        for lat in find_lattices(sub_vx.sum(axis=0).astype(np.float64), 2):
            starts.append(("x", lat))
        for lat in find_lattices(sub_hy.sum(axis=1).astype(np.float64), 2):
            starts.append(("y", lat))
        for axis, lat in starts:
            g = _alternate(sub_vx, sub_hy, axis, lat)
            if g is None or not MAX_ASPECT**-1 <= g.x.period / g.y.period <= MAX_ASPECT:  # square cells
                continue
            gx = _within(Lattice(g.x.start + x0, g.x.period, g.x.count, g.x.score), vx.shape[1] + 1)
            gy = _within(Lattice(g.y.start + y0, g.y.period, g.y.count, g.y.score), hy.shape[0] + 1)
            if gx is None or gy is None:
                continue
            g = Grid(gx, gy)
            if all(g.box != o.box for o in found):
                found.append(g)
    found.sort(key=lambda g: -(g.x.score + g.y.score))
    out = found[:limit]
    return out


def _within(lat: Lattice, size: int) -> Lattice | None:
    """``lat`` less the cells that run past the image's edge (0 to ``size`` px, half a pixel of
    slack): a lattice of a page's rows of controls may start a pixel or two above the image, and
    its cells cannot be cut there. None when fewer than ``MIN_CELLS`` are left."""
    start, count = lat.start, lat.count
    while count and start < -0.5:
        start += lat.period
        count -= 1
    while count and start + count * lat.period > size + 0.5:
        count -= 1
    # within the slack: moved in by that fraction of a pixel
    start = max(start, 0.0)
    start = max(0.0, start - max(0.0, start + count * lat.period - size))
    if count < MIN_CELLS or start + count * lat.period > size:
        return None
    if (start, count) == (lat.start, lat.count):
        return lat
    return Lattice(start, lat.period, count, lat.score)


def _regions(
    vx: NDArray[np.bool_], hy: NDArray[np.bool_], block: int = 16
) -> list[tuple[int, int, int, int]]:
    """Boxes (left, top, right, bottom) of the parts of the image dense in long edges both ways,
    where a board may be: 16 px blocks with half a line's edges each way or more, joined with
    their neighbours; the larger ones (3 blocks a side or more) first, at most 6."""
    h, w = hy.shape[0] + 1, vx.shape[1] + 1
    bh, bw = (h - 1) // block, (w - 1) // block
    if bh < 3 or bw < 3:
        return []
    dv = vx[: bh * block, : bw * block].reshape(bh, block, bw, block).sum(axis=(1, 3))
    dh = hy[: bh * block, : bw * block].reshape(bh, block, bw, block).sum(axis=(1, 3))
    mark = (dv >= block // 2) & (dh >= block // 2)
    grown = mark.copy()
    grown[1:] |= mark[:-1]
    grown[:-1] |= mark[1:]
    grown[:, 1:] |= mark[:, :-1]
    grown[:, :-1] |= mark[:, 1:]
    seen = np.zeros_like(grown)
    boxes = []
    for r, c in zip(*np.nonzero(grown), strict=True):
        if seen[r, c]:
            continue
        stack = [(int(r), int(c))]
        seen[r, c] = True
        r0 = r1 = int(r)
        c0 = c1 = int(c)
        while stack:
            y, x = stack.pop()
            r0, r1, c0, c1 = min(r0, y), max(r1, y), min(c0, x), max(c1, x)
            for yy, xx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                if 0 <= yy < bh and 0 <= xx < bw and grown[yy, xx] and not seen[yy, xx]:
                    seen[yy, xx] = True
                    stack.append((yy, xx))
        if r1 - r0 >= 2 and c1 - c0 >= 2:
            boxes.append(
                (
                    max(0, (c0 - 1) * block),
                    max(0, (r0 - 1) * block),
                    min(w, (c1 + 2) * block),
                    min(h, (r1 + 2) * block),
                )
            )
    boxes.sort(key=lambda b: -(b[2] - b[0]) * (b[3] - b[1]))
    return [b for b in boxes if (b[2] - b[0], b[3] - b[1]) != (w, h)][:6]


def _alternate(vx: NDArray[np.bool_], hy: NDArray[np.bool_], first: str, start: Lattice) -> Grid | None:
    """The grid grown from one axis's comb ``start``: the other axis within its span, then
    this axis again within that, until they settle."""
    lx = ly = None
    if first == "x":
        lx = _settle(vx.sum(axis=0).astype(np.float64), start)
    else:
        ly = _settle(hy.sum(axis=1).astype(np.float64), start)
    for _ in range(4):
        if lx is not None:  # cells are about square: the rows' period is near the columns'
            prof = _span_profile(hy, lx, axis=1)
            new_y = _settle(prof, find_lattice(prof, lx.period * MAX_ASPECT, lx.period / MAX_ASPECT))
            if new_y is None:
                return None
            ly = new_y
        if ly is None:
            return None
        prof = _span_profile(vx, ly, axis=0)
        new_x = _settle(prof, find_lattice(prof, ly.period * MAX_ASPECT, ly.period / MAX_ASPECT))
        if new_x is None:
            return None
        if lx is not None and _same(lx, new_x) and ly is not None:
            lx = new_x
            break
        lx = new_x
    if lx is None or ly is None:
        return None
    return Grid(lx, ly)


def _same(a: Lattice, b: Lattice) -> bool:
    return a.count == b.count and abs(a.start - b.start) < 1 and abs(a.period - b.period) < 0.1


def _span_profile(edges: NDArray[np.bool_], across: Lattice, axis: int) -> NDArray[np.float64]:
    """Edge pixels per line of ``edges`` within the span of ``across`` (the other axis's
    lattice), less what runs on past it: the edges in the margins beside the span (a quarter
    to one period beyond each end), scaled to the span's width, are taken off."""
    n = edges.shape[1 - axis] if axis == 0 else edges.shape[1]
    lo = max(0, round(across.start) - 1)
    hi = min(n, round(across.end) + 2)
    inner = hi - lo
    p = across.period
    m_lo = (max(0, int(across.start - p)), max(0, int(across.start - 0.25 * p)))
    m_hi = (min(n, int(across.end + 0.25 * p)), min(n, int(across.end + p)))
    if axis == 0:  # vertical edges: count rows lo..hi, per column
        inside = edges[lo:hi].sum(axis=0)
        out = edges[m_lo[0] : m_lo[1]].sum(axis=0) + edges[m_hi[0] : m_hi[1]].sum(axis=0)
    else:  # horizontal edges: count columns lo..hi, per row
        inside = edges[:, lo:hi].sum(axis=1)
        out = edges[:, m_lo[0] : m_lo[1]].sum(axis=1) + edges[:, m_hi[0] : m_hi[1]].sum(axis=1)
    width_out = (m_lo[1] - m_lo[0]) + (m_hi[1] - m_hi[0])
    prof = inside.astype(np.float64)
    if width_out > 0:
        prof -= out * (inner / width_out)
    kept: NDArray[np.float64] = np.maximum(prof, 0.0)
    return kept


def _settle(profile: NDArray[np.float64], lat: Lattice | None) -> Lattice | None:
    """The board's boundaries from a chain of teeth: where in the period the boundary lies (the
    centre of the edges folded onto one period, near the teeth: the middle of a line or a gap),
    and which boundaries hold edges (a quarter of the chain's median or more: an outer edge of
    tiles with gaps has one side of them), as one run."""
    if lat is None:
        return None
    n = len(profile)
    p = lat.period
    lo = max(0, int(lat.start - p / 2))
    hi = min(n, int(lat.end + p / 2) + 1)
    xs = np.arange(lo, hi, dtype=np.float64)
    phase = ((xs - lat.start) / p + 0.5) % 1.0 - 0.5  # the teeth at phase 0
    weights = profile[lo:hi]
    near = np.abs(phase) <= 0.2
    if weights[near].sum() <= 0:
        return None
    centre = float((phase[near] * weights[near]).sum() / weights[near].sum())
    first = lat.start + centre * p
    half = max(1.5, 0.2 * p)
    cs = np.concatenate(([0.0], np.cumsum(profile)))

    def mass(x: float) -> float:
        a, b = max(0, int(np.floor(x - half))), min(n, int(np.ceil(x + half)) + 1)
        return float(cs[b] - cs[a]) if b > a else 0.0

    ks = range(-2, lat.count + 3)
    masses = {k: mass(first + k * p) for k in ks if 0 <= first + k * p < n}
    chain = [masses[k] for k in range(lat.count + 1) if k in masses]
    if not chain:
        return None
    floor = np.median(chain) / 4
    present = [k for k in ks if masses.get(k, 0.0) >= floor]
    # the run of present boundaries that holds the chain's middle
    mid = lat.count // 2
    if mid not in present:
        return None
    a = b = mid
    while a - 1 in present:
        a -= 1
    while b + 1 in present:
        b += 1
    if b - a < MIN_CELLS:
        return None
    # the boundaries refitted: each inner one's centre of edges near where the chain puts it,
    # a straight line through them weighted by their edge mass
    ks_fit, xs_fit, ws_fit = [], [], []
    inner = range(a + 1, b) if b - a >= 5 else range(a, b + 1)  # a board's frame pulls its outer lines
    for k in inner:
        x = first + k * p
        i0, i1 = max(0, int(np.floor(x - half))), min(n, int(np.ceil(x + half)) + 1)
        wts = profile[i0:i1]
        if wts.sum() > 0:
            ks_fit.append(k)
            xs_fit.append(float((wts * np.arange(i0, i1)).sum() / wts.sum()) + 1.0)
            ws_fit.append(float(wts.sum()))
    first += 1.0  # an edge between pixels i and i+1 is the boundary at i+1
    if len(ks_fit) >= 3:
        slope, icept = np.polyfit(ks_fit, xs_fit, 1, w=np.sqrt(ws_fit))
        if abs(slope - p) < 0.05 * p:
            p, first = float(slope), float(icept)
    return Lattice(first + a * p, p, b - a, lat.score)
