"""The games on a PostgreSQL server (psycopg 3 and its connection pool): for servers on several
machines, or an operator who already runs PostgreSQL. The SQL is :class:`~demine.web.store.Store`'s;
this module gives the connections, the schema's types, row locks and the size.

A move locks its game's row (``SELECT ... FOR UPDATE``) for the check and the write, so server
processes on any machine never undo each other's moves. Deleted games' space is given back to
the tables by ``VACUUM`` (reused by new games; ``VACUUM FULL`` by an operator returns it to the
file system).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from demine.errors import DemineError
from demine.web.store import INDEXES, MOVES_SCHEMA, SCHEMA, Db, Store, StoreUnavailable

try:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict
    from psycopg_pool import ConnectionPool
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(
        'storing games in PostgreSQL needs psycopg 3: pip install "demine[web,postgres]"'
    ) from e

#: SQLite's REAL is a double; PostgreSQL's is 4 bytes (times to the minute): ask for a double.
PG_SCHEMA = (
    SCHEMA.replace(" REAL", " DOUBLE PRECISION"),
    MOVES_SCHEMA.replace(" WITHOUT ROWID", ""),
    *INDEXES,
)


def _first_line(e: Exception) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0]


class _Pg:
    """A pooled connection that takes the store's ``?`` placeholders (psycopg's are ``%s``)."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self._conn = conn

    def execute(self, sql: str, args: Any = ()) -> Any:
        return self._conn.execute(sql.replace("?", "%s"), args)

    def executemany(self, sql: str, rows: Any) -> Any:
        with self._conn.cursor() as cur:
            cur.executemany(sql.replace("?", "%s"), rows)


class PostgresStore(Store):
    """Games on a PostgreSQL server, at a ``postgresql://user:password@host:port/database``
    address; safe from many threads (a pool of up to ``connections`` connections) and processes."""

    ROW_LOCK = " FOR UPDATE"

    def __init__(self, url: str, connections: int = 4, wait: float = 5.0) -> None:
        self._connections = connections
        super().__init__(url, wait)

    def describe(self) -> str:
        parts = urlsplit(self.path)
        if parts.password is None:
            return self.path
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
        return urlunsplit(parts._replace(netloc=netloc))

    def _open(self) -> None:
        try:  # one connection first, so a wrong address fails at once with the server's reason
            psycopg.connect(self.path, connect_timeout=10).close()
        except psycopg.Error as e:
            why = str(e).strip().replace(self.path, self.describe())
            raise DemineError(f"cannot connect to PostgreSQL at {self.describe()}: {why}") from None
        self._pool = ConnectionPool(
            self.path,
            min_size=1,
            max_size=self._connections,
            # a row locked by another program (an operator's open transaction) fails the write
            # after ``wait`` instead of holding the request's thread for ever
            # (added to any options the address gives)
            kwargs={"autocommit": True, "options": self._options()},
            check=ConnectionPool.check_connection,  # a connection the server dropped is replaced
            timeout=self.wait,
            open=True,
        )
        # two processes starting at once would both create the tables: one at a time
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(727011)")
            for statement in PG_SCHEMA:
                conn.execute(statement)

    def _options(self) -> str:
        """The connections' server options: the address's own, and the lock timeout."""
        given = str(conninfo_to_dict(self.path).get("options") or "")
        return f"{given} -c lock_timeout={round(self.wait * 1000)}".strip()

    @contextmanager
    def _connection(self) -> Iterator[Db]:
        try:
            with self._pool.connection() as conn:
                yield _Pg(conn)
        except psycopg.Error as e:
            raise StoreUnavailable(f"the database cannot be read: {_first_line(e)}") from e

    @contextmanager
    def _transaction(self, lock_for: str | None = None) -> Iterator[Db]:
        # the lock on the game's row is taken by _moves_count(lock=True) (ROW_LOCK), the first read
        try:
            with self._pool.connection() as conn, conn.transaction():
                yield _Pg(conn)
        except psycopg.Error as e:
            raise StoreUnavailable(f"the database refused a write: {_first_line(e)}") from e

    def check(self) -> None:
        """(PostgreSQL checks its own pages.)"""

    def size(self) -> int:
        """The bytes of the games stored (their rows; what the tables hold after ``VACUUM FULL``,
        indexes aside)."""
        with self._connection() as db:
            (games,) = db.execute("SELECT COALESCE(SUM(pg_column_size(g.*)), 0) FROM games g").fetchone()
            (moves,) = db.execute("SELECT COALESCE(SUM(pg_column_size(m.*)), 0) FROM moves m").fetchone()
        return int(games) + int(moves)

    def _vacuum(self) -> None:
        with self._connection() as db:  # autocommit: VACUUM cannot run in a transaction
            db.execute("VACUUM games, moves")

    def compact(self) -> None:
        self._vacuum()

    def close(self) -> None:
        with self._lock:
            self._pool.close()
            self.closed = True
