"""The literature's players: sound, faithful to their rules, and playable."""

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from demine import Position, analyze, find_solver
from demine.bench import GameResult, generated_specs, play_game
from demine.engine.game import Game
from demine.players import available_solvers
from demine.players.equations import enumerate_group, reduce_equations
from demine.players.gauss import gauss_probabilities, solve_component
from demine.players.twosat import tarjan_scc, twosat_decide, twosat_solve
from demine.players.window_sat import window_analysis
from tests.helpers import brute_force

PLAYERS = ["twosat", "window-sat", "equations", "gauss", "exact"]


def _positions(count: int, seed: int) -> list[tuple[Position, set[int]]]:
    """Positions from real play: seeded games advanced by the exact engine to various depths,
    with some proven mines flagged (flags a player could have placed)."""
    out = []
    rng = random.Random(seed)
    while len(out) < count:
        size = rng.choice([(9, 9, 10), (16, 16, 40), (30, 16, 99), (8, 8, 14)])
        g = Game(*size, rule="safe", seed=rng.random())
        g.reveal(0)
        for _ in range(rng.randint(0, 12)):
            if g.over:
                break
            p = g.position()
            a = analyze(p)
            if a.mines and rng.random() < 0.5:
                for c in sorted(a.mines)[:2]:
                    g.flag(c)
            if a.safe:
                g.reveal(rng.choice(sorted(a.safe)))
            else:
                g.reveal(min(p.covered_cells(), key=lambda c: (a.probability(c), c)))
        if not g.over:
            out.append((g.position(), set(g.mine_cells())))
    return out


POSITIONS = _positions(60, 1)


@pytest.mark.parametrize("name", PLAYERS)
def test_proven_moves_are_a_subset_of_the_exact_engine(name: str) -> None:
    player = find_solver(name)
    checked = 0
    for p, layout in POSITIONS:
        exact = analyze(p)
        d = player.decide(p, random.Random(0))
        if d.guess:
            assert len(d.moves) == 1 and d.moves[0].kind == "reveal"
            continue
        for mv in d.moves:
            if mv.kind == "reveal":
                assert mv.cell in exact.safe and mv.cell not in layout
            else:
                assert mv.kind == "flag" and mv.cell in exact.mines and mv.cell in layout
        checked += 1
    assert checked > 10


def test_rule_level_deductions_are_subsets_of_the_exact_engine() -> None:
    for p, _ in POSITIONS:
        exact = analyze(p)
        safe, mines = twosat_decide(p)
        assert safe <= exact.safe and mines <= exact.mines
        wsafe, wmines, prob = window_analysis(p)
        assert wsafe <= exact.safe and wmines <= exact.mines
        assert all(0 <= f <= 1 for f in prob.values())
        decided, _, _, _ = gauss_probabilities(p)
        assert {c for c, v in decided.items() if v == 0} <= exact.safe
        assert {c for c, v in decided.items() if v == 1} <= exact.mines


def test_twosat_finds_the_seed_example() -> None:
    # A+B+C = 1 and B+C+D = 2: A safe, D a mine
    assert twosat_solve([((0, 1, 2), 1), ((1, 2, 3), 2)]) == ({0}, {3})


def test_twosat_says_nothing_a_two_sat_clause_cannot_hold() -> None:
    # 2 mines among 4 cells is neither "at most one" nor "at most one safe"
    assert twosat_solve([((0, 1, 2, 3), 2)]) == (set(), set())


def test_twosat_reports_a_contradiction() -> None:
    from demine import InconsistentPosition

    with pytest.raises(InconsistentPosition):
        twosat_solve([((0,), 1), ((0, 1), 0)])


@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 30), data=st.data())
def test_tarjan_matches_mutual_reachability(n: int, data: st.DataObject) -> None:
    adj = [data.draw(st.lists(st.integers(0, n - 1), max_size=3)) for _ in range(n)]
    comp = tarjan_scc(n, adj)

    def reach(s: int) -> set[int]:
        seen, todo = {s}, [s]
        while todo:
            for w in adj[todo.pop()]:
                if w not in seen:
                    seen.add(w)
                    todo.append(w)
        return seen

    r = [reach(v) for v in range(n)]
    for u in range(n):
        for v in range(n):
            assert (comp[u] == comp[v]) == (v in r[u] and u in r[v])
            if v in r[u] and comp[u] != comp[v]:
                assert comp[u] > comp[v]  # reverse topological ids


def test_tarjan_needs_no_recursion_on_long_chains() -> None:
    n = 200_000
    adj = [[i + 1] for i in range(n - 1)] + [[0]]
    assert set(tarjan_scc(n, adj)) == {0}


def test_equations_subset_examples() -> None:
    a, b, c, d, e, f = range(6)
    decided, rest = reduce_equations(
        [(frozenset({a, b}), 1), (frozenset({d, e}), 1), (frozenset({a, b, c, d, e}), 2)]
    )
    assert decided == {c: 0}
    decided, rest = reduce_equations(
        [
            (frozenset({a, b}), 2),
            (frozenset({a, b, c}), 2),
            (frozenset({d, e}), 2),
            (frozenset({b, c, d, e, f}), 3),
        ]
    )
    assert decided == {a: 1, b: 1, c: 0, d: 1, e: 1, f: 0} and not rest


def test_equations_enumeration_counts_by_mines() -> None:
    # a+b = 1, b+c = 1: solutions (0,1,0) with 1 mine and (1,0,1) with 2
    W, hits = enumerate_group([(frozenset({0, 1}), 1), (frozenset({1, 2}), 1)])  # type: ignore[misc]
    assert W[1] == 1 and W[2] == 1
    assert hits[1] == [0, 1, 0, 0] and hits[0] == [0, 0, 1, 0]


def test_gauss_rank_free_variables_and_seed_example() -> None:
    a, b, c, d = range(4)
    eqs = [(frozenset({a, b, c}), 1), (frozenset({b, c, d}), 2)]
    forced, counts, rank, free = solve_component(eqs)
    assert rank == 2 and free == 2
    assert forced == {a: 0, d: 1}
    assert counts is not None
    W, hits = counts
    assert sum(W) == 2 and hits[b] == [0, 0, 1, 0, 0]


# Found by searching random 5x4 positions: the original DP formula, without the off-frontier
# weight C(off, mines left - s), gives (0,2) a 1/2 chance of a mine; the truth is 1/3.
GAUSS_POSITION = "5x4x5\n12HHH\nH2HHH\n12232\nHHHH0\n"


def test_gauss_needs_the_off_frontier_weight() -> None:
    p = Position.from_text(GAUSS_POSITION)
    want, _, _ = brute_force(p)

    def full(off_weight: bool) -> dict[int, Fraction]:
        decided, prob, off, _ = gauss_probabilities(p, off_weight=off_weight)
        return {c: Fraction(decided[c]) if c in decided else prob.get(c, off or 0) for c in p.covered_cells()}

    assert full(True) == want
    wrong = full(False)
    assert wrong != want
    assert wrong[2] == Fraction(1, 2) and want[2] == Fraction(1, 3)


def test_window_sat_decides_a_one_two_one() -> None:
    p = Position.from_text("3x2\n121\nHHH")
    safe, mines, _ = window_analysis(p)
    assert safe == {4} and mines == {3, 5}


def test_window_sat_sees_only_its_windows() -> None:
    # (5,0) is forced only by several numbers together (see test_exact); no single 3x3 window
    # proves it, which is the method's known weakness
    p = Position.from_text("6x6\n2H2111\n3H31H1\nHH4211\n3HHH00\nHHH2H0\nH3H100\n")
    safe, mines, _ = window_analysis(p)
    exact = analyze(p)
    cell = p.geometry.cell(5, 0)
    assert cell in exact.safe | exact.mines
    assert cell not in safe | mines


@pytest.mark.parametrize("name", PLAYERS)
def test_every_player_finishes_games(name: str) -> None:
    specs = generated_specs(9, 9, 10, "safe", None, 6, "players")
    results = [play_game(s, name, measure_forced=True) for s in specs]
    assert all(r.moves >= 1 for r in results)
    assert all(r.forced_found <= r.forced_exact for r in results)  # sound: a subset
    if name == "exact":
        assert all(r.forced_found == r.forced_exact for r in results)


def test_a_game_keeps_the_players_own_time_apart_from_the_engines() -> None:
    (spec,) = generated_specs(16, 16, 40, "safe", None, 1, "own-time")
    r = play_game(spec, "fast")
    assert r.decide_ms is not None and 0 < r.decide_ms < r.ms
    line = r.to_json()
    assert GameResult.from_json(line) == r
    del line["decide_ms"]  # a record made before it was kept
    assert GameResult.from_json(line).decide_ms is None
    assert "decide_ms" not in GameResult.from_json(line).to_json()


def test_registry_lists_every_player() -> None:
    assert set(PLAYERS) | {"random"} <= set(available_solvers())


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 10**9), known=st.booleans())
def test_gauss_probabilities_match_brute_force(seed: int, known: bool) -> None:
    from tests.helpers import random_position

    rng = random.Random(seed)
    p, _ = random_position(rng, 5, 4, rng.randint(2, 7), max_covered=11, known_total=known)
    decided, prob, off, exact = gauss_probabilities(p)
    assert exact
    if known:
        want, _, _ = brute_force(p)
        got = {
            c: Fraction(decided[c]) if c in decided else prob.get(c, off or Fraction(0))
            for c in p.covered_cells()
        }
        assert got == want
    else:
        # with no total every frontier solution counts the same: brute force with density 1/2
        want, _, _ = brute_force(p, density=Fraction(1, 2))
        for c, f in prob.items():
            assert f == want[c]
        for c, v in decided.items():
            assert want[c] == v


ALL_PLAYERS = ["random", "exact", "fast", "best", "twosat", "window-sat", "equations", "gauss"]


def test_every_player_copes_with_odd_boards() -> None:
    """Strips, tiny and dense boards under every rule: each game ends without an error."""
    from demine.bench import GameSpec
    from demine.engine.grid import reserved_cells

    rng = random.Random(5)
    for trial in range(60):
        w, h = rng.choice([1, 2, 3, 4, 5, 7]), rng.choice([1, 2, 3, 4, 6])
        rule = rng.choice(["safe", "zero", "none"])
        start = rng.randrange(w * h)
        mines = rng.randint(0, max(0, w * h - reserved_cells(w, h, rule, start)))
        spec = GameSpec(trial, w, h, mines, rule, start, f"odd{trial}")
        for name in ALL_PLAYERS:
            result = play_game(spec, name)
            assert result.moves >= 1
            if mines == 0:
                assert result.won  # the first click opens everything
