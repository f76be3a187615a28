"""Where the web game's heavy work runs: two lanes, each a pool of worker processes with a bound
on the work running and waiting.

- The **quick** lane: hints on the players' own games of ordinary size (milliseconds each).
- The **slow** lane: the analysis board's pasted positions, guess-free boards and hints on boards
  over ``ServeLimits.quick_cells`` (each up to its budget, half a second). Its processes run at a
  lower CPU priority (``nice`` 10), so they take the CPU the server and the quick lane leave, and
  one client may have at most ``ServeLimits.heavy_per_client`` requests in it at once (429 past
  that): a client sending the heaviest analyses back to back slows itself, not the players.

Past a lane's queue the answer is 503 at once. With no worker processes (``workers=0``: tests,
one-core machines) the work runs in the server's own process: slow work in a thread.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextvars import ContextVar
from typing import Any

from demine.web.limits import Busy, TooManyRequests

#: The client whose request is being served (set by the app for each request), for the slow
#: lane's per-client bound.
CLIENT: ContextVar[str | None] = ContextVar("demine_client", default=None)


def _worker_start(parent: int, nice: int, every: float = 0.5) -> None:
    """In a worker: lower its priority by ``nice``, and exit when the server that started it is
    gone (killed with SIGKILL, a server cannot stop its workers itself; they would live on as
    orphans)."""
    if nice:
        os.nice(nice)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os._exit(0)

    threading.Thread(target=watch, daemon=True, name="demine-parent-watch").start()


def _ready() -> bool:
    return True


class Lane:
    """One pool of ``processes`` workers (none: in this process), ``running`` calls at once,
    ``queue`` waiting, and with ``per_client`` at most that many calls of one client at once."""

    def __init__(
        self,
        processes: int,
        running: int,
        queue: int,
        *,
        nice: int = 0,
        in_thread: bool = False,
        per_client: int | None = None,
    ) -> None:
        self.processes, self.nice = processes, nice
        self.in_thread, self.per_client, self.queue = in_thread, per_client, queue
        self._running = asyncio.Semaphore(running)
        self._waiting = 0
        self._by_client: Counter[str] = Counter()
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        if processes:
            self._start()

    def _start(self) -> None:
        self._pool = ProcessPoolExecutor(
            self.processes,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_worker_start,
            initargs=(os.getpid(), self.nice),
        )
        for f in [self._pool.submit(_ready) for _ in range(self.processes)]:
            f.result()  # start every worker now, not on the first player's click

    async def run(self, fn: Callable[..., Any], *args: Any, in_thread: bool = False) -> Any:
        """``fn(*args)`` in a worker (awaited, so the server goes on serving), else here (in a
        thread for a slow lane or with ``in_thread``). A worker that died is replaced and the call
        is made here, so a request never fails for it."""
        who = CLIENT.get() if self.per_client is not None else None
        if who is not None and self._by_client[who] >= (self.per_client or 0):
            raise TooManyRequests(
                f"this address has {self.per_client} heavy requests (analyses, big boards' hints) "
                "running already: wait for them",
                1,
            )
        if self._running.locked() and self._waiting >= self.queue:
            raise Busy("the server is busy with other players' hints and analyses: try again in a moment")
        if who is not None:
            self._by_client[who] += 1
        try:
            self._waiting += 1
            try:
                await self._running.acquire()
            finally:
                self._waiting -= 1
            try:
                return await self._call(fn, *args, in_thread=in_thread or self.in_thread)
            finally:
                self._running.release()
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
            return await asyncio.wrap_future(pool.submit(fn, *args))
        except BrokenProcessPool:
            with self._lock:
                if self._pool is pool:
                    self._start()
            return fn(*args)

    def pids(self) -> list[int]:
        """The worker processes' ids (none when the lane runs here)."""
        pool = self._pool
        return [] if pool is None else list(pool._processes or {})

    def waiting_clients(self) -> int:
        """Clients with a call running or waiting here (counted only with ``per_client``)."""
        return len(self._by_client)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None
