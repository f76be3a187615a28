"""A finished game's reads: its replay frames, its review and its export (:class:`FinishedReads`,
a part of :class:`~demine.web.service.Service`).

Once the store has accepted a game's end, these answers never change, so each is encoded once and
its bytes kept: a frame in :class:`Answers` (a small cache, least recently used first, counted in
the memory bound of the games), the review and the export with the game's session. A request for
a kept answer is served on the event loop at once (:meth:`FinishedReads.kept`): no thread, no
store read, no JSON. Nothing is kept before the game is over in the copy the game's lock guards,
and a move is in that copy only once the store accepted it (a failed write drops the copy), so no
answer holding the layout exists before the store holds the end.

Measured on a finished 100x100 game with 5,000 mines and 602 moves (in process): a replay frame
took 12 ms to build and 4-6 ms to encode (50 KB of JSON), a kept review's answer 11 ms in a thread
(its record made again at each request) and 5-8 ms of JSON on the event loop (171 KB).
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections import OrderedDict
from contextlib import AbstractContextManager
from typing import Any

from demine.analysis import Limit
from demine.engine.formats import GameRecord, board_to_mbf
from demine.errors import DemineError, InputError
from demine.web.hints import _rc, analysis_board, game_review
from demine.web.limits import ServeLimits
from demine.web.session import Session
from demine.web.workers import REVIEW, Lane


class Conflict(DemineError):
    """The request does not fit the game's state (e.g. a replay of a game still played)."""


def encode(obj: Any) -> bytes:
    """An answer as the API sends it: compact JSON."""
    return json.dumps(obj, separators=(",", ":")).encode()


def review_json(record: dict[str, Any]) -> bytes:
    """:func:`~demine.web.hints.game_review`, encoded where it is computed (a worker process hands
    back bytes, which cost the server nothing to unpickle, instead of a dict of 100 KB+)."""
    return encode(game_review(record))


#: What stands for a replay frame's ``mine_cells`` while the rest of the frame is encoded; the
#: game's list, encoded once, replaces it (:meth:`FinishedReads.replay_bytes`).
_MINES_MARK = "\x00mine_cells\x00"
_MINES_MARK_JSON = encode(_MINES_MARK)


def analysis_json(text: str, mines: int | None, trust_flags: bool, guess_limit: Limit) -> bytes:
    """:func:`~demine.web.hints.analysis_board`, encoded where it is computed (as
    :func:`review_json`): the answer (63 KB of JSON for the heaviest paste) took 1.4 ms of
    ``json.dumps`` on the event loop, holding the GIL, after the server unpickled it."""
    return encode(analysis_board(text, mines, trust_flags, guess_limit))


class Answers:
    """Encoded answers about finished games by (game id, what), least recently used leaving first
    while their bytes are over ``limit``. Not locked: the caller holds the service's cache lock."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0
        """The bytes held (the answers' lengths plus a small overhead each)."""
        self._kept: OrderedDict[tuple[str, str], bytes] = OrderedDict()
        self._of_game: dict[str, set[tuple[str, str]]] = {}

    OVERHEAD = 200
    """Bytes counted per answer besides its text (the key, the entries)."""

    def get(self, key: tuple[str, str]) -> bytes | None:
        data = self._kept.get(key)
        if data is not None:
            self._kept.move_to_end(key)
        return data

    def put(self, key: tuple[str, str], data: bytes) -> None:
        if len(data) + self.OVERHEAD > self.limit or key in self._kept:
            return
        self._kept[key] = data
        self._of_game.setdefault(key[0], set()).add(key)
        self.size += len(data) + self.OVERHEAD
        while self.size > self.limit:
            self._pop(next(iter(self._kept)))

    def drop(self, game_id: str) -> None:
        """Forget every answer about this game (it left memory, or the store deleted it)."""
        for key in self._of_game.pop(game_id, set()):
            data = self._kept.pop(key)
            self.size -= len(data) + self.OVERHEAD

    def _pop(self, key: tuple[str, str]) -> None:
        data = self._kept.pop(key)
        self.size -= len(data) + self.OVERHEAD
        keys = self._of_game[key[0]]
        keys.discard(key)
        if not keys:
            del self._of_game[key[0]]

    def __len__(self) -> int:
        return len(self._kept)


class FinishedReads:
    """Replays, reviews and exports of finished games, for :class:`~demine.web.service.Service`
    (which provides what is declared here)."""

    limits: ServeLimits
    answers: Answers
    reviews: Lane
    _reviewing: dict[str, asyncio.Task[bytes]]
    _cache: OrderedDict[str, Session]
    _cache_lock: Any

    def session(self, game_id: str) -> Session:
        raise NotImplementedError

    def _fresh(self, game_id: str) -> None:
        raise NotImplementedError

    def _locked(self, game_id: str) -> AbstractContextManager[Session]:
        raise NotImplementedError

    def _reweigh(self, s: Session) -> None:
        raise NotImplementedError

    def _evict(self) -> None:
        raise NotImplementedError

    def kept(self, game_id: str, what: str) -> bytes | None:
        """The encoded answer ``what`` (``replay K``, ``review``, ``export``) about a finished
        game if it is kept already, else None: cheap enough for the event loop (no store read,
        no thread; made only under the game's lock from a game the store holds finished)."""
        with self._cache_lock:
            if what.startswith("replay"):
                return self.answers.get((game_id, what))
            s = self._cache.get(game_id)
            if s is None:
                return None
            self._cache.move_to_end(game_id)
            return s.review_bytes if what == "review" else s.export_cache

    def _keep(self, game_id: str, what: str, data: bytes) -> None:
        with self._cache_lock:
            if game_id in self._cache:  # (a game gone from memory keeps nothing)
                self.answers.put((game_id, what), data)
                self._evict()

    def replay(self, game_id: str, k: int) -> dict[str, Any]:
        """The board after the first ``k`` moves of a finished game (as the store holds it). A
        frame costs at most a sixteenth of the game's moves (:meth:`Session.frame`)."""
        return self._replay(game_id, k)[1]

    def _replay(self, game_id: str, k: int) -> tuple[Session, dict[str, Any]]:
        """:meth:`replay`, with the game's session it was made from."""
        self._fresh(game_id)
        with self._locked(game_id) as s:
            g = s.game
            if not g.over:
                raise Conflict("the game is still being played; a replay opens when it ends")
            if not (0 <= k <= len(g.moves)):
                raise InputError(f"move {k} is out of range: this game has {len(g.moves)} moves")
            kept = len(s.frames)
            # a game that is over has its layout
            frame = s.frame(k, lambda: GameRecord.from_game(g).board.game(g.lives))
        if len(s.frames) != kept:
            self._reweigh(s)
        v = s.view(frame, final=True)
        v["moves"] = v["move"] = k
        last = g.moves[k - 1] if k else None
        v["last"] = None if last is None else {"kind": last.kind, "cell": _rc(g.width, last.cell)}
        return s, v

    def replay_bytes(self, game_id: str, k: int) -> bytes:
        """:meth:`replay`, encoded, and kept in :attr:`answers` (a finished game's frame never
        changes)."""
        what = f"replay {k}"
        data = self.kept(game_id, what)
        if data is None:
            data = self._frame_json(*self._replay(game_id, k))
            self._keep(game_id, what, data)
        return data

    def _frame_json(self, s: Session, frame: dict[str, Any]) -> bytes:
        """``encode(frame)`` (a frame of ``s``'s game), with the game's mine list (the same in each
        of its frames) encoded once and spliced in. Only numbers and move kinds follow
        ``mine_cells`` in a frame (the seed, a text, comes before it), so the last mark is the one
        put there."""
        had = s._mines_json is not None
        mines = s.mine_cells_json()
        if not had:
            self._reweigh(s)
        head, _mark, tail = encode({**frame, "mine_cells": _MINES_MARK}).rpartition(_MINES_MARK_JSON)
        return head + mines + tail

    async def review(self, game_id: str) -> tuple[int, bytes]:
        """The review of a finished game as the store holds it (200 and its JSON), computed once
        in the lane of reviews and kept encoded. A review not ready within ``limits.review_wait``
        seconds goes on in the background, and the answer (202) says it is being prepared
        (``{"preparing": true, ...}``): ask again later. (A long game on a big board takes
        minutes: every move is analysed.)"""
        if (data := self.kept(game_id, "review")) is not None:
            return 200, data

        def finished() -> tuple[Session, bytes | None, dict[str, Any] | None]:
            self._fresh(game_id)
            with self._locked(game_id) as s:
                g = s.game
                if not g.over or not g.placed:
                    raise Conflict("a game is reviewed once it is over")
                if s.review_bytes is not None or game_id in self._reviewing:
                    return s, s.review_bytes, None  # (its record is not made again)
                return s, None, GameRecord.from_game(g).to_json()

        s, cached, record = await asyncio.to_thread(finished)  # (the store is read: not on the loop)
        if cached is not None:
            return 200, cached
        task = self._reviewing.get(game_id)
        if task is None:
            if record is None:  # (the review running then ended meanwhile)
                return await self.review(game_id)
            task = asyncio.create_task(self._review(s, record))
            self._reviewing[game_id] = task
            task.add_done_callback(lambda t: self._review_done(game_id, t))
        done, _ = await asyncio.wait({task}, timeout=self.limits.review_wait)
        if task in done:
            return 200, task.result()  # (or its error: 429 past the client's share, 503 past the queue)
        n = len(s.game.moves)
        return 202, encode(
            {
                "preparing": True,
                "moves": n,
                "text": f"The review of this {n:,}-move game is being prepared: every move is analysed.",
            }
        )

    async def _review(self, s: Session, record: dict[str, Any]) -> bytes:
        out: bytes = await self.reviews.run(review_json, record, kind=REVIEW)
        s.keep_review(out)
        self._reweigh(s)
        return out

    def _review_done(self, game_id: str, task: asyncio.Task[bytes]) -> None:
        self._reviewing.pop(game_id, None)
        if not task.cancelled():
            task.exception()  # (retrieved: a failure is answered to the next request, not logged)

    def export(self, game_id: str) -> bytes:
        """A finished game's record (layout, rule, start, moves) and MBF, as the store holds it:
        JSON text, made once and kept."""
        self._fresh(game_id)
        with self._locked(game_id) as s:
            g = s.game
            if not g.over or not g.placed:
                raise Conflict("the layout is shown when the game is over")
            if s.export_cache is not None:
                return s.export_cache
            record = GameRecord.from_game(g)
            hinted = s.hints_used
        # (hints_used: the web's own field; a reader of game records that does not know it
        # reads the record as ever)
        out: dict[str, Any] = {"record": {**record.to_json(), "hints_used": hinted}}
        try:
            out["mbf"] = base64.b64encode(board_to_mbf(record.board)).decode("ascii")
        except DemineError:
            out["mbf"] = None
        data = encode(out)
        s.keep_export(data)
        self._reweigh(s)
        return data


__all__ = ["Answers", "Conflict", "FinishedReads", "analysis_json", "encode", "review_json"]
