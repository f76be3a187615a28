"""Checks that hold for the whole test run.

A test run must leave no file in the working directory (pytest's own caches and Python's
bytecode aside): a test writes to ``tmp_path``. A third-party library that writes where it runs
(ms-toollib's ``crash.log``) is run somewhere else. The check fails the run, naming the files.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

#: Folders a test run may create or change: caches, bytecode, virtualenvs, version control.
IGNORED = {
    ".git",
    ".venv",
    "venv",
    "__pycache__",
    ".pytest_cache",
    ".hypothesis",
    ".mypy_cache",
    ".ruff_cache",
    "node_modules",
}


def files_under(root: Path) -> set[str]:
    """Every file below ``root`` (relative paths), outside the :data:`IGNORED` folders."""
    found: set[str] = set()
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in IGNORED]
        rel = Path(folder).relative_to(root)
        found.update(str(rel / f) for f in files)
    return found


@pytest.fixture(scope="session", autouse=True)
def no_files_left_in_the_working_directory() -> Iterator[None]:
    """Fails the run if the tests left new files in the directory pytest was started in."""
    root = Path.cwd()
    before = files_under(root)
    yield
    left = sorted(files_under(root) - before)
    if left:
        pytest.fail(
            f"the tests left {len(left)} file(s) in the working directory {root}: "
            + ", ".join(left[:20])
            + ": write to tmp_path instead",
            pytrace=False,
        )
