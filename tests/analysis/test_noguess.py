"""No-guess boards: the certificates against brute force, uniform sampling by chi-square, and every
generated board won by deduction alone."""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations

import pytest

from demine import (
    GameRecord,
    InputError,
    Limit,
    NoGuessTimeout,
    SizeError,
    is_guess_free,
    no_guess_game,
    no_guess_layout,
)
from demine.bench import generated_specs, play_game
from demine.engine.grid import geometry, mine_cells_allowed


def _brute_guess_free(
    width: int, height: int, layouts: list[frozenset[int]], first: int
) -> set[frozenset[int]]:
    """The guess-free layouts among ``layouts`` (every layout the player considers possible), by
    brute force: the layouts consistent with what is seen are kept as one group; a cell is safe
    when no layout of the group has a mine there; all safe cells are opened (flooding zeros) and
    the group splits by what they show. A group with no safe cell left and cells to open loses."""
    geo = geometry(width, height)
    n = width * height
    counts = {lay: [sum(d in lay for d in geo.neighbours(c)) for c in range(n)] for lay in layouts}

    def flood(lay: frozenset[int], cells: list[int], seen: set[int]) -> None:
        todo = [c for c in cells if c not in seen]
        seen.update(todo)
        while todo:
            c = todo.pop()
            if counts[lay][c] == 0:
                for d in geo.neighbours(c):
                    if d not in seen:
                        seen.add(d)
                        todo.append(d)

    free: set[frozenset[int]] = set()
    # (the group, the cells open in it): every layout of a group shows the same on its open cells
    stack: list[tuple[list[frozenset[int]], set[int]]] = []
    groups: dict[tuple[tuple[int, int], ...], list[frozenset[int]]] = {}
    opened: dict[tuple[tuple[int, int], ...], set[int]] = {}
    for lay in layouts:
        if first in lay:
            continue  # the first click hit a mine: not guess-free
        seen: set[int] = set()
        flood(lay, [first], seen)
        key = tuple(sorted((c, counts[lay][c]) for c in seen))
        groups.setdefault(key, []).append(lay)
        opened[key] = seen
    stack = [(g, opened[k]) for k, g in groups.items()]
    while stack:
        group, seen = stack.pop()
        covered = [c for c in range(n) if c not in seen]
        real_mines = group[0]
        if all(c in real_mines for c in covered):  # every covered cell a mine in this group: won
            free.update(group)
            continue
        safe = [c for c in covered if not any(c in lay for lay in group)]
        if not safe:
            continue  # a guess is needed: none of these is guess-free
        split: dict[tuple[tuple[int, int], ...], tuple[list[frozenset[int]], set[int]]] = {}
        for lay in group:
            now = set(seen)
            flood(lay, safe, now)
            key = tuple(sorted((c, counts[lay][c]) for c in now - seen))
            split.setdefault(key, ([], now))[0].append(lay)
        stack.extend(split.values())
    return free


def _layouts(width: int, height: int, mines: int, rule: str, first: int) -> list[frozenset[int]]:
    allowed = mine_cells_allowed(geometry(width, height), rule, first)
    return [frozenset(c) for c in combinations(allowed, mines)]


def _critical_chi2(df: int, z: float = 3.09) -> float:
    """The chi-square value exceeded with probability about 0.001 (Wilson-Hilferty)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def test_the_complete_certificate_is_exactly_brute_force_on_every_layout() -> None:
    lays = _layouts(5, 5, 4, "safe", 0)
    free = _brute_guess_free(5, 5, lays, 0)
    assert 0 < len(free) < len(lays)
    ours = {lay for lay in lays if is_guess_free(5, 5, sorted(lay), 0)}
    assert ours == free


def test_the_local_certificate_is_brute_force_over_every_mine_count() -> None:
    # without the total, a player considers layouts with any number of mines
    width, height, first = 4, 4, 0
    allowed = mine_cells_allowed(geometry(width, height), "safe", first)
    every = [frozenset(c) for k in range(len(allowed) + 1) for c in combinations(allowed, k)]
    free_any = _brute_guess_free(width, height, every, first)
    lays = _layouts(width, height, 3, "safe", first)
    want = {lay for lay in lays if lay in free_any}
    local = {lay for lay in lays if is_guess_free(width, height, sorted(lay), first, "local")}
    complete = {lay for lay in lays if is_guess_free(width, height, sorted(lay), first, "complete")}
    assert local == want
    # the count settles some boards the numbers alone do not: the local certificate rejects them
    assert local < complete


@pytest.mark.parametrize(
    ("width", "height", "mines", "rule", "first"), [(5, 4, 4, "safe", 0), (5, 5, 5, "zero", 12)]
)
def test_uniform_mode_draws_every_guess_free_layout_equally_often(
    width: int, height: int, mines: int, rule: str, first: int
) -> None:
    free = _brute_guess_free(width, height, _layouts(width, height, mines, rule, first), first)
    k = len(free)
    samples = 6 * k  # 6 expected draws of each: enough for the chi-square test
    drawn = Counter(
        frozenset(
            no_guess_layout(width, height, mines, rule, first, seed=f"chi/{i}", mode="uniform").mine_cells
        )
        for i in range(samples)
    )
    assert set(drawn) <= free  # only guess-free layouts
    expected = samples / k
    chi2 = sum((drawn.get(lay, 0) - expected) ** 2 / expected for lay in free)
    assert chi2 < _critical_chi2(k - 1), (chi2, k)


def test_the_same_seed_gives_the_same_board_and_another_seed_another() -> None:
    a = no_guess_layout(16, 16, 40, "zero", 34, seed="s1")
    again = no_guess_layout(16, 16, 40, "zero", 34, seed="s1")
    assert (again.mine_cells, again.attempts) == (a.mine_cells, a.attempts)
    assert no_guess_layout(16, 16, 40, "zero", 34, seed="s2").mine_cells != a.mine_cells


@pytest.mark.parametrize("certificate", ["complete", "local"])
@pytest.mark.parametrize(
    ("size", "rule"), [((9, 9, 10), "safe"), ((16, 16, 40), "zero"), ((30, 16, 99), "zero")]
)
def test_generated_boards_are_won_by_deduction_alone(
    size: tuple[int, int, int], rule: str, certificate: str
) -> None:
    w, h, m = size
    for spec in generated_specs(w, h, m, rule, None, 4, f"won/{certificate}", no_guess=certificate):
        result = play_game(spec, "exact", keep_record=True)
        assert result.won and result.guesses == 0
        assert result.game is not None and result.game["no_guess"] == certificate


def test_dense_mode_certifies_boards_too_dense_to_draw() -> None:
    board = no_guess_layout(9, 9, 30, "zero", 40, seed=1, mode="dense", mix=20)
    assert board.mode == "dense" and len(board.mine_cells) == 30
    assert is_guess_free(9, 9, board.mine_cells, 40)
    # auto picks its mode by a count of draws; the budget only guards (2 s ran out at load 9)
    auto = no_guess_layout(9, 9, 30, "zero", 40, seed=1, mode="auto", limit=Limit(seconds=30))
    assert is_guess_free(9, 9, auto.mine_cells, 40)


def test_the_dense_mode_is_reproducible_and_never_cut_short_by_its_budget() -> None:
    a = no_guess_layout(9, 9, 30, "zero", 40, seed="rep", mode="dense")
    assert a.attempts > 7 * 30  # the default chain: seven swap steps per mine, after the repair
    assert no_guess_layout(9, 9, 30, "zero", 40, seed="rep", mode="dense").mine_cells == a.mine_cells
    # a budget too short for the chain is an error, not a board that depends on the machine
    with pytest.raises(NoGuessTimeout):
        no_guess_layout(9, 9, 30, "zero", 40, seed="rep", mode="dense", limit=Limit(seconds=0.002))


def test_impossible_and_hopeless_requests_are_clear_errors() -> None:
    with pytest.raises(InputError, match="swap steps"):
        no_guess_layout(9, 9, 30, "zero", 40, mode="dense", mix=-1)
    with pytest.raises(SizeError, match="do not fit"):
        no_guess_layout(9, 9, 75, "zero", 40)
    with pytest.raises(NoGuessTimeout, match="fewer mines"):
        no_guess_layout(16, 16, 110, "zero", 34, seed=1, mode="uniform", limit=Limit(seconds=0.2))


def test_a_no_guess_game_places_its_mines_at_the_first_click_and_records_the_flag() -> None:
    game = no_guess_game(16, 16, 40, rule="zero", seed=5, certificate="local")
    assert not game.placed
    game.reveal(game.geometry.cell(7, 7))
    assert is_guess_free(16, 16, game.mine_cells(), game.geometry.cell(7, 7), "local")
    record = GameRecord.from_json(GameRecord.from_game(game).to_json())
    assert record.board.no_guess == "local" and record.replay().no_guess == "local"
    again = no_guess_game(16, 16, 40, rule="zero", seed=5, certificate="local")
    again.reveal(again.geometry.cell(7, 7))
    assert again.mine_cells() == game.mine_cells()


def test_the_shipped_reach_refuses_only_what_no_try_found_and_says_what_can_be() -> None:
    from demine.analysis.noguess import NoGuessOutOfReach, check_no_guess_reach, no_guess_reach

    assert no_guess_reach(5, 5, "safe") is None  # smaller than every measured board
    measured = 0
    for w, h in ((9, 9), (16, 16), (30, 16), (24, 24), (40, 40), (60, 60), (100, 100)):
        for rule in ("safe", "zero"):
            reach = no_guess_reach(w, h, rule)
            assert reach is not None and reach.measured == f"{w}x{h}"  # every size measured is shipped
            check_no_guess_reach(
                w, h, reach.found, rule, Limit(seconds=reach.seconds)
            )  # found: never refused
            if reach.refused is None or reach.refused_to is None:
                continue  # every count tried on this size was found
            measured += 1
            assert reach.found < reach.refused <= reach.refused_to
            with pytest.raises(NoGuessOutOfReach, match=f"at most {reach.found} mines"):
                check_no_guess_reach(w, h, reach.refused, rule, Limit(seconds=reach.seconds))
            with pytest.raises(NoGuessOutOfReach):
                check_no_guess_reach(w, h, reach.refused_to, rule, Limit(seconds=1.0))
            # a longer budget than the one measured, or none, is not judged by these figures
            check_no_guess_reach(w, h, reach.refused, rule, Limit(seconds=2 * reach.seconds))
            check_no_guess_reach(w, h, reach.refused, rule, Limit())
    assert measured  # some size has a range where nothing was found
