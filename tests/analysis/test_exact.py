"""The exact engine against brute force, external data, worked examples and real games."""

import gc
import json
import random
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from demine import InconsistentPosition, Position
from demine.analysis import Limit, analyze, analyze_constraints
from demine.analysis.constraints import components, position_system, system_after
from demine.analysis.exact import CountCache, _count_cached, count_component, solve_system
from demine.analysis.totals import layouts, off_weights, prefix_products
from demine.engine.game import Game
from demine.engine.position import COVERED, FLAG
from tests.helpers import brute_force, random_position, small_consistent_position

DATA = Path(__file__).resolve().parent.parent / "data" / "ms_toollib"


def check_against_brute_force(p: Position, trust_flags: bool = True) -> None:
    want, count, _ = brute_force(p, trust_flags=trust_flags)
    if count == 0:
        with pytest.raises(InconsistentPosition):
            analyze(p, trust_flags=trust_flags)
        return
    a = analyze(p, trust_flags=trust_flags)
    assert not a.approximate
    assert a.probabilities == want
    assert a.safe == {c for c, f in want.items() if f == 0}
    assert a.mines == {c for c, f in want.items() if f == 1}
    if p.mines is not None:
        assert a.solutions == count


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**9),
    w=st.integers(1, 5),
    h=st.integers(1, 5),
    density=st.floats(0.05, 0.6),
    known_total=st.booleans(),
    flag_share=st.sampled_from([0.0, 0.0, 0.5]),
)
def test_small_positions_match_brute_force_exactly(
    seed: int, w: int, h: int, density: float, known_total: bool, flag_share: float
) -> None:
    rng = random.Random(seed)
    mines = max(0, min(w * h - 1, round(density * w * h)))
    p, _ = random_position(rng, w, h, mines, max_covered=12, flag_share=flag_share, known_total=known_total)
    check_against_brute_force(p)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), mines=st.integers(4, 20), wrong=st.integers(0, 2))
def test_8x8_positions_with_few_covered_cells_match_brute_force(seed: int, mines: int, wrong: int) -> None:
    rng = random.Random(seed)
    p, _ = random_position(rng, 8, 8, mines, max_covered=13, flag_share=0.3, wrong_flags=wrong)
    # wrong flags make the position inconsistent when trusted, never when doubted
    check_against_brute_force(p, trust_flags=True)
    check_against_brute_force(p, trust_flags=False)


@settings(max_examples=150, deadline=None)
@given(
    w=st.integers(1, 4),
    h=st.integers(1, 4),
    cells=st.lists(st.integers(0, FLAG), min_size=16, max_size=16),
    mines=st.one_of(st.none(), st.integers(0, 16)),
)
def test_arbitrary_grids_are_either_exact_or_inconsistent(
    w: int, h: int, cells: list[int], mines: int | None
) -> None:
    states = bytes(min(v, FLAG) for v in cells[: w * h])
    if mines is not None:
        mines = min(mines, w * h)
    p = Position(w, h, states, mines)
    if p.unrevealed_count() > 12:
        return
    check_against_brute_force(p)


def _expected_cases() -> dict[str, dict[str, object]]:
    return json.loads((DATA / "expected.json").read_text())  # type: ignore[no-any-return]


@pytest.mark.parametrize("name", sorted(_expected_cases()))
def test_ms_toollib_cases(name: str) -> None:
    case = _expected_cases()[name]
    p = Position.from_text((DATA / f"{name}.txt").read_text())
    assert p.mines == case["mines"]
    if case["expected"] == "INCONSISTENT":
        with pytest.raises(InconsistentPosition):
            analyze(p)
        return
    a = analyze(p)
    g = p.geometry
    expected = case["expected"]
    assert isinstance(expected, dict)
    for key, value in expected.items():
        r, c = map(int, key.split(","))
        assert abs(a.p(g.cell(r, c)) - value) <= 1e-12, key
    if "expected_other" in case:
        # expected_other is the chance of a mine off the frontier (next to no revealed number)
        others = [c for c in p.covered_cells() if not any(p.is_revealed(d) for d in g.neighbours(c))]
        assert others
        for c in others:
            assert abs(a.p(c) - float(case["expected_other"])) <= 1e-12  # type: ignore[arg-type]


def test_seed_example_a_b_c_d() -> None:
    # A+B+C = 1 and B+C+D = 2: A safe, D a mine
    a = analyze_constraints([({0, 1, 2}, 1), ({1, 2, 3}, 2)], cells=4, mines=None)
    assert a.safe == {0} and a.mines == {3}
    assert a.reasons[0].kind == "pair" and a.reasons[3].kind == "pair"


def test_seed_example_c_is_safe() -> None:
    # a+b = 1, d+e = 1, a+b+c+d+e = 2: c = 0
    a = analyze_constraints([({0, 1}, 1), ({3, 4}, 1), ({0, 1, 2, 3, 4}, 2)], cells=5, mines=None)
    assert a.safe == {2} and not a.mines
    assert a.probability(0) == Fraction(1, 2)


def test_seed_example_every_symbol_decided() -> None:
    # a+b = 2, a+b+c = 2, d+e = 2, b+c+d+e+f = 3
    a, b, c, d, e, f = range(6)
    res = analyze_constraints(
        [({a, b}, 2), ({a, b, c}, 2), ({d, e}, 2), ({b, c, d, e, f}, 3)], cells=6, mines=None
    )
    assert res.mines == {a, b, d, e} and res.safe == {c, f}
    assert res.solutions == 1 * 2**0  # no free cells: exactly one layout


def test_mine_count_alone_can_force_cells() -> None:
    # 1 H H / a single 1 touching two cells, one mine in all: the far cells must be safe
    p = Position.from_text("4x1x1\n1HHH")
    a = analyze(p)
    assert a.safe == {2, 3} or a.safe == {3}
    assert 3 in a.safe
    assert a.reasons[3].kind == "mine-count"


def test_pair_reason_and_number_chains() -> None:
    # 1-2-1 over three covered cells: the pair rule finds one mine, single numbers do the rest
    p = Position.from_text("3x2\n121\nHHH")
    a = analyze(p)
    assert a.mines == {3, 5} and a.safe == {4}
    assert a.reasons[5].kind == "pair"  # the 1 and the 2 on the left put a mine at (1,2)
    assert {a.reasons[c].kind for c in (3, 4)} <= {"number", "pair"}


def test_component_reason_when_no_one_or_two_numbers_suffice() -> None:
    # found by searching random 6x6 positions; (5,0) is forced only by counting several numbers
    p = Position.from_text("6x6\n2H2111\n3H31H1\nHH4211\n3HHH00\nHHH2H0\nH3H100\n")
    a = analyze(p)
    cell = p.geometry.cell(5, 0)
    assert cell in a.safe | a.mines
    reason = a.reasons[cell]
    assert reason.kind == "component" and len(reason.numbers) >= 3
    want, _, _ = brute_force(p)
    assert want[cell] in (0, 1)


def test_density_mode_when_the_total_is_unknown() -> None:
    p = Position.from_text("3x1\n1HH")
    a = analyze(p)
    assert a.probability(1) == 1 and a.probability(2) == Fraction(1, 5)
    a = analyze(p, density=Fraction(1, 2))
    assert a.probability(2) == Fraction(1, 2)


def test_trusted_flags_are_mines_and_a_contradicting_flag_is_named() -> None:
    p = Position.from_text("3x1x1\nF1H")
    a = analyze(p)
    assert a.safe == {2} and a.known_mines == {0}
    bad = Position.from_text("4x2x1\nF0HH\nHHHH")
    with pytest.raises(InconsistentPosition, match=r"the 0 at \(0,1\) has 1 flag around it") as err:
        analyze(bad)
    assert 0 in err.value.cells
    a = analyze(bad, trust_flags=False)
    assert 0 in a.safe  # the 0 proves the flagged cell safe


def test_inconsistent_numbers_are_named() -> None:
    p = Position.from_text("4x2x2\n1H2H\nHH1H")
    with pytest.raises(InconsistentPosition) as err:
        brute = brute_force(p)
        assert brute[1] == 0
        analyze(p)
    assert err.value.cells
    assert "cannot" in str(err.value)


@pytest.mark.parametrize(
    "text, message",
    [
        ("1x1x1\n1\n", "the 1 at (0,0) needs 1 more mine but has no covered cell around it"),
        ("3x1\n2H0\n", "the 2 at (0,0) needs 2 more mines but has only 1 covered cell around it"),
        ("3x1\nF0H\n", "the 0 at (0,1) has 1 flag around it ((0,0))"),
        ("3x3x3\n111\n1H1\n111\n", "3 mines are left, but the numbers allow exactly 1 among"),
        ("4x1x3\nHH1H\n", "3 mines are left, but the numbers allow between 1 and 2 among"),
    ],
)
def test_an_impossible_position_is_told_in_plain_words(text: str, message: str) -> None:
    from demine.analysis.local import LocalEngine

    p = Position.from_text(text)
    with pytest.raises(InconsistentPosition) as err:
        analyze(p)
    assert message in str(err.value)
    if "left" not in message:  # the numbers alone: the local engine too (a flag as a mine)
        with pytest.raises(InconsistentPosition) as err:
            LocalEngine(p.width, p.height, None).update(p)
        local = "the 0 at (0,1) touches 1 known mine" if "flag" in message else message
        assert local in str(err.value)


def test_too_many_flags_for_the_count_is_a_mine_count_error() -> None:
    with pytest.raises(InconsistentPosition, match="flags but only") as err:
        analyze(Position.from_text("3x1x1\nFFH"))
    assert err.value.mine_count


def test_limit_gives_an_approximate_but_sound_answer() -> None:
    rng = random.Random(3)
    p, layout = random_position(rng, 30, 16, 130, max_covered=300, flag_share=0.0)
    a = analyze(p, limit=Limit(states=1))
    assert a.approximate and a.solutions is None
    assert not (a.safe & layout) and a.mines <= layout
    exact = analyze(p)
    assert a.safe <= exact.safe and a.mines <= exact.mines
    for c in p.covered_cells():
        assert 0 <= a.p(c) <= 1


def test_the_approximation_is_the_mean_of_each_cells_constraints_exactly() -> None:
    """Past the budget each cell's estimate is the mean of value/size over the constraints left
    on it, and cells off the frontier share what the mine count leaves: checked against that
    definition in Fractions (the product sums in integers, for speed)."""
    from demine.analysis.rules import Propagator

    rng = random.Random(8)
    for _ in range(20):
        p, _layout = random_position(rng, 16, 16, 40, max_covered=150, flag_share=0.1)
        system = position_system(p)
        a = analyze(p, limit=Limit(states=1))
        assert a.approximate
        prop = Propagator(system.constraints, system.describe, system.flag_note)
        prop.run_all()
        means: dict[int, list[Fraction]] = {}
        for cells, value, _ in prop.remaining():
            for c in cells:
                means.setdefault(c, []).append(Fraction(value, len(cells)))
        want = {c: sum(fs, Fraction(0)) / len(fs) for c, fs in means.items()}
        want.update({c: Fraction(v) for c, v in prop.decided.items()})
        off = [c for c in system.unknown if c not in want]
        if off and system.mines_left is not None:
            left = system.mines_left - sum(prop.decided.values()) - sum(want[c] for c in means)
            want.update(dict.fromkeys(off, min(Fraction(1), max(Fraction(0), left / len(off)))))
        assert {c: a.probability(c) for c in want} == want


def test_the_rules_reach_one_fixed_point_from_a_partial_run() -> None:
    """An approximation past the budget carries on the rules the exact attempt started: the
    fixed point (decided cells, constraints left, reasons) must be the one of a fresh run."""
    from demine.analysis.rules import Propagator

    rng = random.Random(2)
    checked = 0
    for _ in range(150):
        w, h = rng.randint(5, 30), rng.randint(5, 16)
        p, _layout = random_position(
            rng, w, h, rng.randint(1, w * h // 4), max_covered=rng.randint(5, w * h), flag_share=0.1
        )
        s = position_system(p)
        fresh = Propagator(s.constraints, s.describe, s.flag_note)
        fresh.run_all()
        later = Propagator(s.constraints, s.describe, s.flag_note)
        later.run_numbers()
        later.run_all()
        assert later.decided == fresh.decided and later.reasons == fresh.reasons
        assert sorted(later.remaining()) == sorted(fresh.remaining())
        checked += bool(fresh.decided)
    assert checked > 50


def test_soundness_over_real_games() -> None:
    """At every step of seeded games: no safe cell is a mine and no mine cell is safe."""
    steps = 0
    for seed in range(12):
        for size in ((16, 16, 40), (30, 16, 99)):
            g = Game(*size, rule="safe", seed=f"sound{seed}")
            g.reveal(0)
            rng = random.Random(seed)
            while not g.over:
                p = g.position()
                a = analyze(p)
                steps += 1
                layout = set(g.mine_cells())
                assert not (a.safe & layout)
                assert a.mines <= layout
                if rng.random() < 0.3 and a.mines - set(p.flagged_cells()):
                    g.flag(min(a.mines - set(p.flagged_cells())))
                    continue
                if a.safe:
                    g.reveal(min(a.safe))
                else:
                    g.reveal(min(p.covered_cells(), key=lambda c: (a.probability(c), c)))
    assert steps > 200


def test_reasons_cover_every_forced_cell() -> None:
    g = Game(16, 16, 40, rule="zero", seed=11)
    g.reveal(2 * 16 + 2)
    a = analyze(g.position())
    assert a.safe or a.mines
    assert set(a.reasons) == a.safe | a.mines
    for cell, reason in a.reasons.items():
        for n in reason.numbers:
            assert g.position().states[n] < COVERED, (cell, reason)


def _brute_constraints(
    n: int, cons: list[tuple[set[int], int]], mines: int | None
) -> tuple[dict[int, Fraction], int]:
    density = Fraction(1, 5)
    hits = [Fraction(0)] * n
    total = Fraction(0)
    count = 0
    for bits in range(1 << n):
        m = bin(bits).count("1")
        if mines is not None and m != mines:
            continue
        if all(sum(bits >> c & 1 for c in cs) == v for cs, v in cons):
            w = Fraction(1) if mines is not None else density**m * (1 - density) ** (n - m)
            count += 1
            total += w
            for c in range(n):
                if bits >> c & 1:
                    hits[c] += w
    return ({c: hits[c] / total for c in range(n)} if count else {}), count


@settings(max_examples=120, deadline=None)
@given(
    n=st.integers(1, 14),
    data=st.data(),
    known_total=st.booleans(),
    consistent=st.booleans(),
)
def test_hand_written_systems_match_brute_force(
    n: int, data: st.DataObject, known_total: bool, consistent: bool
) -> None:
    hidden = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    groups = data.draw(st.lists(st.sets(st.integers(0, n - 1), min_size=1), max_size=6))
    cons = []
    for g in groups:
        v = sum(hidden[c] for c in g)
        if not consistent:
            v = data.draw(st.integers(0, len(g)))
        cons.append((g, v))
    mines = sum(hidden) if known_total else None
    want, count = _brute_constraints(n, cons, mines)
    if count == 0:
        with pytest.raises(InconsistentPosition):
            analyze_constraints(cons, cells=n, mines=mines)
        return
    a = analyze_constraints(cons, cells=n, mines=mines)
    assert a.probabilities == want
    if mines is not None:
        assert a.solutions == count


def test_values_wider_than_four_bits() -> None:
    # one constraint of 17 cells holding 16 mines, and another over part of it
    cons = [(set(range(17)), 16), (set(range(10)), 10)]
    a = analyze_constraints(cons, cells=17, mines=None)
    assert a.mines == set(range(10))
    assert a.probability(12) == Fraction(6, 7)


def test_the_system_tracker_equals_a_full_rebuild_at_every_step() -> None:
    from demine.analysis.constraints import SystemTracker, position_system

    for seed in range(6):
        for trust in (True, False):
            g = Game(16, 16, 40, rule="safe", seed=f"track{seed}")
            g.reveal(0)
            tracker = SystemTracker(trust_flags=trust)
            rng = random.Random(seed)
            while not g.over:
                p = g.position()
                got, want = tracker.system(p), position_system(p, trust_flags=trust)
                assert got.constraints == want.constraints
                assert (got.unknown, got.mines_left, got.known_mines) == (
                    want.unknown,
                    want.mines_left,
                    want.known_mines,
                )
                a = analyze(p)
                if rng.random() < 0.3 and a.mines - set(p.flagged_cells()):
                    g.flag(min(a.mines - set(p.flagged_cells())))  # flags change numbers' values
                elif rng.random() < 0.1 and p.flagged_cells():
                    g.flag(p.flagged_cells()[0])  # and so does taking one away
                elif a.safe:
                    g.reveal(min(a.safe))
                else:
                    g.reveal(min(p.covered_cells(), key=lambda c: (a.probability(c), c)))
    # a new game on another board size starts over
    other = Position.from_text("3x1x1\n1HH")
    assert tracker.system(other).constraints == position_system(other, trust_flags=False).constraints


def test_the_system_tracker_equals_a_full_rebuild_on_a_board_past_its_cell_table() -> None:
    # past 65,536 cells the tracker finds the cells to look at again by a set, not marks
    from demine.analysis.constraints import SystemTracker, position_system

    g = Game(300, 240, 9000, rule="safe", seed="trackhuge")
    g.reveal(0)
    tracker = SystemTracker()
    rng = random.Random(3)
    cells = list(range(g.width * g.height))
    for step in range(12):
        p = g.position()
        got, want = tracker.system(p), position_system(p)
        assert got.constraints == want.constraints
        assert (got.unknown, got.mines_left, got.known_mines) == (
            want.unknown,
            want.mines_left,
            want.known_mines,
        )
        covered = [c for c in rng.sample(cells, 400) if p.states[c] == COVERED]
        if step % 3 == 2:
            g.flag(next(c for c in covered if g.is_mine(c)))
        else:
            g.reveal(next(c for c in covered if not g.is_mine(c)))


def test_the_tracker_reports_a_bad_flag_and_recovers() -> None:
    from demine.analysis.constraints import SystemTracker

    tracker = SystemTracker()
    good = Position.from_text("3x1x1\n1HH")
    tracker.system(good)
    with pytest.raises(InconsistentPosition):
        tracker.system(Position.from_text("3x1x1\n0FH"))
    assert tracker.system(good).constraints == [((1,), 1, 0)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9))
def test_a_systems_outcomes_derived_and_counted_with_a_cache_match_a_fresh_analysis(seed: int) -> None:
    # what the look-ahead does: each number a covered cell could show, its system derived from
    # the position's (system_after) and counted with the components shared across outcomes
    rng = random.Random(seed)
    made = small_consistent_position(rng)
    if made is None:
        return
    p, system = made
    cache: CountCache = {}
    covered = [c for c in range(p.cells) if p.states[c] == COVERED]
    for cell in rng.sample(covered, min(4, len(covered))):
        for v in range(9):
            after = p.with_state(cell, v)
            try:
                want = analyze(after)
            except InconsistentPosition:
                with pytest.raises(InconsistentPosition):
                    solve_system(system_after(system, after, cell), explain=False, cache=cache)
                continue
            derived = system_after(system, after, cell)
            fresh = position_system(after)
            assert derived.constraints == fresh.constraints
            assert derived.unknown == fresh.unknown
            assert (derived.mines_left, derived.known_mines) == (fresh.mines_left, fresh.known_mines)
            assert [derived.describe(lab) for _, _, lab in derived.constraints] == [
                fresh.describe(lab) for _, _, lab in fresh.constraints
            ]
            got = solve_system(derived, explain=False, cache=cache)
            assert got._prob == want._prob
            assert (got.safe, got.mines, got.solutions) == (want.safe, want.mines, want.solutions)


def _grid_of_ones(width: int, height: int, step_r: int, step_c: int, mines: int) -> Position:
    st = bytearray([COVERED]) * (width * height)
    for r in range(0, height, step_r):
        for c in range(0, width, step_c):
            st[r * width + c] = 1
    return Position(width, height, bytes(st), mines)


def test_a_spent_budget_stops_the_ordering_and_the_convolutions_too() -> None:
    # a 100x100 board of 1s and covered cells: one huge component whose elimination order alone
    # took seconds, and many components whose convolutions took seconds; neither looked at the
    # clock. With no time left, the first look at it ends the count (the test needs no timing).
    import time

    from demine.analysis.constraints import components, position_system
    from demine.analysis.order import OverBudget, elimination_order

    wide = _grid_of_ones(100, 100, 2, 2, 2500)
    comp = max(components(position_system(wide).constraints), key=lambda c: len(c.boxes))
    with pytest.raises(OverBudget):
        elimination_order(comp, deadline=time.perf_counter() - 1)
    assert analyze(wide, limit=Limit(seconds=0.0)).approximate
    many = _grid_of_ones(100, 100, 2, 3, 1200)
    assert analyze(many, limit=Limit(seconds=0.0)).approximate


def test_a_step_is_started_only_if_slack_times_the_slowest_fits(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from demine.analysis.result import Pace

    now = [0.0]
    # (the clock the time module gives: compiled, Pace reads it there too)
    monkeypatch.setattr(time, "perf_counter", lambda: now[0])
    pace = Pace(deadline=10.0, slack=1.5)
    assert pace.fits()  # nothing timed yet
    now[0] = 2.0
    pace.done()  # a step of 2 s
    now[0] = 7.0
    assert pace.fits()  # 3 s left covers 1.5 x 2 s
    now[0] = 7.5
    assert not pace.fits()  # 2.5 s left does not
    assert Pace(deadline=None).fits()  # no deadline: every step fits
    assert not Pace(deadline=10.0, estimate=4.0).fits()  # the estimate stands in for the first step


def test_a_kept_count_leaves_the_collectors_sight() -> None:
    # a count kept in a cache outlives many collections: its steps' plans are tuples of ints,
    # which the collector stops tracking as it meets them (one level of tuples a collection;
    # lists it would walk at every collection of their generation)
    p = Position.from_text("6x3\n12HHHH\nHHHHHH\nHHH211\n")
    (comp, *_) = components(position_system(p).constraints)
    cnt = count_component(comp, comp.cells, None, 1 << 20)
    for _ in range(3):
        gc.collect()
    assert cnt.steps and not any(gc.is_tracked(step) for step in cnt.steps)


def _random_constraints(
    rng: random.Random, most: int, cells: int, size: int, low: int, least: int = 1
) -> list[tuple[tuple[int, ...], int, int]]:
    """From ``least`` to ``most`` constraints over ``cells`` cells, each on 1 to ``size`` of them
    with a value from ``low`` up to its size, labelled 100, 101, ..."""
    cons = []
    for i in range(rng.randrange(least, most + 1)):
        group = tuple(sorted(rng.sample(range(cells), rng.randrange(1, size + 1))))
        cons.append((group, rng.randrange(low, len(group) + 1), 100 + i))
    return cons


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**9))
def test_a_cached_count_serves_every_mine_cap_from_its_cells_up(seed: int) -> None:
    # (_count_cached, and the frames' count cache, key a count by min(mines allowed, cells): past
    # its cells the cap never binds; a frame's piece of a whole component has the same cells)
    from demine.analysis.order import Piece

    rng = random.Random(seed)
    for comp in components(_random_constraints(rng, 5, 12, 4, 1)):
        cache: CountCache = {}
        more = _count_cached(comp, comp.cells + rng.randrange(1, 50), None, 10**6, cache)
        assert _count_cached(comp, comp.cells, None, 10**6, cache) is more
        want = count_component(comp, comp.cells, None, 10**6)
        got = count_component(comp, comp.cells + rng.randrange(1, 50), None, 10**6)
        assert (got.W, got.layers, got.steps) == (want.W, want.layers, want.steps)
        assert Piece(comp, list(range(len(comp.cons_value)))).cells == comp.cells
        want = count_component(comp, comp.cells, None, 10**6)
        assert (more.W, more.layers, more.steps) == (want.W, want.layers, want.steps)
        fewer = _count_cached(comp, comp.cells - 1, None, 10**6, cache)
        assert fewer is not more
        assert fewer.W == count_component(comp, comp.cells - 1, None, 10**6).W


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10**9))
def test_layouts_is_the_total_of_off_weights(seed: int) -> None:
    rng = random.Random(seed)
    polys = [[rng.randrange(0, 30) for _ in range(rng.randrange(1, 6))] for _ in range(rng.randrange(0, 5))]
    n_off, left = rng.randrange(0, 20), rng.randrange(0, 25)
    assert layouts(polys, n_off, left) == off_weights(prefix_products(polys)[-1], n_off, left)[1]


def _random_polys(rng: random.Random, top: int, most: int) -> list[list[int]]:
    """1 to ``most`` layout counts by mine count, each of 1 to 4 items from 0 to ``top``."""
    return [
        [rng.randrange(0, top + 1) for _ in range(rng.randrange(1, 5))]
        for _ in range(rng.randrange(1, most + 1))
    ]


def test_all_but_one_for_some_indices_equals_the_full_list() -> None:
    # the suffix products are made only as far back as the first index asked for
    from demine.analysis.totals import all_but_one

    rng = random.Random(7)
    for _ in range(200):
        polys = _random_polys(rng, 4, 6)
        pre = prefix_products(polys)
        full = all_but_one(polys, pre)
        only = sorted(rng.sample(range(len(polys)), rng.randrange(0, len(polys) + 1)))
        assert all_but_one(polys, pre, only=only) == [full[i] for i in only]


def test_a_quotient_of_counts_is_rounded_once_as_python_divides() -> None:
    # totals.quotient: n / d as Python divides integers. Compiled, mypyc divides integers below
    # 2**62 as doubles, rounding each first past 2**53, so a frame's survival chance (17 of 7,931
    # in the 80 median games) and fast's guess (1 of 906 chances in 30 expert games) could differ
    # between the builds; CI runs this on the compiled build.
    from demine.analysis.totals import quotient

    rng = random.Random(1)
    for _ in range(20000):
        d = rng.randrange(1, 1 << rng.choice((20, 54, 60, 61, 62, 70)))
        n = rng.randrange(0, d + 1)
        assert quotient(n, d) == n / d


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10**9))
def test_the_totals_weigh_off_cells_by_binomials(seed: int) -> None:
    # the off cells' ways are read from a kept row (totals.comb_row), made item by item and longer
    # when more is read
    from math import comb

    from demine.analysis.totals import comb_row, weights_with_total

    def c(n: int, k: int) -> int:
        return comb(n, k) if 0 <= k <= n else 0

    rng = random.Random(seed)
    n, k = rng.randrange(-1, 60), rng.randrange(-2, 70)
    for size in sorted(rng.randrange(0, 90) for _ in range(3)):
        row = comb_row(n, k, size)
        assert len(row) >= size and row == [c(n, k - j) for j in range(len(row))]
    # a row handed out is never changed (another thread may be reading it): a longer one replaces it
    held = comb_row(n, k, 1)
    kept = list(held)
    assert len(comb_row(n, k, len(held) + 7)) >= len(held) + 7 and held == kept
    polys = [[rng.randrange(0, 30) for _ in range(rng.randrange(1, 6))] for _ in range(rng.randrange(1, 5))]
    n_off, left = rng.randrange(0, 20), rng.randrange(0, 25)
    total = prefix_products(polys)[-1]
    num = sum(w * c(n_off - 1, left - t - 1) for t, w in enumerate(total))
    assert off_weights(total, n_off, left) == (num, sum(w * c(n_off, left - t) for t, w in enumerate(total)))
    for i, R in enumerate(weights_with_total(polys, prefix_products(polys), n_off, left)):
        others = prefix_products(polys[:i] + polys[i + 1 :])[-1]
        for t, w in enumerate(polys[i]):
            want = sum(o * c(n_off, left - t - u) for u, o in enumerate(others)) if w else 0
            assert R[t] == want


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**9))
def test_a_cached_count_lends_its_order_to_the_same_structure(seed: int) -> None:
    # _count_cached: a component met again with other values is counted in the order made for
    # the first (any order counts the same): the same counts and weighted mine counts as its own
    from demine.analysis.constraints import Component
    from demine.analysis.exact import marginals

    rng = random.Random(seed)
    for comp in components(_random_constraints(rng, 7, 14, 5, 0, least=2)):
        cache: CountCache = {}
        first = _count_cached(comp, comp.cells, None, 10**6, cache)
        values = [rng.randrange(0, sum(len(comp.boxes[b]) for b in bs) + 1) for bs in comp.cons_boxes]
        other = Component(comp.boxes, comp.box_cons, values, comp.cons_label, comp.cons_boxes)
        left = rng.randrange(0, comp.cells + 2)
        got = _count_cached(other, left, None, 10**6, cache)
        if len(comp.boxes) > 1:
            assert got.order is first.order
        want = count_component(other, left, None, 10**6)
        assert got.W == want.W
        R = [rng.randrange(0, 1 << rng.choice((3, 70))) for _ in want.W]
        assert marginals(got, R) == marginals(want, R)


def test_the_totals_are_kept_by_their_arguments() -> None:
    # weights_with_total and off_weights keep small results by their arguments: a call again
    # hands out the same lists; other indices, counts, off cells or mines are other results
    from demine.analysis import totals
    from demine.analysis.totals import weights_with_total

    rng = random.Random(3)
    for _ in range(300):
        polys = _random_polys(rng, 8, 4)
        pre = prefix_products(polys)
        n_off, left = rng.randrange(0, 30), rng.randrange(0, 30)
        full = weights_with_total(polys, pre, n_off, left)
        assert weights_with_total([list(W) for W in polys], pre, n_off, left) is full
        only = sorted(rng.sample(range(len(polys)), rng.randrange(0, len(polys) + 1)))
        assert weights_with_total(polys, pre, n_off, left, None, only) == [full[i] for i in only]
        more = weights_with_total(polys, pre, n_off + 1, left)
        assert more == weights_with_total(polys, pre, n_off + 1, left) and more is not full
        totals._OFF.clear()
        assert off_weights(pre[-1], n_off, left)[1] == layouts(polys, n_off, left)
        # found again, not made: the kept result marked (compiled, a tuple of two ints is made
        # anew at each return, so its identity cannot say it)
        (key,) = totals._OFF
        totals._OFF[key] = (-1, -1)
        assert off_weights(list(pre[-1]), n_off, left) == (-1, -1)
        totals._OFF.clear()
        assert off_weights(pre[-1], n_off, left + 1)[1] == layouts(polys, n_off, left + 1)


def test_without_a_count_the_lowest_chance_is_a_covered_cells_when_none_is_off_the_frontier() -> None:
    # every covered cell touches the 1 (no cell off the frontier): the default density is no
    # cell's chance, and once was taken for the lowest, with no cell at it (safest() empty)
    a = analyze(Position.from_text("3x1\nH1H"))
    assert a.min_probability() == Fraction(1, 2)
    assert a.safest() == [0, 2]
    # with a cell off the frontier the density is its chance, as before
    b = analyze(Position.from_text("4x1\nH1HH"))
    assert b.safest() == [3] and b.min_probability() == Fraction(1, 5)
