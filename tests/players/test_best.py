"""Behaviour of the strongest player (never its timings or win rates)."""

import heapq
import math
import random
from collections import Counter
from collections.abc import Callable, Iterator
from fractions import Fraction
from functools import cache, partial

import pytest

from demine import Position, analyze
from demine.analysis import Limit
from demine.analysis.constraints import position_system
from demine.analysis.enumerate import enumerate_layouts, sample_layouts
from demine.bench import generated_specs
from demine.engine.position import COVERED
from demine.players.base import Decision
from demine.players.best import (
    BestPlayer,
    BestSettings,
    Endgame,
    FastPlayer,
    Follower,
    Hooks,
    Ranked,
    best_move,
    endgame,
    forced_fifty,
    look_ahead,
    sampled_endgame,
)
from demine.players.best import lookahead as lookahead_module
from demine.players.best.lookahead import _outcomes
from demine.players.best.moves import (
    _nearest_revealed,
    _steps_to_revealed,
    distances,
    off_candidates,
    touches_revealed,
    two_step_move,
)
from demine.players.best.play import _decide, _pair_safe, _quick_safe
from demine.players.best.survive import _safest
from tests.helpers import brute_force

# Positions found by playing seeded beginner games (see the comments for what each shows).
# A forced 50/50 in the top-left corner, (0,0)/(0,1): walled in by the flags at (0,2) and (1,2);
# the numbers that touch them, (1,0) and (1,1), touch both. Safer guesses elsewhere (5/77).
FIFTY = "9x9x10\nHHFHHHHHH\n13FHHHHHH\n133HHHHHH\nHHHHHHHHH\nHHHHHHHHH\nHHHHHHHHH\nHHHHHHHHH\nHHHHHHHHH\nHHHHHHHHH\n"
# Until 2026-11-24 FIFTY was this position, taken for a forced 50/50 at (0,1)/(1,1); it is not:
# the 1 at (2,0) touches (1,1), (3,0) and (3,1), and so ties the pair to them.
NOT_FIFTY = "9x9x10\n1H2HHHHHH\n1H2HHHHHH\n1111HHHHH\nHH11HHHHH\nHHHH1HHHH\nHHHHHHHHH\nHHHHHHHHH\nHHHHHHHHH\nHHHHHHHHH\n"
# Dead cells (45, 46, 63, 72: their number is certain if safe) tied with live ones (54, 55).
DEAD = "9x9x10\n000000000\n000001110\n000001H21\n01110112H\n12H100122\nHH21001H1\nHH2112321\nH3H11HH10\nH21112210\n"
# Endgames (7 and 10 layouts left). In the first, every safest cell gives a smaller chance to
# win than the best move, which is riskier.
ENDGAMES = [
    (
        "9x9x10\n2H1000000\nHH1000000\n221000000\n1H2100000\n2HH100000\nHH3200000\nHHH200000\nHHH200000\nHH3100000\n",
        True,
    ),
    (
        "9x9x10\n00001H2HH\n000012HHH\n000002HHH\n000013H31\n00001HH20\n000012H10\n000001110\n001111H10\n001H11H10\n",
        False,
    ),
]


def test_a_forced_fifty_fifty_is_taken_before_other_guesses() -> None:
    p = Position.from_text(FIFTY)
    a = analyze(p)
    assert not a.safe
    pair = {p.geometry.cell(0, 0), p.geometry.cell(0, 1)}
    assert forced_fifty(p, a) in pair
    others = [c for c in p.covered_cells() if c not in pair]
    assert min(a.probability(c) for c in others) < Fraction(1, 2)  # safer guesses exist
    bm = best_move(p, Limit(seconds=5))
    assert bm.reason == "50-50" and bm.move.cell in pair


def test_a_pair_that_other_cells_can_still_tell_apart_is_not_forced() -> None:
    # the 1 at (0,0) sees (0,1) and (1,0); (1,1) is covered and could tell them apart
    p = Position.from_text("3x3x1\n1HH\nHHH\nHHH")
    assert forced_fifty(p, analyze(p)) is None
    p = Position.from_text(NOT_FIFTY)
    assert forced_fifty(p, analyze(p)) is None


@pytest.mark.parametrize(
    ("text", "cells"),
    [
        # (2,0)/(2,1) under the 1 at (1,0): nothing covered touches them, but the 1 at (2,2)
        # sees (2,1) and (2,3), so (2,3) is a mine exactly when (2,1) is safe, and the numbers
        # around (2,3) can still settle it (found by benchmarks/perfect.py on 6x3/4)
        ("6x3x4\n0001HH\n1112HH\nHH1HHH\n", [(2, 0), (2, 1)]),
        # (3,0)/(3,1): the 2 at (3,2) ties (3,1) to (2,3) and (3,3), and the mine count to the
        # top of the last column
        ("4x4x5\n02FH\n03FH\n13FH\nHH2H\n", [(3, 0), (3, 1)]),
    ],
)
def test_a_pair_tied_by_a_number_to_other_covered_cells_is_not_forced(
    text: str, cells: list[tuple[int, int]]
) -> None:
    p = Position.from_text(text)
    a = analyze(p)
    assert forced_fifty(p, a) is None
    # the exact game tree agrees: opening either cell of the pair now gives a lower chance to win
    search = Endgame.of(p, enumerate_layouts(p, 1000))
    everything = (1 << search.size) - 1
    pair = [p.geometry.cell(r, c) for r, c in cells]
    assert all(a.probability(c) == Fraction(1, 2) for c in pair)
    best_chance = search.win(everything)
    assert all(search.value(c, everything, search.size) < best_chance - 0.01 for c in pair)


def test_a_dead_cell_is_not_chosen_while_a_live_one_of_equal_safety_exists() -> None:
    p = Position.from_text(DEAD)
    a = analyze(p)
    prob = {c: a.probability(c) for c in p.covered_cells()}
    best_p = min(prob.values())
    tied = [c for c in prob if prob[c] == best_p]
    live = {c for c in tied if len(_outcomes(p, c, Limit())) > 1}
    dead = set(tied) - live
    assert live and dead
    bm = best_move(p, Limit(seconds=10))
    assert bm.move.cell not in dead


def _tree_value(layouts: list[frozenset[int]], obs: dict[int, list[int]]) -> Fraction:
    """An independent game-tree search: the best chance to win over a set of layouts."""

    @cache
    def win(S: frozenset[int]) -> Fraction:
        if len(S) == 1:
            return Fraction(1)
        best = Fraction(0)
        for row in obs.values():
            parts: dict[int, set[int]] = {}
            for i in S:
                parts.setdefault(row[i], set()).add(i)
            if parts.get(-1) == set(S):
                continue
            if len(parts) == 1:
                continue  # safe everywhere, no information: the same state again
            value = sum(
                (Fraction(len(ix), len(S)) * win(frozenset(ix)) for v, ix in parts.items() if v != -1),
                Fraction(0),
            )
            best = max(best, value)
        return best

    return win(frozenset(range(len(layouts))))


def _observations(p: Position, layouts: list[frozenset[int]]) -> dict[int, list[int]]:
    geo = p.geometry
    flags = set(p.flagged_cells())
    out = {}
    for c in p.covered_cells():
        out[c] = [
            -1 if c in lay else sum(1 for d in geo.neighbours(c) if d in lay or d in flags) for lay in layouts
        ]
    return out


def _move_value(layouts: list[frozenset[int]], obs: dict[int, list[int]], cell: int) -> Fraction:
    parts: dict[int, list[int]] = {}
    for i in range(len(layouts)):
        parts.setdefault(obs[cell][i], []).append(i)
    return sum(
        (
            Fraction(len(ix), len(layouts))
            * _tree_value([layouts[i] for i in ix], {c: [row[i] for i in ix] for c, row in obs.items()})
            for v, ix in parts.items()
            if v != -1
        ),
        Fraction(0),
    )


@pytest.mark.parametrize("text, riskier", ENDGAMES)
def test_the_endgame_search_finds_the_best_move(text: str, riskier: bool) -> None:
    p = Position.from_text(text)
    a = analyze(p)
    layouts = enumerate_layouts(p, 100)
    assert layouts is not None and len(layouts) == a.solutions
    bm = endgame(p, a)
    assert bm is not None and bm.reason == "endgame"
    obs = _observations(p, layouts)
    best = _tree_value(layouts, obs)
    assert bm.win_probability == pytest.approx(float(best), abs=1e-12)
    # the chosen move achieves it
    assert _move_value(layouts, obs, bm.move.cell) == best
    if riskier:
        safest = min(a.probability(c) for c in p.covered_cells())
        assert a.probability(bm.move.cell) > safest
        for c in p.covered_cells():
            if a.probability(c) == safest:
                assert _move_value(layouts, obs, c) < best


def test_the_pruned_search_agrees_with_a_plain_one() -> None:
    # the search prunes moves that cannot beat the best found; the plain search above tries all.
    # Random observation tables, where the safest move is often not the best, and random endgames.
    from demine.players.best import Endgame as _Endgame
    from tests.helpers import random_position

    rng = random.Random(11)
    for _ in range(150):
        n = rng.randint(2, 10)
        share = rng.choice((0.2, 0.4, 0.6))
        obs = {
            c: [-1 if rng.random() < share else rng.randint(0, 2) for _ in range(n)]
            for c in range(rng.randint(2, 7))
        }
        layouts = [frozenset({c for c, row in obs.items() if row[i] == -1}) for i in range(n)]
        if any(all(row[i] == -1 for row in obs.values()) for i in range(n)):
            continue  # a layout with no safe cell left is not a game
        found = _Endgame(obs).best_move()
        assert found is not None
        best = _tree_value(layouts, obs)
        assert found[1] == pytest.approx(float(best), abs=1e-12)
        assert _move_value(layouts, obs, found[0]) == best
    checked = 0
    while checked < 40:
        p, _ = random_position(rng, 6, 5, rng.randint(3, 9), max_covered=rng.randint(6, 14), flag_share=0.3)
        layouts = enumerate_layouts(p, 60)
        if not layouts or len(layouts) < 2:
            continue
        obs = _observations(p, layouts)
        search = _Endgame.of(p, layouts)
        # the bitsets made from each cell's mine bitsets: the table of every layout's numbers,
        # each cell's things shown in the order of their first layout
        plain = _Endgame(obs)
        assert [(c, list(m.items())) for c, m in search.shows.items()] == [
            (c, list(m.items())) for c, m in plain.shows.items()
        ]
        found = search.best_move()
        assert found is not None
        assert found == plain.best_move() and search.nodes == plain.nodes and search.memo == plain.memo
        assert found[1] == pytest.approx(float(_tree_value(layouts, obs)), abs=1e-12)
        checked += 1


def test_enumerated_layouts_are_exactly_the_consistent_ones() -> None:
    rng = random.Random(5)
    from tests.helpers import random_position

    for _ in range(30):
        p, _ = random_position(rng, 5, 4, rng.randint(2, 6), max_covered=10, flag_share=0.3)
        want, count, _ = brute_force(p)
        layouts = enumerate_layouts(p, 10_000)
        assert layouts is not None and len(layouts) == count == len(set(layouts))
        for c in want:
            assert Fraction(sum(c in lay for lay in layouts), count) == want[c]


def test_enumeration_gives_up_past_its_limit() -> None:
    p = Position.covered(9, 9, 10)
    assert enumerate_layouts(p, 1000) is None


def test_sampled_layouts_are_consistent_and_uniform() -> None:
    # Frontier assignments holding different numbers of mines leave different numbers of ways to
    # place the rest off the frontier: a draw that ignored those weights would be far from uniform.
    from tests.helpers import random_position

    rng = random.Random(8)
    checked = unequal = 0
    while checked < 6 or unequal < 3:
        p, _ = random_position(rng, 6, 5, rng.randint(4, 8), max_covered=rng.randint(10, 14), flag_share=0.2)
        layouts = enumerate_layouts(p, 300)
        if not layouts or len(layouts) < 5:
            continue
        system = position_system(p)
        frontier = {c for cs, _, _ in system.constraints for c in cs}
        ways = {len(lay - frontier) for lay in layouts}  # mines off the frontier, one weight each
        if len(ways) == 1 and checked >= 6:
            continue  # the weights are not put to the test here
        unequal += len(ways) > 1
        per = 200
        draws = sample_layouts(p, per * len(layouts), random.Random(checked), 10_000)
        assert draws is not None
        counts = Counter(draws)
        assert set(counts) <= set(layouts)
        # each layout's count is binomial(n, 1/len): within 5 standard deviations
        sd = math.sqrt(per * (1 - 1 / len(layouts)))
        assert all(abs(counts[lay] - per) < 5 * sd for lay in layouts)
        checked += 1


def test_sampling_needs_no_list_of_layouts_but_gives_up_past_its_assignments() -> None:
    p = Position.covered(9, 9, 10)  # no frontier: one assignment, 1.9e12 layouts
    draws = sample_layouts(p, 3, random.Random(1), 1)
    assert draws is not None and all(len(lay) == 10 for lay in draws)
    p = Position.from_text(ENDGAMES[0][0])
    assert sample_layouts(p, 3, random.Random(1), 1) is None  # more than one assignment


@pytest.mark.parametrize("text, riskier", ENDGAMES)
def test_the_sampled_endgame_plays_the_best_move_when_the_sample_holds_every_layout(
    text: str, riskier: bool
) -> None:
    p = Position.from_text(text)
    a = analyze(p)
    layouts = enumerate_layouts(p, 100)
    assert layouts is not None
    # too many layouts for the exact search, and so many draws that all come up
    every = BestSettings(endgame_layouts=2, endgame_sample=2000)
    bm = sampled_endgame(p, a, every)
    assert bm is not None and bm.reason == "sampled endgame" and bm.win_probability is None
    obs = _observations(p, layouts)
    assert _move_value(layouts, obs, bm.move.cell) == _tree_value(layouts, obs)
    assert bm.mine_probability == pytest.approx(float(a.probability(bm.move.cell)))
    # a small sample gives some guess, the same one every time for the same position
    few = every.replace(endgame_sample=3)
    small = sampled_endgame(p, a, few)
    assert small is not None and small.reason == "sampled endgame"
    assert p.states[small.move.cell] == COVERED and small.move.cell not in a.mines
    assert sampled_endgame(p, a, few) == small
    assert sampled_endgame(p, a, few.replace(sampled_layouts=2)) is None  # off


def test_best_opens_safe_cells_and_flags_only_proven_mines() -> None:
    p = Position.from_text("3x2\n121\nHHH")
    d = BestPlayer().decide(p, random.Random(0))
    assert [(m.kind, m.cell) for m in d.moves] == [("reveal", 4), ("flag", 3), ("flag", 5)]
    assert not d.guess


def test_best_move_explains_itself() -> None:
    p = Position.covered(9, 9, 10)
    bm = best_move(p, Limit(seconds=5))
    assert bm.reason in ("look-ahead", "safest")
    assert 0 < bm.mine_probability < 1
    # an opening move on an empty board prefers a corner (most likely to be a zero)
    r, c = divmod(bm.move.cell, 9)
    assert r in (0, 8) and c in (0, 8)


def test_best_move_refuses_a_finished_board() -> None:
    from demine.errors import IllegalMove

    with pytest.raises(IllegalMove):
        best_move(Position.from_text("2x1x1\n1F"))


def test_best_move_estimates_are_probabilities() -> None:
    for text, _ in ENDGAMES:
        bm = best_move(Position.from_text(text), Limit(seconds=5))
        assert bm.reason == "endgame" and bm.estimate == bm.win_probability
    bm = best_move(Position.from_text(FIFTY), Limit(seconds=5))
    assert bm.estimate == 0.5


@pytest.mark.parametrize(("shown", "expected"), [((0, 0), (15, 29)), ((0, 29), (15, 0)), ((15, 29), (0, 0))])
def test_after_a_corner_shows_a_number_the_farthest_corner_is_opened(
    shown: tuple[int, int], expected: tuple[int, int]
) -> None:
    # all three other corners are equally likely to be zeros; the farthest one played best in
    # rollouts (docs/research/guesses.md), and the choice must not depend on which corner was clicked
    p = Position.covered(30, 16, 99)
    p = p.with_state(p.geometry.cell(*shown), 1)
    bm = best_move(p)
    assert bm.move.cell == p.geometry.cell(*expected)
    assert bm.reason == "look-ahead"


def test_steps_to_revealed_are_the_nearest_revealed_cells_distance() -> None:
    rng = random.Random(5)
    for _ in range(30):
        w, h = rng.randint(1, 7), rng.randint(1, 7)
        p = Position.covered(w, h, 0)
        revealed = rng.sample(range(w * h), rng.randint(1, max(1, w * h // 4)))
        for c in revealed:
            p = p.with_state(c, 0)
        want = [min(abs(c // w - d // w) + abs(c % w - d % w) for d in revealed) for c in range(w * h)]
        assert list(_steps_to_revealed(w, h, p.states)) == want
        assert [_nearest_revealed(w, h, p.states, c) for c in range(w * h)] == want


def test_the_nearest_revealed_cell_is_found_around_a_cell_as_by_the_whole_search() -> None:
    # the search around one cell against the search of the board, none revealed included
    rng = random.Random(7)
    for _ in range(200):
        w, h = rng.randint(1, 12), rng.randint(1, 12)
        p = Position.covered(w, h, 0)
        for c in rng.sample(range(w * h), min(w * h, rng.choice([0, 1, 2, rng.randint(0, w * h)]))):
            p = p.with_state(c, rng.randint(0, 8))
        want = list(_steps_to_revealed(w, h, p.states))
        assert [_nearest_revealed(w, h, p.states, c) for c in range(w * h)] == want


def test_the_pair_rule_opens_what_single_numbers_cannot() -> None:
    # the 1 at (1,0) says one mine in (0,0)/(0,1); the 1 at (1,1) sees those two cells and (0,2),
    # (1,2) too, so those are safe: no number alone proves it
    p = Position.from_text("3x2x1\nHHH\n11H")
    assert _quick_safe(p, Follower()) is None
    d = _pair_safe(position_system(p))
    assert d is not None and not d.guess
    assert [(m.kind, m.cell) for m in d.moves] == [("reveal", 2), ("reveal", 5)]
    assert [(m.kind, m.cell) for m in FastPlayer().decide(p, random.Random(0)).moves] == [
        ("reveal", 2),
        ("reveal", 5),
    ]


def test_what_the_pair_rule_opens_and_flags_is_proven() -> None:
    # every decision it makes in seeded games, against brute force
    rng = random.Random(11)
    checked = 0
    for spec in generated_specs(5, 4, 4, "safe", None, 80, "pairs"):
        game = spec.game()
        game.reveal(spec.start)
        player = FastPlayer()
        while not game.over:
            p = game.position()
            d = _pair_safe(position_system(p))
            if d is not None:
                probs, _, _ = brute_force(p)
                for m in d.moves:
                    assert probs[m.cell] == (0 if m.kind == "reveal" else 1), (p.to_text(), m)
                checked += 1
            for m in player.decide(p, rng).moves:
                if not game.over:
                    game.play(m)
    assert checked > 20


def test_the_pair_rule_from_what_changed_decides_what_a_whole_run_decides() -> None:
    # a follower's pair rule starts from the constraints changed since its last run and those
    # holding a cell it decided then; at every position it gives the moves of a run on the whole
    # system, whether its last decision was played, not played, or came a few positions back. When
    # it proves nothing, its rules are at their fixed point (fast's count starts from them and
    # does not run the pair rule again): a run on the whole system decides no further cell
    rng = random.Random(7)
    compared = proved = fixed = 0
    for spec in generated_specs(16, 16, 40, "safe", None, 30, "pairrun"):
        game = spec.game()
        game.reveal(spec.start)
        follower = Follower()
        while not game.over:
            p = game.position()
            a = analyze(p)
            if rng.random() < 0.8:  # else this position is not shown to the follower
                got = _pair_safe(follower.tracker.system(p), follower)
                want = _pair_safe(position_system(p))
                assert (got is None) == (want is None), p.to_text()
                rules = follower.rules
                if rules is not None:
                    assert rules.paired
                    decided = dict(rules.decided)
                    rules.run_all()
                    assert rules.decided == decided, p.to_text()
                    fixed += 1
                if got is not None and want is not None:
                    assert got.moves == want.moves, p.to_text()
                    proved += 1
                compared += 1
            unflagged = sorted(a.mines - set(p.flagged_cells()))
            if unflagged and rng.random() < 0.3:
                game.flag(unflagged[0])
            elif a.safe:
                game.reveal(rng.choice(sorted(a.safe)))  # one of them: the others wait
            else:
                game.reveal(min(p.covered_cells(), key=lambda c: (a.probability(c), c)))
    assert compared > 500 and proved > 100 and fixed > 20, (compared, proved, fixed)


def _fast_without_pairs(follower: Follower, p: Position, rng: random.Random) -> Decision:
    """``fast``'s turn without the pair rule (fast always tries it; its count then starts from
    nothing: ``from_rules`` kept)."""
    return _decide(p, Limit(), lambda a, _: two_step_move(p, a), follower, pair_first=False, from_rules=True)


@pytest.mark.parametrize("player", ["fast", "best"])
def test_trying_the_pair_rule_first_changes_no_guess(player: str) -> None:
    # a speed-only change: the same cells are guessed in the same order, with or without it
    def guesses(on: bool) -> list[list[tuple[str, int]]]:
        out = []
        for spec in generated_specs(16, 16, 40, "safe", None, 12, "pairfirst"):
            decide: Callable[[Position, random.Random], Decision]
            if player == "best":
                decide = BestPlayer(BestSettings(pair_first=on), limit=Limit()).decide
            elif on:
                decide = FastPlayer(limit=Limit()).decide
            else:
                decide = partial(_fast_without_pairs, Follower())
            game = spec.game()
            game.reveal(spec.start)
            rng = random.Random(f"{spec.seed}/player")
            moves: list[tuple[str, int]] = []
            while not game.over:
                decision = decide(game.position(), rng)
                if decision.guess:
                    moves.append((decision.moves[0].kind, decision.moves[0].cell))
                for m in decision.moves:
                    if not game.over:
                        game.play(m)
            out.append(moves)
        return out

    off = guesses(False)
    assert sum(map(len, off)) > 12
    assert guesses(True) == off


def _positions(
    width: int, height: int, mines: int, games: int, seed: str, settings: BestSettings | None = None
) -> Iterator[Position]:
    """Every position of seeded games (safe rule) as ``best`` plays them; each is yielded before
    the player moves on from it."""
    for spec in generated_specs(width, height, mines, "safe", None, games, seed):
        game = spec.game()
        game.reveal(spec.start)
        player = BestPlayer(settings or BestSettings(), limit=Limit())  # (no budget: the same games)
        rng = random.Random(0)
        while not game.over:
            p = game.position()
            yield p
            for m in player.decide(p, rng).moves:
                if not game.over:
                    game.play(m)


@pytest.mark.parametrize(
    ("depth", "size", "games", "seed"),
    [
        (2, (16, 16, 40), 20, "ranking"),
        (3, (16, 16, 40), 20, "ranking"),
        # the fifth of these expert games has a candidate skipped for its safety that wins the
        # three-reveal ranking (a version that never scored it again played another cell)
        (3, (30, 16, 99), 5, "pc1"),
    ],
)
def test_recording_the_ranking_prunes_nothing_and_changes_no_move(
    depth: int, size: tuple[int, int, int], games: int, seed: str
) -> None:
    # a hook that records every candidate's two-guess score turns pruning off; pruning is sound,
    # so the unpruned search must play the same move, and with depth 2 that move must top the
    # recorded ranking (with 3 the deeper ranking decides)
    settings = BestSettings(depth=depth)
    checked = 0
    for p in _positions(*size, games, seed, settings):
        if analyze(p).safe:
            continue
        # no time budget: the unpruned search is slower, and a budget binding under load (2 s by
        # default) would end the two searches at different points
        plain = best_move(p, Limit(), settings=settings)
        ranking: list[Ranked] = []
        recorded = best_move(p, Limit(), settings=settings, hooks=Hooks(on_ranked=ranking.append))
        if plain.reason == "look-ahead":
            assert recorded.move == plain.move
            if depth == 2:
                assert max(ranking, key=lambda r: r.key).cell == plain.move.cell
            # one entry per candidate, and more than one (else no look-ahead is needed)
            assert len({r.cell for r in ranking}) == len(ranking) >= 2
            checked += 1
    assert checked >= 10


def test_a_slow_analysis_does_not_drop_its_candidate_while_the_budget_lasts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A process can stall (collection, a busy machine). Here the clock stands still except that
    # the steps after the first candidates of each search stall 0.15 s once begun: after each of
    # the first three candidates is ranked, the clock jumps at its fourth reading (the first is
    # the next candidate's start, its pace's ``fits``: the jump falls inside that candidate's
    # analyses, after anything its start reads). The look-ahead's 2 s are shared by its
    # candidates, so none may be left out for that; a step
    # given a share of them (2 s / (4 x 4) < 0.15 s) would be. The clock is ``time.perf_counter``
    # itself, which every module reads in either build (compiled code keeps the ``time`` module
    # it imported), and the candidates are watched through the hook, not by replacing code.
    import time

    now, pending, stalls, stalled = [1000.0], [0], [0], [0]

    def clock() -> float:
        if pending[0]:
            pending[0] -= 1
            if not pending[0]:
                now[0] += 0.15
                stalled[0] += 1
        return now[0]

    monkeypatch.setattr(time, "perf_counter", clock)
    checked = 0
    for p in _positions(30, 16, 99, 6, "stall"):
        if analyze(p).safe:
            continue
        rankings = []
        for stall in (0, 3):
            stalls[0] = stall
            ranking: list[Ranked] = []

            def ranked(r: Ranked, ranking: list[Ranked] = ranking) -> None:
                ranking.append(r)
                if stalls[0]:
                    stalls[0] -= 1
                    pending[0] = 4  # (a jump at the fourth reading from now)

            move = best_move(p, Limit(seconds=2.0), hooks=Hooks(on_ranked=ranked))
            stalls[0] = pending[0] = 0  # (the game's own moves, without a budget, do not stall)
            rankings.append((move, sorted(r.cell for r in ranking)))
        assert rankings[0] == rankings[1]
        if rankings[0][0].reason == "look-ahead" and len(rankings[0][1]) >= 4:
            checked += 1
    assert checked >= 5
    assert stalled[0] >= 3 * checked  # (the stalls happened: the searches run on this clock)


def _consistent(p: Position) -> list[frozenset[int]]:
    """Every mine layout of a small board's covered and flagged cells that agrees with its
    numbers and mine count (flags are mines), by plain enumeration."""
    from itertools import combinations

    st, nb = p.states, p.geometry.neighbours
    hidden = [c for c in range(p.cells) if st[c] >= COVERED]
    flags = {c for c in hidden if st[c] != COVERED}
    numbers = [(c, st[c]) for c in range(p.cells) if st[c] < COVERED]
    assert p.mines is not None
    out = []
    for combo in combinations(hidden, p.mines):
        m = frozenset(combo)
        if flags <= m and all(sum(d in m for d in nb(c)) == v for c, v in numbers):
            out.append(m)
    return out


def _split(p: Position, layouts: list[frozenset[int]], cell: int) -> dict[int, list[frozenset[int]]]:
    """The layouts with ``cell`` safe, by the number it would show."""
    out: dict[int, list[frozenset[int]]] = {}
    for m in layouts:
        if cell not in m:
            out.setdefault(sum(d in m for d in p.geometry.neighbours(cell)), []).append(m)
    return out


def _survive(p: Position, layouts: list[frozenset[int]], steps: int, root: int | None = None) -> Fraction:
    """By brute force over ``layouts``: the chance to survive ``steps`` more reveals as
    ``depth=3`` defines it (two proven safe cells: 1; one: it is opened, using a step; else the
    best candidate: every frontier cell and the off-frontier cell with fewest hidden neighbours).
    With ``root``, that cell is the first reveal."""
    if steps == 0:
        return Fraction(1)
    st = p.states
    covered = [c for c in range(p.cells) if st[c] == COVERED]
    safe = [c for c in covered if not any(c in m for m in layouts)]
    live = [c for c in covered if not all(c in m for m in layouts)]
    if root is not None:
        cands = [root]
    elif len(safe) >= steps or not live:
        return Fraction(1)
    elif safe:
        cands = safe[:1]
    else:
        nb = p.geometry.neighbours
        front = [c for c in live if any(st[d] < COVERED for d in nb(c))]
        off = [c for c in live if c not in front]
        cands = front + sorted(off, key=lambda c: (sum(st[d] >= COVERED for d in nb(c)), c))[:1]
    best = Fraction(0)
    for c in cands:
        value = sum(
            (
                len(ls) * _survive(p.with_state(c, v), ls, steps - 1)
                for v, ls in _split(p, layouts, c).items()
            ),
            Fraction(0),
        )
        best = max(best, value / len(layouts))
    return best


def test_three_guesses_ahead_agree_with_brute_force() -> None:
    # depth 3 scores a candidate by the chance to survive it and the best two reveals after it;
    # its pruning must be sound: the cell it plays has the best such chance of all the
    # candidates it weighed, and that chance is what brute force over the layouts gives
    settings = BestSettings(depth=3, inner_candidates=100)
    checked = 0
    for p in _positions(5, 4, 4, 60, "depth3"):
        a = analyze(p)
        if a.safe or a.solutions is None:
            continue
        ranking: list[Ranked] = []
        hooks = Hooks(on_ranked=ranking.append)
        found = look_ahead(p, a, Limit(), None, position_system(p), settings, hooks)
        if found is None or len(ranking) < 2:
            continue
        layouts = _consistent(p)
        assert found.survive is not None and found.reveals == 3
        want = {r.cell: _survive(p, layouts, 3, root=r.cell) for r in ranking}
        assert found.survive == pytest.approx(float(want[found.move.cell]), abs=1e-9)
        assert float(max(want.values())) == pytest.approx(found.survive, abs=1e-9)
        checked += 1
    assert checked >= 15


def test_touches_revealed_tells_the_frontier_both_ways() -> None:
    rng = random.Random(11)
    for _ in range(40):
        w, h = rng.randint(1, 9), rng.randint(1, 9)
        p = Position.covered(w, h, 0)
        for c in rng.sample(range(w * h), rng.randint(0, w * h)):  # few or many revealed: each method
            p = p.with_state(c, 0)
        covered = [c for c in range(w * h) if p.states[c] == COVERED]
        want = [any(p.states[d] < COVERED for d in p.geometry.neighbours(c)) for c in covered]
        assert touches_revealed(p, covered) == want


def test_the_off_frontier_candidates_are_the_fewest_neighbours_then_the_farthest() -> None:
    # the look-ahead's choice off the frontier, keys made one int each, against heapq on tuples
    rng = random.Random(13)
    for _ in range(60):
        w, h = rng.randint(1, 9), rng.randint(1, 9)
        p = Position.covered(w, h, 0)
        for c in rng.sample(range(w * h), rng.randint(0, w * h // 3)):  # none revealed too
            p = p.with_state(c, 0)
        covered = [c for c in range(w * h) if p.states[c] == COVERED]
        rng.shuffle(covered)
        for far_off in (True, False):
            far = distances(p, far_off)
            for k in (0, 1, 2, 5):
                want = heapq.nsmallest(k, covered, key=lambda c: (len(p.geometry.neighbours(c)), far(c), c))
                assert off_candidates(p, covered, k, far_off) == want


def test_the_inner_level_stops_early_only_where_its_caller_decides_the_same() -> None:
    # The three-reveal look-ahead's inner level (_survive_two) counts a candidate's numbers one at
    # a time on frames and leaves it once it cannot beat the best so far, or once the caller's
    # test (drops) holds for an upper bound. Without drops its value must be exactly the value of
    # the plain path (systems, every number of every candidate analysed); with drops, either that
    # value or an upper bound of it for which drops holds.
    from demine.analysis.constraints import system_after
    from demine.analysis.exact import CountCache
    from demine.analysis.incremental import Frame
    from demine.errors import InconsistentPosition

    survive_two = lookahead_module._survive_two
    checked = stopped = 0
    for p in _positions(16, 16, 40, 6, "inner-stop"):
        a = analyze(p)
        if a.safe or not a.solutions or a.solutions < 1000:
            continue
        system = position_system(p)
        root = Frame.root(system, p, {}, Limit())
        covered = sorted((c for c in a.unknown if p.states[c] == COVERED), key=lambda c: (a.p(c), c))
        for cell in covered[:3]:
            for v in range(9):
                after = p.with_state(cell, v)
                try:
                    frame = root.after(after, cell)
                    o = frame.analysis()
                except InconsistentPosition:
                    continue
                cache: CountCache = {}
                plain = survive_two(after, o, system_after(system, after, cell), cache, None, 6)
                assert plain is not None
                assert survive_two(after, o, frame, cache, None, 6) == plain
                # on a frame the chances are read from it: no analysis is needed
                assert survive_two(after, None, frame, cache, None, 6) == plain
                for t in (plain - 0.1, plain - 1e-6, plain, plain + 1e-6, plain + 0.1):

                    def drops(u: float, t: float = t) -> bool:
                        return u < t

                    got = survive_two(after, None, frame, cache, None, 6, drops)
                    assert got is not None
                    assert got == plain or (got >= plain and drops(got)), (t, got, plain)
                    stopped += got != plain
                checked += 1
    assert checked >= 30 and stopped >= 1


def test_the_inner_level_gives_up_when_a_frames_weights_overrun_the_budget() -> None:
    # A frame's weights are made the first time its chances are read, inside _survive_two: past
    # the deadline that raised OverBudget out of best_move (a 500 from the web hint under load),
    # where the inner level says None ("the budget ran out") and the look-ahead falls back.
    from demine.analysis.incremental import Frame
    from demine.errors import InconsistentPosition

    survive_two = lookahead_module._survive_two
    checked = 0
    for p in _positions(16, 16, 40, 6, "inner-budget"):
        a = analyze(p)
        if a.safe or not a.solutions:
            continue
        root = Frame.root(position_system(p), p, {}, Limit())
        for cell in sorted((c for c in a.unknown if p.states[c] == COVERED), key=lambda c: (a.p(c), c))[:3]:
            for v in range(9):
                after = p.with_state(cell, v)
                try:
                    root.after(after, cell).chances()  # (a number that can hold)
                except InconsistentPosition:
                    continue
                frame = root.after(after, cell)  # (a new frame: not weighed yet)
                if not frame.parts:
                    continue  # (nothing to weigh: no budget is spent)
                assert survive_two(after, None, frame, {}, 0.0, 6) is None  # (a deadline long past)
                assert survive_two(after, None, frame, {}, None, 6) is not None  # (and unbounded, a value)
                checked += 1
    assert checked >= 20


def test_the_fifty_fifty_scan_picks_every_number_that_could_hold_one() -> None:
    # the numbers picked by byte lanes (fifty._candidates) against a look at every cell: a number
    # with exactly two unknown neighbours (covered, not known mines) needing one more mine
    from demine.players.best.fifty import _candidates
    from tests.helpers import random_position

    rng = random.Random(7)
    for _ in range(200):
        w, h = rng.choice([(9, 9), (16, 16), (30, 16), (5, 3), (1, 7)])
        p, _ = random_position(rng, w, h, rng.randint(1, w * h // 4), rng.randint(1, w * h), flag_share=0.3)
        st = p.states
        known = frozenset(rng.sample(range(p.cells), rng.randint(0, 6))) | frozenset(p.flagged_cells())
        want = []
        for c in range(p.cells):
            nb = p.geometry.neighbours(c)
            unknown = [d for d in nb if st[d] == COVERED and d not in known]
            if 1 <= st[c] < COVERED and len(unknown) == 2 and st[c] - sum(d in known for d in nb) == 1:
                want.append(c)
        picked = _candidates(p, known)
        assert [c for c in range(p.cells) if picked[c]] == want


@pytest.mark.parametrize("seed", range(20))
def test_safest_cells_of_chances_one_float_apart_are_in_exact_order(seed: int) -> None:
    # layout counts of hundreds of bits: chances that differ by far less than a float's
    # resolution (one float for several values), exactly equal ones written with other numbers,
    # and ones far apart; _safest sorts by the floats first, then exactly among equal floats
    rng = random.Random(seed)
    z = (1 << 300) + rng.randrange(1 << 200)
    bases = [rng.randrange(1, z) for _ in range(3)]
    cells = rng.sample(range(400), rng.randrange(2, 50))
    front = [((bases[0], z), cells[0]), ((bases[0] + 1, z), cells[1])]  # (one float, two chances)
    for c in cells[2:]:
        n = rng.choice(bases) + rng.choice((0, 0, 1, -1, 2))
        k = rng.choice((1, 1, 2, 3))  # (the same chance, other numbers)
        front.append(((n * k, z * k), c))
    assert len({float(Fraction(*nd)) for nd, _ in front}) < len({Fraction(*nd) for nd, _ in front})
    keys = [rng.randrange(3) for _ in range(400)]
    full = sorted(((nd, keys[c], c) for nd, c in front), key=lambda t: (Fraction(*t[0]), t[1], t[2]))
    for inner in (1, 2, 5, 100):
        got = _safest(front, keys.__getitem__, inner)
        assert [(Fraction(*nd), k, c) for nd, k, c in got] == [
            (Fraction(*nd), k, c) for nd, k, c in full[:inner]
        ]


@pytest.mark.parametrize("seed", range(20))
def test_safest_cells_are_the_first_of_the_full_sort(seed: int) -> None:
    # _safest keys and sorts only the cells of the lowest chances: the same first `inner` as
    # sorting every cell by (chance exactly, zero key, cell); equal chances written with other
    # numbers (other objects) rank together
    rng = random.Random(seed)
    shared = [(n, d) for d in (3, 5, 8) for n in range(1, d)]
    front = []
    for c in rng.sample(range(400), rng.randrange(0, 60)):
        n, d = rng.choice(shared)
        k = rng.choice((1, 1, 2))
        front.append(((n * k, d * k) if k > 1 else (n, d), c))
    keys = [rng.randrange(9) for _ in range(400)]
    full = sorted(((nd, keys[c], c) for nd, c in front), key=lambda t: (Fraction(*t[0]), t[1], t[2]))
    for inner in (0, 1, 3, 8, 100):
        got = _safest(front, keys.__getitem__, inner)
        assert [(Fraction(*nd), k, c) for nd, k, c in got] == [
            (Fraction(*nd), k, c) for nd, k, c in full[:inner]
        ]
        assert all(nd is dict(front_item[::-1] for front_item in front)[c] for nd, _, c in got)


@pytest.mark.parametrize("text", ["2x1\n1H", "2x1x1\n1H", "3x2\n1H1\n111"])
def test_a_position_whose_covered_cells_are_all_proven_mines_has_no_move(text: str) -> None:
    # (with the count, best once returned a reveal of a certain mine; without it an IndexError)
    from demine.errors import IllegalMove
    from demine.players.best import best_move

    with pytest.raises(IllegalMove, match="every covered cell is a proven mine"):
        best_move(Position.from_text(text))
