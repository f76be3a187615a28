"""Long-term risk (solvers/longterm.py): structure counts against brute force, pseudo 50/50s."""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import demine.players.best as best
from demine import Position, analyze
from demine.analysis import Analysis, Limit
from demine.analysis.constraints import System, position_system
from demine.analysis.exact import CountCache, solve_system
from demine.analysis.order import OverBudget
from demine.analysis.rules import Constraint
from demine.engine.grid import geometry
from demine.engine.position import COVERED, FLAG
from demine.errors import InconsistentPosition
from demine.players.best import BestSettings, best_move, forced_fifty, lookahead
from demine.players.best.fifty import most_telling
from demine.players.longterm import Influence, Structure, _Root, count_layouts
from tests.helpers import random_position

# From a seeded intermediate game (best with long-term risk). (8,0)/(8,1) hold one mine (the 3 at
# (7,0)) and their flanks, column 2, are flags: no number will ever tell them apart. The covered
# (9,0)/(9,1) still touch them, so the forced-50/50 rule does not see it; the structure count does.
HIDDEN_FIFTY = """16x16x40
2F10000012210000
F22110001FF21100
111F10001333F100
1232100002F42311
1FF1000003F4F2F2
2321000002F4343F
F32100001233FF31
3FF201112F3F4F31
HHF301F12F4232F1
HHF20111113F2111
HH321000002F2000
HH3F200000111000
HHHF312110000000
HH322F2F10000000
HHH1112110000000
HHH1000000000000
"""


def _layouts(p: Position) -> list[frozenset[int]]:
    """Every consistent layout of the covered cells (flags trusted), by brute force."""
    geo = p.geometry
    s = p.states
    covered = [c for c in range(p.cells) if s[c] == COVERED]
    flags = {c for c in range(p.cells) if s[c] == FLAG}
    numbers = [(c, s[c]) for c in range(p.cells) if s[c] < COVERED]
    assert p.mines is not None
    out = []
    for combo in combinations(covered, p.mines - len(flags)):
        mines = flags | set(combo)
        if all(sum(d in mines for d in geo.neighbours(c)) == v for c, v in numbers):
            out.append(frozenset(combo))
    return out


def _corner_position(rng: random.Random, width: int = 6, height: int = 5) -> Position:
    """A position from a real layout with a covered rectangle at a corner or edge: the rest is
    revealed, or flagged where it is a mine (a few mines stay covered). Flags along the rectangle
    are what structures need as flanks, so these positions have many."""
    mines = rng.randint(5, 9)
    layout = set(rng.sample(range(width * height), mines))
    nb = geometry(width, height).neighbours
    rw, rh = rng.randint(2, 4), rng.randint(2, 4)
    c0, r0 = rng.choice([0, width - rw]), rng.choice([0, height - rh])
    vis = bytearray()
    for cell in range(width * height):
        r, c = divmod(cell, width)
        if r0 <= r < r0 + rh and c0 <= c < c0 + rw:
            vis.append(COVERED)
        elif cell in layout:
            vis.append(FLAG if rng.random() < 0.8 else COVERED)
        else:
            vis.append(sum(d in layout for d in nb(cell)))
    return Position(width, height, bytes(vis), mines)


def _formed(s: Structure, layout: frozenset[int], swap: bool) -> bool:
    """Whether ``layout`` forms ``s`` (its missing flanks mines, its cells split as counted, or the
    other way round with ``swap``)."""
    mines, safe = (s.safe, s.mines) if swap else (s.mines, s.safe)
    return all(m in layout for m in (*s.missing, *mines)) and not any(c in layout for c in safe)


def _influence(seed: int) -> tuple[Position, Analysis, Influence]:
    p = _corner_position(random.Random(seed))
    a = analyze(p)
    return p, a, Influence(p, a, position_system(p))


seeds = given(seed=st.integers(0, 10**9))
cases = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@cases
@seeds
def test_structure_counts_match_brute_force_and_both_orientations_count_the_same(seed: int) -> None:
    p, a, inf = _influence(seed)
    layouts = _layouts(p)
    assert len(layouts) == a.solutions
    structures = set(inf.scan())
    for cell in a.unknown:
        structures.update(s for _, s in inf._around(cell))
    for s in structures:
        want = sum(_formed(s, lay, swap=False) for lay in layouts)
        assert inf.tally(s) == want, s
        # the symmetry the credit rests on: no number tells the cells apart once the flanks are mines
        assert sum(_formed(s, lay, swap=True) for lay in layouts) == want, s
    for cell in a.unknown:
        mines = sum(cell in lay for lay in layouts)
        credit = inf.credit(cell)
        assert 0 <= credit <= min(mines, len(layouts) - mines)
        assert 0 <= inf.long_term_safety(cell) <= 1


@cases
@seeds
def test_a_pseudo_fifty_is_a_mine_only_where_a_coin_toss_is_formed(seed: int) -> None:
    p, _, inf = _influence(seed)
    cells = inf.pseudos()
    assert len(set(cells)) == len(cells)
    for cell in cells:
        through = [s for s in inf.scan() if cell in s.cells]
        assert through
        for lay in _layouts(p):
            if cell in lay:
                assert any(_formed(s, lay, False) or _formed(s, lay, True) for s in through)


# Found by benchmarks/perfect.py (6x3 with 4 mines, look-ahead only). In the first position three
# layouts are left, and the box (1,0)-(2,1) has its far corners flagged or off the board. Three of
# its cells are pseudo 50/50s, each a mine in one layout only. Opened safe, (1,0) shows the same
# number in the other two and leaves a coin toss; (1,1) and (2,0) do not. Likewise the box
# (1,4)-(2,5) in the second position, where (1,5) tells nothing and (2,4) settles the rest.
PSEUDO_CHOICES = [
    "6x3x4\n1HF200\nHHF200\nHH2100",
    "6x3x4\n001FH1\n0023HH\n001FHH",
]


@pytest.mark.parametrize("text", PSEUDO_CHOICES)
def test_of_several_pseudo_fifties_one_whose_number_tells_is_chosen(text: str) -> None:
    p = Position.from_text(text)
    a = analyze(p)
    system = position_system(p)
    cells = Influence(p, a, system).pseudos()
    assert len(cells) > 1
    # the exact game tree: the chosen cell is a best move, the first one found (the old choice) is not
    lays = [frozenset(lay) for lay in _layouts(p)]
    search = best.Endgame.of(p, lays)
    everything = (1 << len(lays)) - 1
    values = {c: search.value(c, everything, len(lays)) for c in cells}
    want = most_telling(p, cells, Limit(seconds=5), system, None)
    assert values[want] == max(values.values()) > values[cells[0]]
    # and best plays it when the endgame search is left out
    bm = best_move(p, Limit(seconds=5), settings=BestSettings(endgame_layouts=1, sampled_layouts=0))
    assert (bm.reason, bm.move.cell) == ("50-50", want)


@pytest.mark.parametrize("seed", range(3))
def test_the_most_telling_pseudo_fifty_is_the_one_the_plain_analyses_choose(seed: int) -> None:
    # most_telling derives its outcomes from the position's frame: the same values as an
    # analysis of each outcome's whole system (the first of equals kept)
    rng = random.Random(seed)
    checked = 0
    for _ in range(400):
        p = _corner_position(rng, rng.randint(4, 8), rng.randint(4, 7))
        try:
            a = analyze(p)
        except InconsistentPosition:
            continue
        system = position_system(p)
        if a.safe or a.solutions is None:
            continue
        cells = Influence(p, a, system).pseudos()
        if len(cells) < 2:
            continue
        values = []
        for c in cells:
            outs = lookahead._outcomes_pruned(p, c, Limit(), (1, 1), None, system, {}, None)
            values.append(Fraction(-1) if outs is None else Fraction(outs[1][0], outs[1][1] * outs[0]))
        assert most_telling(p, cells, Limit(), system, None) == cells[values.index(max(values))]
        checked += 1
        if checked == 6:
            break
    assert checked


def test_a_coin_toss_hidden_behind_covered_cells_is_taken_before_safer_guesses() -> None:
    p = Position.from_text(HIDDEN_FIFTY)
    a = analyze(p)
    assert not a.safe
    pair = {p.geometry.cell(8, 0), p.geometry.cell(8, 1)}
    assert forced_fifty(p, a) is None
    assert min(a.p(c) for c in a.unknown) < 0.5  # safer guesses exist
    inf = Influence(p, a, position_system(p))
    pseudos = inf.pseudos()
    assert pseudos and pseudos[0] in pair
    # the rule itself, with the endgame search left out (672 layouts: within the exact search's
    # reach since 2026-12-03, which plays the same cell, by its own count)
    no_endgame = BestSettings(endgame_layouts=1, sampled_layouts=0)
    bm = best_move(p, Limit(seconds=5), settings=no_endgame.replace(long_term_risk=True))
    assert bm.reason == "50-50" and bm.move.cell in pair
    off = best_move(p, Limit(seconds=5), settings=no_endgame.replace(long_term_risk=False))
    assert off.move.cell not in pair
    exact = best_move(p, Limit(seconds=5))
    assert a.solutions == 672 and exact.reason == "endgame" and exact.move.cell == bm.move.cell


@cases
@seeds
def test_the_scan_finds_what_a_scan_of_every_cell_finds(seed: int) -> None:
    # the scan starts only at cells near a known mine: check it against starting everywhere,
    # on corner positions (many structures) and on positions of real play
    rng = random.Random(seed)
    p = _corner_position(rng, rng.randint(4, 8), rng.randint(4, 7))
    for q in (p, random_position(rng, 9, 9, 10, 30, flag_share=0.7)[0]):
        try:
            a = analyze(q)
        except InconsistentPosition:
            continue
        inf = Influence(q, a, position_system(q))
        assert inf.scan() == inf.scan_from(list(a.unknown))


def test_out_of_time_structures_count_as_never_formed() -> None:
    import time

    p = Position.from_text(PSEUDO_CHOICES[0])
    a = analyze(p)
    system = position_system(p)
    assert (
        Influence(p, a, system, deadline=time.perf_counter() + 60).pseudos()
        == Influence(p, a, system).pseudos()
    )
    late = Influence(p, a, system, deadline=time.perf_counter() - 1)  # the budget is spent
    assert late.pseudos() == [] and all(late.tally(s) == 0 for s in late.scan())


def _count_or_error(fn: Callable[[System], int], system: System) -> int | str:
    try:
        return fn(system)
    except InconsistentPosition:
        return "inconsistent"
    except OverBudget:
        return "over budget"


@cases
@seeds
def test_a_tally_counts_what_the_full_analysis_counts(seed: int) -> None:
    # count_layouts (the tallies' count, without probabilities, its counts cached across calls)
    # against solve_system's count of solutions: the same number, or the same refusal, on
    # positions of real play with a structure's cells forced (mine totals known or not, and a
    # state budget small enough to run out on some)
    rng = random.Random(seed)
    known = rng.random() < 0.8
    p, _ = random_position(rng, 16, 16, 40, 150, flag_share=0.5, known_total=known)
    try:
        a = analyze(p)
    except InconsistentPosition:
        return
    system = position_system(p)
    cache: CountCache = {}
    cap = rng.choice([200_000, 60, 12])
    limit = Limit(seconds=None, states=cap)
    inf = Influence(p, a, system) if a.solutions is not None else None
    structures = list(inf.scan()) if inf is not None else []
    for cell in rng.sample(list(a.unknown), min(6, len(a.unknown))):
        if inf is not None:
            structures.extend(s for _, s in inf._around(cell))
    extras = [[]] + [
        [((m,), 1, -1) for m in (*s.missing, *s.mines)] + [((c,), 0, -1) for c in s.safe] for s in structures
    ]
    for extra in extras[:12]:
        sys2 = System(system.unknown, [*system.constraints, *extra], system.mines_left, system.known_mines)
        want = _count_or_error(lambda s: solve_system(s, limit, approximate=False).solutions or 0, sys2)
        assert _count_or_error(lambda s: count_layouts(s, cap, cache), sys2) == want


@cases
@seeds
def test_a_tally_from_the_touched_components_is_the_whole_systems_count(seed: int) -> None:
    # a structure's count made from the root's components (only those its cells touch counted
    # again: longterm._Root) against count_layouts on the whole system with the structure's
    # constraints: the same count, or the same refusal, with state budgets small enough to run out
    # on some; None only where the pair rule would run first (the caller then counts the whole)
    rng = random.Random(seed)
    p, _ = random_position(rng, 16, 16, 40, 150, flag_share=0.5)
    try:
        a = analyze(p)
    except InconsistentPosition:
        return
    if a.solutions is None:
        return
    system = position_system(p)
    cap = rng.choice([200_000, 60, 12])
    inf = Influence(p, a, system)
    structures = list(inf.scan())
    for cell in rng.sample(list(a.unknown), min(8, len(a.unknown))):
        structures.extend(s for _, s in inf._around(cell))
    root = _Root(system, cap)
    mine: CountCache = {}
    whole: CountCache = {}
    for s in structures[:16]:
        extra: list[Constraint] = [((m,), 1, -1) for m in (*s.missing, *s.mines)]
        extra += [((c,), 0, -1) for c in s.safe]
        sys2 = System(system.unknown, [*system.constraints, *extra], system.mines_left, system.known_mines)
        want = _count_or_error(lambda s: count_layouts(s, cap, whole), sys2)
        try:
            got: int | str = root.count(extra, system, mine) or -1
        except InconsistentPosition:
            got = "inconsistent"
        except OverBudget:
            got = "over budget"
        assert got in (want, -1), s
