"""Tests say what they skip: without a browser, each browser test is skipped on its own, with the
reason, so the run's count shows every test it did not run (not one skip for the module)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
BROWSER_TESTS = "tests/web/test_web_browser.py"


def _pytest(*args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "DEMINE_REQUIRE_BROWSER"}
    env["DEMINE_CHROMIUM"] = "/no/such/chromium"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rs", BROWSER_TESTS, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return done.stdout


def test_without_a_browser_each_browser_test_is_skipped_with_its_reason() -> None:
    tests = re.findall(r"^def test_", (ROOT / BROWSER_TESTS).read_text(encoding="utf-8"), flags=re.M)
    assert len(tests) > 1
    out = _pytest()
    found = re.search(r"^(\d+) skipped", out, flags=re.M)
    assert found is not None and int(found.group(1)) >= len(tests), out  # one skip a test at least
    reasons = [line for line in out.splitlines() if line.startswith("SKIPPED")]
    assert len(reasons) == int(found.group(1))
    assert all("no Chromium at /no/such/chromium" in line for line in reasons)
