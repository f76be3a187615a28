"""What ``best`` recommends (:class:`BestMove`), and the cell keys its choices share: the chance
to open a zero, the distance from what is revealed, and the safest cell."""

from __future__ import annotations

from bisect import insort
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import compress
from math import prod
from operator import itemgetter
from typing import Any, Final, Literal

from demine.analysis import Analysis
from demine.analysis.result import Ratio
from demine.analysis.totals import quotient
from demine.engine.game import Move
from demine.engine.grid import geometry
from demine.engine.lanes import NONZERO, cell_numbers, neighbour_sums
from demine.engine.pickling import by_fields
from demine.engine.position import COVERED, COVERED_MASK, FLAG_MASK, HIDDEN_MASK, Position
from demine.errors import IllegalMove

#: 1 for a revealed cell's state, for :meth:`bytes.translate`.
SHOWN_MASK: Final = bytes(1 if v < COVERED else 0 for v in range(256))

MoveReason = Literal["safe", "safest", "look-ahead", "endgame", "sampled endgame", "50-50"]


@dataclass(frozen=True, slots=True)
class BestMove:
    """A recommended move with its estimate and the reason for it."""

    move: Move
    """The move to play."""
    reason: MoveReason
    """``safe``, ``safest``, ``look-ahead``, ``endgame``, ``sampled endgame`` or ``50-50``."""
    mine_probability: float
    """The chance the move hits a mine."""
    win_probability: float | None = None
    """The chance to win from here with this move (exact in the endgame; None otherwise)."""
    survive: float | None = None
    """For a look-ahead guess: the chance to survive it and the next ``reveals - 1`` reveals (a
    reveal of a proven safe cell counting as one), playing the best of the cells weighed."""
    reveals: int | None = None
    """How many reveals ``survive`` covers: 3 with ``depth=3``, 2 when the look-ahead ranks by
    two (``depth=2``, or the budget ran out before the deeper ranking). With long-term risk the
    guess's own safety in it is its long-term safety (a mine that only decides a coin toss the
    game must take anyway counts as nearly safe)."""

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its constructor's arguments (see :mod:`demine.engine.pickling`)."""
        return by_fields(self)

    @property
    def outlook(self) -> str:
        """What the move's search says of what follows, in words ("" when it says nothing more
        than the risk): the chance to win with best play in the endgame, else after a look-ahead
        the chance to survive the next reveals."""
        if self.win_probability is not None:
            return f"wins {100 * self.win_probability:.1f}% with best play"
        if self.survive is not None:
            return f"{100 * self.survive:.1f}% to survive {self.reveals} reveals from here"
        return ""

    @property
    def estimate(self) -> float:
        """The best estimate of the chance to win from here that this move carries: exact in
        the endgame, else an upper bound (surviving this guess, or this and the next one or two
        reveals)."""
        if self.win_probability is not None:
            return self.win_probability
        if self.survive is not None:
            return self.survive
        return 1.0 - self.mine_probability


@lru_cache(maxsize=8)
def _neighbour_getters(width: int, height: int) -> tuple[Callable[[Any], Any], ...]:
    """Per cell, a C-level getter of its neighbours' items in a sequence over the cells (bytes to
    count them, floats to multiply them); a cell with fewer than two neighbours gets a slice, so
    every getter returns something ``sum`` or ``prod`` can take."""
    nb = geometry(width, height).neighbours
    out: list[Callable[[Any], Any]] = []
    for c in range(width * height):
        cells = nb(c)
        if len(cells) >= 2:
            out.append(itemgetter(*cells))
        else:
            out.append(itemgetter(slice(cells[0], cells[0] + 1) if cells else slice(0, 0)))
    return tuple(out)


@lru_cache(maxsize=8)
def neighbour_counts(width: int, height: int) -> tuple[int, ...]:
    """Per cell, how many neighbours it has (3 in a corner, 5 on an edge, 8 inside)."""
    nb = geometry(width, height).neighbours
    return tuple(len(nb(c)) for c in range(width * height))


def zero_chance_keys(position: Position) -> Callable[[int], int]:
    """A cell's count of covered or flagged neighbours in ``position``: fewer, more likely to be a
    zero (and open an area). The count for many cells, the board's mask made once."""
    if position.cells > 65536:
        st = position.states
        nb = position.geometry.neighbours
        return lambda c: sum(1 for d in nb(c) if st[d] >= COVERED)
    getters = _neighbour_getters(position.width, position.height)
    hidden = position.states.translate(HIDDEN_MASK)
    return lambda c: sum(getters[c](hidden))


def distances(position: Position, far_off: bool) -> Callable[[int], int]:
    """Each cell's distance (steps in rows and columns) to the nearest revealed cell, negated when
    ``far_off`` (so that sorting puts the farthest first), else 0 for every cell. On a board of at
    most 65,536 cells each cell's is looked for around it (:func:`_nearest_revealed`: the few cells
    asked for cost less than a search of the board); past that one search of the whole board runs
    at the first call (and once per position: the look-ahead and the safest move share it)."""
    if not far_off:
        return lambda c: 0
    w, h, st = position.width, position.height, position.states
    if position.cells <= 65536:
        return lambda c: -_nearest_revealed(w, h, st, c)
    dist: tuple[int, ...] = ()

    def key(c: int) -> int:
        nonlocal dist
        if not dist:
            dist = _steps_to_revealed(w, h, st)
        return -dist[c]

    return key


def _nearest_revealed(width: int, height: int, states: bytes, cell: int) -> int:
    """``cell``'s distance (steps in rows and columns) to the nearest revealed cell, -1 when none
    is: the cells at distance 1, 2, ... around it, until one is revealed (on a grid without
    obstacles the search of :func:`_steps_to_revealed` finds the same)."""
    if states[cell] < COVERED:
        return 0
    r0, c0 = divmod(cell, width)
    for d in range(1, width + height - 1):
        for r in range(max(0, r0 - d), min(height - 1, r0 + d) + 1):
            rest = d - (r0 - r if r <= r0 else r - r0)
            row = r * width
            x = c0 - rest
            if x >= 0 and states[row + x] < COVERED:
                return d
            x = c0 + rest
            if rest and x < width and states[row + x] < COVERED:
                return d
    return -1


def off_candidates(position: Position, cells: list[int], k: int, far_off: bool) -> list[int]:
    """The ``k`` of ``cells`` (covered cells off the frontier, of a board of at most 65,536
    cells) most likely to open a zero: the fewest neighbours (off the frontier every one is
    hidden), then with ``far_off`` the farthest from every revealed cell, then the lowest; in
    that order. ``heapq.nsmallest(k, cells, key=lambda c: (neighbours, far(c), c))`` with ``far``
    from :func:`distances`, each key made one int here (compiled: no call per cell)."""
    if not cells or k <= 0:
        return []
    w, h, n = position.width, position.height, position.cells
    n_nb = neighbour_counts(w, h)
    st = position.states
    span = w + h + 2  # a distance is -1 (nothing revealed) to w + h: far(c) + w + h is in [0, span)
    most = 8  # the most neighbours a cell of the k taken can have: the k-th fewest among cells
    if far_off:
        fewest: list[int] = []
        for c in cells:
            m = n_nb[c]
            if len(fewest) == k:
                if m >= fewest[-1]:
                    continue
                fewest.pop()
            insort(fewest, m)
        most = fewest[-1]
    best: list[int] = []  # the k lowest keys so far, in order
    for c in cells:
        m = n_nb[c]
        if m > most:  # k cells have fewer neighbours: no distance needed
            continue
        f = w + h - _nearest_revealed(w, h, st, c) if far_off else w + h
        key = (m * span + f) * n + c
        if len(best) == k:
            if key > best[-1]:
                continue
            best.pop()
        insort(best, key)
    return [key % n for key in best]


@lru_cache(maxsize=4)
def _steps_to_revealed(width: int, height: int, states: bytes) -> tuple[int, ...]:
    """Breadth-first search from all revealed cells at once (-1 where none can be reached)."""
    n4 = _four_neighbours(width, height)
    dist = [-1] * (width * height)
    todo = [c for c, v in enumerate(states) if v < COVERED]
    for c in todo:
        dist[c] = 0
    for c in todo:  # the list grows as the search goes
        step = dist[c] + 1
        for d in n4[c]:
            if dist[d] < 0:
                dist[d] = step
                todo.append(d)
    return tuple(dist)


@lru_cache(maxsize=8)
def _four_neighbours(width: int, height: int) -> tuple[tuple[int, ...], ...]:
    """Per cell, its neighbours up, down, left and right."""
    out = []
    for c in range(width * height):
        r, col = divmod(c, width)
        sides = ((c - width, r > 0), (c + width, r < height - 1), (c - 1, col > 0), (c + 1, col < width - 1))
        out.append(tuple(d for d, ok in sides if ok))
    return tuple(out)


def safe_enough(
    position: Position, unknown: Iterable[int], ratios: Mapping[int, Ratio], floor: Ratio
) -> list[int]:
    """The covered cells of ``unknown`` (in its order) whose safety is at least ``floor`` (as
    ``(numerator, denominator)``; a cell's chance of a mine is ``ratios[c]``): integer tests, one
    per distinct chance (the cells of a box share one pair object, told apart by identity)."""
    st = position.states
    fn, fd = floor
    passes: dict[int, bool] = {}
    out = []
    for c in unknown:
        if st[c] != COVERED:
            continue
        nd = ratios[c]
        key = id(nd)
        ok = passes.get(key)
        if ok is None:
            n, d = nd
            ok = (d - n) * fd >= fn * d
            passes[key] = ok
        if ok:
            out.append(c)
    return out


def touches_revealed(position: Position, cells: list[int]) -> list[bool]:
    """For each of ``cells`` (covered ones), whether a neighbour is revealed (it is on the
    frontier). Marks the neighbours of the revealed cells, or counts each cell's hidden
    neighbours, whichever visits fewer cells."""
    st = position.states
    n = position.cells
    revealed = n - st.translate(HIDDEN_MASK).count(1)
    if revealed * 8 < len(cells) * 3 or n > 65536:
        mark = bytearray(n)
        nb = position.geometry.neighbours
        for c, v in enumerate(st):
            if v < COVERED:
                for d in nb(c):
                    mark[d] = 1
        return [bool(mark[c]) for c in cells]
    zero_key = zero_chance_keys(position)
    n_nb = neighbour_counts(position.width, position.height)
    return [zero_key(c) != n_nb[c] for c in cells]


def frontier_split(position: Position, cells: list[int]) -> tuple[list[int], list[int]]:
    """``cells`` (covered ones) on the frontier and off it, each in their order
    (:func:`touches_revealed`)."""
    near = touches_revealed(position, cells)
    on: list[int] = []
    off: list[int] = []
    for i in range(len(cells)):  # (an index loop: compiled, a zip with ``strict`` is a call)
        if near[i]:
            on.append(cells[i])
        else:
            off.append(cells[i])
    return on, off


def safest_move(position: Position, a: Analysis, far_ties: bool = False) -> BestMove:
    """The lowest-probability covered cell, ties toward the cell most likely to be a zero, then
    (with ``far_ties``: ``best`` with ``far_off``) toward the farthest from every revealed cell."""
    st = position.states
    tied = [c for c in a.safest() if st[c] == COVERED] or [c for c in a.unknown if st[c] == COVERED]
    zero_key = zero_chance_keys(position)
    if position.cells <= 65536:
        # a cell away from every revealed one has all its neighbours hidden: its key is their number
        n_nb = neighbour_counts(position.width, position.height)
        near = touches_revealed(position, tied)
        keys = {c: zero_key(c) if on else n_nb[c] for c, on in zip(tied, near, strict=True)}
    else:
        keys = {c: zero_key(c) for c in tied}
    least = min(keys.values())
    tied = [c for c in tied if keys[c] == least]
    if far_ties and len(tied) > 1:  # the distances only when they decide something
        far = distances(position, True)
        c = min(tied, key=lambda c: (far(c), c))
    else:
        c = min(tied)
    return BestMove(Move("reveal", c), "safest", a.p(c))


def two_step_move(position: Position, a: Analysis) -> BestMove:
    """``fast``'s guess: the covered cell with the highest ``s x (g + (1 - g) x r)``, ``s`` its
    chance to be safe, ``g`` about the chance that its number proves a cell safe at once
    (:func:`progress_chance`; a zero opens its neighbours) and ``r`` the best safety among the
    other cells. That estimates the chance to survive this guess and the next one: a proven safe
    cell makes the next one free, otherwise the next guess is taken as safe as the best other cell
    now. So a cell whose number would tell nothing (every count but one impossible) loses to one
    as safe that may open the way, and a slightly less safe cell can win when its number is likely
    to prove something. Equal scores go to :func:`safest_move`'s order (fewest covered
    neighbours, then the lowest cell)."""
    st = position.states
    n = position.cells
    safety = [1.0] * n  # for the neighbours: revealed cells, flags and proven mines count 1
    mine = [0.0] * n  # each cell's chance of a mine (1 for flags and proven mines)
    owns = [-1.0] * n  # each covered cell's safety
    # per value object (the cells of a box share one, and come one after another): its factor
    # as a neighbour (1 for a proven mine), then as objects its safety, that factor and its
    # chance of a mine. The lists hold objects: typed Any, the objects made once per value are
    # stored as they are (a float the compiled code stores is a new object each time: three a
    # cell, a fifth of the guess's time)
    floats: dict[int, tuple[float, Any, Any, Any]] = {}
    safety_o: list[Any] = safety
    mine_o: list[Any] = mine
    owns_o: list[Any] = owns
    plain = True  # no hidden cell but a covered one counts less than 1 as a neighbour
    best = second = -1.0  # the two highest safeties of covered cells
    seen = 0
    last: object = None
    s = 0.0
    factor = 0.0
    s_o: Any = 0.0
    factor_o: Any = 0.0
    m_o: Any = 0.0
    for c, v in a.ratios.items():
        if v is not last:
            got = floats.get(id(v))
            if got is None:
                num, den = v
                x = 1.0 - quotient(num, den) if num else 1.0  # (the same float in both builds)
                fx = 1.0 if num == den else x
                x_o: Any = x
                fx_o: Any = fx
                mm_o: Any = 1.0 - x
                got = floats[id(v)] = (fx, x_o, fx_o, mm_o)
            factor, s_o, factor_o, m_o = got
            s = s_o
            last = v
        safety_o[c] = factor_o
        mine_o[c] = m_o
        if st[c] == COVERED:
            owns_o[c] = s_o
            seen += 1
            if s > best:
                second = best
                best = s
            elif s > second:
                second = s
        elif factor != 1.0:
            plain = False
    if not seen:
        raise IllegalMove("no covered cell left to open")
    for f in compress(cell_numbers(n), st.translate(FLAG_MASK)):
        mine[f] = 1.0
    second = max(second, 0.0)
    plain = plain and st.count(COVERED) == seen
    tied = _two_step_best(position, owns, safety, mine, best, second, plain)
    if len(tied) > 1:
        if n <= 65536:
            hidden = neighbour_sums(position.width, position.height, st.translate(HIDDEN_MASK))
            c = min(tied, key=lambda c: (hidden[c], c))
        else:
            zero_key = zero_chance_keys(position)
            c = min(tied, key=lambda c: (zero_key(c), c))
    else:
        c = tied[0]
    return BestMove(Move("reveal", c), "safest", a.p(c))


def _two_step_best(
    position: Position,
    owns: list[float],
    safety: list[float],
    mine: list[float],
    best: float,
    second: float,
    plain: bool = False,
) -> list[int]:
    """The covered cells (``owns[c]`` their safety, -1 for other cells) with the highest two-step
    score (see :func:`two_step_move`). A cell's score is at most its safety, and the safest
    cell scores at least ``best x second``: only the cells at least that safe are weighed, the
    safest first, down to the best score found so far. Any order finds the same cells.

    Away from the numbers (a covered cell none of whose neighbours touches a revealed one) the
    chance of progress is the chance of a zero, the product of the neighbours' safeties. Such a
    cell's covered neighbours are all off the frontier. When those all share one safety ``u``
    (``plain``, and checked here: they do in an exact count) and no other neighbour counts less
    than 1, the product is ``u`` multiplied in once per covered neighbour, in the same order of
    operations (a factor 1.0 changes no float): its score depends on that number only. Those cells
    are weighed together by their counts (:func:`~demine.engine.lanes.neighbour_sums`), the
    same floats as one by one."""
    n = position.cells
    floor = best * second
    nb = position.geometry.neighbours
    top = -1.0
    tied: list[int] = []
    if n > 65536:
        covered = [c for c in range(n) if owns[c] >= 0.0]
        near = bytes(_near(position, covered))
        weigh = [c for c in covered if owns[c] >= floor]
        getters = None
    else:
        w, h = position.width, position.height
        st = position.states
        getters = _neighbour_getters(w, h)
        cov = int.from_bytes(st.translate(COVERED_MASK), "little")
        front = cov & int.from_bytes(
            neighbour_sums(w, h, st.translate(SHOWN_MASK)).translate(NONZERO), "little"
        )
        near = neighbour_sums(w, h, front.to_bytes(n, "little")).translate(NONZERO)
        away = cov & ~(front | int.from_bytes(near, "little"))
        if plain and away:
            us = set(compress(safety, (cov & ~front).to_bytes(n, "little")))
            u = us.pop() if len(us) == 1 else 1.0
            if u != 1.0 and u >= floor:
                top, tied = _away_best(position, away, u, best, second)
            else:
                away = 0
        else:
            away = 0
        rest = compress(cell_numbers(n), (cov & ~away).to_bytes(n, "little"))
        weigh = [c for c in rest if owns[c] >= floor]
    for c, s in sorted([(c, owns[c]) for c in weigh], key=itemgetter(1), reverse=True):
        if s < top:
            break
        if near[c]:
            g = progress_chance(position, c, mine)
        elif getters is not None:
            g = _doubtful(prod(getters[c](safety)))
        else:
            g = _doubtful(prod((safety[d] for d in nb(c)), start=1.0))
        score = s * (g + (1.0 - g) * (second if s == best else best))
        if score > top:
            top = score
            tied = [c]
        elif score == top:
            tied.append(c)
    return tied


def _away_best(
    position: Position, away: int, u: float, best: float, second: float
) -> tuple[float, list[int]]:
    """The best score among the cells marked in ``away`` (lanes, :mod:`demine.engine.lanes`:
    covered cells off the frontier and not next to it, each of safety ``u``, as are their
    covered neighbours), and the cells that have it."""
    n = position.cells
    w, h = position.width, position.height
    counts = int.from_bytes(neighbour_sums(w, h, position.states.translate(COVERED_MASK)), "little")
    marks = away * 255
    every = int.from_bytes(b"\xff" * n, "little")
    by_count = ((counts & marks) | (every ^ marks)).to_bytes(n, "little")  # 255 off those cells
    x = 1.0
    powers = [_doubtful(x)]
    for _ in range(8):
        x *= u
        powers.append(_doubtful(x))
    r = second if u == best else best
    scores = {k: u * (powers[k] + (1.0 - powers[k]) * r) for k in set(by_count) if k < 255}
    top = max(scores.values())
    tied: list[int] = []
    for k, score in scores.items():
        if score == top:
            mark = bytes((k,))
            i = by_count.find(mark)
            while i >= 0:
                tied.append(i)
                i = by_count.find(mark, i + 1)
    return top, tied


def _near(position: Position, covered: list[int]) -> list[bool]:
    """True for each cell next to a covered cell that touches a revealed one (the frontier)."""
    return _near_front(position, covered)[0]


def _near_front(position: Position, covered: list[int]) -> tuple[list[bool], list[bool]]:
    """:func:`_near`, and for each of ``covered`` whether it touches a revealed cell."""
    nb = position.geometry.neighbours
    near = [False] * position.cells
    front = touches_revealed(position, covered)
    for c, on in zip(covered, front, strict=True):
        if on:
            for d in nb(c):
                near[d] = True
    return near, front


def _doubtful(zero: float) -> float:
    """The chance of progress by a zero: none when every neighbour is known (a product of 1)."""
    return 0.0 if zero == 1.0 else zero


def progress_chance(position: Position, cell: int, mine: list[float]) -> float:
    """About the chance that ``cell``'s number, once it shows (``cell`` safe), proves a covered
    cell safe by itself or with one number already shown (the pair rule: one set of cells inside
    the other's, or overlapping with counts that force the rest). ``mine`` holds each cell's
    chance of a mine (0 for revealed cells, 1 for flags and proven mines); the count of mines
    around ``cell`` is taken as if its neighbours were independent, within the bounds that the
    numbers around them set."""
    st = position.states
    nb = position.geometry.neighbours
    around = [d for d in nb(cell) if st[d] >= COVERED and mine[d] < 1.0]
    if not around:
        return 0.0  # its number is known already: it proves nothing
    # the chance of each count of mines around the cell (independent neighbours), updated in
    # place from the highest count down: the same products and sums as a new list per cell
    size = len(around)
    dist = [0.0] * (size + 1)
    dist[0] = 1.0
    for k in range(1, size + 1):
        q = mine[around[k - 1]]
        p = 1.0 - q
        dist[k] = dist[k - 1] * q
        for x in range(k - 1, 0, -1):
            dist[x] = dist[x - 1] * q + dist[x] * p
        dist[0] = dist[0] * p
    # the numbers next to those cells, each as (cells in common, its own other cells, mines left):
    # the shown numbers up to two rows and columns away, those that see one of them (the cells
    # next to ``cell``, covered and not a mine, are ``around``'s)
    width = position.width
    row, col = divmod(cell, width)
    pairs: set[tuple[int, int, int]] = set()  # numbers that see alike count once: any one decides
    for rr in range(max(0, row - 2), min(position.height, row + 3)):
        for cc in range(max(0, col - 2), min(width, col + 3)):
            r = rr * width + cc
            v = st[r]
            if v >= COVERED:
                continue
            inside = other = 0
            left = v
            for e in nb(r):
                if st[e] < COVERED or e == cell:
                    continue
                if mine[e] >= 1.0:
                    left -= 1
                elif -1 <= e // width - row <= 1 and -1 <= e % width - col <= 1:
                    inside += 1
                else:
                    other += 1
            if inside:
                pairs.add((inside, other, left))
    # the counts the shown numbers allow (each number's mines left, less its other cells, must
    # lie among the shared cells; the shared cells hold no more than it has left): the others
    # are impossible, whatever the independent estimate says
    lo_x, hi_x = 0, size
    for inside, other, left in pairs:
        lo_x = max(lo_x, left - other)
        hi_x = min(hi_x, size - inside + min(inside, left))
    mass = sum(dist[lo_x : hi_x + 1])
    if mass <= 0.0:
        return 0.0
    gain = dist[0] if lo_x == 0 else 0.0  # a zero opens every neighbour
    # per number: the new number's cells that it does not see, its own other cells, its mines
    # left, and the fewest mines the shared cells hold whatever the new number shows
    sides = [(size - inside, other, left, max(0, left - other)) for inside, other, left in pairs]
    for x in range(max(1, lo_x), hi_x + 1):
        w = dist[x]
        if w <= 0.0:
            continue
        for outside, other, left, least in sides:
            lo = x - outside  # fewest mines the shared cells can hold
            if lo < least:
                lo = least
            if (other and lo >= left) or (outside and lo >= x):
                gain += w
                break
    return gain / mass
