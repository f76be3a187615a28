"""An X display for the live tests: Xvfb on a free display number (``-displayfd``), one for the
module that asks for it, ended afterwards.

A test that needs Xvfb, the screen extra or a program skips, saying which is missing, unless
``DEMINE_REQUIRE_SCREEN=1`` (set by ``.ci/run``, which installs them): then it fails instead.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Iterator

import pytest

REQUIRED = os.environ.get("DEMINE_REQUIRE_SCREEN") == "1"


def missing(why: str) -> None:
    """Skip (or, with DEMINE_REQUIRE_SCREEN=1, fail) for ``why``."""
    if REQUIRED:
        pytest.fail(f"DEMINE_REQUIRE_SCREEN=1 but {why}")
    pytest.skip(why)


def need_program(name: str) -> None:
    """Skip unless the program ``name`` of demine.screen.programs is installed."""
    from demine.screen.programs import PROGRAMS

    program = PROGRAMS[name]
    if not program.installed():
        missing(f"{program.title} is not installed ({program.binary}; apt-get install {program.package})")


@pytest.fixture(scope="module")
def xdisplay() -> Iterator[str]:
    """The name of a fresh Xvfb display (1280x800, 24 bits)."""
    for module, lib in (("Xlib", "python-xlib"), ("mss", "mss"), ("numpy", "numpy"), ("PIL", "Pillow")):
        if importlib.util.find_spec(module) is None:
            missing(f"{lib} is not installed (the screen extra)")
    if shutil.which("Xvfb") is None:
        missing("Xvfb is not installed (apt-get install xvfb)")
    from demine.screen.x11 import xvfb

    with xvfb("1280x800x24") as name:
        yield name
