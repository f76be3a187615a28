"""The web game's logic, without the HTTP layer: the games served (made, played, stored, restored,
replayed), their limits and their workers; the hints are in :mod:`demine.web.hints`, a game's
session in :mod:`demine.web.session`. The names the app and the tests use are re-exported here.

Everything a response holds is built here from what the player sees (``Game.position()``); the
layout and a server-chosen seed appear only once a game is over. Hints treat the player's flags as
claims: they are computed on the position with every flag removed, so a wrong flag can never turn
into a wrong hint (a flag that logic proves wrong is reported as such).
"""

from __future__ import annotations

import asyncio
import random
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from demine.analysis.noguess import check_no_guess_reach
from demine.engine.game import MOVE_KINDS, Game, Move
from demine.engine.grid import PRESETS, RULES, check_mines
from demine.engine.position import COVERED, FLAG, Position
from demine.errors import DemineError, IllegalMove, InputError
from demine.web.finished import Answers, Conflict, FinishedReads
from demine.web.hints import (
    GUESS_LIMIT,
    HINT_LIMIT,
    MAX_PASTE,
    MAX_SIDE,
    _check_side,
    _rc,
    analysis_board,
    best_guess,
    first_click_hint,
    guess_for,
    hints,
    one_hint,
    permille,
    quick_hints,
    sized_hints,
)
from demine.web.limits import Busy, ServeLimits, TooManyRequests
from demine.web.session import NO_GUESS_LIMIT, Session, _fixed, _guess_free, _new_game
from demine.web.store import StaleGame, Store
from demine.web.workers import GAME, PLACE, Lane

T = TypeVar("T")

MAX_SEED = 64
"""The longest seed text accepted."""
#: Seconds a move keeps trying when other server processes move the same game meanwhile (each
#: failed try means another move landed, so the game advances; the pause between tries grows).
STALE_PATIENCE = 5.0
CACHE_GAMES = 5000
"""Games kept in memory; older ones are reloaded from the store when asked for."""
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a game id may look like (``secrets.token_urlsafe(16)`` makes 22 of these characters):
anything else is not looked up."""


class NotFound(DemineError):
    """No game has this id."""


def parse_seed(text: str | int | None) -> int | str | None:
    """A seed from the page: digits become an int (as on the command line), other text stays text."""
    if text is None or text == "":
        return None
    if isinstance(text, int):
        return text
    text = text.strip()
    if len(text) > MAX_SEED:
        raise InputError(f"a seed has at most {MAX_SEED} characters, got {len(text)}")
    # ASCII digits only: str.isdigit() accepts "²", which int() refuses
    return int(text) if text.isascii() and text.isdigit() else text


# ---------------------------------------------------------------------------- games
class Service(FinishedReads):
    """The games of one server: made, played, stored, restored and replayed.

    Moves on one game are serialised by the game's lock; different games proceed in parallel.
    """

    def __init__(
        self, store: Store | None = None, workers: int = 0, limits: ServeLimits | None = None
    ) -> None:
        self.store = store or Store()
        self.limits = limits or ServeLimits()
        self._cached_bytes = 0
        self._weights: dict[str, int] = {}
        self._game_locks: dict[str, threading.Lock] = {}
        self._expired_at = 0.0
        self.expire_hooks: list[Callable[[float], object]] = []
        """Called with the time at each expiry (the players' records expire with the games)."""
        self._cache: OrderedDict[str, Session] = OrderedDict()
        self._cache_lock = threading.Lock()
        self.workers = workers
        lim = self.limits
        self.quick = Lane(workers, lim.heavy_running, lim.heavy_queue)
        self.slow = Lane(
            lim.slow_running if workers else 0, lim.slow_running, lim.heavy_queue,
            nice=10, idle=lim.idle_background, in_thread=True, per_client=lim.heavy_per_client, reserve=1,
        )  # fmt: skip
        # reviews: minutes of work for a long game on a big board, so a lane of their own (one
        # process at the lowest priority, one review per client), apart from hints and analyses
        self.reviews = Lane(
            1 if workers else 0,
            1,
            lim.heavy_queue,
            nice=19,
            idle=lim.idle_background,
            in_thread=True,
            per_client=1,
        )
        self._reviewing: dict[str, asyncio.Task[bytes]] = {}
        # a finished game's encoded replay frames: a quarter of the memory bound at most
        self.answers = Answers(lim.cache_bytes // 4)

    # -- the analysis workers: hints are a pure function of the visible position, so they can run
    # in other processes (past the GIL) while this one serves requests
    async def compute(
        self,
        fn: Callable[..., Any],
        *args: Any,
        off_loop: bool = False,
        slow: bool = False,
        kind: int = GAME,
    ) -> Any:
        """``fn(*args)`` in the quick lane of workers, or the slow one, as work of ``kind`` (see
        :mod:`demine.web.workers`); without workers here, in a thread with ``off_loop``."""
        return await (self.slow if slow else self.quick).run(fn, *args, in_thread=off_loop, kind=kind)

    def _slow(self, p: Position) -> bool:
        """Whether hints on ``p`` go to the slow lane (a board over ``limits.quick_cells``)."""
        return p.width * p.height > self.limits.quick_cells

    def close(self) -> None:
        """Stop the workers and close the store."""
        self.quick.close()
        self.slow.close()
        self.reviews.close()
        self.store.close()

    # -- sessions
    def new_game(
        self,
        *,
        preset: str | None = None,
        width: int | None = None,
        height: int | None = None,
        mines: int | None = None,
        rule: str = "safe",
        seed: str | int | None = None,
        no_guess: str | None = None,
        client: str | None = None,
        now: float | None = None,
        hide_seed: bool = False,
        owner: str | None = None,
    ) -> dict[str, Any]:
        """Start a game from a preset or a custom size; returns its view. With ``no_guess``
        (``complete`` or ``local``) the mines are placed at the first click so that the board never
        needs a guess from there. ``client`` (its address) may keep at most
        ``limits.games_per_client`` unfinished games. With ``hide_seed`` a given seed is kept as
        secret as a drawn one until the game ends (a restart of a game whose seed was drawn).
        ``owner``: the hash of its maker's secret (:func:`~demine.web.records.owner_of`), whose
        record alone may hold the game once it is over."""
        if rule not in RULES:
            raise InputError(f"unknown first-click rule {rule!r}; choose one of {', '.join(RULES)}")
        if preset:
            if preset not in PRESETS:
                raise InputError(f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
            pr = PRESETS[preset]
            width, height, mines = pr.width, pr.height, pr.mines
        if width is None or height is None or mines is None:
            raise InputError("give a preset, or width, height and mines")
        _check_side(width, height)
        check_mines(width, height, mines, rule)
        if no_guess not in (None, "complete", "local"):
            raise InputError(f"no_guess must be 'complete' or 'local', got {no_guess!r}")
        if no_guess is not None:
            # a board denser than any found in the first click's budget: refused now, not after
            # that budget is spent in the slow lane
            check_no_guess_reach(width, height, mines, rule, NO_GUESS_LIMIT)
        chosen = parse_seed(seed)
        game = _new_game(
            width, height, mines, rule, chosen if chosen is not None else secrets.randbits(64), no_guess
        )
        now = time.time() if now is None else now
        self.expire(now)
        if client is not None and self.store.live_games(client) >= self.limits.games_per_client:
            raise TooManyRequests(
                f"this address has {self.limits.games_per_client} unfinished games: finish some, or "
                f"they expire after {self.limits.idle_expiry / 86400:g} days without a move",
                3600,
            )
        given = chosen is not None and not hide_seed
        s = Session(secrets.token_urlsafe(16), game, given, now, client=client, owner=owner)
        self.store.save(s.stored(), now)
        self._remember(s)
        return s.view()

    def restart(
        self, game_id: str, client: str | None = None, now: float | None = None, owner: str | None = None
    ) -> dict[str, Any]:
        """A new game of the same kind as ``game_id`` (size, rule, no-guess mode), on the same board
        (its seed: the same first click gives the same layout) when the game is over or its seed
        was the player's; the reply's ``same_board`` says which. A game still in play whose seed
        was drawn gets a new seed: a copy of its board could be lost at once to show its mines, and
        anyone with the game's link may restart it (issue 57). A kept seed stays as hidden as the
        original's while the copy is played. The copy is ``owner``'s (its maker's), as in
        :meth:`new_game`."""
        self._fresh(game_id)  # (another server process may have ended it)
        with self._locked(game_id) as s:
            g, given = s.game, s.seed_given
            same = given or g.over
        v = self.new_game(
            width=g.width,
            height=g.height,
            mines=g.mines,
            rule=g.rule,
            seed=g.seed if same else None,
            no_guess=g.no_guess,
            client=client,
            now=now,
            hide_seed=not given,
            owner=owner,
        )
        v["same_board"] = same
        return v

    def expire(self, now: float, every: float = 60.0) -> int:
        """Delete the expired games (at most once every ``every`` seconds) and keep the file under
        its size; the games deleted leave memory too. Returns how many went."""
        if now - self._expired_at < every:
            return 0
        self._expired_at = now
        lim = self.limits
        gone = self.store.expire(now, lim.idle_expiry, lim.finished_expiry, lim.max_db_bytes)
        for gid in gone:
            self._forget(gid)
        for hook in self.expire_hooks:
            hook(now)
        return len(gone)

    def _remember(self, s: Session) -> None:
        """Keep ``s`` in memory, the least recently used leaving while the estimate of the bytes
        held is over ``limits.cache_bytes`` (or the count over :data:`CACHE_GAMES`)."""
        with self._cache_lock:
            self._cache[s.id] = s
            self._cache.move_to_end(s.id)
            self._cached_bytes += s.weight() - self._weights.get(s.id, 0)
            self._weights[s.id] = s.weight()
            self._evict()

    def _evict(self) -> None:
        """(Under the cache lock.) The least recently used games leave while the memory held is
        over ``limits.cache_bytes`` (or the count over :data:`CACHE_GAMES`); the last one stays."""
        while len(self._cache) > 1 and (
            len(self._cache) > CACHE_GAMES or self.cached_bytes > self.limits.cache_bytes
        ):
            self._drop(next(iter(self._cache)))

    def _reweigh(self, s: Session) -> None:
        """Count a session's growth (a move, hints kept, a review, an export) in the memory held;
        other games leave if it is now over the bound."""
        with self._cache_lock:
            if s.id in self._weights:
                self._cached_bytes += s.weight() - self._weights[s.id]
                self._weights[s.id] = s.weight()
                if s.id in self._cache:
                    self._cache.move_to_end(s.id)
                self._evict()

    @property
    def cached_bytes(self) -> int:
        """The estimate of the bytes the games in memory hold, their kept answers included."""
        return self._cached_bytes + self.answers.size

    def session(self, game_id: str) -> Session:
        """The game with this id, from memory or from the store. An id of another shape than
        :data:`GAME_ID` (too long, a NUL or any other byte an id never holds) is not looked up."""
        if not GAME_ID.fullmatch(game_id):
            shown = game_id if len(game_id) <= 40 else game_id[:40] + "..."
            raise NotFound(f"no game with id {shown!r}")
        with self._cache_lock:
            s = self._cache.get(game_id)
            if s is not None:
                self._cache.move_to_end(game_id)
                return s
        row = self.store.load(game_id)
        if row is None:
            raise NotFound(f"no game with id {game_id!r}")
        s = Session.restore(row)
        with self._cache_lock:  # two threads may restore at once: keep the first
            s = self._cache.setdefault(game_id, s)
        self._remember(s)
        return s

    def _fresh(self, game_id: str) -> None:
        """Drop this process's copy of a game when the file holds more moves (another server
        process on the same file played them): the next use restores it from the file."""
        with self._cache_lock:
            s = self._cache.get(game_id)
        if s is None:
            return
        n = self.store.moves_count(game_id)
        if n is not None and n != len(s.game.moves):
            self._forget(game_id)

    def _moved(self, game_id: str, moves: int) -> bool:
        """Whether the store holds another count of moves than ``moves`` for this game."""
        n = self.store.moves_count(game_id)
        return n is not None and n != moves

    def _forget(self, game_id: str) -> None:
        """Drop this process's copy of a game (the file keeps it)."""
        with self._cache_lock:
            self._drop(game_id)

    def _drop(self, game_id: str) -> None:
        """(Under the cache lock.) A game leaves memory: its session, its weight, and its lock
        unless a move holds it."""
        if self._cache.pop(game_id, None) is not None:
            self._cached_bytes -= self._weights.pop(game_id, 0)
        self.answers.drop(game_id)
        lock = self._game_locks.get(game_id)
        if lock is not None and not lock.locked():
            del self._game_locks[game_id]

    def _lock_of(self, game_id: str) -> threading.Lock:
        """The game's lock (one per game id, so a reload from the file keeps it); made for a game
        that exists only (the caller looked it up)."""
        with self._cache_lock:
            lock = self._game_locks.get(game_id)
            if lock is None:
                lock = self._game_locks[game_id] = threading.Lock()
            return lock

    @contextmanager
    def _locked(self, game_id: str) -> Iterator[Session]:
        """The game, held by its lock. The game is looked up first: an id with no game leaves
        nothing behind (no lock, no entry)."""
        self.session(game_id)  # NotFound when there is no such game
        with self._lock_of(game_id):
            yield self.session(game_id)

    async def _look(self, game_id: str, fn: Callable[[Session], T]) -> T:
        """``fn(game)`` under the game's lock, without ever making the event loop wait: at once
        when the game is in memory and its lock is free, else in a thread (a move of the same
        game being written holds the lock for the write; a game not in memory is read from the
        store). One client's moves queued on its own game never stall the others' requests."""
        with self._cache_lock:
            cached = game_id in self._cache
        if cached:
            lock = self._lock_of(game_id)
            if lock.acquire(blocking=False):
                try:
                    return fn(self.session(game_id))
                finally:
                    lock.release()

        def locked() -> T:
            with self._locked(game_id) as s:
                return fn(s)

        return await asyncio.to_thread(locked)

    def view(self, game_id: str) -> dict[str, Any]:
        """The current view of a game."""
        self._fresh(game_id)
        with self._locked(game_id) as s:
            return s.view()

    async def move(
        self,
        game_id: str,
        kind: str,
        row: int,
        col: int,
        with_hints: bool = False,
        probabilities: bool = True,
        flag: bool | None = None,
    ) -> dict[str, Any]:
        """Play one move; returns the new view with the cells it opened, and with ``with_hints``
        the hints of the new position (under ``"hints"``; none once the game is over). A flag
        move with ``flag`` set puts the cell in that state (nothing is played if it is already)."""
        if kind not in MOVE_KINDS:
            raise InputError(f"unknown move {kind!r}; choose one of {', '.join(MOVE_KINDS)}")

        def where(s: Session) -> tuple[Game, int, bool]:
            g = s.game
            if not (0 <= row < g.height and 0 <= col < g.width):
                raise IllegalMove(f"cell ({row},{col}) is off the {g.width}x{g.height} board")
            return g, row * g.width + col, kind == "reveal" and g.no_guess is not None and not g.placed

        g, cell, unplaced = await self._look(game_id, where)
        board: tuple[int, ...] | None = None
        if unplaced:
            # a guess-free layout takes a while to find: found away from the event loop (in a
            # worker when there are workers), then placed, unless another first click came first;
            # in the client's share of heavy work and not in the place kept for players' hints
            board = await self.compute(
                _guess_free,
                g.width,
                g.height,
                g.mines,
                g.rule,
                cell,
                g.seed,
                g.no_guess,
                slow=True,
                kind=PLACE,
            )
        # played and written in a thread, under the game's lock: the event loop goes on serving,
        # and the move is on disk before it is answered
        v, s, p = await asyncio.to_thread(self._play, game_id, kind, cell, flag, board)
        if with_hints and not s.game.over:
            await self._note_hints(s)
            v["hints_used"] = True
            try:
                v["hints"] = await self._hints_for(s, p, len(s.game.moves), probabilities)
            except Busy:
                # the move is played and stored: it is answered, without its hints (the page asks
                # for them again); refusing it would tell the player a played move failed
                v["hints"], v["hints_pending"] = None, True
        return v

    def _play(
        self, game_id: str, kind: str, cell: int, flag: bool | None, board: tuple[int, ...] | None
    ) -> tuple[dict[str, Any], Session, Position]:
        """One move under the game's lock, written to the file; when another server process on the
        same file moved the game meanwhile, the game is reloaded and the move played on it.

        The copy in memory is not checked against the file before the move (that was a read per
        move: two round trips on PostgreSQL): the write checks the count of moves itself
        (:class:`StaleGame`), and a move that writes nothing (a flag already so, a refused move)
        checks it before it is answered."""
        deadline, pause = time.monotonic() + STALE_PATIENCE, 0.001
        while time.monotonic() < deadline:
            with self._locked(game_id) as s:
                g = s.game
                if board is not None and not g.placed:
                    g.placer = _fixed(board)
                if len(g.moves) >= self.limits.max_moves and not g.over:
                    raise Conflict(f"this game has reached its limit of {self.limits.max_moves} moves")
                before = len(g.moves)
                flagged = g.visible[cell] == FLAG if kind == "flag" else None
                try:
                    opened = [] if flag is not None and flagged == flag else g.play(Move(kind, cell))  # type: ignore[arg-type]
                except Exception:
                    if not self._moved(game_id, before):
                        raise
                    self._forget(game_id)  # refused on an old copy: play again on the file's
                    continue
                now = time.time()
                if s.started is None and g.start is not None:
                    s.started = now
                ending = g.over and s.ended is None
                if ending:
                    s.ended = now
                stale = False
                if len(g.moves) == before:
                    if self._moved(game_id, before):  # nothing written: answer the file's game
                        self._forget(game_id)
                        stale = True
                else:
                    last = g.moves[-1]
                    try:
                        self.store.append(
                            s.id,
                            len(g.moves) - 1,
                            (last.kind, last.cell),
                            layout=g.mine_cells() if g.placed else None,
                            outcome=g.outcome,
                            started=s.started,
                            ended=s.ended,
                            now=now,
                        )
                    except StaleGame:
                        self._forget(game_id)  # this copy went wrong: play again on the file's
                        stale = True
                    except BaseException:
                        # not written (a locked file, a full disk): the move played on this copy
                        # is undone by dropping the copy; the next use reloads what was stored
                        self._forget(game_id)
                        raise
                    else:
                        self._reweigh(s)
                        if ending and not s.hints_used:
                            # hints shown by another server process on the same file count too
                            s.hints_used = self.store.hints_used(s.id)
                if not stale:
                    v = s.view()
                    v["opened"] = [_rc(g.width, c) for c in opened]
                    return v, s, g.position()
            time.sleep(pause * random.random())  # (a worker thread's, not the event loop's)
            pause = min(2 * pause, 0.05)
        raise Conflict("the game is being moved from elsewhere: try again")

    async def hints(self, game_id: str, probabilities: bool = True, guess: bool = True) -> dict[str, Any]:
        """Hints for a game being played (computed from what the player sees). With ``guess``
        False the best guess is left out when no cell is safe (``guess_pending``)."""

        def now(s: Session) -> tuple[Session, Position, int]:
            if s.game.over:
                raise Conflict("the game is over: no hints")
            return s, s.game.position(), len(s.game.moves)

        s, p, moves = await self._look(game_id, now)
        await self._note_hints(s)
        return await self._hints_for(s, p, moves, probabilities, guess)

    async def _note_hints(self, s: Session) -> None:
        """Mark a game in play as played with hints: in memory, and once in the file (one write a
        game, away from the event loop)."""
        if s.hints_used or s.game.over:
            return
        await asyncio.to_thread(self.store.mark_hinted, s.id)
        s.hints_used = True

    async def _hints_for(
        self, s: Session, p: Position, moves: int, probabilities: bool, guess: bool = False
    ) -> dict[str, Any]:
        """The hints of ``s`` at move ``moves`` (position ``p``), computed once per move and kept;
        the best guess is added when first asked for."""
        cached = s.hints_cache
        if cached is None or cached[0] != moves:
            g = s.game
            fresh = all(v >= COVERED for v in p.states)  # nothing opened yet
            size = None
            if fresh:
                h = first_click_hint(g.width, g.height, g.mines, g.rule)
                h["moves"] = moves
            else:  # (weighed in the worker too)
                h, size = await self.compute(sized_hints, p, moves, slow=self._slow(p))
            s.keep_hints(moves, h, size)
            self._reweigh(s)  # hints of a big board weigh more than its game
            cached = (moves, h)
        out = cached[1]
        if guess and out.get("guess_pending"):
            best = await self.compute(guess_for, p, self.limits.guess_limit, slow=self._slow(p))
            out = {k: v for k, v in out.items() if k != "guess_pending"}
            out["best"] = best
            if s.hints_cache is not None and s.hints_cache[1] is cached[1]:
                s.keep_hints(moves, out)
                self._reweigh(s)
        if not probabilities:
            out = {k: v for k, v in out.items() if k != "probabilities"}
        return out

    async def hint(self, game_id: str) -> dict[str, Any]:
        """One move to show: a safe cell with its reason, else the best guess."""
        return one_hint(await self.hints(game_id, probabilities=False, guess=True))


__all__ = [
    "GUESS_LIMIT",
    "HINT_LIMIT",
    "MAX_PASTE",
    "MAX_SIDE",
    "NO_GUESS_LIMIT",
    "Conflict",
    "NotFound",
    "Service",
    "Session",
    "analysis_board",
    "best_guess",
    "guess_for",
    "hints",
    "parse_seed",
    "permille",
    "quick_hints",
]
