"""A real PostgreSQL server for the store's tests, started by the tests themselves
(:mod:`tests.pg_server`) for the whole session; each test gets a database of its own.

Tests that ask for it are skipped when the server or psycopg is missing, unless
``DEMINE_REQUIRE_POSTGRES=1`` (set by ``.ci/run``, which installs both), where they fail instead.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.pg_server import PostgresServer, missing

REQUIRED = os.environ.get("DEMINE_REQUIRE_POSTGRES") == "1"


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    why = missing()
    if why is not None:
        if REQUIRED:
            pytest.fail(f"DEMINE_REQUIRE_POSTGRES=1 but {why}")
        pytest.skip(why)
    try:
        server = PostgresServer().start()
    except RuntimeError as e:
        pytest.fail(str(e))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """The address of a new, empty database on the tests' server."""
    return postgres_server.new_database()


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Each store in turn: a SQLite file, then a PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "games.db")
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server.new_database()


# ---------------------------------------------------------------- the browser tests' fixtures
# Playwright drives Debian's Chromium against a live server. Each test that asks for these is
# skipped when Playwright, the web extras or /usr/bin/chromium are missing, unless
# DEMINE_REQUIRE_BROWSER=1 (set by .ci/run, which installs Chromium): then it fails instead.

CHROMIUM = os.environ.get("DEMINE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    for mod in ("fastapi", "uvicorn", "playwright"):
        try:
            __import__(mod)
        except ImportError:
            return f"{mod} is not installed"
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    return None


def require_browser() -> None:
    why = browser_missing()
    if why is not None:
        if os.environ.get("DEMINE_REQUIRE_BROWSER") == "1":
            pytest.fail(f"DEMINE_REQUIRE_BROWSER=1 but {why}")
        pytest.skip(why)


@dataclass
class LiveServer:
    """A demine server on a free loopback port, for one test module."""

    url: str
    app: Any

    @property
    def service(self) -> Any:
        return self.app.state.service


@contextmanager
def serving(app: Any) -> Iterator[LiveServer]:
    """``app`` served by uvicorn on a free port of this machine, in a thread, while in the block."""
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    t = threading.Thread(target=srv.run, daemon=True)
    t.start()
    deadline = time.monotonic() + 15
    while not srv.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.05)
    try:
        yield LiveServer(f"http://127.0.0.1:{port}", app)
    finally:
        srv.should_exit = True
        t.join(timeout=10)


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The app with its default limits, for one test module."""
    require_browser()
    from demine.web.app import create_app

    with serving(create_app(tmp_path_factory.mktemp("web") / "games.db")) as live:
        yield live


@pytest.fixture(scope="module")
def server(live_server: LiveServer) -> str:
    return live_server.url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        from playwright.sync_api import expect

        expect.set_options(timeout=EXPECT_TIMEOUT_MS)
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        b.devices = p.devices  # the phones' descriptors ("iPhone 13", "Pixel 7"), for contexts
        yield b
        b.close()


#: What the pages of the running test did that a failure report shows: each answer of 400 or
#: more, each request that failed, each console error (their times from the test's start).
PAGE_LOG: list[str] = []


@dataclass
class _Running:
    """The browser test running now: its id and when it started."""

    nodeid: str = ""
    start: float = 0.0


_RUNNING = _Running()

#: How long a page may wait for what a test expects (Playwright's default is 5 s). A full run on
#: CI's two cores, with the rest of the suite before it, once saw three new games not come within
#: 5 s; a wait ends as soon as its condition holds, so a passing test is no slower for it.
EXPECT_TIMEOUT_MS = 15_000

#: A request that took longer than this (ms) is named at the end of the run (:data:`SLOW`), so a
#: slow answer is seen even where the longer wait let its test pass.
SLOW_MS = 2_000
SLOW: list[str] = []


def _timed(request: Any) -> None:
    took = request.timing.get("responseEnd", -1)
    if took > SLOW_MS:
        SLOW.append(f"{_RUNNING.nodeid}: {request.method} {request.url} took {took / 1000:.1f} s")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The browser tests' slow requests, if any (:data:`SLOW_MS`)."""
    if SLOW:
        terminalreporter.section("slow page requests")
        for line in SLOW:
            terminalreporter.write_line(line)


def _logged(text: str) -> None:
    PAGE_LOG.append(f"{time.monotonic() - _RUNNING.start:8.2f} s  {text}")


def open_page(browser: Any, **context: Any) -> Iterator[Any]:
    """A page in a new context; fails the test if the page raised a script error. What the page
    did wrong on the network, and its console errors, go into a failure's report
    (:func:`pytest_runtest_makereport`)."""
    ctx = browser.new_context(**context)
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("requestfailed", lambda r: _logged(f"failed: {r.method} {r.url}: {r.failure}"))
    pg.on("response", lambda r: r.status >= 400 and _logged(f"{r.status}: {r.request.method} {r.url}"))
    pg.on("console", lambda m: m.type == "error" and _logged(f"console: {m.text}"))
    pg.on("requestfinished", _timed)
    yield pg
    ctx.close()
    assert not errors, errors


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Each test's page log starts empty, before its fixtures open pages."""
    PAGE_LOG.clear()
    _RUNNING.nodeid, _RUNNING.start = item.nodeid, time.monotonic()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A browser test's failure reports what its pages did (:data:`PAGE_LOG`) and where every
    thread of this process was then: the test's server runs in one of them, so a request that
    never answered shows where it waits."""
    outcome = yield
    report = outcome.get_result()
    if not report.failed or call.when != "call" or "browser" not in getattr(item, "fixturenames", ()):
        return
    import sys
    import threading
    import traceback

    names = {t.ident: t.name for t in threading.enumerate()}
    stacks = [
        f"thread {names.get(ident, ident)}:\n" + "".join(traceback.format_stack(frame)[-12:])
        for ident, frame in sys._current_frames().items()
    ]
    report.sections.append(("the pages' network and console", "\n".join(PAGE_LOG) or "(nothing)"))
    report.sections.append(("this process's threads", "\n".join(stacks)))


def phone(browser: Any, name: str, **extra: Any) -> dict[str, Any]:
    """The context options that emulate a phone (touch included)."""
    d = dict(browser.devices[name])
    d.pop("default_browser_type", None)
    return {**d, **extra}


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A desktop page, 1200x900."""
    yield from open_page(browser, viewport={"width": 1200, "height": 900})


@pytest.fixture(autouse=True)
def close_postgres_stores(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every PostgreSQL store a test opens is closed after it: an unclosed psycopg_pool
    ``ConnectionPool`` is collected later on one of its own threads, whose ``__del__`` then
    warns "cannot join current thread" in whichever test runs at that moment."""
    try:
        from demine.web.store_pg import PostgresStore
    except ImportError:  # no psycopg: no pools
        yield
        return
    opened: list[PostgresStore] = []
    original = PostgresStore._open

    def tracked(self: PostgresStore) -> None:
        original(self)
        opened.append(self)

    monkeypatch.setattr(PostgresStore, "_open", tracked)
    yield
    for store in opened:
        if not store.closed:
            store.close()
