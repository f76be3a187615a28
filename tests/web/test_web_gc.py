"""The server process's own objects frozen out of the cyclic collector's sight at startup
(``app.settled``): its full collections stalled every request for 42-100 ms under the abuse
benchmark (research log 12 part h)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from demine.web import app as web_app


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
