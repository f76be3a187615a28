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
#: The smallest board side the finder accepts, in cells.
MIN_CELLS = 4
#: A step between neighbouring pixels counted as an edge (of 255, the largest channel's).
EDGE_STEP = 10
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


def find_lattice(profile: NDArray[np.float64], max_period: float = MAX_PERIOD) -> Lattice | None:
    """The best chain of equally spaced peaks in ``profile`` (edge pixels per column), or None
    when no chain of ``MIN_CELLS`` cells stands out.

    Peaks are the local maxima of at least 30% of the strongest columns. From each peak, a
    chain is grown towards each of its next few peaks as a first step: the next tooth is looked
    for one period further (within 6% of a period, at least 1.5 px), the period refitted to
    the teeth found so far (so it is exact to a fraction of a pixel on long boards); a missing
    tooth is passed over, two in a row end the chain. A chain scores the edge mass of its teeth
    times the share of teeth found, so half the true period (every other tooth missing) loses
    to it, and twice the period (half the teeth) too. O(peaks x cells).

    >>> p = np.zeros(200); p[[20, 45, 70, 95, 120, 145]] = 30.0; p[180] = 50.0
    >>> lat = find_lattice(p)
    >>> (lat.start, lat.period, lat.count)
    (20.0, 25.0, 5)
    """
    peaks, mass = _peaks(profile)
    if len(peaks) <= MIN_CELLS:
        return None
    n = len(peaks)
    # first steps to try: the next few peaks of each peak, and the autocorrelation's best lags
    seeds: list[tuple[int, float]] = []
    for i in range(n):
        for j in range(i + 1, min(n, i + 12)):
            period = float(peaks[j] - peaks[i])
            if period > max_period:
                break
            if period >= MIN_PERIOD:
                seeds.append((i, period))
    for lag in _lags(profile, max_period):
        seeds.extend((i, lag) for i in range(n))
    best: Lattice | None = None
    best_score = 0.0
    seen: set[tuple[int, int]] = set()  # (peak, period in half pixels) already in a chain
    for i, period in seeds:
        key = (i, round(period * 2))
        if key in seen:
            continue
        chain = _grow(peaks, mass, i, period)
        if chain is None:
            continue
        first, per, teeth, members, got = chain
        for c in members:
            for d in (-1, 0, 1):
                seen.add((c, round(per * 2) + d))
        score = got * len(members) / teeth
        if score > best_score * 1.000001:
            best_score = score
            best = Lattice(first, per, teeth - 1, score)
    return best


def _lags(profile: NDArray[np.float64], max_period: float) -> list[float]:
    """The autocorrelation's strongest lags between MIN_PERIOD and ``max_period`` (up to 4,
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
    top = idx[np.argsort(ac[idx])[::-1][:4]]
    out = []
    for k in top.tolist():
        a, b, c = ac[k - 1], ac[k], ac[k + 1]
        den = a - 2 * b + c
        out.append(float(k + (0.5 * (a - c) / den if den < 0 else 0.0)))
    return out


def _peaks(profile: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The strong local maxima of ``profile``: their positions (the centre of a plateau or of a
    peak two pixels wide) and masses (the profile within a pixel either side)."""
    n = len(profile)
    if n < 3:
        return np.zeros(0), np.zeros(0)
    k = max(3, n // 50)
    top = float(np.sort(profile)[-k:].mean())
    if top <= 0:
        return np.zeros(0), np.zeros(0)
    smooth = profile.copy()
    smooth[1:-1] = profile[:-2] + profile[1:-1] + profile[2:]
    is_peak = np.zeros(n, dtype=bool)
    is_peak[1:-1] = (smooth[1:-1] >= smooth[:-2]) & (smooth[1:-1] > smooth[2:])
    is_peak &= smooth >= 0.3 * 3 * top / 2
    idx = np.flatnonzero(is_peak)
    pos = []
    mass = []
    for x in idx.tolist():
        lo, hi = max(0, x - 1), min(n, x + 2)
        w = profile[lo:hi]
        pos.append(float((w * np.arange(lo, hi)).sum() / max(w.sum(), 1e-9)))
        mass.append(float(w.sum()))
    return np.array(pos), np.array(mass)


def _grow(
    peaks: NDArray[np.float64], mass: NDArray[np.float64], i: int, period: float
) -> tuple[float, float, int, list[int], float] | None:
    """The chain from peak ``i`` with a first step of ``period``, grown both ways, the period
    refitted (least squares) to the teeth found so far: (first tooth, period, teeth from first
    to last, the peaks found, their mass), or None when it spans fewer than MIN_CELLS cells."""
    found = {0: i}
    lo = hi = 0
    count = len(peaks)
    # running sums for the line x = a + b*k through the teeth found
    sk, sx, skk, skx, m = 0.0, float(peaks[i]), 0.0, 0.0, 1
    a, b = float(peaks[i]), period
    for direction in (1, -1):
        k = hi if direction == 1 else lo
        misses = 0
        while misses < 2:
            k += direction
            want = a + b * k
            tol = max(2.0, 0.05 * b)
            if want < peaks[0] - tol or want > peaks[-1] + tol:
                break
            at = int(np.searchsorted(peaks, want))
            best_c = -1
            best_d = tol
            for c in (at - 1, at):
                if 0 <= c < count and abs(peaks[c] - want) <= best_d:
                    best_c, best_d = c, abs(peaks[c] - want)
            if best_c < 0:
                misses += 1
                continue
            found[k] = best_c
            lo, hi = min(lo, k), max(hi, k)
            misses = 0
            x = float(peaks[best_c])
            sk, sx, skk, skx, m = sk + k, sx + x, skk + k * k, skx + k * x, m + 1
            den = m * skk - sk * sk
            if den > 0:
                b_new = (m * skx - sk * sx) / den
                if 0.8 * period < b_new < 1.25 * period:
                    b = b_new
                    a = (sx - b * sk) / m
    teeth = hi - lo + 1
    if teeth - 1 < MIN_CELLS:
        return None
    members = [found[k] for k in sorted(found)]
    got = float(mass[members].sum())
    return a + b * lo, b, teeth, members, got


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
    ``MIN_CELLS`` cells each way is found.

    Columns first over the whole image, then rows within the columns found, then columns within
    those rows, until they settle (and the same starting with rows; the better pair is kept).
    Within a span, a line counts only for the part of it that does not run on past the board
    (a menu bar's edge spans the window, a board's line stops at the board).
    """
    vx, hy = edge_maps(rgb)
    found: list[Grid] = []
    for first in ("x", "y"):
        g = _alternate(vx, hy, first)
        if g is not None:
            found.append(g)
    if not found:
        return None
    return max(found, key=lambda g: g.x.score + g.y.score)


def _alternate(vx: NDArray[np.bool_], hy: NDArray[np.bool_], first: str) -> Grid | None:
    h, w = hy.shape[0] + 1, vx.shape[1] + 1
    lx = ly = None
    if first == "x":
        lx = _settle(vx.sum(axis=0).astype(np.float64), find_lattice(vx.sum(axis=0).astype(np.float64)))
    else:
        ly = _settle(hy.sum(axis=1).astype(np.float64), find_lattice(hy.sum(axis=1).astype(np.float64)))
    for _ in range(4):
        if lx is not None:
            prof = _span_profile(hy, lx, axis=1)
            new_y = _settle(prof, find_lattice(prof))
            if new_y is None:
                return None
            ly = new_y
        if ly is None:
            return None
        prof = _span_profile(vx, ly, axis=0)
        new_x = _settle(prof, find_lattice(prof))
        if new_x is None:
            return None
        if lx is not None and _same(lx, new_x) and ly is not None:
            lx = new_x
            break
        lx = new_x
    if lx is None or ly is None:
        return None
    del h, w
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
    and which boundaries hold edges (a third of the chain's median or more), as one run."""
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
    floor = np.median(chain) / 3
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
