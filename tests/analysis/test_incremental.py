"""Frames (demine.analysis.incremental): a derived position's analysis, its untouched components
shared, is exactly the analysis of that position made from scratch."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from demine import InconsistentPosition, Position
from demine.analysis import Analysis, Limit, analyze
from demine.analysis.constraints import position_system
from demine.analysis.exact import CountCache, marginals
from demine.analysis.incremental import Frame
from demine.analysis.parts import Part, _own_lowest, by_rank
from demine.analysis.rules import Propagator, number_rule
from demine.analysis.totals import weights_with_total
from demine.engine.game import Game
from demine.engine.position import COVERED
from demine.players.best.survive import survive_one
from tests.helpers import small_consistent_position


def _check(frame: Frame, after: Position, cell: int) -> Frame | None:
    """``frame.after`` agrees with a fresh analysis of ``after`` (both impossible, or the same
    probabilities as fractions, safe cells, mines, count and covered cells); its frame."""
    try:
        want = analyze(after)
    except InconsistentPosition:
        with pytest.raises(InconsistentPosition):
            frame.after(after, cell).analysis()
        assert frame.survival_after(cell, after.states[cell]) is None
        # no frame, or one without a layout (most such numbers told without an exception)
        try:
            got = frame.after_if(after, cell)
        except InconsistentPosition:
            got = None
        assert got is None or not got.possible()
        return None
    derived = frame.after(after, cell)
    # the very pair of comparing each chance in turn (the boxes' first lowest found apart)
    assert frame.after(after, cell).lowest() == _lowest_in_turn(frame.after(after, cell))
    # the lowest chance of a mine and the count first (the look-ahead's order), the analysis
    # after them on the same frame, and the survival of another frame of the same position
    z, n, d = derived.lowest()
    assert (z, Fraction(n, d)) == (want.solutions, want.min_probability())
    assert (n == 0) == bool(want.safe)
    got = derived.analysis()
    _same(got, want)
    z, n, d = derived.lowest()  # (from the weights the analysis made)
    assert (z, Fraction(n, d)) == (want.solutions, want.min_probability())
    # the chances read without the analysis: the same count, safe cells and chances
    z, safe, boxes, off = derived.chances()
    assert (z, frozenset(safe), len(safe)) == (want.solutions, want.safe, len(want.safe))
    for (num, den), box in boxes:
        assert all(want.probability(c) == Fraction(num, den) for c in box)
    assert (off is None) == (not derived.off)
    if off is not None:
        assert all(want.probability(c) == Fraction(*off) for c in derived.off)
        # the off cell first by a rank: the least of (rank, cell) over the off cells
        rank = [random.Random(cell).randrange(4) for _ in range(after.cells)]
        assert derived.least_off(rank) == min(derived.off, key=lambda c: (rank[c], c))
        assert derived.least_off(rank) == min(derived.off, key=lambda c: (rank[c], c))  # (kept order)
    assert frame.after(after, cell).survival() == (want.solutions, survive_one(want))
    # without the position after (survivals): the same survival; the position made when asked
    assert frame.survival_after(cell, after.states[cell]) == (want.solutions, survive_one(want))
    lazy = frame._after(None, cell, after.states[cell], None, derived.path)
    assert lazy is not None and lazy.possible()
    z, n, d = lazy.lowest()
    assert (z, Fraction(n, d)) == (want.solutions, want.min_probability())
    assert (lazy.position.states, lazy.position.mines) == (after.states, after.mines)
    return derived


def _lowest_in_turn(frame: Frame) -> tuple[int, int, int]:
    """:meth:`Frame.lowest` comparing every chance with the best so far, in the frame's order
    (its parts with one mine total, then each box of the others, then the cells off the
    frontier): the first lowest chance met, as its pair."""
    if 0 in frame.decided.values():
        return frame._count(None), 0, 1
    left, polys, pre, num, z = frame._totals(None)
    best = (1, 1)
    multi = []
    for i, p in enumerate(frame.parts):
        low = _own_lowest(p.counted)
        if low[0] < 0:
            multi.append(i)
        elif low[0] == 0:
            return z, 0, 1
        elif low[0] * best[1] < best[0] * low[1]:
            best = low
    Rs = weights_with_total(polys, pre, frame.n_off, left, None, multi) if multi else []
    chances = []
    for k, i in enumerate(multi):
        M = frame.parts[i].weighted(Rs[k])
        chances += [
            (m, len(cells) * z) for m, cells in zip(M, frame.parts[i].counted.comp.boxes, strict=True)
        ]
    if frame.n_off:
        chances.append((num, z))
    for n, d in chances:
        if n == 0:
            return z, 0, 1
        if n * best[1] < best[0] * d:
            best = (n, d)
    return z, best[0], best[1]


def _same(got: Analysis, want: Analysis) -> None:
    assert got.probabilities == want.probabilities
    assert (got.safe, got.mines, got.solutions, got.unknown) == (
        want.safe,
        want.mines,
        want.solutions,
        want.unknown,
    )
    assert got.min_probability() == want.min_probability()
    assert not got.approximate


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9))
def test_derived_frames_match_a_fresh_analysis_two_reveals_deep(seed: int) -> None:
    rng = random.Random(seed)
    made = small_consistent_position(rng)
    if made is None:
        return
    p, system = made
    cache: CountCache = {}
    root = Frame.root(system, p, cache, Limit())
    covered = [c for c in range(p.cells) if p.states[c] == COVERED]
    for cell in rng.sample(covered, min(4, len(covered))):
        for v in range(9):
            after = p.with_state(cell, v)
            derived = _check(root, after, cell)
            if derived is None:
                continue
            # a second reveal, derived from the first (the three-reveal look-ahead's inner level)
            more = [c for c in range(after.cells) if after.states[c] == COVERED]
            for cell2 in rng.sample(more, min(2, len(more))):
                for v2 in range(9):
                    _check(derived, after.with_state(cell2, v2), cell2)


@pytest.mark.parametrize("seed", range(2))
def test_derived_frames_match_on_expert_positions(seed: int) -> None:
    # positions of real expert games (long frontiers, several components), each covered cell's
    # numbers derived from the position's frame and from those frames again
    rng = random.Random(seed)
    g = Game(30, 16, 99, rule="safe", seed=f"frames/{seed}")
    g.reveal(0)
    checked = 0
    while not g.over:
        p = g.position()
        a = analyze(p)
        if not a.safe:
            root = Frame.root(position_system(p), p, {}, Limit())
            covered = [c for c in a.unknown if a.ratios[c][0] != a.ratios[c][1]]
            for cell in rng.sample(covered, min(3, len(covered))):
                for v in range(9):
                    derived = _check(root, p.with_state(cell, v), cell)
                    if derived is None:
                        continue
                    checked += 1
                    after = derived.position
                    inner = [c for c in covered if c != cell]
                    for cell2 in rng.sample(inner, min(1, len(inner))):
                        for v2 in range(9):
                            _check(derived, after.with_state(cell2, v2), cell2)
            g.reveal(min(a.unknown, key=lambda c: (a.probability(c), c)))
        else:
            g.reveal(min(a.safe))
    assert checked > 0


@given(st.lists(st.integers(0, 59), unique=True), st.lists(st.integers(0, 8), min_size=60, max_size=60))
def test_cells_by_rank_are_in_rank_then_cell_order(cells: list[int], rank: list[int]) -> None:
    assert by_rank(cells, rank) == sorted(cells, key=lambda c: (rank[c], c))


def test_a_frame_needs_the_mine_total() -> None:
    p = Position.from_text("3x1\n1HH")
    with pytest.raises(ValueError, match="mine total"):
        Frame.root(position_system(p), p, {}, Limit())


@settings(max_examples=300, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.sets(st.integers(0, 9), max_size=5), st.integers(-1, 6)),
        max_size=8,
    )
)
def test_the_lean_number_rule_decides_what_the_propagator_does(rows: list[tuple[set[int], int]]) -> None:
    # (the frames' rebuild runs rules.number_rule: the same cells in the same order, the same
    # constraints left, an impossible list raising)
    cons = [(tuple(sorted(cs)), v, 100 + i) for i, (cs, v) in enumerate(rows)]
    prop = Propagator(cons, str)
    try:
        prop.run_numbers()
    except InconsistentPosition:
        with pytest.raises(InconsistentPosition):
            number_rule(cons)
        return
    decided, rest = number_rule(cons)
    assert list(decided.items()) == list(prop.decided.items())
    assert rest == prop.remaining()


@settings(max_examples=200, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.lists(st.integers(0, 9), max_size=6), st.integers(-1, 6)),
        max_size=8,
    )
)
def test_a_cell_written_twice_in_a_constraint_counts_once(rows: list[tuple[list[int], int]]) -> None:
    # (the rules index a constraint's cells from its tuple: a repeated cell must not be
    # indexed, decided or subtracted twice)
    twice = [(tuple(cs), v, 100 + i) for i, (cs, v) in enumerate(rows)]
    once = [(tuple(sorted(set(cs))), v, 100 + i) for i, (cs, v) in enumerate(rows)]
    got = []
    for cons in (twice, once):
        prop = Propagator(cons, str)
        try:
            prop.run_all()
            lean = number_rule(cons)
        except InconsistentPosition:
            got.append(None)
            continue
        assert sorted(prop.cell_cons.items()) == sorted(
            (c, sorted(set(js))) for c, js in prop.cell_cons.items()
        )
        got.append((prop.decided, sorted(prop.remaining()), lean[0], sorted(lean[1])))
    assert got[0] == got[1]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9))
def test_a_part_weighs_its_boxes_as_the_backward_pass(seed: int) -> None:
    # weights with a large common factor (a part's first weighing divides it out and multiplies
    # it back), without one, and all 0: the backward pass's integers, first and later weighings
    rng = random.Random(seed)
    made = small_consistent_position(rng)
    if made is None:
        return
    p, system = made
    root = Frame.root(system, p, {}, Limit())
    for part in root.parts:
        n = len(part.counted.W)
        for R in (
            [rng.randrange(50) * 3**200 * 7**90 for _ in range(n)],
            [rng.randrange(10**30) for _ in range(n)],
            [0] * n,
        ):
            want = marginals(part.counted, R)[0]
            assert Part(part.cons, part.counted).weighted(R) == want
            assert part.weighted(R) == want
            assert part.weighted(R) == want  # (from the tables, from the second on)


#: A 5x3 board with 5 mines and two 2s: opening a cell next to one 2 can prove both its mines,
#: leaving too few for the other 2's cells to take any count of mines they could before.
FEW_LEFT = "5x3x5\nH2HHH\nHHHHH\nHHH2H\n"


@pytest.mark.parametrize("text", [FEW_LEFT])
def test_parts_kept_for_one_count_of_mines_left_serve_another_only_when_they_count_the_same(
    text: str,
) -> None:
    # The search keeps the parts that a list of constraints makes, by those constraints and the
    # mines left for them: any number of mines from the constraints' cells up counts the same,
    # fewer may not. Each cell's numbers are derived from the root, then after each number of
    # every other cell (the same constraints around the second cell, fewer mines left where the
    # first number proved mines), all in one search: each derived frame must be a fresh
    # analysis of its position.
    p = Position.from_text(text)
    root = Frame.root(position_system(p), p, {}, Limit())
    covered = [c for c in range(p.cells) if p.states[c] == COVERED]
    checked = 0
    for second in covered:
        for v2 in range(9):
            _check(root, p.with_state(second, v2), second)
        for first in covered:
            if first == second:
                continue
            for v1 in range(9):
                after = p.with_state(first, v1)
                derived = _check(root, after, first)
                if derived is None:
                    continue
                for v2 in range(9):
                    checked += _check(derived, after.with_state(second, v2), second) is not None
    assert checked > 100


def test_the_chances_take_the_parts_the_lowest_chance_weighed() -> None:
    # a derived frame's lowest chance weighs its parts of several mine totals; its chances then
    # take those (one backward pass each, not two) and are still the fresh analysis's (positions
    # where ``best`` guessed in expert games, each number of a few frontier cells)
    from tests.players.test_number_order import _guess_points

    taken = 0
    for p, a in _guess_points(8, "weighed"):
        root = Frame.root(position_system(p), p, {}, Limit())
        front = sorted(c for c in a.unknown if p.states[c] == COVERED and 0 < a.p(c) < 1)[:6]
        for cell in front:
            for v in range(9):
                after = p.with_state(cell, v)
                try:
                    want = analyze(after)
                    frame = root.after(after, cell)
                except InconsistentPosition:
                    continue
                uses = [part.uses for part in frame.parts]
                frame.lowest()
                z, _, boxes, _ = frame.chances()
                # each part weighed once by the two (by the lowest chance, else by the chances)
                assert [part.uses for part in frame.parts] == [n + 1 for n in uses]
                taken += sum(len([w for w in part.counted.W if w]) > 1 for part in frame.parts)
                assert z == want.solutions
                for (num, den), box in boxes:
                    assert all(want.probability(c) == Fraction(num, den) for c in box)
    assert taken >= 10
