"""The review of a game: marks on hand-made games whose answers are known, and the win chances it
calls exact checked against a brute-force game-tree search on small boards."""

from __future__ import annotations

import itertools
import json
import random
from collections import defaultdict
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from demine.cli import main
from demine.engine.formats import Board, GameRecord
from demine.engine.game import Game, Move
from demine.engine.position import COVERED, Position
from demine.errors import DemineError, InputError
from demine.review import ReviewSettings, review_game


def record(art: str, moves: list[tuple[str, int, int]], rule: str = "safe") -> GameRecord:
    """A game on the layout drawn in ``art`` ('*' a mine, '.' safe), with these moves."""
    rows = art.split()
    w = len(rows[0])
    mines = tuple(r * w + c for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "*")
    board = Board(w, len(rows), mines, rule=rule, start=None)
    return GameRecord(board, [Move(k, r * w + c) for k, r, c in moves])  # type: ignore[arg-type]


# 0 0 0 1 *      (1,4) is proven safe once (0,0) opens the left of the board: the 2 at (1,3)
# 0 0 0 2 2      sees two mines in three cells, and each 1 allows one in its pair
# 0 0 0 1 *
RIGHT_EDGE = """
....*
.....
....*
"""


def test_a_forced_move_and_a_won_game() -> None:
    r = review_game(record(RIGHT_EDGE, [("reveal", 0, 0), ("reveal", 1, 4)]))
    assert [d.mark for d in r.decisions] == ["first click", "forced"]
    assert r.outcome == "won" and r.lost == 0 and r.luck == 1 and r.accuracy == 1
    assert r.decisions[1].mine_probability == 0


def test_a_needless_guess_a_wrong_flag_and_the_losing_click() -> None:
    moves = [("reveal", 0, 0), ("flag", 1, 4), ("flag", 1, 4), ("flag", 0, 4), ("reveal", 2, 4)]
    r = review_game(record(RIGHT_EDGE, moves))
    assert [d.mark for d in r.decisions] == ["first click", "wrong flag", "flag", "flag", "needless guess"]
    last = r.decisions[-1]
    assert last.hit_mine and last.mine_probability == 1.0  # (2,4) is a proven mine as well
    assert last.safe_known == 1 and last.best == (1, 4) and last.best_mine_probability == 0
    assert last.exact and last.win_best == 1.0 and last.win_played == 0 and last.lost == 1.0
    assert r.outcome == "lost" and r.luck == 0 and r.counts()["needless guess"] == 1


# 0 0 0 0 0      after the first click: (2,2) is a proven mine and two layouts remain, mines
# 1 2 2 2 1      on (2,1),(2,4) or on (2,0),(2,3) (the 2 at (1,2) takes one of (2,1),(2,3)):
# . * * . *      a coin toss, which any of the four cells settles; then the rest is forced
COIN = """
.....
.....
.**.*
"""


def test_a_clear_blunder_is_the_chance_to_win_thrown_away() -> None:
    r = review_game(record(COIN, [("reveal", 0, 0), ("reveal", 2, 2)]))
    d = r.decisions[1]
    assert d.mark == "blunder" and d.exact and d.hit_mine and d.mine_probability == 1.0
    assert d.win_best == pytest.approx(0.5) and d.win_played == 0 and d.lost == pytest.approx(0.5)
    assert d.kept == 0 and r.lost == 1.0 and r.accuracy == 0


def test_the_best_guess_at_a_coin_toss_then_forced_moves() -> None:
    r = review_game(record(COIN, [("reveal", 0, 0), ("reveal", 2, 0), ("reveal", 2, 3)]))
    assert [d.mark for d in r.decisions] == ["first click", "best guess", "forced"]
    guess = r.decisions[1]
    assert guess.exact and guess.win_best == pytest.approx(0.5) and guess.win_played == pytest.approx(0.5)
    assert guess.mine_probability == pytest.approx(0.5)
    assert r.outcome == "won" and r.luck == pytest.approx(0.5) and r.lost == 0


def test_an_estimated_guess_is_marked_so_and_thresholds_are_settings() -> None:
    # expert: early guesses have far too many layouts for the exact search
    g = Game(30, 16, 99, rule="zero", seed=4)
    g.reveal(3 * 30 + 3)
    p = g.position()
    covered = [c for c in range(g.width * g.height) if p.states[c] == COVERED]
    from demine.analysis import analyze

    a = analyze(p)
    worst = max((c for c in covered if c not in a.mines), key=a.p)
    g.play(Move("reveal", worst))
    r = review_game(GameRecord.from_game(g))
    d = r.decisions[1]
    assert (
        not d.exact
        and d.win_played is None
        and d.mark in ("needless guess", "inaccuracy", "mistake", "blunder")
    )
    assert d.lost == pytest.approx(max(0.0, a.p(worst) - (d.best_mine_probability or 0.0)))
    with pytest.raises(InputError, match="thresholds"):
        ReviewSettings(inaccuracy=0.2, mistake=0.1)


def test_a_record_that_goes_on_after_the_end_is_refused() -> None:
    rec = record(COIN, [("reveal", 0, 0), ("reveal", 2, 2)])
    rec.moves.append(Move("reveal", 0))
    with pytest.raises(InputError, match="move 3 comes after the end"):
        review_game(rec)


# ---------------------------------------------------------------- brute force on small boards
def _brute(p: Position) -> tuple[Fraction, dict[int, Fraction]]:
    """The best chance to win in ``p`` and each covered cell's chance to win when opened, by
    enumerating every layout and searching the whole game tree (an opened cell shows its
    number; a zero's cascade adds nothing a player could not open safely by hand)."""
    geo = p.geometry
    cells = range(p.cells)
    covered = [c for c in cells if p.states[c] >= COVERED]
    opened = [c for c in cells if p.states[c] < COVERED]
    layouts = []
    for mines in itertools.combinations(covered, p.mines):
        m = set(mines)
        if all(p.states[c] == sum(d in m for d in geo.neighbours(c)) for c in opened):
            layouts.append(frozenset(m))

    def shows(c: int, lay: frozenset[int]) -> int:
        return sum(d in lay for d in geo.neighbours(c))

    def value(c: int, S: frozenset[frozenset[int]]) -> Fraction:
        groups: dict[int, set[frozenset[int]]] = defaultdict(set)
        for lay in S:
            if c not in lay:
                groups[shows(c, lay)].add(lay)
        return sum((len(g) * win(frozenset(g)) for g in groups.values()), Fraction(0)) / len(S)

    @cache
    def win(S: frozenset[frozenset[int]]) -> Fraction:
        if len(S) == 1:
            return Fraction(1)
        best = Fraction(0)
        for c in covered:
            safe = [lay for lay in S if c not in lay]
            if len(safe) == len(S) and len({shows(c, lay) for lay in S}) == 1:
                continue  # safe everywhere and always the same number: tells nothing
            best = max(best, value(c, S))
        return best

    full = frozenset(layouts)
    return win(full), {c: value(c, full) for c in covered}


def _check_random_game(size: tuple[int, int, int], seed: int, rule: str) -> int:
    """Play a game of random guesses, review it, check each exact win chance against the brute
    force; returns how many decisions were checked."""
    w, h, m = size
    rng = random.Random(seed)
    g = Game(w, h, m, rule=rule, seed=seed)
    try:
        g.reveal(0)
    except DemineError:  # a rule this small a board cannot honour
        return 0
    while not g.over:  # a player who guesses at random among the covered cells
        p = g.position()
        g.play(Move("reveal", rng.choice([c for c in range(w * h) if p.states[c] == COVERED])))
    rec = GameRecord.from_game(g)
    r = review_game(rec)
    replay = rec.board.game()
    checked = 0
    for d, mv in zip(r.decisions, rec.moves, strict=True):
        if d.mark not in ("first click", "forced") and d.exact:
            assert d.win_best is not None and d.win_played is not None
            best, values = _brute(replay.position())
            assert d.win_best == pytest.approx(float(best), abs=1e-9)
            assert d.win_played == pytest.approx(float(values[mv.cell]), abs=1e-9)
            assert d.lost == pytest.approx(float(best - values[mv.cell]), abs=1e-9)
            checked += 1
        replay.play(mv)
    return checked


SMALL = [(4, 4, 3), (5, 3, 3), (5, 4, 4), (4, 4, 4)]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(SMALL), st.integers(0, 10_000), st.sampled_from(["safe", "zero", "none"]))
def test_exact_win_chances_agree_with_a_brute_force_game_tree(
    size: tuple[int, int, int], seed: int, rule: str
) -> None:
    _check_random_game(size, seed, rule)


def test_the_brute_force_comparison_sees_many_guesses() -> None:
    checked = sum(_check_random_game(size, seed, "safe") for size in SMALL for seed in range(10))
    assert checked >= 30


# ---------------------------------------------------------------- files and the command line
def test_the_command_reviews_a_record_a_bench_file_and_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = record(COIN, [("reveal", 0, 0), ("reveal", 2, 2)])
    one = tmp_path / "games" / "blunder.json"
    one.parent.mkdir()
    rec.save(one)
    assert main(["review", str(one)]) == 0
    out = capsys.readouterr().out
    assert "blunder" in out and "given away: 100.0%" in out
    assert main(["review", str(one), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["game"] == str(one) and got["summary"]["marks"]["blunder"] == 1
    bench = tmp_path / "games" / "run.jsonl"
    assert (
        main(
            [
                "bench",
                "--size",
                "5x5x3",
                "--games",
                "3",
                "--seed",
                "rv",
                "--record",
                str(bench),
                "--record-moves",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["review", str(tmp_path / "games"), "--jobs", "2", "--json"]) == 0
    names = [json.loads(line)["game"] for line in capsys.readouterr().out.splitlines()]
    assert names == [str(one), f"{bench}:1", f"{bench}:2", f"{bench}:3"]  # files by name


def test_bad_files_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "demine-game", "version": 1, "width": 3}')
    assert main(["review", str(bad)]) != 0
    assert str(bad) in capsys.readouterr().err
    assert main(["review", str(tmp_path / "missing.json")]) != 0
    assert "no such file" in capsys.readouterr().err
    board = tmp_path / "board.json"
    board.write_text(
        '{"width": 9, "height": 9, "mines": 1, "rule": "safe", "start": [0, 0], "mine_cells": [[0, 5]]}'
    )
    assert main(["review", str(board)]) != 0
    assert "a board without moves" in capsys.readouterr().err
    # in a folder, a bad file is named and the good ones are still reviewed
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "bad.json").write_text("{not json")
    record(COIN, [("reveal", 0, 0), ("reveal", 2, 2)]).save(folder / "good.json")
    assert main(["review", str(folder), "--json"]) == 1
    out = capsys.readouterr()
    assert json.loads(out.out)["game"] == str(folder / "good.json") and "bad.json" in out.err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["review", str(empty)]) != 0
    assert "no game records" in capsys.readouterr().err


def test_with_lives_a_mine_hit_is_a_fact_and_the_rest_is_forced() -> None:
    rec = record(COIN, [("reveal", 0, 0), ("reveal", 2, 1), ("reveal", 2, 0), ("reveal", 2, 3)])
    rec.lives = 1
    r = review_game(rec)
    assert [d.mark for d in r.decisions] == ["first click", "best guess", "forced", "forced"]
    assert r.decisions[1].hit_mine and r.outcome == "won"
