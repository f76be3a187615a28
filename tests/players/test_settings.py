"""best's settings as a value: passed in, parsed from text, carried to worker processes."""

from __future__ import annotations

import json
import pickle
from fractions import Fraction

import pytest

from demine import BestSettings, InputError, PlayerSpec, best_move, find_solver
from demine.analysis import Limit
from demine.bench import generated_specs, run_games
from demine.cli import main
from demine.players.best import BestPlayer
from demine.players.best.settings import HINT_SETTINGS

EXPERT = generated_specs(30, 16, 99, "safe", None, 8, "settings")


#: No time budget, so the moves compared do not depend on the machine's load.
UNTIMED = Limit()


def _moves(player: PlayerSpec, jobs: int = 1, start_method: str | None = None) -> list[list[list[int]]]:
    results = run_games(EXPERT, player, jobs=jobs, chunk=2, keep_record=True, start_method=start_method)
    return [[m[:3] for m in r.game["moves"]] for r in results if r.game is not None]


def test_the_defaults_are_the_adopted_values_and_repr_round_trips() -> None:
    s = BestSettings()
    assert (s.depth, s.endgame_layouts, s.sampled_layouts, s.long_term_risk) == (3, 2500, 10_000, True)
    assert (s.endgame_sample, s.endgame_nodes) == (2500, 600_000)
    # a hint a person waits for keeps the smaller endgame it had (its searches are bounded by
    # nodes, not by the hint's time budget)
    hint = HINT_SETTINGS
    assert (hint.endgame_layouts, hint.sampled_layouts, hint.endgame_sample, hint.endgame_nodes) == (
        1000,
        5000,
        1000,
        200_000,
    )
    assert (
        hint.replace(endgame_layouts=2500, sampled_layouts=10_000, endgame_sample=2500, endgame_nodes=600_000)
        == s
    )
    changed = BestSettings(depth=2, credit_weight=Fraction(1, 3), far_off=False)
    assert eval(repr(changed)) == changed
    assert pickle.loads(pickle.dumps(changed)) == changed


def test_bad_settings_name_what_is_wrong() -> None:
    with pytest.raises(InputError, match="depth must be 2 or 3, got 5"):
        BestSettings(depth=5)
    with pytest.raises(InputError, match="max_candidates must be a whole number >= 0"):
        BestSettings(max_candidates=-1)
    with pytest.raises(InputError, match="--set 'deep=2': expected NAME=VALUE with NAME one of"):
        BestSettings.parse(["deep=2"])
    with pytest.raises(InputError, match="--set far_off='maybe': not a valid bool"):
        BestSettings.parse(["far_off=maybe"])
    with pytest.raises(InputError, match="player 'random' has no settings"):
        PlayerSpec("random", BestSettings())


def test_two_settings_play_side_by_side_in_one_process() -> None:
    # depth 2 and depth 3 choose differently somewhere on these boards, whichever is made first
    # (no time budget: on a loaded machine a 2 s budget could cut depth 3 down to depth 2)
    a, b = BestPlayer(BestSettings(depth=2)), BestPlayer(BestSettings())
    assert (a.settings.depth, b.settings.depth) == (2, 3)
    depth2 = PlayerSpec("best", BestSettings(depth=2), limit=UNTIMED)
    assert _moves(depth2) != _moves(PlayerSpec("best", limit=UNTIMED))


def test_a_variant_reaches_spawned_worker_processes() -> None:
    # under spawn a worker imports demine afresh: only what the spec carries can reach it
    variant = PlayerSpec("best", BestSettings(depth=2), limit=UNTIMED)
    here = _moves(variant)
    assert _moves(variant, jobs=2, start_method="spawn") == here
    assert here != _moves(PlayerSpec("best", limit=UNTIMED))


def test_the_hint_takes_settings() -> None:
    from demine import Position

    p = Position.from_text("5x3x3\n1HHHH\nHHHHH\nHHHHH\n")
    exact = best_move(p)
    assert exact.reason == "endgame"
    # with the endgame searches off, the look-ahead answers
    assert best_move(p, settings=BestSettings(endgame_layouts=1, sampled_layouts=0)).reason != "endgame"


def test_bench_set_names_a_settings_value(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bench", "--preset", "beginner", "--games", "5", "--seed", "s1", "--json"]
    assert main([*args, "--set", "depth=2", "--set", "far_off=no"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["player"] == "best(depth=2, far_off=False)"
    assert main([*args, "--compare", "best,best(depth=2)"]) == 0
    both = json.loads(capsys.readouterr().out)
    assert [o["player"] for o in both] == ["best", "best(depth=2)"]
    assert main([*args, "--player", "exact", "--set", "depth=2"]) == 2
    assert "none of exact takes settings" in capsys.readouterr().err
    assert main([*args, "--player", "fast", "--set", "depth=2"]) == 2
    assert "expected NAME=VALUE with NAME one of two_step" in capsys.readouterr().err


def test_a_spec_makes_its_player() -> None:
    player = find_solver(PlayerSpec("best", BestSettings(depth=2)))
    assert isinstance(player, BestPlayer) and player.settings.depth == 2
    assert str(PlayerSpec.parse("best(depth=2)")) == "best(depth=2)"
    with pytest.raises(InputError, match="unknown player 'nosuch'"):
        PlayerSpec.parse("nosuch(depth=2)")
