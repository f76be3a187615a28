"""A pool of worker processes driven from the event loop itself, without helper threads.

``concurrent.futures.ProcessPoolExecutor`` hands each call to a feeder thread (which pickles it
into a queue) and each result to a manager thread (which unpickles it and wakes the event loop):
three threads and their GIL hand-offs per call, on a server whose threads already wait for a CPU
(docs/research/web-abuse.md, part j). Here the event loop writes a call straight into its
worker's socket and reads the result with ``loop.add_reader``: no thread in between.

Each worker has one socket pair. A call goes to a worker with room (one call running and one
waiting in its socket at most, so a worker never idles between two calls); the others wait in
the pool's queue, in order, and go to the first worker that frees. A worker that dies fails the
calls it held with :class:`WorkerDied` and is replaced at once.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import pickle
import struct
from collections import deque
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

_DEPTH = 2
"""Calls a worker holds at once (one running, one waiting in its socket)."""


class WorkerDied(Exception):
    """The worker that held a call exited before answering it."""


def _frame(payload: bytes) -> bytes:
    """``payload`` framed as ``Connection.send_bytes`` frames it (what the worker reads)."""
    n = len(payload)
    return (struct.pack("!i", n) if n <= 0x7FFFFFFF else struct.pack("!iQ", -1, n)) + payload


def _serve(conn: Connection, start: Callable[..., None], start_args: tuple[Any, ...]) -> None:
    """A worker's life: ``start(*start_args)``, then each call read from ``conn`` answered on it,
    ``(True, result)`` or ``(False, exception)``, until the server closes its end."""
    start(*start_args)
    while True:
        try:
            fn, args = pickle.loads(conn.recv_bytes())
        except EOFError:
            return
        try:
            out: tuple[bool, Any] = (True, fn(*args))
        except BaseException as e:  # (every failure goes back to the caller)
            out = (False, e)
        try:
            data = pickle.dumps(out, pickle.HIGHEST_PROTOCOL)
        except Exception as e:
            data = pickle.dumps((False, RuntimeError(f"the worker's answer could not be sent: {e!r}")))
        conn.send_bytes(data)


class _Worker:
    """One worker process, its end of the socket pair, and the calls it holds (in order)."""

    def __init__(self, pool: Pool) -> None:
        self.pool = pool
        ours, theirs = multiprocessing.Pipe(duplex=True)
        self.process = pool.context.Process(
            target=_serve, args=(theirs, pool.start, pool.start_args), daemon=True
        )
        self.process.start()
        theirs.close()
        self.conn = ours
        self.fd = ours.fileno()
        self.held: deque[asyncio.Future[Any]] = deque()
        self._in = bytearray()
        self._out = bytearray()
        self.loop: asyncio.AbstractEventLoop | None = None

    def ready(self, probe: Callable[[], Any]) -> None:
        """Wait (blocking) until the worker has started and answered ``probe``; then its socket
        turns non-blocking, for the event loop."""
        self.conn.send_bytes(pickle.dumps((probe, ())))
        ok, value = pickle.loads(self.conn.recv_bytes())
        if not ok:
            raise value
        os.set_blocking(self.fd, False)

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Read the worker's answers on ``loop`` (a server runs one loop; tests may run several
        in turn: the worker moves to the current one when it holds nothing)."""
        if self.loop is loop:
            return
        self.unbind()
        loop.add_reader(self.fd, self._readable)
        self.loop = loop

    def unbind(self) -> None:
        if self.loop is not None and not self.loop.is_closed():
            self.loop.remove_reader(self.fd)
            self.loop.remove_writer(self.fd)
        self.loop = None

    def send(self, fut: asyncio.Future[Any], data: bytes) -> None:
        self.held.append(fut)
        frame = _frame(data)
        if self._out:
            self._out += frame
            return
        try:
            n = os.write(self.fd, frame)
        except BlockingIOError:
            n = 0
        except OSError:
            self.died()
            return
        if n < len(frame):
            self._out += frame[n:]
            assert self.loop is not None
            self.loop.add_writer(self.fd, self._writable)

    def _writable(self) -> None:
        try:
            n = os.write(self.fd, self._out)
        except BlockingIOError:
            return
        except OSError:
            self.died()
            return
        del self._out[:n]
        if not self._out and self.loop is not None:
            self.loop.remove_writer(self.fd)

    def _readable(self) -> None:
        try:
            chunk = os.read(self.fd, 1 << 18)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self.died()
            return
        buf = self._in
        buf += chunk
        while len(buf) >= 4:
            (n,) = struct.unpack_from("!i", buf)
            head = 4
            if n == -1:
                if len(buf) < 12:
                    break
                (n,) = struct.unpack_from("!Q", buf, 4)
                head = 12
            if len(buf) < head + n:
                break
            data = bytes(buf[head : head + n])
            del buf[: head + n]
            fut = self.held.popleft()
            try:
                ok, value = pickle.loads(data)
            except Exception as e:
                ok, value = False, RuntimeError(f"the worker's answer could not be read: {e!r}")
            if not fut.done():
                if ok:
                    fut.set_result(value)
                else:
                    fut.set_exception(value)
        self.pool.freed(self)

    def died(self) -> None:
        """The worker's socket closed: fail what it held, and the pool replaces it."""
        loop = self.loop
        self.unbind()
        held, self.held = self.held, deque()
        for fut in held:
            if not fut.done():
                fut.set_exception(WorkerDied("a worker process exited"))
        self.stop(0.0)
        self.pool.replace(self, loop)

    def stop(self, wait: float) -> None:
        self.conn.close()
        self.process.join(wait)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(1.0)


class Pool:
    """``processes`` worker processes (made with the ``spawn`` method), each running
    ``start(*start_args)`` first; ``await pool.run(fn, *args)`` is ``fn(*args)`` in one of them.
    Made outside the event loop (it waits for every worker to start); used from one loop at a
    time."""

    def __init__(
        self,
        processes: int,
        start: Callable[..., None],
        start_args: tuple[Any, ...],
        probe: Callable[[], Any],
    ) -> None:
        self.context = multiprocessing.get_context("spawn")
        self.start, self.start_args, self.probe = start, start_args, probe
        self.waiting: deque[tuple[asyncio.Future[Any], bytes]] = deque()
        self.workers = [_Worker(self) for _ in range(processes)]
        for w in self.workers:
            w.ready(probe)
        self.closed = False

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        if self.closed:
            raise WorkerDied("the pool is closed")
        loop = asyncio.get_running_loop()
        data = pickle.dumps((fn, args), pickle.HIGHEST_PROTOCOL)
        fut: asyncio.Future[Any] = loop.create_future()
        for w in self.workers:
            if w.loop is not loop and not w.held:
                w.bind(loop)
        free = [w for w in self.workers if w.loop is loop and len(w.held) < _DEPTH]
        if free and not self.waiting:
            min(free, key=lambda w: len(w.held)).send(fut, data)
        else:
            self.waiting.append((fut, data))
        return await fut

    def freed(self, w: _Worker) -> None:
        """``w`` answered: give it the next calls waiting (those still wanted)."""
        while self.waiting and len(w.held) < _DEPTH and w.loop is not None:
            fut, data = self.waiting.popleft()
            if not fut.done():
                w.send(fut, data)

    def replace(self, w: _Worker, loop: asyncio.AbstractEventLoop | None) -> None:
        """A new worker in ``w``'s place (not waited for: the calls sent to it wait in its socket
        until it has started)."""
        if self.closed or w not in self.workers:
            return
        new = _Worker(self)
        os.set_blocking(new.fd, False)
        self.workers[self.workers.index(w)] = new
        if loop is not None and not loop.is_closed():
            new.bind(loop)
            self.freed(new)

    def pids(self) -> list[int]:
        return [w.process.pid for w in self.workers if w.process.pid is not None]

    def close(self) -> None:
        """Stop the workers: each sees its socket close and exits (killed if it is still busy
        after a moment). Calls still waiting are cancelled."""
        self.closed = True
        for w in self.workers:
            w.unbind()
            w.conn.close()
        for w in self.workers:
            w.stop(2.0)
        pending = [f for f, _ in self.waiting] + [f for w in self.workers for f in w.held]
        for fut in pending:
            if not fut.get_loop().is_closed():
                fut.get_loop().call_soon_threadsafe(fut.cancel)
        self.waiting.clear()
