"""The analysis board's layout count reads like the command line's: 5.6e104, not 105 digits."""

from __future__ import annotations

import json
import shutil
import subprocess
from math import comb
from pathlib import Path

import pytest

from demine.text import big_count

ANALYSIS_JS = Path(__file__).resolve().parents[2] / "src" / "demine" / "web" / "static" / "analysis.js"


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed (runs the page's module)")
def test_the_page_shows_big_counts_as_the_command_line_does() -> None:
    counts = [1, 165, 10**12 - 1, 10**12, comb(480, 99), 996 * 10**50, 10**98]
    script = (
        f"const m = await import({json.dumps(ANALYSIS_JS.as_uri())});"
        f"console.log(JSON.stringify({json.dumps([str(c) for c in counts])}.map(m.layouts)));"
    )
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60, check=True
    )
    shown = json.loads(done.stdout)
    assert shown[0] == "1 layout"
    assert shown[1:] == [f"{big_count(c)} layouts" for c in counts[1:]]
    assert shown[4] == "5.6e104 layouts"
