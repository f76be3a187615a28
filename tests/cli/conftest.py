"""Fixtures the command-line tests share."""

from __future__ import annotations

from pathlib import Path

import pytest

from demine.cli import main


@pytest.fixture(scope="session")
def three_games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bench record of three beginner games with their moves (for review, replay)."""
    rec = tmp_path_factory.mktemp("rec") / "games.jsonl"
    args = ["bench", "--preset", "beginner", "--games", "3", "--seed", "5", "--player", "fast"]
    assert main([*args, "--record", str(rec), "--record-moves"]) == 0
    return rec
