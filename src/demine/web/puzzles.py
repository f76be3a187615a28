"""The training puzzles on the web: ``/api/puzzles`` serves the shipped set (the answers stay on
the server until a puzzle is answered) and judges answers at once.

API (errors are ``{"error": message}``):

- ``GET /api/puzzles/themes`` → ``{count, kinds: {kind: n}, difficulties: {band: n},
  themes: [{name, count}]}``
- ``GET /api/puzzles/next?kind=&theme=&difficulty=&rating=&seen=`` → a puzzle near ``rating``
  (``seen``: ids to leave out, comma-separated)
- ``GET /api/puzzles/daily`` → today's puzzle (UTC), the same for everyone
- ``GET /api/puzzles/{id}`` → that puzzle
- ``POST /api/puzzles/{id}/answer`` ``{cell: [row, col], flag, fifty, marked: [[row, col], ...],
  player: {rating, rd, volatility}}`` → ``{right, done, message, cell, proof, share, left,
  answer, mines, player, counted, puzzle}``: for an ``all`` puzzle one move at a time
  (``marked``: the cells already marked right); once done, the answer, the player's new Glicko-2
  rating, whether the attempt was counted and the puzzle's rating, attempts and solves after it.

A puzzle is ``{id, kind, question, width, height, mines, rows, themes, rating, difficulty,
source, pair, attempts, solved}`` (rows as in the games: ``H`` covered, ``0``-``8`` numbers;
``pair``: a coin's two cells).

The puzzles' ratings learn from the attempts (:class:`PuzzleStats`, in the games' database,
SQLite or PostgreSQL): a finished attempt is a Glicko-2 game between the player and the puzzle,
counted once per puzzle for each player (the player's token when the request carries one, else
the client's address, kept as a hash) while its mark lasts (``finished_expiry``, as the games).
The rating the player sends is only trusted within bounds (500-2500, a deviation of at least
100), so one client cannot throw a puzzle's rating far.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from demine.puzzles import Puzzle, Rating, attempt, daily, read_puzzles
from demine.puzzles.judge import AllAttempt, judge
from demine.puzzles.model import BANDS, band
from demine.web.fastpaths import json_response as _json
from demine.web.limits import RateLimiter, ServeLimits
from demine.web.store import Store

#: The most ids ``seen`` may name.
MAX_SEEN = 500


@cache
def _set() -> tuple[list[Puzzle], dict[str, Puzzle]]:
    puzzles = read_puzzles()
    return puzzles, {p.id: p for p in puzzles}


def _rc(p: Puzzle, cell: int) -> list[int]:
    return list(divmod(cell, p.position.width))


SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS puzzle_ratings (
    id TEXT PRIMARY KEY,          -- the puzzle's id
    rating REAL NOT NULL,         -- Glicko-2, learned from the attempts (starts at the shipped one)
    rd REAL NOT NULL,
    volatility REAL NOT NULL,
    attempts INTEGER NOT NULL,
    solved INTEGER NOT NULL,
    updated REAL NOT NULL
)
""",
    """
CREATE TABLE IF NOT EXISTS puzzle_attempts (
    puzzle TEXT NOT NULL,
    who TEXT NOT NULL,            -- p: and the player's token hash, or c: and a hash of the address
    at REAL NOT NULL,
    PRIMARY KEY (puzzle, who)
)
""",
    "CREATE INDEX IF NOT EXISTS puzzle_attempts_at ON puzzle_attempts (at)",
)
#: The player's rating as the puzzle's update sees it: the rating the page sends is the player's
#: own claim, so it is kept within these bounds (rating) and at least this deviation.
TRUSTED_RATING = (500.0, 2500.0)
TRUSTED_RD = 100.0


@dataclass(frozen=True, slots=True)
class Learned:
    """What the attempts taught about one puzzle."""

    rating: float
    rd: float
    volatility: float
    attempts: int
    solved: int


class PuzzleStats:
    """The puzzles' ratings, attempts and solves, learned from the answers (see the module's note),
    in the games' database. ``max_attempts``: the most attempt marks kept (the oldest go first)."""

    def __init__(self, store: Store, limits: ServeLimits, max_attempts: int = 200_000, cache: float = 10.0):
        self.store = store
        self.limits = limits
        self.max_attempts = max_attempts
        self.cache = cache
        self._all: tuple[float, dict[str, Learned]] | None = None
        self._expired_at = 0.0
        self._lock = threading.Lock()
        self.open()

    def open(self) -> None:
        """Make the tables (each time the app starts)."""
        pg = self.store.path.startswith(("postgresql://", "postgres://"))
        with self.store._transaction() as db:
            if pg:
                db.execute("SELECT pg_advisory_xact_lock(727013)")
            for statement in SCHEMA:
                db.execute(statement.replace(" REAL", " DOUBLE PRECISION") if pg else statement)
        self._all = None

    def get(self, puzzle_id: str) -> Learned | None:
        """What is learned of one puzzle (None before its first counted attempt)."""
        with self.store._connection() as db:
            row = db.execute(
                "SELECT rating, rd, volatility, attempts, solved FROM puzzle_ratings WHERE id = ?",
                (puzzle_id,),
            ).fetchone()
        return (
            None
            if row is None
            else Learned(float(row[0]), float(row[1]), float(row[2]), int(row[3]), int(row[4]))
        )

    def all(self, now: float | None = None) -> dict[str, Learned]:
        """Every puzzle's learned rating, read at most once every ``cache`` seconds (for choosing
        the next puzzle; one puzzle's is read fresh by :meth:`get`)."""
        now = time.monotonic() if now is None else now
        got = self._all
        if got is not None and now - got[0] < self.cache:
            return got[1]
        with self.store._connection() as db:
            rows = db.execute(
                "SELECT id, rating, rd, volatility, attempts, solved FROM puzzle_ratings"
            ).fetchall()
        learned = {
            str(r[0]): Learned(float(r[1]), float(r[2]), float(r[3]), int(r[4]), int(r[5])) for r in rows
        }
        self._all = (now, learned)
        return learned

    def count(
        self, p: Puzzle, who: str, player: Rating, credit: float, now: float | None = None
    ) -> tuple[bool, Learned]:
        """Count a finished attempt of ``p`` by ``who`` (once per puzzle and ``who``): the puzzle's
        Glicko-2 rating moves against the player's (bounded, see :data:`TRUSTED_RATING`). Returns
        whether it was counted, and the puzzle as learned after it."""
        now = time.time() if now is None else now
        self.expire(now)
        lo, hi = TRUSTED_RATING
        trusted = Rating(min(hi, max(lo, player.rating)), max(TRUSTED_RD, player.rd), player.volatility)
        with self.store._transaction(lock_for="puzzles") as db:
            fresh = db.execute(
                "INSERT INTO puzzle_attempts (puzzle, who, at) VALUES (?, ?, ?) "
                "ON CONFLICT (puzzle, who) DO NOTHING",
                (p.id, who, now),
            ).rowcount
            db.execute(
                "INSERT INTO puzzle_ratings (id, rating, rd, volatility, attempts, solved, updated) "
                "VALUES (?, ?, ?, ?, 0, 0, ?) ON CONFLICT (id) DO NOTHING",
                (p.id, p.rating, p.rd, 0.06, now),
            )
            row = db.execute(
                "SELECT rating, rd, volatility, attempts, solved FROM puzzle_ratings WHERE id = ?"
                + self.store.ROW_LOCK,
                (p.id,),
            ).fetchone()
            old = Learned(float(row[0]), float(row[1]), float(row[2]), int(row[3]), int(row[4]))
            if fresh != 1:
                return False, old
            after = attempt(trusted, Rating(old.rating, old.rd, old.volatility), credit)[1]
            new = Learned(
                after.rating, after.rd, after.volatility, old.attempts + 1, old.solved + (credit >= 1.0)
            )
            db.execute(
                "UPDATE puzzle_ratings SET rating = ?, rd = ?, volatility = ?, attempts = ?, solved = ?, "
                "updated = ? WHERE id = ?",
                (new.rating, new.rd, new.volatility, new.attempts, new.solved, now, p.id),
            )
        self._all = None
        return True, new

    def expire(self, now: float, every: float = 60.0) -> int:
        """Forget attempt marks older than ``finished_expiry`` and the oldest past
        ``max_attempts`` (at most once every ``every`` seconds); returns how many went. The
        ratings stay."""
        with self._lock:
            if now - self._expired_at < every:
                return 0
            self._expired_at = now
        with self.store._transaction(lock_for="puzzles") as db:
            gone = db.execute(
                "DELETE FROM puzzle_attempts WHERE at < ?", (now - self.limits.finished_expiry,)
            ).rowcount
            (n,) = db.execute("SELECT COUNT(*) FROM puzzle_attempts").fetchone()
            over = int(n) - self.max_attempts
            if over > 0:
                gone += db.execute(
                    "DELETE FROM puzzle_attempts WHERE (puzzle, who) IN "
                    "(SELECT puzzle, who FROM puzzle_attempts ORDER BY at LIMIT ?)",
                    (over,),
                ).rowcount
        return int(gone)


def who_of(token_hash: str | None, client: str) -> str:
    """Who an attempt is counted for: the player (by its token's hash) or the client's address
    (hashed: the address itself is not kept)."""
    if token_hash is not None:
        return "p:" + token_hash
    return "c:" + hashlib.sha256(client.encode("utf-8")).hexdigest()[:32]


def public(p: Puzzle, learned: Learned | None = None) -> dict[str, Any]:
    """What the page shows before an answer: no answer, no proof; the rating as learned from the
    attempts when there were some."""
    pos = p.position
    rows = ["".join("H" if v >= 9 else str(v) for v in pos.states[r * pos.width : (r + 1) * pos.width])
            for r in range(pos.height)]  # fmt: skip
    return {
        "id": p.id,
        "kind": p.kind,
        "question": p.question,
        "width": pos.width,
        "height": pos.height,
        "mines": pos.mines,
        "rows": rows,
        "themes": list(p.themes),
        "rating": round(learned.rating if learned else p.rating),
        "difficulty": band(learned.rating) if learned else p.difficulty,
        "source": p.source,
        "pair": [_rc(p, c) for c in p.pair],
        "attempts": learned.attempts if learned else 0,
        "solved": learned.solved if learned else 0,
    }


class PlayerIn(BaseModel):
    rating: float = Field(1500.0, ge=0, le=4000)
    rd: float = Field(350.0, gt=0, le=350)
    volatility: float = Field(0.06, gt=0, le=1)


class AnswerIn(BaseModel):
    cell: list[int] = Field(min_length=2, max_length=2)
    flag: bool = False
    fifty: bool | None = None
    marked: list[list[int]] = Field(default_factory=list, max_length=10_000)
    player: PlayerIn | None = None


def _cell(p: Puzzle, rc: list[int]) -> int:
    r, c = rc[0], rc[1] if len(rc) > 1 else -1
    w, h = p.position.width, p.position.height
    if len(rc) != 2 or not (0 <= r < h and 0 <= c < w):
        raise HTTPException(400, f"cell {rc} is off the {w}x{h} board")
    return r * w + c


def api_name(p: Puzzle, cell: int) -> str:
    """A cell as the API's texts name it: ``(row,col)`` from 0, as its cells are given (the page
    shows it in its own form, from 1)."""
    return p.position.geometry.name(cell)


def credit_of(p: Puzzle, right: bool, share: float | None) -> float:
    """An attempt's score: 1 right, 0 wrong; a wrong guess earns the share of the chance kept."""
    if p.kind == "guess" and share is not None and not right:
        return share
    return float(right)


def answer(p: Puzzle, body: AnswerIn) -> dict[str, Any]:
    """The verdict on one answer (see the module's docstring)."""
    cell = _cell(p, body.cell)
    if p.position.states[cell] < 9:
        raise HTTPException(400, f"cell {body.cell} is open already: choose a covered one")
    left: int | None = None
    if p.kind == "all":
        state = AllAttempt(p, api_name)
        mines = set(p.mines)
        for rc in body.marked:
            c = _cell(p, rc)
            if c in p.answer:
                (state.flagged if c in mines else state.opened).add(c)
        v = state.move(cell, body.flag)
        left = state.left
    else:
        if p.kind == "coin" and body.fifty is None:
            raise HTTPException(400, "a coin puzzle needs your call first: fifty true or false")
        v = judge(p, cell, body.fifty, api_name)
    out: dict[str, Any] = {
        "right": v.right,
        "done": v.done,
        "message": v.message,
        "cell": _rc(p, v.cell) if v.cell is not None else None,
        "proof": [_rc(p, n) for n in v.proof],
        "share": v.share,
        "left": left,
    }
    if v.done:
        out["answer"] = [_rc(p, c) for c in p.answer]
        out["mines"] = [_rc(p, c) for c in p.mines]
        out["fifty"] = p.fifty
        if body.player is not None:
            me = Rating(body.player.rating, body.player.rd, body.player.volatility)
            after = attempt(me, Rating(p.rating, p.rd), credit_of(p, v.right, v.share))[0]
            out["player"] = {"rating": after.rating, "rd": after.rd, "volatility": after.volatility}
    return out


def add_puzzle_routes(
    app: FastAPI,
    rate: RateLimiter,
    client: Callable[[Request], str],
    stats: PuzzleStats,
    player_of: Callable[[str], str],
) -> None:
    """The ``/api/puzzles`` endpoints (see the module's docstring); ``player_of`` turns a bearer
    token into the player's hash (401 for a token no player has)."""

    def find(puzzle_id: str) -> Puzzle:
        p = _set()[1].get(puzzle_id)
        if p is None:
            raise HTTPException(404, f"no puzzle {puzzle_id!r}")
        return p

    @app.get("/api/puzzles/themes")
    def themes(request: Request) -> Response:
        rate.hit("hints", client(request))
        puzzles = _set()[0]
        names = Counter(t for p in puzzles for t in p.themes)
        return _json({
            "count": len(puzzles),
            "kinds": dict(Counter(p.kind for p in puzzles)),
            "difficulties": {b: sum(1 for p in puzzles if p.difficulty == b) for b, _ in BANDS},
            "themes": [{"name": n, "count": c} for n, c in sorted(names.items(), key=lambda x: -x[1])],
        })  # fmt: skip

    @app.get("/api/puzzles/next")
    def next_puzzle(
        request: Request,
        kind: str = "",
        theme: str = "",
        difficulty: str = "",
        rating: float = 1500.0,
        seen: str = "",
    ) -> Response:
        rate.hit("hints", client(request))
        pool = _set()[0]
        learned = stats.all()

        def now_rated(p: Puzzle) -> float:
            got = learned.get(p.id)
            return got.rating if got is not None else p.rating

        if kind:
            pool = [p for p in pool if p.kind == kind]
        if theme:
            pool = [p for p in pool if theme in p.themes]
        if difficulty:  # by the rating as learned (the one served)
            pool = [p for p in pool if band(now_rated(p)) == difficulty]
        if not pool:
            raise HTTPException(404, "no puzzle has that kind, theme and difficulty: choose others")
        skip = set(seen.split(",")[:MAX_SEEN]) if seen else set()
        fresh = [p for p in pool if p.id not in skip] or pool
        fresh.sort(key=lambda p: abs(now_rated(p) - rating))
        chosen = random.choice(fresh[:20])
        return _json(public(chosen, stats.get(chosen.id)))

    @app.get("/api/puzzles/daily")
    def daily_puzzle(request: Request) -> Response:
        rate.hit("hints", client(request))
        p = daily(_set()[0])
        return _json({**public(p, stats.get(p.id)), "daily": dt.datetime.now(dt.UTC).date().isoformat()})

    @app.get("/api/puzzles/{puzzle_id}")
    def get_puzzle(puzzle_id: str, request: Request) -> Response:
        rate.hit("hints", client(request))
        return _json(public(find(puzzle_id), stats.get(puzzle_id)))

    @app.post("/api/puzzles/{puzzle_id}/answer")
    def post_answer(puzzle_id: str, body: AnswerIn, request: Request) -> Response:
        who = client(request)
        rate.hit("moves", who)
        p = find(puzzle_id)
        token = _bearer(request)
        player = player_of(token) if token is not None else None
        out = answer(p, body)
        if out["done"]:
            me = body.player
            counted, learned = stats.count(
                p,
                who_of(player, who),
                Rating(me.rating, me.rd, me.volatility) if me is not None else Rating(),
                credit_of(p, out["right"], out["share"]),
            )
            out["counted"] = counted
            out["puzzle"] = {
                "rating": round(learned.rating),
                "rd": round(learned.rd),
                "attempts": learned.attempts,
                "solved": learned.solved,
            }
        return _json(out)


def _bearer(request: Request) -> str | None:
    value = request.headers.get("authorization", "")
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None
