"""A real PostgreSQL server for the store's tests, started by the tests themselves
(:mod:`tests.pg_server`) for the whole session; each test gets a database of its own.

Tests that ask for it are skipped when the server or psycopg is missing, unless
``DEMINE_REQUIRE_POSTGRES=1`` (set by ``.ci/run``, which installs both), where they fail instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

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
