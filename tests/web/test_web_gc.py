"""The server process settled at startup (``app.settled``): its own objects frozen out of the
cyclic collector's sight (its full collections stalled every request for 42-100 ms under the abuse
benchmark, research log 12 part h), and its GIL switch interval shortened, in each process of
``serve --processes N`` too (part i)."""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from demine.web import app as web_app
from demine.web.limits import ServeLimits


@pytest.fixture
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()  # (the test process's objects go back to the collector)


def test_settled_freezes_what_exists_and_still_collects_what_comes_after(
    unfrozen: None, tmp_path: Path
) -> None:
    app = web_app.create_app(str(tmp_path / "games.db"), 0)
    assert gc.get_freeze_count() == 0
    assert web_app.settled(app) is app
    assert gc.get_freeze_count() > 1000  # (the modules, the app and its routes)
    assert not any(o is app for o in gc.get_objects())  # (frozen objects are out of the collector's sight)

    class Cycle:
        me: Any = None

    c = Cycle()
    c.me = c
    del c
    assert gc.collect() > 0  # (a cycle made after the freeze is collected as before)


def test_serve_runs_the_settled_app(unfrozen: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from demine.web import server

    ran: list[Any] = []
    monkeypatch.setattr(server, "run", lambda app, *args, **kw: ran.append((app, gc.get_freeze_count())))
    web_app.serve(db=tmp_path / "games.db", workers=0)
    assert len(ran) == 1 and ran[0][1] > 1000
    assert not any(o is ran[0][0] for o in gc.get_objects())


def test_settled_shortens_the_switch_interval_with_workers(unfrozen: None, tmp_path: Path) -> None:
    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)
        app = web_app.create_app(str(tmp_path / "games.db"), 0)
        web_app.settled(app)
        assert sys.getswitchinterval() == pytest.approx(0.005)  # (no workers: left as it was)
        app.state.service.workers = 2  # (as a server with workers; none started here)
        web_app.settled(app)
        assert sys.getswitchinterval() == pytest.approx(web_app.SWITCH_INTERVAL)
    finally:
        sys.setswitchinterval(before)


def test_each_process_of_serve_processes_runs_settled(
    unfrozen: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``serve --processes N`` spawns its processes: each makes its app in
    ``app_from_environment``, which must settle it (the switch interval and the freeze are the
    process's own: nothing set in ``serve``'s process reaches them)."""
    from demine.web import server

    settled: list[Any] = []
    monkeypatch.setattr(server, "die_with_parent", lambda parent: None)
    monkeypatch.setattr(web_app, "settled", lambda app: settled.append(app) or app)
    limits = dataclasses.asdict(ServeLimits())
    settings = {"db": str(tmp_path / "games.db"), "workers": 0, "limits": limits, "parent": os.getpid()}
    monkeypatch.setenv(web_app.SERVE_ENV, json.dumps(settings))
    app = web_app.app_from_environment()
    assert settled == [app]
    app.state.service.close()
