"""benchmarks/noguess_reach.py: the climb, its record (resumed, not played again) and the table
the server refuses by."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tests.helpers import BENCHMARKS, benchmark_script


@pytest.fixture
def reach() -> Iterator[ModuleType]:
    with benchmark_script("noguess_reach") as module:
        yield module


def _row(size: str, mines: int, seed: int, found: bool) -> dict[str, object]:
    return {"size": size, "rule": "safe", "mines": mines, "seed": seed, "found": found, "load": 1.0}


def test_the_table_refuses_the_first_run_of_misses_up_to_where_boards_are_found_again(
    reach: ModuleType,
) -> None:
    ns = argparse.Namespace(stop=2, budget=5.0, seeds=2)
    # found, found by one seed, one miss (not a run), found, two misses, found at a spot far above
    pattern = {10: [1, 1], 11: [0, 1], 12: [0, 0], 13: [1, 0], 14: [0, 0], 15: [0, 0], 20: [0, 0], 30: [1, 1]}
    rows = [_row("8x8", m, s, bool(f)) for m, fs in pattern.items() for s, f in enumerate(fs)]
    rows += [_row("6x6", m, 0, True) for m in (5, 6, 7)]  # found all the way
    table = reach.ship(rows, ns)["sizes"]
    assert table["8x8"]["safe"] == {"found": 13, "refused": 14, "refused_to": 20}
    assert table["6x6"]["safe"] == {"found": 7, "refused": None, "refused_to": None}


def test_a_climb_is_recorded_resumed_and_shipped(tmp_path: Path) -> None:
    record, shipped = tmp_path / "reach.jsonl", tmp_path / "reach.json"
    cmd = [sys.executable, str(BENCHMARKS / "noguess_reach.py"), "--sizes", "6x6", "--rules", "zero"]
    cmd += ["--seeds", "1", "--step", "20", "--start", "20", "--record", str(record)]
    first = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=True)
    tries = record.read_text().splitlines()
    assert tries and first.stdout.count("found") == len(tries)  # a line a count, a try a line
    again = subprocess.run(
        [*cmd, "--ship", str(shipped)], capture_output=True, text=True, timeout=300, check=True
    )
    assert record.read_text().splitlines() == tries  # nothing played again
    data = json.loads(shipped.read_text())
    found = max(json.loads(t)["mines"] for t in tries if json.loads(t)["found"])
    assert data["sizes"]["6x6"]["zero"]["found"] == found and data["budget_seconds"] == 5.0
    assert "wrote" in again.stdout
