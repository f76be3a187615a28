"""benchmarks/pool_records.py: runs of one player on other seeds pooled, and only those."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from demine.bench import wilson
from demine.cli import main
from tests.helpers import benchmark_script

BASE = ["bench", "--preset", "beginner", "--player", "fast", "--games", "30"]


@pytest.fixture
def pool() -> Iterator[ModuleType]:
    with benchmark_script("pool_records") as module:
        yield module


def _record(path: Path, *args: str) -> dict[str, int]:
    assert main([*BASE, *args, "--record", str(path)]) == 0
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    return {"games": len(lines), "wins": sum(x["won"] for x in lines)}


def test_runs_on_other_seeds_add_up_to_one_interval(
    pool: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _record(tmp_path / "a.jsonl", "--seed", "a")
    b = _record(tmp_path / "b.jsonl", "--seed", "b", "--games", "50")
    capsys.readouterr()
    got = pool.pooled([tmp_path / "a.jsonl", tmp_path / "b.jsonl"])
    wins = a["wins"] + b["wins"]
    assert (got["games"], got["wins"]) == (80, wins) and got["ci95"] == list(wilson(wins, 80))
    assert [r["seed"] for r in got["runs"]] == ["a", "b"] and got["player"] == "fast"
    assert got["run"] == {"board": "9x9/10", "rule": "safe", "start": "0,0"}


def test_a_run_of_another_player_board_or_the_same_seed_is_refused(
    pool: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _record(tmp_path / "a.jsonl", "--seed", "a")
    _record(tmp_path / "again.jsonl", "--seed", "a", "--games", "5")
    _record(tmp_path / "exact.jsonl", "--seed", "e", "--player", "exact", "--games", "5")
    _record(tmp_path / "zero.jsonl", "--seed", "z", "--rule", "zero", "--games", "5")
    for other, message in [
        ("again", "are both seed 'a': the same boards twice"),
        ("exact", "line 1: a game of exact, and"),
        ("zero", "line 1: another run than"),
    ]:
        with pytest.raises(SystemExit, match=message) as e:
            pool.pooled([tmp_path / "a.jsonl", tmp_path / f"{other}.jsonl"])
        assert f"{other}.jsonl" in str(e.value)
    with pytest.raises(SystemExit, match=r"rule: 'zero' \(a\.jsonl: 'safe'\)"):
        pool.pooled([tmp_path / "a.jsonl", tmp_path / "zero.jsonl"])
