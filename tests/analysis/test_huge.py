"""Huge boards: games with lives, and the incremental engine ``fast`` uses above LOCAL_CELLS."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from demine.analysis import analyze
from demine.analysis.local import LocalEngine
from demine.bench import GameSpec, play_game
from demine.cli import main
from demine.engine.formats import GameRecord
from demine.engine.game import Game, Move
from demine.engine.position import COVERED, FLAG
from demine.errors import SizeError
from demine.players.best import LOCAL_CELLS


def test_a_hit_with_lives_left_marks_the_mine_and_play_goes_on() -> None:
    g = Game.from_layout(4, 1, [3], lives=1)
    assert g.reveal(3) == []
    assert g.outcome == "playing" and g.hits == 1 and g.position().states[3] == FLAG and g.flags == 1
    g.reveal(0)
    assert g.outcome == "won" and g.hits == 1


def test_the_hit_after_the_last_life_loses() -> None:
    g = Game.from_layout(3, 3, [0, 8], lives=1)
    g.reveal(0)
    assert g.outcome == "playing"
    g.reveal(8)
    assert g.outcome == "lost" and g.exploded == 8 and g.hits == 1


def test_a_wrong_chord_uses_a_life() -> None:
    g = Game.from_layout(3, 1, [2], lives=2)
    g.reveal(1)
    g.flag(0)  # wrong: the mine is at 2
    g.chord(1)
    assert g.outcome == "playing" and g.hits == 1 and g.position().states[2] == FLAG


def test_negative_lives_are_refused() -> None:
    try:
        Game(9, 9, 10, lives=-1)
    except SizeError as e:
        assert "lives" in str(e)
    else:
        raise AssertionError("no error")


def test_a_record_with_lives_replays_its_hits() -> None:
    g = Game.from_layout(4, 1, [3], lives=1)
    g.reveal(3)
    g.reveal(0)
    rec = GameRecord.from_json(json.loads(json.dumps(GameRecord.from_game(g).to_json())))
    assert rec.lives == 1 and rec.replay().outcome == "won"


def _random_position(seed: int, side: int, density: float, opens: int) -> tuple[Game, list]:  # type: ignore[type-arg]
    rng = random.Random(seed)
    mines = max(1, int(side * side * density))
    g = Game(side, side, mines, rule="zero", seed=seed, lives=10**6)
    g.reveal(g.geometry.cell(side // 2, side // 2))
    positions = [g.position()]
    layout = set(g.mine_cells())
    for _ in range(opens):
        covered = [c for c in range(side * side) if g.position().states[c] == COVERED and c not in layout]
        if not covered or g.over:
            break
        g.reveal(rng.choice(covered))
        hidden = [c for c in layout if g.position().states[c] == COVERED]
        if rng.random() < 0.3 and hidden and not g.over:
            g.reveal(rng.choice(hidden))  # a hit: marked with a flag
        positions.append(g.position())
    return g, positions


def _closure(eng: LocalEngine) -> None:
    while eng.count():
        pass


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**9), side=st.integers(6, 16), density=st.floats(0.1, 0.3), opens=st.integers(0, 6)
)
def test_local_engine_proves_only_what_the_exact_engine_proves(
    seed: int, side: int, density: float, opens: int
) -> None:
    g, positions = _random_position(seed, side, density, opens)
    p = positions[-1]
    eng = LocalEngine(p.width, p.height, p.mines)
    eng.update(p)
    _closure(eng)
    a = analyze(p)  # flags here are true mines (hits), so trusting them is right
    layout = set(g.mine_cells())
    assert eng.safe <= a.safe and not (eng.safe & layout)
    assert {c for c in eng.mines if p.states[c] == COVERED} <= a.mines
    assert eng.mines <= layout


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**9), side=st.integers(6, 14), density=st.floats(0.1, 0.3), opens=st.integers(1, 6)
)
def test_following_a_game_move_by_move_equals_starting_from_its_last_position(
    seed: int, side: int, density: float, opens: int
) -> None:
    _, positions = _random_position(seed, side, density, opens)
    inc = LocalEngine(side, side, positions[0].mines)
    for p in positions:
        inc.update(p)
        _closure(inc)
    fresh = LocalEngine(side, side, positions[0].mines)
    fresh.update(positions[-1])
    _closure(fresh)
    assert inc.safe == fresh.safe and inc.mines == fresh.mines and inc.unknown == fresh.unknown
    # the frontier probabilities of both are counts of the same components; density may differ
    assert set(inc.prob) == set(fresh.prob)


def test_fast_plays_a_board_above_the_local_threshold_to_the_end_with_lives() -> None:
    side = 80
    assert side * side > LOCAL_CELLS
    spec = GameSpec(0, side, side, int(0.15 * side * side), "safe", 0, "huge/0", None, 10_000)
    r = play_game(spec, "fast")
    assert r.won  # with lives to spare, the board is cleared
    assert r.moves > 100
    # and without lives the same board is played as usual: it ends, won or lost
    r0 = play_game(GameSpec(0, side, side, int(0.15 * side * side), "safe", 0, "huge/0"), "fast")
    assert r0.hits == 0 and (r0.won or r0.moves < r.moves)


def test_cli_bench_lives(capsys) -> None:  # type: ignore[no-untyped-def]
    code = main(
        ["bench", "--size", "90x90x1200", "--games", "2", "--player", "fast", "--lives", "1000", "--json"]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["lives"] == 1000 and out["wins"] == 2 and out["hits_per_game"] >= 0
    assert main(["bench", "--preset", "beginner", "--lives", "-1"]) == 2


def test_local_engine_sees_a_rewound_position_as_a_new_game() -> None:
    from demine.players.best import FastPlayer

    side = 75
    g = Game(side, side, 800, rule="zero", seed=3)
    g.reveal(g.geometry.cell(30, 30))
    p1 = g.position()
    player = FastPlayer()
    d1 = player.decide(p1, random.Random(0))
    for mv in d1.moves:
        g.play(mv)
        if g.over:
            break
    player.decide(g.position(), random.Random(0))
    # back to the first position: the player starts over instead of failing
    again = player.decide(p1, random.Random(0))
    assert [m.cell for m in again.moves] == [m.cell for m in d1.moves]
    assert all(isinstance(m, Move) for m in again.moves)
