"""The games on a PostgreSQL server (psycopg 3 and its connection pool): for servers on several
machines, or an operator who already runs PostgreSQL. The SQL is :class:`~demine.web.store.Store`'s;
this module gives the connections, the schema's types, row locks and the size.

A move locks its game's row (``SELECT ... FOR UPDATE``) for the check and the write, so server
processes on any machine never undo each other's moves. Deleted games' space is given back to
the tables by ``VACUUM`` (reused by new games; ``VACUUM FULL`` by an operator returns it to the
file system).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from demine.errors import DemineError
from demine.web.store import (
    ADDED_COLUMNS,
    INDEXES,
    MOVES_SCHEMA,
    SCHEMA,
    Db,
    StaleGame,
    Store,
    StoreUnavailable,
)

try:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict
    from psycopg_pool import ConnectionPool
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(
        'storing games in PostgreSQL needs psycopg 3: pip install "demine[web,postgres]"'
    ) from e

#: SQLite's REAL is a double; PostgreSQL's is 4 bytes (times to the minute): ask for a double.
#: A database made before a column existed gets it at open.
PG_SCHEMA = (
    SCHEMA.replace(" REAL", " DOUBLE PRECISION"),
    MOVES_SCHEMA.replace(" WITHOUT ROWID", ""),
    *(
        f"ALTER TABLE games ADD COLUMN IF NOT EXISTS {name} {kind.replace('REAL', 'DOUBLE PRECISION')}"
        for name, kind in ADDED_COLUMNS.items()
    ),
    *INDEXES,
)


#: :meth:`PostgresStore.append` in one statement: the game's row is locked (``FOR UPDATE``, so a
#: move of another process on the same game waits, then sees its count), and the move and the
#: game's state are written only when the count is the one expected. It answers the count found
#: (the caller's ``seq``: written) and whether the row exists.
APPEND = """
WITH cur AS (SELECT moves_count FROM games WHERE id = %(id)s FOR UPDATE),
ins AS (
    INSERT INTO moves SELECT %(id)s, %(seq)s, %(kind)s, %(cell)s FROM cur
    WHERE cur.moves_count = %(seq)s
    ON CONFLICT (game_id, seq) DO UPDATE SET kind = excluded.kind, cell = excluded.cell
    RETURNING 1
),
upd AS (
    UPDATE games SET layout = COALESCE(layout, %(layout)s), outcome = %(outcome)s,
        started = %(started)s, ended = %(ended)s, updated = %(now)s, moves_count = %(seq)s + 1
    WHERE id = %(id)s AND EXISTS (SELECT 1 FROM cur WHERE cur.moves_count = %(seq)s)
    RETURNING 1
)
SELECT (SELECT moves_count FROM cur), EXISTS (SELECT 1 FROM cur)
"""


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

    def append(
        self,
        game_id: str,
        seq: int,
        move: tuple[str, int],
        *,
        layout: list[int] | None,
        outcome: str,
        started: float | None,
        ended: float | None,
        now: float,
    ) -> None:
        """:meth:`Store.append` as one statement (:data:`APPEND`): one round trip to the database,
        where the transaction took five (begin, the locked count, the move, the game, commit),
        each a wait of a server thread that then waits for the GIL again. A row of the first
        schema (no count) takes the general way."""
        args = {
            "id": game_id,
            "seq": seq,
            "kind": move[0],
            "cell": move[1],
            "layout": None if layout is None else json.dumps(layout),
            "outcome": outcome,
            "started": started,
            "ended": ended,
            "now": now,
        }
        try:
            with self._pool.connection() as conn:
                row = conn.execute(APPEND, args).fetchone()
        except psycopg.Error as e:
            raise StoreUnavailable(f"the database refused a write: {_first_line(e)}") from e
        count, exists = row if row is not None else (None, False)
        if count is None and exists:  # a row of the first schema
            super().append(
                game_id, seq, move, layout=layout, outcome=outcome, started=started, ended=ended, now=now
            )
        elif count != seq:  # moved on by another process, or no such game
            raise StaleGame(game_id)

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
