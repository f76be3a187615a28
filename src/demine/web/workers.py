"""Where the web game's heavy work runs: two lanes, each a pool of worker processes with a bound
on the work running and waiting.

- The **quick** lane: hints on the players' own games of ordinary size (milliseconds each).
- The **slow** lane: the analysis board's pasted positions, guess-free boards, hints on boards
  over ``ServeLimits.quick_cells`` and reviews of finished games. It has as many processes as
  calls it runs at once (``ServeLimits.slow_running``), at a lower CPU priority (``nice`` 10, and
  with ``ServeLimits.idle_background`` Linux's ``SCHED_IDLE``), so they take the CPU the server
  and the quick lane leave, and one client may have at most
  ``ServeLimits.heavy_per_client`` requests in it at once (429 past that).

Each lane is **fair**: a free place goes to the most urgent kind of work waiting (a player's own
game first, then analyses and the placing of guess-free boards, then reviews: :data:`GAME`,
:data:`ANALYSIS` and :data:`PLACE`, :data:`REVIEW`), and
within a kind to the client with the fewest calls running, then to the one that has had the least
of the lane's time lately (its seconds of work here, halved every ``memory`` seconds: a client
whose calls take 5 s each gets no more of the time than one whose calls take 50 ms, however many
it sends), then to the one served least recently, then to the longest waiting. In the
slow lane one place is kept for the players' games (``reserve``), so guess-free boards, analyses
and reviews, however many clients send them, never hold every place: a player's hints on a big
board wait at most for another player's.

Past a lane's queue the answer is 503 at once. With no worker processes (``workers=0``: tests,
one-core machines) the work runs in the server's own process: slow work in a thread.
"""

from __future__ import annotations

import asyncio
import math
import os
import time
from collections import Counter
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from demine._process import exit_with_parent
from demine.web.limits import Busy, TooManyRequests
from demine.web.pool import Pool, WorkerDied

#: The client whose request is being served (set by the app for each request), for the slow
#: lane's per-client bound.
CLIENT: ContextVar[str | None] = ContextVar("demine_client", default=None)


def run_when_idle() -> bool:
    """Schedule this process only when no other wants the CPU (Linux's ``SCHED_IDLE``); False where
    the system has no such policy or refuses it (the process is left as it was).

    A niced process still takes a core for a few milliseconds at a time from a server that wakes
    up wanting it (the scheduler shares by weight, and a nice of 10 is a tenth of a normal task's);
    an idle one yields it at once (docs/research/web-abuse.md, part p)."""
    policy = getattr(os, "SCHED_IDLE", None)
    if policy is None or not hasattr(os, "sched_setscheduler"):
        return False
    try:
        os.sched_setscheduler(0, policy, os.sched_param(0))
    except OSError:
        return False
    return True


def _worker_start(parent: int, nice: int, idle: bool = False, every: float = 0.5) -> None:
    """In a worker: lower its priority by ``nice`` (and to ``SCHED_IDLE`` with ``idle``, where the
    system has it: :func:`run_when_idle`), and exit when the server that started it is gone
    (killed with SIGKILL, a server cannot stop its workers itself; they would live on as
    orphans)."""
    if nice:
        os.nice(nice)
    if idle:
        run_when_idle()
    exit_with_parent(parent, every)


def _ready() -> bool:
    return True


#: The kinds of work, most urgent first (a lower number is served first). Only :data:`GAME` work
#: (a player's hints) may take the slow lane's reserved place. Placing a guess-free board
#: (:data:`PLACE`) ranks with analyses: between them the client with the fewest calls running goes
#: first (ranked above them, six addresses asking for impossible boards starved every analysis:
#: 1 answered in 30 s against 50-128, ``benchmarks/web_load.py --abuse``).
GAME, ANALYSIS, REVIEW = 0, 1, 2
PLACE = ANALYSIS


class Lane:
    """One pool of ``processes`` workers (none: in this process), ``running`` calls at once,
    ``queue`` waiting, with ``per_client`` at most that many calls of one client at once, and
    ``reserve`` of the ``running`` places kept for :data:`GAME` work. The workers run ``nice``
    lower than the server, and with ``idle`` only when nothing else wants the CPU (where the
    system can: :func:`run_when_idle`). A client's time here is remembered with a half-life of
    ``memory`` seconds (the module's docstring); ``clock`` is the time it is measured by."""

    def __init__(
        self,
        processes: int,
        running: int,
        queue: int,
        *,
        nice: int = 0,
        idle: bool = False,
        in_thread: bool = False,
        per_client: int | None = None,
        reserve: int = 0,
        memory: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.processes, self.nice = processes, nice
        self.in_thread, self.per_client, self.queue = in_thread, per_client, queue
        self.running, self.reserve = running, min(reserve, running - 1)
        self._active = 0
        self._active_by_client: Counter[str] = Counter()
        self._waiters: list[tuple[int, int, str, asyncio.Future[None]]] = []
        self._seq = self._starts = 0
        self._served: dict[str, int] = {}
        """Each client's latest start (the count of starts then): the least recently served first."""
        self._by_client: Counter[str] = Counter()
        self._memory, self._clock = memory, clock
        self._used: dict[str, tuple[float, float]] = {}
        """Each client's seconds of work here, as of a time: ``(seconds, then)``."""
        self._prune_at = 64
        # every worker started now, not on the first player's click
        self._pool = Pool(processes, _worker_start, (os.getpid(), nice, idle), _ready) if processes else None

    def _room(self, kind: int) -> bool:
        """Whether a call of ``kind`` may start now."""
        return self._active < (self.running if kind == GAME else self.running - self.reserve)

    def _dispatch(self) -> None:
        """Hand the free places to the waiting calls: the most urgent kind first, then the client
        with the fewest calls running, then the one served least recently, then the longest
        waiting."""
        while self._waiters:
            ready = [w for w in self._waiters if self._room(w[0])]
            if not ready:
                return
            now = self._clock()
            w = min(
                ready,
                key=lambda w: (
                    w[0],
                    self._active_by_client[w[2]],
                    self.used(w[2], now),
                    self._served.get(w[2], 0),
                    w[1],
                ),
            )
            self._waiters.remove(w)
            self._take(w[2])
            w[3].set_result(None)

    def _take(self, who: str) -> None:
        self._active += 1
        self._active_by_client[who] += 1
        self._starts += 1
        self._served[who] = self._starts

    def used(self, who: str, now: float | None = None) -> float:
        """``who``'s seconds of work here, each halved for every ``memory`` seconds since."""
        seconds, then = self._used.get(who, (0.0, 0.0))
        if not seconds:
            return 0.0
        return seconds * math.exp2(-((self._clock() if now is None else now) - then) / self._memory)

    def _spent(self, who: str, seconds: float) -> None:
        now = self._clock()
        self._used[who] = (self.used(who, now) + seconds, now)
        if len(self._used) > self._prune_at:  # forget the clients whose time has faded
            faded = [k for k in self._used if self.used(k, now) < 0.001 and k not in self._active_by_client]
            for key in faded:
                del self._used[key]
            self._prune_at = max(64, 2 * len(self._used))

    def _give_back(self, who: str) -> None:
        self._active -= 1
        self._active_by_client[who] -= 1
        if not self._active_by_client[who]:
            del self._active_by_client[who]
            if not any(w[2] == who for w in self._waiters):
                del self._served[who]  # (kept only for the clients with calls here)
        self._dispatch()

    async def run(self, fn: Callable[..., Any], *args: Any, in_thread: bool = False, kind: int = GAME) -> Any:
        """``fn(*args)`` in a worker (awaited, so the server goes on serving), else here (in a
        thread for a slow lane or with ``in_thread``), when its turn comes (see the module's
        docstring). A worker that died is replaced and the call is made here, so a request never
        fails for it."""
        client = CLIENT.get()
        who = client if self.per_client is not None else None
        if who is not None and self._by_client[who] >= (self.per_client or 0):
            raise TooManyRequests(
                f"this address has {self.per_client} heavy requests (analyses, big boards' hints, "
                "reviews) running already: wait for them",
                1,
            )
        key = client or ""
        if not self._room(kind) and len(self._waiters) >= self.queue:
            raise Busy("the server is busy with other players' hints and analyses: try again in a moment")
        if who is not None:
            self._by_client[who] += 1
        try:
            if self._room(kind) and not any(w[0] <= kind for w in self._waiters):
                self._take(key)
            else:
                turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
                self._seq += 1
                entry = (kind, self._seq, key, turn)
                self._waiters.append(entry)
                try:
                    await turn
                except BaseException:
                    if entry in self._waiters:
                        self._waiters.remove(entry)
                    elif turn.done() and not turn.cancelled():
                        self._give_back(key)  # given a place, then cancelled: pass it on
                    raise
            began = self._clock()
            try:
                return await self._call(fn, *args, in_thread=in_thread or self.in_thread)
            finally:
                self._spent(key, self._clock() - began)
                self._give_back(key)
        finally:
            if who is not None:
                self._by_client[who] -= 1
                if not self._by_client[who]:
                    del self._by_client[who]

    async def _call(self, fn: Callable[..., Any], *args: Any, in_thread: bool) -> Any:
        pool = self._pool
        if pool is None:
            return await asyncio.to_thread(fn, *args) if in_thread else fn(*args)
        try:
            return await pool.run(fn, *args)
        except WorkerDied:
            return fn(*args)  # (the pool has replaced the worker already)

    def pids(self) -> list[int]:
        """The worker processes' ids (none when the lane runs here)."""
        return [] if self._pool is None else self._pool.pids()

    def waiting_clients(self) -> int:
        """Clients with a call running or waiting here (counted only with ``per_client``)."""
        return len(self._by_client)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None
