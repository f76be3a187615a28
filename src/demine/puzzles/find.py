"""Puzzles in one position: what it proves and why (safe, all), or the exact chance to win of each
guess (guess, coin), cropped to the part of the board that matters.

Cropping keeps a box around the cells that matter and checks the answer is unchanged in it: a
revealed number at the box's edge whose covered neighbours fall outside becomes a covered cell (its
count could no longer be read), and the box keeps the mine count only when every cell outside it
is revealed. Anything the cropped position proves, the whole one proves too (it has fewer facts).
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from demine.analysis import Analysis, Reason, analyze
from demine.analysis.constraints import position_system
from demine.analysis.enumerate import enumerate_layouts
from demine.analysis.rules import Propagator
from demine.engine.position import COVERED, FLAG, Position
from demine.errors import DemineError
from demine.players.best import Endgame
from demine.puzzles.model import KINDS, Kind, Proof, Puzzle
from demine.puzzles.symmetry import canonical, position_key, transform, transform_cell

#: Rule names as the themes say them.
RULE_THEMES = {
    "number": "single number",
    "pair": "pair",
    "component": "set of numbers",
    "mine-count": "mine count",
}
#: How hard each rule is, for the starting rating.
RULE_LEVEL = {"number": 0, "pair": 1, "component": 2, "mine-count": 3}
#: Patterns of effective numbers along a straight edge.
PATTERNS = {"1-2-1": (1, 2, 1), "1-2-2-1": (1, 2, 2, 1)}
EPS = 1e-9


@dataclass(frozen=True, slots=True)
class MakeSettings:
    """How puzzles are found."""

    max_layouts: int = 200
    """guess and coin: only positions with at most this many layouts (exact endgame search)."""
    gap: float = 0.05
    """guess: the best cell's chance to win beats the tempting one's by at least this."""
    coin_gap: float = 0.02
    """coin (not a true 50/50): the best cell beats guessing the pair by at least this."""
    max_all: int = 12
    """all: at most this many cells to decide."""
    max_area: int = 480
    """The largest cropped board, in cells."""
    endgame_nodes: int = 200_000
    """The most search nodes one guess position may take."""
    min_revealed: int = 4
    """guess and coin: at least this many revealed cells in the cropped board."""
    margins: tuple[int, ...] = (1, 2, 3)
    """Crop margins tried, smallest first, before the whole board."""


DEFAULT_MAKE = MakeSettings()


class _Tracing(Propagator):
    """The number and pair rules, keeping for each decided cell every number its proof used
    (through the cells decided before it) and whether a pair was needed."""

    def __init__(self, position: Position) -> None:
        system = position_system(position)
        super().__init__(system.constraints, system.describe, system.flag_note)
        self.index = {lab: i for i, lab in enumerate(self.label)}
        self.chain: dict[int, tuple[str, frozenset[int]]] = {}
        self.level = [0] * len(self.label)

    def decide(self, cell: int, value: int, reason: Reason) -> None:
        fresh = cell not in self.decided
        used: set[int] = set()
        level = 1 if reason.kind == "pair" else 0
        for lab in reason.numbers:
            i = self.index[lab]
            used |= self.involved[i]
            level = max(level, self.level[i])
        super().decide(cell, value, reason)
        if fresh:
            self.chain[cell] = ("pair" if level else "number", frozenset(used))
            for i in self.cell_cons.get(cell, ()):
                self.involved[i] |= used
                self.level[i] = max(self.level[i], level)


def number_rule_safe(position: Position) -> set[int]:
    """The cells the single-number rule alone proves safe (chained to its fixed point)."""
    system = position_system(position)
    prop = Propagator(system.constraints, system.describe)
    prop.run_numbers()
    return {c for c, v in prop.decided.items() if v == 0}


def proofs(position: Position, a: Analysis) -> dict[int, Proof]:
    """Every forced cell's proof: the cheapest rule and every number it needs."""
    tr = _Tracing(position)
    tr.run_all()
    out: dict[int, Proof] = {}
    for c in a.safe | a.mines:
        if c in tr.chain:
            rule, nums = tr.chain[c]
            out[c] = (rule, tuple(sorted(nums)))
        else:
            r = a.reasons.get(c, Reason("mine-count", ()))
            out[c] = (r.kind, tuple(sorted(r.numbers)))
    return out


# ---------------------------------------------------------------------------- cropping
@dataclass(frozen=True, slots=True)
class Crop:
    """A box of a position: the cropped position and where its corner was."""

    position: Position
    row: int
    col: int
    width: int
    """The whole board's width."""

    def to_crop(self, cell: int) -> int | None:
        """A whole-board cell in the box, or None when it falls outside."""
        r, c = divmod(cell, self.width)
        r -= self.row
        c -= self.col
        if 0 <= r < self.position.height and 0 <= c < self.position.width:
            return r * self.position.width + c
        return None


def crop(position: Position, focus: Iterable[int], margin: int, grow: bool = False) -> Crop:
    """The box around ``focus`` widened by ``margin`` (see the module's note). With ``grow``, the
    box is widened instead until no revealed number in it has a covered neighbour outside (so no
    number becomes a covered cell). O(box cells) per widening."""
    w, h = position.width, position.height
    rows = [c // w for c in focus]
    cols = [c % w for c in focus]
    r0, r1 = max(0, min(rows) - margin), min(h - 1, max(rows) + margin)
    c0, c1 = max(0, min(cols) - margin), min(w - 1, max(cols) + margin)
    st = position.states
    nb = position.geometry.neighbours

    while grow:
        grow = False
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                d = r * w + c
                if st[d] >= COVERED:
                    continue
                for e in nb(d):
                    if st[e] >= COVERED:
                        er, ec = divmod(e, w)
                        if not (r0 <= er <= r1 and c0 <= ec <= c1):
                            r0, r1, c0, c1 = min(r0, er), max(r1, er), min(c0, ec), max(c1, ec)
                            grow = True

    hidden_inside = 0
    out = bytearray()
    for r in range(r0, r1 + 1):
        for c in range(c0, c1 + 1):
            d = r * w + c
            v = st[d]
            if v >= COVERED:
                hidden_inside += 1
            elif r in (r0, r1) or c in (c0, c1):  # only the box's rim can see outside
                for e in nb(d):
                    if st[e] >= COVERED:
                        er, ec = divmod(e, w)
                        if not (r0 <= er <= r1 and c0 <= ec <= c1):
                            v = COVERED
                            break
            out.append(v)
    hidden = st.count(COVERED) + st.count(FLAG)
    mines = None if hidden > hidden_inside else position.mines
    return Crop(Position(c1 - c0 + 1, r1 - r0 + 1, bytes(out), mines), r0, c0, w)


def crops(position: Position, focus: set[int], settings: MakeSettings) -> list[Crop]:
    """The boxes to try around ``focus``, smallest first, the whole board last."""
    seen: set[tuple[int, int, int, int]] = set()
    out = []
    for margin in settings.margins:
        for grow in (False, True):
            cr = crop(position, focus, margin, grow)
            key = (cr.row, cr.col, cr.position.width, cr.position.height)
            if key not in seen and cr.position.cells <= settings.max_area:
                seen.add(key)
                out.append(cr)
    out.sort(key=lambda cr: cr.position.cells)
    if position.cells <= settings.max_area:
        out.append(Crop(position, 0, 0, position.width))
    return out


def _unknown_near(position: Position, numbers: Iterable[int]) -> set[int]:
    geo, st = position.geometry, position.states
    return {d for n in numbers for d in geo.neighbours(n) if st[d] >= COVERED}


# ---------------------------------------------------------------------------- themes
def patterns(position: Position, a: Analysis, numbers: Iterable[int]) -> set[str]:
    """The named patterns (1-2-1, 1-2-2-1) that ``numbers`` take part in: a straight run of
    revealed numbers whose values, less the proven mines around them, read the pattern, with
    undecided covered cells all along one side and revealed cells or the wall along the other."""
    w, h, st = position.width, position.height, position.states
    geo = position.geometry
    mines = a.mines | a.known_mines
    found: set[str] = set()

    def at(r: int, c: int) -> int | None:
        return st[r * w + c] if 0 <= r < h and 0 <= c < w else None

    def eff(r: int, c: int, pattern_side: set[int]) -> int:
        d = r * w + c
        return st[d] - sum(1 for e in geo.neighbours(d) if e in mines and e not in pattern_side)

    for n in set(numbers):
        r, c = divmod(n, w)
        for dr, dc in ((0, 1), (1, 0)):
            for name, pat in PATTERNS.items():
                k = len(pat)
                for i in range(k):
                    sr, sc = r - i * dr, c - i * dc
                    run = [(sr + j * dr, sc + j * dc) for j in range(k)]
                    if any((v := at(rr, cc)) is None or v >= COVERED for rr, cc in run):
                        continue
                    for side in (1, -1):
                        near = [(rr + side * dc, cc + side * dr) for rr, cc in run]
                        far = [at(rr - side * dc, cc - side * dr) for rr, cc in run]
                        if any(at(rr, cc) != COVERED for rr, cc in near):
                            continue
                        if any(v is not None and v >= COVERED for v in far):
                            continue
                        # the row beyond the pattern's ends: its covered cells are part of it
                        ends = [
                            (rr, cc)
                            for rr, cc in (
                                (near[0][0] - dr, near[0][1] - dc),
                                (near[-1][0] + dr, near[-1][1] + dc),
                            )
                        ]
                        side_cells = {rr * w + cc for rr, cc in near + ends if at(rr, cc) is not None}
                        if tuple(eff(rr, cc, side_cells) for rr, cc in run) == pat:
                            found.add(name)
    return found


# ---------------------------------------------------------------------------- the kinds
def _puzzle(
    crop_: Crop, kind: Kind, answer: Sequence[int], proof: dict[int, Proof], themes: Iterable[str],
    rating: float, source: str, **extra: object,
) -> Puzzle:  # fmt: skip
    q = crop_.position
    return Puzzle(
        id=f"{kind}-{position_key(q)}",
        position=q,
        kind=kind,
        answer=tuple(sorted(answer)),
        proof=proof,
        themes=tuple(sorted(set(themes))),
        rating=float(round(min(2600.0, max(700.0, rating)))),
        source=source,
        **extra,  # type: ignore[arg-type]
    )


def _safe_in(q: Position) -> tuple[Analysis, dict[int, Proof]] | None:
    try:
        a = analyze(q)
    except DemineError:
        return None
    if a.approximate:
        return None
    return a, proofs(q, a)


def safe_puzzle(position: Position, a: Analysis, pr: dict[int, Proof], source: str, known: Container[str],
                settings: MakeSettings = DEFAULT_MAKE) -> Puzzle | None:  # fmt: skip
    """A "safe" puzzle: some cell is proven safe and the single-number rule proves none."""
    if not a.safe or number_rule_safe(position):
        return None

    def cost(c: int) -> tuple[int, int, int]:
        rule, nums = pr[c]
        return RULE_LEVEL[rule], len(nums), c

    # the cells with the easiest proof; each may crop differently: the smallest crop wins (then the
    # canonical text), so that rotated and mirrored copies make the same puzzle
    low = min(cost(c)[:2] for c in a.safe)
    tied = sorted((c for c in a.safe if cost(c)[:2] == low), key=cost)[:6]
    made = [
        z for z in (_safe_around(position, pr, f, source, known, settings) for f in tied) if z is not None
    ]
    if not made:
        return None
    return min(made, key=lambda z: (z.position.cells, canonical(z.position)[0]))


def _safe_around(position: Position, pr: dict[int, Proof], focus: int, source: str, known: Container[str],
                 settings: MakeSettings) -> Puzzle | None:  # fmt: skip
    rule, nums = pr[focus]
    cells = {focus, *nums} | _unknown_near(position, nums)
    for cr in crops(position, cells, settings):
        q = cr.position
        if f"safe-{position_key(q)}" in known:
            return None  # made before from this very box
        f = cr.to_crop(focus)
        got = _safe_in(q)
        if got is None or f is None:
            continue
        qa, qpr = got
        if f not in qa.safe or qpr[f][0] != rule or number_rule_safe(q):
            continue
        low = min((RULE_LEVEL[qpr[c][0]], len(qpr[c][1])) for c in qa.safe)
        easiest = [c for c in qa.safe if (RULE_LEVEL[qpr[c][0]], len(qpr[c][1])) == low]
        brule, bnums = qpr[easiest[0]]
        themes = {RULE_THEMES[brule]}
        for c in easiest:
            themes |= patterns(q, qa, qpr[c][1])
        rating = 1000 + 250 * RULE_LEVEL[brule] + 30 * max(0, len(bnums) - 2) - 15 * min(len(qa.safe) - 1, 6)
        return _puzzle(cr, "safe", sorted(qa.safe), {c: qpr[c] for c in qa.safe}, themes, rating, source,
                       layouts=qa.solutions if q.mines is not None else None)  # fmt: skip
    return None


def _groups(position: Position, forced: set[int]) -> list[set[int]]:
    """The forced frontier cells, grouped by the numbers that link them."""
    system = position_system(position)
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for cells, _, _ in system.constraints:
        for c in cells[1:]:
            parent[find(c)] = find(cells[0])
    groups: dict[int, set[int]] = {}
    for c in forced:
        if c in parent:
            groups.setdefault(find(c), set()).add(c)
    return sorted(groups.values(), key=min)


def all_puzzles(position: Position, a: Analysis, pr: dict[int, Proof], source: str, known: Container[str],
                settings: MakeSettings = DEFAULT_MAKE) -> list[Puzzle]:  # fmt: skip
    """ "All" puzzles: per group of linked forced cells, the box where exactly those are decided."""
    out = []
    for group in _groups(position, set(a.safe | a.mines)):
        nums = {n for c in group for n in pr[c][1]}
        cells = group | nums | _unknown_near(position, nums)
        for cr in crops(position, cells, settings):
            q = cr.position
            if f"all-{position_key(q)}" in known:
                break  # made before from this very box
            got = _safe_in(q)
            if got is None:
                continue
            qa, qpr = got
            ok = True
            for c in group:
                d = cr.to_crop(c)
                if d is None or (d in qa.safe) != (c in a.safe) or (d in qa.mines) != (c in a.mines):
                    ok = False
                    break
            if not ok:
                continue
            answer = qa.safe | qa.mines
            if len(answer) > settings.max_all:
                break
            rules = {qpr[c][0] for c in answer}
            allnums = {n for c in answer for n in qpr[c][1]}
            themes = {RULE_THEMES[r] for r in rules} | patterns(q, qa, allnums)
            rating = 800 + 200 * max(RULE_LEVEL[r] for r in rules) + 20 * len(answer) + 8 * len(allnums)
            out.append(
                _puzzle(cr, "all", sorted(answer), {c: qpr[c] for c in answer}, themes, rating, source,
                        mines=tuple(sorted(qa.mines)), layouts=qa.solutions if q.mines is not None else None)
            )  # fmt: skip
            break
    return out


def guess_chances(
    position: Position, a: Analysis, settings: MakeSettings = DEFAULT_MAKE
) -> dict[int, float] | None:
    """Every covered cell's exact chance to win if opened now (cells mined in every layout left
    out), by the endgame search; None past ``max_layouts`` layouts or the node budget."""
    if position.mines is None or a.solutions is None or not 2 <= a.solutions <= settings.max_layouts:
        return None
    layouts = enumerate_layouts(position, settings.max_layouts)
    if not layouts:
        return None
    eg = Endgame.of(position, layouts, settings.endgame_nodes)
    n = len(layouts)
    everything = (1 << n) - 1
    try:
        return {c: eg.value(c, everything, n) for c in eg.cells if eg.mine[c].bit_count() < n}
    except TimeoutError:
        return None


def _near_numbers(position: Position, cells: Iterable[int]) -> tuple[int, ...]:
    geo, st = position.geometry, position.states
    return tuple(sorted({d for c in cells for d in geo.neighbours(c) if st[d] < COVERED}))


def guess_puzzles(position: Position, a: Analysis, played: int | None, source: str,
                  settings: MakeSettings = DEFAULT_MAKE) -> list[Puzzle]:  # fmt: skip
    """ "guess" and "coin" puzzles of a position where nothing is proven safe."""
    if a.safe:
        return []
    chances = guess_chances(position, a, settings)
    if not chances or len(chances) < 2:
        return []
    best = max(chances.values())
    answer = [c for c, v in chances.items() if v >= best - EPS]
    cr = crop(position, [c for c in range(position.cells) if position.states[c] >= COVERED], 1)
    q = cr.position
    if q.cells > settings.max_area or q.mines != position.mines:
        return []
    if sum(1 for v in q.states if v < COVERED) < settings.min_revealed:
        return []  # a lone number on a tiny board: not a position worth a puzzle

    def m(c: int) -> int:
        d = cr.to_crop(c)
        assert d is not None
        return d

    q_chances = {m(c): v for c, v in chances.items()}
    proof = {m(c): ("endgame", tuple(m(n) for n in _near_numbers(position, [c]))) for c in answer}
    out = []
    # guess: a tempting cell (the one played, else the one that looks safest) keeps >= gap less
    worse = [c for c, v in chances.items() if v <= best - settings.gap]
    tempting: int | None = None
    if played is not None and played in worse:
        tempting = played
    elif worse:
        tempting = min(worse, key=lambda c: (a.probability(c), -chances[c], c))
    if tempting is not None:
        gap = best - chances[tempting]
        rating = 1400 + 12 * min(len(chances), 25) + 800 * max(0.0, 0.25 - gap)
        themes = {"best guess", "endgame"}
        if a.probability(tempting) < min(a.probability(c) for c in answer):
            themes.add("safest is not best")
        out.append(_puzzle(cr, "guess", [m(c) for c in answer], proof, themes, rating, source,
                           chances=q_chances, tempting=m(tempting), layouts=a.solutions))  # fmt: skip
    # coin: a number whose two undecided cells hold one mine, each at 1/2
    pair = _coin_pair(position, a)
    if pair is not None:
        x, y = pair
        fifty = chances[x] >= best - EPS
        if fifty or best - chances[x] >= settings.coin_gap:
            rating = (1350 if fifty else 1600) + 10 * min(len(chances), 25)
            themes = {"50/50", "true 50/50" if fifty else "learn first", "endgame"}
            out.append(_puzzle(cr, "coin", [m(c) for c in answer], proof, themes, rating, source,
                               chances=q_chances, fifty=fifty, pair=(m(x), m(y)),
                               layouts=a.solutions))  # fmt: skip
    return out


def _coin_pair(position: Position, a: Analysis) -> tuple[int, int] | None:
    geo, st = position.geometry, position.states
    half = Fraction(1, 2)
    for n in range(position.cells):
        v = st[n]
        if v >= COVERED:
            continue
        nb = geo.neighbours(n)
        open_ = [d for d in nb if st[d] >= COVERED and d not in a.mines]
        if len(open_) != 2 or v - sum(1 for d in nb if d in a.mines) != 1:
            continue
        x, y = open_
        if a.probability(x) == half and a.probability(y) == half:
            return x, y
    return None


def puzzles_in(position: Position, played: int | None = None, source: str = "",
               settings: MakeSettings = DEFAULT_MAKE, kinds: Iterable[Kind] = KINDS,
               known: Container[str] = ()) -> list[Puzzle]:  # fmt: skip
    """Every puzzle ``position`` makes (flags are ignored: they are claims), with ``played`` the
    cell the player opened there, if known (a tempting guess); ``kinds``: the kinds looked for;
    ``known``: ids made already (their boxes are not analysed again: consecutive positions of a
    game share most of them).

    Guess and coin puzzles are made only where the whole board's endgame is exact (at most
    ``max_layouts`` layouts with the mine count): their crop keeps every covered cell, so the
    chances shown are the game's. (Boxes of a larger frontier, given the mines they really held,
    were tried and left out: their answer was exact for the box alone, with a mine count the
    player could not know.)"""
    p = position.without_flags()
    # found in the board's canonical orientation: its rotated and mirrored copies make the same
    # puzzles (the proofs' bookkeeping follows the order of the cells)
    sym = canonical(p)[1]
    w, h = p.width, p.height
    p = transform(p, sym)
    if played is not None:
        played = transform_cell(w, h, played, sym)
    st = p.states
    if not any(v < COVERED for v in st) or not any(v >= COVERED for v in st):
        return []
    try:
        a = analyze(p)
    except DemineError:
        return []
    if a.approximate:
        return []
    want = set(kinds)
    if not a.safe:
        if not want & {"guess", "coin"}:
            return []
        return [f for f in guess_puzzles(p, a, played, source, settings) if f.kind in want]
    if not want & {"safe", "all"}:
        return []
    if played is not None and played not in a.safe:
        source += " (a needless guess was played here)"  # the player's mistake, now a puzzle
    pr = proofs(p, a)
    out = all_puzzles(p, a, pr, source, known, settings) if "all" in want else []
    s = safe_puzzle(p, a, pr, source, known, settings) if "safe" in want else None
    if s is not None:
        out.append(s)
    return out
