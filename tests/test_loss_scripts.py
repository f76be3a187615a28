"""benchmarks/losses.py and benchmarks/endgame_time.py: what they count is what the games hold."""

from __future__ import annotations

import sys

import pytest

import demine.players.best as best
from demine.bench import generated_specs, play_game
from demine.engine.formats import GameRecord
from demine.engine.position import COVERED
from tests.helpers import benchmark_script


def test_the_guesses_counted_by_reason_are_the_games_own_guesses() -> None:
    with benchmark_script("losses") as losses:
        for spec in generated_specs(30, 16, 99, "safe", None, 6, "lossguess"):
            result = play_game(spec, "best", keep_record=True)
            assert result.game is not None
            found = list(losses._guesses(GameRecord.from_json(result.game)))
            assert len(found) == result.guesses
            assert all(reason not in ("safe", "start") for _, reason in found)


def test_few_off_counts_the_look_ahead_guesses_with_few_cells_off_the_frontier(
    capsys: pytest.CaptureFixture[str],
) -> None:
    records = []
    for spec in generated_specs(30, 16, 99, "safe", None, 12, "fewoff"):
        result = play_game(spec, "best", keep_record=True)
        assert result.game is not None
        records.append(GameRecord.from_json(result.game))
    with benchmark_script("losses") as losses:
        # counted here without the script's helpers: a covered cell no revealed number touches
        look_aheads, offs = 0, []
        for record in records:
            for k, m in enumerate(record.moves):
                note = record.note(k)
                if m.kind != "reveal" or not note or note[0] != "look-ahead":
                    continue
                look_aheads += 1
                p = record.replay(k).position()
                nb = p.geometry.neighbours
                offs.append(
                    sum(
                        1
                        for c in range(p.cells)
                        if p.states[c] == COVERED and min(p.states[d] for d in nb(c)) >= COVERED
                    )
                )
        for most in (30, 400):
            losses._few_off(records, most)
            out = capsys.readouterr().out
            few = sum(1 for n in offs if 1 <= n <= most)
            assert (
                out.strip()
                == f"{look_aheads} look-ahead guesses; {few} with 1 to {most} covered cells off the frontier"
            )
    assert 0 < sum(1 for n in offs if 1 <= n <= 30) < sum(1 for n in offs if 1 <= n <= 400) < look_aheads + 1


def test_endgame_time_times_searches_and_puts_best_back(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    exact, sampled = best.endgame, best.sampled_endgame
    with benchmark_script("endgame_time") as script:
        # a search runs only inside its range of layouts
        assert script._in_range("exact", best.ENDGAME_LAYOUTS)
        assert not script._in_range("exact", best.ENDGAME_LAYOUTS + 1)
        assert script._in_range("sampled", best.ENDGAME_LAYOUTS + 1)
        assert not script._in_range("sampled", best.SAMPLED_LAYOUTS + 1)
        assert not script._in_range("exact", 1) and not script._in_range("exact", None)
        monkeypatch.setattr(sys, "argv", ["endgame_time.py", "--games", "20", "--seed", "speed"])
        script.main()
    assert (best.endgame, best.sampled_endgame) == (exact, sampled)
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.split()[:1] == ["current"]]
    assert [r[3] for r in rows] == ["exact", "sampled"]
    assert int(rows[0][4]) > 0 and int(rows[1][4]) > 0  # these 20 expert games make both kinds


def test_endgame_time_names_an_unknown_variant(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with benchmark_script("endgame_time") as script:
        monkeypatch.setattr(sys, "argv", ["endgame_time.py", "nosuch"])
        with pytest.raises(SystemExit):
            script.main()
    assert "unknown variant 'nosuch'" in capsys.readouterr().err
