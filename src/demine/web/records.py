"""The player's own record on the server: the finished games of an anonymous player, listed under a
secret token, for a player who chose to keep their record on the server rather than in the browser.

A player is made by ``POST /api/players``, which answers with a token once: the server keeps only
its SHA-256 (a stolen database gives no token), looks the player up by that hash and compares it in
constant time. Every other request carries the token in ``Authorization: Bearer <token>``, never in
the address (addresses end up in logs and histories). Without the right token a player's list cannot
be read, changed or deleted; an unknown token and a malformed one get the same 401.

A game is added to the record by its id once it is over, and the record is made by the server from
the game itself (result, time, 3BV, moves): a player cannot write a time they did not play. A game
belongs to whoever made it (:func:`owner_of`: the player's token, or the page's key for its browser,
sent when the game is made), and only their record may hold it, once: another player's game, or
one in another record already, is ``refused`` (issue 57: a player could add anyone's game, and one
address the same games to any number of players). The record obeys the games' limits: a rate per
client (``ServeLimits.records``), at most ``max_records`` games per player (the oldest leave
first), at most ``games_per_client`` players made by one address, and the games' expiry: a record
is deleted ``finished_expiry`` after its game ended (as its game is, so its replay and review links
live as long as it does), and a player unused for ``finished_expiry`` (or for ``idle_expiry`` with
no games) is deleted with its record. The records together are kept under a quarter of
``max_db_bytes``, each address (the one that made the player) with its fair share: past it, the
oldest records of the addresses holding the most go first (:func:`~demine.web.limits.fair_cuts`),
so one client's records never push out another's smaller ones.

API (errors are ``{"error": message}``):

- ``POST /api/players`` → ``{token, created, keeps}`` (the token is shown this once)
- ``GET /api/players/keeps`` → ``{days, idle_days, max_games}``: what the server keeps, and how long
- ``GET /api/players/me`` → ``{created, games, keeps}``; ``DELETE /api/players/me`` → the player
  and its record are deleted
- ``GET /api/players/me/games`` → ``{games: [record, ...]}``, oldest first
- ``POST /api/players/me/games`` ``{games: [id, ...]}`` → ``{added: [record, ...], missing: [id, ...],
  refused: [id, ...]}`` (games unknown, expired or not over yet are ``missing``; games another
  player or browser made, or in another player's record, are ``refused``; a game already in this
  record is kept once). The request carries the page's key for its browser (:data:`OWNER_HEADER`)
  beside the token, for the games made in this browser.
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

from demine.web.limits import RateLimiter, ServeLimits, TooManyRequests, fair_cuts
from demine.web.service import NotFound, Service
from demine.web.store import Store

#: The most game ids one ``POST /api/players/me/games`` may carry.
MAX_BATCH = 100
#: A token is 32 random bytes, URL-safe base64 (43 characters); anything much longer is refused
#: before it is hashed.
MAX_TOKEN = 100
#: The header of the page's key for its browser: a secret the page draws once and keeps
#: (localStorage), sent when it makes a game and when it adds games to its player's record, so
#: the games this browser made can join the record it chooses. (A game made with a player's
#: token in ``Authorization`` is that player's.)
OWNER_HEADER = "x-demine-owner"
#: The shortest key accepted in :data:`OWNER_HEADER` (the page's has 43 characters): a short one
#: could be guessed, and its games claimed.
MIN_OWNER_KEY = 20

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
#: A finished game is in one record at most (made at the first start after the rule came, once
#: the copies a database held already are reduced to one: :meth:`Records._one_record_per_game`).
ONE_RECORD = "CREATE UNIQUE INDEX IF NOT EXISTS records_game ON records (game_id)"


def token_hash(token: str) -> str:
    """The stored form of a token: its SHA-256, hex. (A token has 256 random bits, so no salt or
    slow hash is needed: nobody can guess one to match a hash.)"""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def record_of(service: Service, game_id: str) -> dict[str, Any] | None:
    """The record of a finished game, made from the game itself; None when it is not over."""
    got = _finished(service, game_id)
    return None if got is None else got[0]


def _finished(service: Service, game_id: str) -> tuple[dict[str, Any], str | None] | None:
    """:func:`record_of`, with the game's owner (the hash of its maker's secret)."""
    v = service.view(game_id)  # (first: it reloads a game another server process moved on)
    s = service.session(game_id)
    if v["outcome"] == "playing" or s.ended is None:
        return None
    record = {
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
    return record, s.owner


def bearer_of(request: Request) -> str | None:
    """The token of ``Authorization: Bearer TOKEN``, or None."""
    value = request.headers.get("authorization", "")
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None


def browser_of(request: Request) -> str | None:
    """The hash of the page's key for its browser (:data:`OWNER_HEADER`), or None without one;
    a key shorter than :data:`MIN_OWNER_KEY` or longer than :data:`MAX_TOKEN` characters is
    refused (400)."""
    key = request.headers.get(OWNER_HEADER, "").strip()
    if not key:
        return None
    if not MIN_OWNER_KEY <= len(key) <= MAX_TOKEN:
        raise HTTPException(
            400, f"the {OWNER_HEADER} header holds a key of {MIN_OWNER_KEY} to {MAX_TOKEN} characters"
        )
    return token_hash(key)


def owner_of(request: Request) -> str | None:
    """Whose a game made by ``request`` is: the hash of the player's token it carries
    (``Authorization: Bearer``; not looked up: only its holder can ever match it), else of the
    page's key for its browser (:func:`browser_of`); None with neither (no record may hold the
    game then)."""
    token = bearer_of(request)
    if token:
        if len(token) > MAX_TOKEN:
            raise HTTPException(401, "no player has this token (it may have expired)")
        return token_hash(token)
    return browser_of(request)


#: A record's bytes as :meth:`Records.size` counts them (its JSON and 100 for the rest of its row),
#: and the address it is charged to (the one that made its player; '' for none), in SQL.
RECORD_BYTES = "LENGTH(r.data) + 100"
ADDRESS = "COALESCE(p.client, '')"


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
            find = (
                "SELECT 1 FROM pg_indexes WHERE indexname = 'records_game'"
                if pg
                else "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'records_game'"
            )
            if db.execute(find).fetchone() is None:
                self._one_record_per_game(db)
                db.execute(ONE_RECORD)

    @staticmethod
    def _one_record_per_game(db: Any) -> int:
        """Keep each game in one record only (a database written before :data:`ONE_RECORD`
        may hold a game in many players' records): the record of the player made first stays.
        Returns how many copies went."""
        rows = db.execute(
            "SELECT r.game_id, r.player, COALESCE(p.created, 0) FROM records r "
            "LEFT JOIN players p ON p.id = r.player "
            "WHERE r.game_id IN (SELECT game_id FROM records GROUP BY game_id HAVING COUNT(*) > 1)"
        ).fetchall()
        first: dict[str, tuple[float, str]] = {}
        for game_id, player, created in rows:
            key = (float(created), str(player))
            if game_id not in first or key < first[game_id]:
                first[game_id] = key
        extra = [(player, game_id) for game_id, player, _ in rows if first[game_id][1] != player]
        db.executemany("DELETE FROM records WHERE player = ? AND game_id = ?", extra)
        return len(extra)

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

    def add(
        self, player: str, game_ids: list[str], browser: str | None = None, now: float | None = None
    ) -> dict[str, Any]:
        """Add finished games to a player's record (the oldest leave past ``max_records``): those
        this player made (with its token) or this browser made (``browser``: the hash of its key,
        :func:`browser_of`), each in one record only."""
        now = time.time() if now is None else now
        self.expire(now)
        mine = {player} if browser is None else {player, browser}
        found: list[dict[str, Any]] = []
        missing, refused = [], []
        for gid in dict.fromkeys(game_ids):  # each once, in order
            try:
                got = _finished(self.service, gid) if 0 < len(gid) <= 64 else None
            except NotFound:
                got = None
            if got is None:
                missing.append(gid)
            elif got[1] not in mine:
                refused.append(gid)  # another player's or browser's game (or nobody's)
            else:
                found.append(got[0])
        added = []
        if found:
            with self.store._transaction(lock_for="players") as db:
                for r in found:
                    new = db.execute(
                        "INSERT INTO records (player, game_id, ended, data) VALUES (?, ?, ?, ?) "
                        "ON CONFLICT DO NOTHING RETURNING game_id",
                        (player, r["id"], r["ended"], json.dumps(r, separators=(",", ":"))),
                    ).fetchone()
                    if new is None:  # in a record already: this one (kept once), or another's
                        held = db.execute(
                            "SELECT player FROM records WHERE game_id = ?", (r["id"],)
                        ).fetchone()
                        if held is None or held[0] != player:
                            refused.append(r["id"])
                            continue
                    added.append(r)
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
        return {"added": added, "missing": missing, "refused": refused}

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
            gone += self._fair_share(lim.max_db_bytes // 4)
        return gone

    def _fair_share(self, room: int) -> int:
        """Keep the records under ``room`` bytes (:meth:`size`'s measure), each address (the one
        that made the player) with its fair share: the addresses holding the most give up their
        oldest records first, down to the level at which everything fits
        (:func:`~demine.web.limits.fair_cuts`); an address under it loses nothing. O(records) to
        measure, then a hundred records a transaction. Returns how many records went. (Measured
        on 200,000 records in SQLite: 60 ms for the total, 270-430 ms by address, and a cut of 1%
        270-320 ms: docs/research/web-redteam.md.)"""
        if self.size() <= room:
            return 0
        cuts = fair_cuts(self.sizes(), room)
        gone = 0
        for client, cut in cuts.items():
            while cut > 0:
                with self.store._transaction(lock_for="players") as db:
                    oldest = db.execute(
                        f"SELECT r.player, r.game_id, {RECORD_BYTES} FROM records r "
                        f"LEFT JOIN players p ON p.id = r.player WHERE {ADDRESS} = ? "
                        "ORDER BY r.ended, r.game_id LIMIT 100",
                        (client,),
                    ).fetchall()
                    leaving = []
                    for player, game_id, size in oldest:
                        if cut <= 0:
                            break
                        leaving.append((player, game_id))
                        cut -= int(size)
                    db.executemany("DELETE FROM records WHERE player = ? AND game_id = ?", leaving)
                gone += len(leaving)
                if not oldest:
                    break
        return gone

    def sizes(self) -> dict[str, int]:
        """The bytes of the records (:meth:`size`'s measure) of each address that made players
        ('' for none)."""
        with self.store._connection() as db:
            rows = db.execute(
                f"SELECT {ADDRESS}, SUM({RECORD_BYTES}) FROM records r "
                f"LEFT JOIN players p ON p.id = r.player GROUP BY {ADDRESS}"
            ).fetchall()
        return {str(client): int(size) for client, size in rows}

    def size(self) -> int:
        """About the bytes the records hold: their JSON and 100 bytes a row for the rest."""
        with self.store._connection() as db:
            (n, data) = db.execute("SELECT COUNT(*), COALESCE(SUM(LENGTH(data)), 0) FROM records").fetchone()
        return int(data) + 100 * int(n)


class GamesIn(BaseModel):
    """The body of ``POST /api/players/me/games``."""

    games: list[str] = Field(min_length=1, max_length=MAX_BATCH)
    """The ids of finished games to add."""


def _json(obj: Any, status: int = 200) -> Response:
    return JSONResponse(obj, status_code=status)


def add_routes(app: FastAPI, records: Records, rate: RateLimiter, client: Callable[[Request], str]) -> None:
    """The ``/api/players`` endpoints (see the module's docstring). The store's calls block, so
    the endpoints are plain functions (FastAPI runs them in its threads)."""

    def me(request: Request) -> str:
        rate.hit("records", client(request))
        return records.player(bearer_of(request))

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
        return _json(records.add(me(request), body.games, browser_of(request)))

    @app.delete("/api/players/me/games/{game_id}")
    def remove(game_id: str, request: Request) -> Response:
        if not records.remove(me(request), game_id):
            raise HTTPException(404, f"game {game_id!r} is not in this record")
        return _json({"removed": game_id})
