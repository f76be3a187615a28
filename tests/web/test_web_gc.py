"""The server process settled at startup (``app.settled``): its own objects frozen out of the
cyclic collector's sight (its full collections stalled every request for 42-100 ms under the abuse
benchmark, docs/research/web-abuse.md, part h), and its GIL switch interval shortened, in each process of
``serve --processes N`` too (part i)."""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import subprocess
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
    thresholds = gc.get_threshold()
    gc.unfreeze()
    yield
    gc.unfreeze()  # (the test process's objects go back to the collector)
    gc.set_threshold(*thresholds)


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


def test_collector_thresholds_change_only_the_full_collections() -> None:
    assert web_app.collector_thresholds((700, 10, 10), 100) == (700, 10, 100)
    assert web_app.collector_thresholds((2000, 5, 7), 1) == (2000, 5, 1)


@pytest.mark.parametrize("every", [3, 100])
def test_settled_sets_the_full_collections_it_is_given(unfrozen: None, tmp_path: Path, every: int) -> None:
    gc.set_threshold(700, 10, 10)
    app = web_app.create_app(str(tmp_path / "games.db"), 0, ServeLimits(full_collection_every=every))
    assert gc.get_threshold() == (700, 10, 10)  # (making the app leaves them)
    web_app.settled(app)
    assert gc.get_threshold() == (700, 10, every)
    app.state.service.close()


def test_serve_passes_full_collection_every(monkeypatch: pytest.MonkeyPatch) -> None:
    import demine.web.app
    from demine.cli import main

    got: list[ServeLimits] = []
    monkeypatch.setattr(demine.web.app, "serve", lambda *args: got.append(args[4]))
    assert main(["serve"]) == 0
    assert main(["serve", "--full-collection-every", "7"]) == 0
    assert [g.full_collection_every for g in got] == [ServeLimits().full_collection_every, 7]
    with pytest.raises(SystemExit):
        main(["serve", "--full-collection-every", "0"])


def test_settled_freezes_the_modules_a_server_imports_once_it_serves(tmp_path: Path) -> None:
    """In a fresh process (as ``serve``'s): uvicorn's loop and lifespan, anyio's backend and the
    threads of ``asyncio.to_thread`` were imported only after the freeze, and every full
    collection walked them; ``settled`` imports them first."""
    code = f"""if True:
        import gc, sys
        from demine.web import app as web_app
        app = web_app.create_app({str(tmp_path / "games.db")!r}, 0)
        before = [n for n in web_app.SERVING_MODULES if n in sys.modules]
        web_app.settled(app)
        seen = {{id(o) for o in gc.get_objects()}}
        walked = [n for n in web_app.SERVING_MODULES if id(sys.modules[n]) in seen]
        print(before, walked, gc.get_threshold()[2])
        app.state.service.close()
    """
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[0] == f"[] [] {ServeLimits().full_collection_every}"
