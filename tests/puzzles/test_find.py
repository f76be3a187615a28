"""Finding puzzles in positions: the kinds, their conditions, themes, cropping, deduplication up
to rotations and mirrors, and the rating."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from demine import Game, Position, analyze
from demine.engine.formats import GameRecord
from demine.puzzles import (
    DEFAULT_MAKE,
    Puzzle,
    Rating,
    attempt,
    canonical,
    position_key,
    puzzles_in,
    transform,
    transform_cell,
)
from demine.puzzles.judge import AllAttempt, judge
from demine.puzzles.mine import Collector, positions_of, select
from tests.puzzles.check import Sat, number_rule_safe

# a 1-2-1 along the left wall (puzzles are found in the board's canonical orientation, which
# these positions are in: the answers are in their own cells)
ONE_TWO_ONE = Position.from_text("2x5\nHH\n1H\n2H\n1H\nHH")
# a true 50/50: one mine in the two covered cells, which every number sees both of
FIFTY = Position.from_text("2x4x1\n00\n11\nHH\n11")


def test_1_2_1_makes_a_safe_and_an_all_puzzle_with_its_theme() -> None:
    got = {p.kind: p for p in puzzles_in(ONE_TWO_ONE)}
    safe, every = got["safe"], got["all"]
    assert safe.answer == (0, 1, 5, 8, 9)  # beside the 2 (5), and the corners beyond the 1s
    assert "1-2-1" in safe.themes and "pair" in safe.themes
    assert set(every.mines) == {3, 7} and set(every.answer) == {0, 1, 3, 5, 7, 8, 9}
    assert set(safe.proof[5][1]) == {2, 4, 6}


def test_no_safe_puzzle_where_one_number_proves_a_cell_safe() -> None:
    p = Position.from_text("2x3\n1H\n0H\nHH")  # the 0 alone opens its neighbours
    assert number_rule_safe(p)
    assert "safe" not in {z.kind for z in puzzles_in(p)}


def test_a_true_fifty_fifty_is_a_coin_puzzle() -> None:
    found = {p.kind: p for p in puzzles_in(FIFTY)}
    coin = found["coin"]
    assert coin.position.to_text() == "2x3x1\n11\nHH\n11\n"  # the row of 0s cropped: it tells nothing
    assert coin.fifty is True and set(coin.pair) == {2, 3}
    assert coin.chances[2] == pytest.approx(0.5)
    assert set(coin.answer) == {2, 3}


def test_a_guess_puzzle_keeps_the_best_cell_and_a_tempting_worse_one() -> None:
    # found in fast's games on intermediate: nothing safe, few layouts
    c = Collector()
    c._have.update({(k, b): 1 for k in ("safe", "all") for b in ("easy", "medium", "hard", "expert")})
    c.enough = 1  # safe and all have enough: look for guesses only
    c.add_played("fast", "intermediate", 5, "t36/0")
    guesses = [p for p in c.found.values() if p.kind == "guess"]
    assert guesses
    for p in guesses:
        best = max(p.chances.values())
        assert p.tempting is not None and best - p.chances[p.tempting] >= 0.05
        assert judge(p, p.answer[0]).right and not judge(p, p.tempting).right


def test_judging_safe_and_all_answers() -> None:
    got = {p.kind: p for p in puzzles_in(ONE_TWO_ONE)}
    assert judge(got["safe"], 5).right
    # cells named the terminal's way (column letters, row from 1), or as the caller names them
    w = got["safe"].position.width
    assert judge(got["safe"], 5).message.startswith(f"Right: {'abcdefgh'[5 % w]}{5 // w + 1} is safe")
    named = judge(got["safe"], 5, name=lambda p, c: f"<{c}>")
    assert named.message.startswith("Right: <5> is safe") and "<" in named.message.split(":", 2)[2]
    v = judge(got["safe"], 3)
    assert not v.right and v.cell in got["safe"].answer and v.proof
    a = AllAttempt(got["all"])
    assert a.move(5, flag=False).right and not a.move(3, flag=False).right
    a = AllAttempt(got["all"])
    for cell in (3, 7):
        assert a.move(cell, flag=True).right
    for cell in (0, 1, 5, 8):
        assert not a.move(cell, flag=False).done
    assert a.move(9, flag=False).done


# ---------------------------------------------------------------------------- symmetry
def test_the_eight_symmetries_are_distinct_and_invertible() -> None:
    p = Position.from_text("4x3\n0123\n45HF\nHH11")
    copies = {transform(p, s).to_text() for s in range(8)}
    assert len(copies) == 8
    for s in range(8):
        q = transform(p, s)
        for c in range(p.cells):
            assert q.states[transform_cell(4, 3, c, s)] == p.states[c]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 7))
def test_rotated_and_mirrored_copies_share_a_key_and_make_the_same_puzzles(seed: int, sym: int) -> None:
    g = Game(8, 6, 8, rule="zero", seed=seed)
    g.reveal(g.geometry.cell(2, 2))
    p = g.position()
    q = transform(p, sym)
    assert position_key(p) == position_key(q)
    assert canonical(p)[0] == canonical(q)[0]
    assert [z.to_json() for z in puzzles_in(p)] == [z.to_json() for z in puzzles_in(q)]


def test_copies_of_mined_positions_make_the_same_puzzles() -> None:
    """Positions of real games, each turned and mirrored seven ways: every copy makes exactly
    the same puzzles (so the set keeps one of them)."""
    from demine.bench.play import generated_specs, play_game

    checked = 0
    for spec in generated_specs(16, 16, 40, "safe", None, 1, "sym36"):
        rec = GameRecord.from_json(play_game(spec, "fast", keep_record=True).game)
        for k, pos, _mv, _lay in positions_of(rec):
            if k % 10:
                continue
            want = [z.to_json() for z in puzzles_in(pos)]
            for sym in range(1, 8):
                assert [z.to_json() for z in puzzles_in(transform(pos, sym))] == want
            checked += 1
    assert checked >= 5


def test_the_collector_keeps_one_puzzle_per_position_up_to_symmetry() -> None:
    c = Collector()
    for s in range(8):
        c.add_position(transform(ONE_TWO_ONE, s), None, f"copy {s}")
    assert sorted(p.kind for p in c.found.values()) == ["all", "safe"]
    assert all(p.source == "copy 0" for p in c.found.values())


# ---------------------------------------------------------------------------- cropping
def test_a_cropped_safe_puzzle_keeps_its_answer_on_the_whole_board() -> None:
    """Mined from real games: every cell a cropped puzzle calls safe is safe on the whole board
    (checked by SAT on the whole position) and the crop is smaller."""
    from demine.bench.play import generated_specs, play_game

    checked = 0

    for spec in generated_specs(16, 16, 40, "safe", None, 3, "crop36"):
        rec = GameRecord.from_json(play_game(spec, "fast", keep_record=True).game)
        for k, pos, _mv, _lay in positions_of(rec):
            if k % 3:
                continue
            for z in puzzles_in(pos, source="x"):
                if z.kind != "safe" or z.position.cells == pos.cells:
                    continue
                # puzzles are found in the board's canonical orientation
                seen = transform(pos.without_flags(), canonical(pos.without_flags())[1])
                whole = Sat(seen)
                # find the crop's corner: the position's rows appear in the whole one
                offs = _offsets(seen, z.position)
                assert offs, z.id

                assert any(_safe_there(z, seen, whole, r0, c0) for r0, c0 in offs), z.id
                whole.close()
                checked += 1
            if checked >= 6:
                return
    assert checked


def _safe_there(z: Puzzle, seen: Position, whole: Sat, r0: int, c0: int) -> bool:
    """Whether every answer of ``z``, cropped at (r0, c0) from ``seen``, is safe there."""
    for cell in z.answer:
        r, col = divmod(cell, z.position.width)
        d = (r + r0) * seen.width + col + c0
        # a number at the crop's rim shown covered is safe indeed
        if seen.states[d] >= 9 and whole.can_be(d, True):
            return False
    return True


def _offsets(whole: Position, part: Position) -> list[tuple[int, int]]:
    """Where ``part`` fits in ``whole`` (covered cells of the part may be numbers of the whole)."""
    out = []
    for r0 in range(whole.height - part.height + 1):
        for c0 in range(whole.width - part.width + 1):
            ok = all(
                part.states[r * part.width + c] in (whole.states[(r + r0) * whole.width + c + c0], 9)
                for r in range(part.height)
                for c in range(part.width)
            )
            if ok:
                out.append((r0, c0))
    return out


def test_an_analysis_of_a_safe_puzzle_agrees_with_sat() -> None:
    p = next(z for z in puzzles_in(ONE_TWO_ONE) if z.kind == "safe")
    a = analyze(p.position)
    assert set(a.safe) == set(p.answer)


# ---------------------------------------------------------------------------- rating
def test_glicko2_matches_glickmans_worked_example() -> None:
    from demine.puzzles.rating import update

    r = update(
        Rating(1500, 200, 0.06), [(Rating(1400, 30), 1), (Rating(1550, 100), 0), (Rating(1700, 300), 0)]
    )
    assert r.rating == pytest.approx(1464.06, abs=0.01)
    assert r.rd == pytest.approx(151.52, abs=0.01)
    assert r.volatility == pytest.approx(0.05999, abs=1e-5)


def test_solving_a_hard_puzzle_raises_the_rating_more_than_an_easy_one() -> None:
    player = Rating(1500, 120)
    hard = attempt(player, Rating(1900, 80), True)[0]
    easy = attempt(player, Rating(1100, 80), True)[0]
    assert hard.rating > easy.rating > player.rating
    # failing an easy puzzle costs more than failing a hard one; the puzzle moves the other way
    lost_easy, easy_puzzle = attempt(player, Rating(1100, 80), False)
    lost_hard = attempt(player, Rating(1900, 80), False)[0]
    assert lost_easy.rating < lost_hard.rating < player.rating
    assert easy_puzzle.rating > 1100


def test_select_spreads_over_difficulties() -> None:
    c = Collector()
    c.add_played("fast", "beginner", 5, "sel36")
    picked = select(c.found.values(), 5)
    for kind in ("safe", "all"):
        got = [p for p in picked if p.kind == kind]
        assert len(got) <= 5
        have = {p.difficulty for p in c.found.values() if p.kind == kind}
        assert {p.difficulty for p in got} == have or len(got) == 5


def test_a_needless_guess_played_in_a_position_is_named_in_the_puzzles_source() -> None:
    # the player opened 3, a mine the 1-2-1 proves, where safe cells were known
    got = {p.kind: p for p in puzzles_in(ONE_TWO_ONE, played=3, source="my game move 4")}
    assert got["safe"].source == "my game move 4 (a needless guess was played here)"
    assert puzzles_in(ONE_TWO_ONE, played=5, source="x")[0].source == "x"


def test_guess_and_coin_puzzles_keep_every_covered_cell_and_the_mine_count() -> None:
    """A guess or coin puzzle is the whole game's endgame: its crop keeps every covered cell and
    the mines left, so its chances are the game's; a position with too many layouts for the
    exact search makes none (no box of it, answered for the box alone)."""
    from demine.bench.play import generated_specs, play_game

    made = too_many = 0
    for spec in generated_specs(16, 16, 40, "safe", None, 8, "crop36"):
        rec = GameRecord.from_json(play_game(spec, "fast", keep_record=True).game)
        for _k, pos, _mv, _lay in positions_of(rec):
            a = analyze(pos)
            if a.safe or a.approximate:
                continue
            found = puzzles_in(pos, kinds=("guess", "coin"))
            if (a.solutions or 0) > DEFAULT_MAKE.max_layouts:
                too_many += 1
                assert not found
            for z in found:
                made += 1
                covered = sum(1 for v in z.position.states if v >= 9)
                assert covered == sum(1 for v in pos.states if v >= 9)
                assert z.position.mines == pos.mines and z.layouts == a.solutions
    assert made >= 3 and too_many >= 1, (made, too_many)
