"""Games kept in SQLite (the standard library's ``sqlite3``; one file, no server).

A game is stored as its settings, the layout once it is drawn, and the list of moves; a game is
restored by replaying its moves on the layout, so the file never holds derived state that could
disagree with the moves. Each move rewrites one row (O(moves) bytes, a few KB for an expert game).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
    moves TEXT NOT NULL,         -- JSON list of [kind, cell]
    outcome TEXT NOT NULL,
    created REAL NOT NULL,
    started REAL,                -- time of the first reveal
    ended REAL,
    no_guess TEXT                -- the certificate of a guess-free game, or NULL
)
"""
#: Columns added since the first schema, with their type: a file made before gets them at open.
ADDED_COLUMNS = {"no_guess": "TEXT"}


@dataclass(slots=True)
class StoredGame:
    """One row of the games table."""

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


class Store:
    """A SQLite file of games, safe to use from several threads (one connection, one lock;
    WAL mode so a reader never waits on a writer's fsync)."""

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        if self.path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(SCHEMA)
        have = {r[1] for r in self._db.execute("PRAGMA table_info(games)")}
        for name, kind in ADDED_COLUMNS.items():
            if name not in have:  # a file written before the column existed
                self._db.execute(f"ALTER TABLE games ADD COLUMN {name} {kind}")

    def save(self, g: StoredGame) -> None:
        """Insert or replace one game."""
        row = (
            g.id,
            g.width,
            g.height,
            g.mines,
            g.rule,
            json.dumps(g.seed),
            int(g.seed_given),
            None if g.layout is None else json.dumps(g.layout),
            json.dumps([list(m) for m in g.moves]),
            g.outcome,
            g.created,
            g.started,
            g.ended,
            g.no_guess,
        )
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO games (id, width, height, mines, rule, seed, seed_given, layout, "
                "moves, outcome, created, started, ended, no_guess) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                row,
            )

    def load(self, game_id: str) -> StoredGame | None:
        """The game with this id, or None."""
        with self._lock:
            cur = self._db.execute(
                "SELECT id, width, height, mines, rule, seed, seed_given, layout, moves, outcome, created, "
                "started, ended, no_guess FROM games WHERE id = ?",
                (game_id,),
            )
            row: Any = cur.fetchone()
        if row is None:
            return None
        return StoredGame(
            id=row[0],
            width=row[1],
            height=row[2],
            mines=row[3],
            rule=row[4],
            seed=json.loads(row[5]),
            seed_given=bool(row[6]),
            layout=None if row[7] is None else json.loads(row[7]),
            moves=[(k, c) for k, c in json.loads(row[8])],
            outcome=row[9],
            created=row[10],
            started=row[11],
            ended=row[12],
            no_guess=row[13],
        )

    def count(self) -> int:
        """How many games are stored."""
        with self._lock:
            (n,) = self._db.execute("SELECT COUNT(*) FROM games").fetchone()
        return int(n)

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self._db.close()
