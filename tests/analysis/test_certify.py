"""The fast certifier of guess-free boards against the move-by-move deduction player, brute force
and the exact engine: the same verdict on every layout, twins only where a guess is needed."""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from demine import analyze
from demine.analysis import analyze_constraints
from demine.analysis.certify import MINE, OPEN, Certifier, settled_cells
from demine.analysis.noguess import solve_by_deduction
from demine.engine.game import Game
from demine.engine.grid import geometry, mine_cells_allowed

# An expert layout on which the move-by-move player once stalled with a cell provably safe: its
# pair rule proved only mines, and it gave up instead of applying the rules again (found when the
# certifier was first checked against it; both must now win it from (3,3)).
STALLED_ONCE = (
    0, 1, 7, 8, 11, 14, 22, 31, 42, 43, 49, 59, 70, 76, 78, 79, 85, 86, 90, 97, 99, 102, 108, 109,
    111, 116, 117, 120, 128, 131, 133, 135, 137, 144, 146, 148, 162, 170, 178, 179, 186, 187, 196,
    197, 198, 199, 203, 204, 212, 213, 217, 221, 223, 225, 230, 235, 240, 243, 263, 264, 270, 279,
    286, 289, 290, 294, 301, 303, 306, 309, 310, 312, 319, 321, 322, 325, 329, 335, 339, 346, 347,
    348, 353, 354, 358, 370, 372, 380, 400, 402, 407, 410, 415, 436, 444, 447, 451, 472, 475,
)  # fmt: skip


def _by_player(width: int, height: int, layout: tuple[int, ...], first: int, certificate: str) -> bool:
    """The verdict of the move-by-move deduction player (the incremental engine, another code)."""
    if first in layout:
        return False
    game = Game.from_layout(width, height, sorted(layout))
    game.reveal(first)
    return solve_by_deduction(game, certificate)  # type: ignore[arg-type]


@st.composite
def boards(draw: st.DrawFn) -> tuple[int, int, tuple[int, ...], int, str, str]:
    width = draw(st.integers(3, 8))
    height = draw(st.integers(3, 8))
    rule = draw(st.sampled_from(["safe", "zero", "none"]))
    first = draw(st.integers(0, width * height - 1))
    allowed = mine_cells_allowed(geometry(width, height), rule, first)
    k = draw(st.integers(1, max(1, min(len(allowed), width * height // 3))))
    layout = tuple(sorted(draw(st.permutations(allowed))[:k]))
    return width, height, layout, first, rule, draw(st.sampled_from(["complete", "local"]))


@settings(max_examples=300, deadline=None)
@given(boards())
def test_the_certifier_agrees_with_the_deduction_player(
    board: tuple[int, int, tuple[int, ...], int, str, str],
) -> None:
    width, height, layout, first, _, certificate = board
    cert = Certifier(width, height, certificate)  # type: ignore[arg-type]
    assert cert.guess_free(layout, first) == _by_player(width, height, layout, first, certificate)


@settings(max_examples=300, deadline=None)
@given(boards())
def test_a_twin_is_found_only_where_a_guess_is_needed(
    board: tuple[int, int, tuple[int, ...], int, str, str],
) -> None:
    width, height, layout, first, _, _ = board
    cert = Certifier(width, height)
    mine = [0] * (width * height)
    for c in layout:
        mine[c] = 1
    twin = cert.twin(mine, first)
    if twin is not None:
        a, b = twin
        assert mine[a] and not mine[b] and b != first
        assert not _by_player(width, height, layout, first, "complete")


@pytest.mark.parametrize("certificate", ["complete", "local"])
def test_the_certifier_agrees_with_the_player_on_expert_layouts(certificate: str) -> None:
    width, height, first = 30, 16, 93
    allowed = mine_cells_allowed(geometry(width, height), "zero", first)
    rng = random.Random(f"expert/{certificate}")
    cert = Certifier(width, height, certificate)  # type: ignore[arg-type]
    verdicts = []
    for _ in range(120):
        layout = tuple(sorted(rng.sample(allowed, 99)))
        verdict = cert.guess_free(layout, first)
        assert verdict == _by_player(width, height, layout, first, certificate), layout
        verdicts.append(verdict)
    assert 0 < sum(verdicts) < len(verdicts)  # both verdicts occur: the check has teeth


def test_where_the_certifier_stalls_the_exact_engine_proves_no_cell_safe() -> None:
    width, height, first = 30, 16, 93
    allowed = mine_cells_allowed(geometry(width, height), "zero", first)
    rng = random.Random("stalls")
    cert = Certifier(width, height)
    stalls = 0
    while stalls < 25:
        layout = tuple(sorted(rng.sample(allowed, 99)))
        state = cert.stall(layout, first)
        if state is None:
            continue
        stalls += 1
        game = Game.from_layout(width, height, list(layout))
        opened = [c for c in range(width * height) if state[c] == OPEN]
        for c in opened:
            game.reveal(c)
        assert all(state[c] != MINE or c in layout for c in range(width * height))
        a = analyze(game.position())
        assert not a.safe, (layout, sorted(a.safe))


def test_the_layout_the_old_player_gave_up_on_is_won_by_both() -> None:
    assert Certifier(30, 16).guess_free(STALLED_ONCE, 93)
    assert _by_player(30, 16, STALLED_ONCE, 93, "complete")


def test_every_guess_free_layout_of_a_small_board_is_found_by_the_certifier() -> None:
    # 4x4, 3 mines, 'safe' rule from the corner: the certifier's set equals the player's
    allowed = mine_cells_allowed(geometry(4, 4), "safe", 0)
    cert = Certifier(4, 4)
    for combo in combinations(allowed, 3):
        assert cert.guess_free(combo, 0) == _by_player(4, 4, combo, 0, "complete"), combo


@st.composite
def systems(draw: st.DrawFn) -> tuple[list[tuple[list[int], int]], list[int], int | None]:
    """A satisfiable system: a hidden layout on ``n`` cells and constraints read from it."""
    n = draw(st.integers(2, 14))
    truth = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    cons = []
    for _ in range(draw(st.integers(1, 7))):
        cells = sorted(draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=5)))
        cons.append((cells, sum(truth[c] for c in cells)))
    constrained = {c for cs, _ in cons for c in cs}
    off = [c for c in range(n) if c not in constrained]
    total = sum(truth) if draw(st.booleans()) else None
    return cons, off, total


@settings(max_examples=300, deadline=None)
@given(systems())
def test_settled_cells_match_the_exact_engine(
    system: tuple[list[tuple[list[int], int]], list[int], int | None],
) -> None:
    cons, off, total = system
    cells = sorted({c for cs, _ in cons for c in cs} | set(off))
    safe, mines = settled_cells(cons, 1 << 20, off=off, mines=total)
    a = analyze_constraints(cons, cells=cells, mines=total)
    if total is None:  # without a total, off cells are free either way: only the frontier settles
        assert set(safe) == {c for c in a.safe if c not in off}
        assert set(mines) == {c for c in a.mines if c not in off}
    else:
        assert (set(safe), set(mines)) == (set(a.safe), set(a.mines))


def test_a_board_past_the_neighbour_table_is_certified_alike() -> None:
    # 260x260 cells: the geometry keeps no neighbour table, the certifier builds its own lazily
    width = height = 260
    first = 3 * width + 3
    allowed = mine_cells_allowed(geometry(width, height), "zero", first)
    rng = random.Random("huge")
    cert = Certifier(width, height)
    for _ in range(2):
        layout = tuple(sorted(rng.sample(allowed, width * height // 10)))
        assert cert.guess_free(layout, first) == _by_player(width, height, layout, first, "complete")
    assert sum(row is not None for row in cert.twins) < width * height  # only what was needed


@pytest.mark.parametrize("certificate", ["complete", "local"])
@pytest.mark.parametrize(
    ("width", "height", "mines", "first"), [(8, 8, 14, 27), (16, 16, 70, 119), (30, 16, 170, 93)]
)
def test_a_swap_taken_up_from_the_base_play_gets_the_verdict_of_a_whole_play(
    certificate: str, width: int, height: int, mines: int, first: int
) -> None:
    # the dense mode's chain: a guess-free base, then swaps of a mine and a free cell, each
    # certified from where the swap starts to show (and stopped once its cells are known); the
    # verdict must be that of certifying the swapped layout from nothing, kept or not
    from demine.analysis.noguess import no_guess_layout

    cert = Certifier(width, height, certificate)  # type: ignore[arg-type]
    board = no_guess_layout(
        width, height, mines, "zero", first, seed="swap", certificate=certificate, mode="dense"
    )  # type: ignore[arg-type]
    allowed = mine_cells_allowed(geometry(width, height), "zero", first)
    rng = random.Random(f"{width}/{certificate}")
    base = cert.trace(board.mine_cells, first)
    assert base.won
    layout = set(board.mine_cells)
    kept = 0
    for _ in range(300):
        out = rng.choice(sorted(layout))
        to = rng.choice([c for c in allowed if c not in layout])
        trial = cert.swapped(base, out, to)
        swapped = (layout - {out}) | {to}
        assert trial.won == cert.guess_free(swapped, first), (sorted(swapped), out, to)
        # (the early stop is sound: a whole play of a kept layout wins it too)
        if trial.won:
            kept += 1
            base, layout = trial, swapped
            assert list(trial.mine) == [int(c in layout) for c in range(width * height)]
    assert kept  # the chain moved


def test_a_resumed_play_of_a_swap_opens_what_a_whole_play_opens() -> None:
    # without the early stop (a base that was not won), a swap's trace is the whole play's:
    # the same cells opened in the same order
    cert = Certifier(16, 16)
    rng = random.Random(5)
    allowed = mine_cells_allowed(geometry(16, 16), "zero", 119)
    for _ in range(60):
        layout = set(rng.sample(allowed, 50))
        base = cert.trace(layout, 119)
        base.won = False  # (as if stalled: swapped() then plays to the end)
        out = rng.choice(sorted(layout))
        to = rng.choice([c for c in allowed if c not in layout])
        trial = cert.swapped(base, out, to)
        whole = cert.trace((layout - {out}) | {to}, 119)
        assert trial.won == whole.won and trial.order == whole.order
