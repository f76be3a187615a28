"""The worker pool the lanes run on: driven by the event loop, without helper threads."""

from __future__ import annotations

import asyncio
import operator
import os
import signal
import threading
import time

import pytest

from demine.web.pool import Pool, WorkerDied
from demine.web.workers import Lane, _ready, _worker_start


def _pool(n: int) -> Pool:
    return Pool(n, _worker_start, (os.getpid(), 0), _ready)


def test_calls_run_in_the_workers_in_order_and_their_errors_come_back() -> None:
    pool = _pool(2)
    try:

        async def scenario() -> None:
            pids = await asyncio.gather(*(pool.run(os.getpid) for _ in range(40)))
            assert set(pids) <= set(pool.pids()) and os.getpid() not in pids
            # more calls than the workers hold: the rest wait in the pool, all answered, each its own
            sums = await asyncio.gather(*(pool.run(operator.add, i, 1) for i in range(100)))
            assert sums == [i + 1 for i in range(100)]
            with pytest.raises(ZeroDivisionError):
                await pool.run(operator.truediv, 1, 0)
            # an answer far over a socket's buffer, read in pieces by the loop
            assert await pool.run(bytes, 3_000_000) == bytes(3_000_000)

        asyncio.run(scenario())
        asyncio.run(scenario())  # another event loop after the first: the workers move to it
    finally:
        pool.close()
    assert pool.pids() and not any(_alive(p) for p in pool.pids())


def test_the_pool_starts_no_thread_in_the_server() -> None:
    # concurrent.futures' process pool adds a manager thread (and the queue's feeder thread) to
    # the server process: every result crossed it before the event loop had it
    before = set(threading.enumerate())
    pool = _pool(1)
    try:

        async def scenario() -> set[threading.Thread]:
            await asyncio.gather(*(pool.run(time.sleep, 0.01) for _ in range(4)))
            return set(threading.enumerate())

        assert asyncio.run(scenario()) == before
    finally:
        pool.close()


def test_a_killed_worker_fails_its_calls_and_is_replaced() -> None:
    pool = _pool(1)
    try:

        async def scenario() -> None:
            (pid,) = pool.pids()
            held = asyncio.ensure_future(pool.run(time.sleep, 30))
            await asyncio.sleep(0.5)
            os.kill(pid, signal.SIGKILL)
            with pytest.raises(WorkerDied):
                await asyncio.wait_for(held, 10)
            (new,) = pool.pids()
            assert new != pid
            assert await asyncio.wait_for(pool.run(os.getpid), 30) == new  # the new one serves

        asyncio.run(scenario())
    finally:
        pool.close()


def test_a_lane_makes_a_dead_workers_call_here_and_goes_on() -> None:
    lane = Lane(1, 4, 16)
    try:

        async def scenario() -> None:
            (pid,) = lane.pids()
            os.kill(pid, signal.SIGKILL)
            time.sleep(0.2)
            # the call sent to the dead worker is made in this process: the request never fails
            assert await lane.run(os.getpid) == os.getpid()
            assert await asyncio.wait_for(lane.run(os.getpid), 30) not in (pid, os.getpid())

        asyncio.run(scenario())
    finally:
        lane.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
