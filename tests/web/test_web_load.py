"""benchmarks/web_load.py's ``--timeline``: where a phase's slowest turns fell and what each abuser
was doing then (docs/research/web-abuse.md, part k)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tests.helpers import benchmark_script

pytest.importorskip("aiohttp")  # (the benchmark's client: the test extra installs it)


@pytest.fixture
def web_load() -> Iterator[ModuleType]:
    with benchmark_script("web_load") as module:
        yield module


def test_requests_in_flight_and_answered_during_turns(web_load: ModuleType) -> None:
    # requests (sent, answered): one spanning both turns, one answered inside the second only
    sent, ended = [0.0, 10.05], [20.0, 10.08]
    order = sorted(range(2), key=lambda k: sent[k])
    turns = [(1.0, 100.0), (10.0, 100.0)]  # (start, ms): 1.0-1.1 s and 10.0-10.1 s
    busy, done = web_load._around(turns, [sent[k] for k in order], sorted(ended[k] for k in range(2)))
    assert busy == pytest.approx((1 + 2) / 2)
    assert done == pytest.approx((0 + 1) / 2)
    # a request answered before a turn began or sent after it ended is not counted
    assert web_load._around([(5.0, 10.0)], [0.0, 6.0], [1.0, 7.0]) == (0.0, 0.0)


def test_the_timeline_names_the_abuser_busy_during_the_slow_turns(
    web_load: ModuleType, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    stats = web_load.Stats()
    for k in range(200):  # a turn every 0.1 s of 10 ms; two of 90 ms at 5.0 and 5.2 s
        slow = k in (50, 52)
        stats.turn_at.append(1000.0 + k / 10)
        stats.turn.append(90.0 if slow else 10.0)
    abuse = web_load.Abuse([], ["flood", "reviews"])
    for k in range(30):  # a burst of 30 floods answered during the slow turns, reviews all along
        abuse.events.append(("flood", 1005.0 + k * 0.002, 1005.01 + k * 0.002, 200))
    for k in range(20):
        abuse.events.append(("reviews", 1000.0 + k, 1000.5 + k, 200))
    abuse.status["flood"][200] = 30
    path = tmp_path / "t.jsonl"
    web_load.timeline("with abusers", stats, abuse, str(path))
    out = capsys.readouterr().out
    assert "2 turns >= p99 (90.0 ms) in 1 of 20 seconds" in out, out
    assert " 0 0 0 0 0 2 0 " in out
    flood = next(line for line in out.splitlines() if line.strip().startswith("flood:"))
    # the burst (5.00-5.07 s) lies within the first slow turn (5.00-5.09 s), not the second: 30 and
    # 0 in flight and answered, 15 a slow turn; over all 200 turns only the first had any
    assert "in flight 15.00 in a slow turn, 0.15 in any; answered 15.000 / 0.150" in flood, flood
    reviews = next(line for line in out.splitlines() if line.strip().startswith("reviews:"))
    assert "answered 0.000 / " in reviews, reviews  # none answered at 5.0-5.3 s
    written = json.loads(path.read_text())
    assert written["phase"] == "with abusers" and len(written["turns"]) == 200
    assert len(written["abusers"]) == 50


def test_a_timeline_file_that_cannot_be_written_is_named_before_any_load(tmp_path: Path) -> None:
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "web_load.py"
    target = tmp_path / "no such folder" / "t.jsonl"
    done = subprocess.run(
        [sys.executable, str(script), "--timeline", str(target)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and f"--timeline {target}: No such file or directory" in done.stderr
    assert "Traceback" not in done.stderr
