"""benchmarks/losses.py and benchmarks/endgame_time.py: what they count is what the games hold."""

from __future__ import annotations

import sys

import pytest

from demine.bench import generated_specs, play_game
from demine.engine.formats import GameRecord
from tests.helpers import benchmark_script


def test_the_guesses_counted_by_reason_are_the_games_own_guesses() -> None:
    with benchmark_script("losses") as losses:
        for spec in generated_specs(30, 16, 99, "safe", None, 6, "lossguess"):
            result = play_game(spec, "best", keep_record=True)
            assert result.game is not None
            found = list(losses._guesses(GameRecord.from_json(result.game)))
            assert len(found) == result.guesses
            assert all(reason not in ("safe", "start") for _, reason in found)


def test_endgame_time_times_each_search_that_runs(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with benchmark_script("endgame_time") as script:
        monkeypatch.setattr(sys, "argv", ["endgame_time.py", "--games", "20", "--seed", "speed-f"])
        script.main()
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.split()[:1] == ["current"]]
    assert [r[3] for r in rows] == ["exact", "sampled"]
    # these 20 expert games make both kinds (the seed picked for it: with the endgame exact to
    # 2,500 layouts, few games reach a sampled search)
    assert int(rows[0][4]) > 0 and int(rows[1][4]) > 0


def test_endgame_time_names_an_unknown_variant(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with benchmark_script("endgame_time") as script:
        monkeypatch.setattr(sys, "argv", ["endgame_time.py", "nosuch"])
        with pytest.raises(SystemExit):
            script.main()
    assert "unknown variant 'nosuch'" in capsys.readouterr().err
