"""Games kept in a database: SQLite (the standard library's ``sqlite3``; one file, no server) by
default, or PostgreSQL (:mod:`demine.web.store_pg`) for servers on several machines.

A game is stored as its settings and the layout once it is drawn; its moves are rows of their own,
one appended per move (O(1) a move, whatever the game's length). A game is restored by replaying
its moves on the layout, so the file never holds derived state that could disagree with them.
Games expire (unfinished ones after an idle time, finished ones after an age) and the file is kept
under a size: the oldest finished games go first, and the space is given back.

Files written before moves had their own table kept them as a JSON list in the game's row: they
are still read (those moves first, then any appended since).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from demine.errors import DemineError

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    mines INTEGER NOT NULL,
    rule TEXT NOT NULL,
    seed TEXT NOT NULL,          -- JSON: the seed the layout is drawn with
    seed_given INTEGER NOT NULL, -- 1 when the player chose the seed (it may be shown)
    layout TEXT,                 -- JSON list of mine cells, once drawn
    moves TEXT NOT NULL,         -- JSON list of [kind, cell]: files before the moves table only
    outcome TEXT NOT NULL,
    created REAL NOT NULL,
    started REAL,                -- time of the first reveal
    ended REAL,
    no_guess TEXT,               -- the certificate of a guess-free game, or NULL
    client TEXT,                 -- who made it (for the per-client cap)
    updated REAL,                -- time of the last move (for expiry)
    moves_count INTEGER,         -- moves stored (each append checks it: processes never undo each other)
    hints_used INTEGER           -- 1 once the game's hints were shown while it was played (NULL: never)
)
"""
MOVES_SCHEMA = """
CREATE TABLE IF NOT EXISTS moves (
    game_id TEXT NOT NULL,
    seq INTEGER NOT NULL,        -- the move's place in the game, from 0
    kind TEXT NOT NULL,
    cell INTEGER NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID
"""
INDEXES = (
    "CREATE INDEX IF NOT EXISTS games_client ON games (client, outcome)",
    "CREATE INDEX IF NOT EXISTS games_updated ON games (outcome, updated)",
)
#: Columns added since the first schema, with their type: a file made before gets them at open.
ADDED_COLUMNS = {
    "no_guess": "TEXT",
    "client": "TEXT",
    "updated": "REAL",
    "moves_count": "INTEGER",
    "hints_used": "INTEGER",
}
COLUMNS = (
    "id, width, height, mines, rule, seed, seed_given, layout, moves, outcome, created, started, ended, "
    "no_guess, client, updated, moves_count, hints_used"
)

#: Insert a game or replace the one with its id (the same statement in SQLite and PostgreSQL).
UPSERT_GAME = (
    f"INSERT INTO games ({COLUMNS}) VALUES ({','.join('?' * 18)}) ON CONFLICT (id) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in COLUMNS.split(", ")[1:])
)
UPSERT_MOVE = (
    "INSERT INTO moves VALUES (?,?,?,?) "
    "ON CONFLICT (game_id, seq) DO UPDATE SET kind = excluded.kind, cell = excluded.cell"
)


class StaleGame(Exception):
    """A move was written for a game that another server process had moved on since."""


class StoreUnavailable(DemineError):
    """The database refused a read or a write (locked by another program past the wait, the disk
    full, the server gone): nothing was written, and the request may be tried again later."""

    def __init__(self, message: str, retry_after: int = 5) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        """Seconds after which asking again may succeed."""


@dataclass(slots=True)
class StoredGame:
    """One game as stored."""

    id: str
    """The game's unguessable id."""
    width: int
    """Columns."""
    height: int
    """Rows."""
    mines: int
    """Mines."""
    rule: str
    """First-click rule."""
    seed: int | str
    """The seed of the layout (secret while the game is played unless the player chose it)."""
    seed_given: bool
    """Whether the player chose the seed."""
    layout: list[int] | None = None
    """The mine cells, once drawn."""
    moves: list[tuple[str, int]] = field(default_factory=list)
    """Every move, in order."""
    outcome: str = "playing"
    """``playing``, ``won`` or ``lost``."""
    created: float = 0.0
    """When the game was made (seconds since the epoch)."""
    started: float | None = None
    """When the first cell was opened."""
    ended: float | None = None
    """When the game ended."""
    no_guess: str | None = None
    """``complete`` or ``local`` for a game drawn guess-free, else None."""
    client: str | None = None
    """The address that made it."""
    hints_used: bool = False
    """Whether hints (or the probabilities) were shown on the game while it was played."""


class Db(Protocol):
    """What the store's SQL runs on: a connection whose ``execute`` takes ``?`` placeholders."""

    def execute(self, sql: str, args: Any = ()) -> Any: ...

    def executemany(self, sql: str, rows: Any) -> Any: ...


def open_store(db: str | Path = ":memory:") -> Store:
    """The store for ``db``: a PostgreSQL server for a ``postgresql://`` address (needs the
    ``postgres`` extra), else a SQLite file (``:memory:``: a private one in memory)."""
    if str(db).startswith(("postgresql://", "postgres://")):
        try:
            from demine.web.store_pg import PostgresStore
        except ImportError as e:
            raise DemineError(str(e)) from None
        return PostgresStore(str(db))
    try:
        return Store(db)
    except (sqlite3.Error, StoreUnavailable) as e:
        damaged = isinstance(e, sqlite3.DatabaseError) and not isinstance(e, sqlite3.OperationalError)
        advice = ": restore it from a backup, or move it away to start with an empty one" if damaged else ""
        raise DemineError(f"cannot use {db} as the games file ({e}){advice}") from None


class Store:
    """Games in a SQLite file, safe to use from several threads (one connection, one lock;
    WAL mode so a reader never waits on a writer's fsync).

    The SQL of saving, appending, loading and expiring is written once here; a subclass for
    another database gives its connection (:meth:`_connection`, :meth:`_transaction`) and what
    differs: how it opens, measures its size and gives space back."""

    #: What locks a row read in a transaction until it ends (none in SQLite: ``BEGIN IMMEDIATE``
    #: locks the whole file, see :meth:`_transaction`).
    ROW_LOCK = ""

    def __init__(self, path: str | Path = ":memory:", wait: float = 5.0) -> None:
        self.path = str(path)
        self.wait = wait
        """Seconds a write waits for the database's lock (held by another program) before it fails."""
        self._lock = threading.Lock()
        self._read_lock = threading.Lock()
        self._reader: sqlite3.Connection | None = None
        self.closed = False
        self._open()

    def describe(self) -> str:
        """Where the games are, for the server's first lines (no password)."""
        return self.path

    def reopen(self) -> None:
        """Open the file again after :meth:`close` (an app started a second time)."""
        with self._lock:
            if self.closed:
                self._open()
                self.closed = False

    def check(self) -> None:
        """Refuse a damaged database with a clear message (:class:`~demine.errors.DemineError`):
        SQLite's ``quick_check``, which reads every page (O(file size); run once, at start)."""
        try:
            with self._lock:
                rows = self._db.execute("PRAGMA quick_check(5)").fetchall()
        except sqlite3.Error as e:
            rows = [(str(e),)]
        problems = [str(r[0]) for r in rows if r[0] != "ok"]
        if problems:
            raise DemineError(
                f"the games file {self.path} is damaged ({'; '.join(problems)[:300]}): restore it "
                "from a backup, or move it away to start with an empty one"
            )

    def _open(self) -> None:
        self._db = sqlite3.connect(
            self.path, timeout=self.wait, check_same_thread=False, isolation_level=None
        )
        if self.path != ":memory:":
            # space freed by expired games goes back to the file system (set before any table)
            self._db.execute("PRAGMA auto_vacuum=INCREMENTAL")
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(SCHEMA)
        self._db.execute(MOVES_SCHEMA)
        have = {r[1] for r in self._db.execute("PRAGMA table_info(games)")}
        for name, kind in ADDED_COLUMNS.items():
            if name not in have:  # a file written before the column existed
                try:
                    self._db.execute(f"ALTER TABLE games ADD COLUMN {name} {kind}")
                except sqlite3.OperationalError as e:  # another process opening the file added it
                    if "duplicate column" not in str(e):
                        raise
        for index in INDEXES:
            self._db.execute(index)
        if self.path != ":memory:":
            # reads have a connection of their own: in WAL mode they never wait for a write, so a
            # write waiting for the file's lock (held by another program) does not hold them up
            self._reader = sqlite3.connect(
                self.path, timeout=self.wait, check_same_thread=False, isolation_level=None
            )

    @contextmanager
    def _connection(self) -> Iterator[Db]:
        """A connection for reads (each statement sees a consistent database): a file's reader,
        apart from the writes' connection; in memory, the one connection."""
        reader = self._reader
        with self._read_lock if reader is not None else self._lock:
            try:
                yield reader if reader is not None else self._db
            except sqlite3.Error as e:
                raise StoreUnavailable(f"the games file cannot be read: {e}") from e

    @contextmanager
    def _transaction(self, lock_for: str | None = None) -> Iterator[Db]:
        """One transaction, rolled back on error (its commit included: a full disk fails there).
        With ``lock_for`` (a game's id), no other process writes that game until it ends (SQLite:
        ``BEGIN IMMEDIATE`` takes the file's write lock at once, so a check and the write after it
        see the same file). A write the database refuses raises :class:`StoreUnavailable`."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE" if lock_for is not None else "BEGIN")
                try:
                    yield self._db
                    self._db.execute("COMMIT")
                except BaseException:
                    if self._db.in_transaction:
                        # (on a full disk SQLite may have rolled back by itself already)
                        with suppress(sqlite3.Error):
                            self._db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as e:
                raise StoreUnavailable(f"the games file refused a write: {e}") from e

    # ------------------------------------------------------------------ writing
    def save(self, g: StoredGame, now: float | None = None) -> None:
        """Insert or replace one game with all its moves (a new game, or a whole rewrite)."""
        row = (
            g.id,
            g.width,
            g.height,
            g.mines,
            g.rule,
            json.dumps(g.seed),
            int(g.seed_given),
            None if g.layout is None else json.dumps(g.layout),
            "[]",
            g.outcome,
            g.created,
            g.started,
            g.ended,
            g.no_guess,
            g.client,
            now if now is not None else g.created,
            len(g.moves),
            int(g.hints_used) or None,
        )
        with self._transaction() as db:
            db.execute(UPSERT_GAME, row)
            db.execute("DELETE FROM moves WHERE game_id = ?", (g.id,))
            db.executemany(UPSERT_MOVE, [(g.id, i, k, c) for i, (k, c) in enumerate(g.moves)])

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
        """Add move ``seq`` of a game and its state after it: O(1), whatever the game's length.
        Raises :class:`StaleGame` when the database holds another number of moves than ``seq``
        (another server process on the same database moved the game on): the caller reloads
        and tries again. The check and the write are one transaction that holds the game's lock."""
        with self._transaction(lock_for=game_id) as db:
            if self._moves_count(db, game_id, lock=True) != seq:
                raise StaleGame(game_id)
            db.execute(UPSERT_MOVE, (game_id, seq, *move))
            db.execute(
                "UPDATE games SET layout = COALESCE(layout, ?), outcome = ?, started = ?, ended = ?, "
                "updated = ?, moves_count = ? WHERE id = ?",
                (
                    None if layout is None else json.dumps(layout),
                    outcome,
                    started,
                    ended,
                    now,
                    seq + 1,
                    game_id,
                ),
            )

    # ------------------------------------------------------------------ reading
    def load(self, game_id: str) -> StoredGame | None:
        """The game with this id, or None."""
        with self._connection() as db:
            row: Any = db.execute(f"SELECT {COLUMNS} FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                return None
            appended = db.execute(
                "SELECT kind, cell FROM moves WHERE game_id = ? ORDER BY seq", (game_id,)
            ).fetchall()
        legacy = [(k, c) for k, c in json.loads(row[8])]
        return StoredGame(
            id=row[0],
            width=row[1],
            height=row[2],
            mines=row[3],
            rule=row[4],
            seed=json.loads(row[5]),
            seed_given=bool(row[6]),
            layout=None if row[7] is None else json.loads(row[7]),
            moves=legacy + [(k, c) for k, c in appended],
            outcome=row[9],
            created=row[10],
            started=row[11],
            ended=row[12],
            no_guess=row[13],
            client=row[14],
            hints_used=bool(row[17]),
        )

    def mark_hinted(self, game_id: str) -> None:
        """Note that the game's hints were shown while it was played (its record says so)."""
        with self._transaction() as db:
            db.execute("UPDATE games SET hints_used = 1 WHERE id = ?", (game_id,))

    def hints_used(self, game_id: str) -> bool:
        """Whether the game's hints were shown while it was played (by any server process)."""
        with self._connection() as db:
            row = db.execute("SELECT hints_used FROM games WHERE id = ?", (game_id,)).fetchone()
        return bool(row and row[0])

    def moves_count(self, game_id: str) -> int | None:
        """How many moves the database holds for this game (None: no such game)."""
        with self._connection() as db:
            return self._moves_count(db, game_id)

    def _moves_count(self, db: Db, game_id: str, lock: bool = False) -> int | None:
        """``lock``: the row stays locked to the end of the transaction (:attr:`ROW_LOCK`)."""
        sql = "SELECT moves_count, moves FROM games WHERE id = ?" + (self.ROW_LOCK if lock else "")
        row = db.execute(sql, (game_id,)).fetchone()
        if row is None:
            return None
        if row[0] is not None:
            return int(row[0])
        # a row of the first schema: its JSON moves and any appended since
        (appended,) = db.execute("SELECT COUNT(*) FROM moves WHERE game_id = ?", (game_id,)).fetchone()
        return len(json.loads(row[1])) + int(appended)

    def count(self) -> int:
        """How many games are stored."""
        with self._connection() as db:
            (n,) = db.execute("SELECT COUNT(*) FROM games").fetchone()
        return int(n)

    def live_games(self, client: str) -> int:
        """How many unfinished games this client has."""
        with self._connection() as db:
            (n,) = db.execute(
                "SELECT COUNT(*) FROM games WHERE client = ? AND outcome = 'playing'", (client,)
            ).fetchone()
        return int(n)

    def size(self) -> int:
        """The file's size in use, in bytes (pages in use times the page size)."""
        with self._connection() as db:
            (pages,) = db.execute("PRAGMA page_count").fetchone()
            (free,) = db.execute("PRAGMA freelist_count").fetchone()
            (page,) = db.execute("PRAGMA page_size").fetchone()
        return int((pages - free) * page)

    # ------------------------------------------------------------------ expiry
    def expire(self, now: float, idle: float, age: float, max_bytes: int | None = None) -> list[str]:
        """Delete unfinished games idle for ``idle`` seconds and finished games older than
        ``age``; then, while the database is over ``max_bytes``, the oldest finished games (and,
        when none is left, the longest idle unfinished ones) a hundred at a time. Gives the space
        back. Returns the ids of the games deleted."""
        gone = self._delete(
            "SELECT id FROM games WHERE (outcome = 'playing' AND COALESCE(updated, created) < ?) "
            "OR (outcome != 'playing' AND COALESCE(ended, updated, created) < ?)",
            (now - idle, now - age),
        )
        while max_bytes is not None and self.size() > max_bytes:
            oldest = "ORDER BY outcome = 'playing', COALESCE(ended, updated, created) LIMIT 100"
            more = self._delete(f"SELECT id FROM games {oldest}", ())
            if not more:
                break
            gone += more
        if gone:
            self._vacuum()
        return gone

    def _delete(self, select: str, args: tuple[Any, ...]) -> list[str]:
        with self._transaction() as db:
            ids = [r[0] for r in db.execute(select, args).fetchall()]
            db.executemany("DELETE FROM moves WHERE game_id = ?", [(i,) for i in ids])
            db.executemany("DELETE FROM games WHERE id = ?", [(i,) for i in ids])
        return ids

    def _vacuum(self) -> None:
        """Give the space of deleted games back."""
        with self._lock:
            try:
                # run to the end: through execute() the pragma is stepped once and frees a single page
                self._db.executescript("PRAGMA incremental_vacuum;")
            except sqlite3.Error as e:
                raise StoreUnavailable(f"the games file refused a write: {e}") from e

    def compact(self) -> None:
        """Fold the write-ahead log into the file and give free pages back (for measuring sizes,
        and after a large expiry)."""
        self._vacuum()
        with self._lock:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        """Close the file."""
        with self._lock, self._read_lock:
            self._db.close()
            if self._reader is not None:
                self._reader.close()
                self._reader = None
            self.closed = True
