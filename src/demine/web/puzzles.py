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
  answer, mines, player}``: for an ``all`` puzzle one move at a time (``marked``: the cells
  already marked right); once done, the answer and the player's new Glicko-2 rating.

A puzzle is ``{id, kind, question, width, height, mines, rows, themes, rating, difficulty,
source, pair}`` (rows as in the games: ``H`` covered, ``0``-``8`` numbers; ``pair``: a coin's two
cells).
"""

from __future__ import annotations

import datetime as dt
import json
import random
from collections import Counter
from collections.abc import Callable
from functools import cache
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from demine.puzzles import Puzzle, Rating, attempt, daily, read_puzzles
from demine.puzzles.judge import AllAttempt, judge
from demine.puzzles.model import BANDS
from demine.web.limits import RateLimiter

#: The most ids ``seen`` may name.
MAX_SEEN = 500


@cache
def _set() -> tuple[list[Puzzle], dict[str, Puzzle]]:
    puzzles = read_puzzles()
    return puzzles, {p.id: p for p in puzzles}


def _rc(p: Puzzle, cell: int) -> list[int]:
    return list(divmod(cell, p.position.width))


def public(p: Puzzle) -> dict[str, Any]:
    """What the page shows before an answer: no answer, no proof."""
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
        "rating": round(p.rating),
        "difficulty": p.difficulty,
        "source": p.source,
        "pair": [_rc(p, c) for c in p.pair],
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


def answer(p: Puzzle, body: AnswerIn) -> dict[str, Any]:
    """The verdict on one answer (see the module's docstring)."""
    cell = _cell(p, body.cell)
    if p.position.states[cell] < 9:
        raise HTTPException(400, f"cell {body.cell} is open already: choose a covered one")
    left: int | None = None
    if p.kind == "all":
        state = AllAttempt(p)
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
        v = judge(p, cell, body.fifty)
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
            credit: float = float(v.right)
            if p.kind == "guess" and v.share is not None:
                credit = v.share if not v.right else 1.0
            after = attempt(me, Rating(p.rating, p.rd), credit)[0]
            out["player"] = {"rating": after.rating, "rd": after.rd, "volatility": after.volatility}
    return out


def add_puzzle_routes(app: FastAPI, rate: RateLimiter, client: Callable[[Request], str]) -> None:
    """The ``/api/puzzles`` endpoints (see the module's docstring)."""

    def _json(obj: Any) -> Response:
        return Response(json.dumps(obj, separators=(",", ":")), media_type="application/json")

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
        if kind:
            pool = [p for p in pool if p.kind == kind]
        if theme:
            pool = [p for p in pool if theme in p.themes]
        if difficulty:
            pool = [p for p in pool if p.difficulty == difficulty]
        if not pool:
            raise HTTPException(404, "no puzzle has that kind, theme and difficulty: choose others")
        skip = set(seen.split(",")[:MAX_SEEN]) if seen else set()
        fresh = [p for p in pool if p.id not in skip] or pool
        fresh.sort(key=lambda p: abs(p.rating - rating))
        return _json(public(random.choice(fresh[:20])))

    @app.get("/api/puzzles/daily")
    def daily_puzzle(request: Request) -> Response:
        rate.hit("hints", client(request))
        p = daily(_set()[0])
        return _json({**public(p), "daily": dt.datetime.now(dt.UTC).date().isoformat()})

    @app.get("/api/puzzles/{puzzle_id}")
    def get_puzzle(puzzle_id: str, request: Request) -> Response:
        rate.hit("hints", client(request))
        return _json(public(find(puzzle_id)))

    @app.post("/api/puzzles/{puzzle_id}/answer")
    def post_answer(puzzle_id: str, body: AnswerIn, request: Request) -> Response:
        rate.hit("moves", client(request))
        return _json(answer(find(puzzle_id), body))
