"""The player's own record on the server: the finished games of an anonymous player, listed under a
secret token, for a player who chose to keep their record on the server rather than in the browser.

A player is made by ``POST /api/players``, which answers with a token once: the server keeps only
its SHA-256 (a stolen database gives no token), looks the player up by that hash and compares it in
constant time. Every other request carries the token in ``Authorization: Bearer <token>``, never in
the address (addresses end up in logs and histories). Without the right token a player's list cannot
be read, changed or deleted; an unknown token and a malformed one get the same 401.

A game is added to the record by its id once it is over, and the record is made by the server from
the game itself (result, time, 3BV, moves): a player cannot write a time they did not play. The
record obeys the games' limits: a rate per client (``ServeLimits.records``), at most
``max_records`` games per player (the oldest leave first), at most ``games_per_client`` players
made by one address, and the games' expiry: a record is deleted ``finished_expiry`` after its game
ended (as its game is, so its replay and review links live as long as it does), and a player
unused for ``finished_expiry`` (or for ``idle_expiry`` with no games) is deleted with its record.
The records together are kept under a quarter of ``max_db_bytes`` (the oldest go first).

API (errors are ``{"error": message}``):

- ``POST /api/players`` → ``{token, created, keeps}`` (the token is shown this once)
- ``GET /api/players/keeps`` → ``{days, idle_days, max_games}``: what the server keeps, and how long
- ``GET /api/players/me`` → ``{created, games, keeps}``; ``DELETE /api/players/me`` → the player
  and its record are deleted
- ``GET /api/players/me/games`` → ``{games: [record, ...]}``, oldest first
- ``POST /api/players/me/games`` ``{games: [id, ...]}`` → ``{added: [record, ...], missing: [id, ...]}``
  (games unknown, expired or not over yet are ``missing``; a game already in the record is kept once)
- ``DELETE /api/players/me/games/{id}`` → that game leaves the record
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from demine.web.limits import RateLimiter, ServeLimits, TooManyRequests
from demine.web.service import NotFound, Service
from demine.web.store import Store

#: The most game ids one ``POST /api/players/me/games`` may carry.
MAX_BATCH = 100
#: A token is 32 random bytes, URL-safe base64 (43 characters); anything much longer is refused
#: before it is hashed.
MAX_TOKEN = 100

SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS players (
    id TEXT PRIMARY KEY,         -- SHA-256 of the token, hex (the token itself is never stored)
    created REAL NOT NULL,
    updated REAL NOT NULL,       -- the last request with this token (for expiry)
    client TEXT                  -- the address that made it (for the per-client cap)
)
""",
    """
CREATE TABLE IF NOT EXISTS records (
    player TEXT NOT NULL,
    game_id TEXT NOT NULL,
    ended REAL NOT NULL,         -- when the game ended (for expiry, and the list's order)
    data TEXT NOT NULL,          -- the record, JSON
    PRIMARY KEY (player, game_id)
)
""",
    "CREATE INDEX IF NOT EXISTS records_ended ON records (ended)",
    "CREATE INDEX IF NOT EXISTS players_client ON players (client)",
)


def token_hash(token: str) -> str:
    """The stored form of a token: its SHA-256, hex. (A token has 256 random bits, so no salt or
    slow hash is needed: nobody can guess one to match a hash.)"""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def record_of(service: Service, game_id: str) -> dict[str, Any] | None:
    """The record of a finished game, made from the game itself; None when it is not over."""
    v = service.view(game_id)  # (first: it reloads a game another server process moved on)
    s = service.session(game_id)
    if v["outcome"] == "playing" or s.ended is None:
        return None
    return {
        "id": v["id"],
        "width": v["width"],
        "height": v["height"],
        "mines": v["mines"],
        "rule": v["rule"],
        "no_guess": v["no_guess"],
        "outcome": v["outcome"],
        "elapsed": v["elapsed"],
        "bbbv": v["bbbv"],
        "solved_bbbv": v["solved_bbbv"],
        "moves": v["total_moves"],
        "seed": v["seed"],
        "ended": round(s.ended, 3),
        "hints_used": s.hints_used,
    }


class Records:
    """The players and their records, in the games' database (SQLite or PostgreSQL)."""

    def __init__(self, service: Service, limits: ServeLimits) -> None:
        self.service = service
        self.limits = limits
        self._expired_at = 0.0
        self._lock = threading.Lock()
        self.open()

    @property
    def store(self) -> Store:
        return self.service.store

    def open(self) -> None:
        """Make the tables (each time the app starts: a store in memory starts empty)."""
        pg = self.store.path.startswith(("postgresql://", "postgres://"))
        with self.store._transaction() as db:
            if pg:  # two processes starting at once would both create the tables: one at a time
                db.execute("SELECT pg_advisory_xact_lock(727012)")
            for statement in SCHEMA:
                db.execute(statement.replace(" REAL", " DOUBLE PRECISION") if pg else statement)

    def keeps(self) -> dict[str, Any]:
        """What the server keeps, for the page to say."""
        lim = self.limits
        return {
            "days": lim.finished_expiry / 86400,
            "idle_days": lim.idle_expiry / 86400,
            "max_games": lim.max_records,
        }

    # -- players
    def new_player(self, client: str | None, now: float | None = None) -> dict[str, Any]:
        """A new player: its token (returned here only) and what the server keeps."""
        now = time.time() if now is None else now
        self.expire(now)
        token = secrets.token_urlsafe(32)
        with self.store._transaction(lock_for="players") as db:
            if client is not None:
                (n,) = db.execute("SELECT COUNT(*) FROM players WHERE client = ?", (client,)).fetchone()
                if int(n) >= self.limits.games_per_client:
                    raise TooManyRequests(
                        f"this address has made {n} players; an unused one is deleted after "
                        f"{self.limits.idle_expiry / 86400:g} days",
                        3600,
                    )
            db.execute(
                "INSERT INTO players (id, created, updated, client) VALUES (?, ?, ?, ?)",
                (token_hash(token), now, now, client),
            )
        return {"token": token, "created": now, "keeps": self.keeps()}

    def player(self, token: str | None, now: float | None = None) -> str:
        """The player a token names (its hash), its last use noted; 401 for any other token."""
        refused = HTTPException(401, "no player has this token (it may have expired)")
        if not token or len(token) > MAX_TOKEN:
            raise refused
        wanted = token_hash(token)
        with self.store._connection() as db:
            row = db.execute("SELECT id FROM players WHERE id = ?", (wanted,)).fetchone()
        # the lookup is by the hash (its timing tells nothing of a token); the match is checked in
        # constant time all the same
        if row is None or not hmac.compare_digest(str(row[0]), wanted):
            raise refused
        now = time.time() if now is None else now
        with self.store._connection() as db:  # (written at most once a minute: reads stay reads)
            db.execute("UPDATE players SET updated = ? WHERE id = ? AND updated < ?", (now, wanted, now - 60))
        return wanted

    def about(self, player: str) -> dict[str, Any]:
        with self.store._connection() as db:
            (created,) = db.execute("SELECT created FROM players WHERE id = ?", (player,)).fetchone()
            (n,) = db.execute("SELECT COUNT(*) FROM records WHERE player = ?", (player,)).fetchone()
        return {"created": created, "games": int(n), "keeps": self.keeps()}

    def delete_player(self, player: str) -> int:
        """Delete a player and its record; returns how many games its record held."""
        with self.store._transaction(lock_for="players") as db:
            (n,) = db.execute("SELECT COUNT(*) FROM records WHERE player = ?", (player,)).fetchone()
            db.execute("DELETE FROM records WHERE player = ?", (player,))
            db.execute("DELETE FROM players WHERE id = ?", (player,))
        return int(n)

    # -- records
    def games(self, player: str) -> list[dict[str, Any]]:
        """A player's records, oldest first."""
        with self.store._connection() as db:
            rows = db.execute(
                "SELECT data FROM records WHERE player = ? ORDER BY ended, game_id", (player,)
            ).fetchall()
        return [json.loads(r[0]) for r in rows]

    def add(self, player: str, game_ids: list[str], now: float | None = None) -> dict[str, Any]:
        """Add finished games to a player's record (the oldest leave past ``max_records``)."""
        now = time.time() if now is None else now
        self.expire(now)
        added, missing = [], []
        for gid in dict.fromkeys(game_ids):  # each once, in order
            try:
                rec = record_of(self.service, gid) if 0 < len(gid) <= 64 else None
            except NotFound:
                rec = None
            if rec is None:
                missing.append(gid)
            else:
                added.append(rec)
        if added:
            with self.store._transaction(lock_for="players") as db:
                db.executemany(
                    "INSERT INTO records (player, game_id, ended, data) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (player, game_id) DO NOTHING",
                    [(player, r["id"], r["ended"], json.dumps(r, separators=(",", ":"))) for r in added],
                )
                (n,) = db.execute("SELECT COUNT(*) FROM records WHERE player = ?", (player,)).fetchone()
                over = int(n) - self.limits.max_records
                if over > 0:
                    oldest = db.execute(
                        "SELECT game_id FROM records WHERE player = ? ORDER BY ended, game_id LIMIT ?",
                        (player, over),
                    ).fetchall()
                    db.executemany(
                        "DELETE FROM records WHERE player = ? AND game_id = ?",
                        [(player, r[0]) for r in oldest],
                    )
        return {"added": added, "missing": missing}

    def remove(self, player: str, game_id: str) -> bool:
        """Take one game out of a player's record; whether it was there."""
        with self.store._transaction(lock_for="players") as db:
            row = db.execute(
                "SELECT 1 FROM records WHERE player = ? AND game_id = ?", (player, game_id)
            ).fetchone()
            db.execute("DELETE FROM records WHERE player = ? AND game_id = ?", (player, game_id))
        return row is not None

    # -- expiry
    def expire(self, now: float, every: float = 60.0) -> int:
        """Delete expired records and players (at most once every ``every`` seconds), then the
        oldest records while all of them are over a quarter of ``max_db_bytes``. Returns how many
        records went."""
        with self._lock:
            if now - self._expired_at < every:
                return 0
            self._expired_at = now
        lim = self.limits
        with self.store._transaction(lock_for="players") as db:
            (gone,) = db.execute(
                "SELECT COUNT(*) FROM records WHERE ended < ? OR player IN "
                "(SELECT id FROM players WHERE updated < ?)",
                (now - lim.finished_expiry, now - lim.finished_expiry),
            ).fetchone()
            db.execute(
                "DELETE FROM records WHERE ended < ? OR player IN (SELECT id FROM players WHERE updated < ?)",
                (now - lim.finished_expiry, now - lim.finished_expiry),
            )
            db.execute(
                "DELETE FROM players WHERE updated < ? OR (updated < ? AND id NOT IN "
                "(SELECT player FROM records))",
                (now - lim.finished_expiry, now - lim.idle_expiry),
            )
        gone = int(gone)
        if lim.max_db_bytes is not None:
            while self.size() > lim.max_db_bytes // 4:
                with self.store._transaction(lock_for="players") as db:
                    oldest = db.execute(
                        "SELECT player, game_id FROM records ORDER BY ended LIMIT 100"
                    ).fetchall()
                    db.executemany(
                        "DELETE FROM records WHERE player = ? AND game_id = ?", [tuple(r) for r in oldest]
                    )
                if not oldest:
                    break
                gone += len(oldest)
        return gone

    def size(self) -> int:
        """About the bytes the records hold: their JSON and 100 bytes a row for the rest."""
        with self.store._connection() as db:
            (n, data) = db.execute("SELECT COUNT(*), COALESCE(SUM(LENGTH(data)), 0) FROM records").fetchone()
        return int(data) + 100 * int(n)


class GamesIn(BaseModel):
    """The body of ``POST /api/players/me/games``."""

    games: list[str] = Field(min_length=1, max_length=MAX_BATCH)
    """The ids of finished games to add."""


def _bearer(request: Request) -> str | None:
    value = request.headers.get("authorization", "")
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None


def _json(obj: Any, status: int = 200) -> Response:
    return JSONResponse(obj, status_code=status)


def add_routes(app: FastAPI, records: Records, rate: RateLimiter, client: Callable[[Request], str]) -> None:
    """The ``/api/players`` endpoints (see the module's docstring). The store's calls block, so
    the endpoints are plain functions (FastAPI runs them in its threads)."""

    def me(request: Request) -> str:
        rate.hit("records", client(request))
        return records.player(_bearer(request))

    @app.post("/api/players", status_code=201)
    def new_player(request: Request) -> Response:
        who = client(request)
        rate.hit("records", who)
        return _json(records.new_player(who), 201)

    @app.get("/api/players/keeps")
    def keeps(request: Request) -> Response:
        rate.hit("records", client(request))
        return _json(records.keeps())

    @app.get("/api/players/me")
    def about(request: Request) -> Response:
        return _json(records.about(me(request)))

    @app.delete("/api/players/me")
    def delete_player(request: Request) -> Response:
        return _json({"deleted_games": records.delete_player(me(request))})

    @app.get("/api/players/me/games")
    def games(request: Request) -> Response:
        return _json({"games": records.games(me(request))})

    @app.post("/api/players/me/games")
    def add(body: GamesIn, request: Request) -> Response:
        return _json(records.add(me(request), body.games))

    @app.delete("/api/players/me/games/{game_id}")
    def remove(game_id: str, request: Request) -> Response:
        if not records.remove(me(request), game_id):
            raise HTTPException(404, f"game {game_id!r} is not in this record")
        return _json({"removed": game_id})
