"""Fairness between clients (issue 34, the abuse benchmark): each client's requests go through a
few places of its own, a move queued on its own game never makes the event loop wait, and a move
whose hints cannot be queued is answered without them (it was played)."""

from __future__ import annotations

import asyncio
import threading
import time

import httpx
import pytest
from fastapi.testclient import TestClient

from demine.errors import InputError
from demine.web.app import create_app
from demine.web.limits import ClientGate, RateLimiter, ServeLimits, TooManyRequests
from demine.web.service import Service
from demine.web.workers import CLIENT

OFF = {k: None for k in ("games", "moves", "hints", "views")}


def test_a_client_has_its_places_and_its_other_requests_wait_in_order() -> None:
    async def scenario() -> tuple[list[str], int, int]:
        gate = ClientGate(2)
        order: list[str] = []
        release = asyncio.Event()

        async def request(who: str, name: str) -> None:
            async with gate.turn(who):
                order.append(name)
                await release.wait()

        flood = [asyncio.create_task(request("a", f"a{k}")) for k in range(5)]
        await asyncio.sleep(0.01)
        waiting = gate.waiting("a")
        other = asyncio.create_task(request("b", "b0"))
        await asyncio.sleep(0.01)
        flood[3].cancel()  # a waiting request that goes away gives up its turn
        await asyncio.sleep(0.01)
        release.set()
        await asyncio.gather(*flood, other, return_exceptions=True)
        return order, waiting, gate.clients()

    order, waiting, left = asyncio.run(scenario())
    assert waiting == 3  # five sent, two handled, three waiting
    assert order[:3] == ["a0", "a1", "b0"]  # the other client was not behind the flood
    assert order[3:] == ["a2", "a4"]  # the rest in order, the cancelled one skipped
    assert left == 0  # nothing kept once a client has nothing here


def _hold_and_ask(limits: ServeLimits, ask_flood: str) -> tuple[float, int, list[int], float]:
    """Client A's game is locked (as a write of one of its moves holds it) while A sends 6
    requests ``ask_flood`` (``view`` or ``hints``) on it; client B plays a game of its own
    meanwhile. Returns when B was done (seconds after the start), A's requests waiting at the gate then, A's statuses once the
    lock goes, and when the lock went (seconds after the start)."""
    app = create_app(limits=limits)
    service = app.state.service

    async def scenario() -> tuple[float, int, list[int], float]:
        a = httpx.AsyncClient(transport=httpx.ASGITransport(app, client=("10.0.0.1", 1)), base_url="http://t")
        b = httpx.AsyncClient(transport=httpx.ASGITransport(app, client=("10.0.0.2", 1)), base_url="http://t")
        gid = (await a.post("/api/games", json={"preset": "expert", "rule": "zero"})).json()["id"]
        await a.post(f"/api/games/{gid}/moves", json={"kind": "reveal", "row": 3, "col": 3})
        lock = service._lock_of(gid)
        lock.acquire()
        t0 = time.monotonic()
        freed: list[float] = []

        def free() -> None:
            freed.append(time.monotonic() - t0)
            lock.release()

        timer = threading.Timer(4.0, free)  # (from another thread: the loop must not be needed)
        timer.start()
        path = f"/api/games/{gid}" if ask_flood == "view" else f"/api/games/{gid}/hints"
        flood = [asyncio.create_task(a.get(path)) for _ in range(6)]
        await asyncio.sleep(0.3)
        waiting = app.state.gate.waiting("10.0.0.1")
        other = (await b.post("/api/games", json={"preset": "expert", "rule": "zero"})).json()["id"]
        r = await b.post(f"/api/games/{other}/moves?hints=1", json={"kind": "reveal", "row": 3, "col": 3})
        assert r.status_code == 200 and "hints" in r.json()
        b_time = time.monotonic() - t0  # B done, after the start
        codes = [r.status_code for r in await asyncio.gather(*flood)]
        timer.join()
        await a.aclose()
        await b.aclose()
        return b_time, waiting, codes, freed[0]

    try:
        return asyncio.run(scenario())
    finally:
        service.close()


@pytest.mark.parametrize("ask", ["view", "hints"])
def test_a_flood_on_a_locked_game_neither_stalls_the_loop_nor_takes_more_than_its_places(ask: str) -> None:
    # before: hints took the game's lock on the event loop, so the whole server waited for the
    # write holding it (here 4 s), and a client's requests had no bound but its connections
    b_time, waiting, codes, freed = _hold_and_ask(ServeLimits(**OFF, running_per_client=2), ask)  # type: ignore[arg-type]
    assert b_time < freed - 1.0, f"client B waited {b_time:.1f} s for A's locked game"
    assert waiting == 4  # 6 sent: 2 handled (waiting for the lock in threads), 4 at the gate
    assert codes == [200] * 6  # all answered once the lock went


def test_a_move_whose_hints_cannot_be_queued_is_answered_without_them() -> None:
    # the quick lane's one place is taken and it queues nothing: before, the move was played and
    # stored but answered 503, so the page showed a failure for a move that happened
    app = create_app(limits=ServeLimits(**OFF, heavy_running=1, heavy_queue=0))  # type: ignore[arg-type]
    service = app.state.service
    with TestClient(app) as c:
        gid = c.post("/api/games", json={"preset": "expert", "rule": "zero"}).json()["id"]
        c.post(f"/api/games/{gid}/moves", json={"kind": "reveal", "row": 3, "col": 3})
        service.quick._take("someone else")
        r = c.post(f"/api/games/{gid}/moves?hints=1", json={"kind": "flag", "row": 15, "col": 29})
        assert r.status_code == 200
        v = r.json()
        assert v["hints_pending"] is True and v["hints"] is None
        assert c.get(f"/api/games/{gid}").json()["flags"] == 1  # played and stored
        assert c.get(f"/api/games/{gid}/hints").status_code == 503  # asked again: still busy
        service.quick._give_back("someone else")
        h = c.get(f"/api/games/{gid}/hints")
        assert h.status_code == 200 and "safe" in h.json()


def test_rates_are_counted_without_a_thread_per_request(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rate counting starts no thread: ``limits``' in-memory storage started a timer thread
    whenever its last one had run out (10 ms), and the event loop waited for each to start."""
    started: list[str] = []
    start = threading.Thread.start

    def counted(self: threading.Thread) -> None:
        started.append(self.name)
        start(self)

    rate = RateLimiter(ServeLimits())
    monkeypatch.setattr(threading.Thread, "start", counted)
    for k in range(6):
        rate.hit("views", f"client{k}")
        time.sleep(0.015)  # past the old timer's 10 ms
    assert started == []


def test_rates_are_moving_windows_and_quiet_clients_leave_nothing() -> None:
    now = [1000.0]
    rate = RateLimiter(ServeLimits(views="3/second;5/minute"), clock=lambda: now[0])
    for _ in range(3):
        rate.hit("views", "a")
    with pytest.raises(TooManyRequests) as refused:
        rate.hit("views", "a")
    assert refused.value.retry_after == 1
    rate.hit("views", "b")  # another client has windows of its own
    now[0] += 0.5
    with pytest.raises(TooManyRequests):
        rate.hit("views", "a")  # the second's window still holds the three
    now[0] += 0.5
    rate.hit("views", "a")
    rate.hit("views", "a")  # 5 in the minute now (the refused ones were not counted)
    now[0] += 1.0
    with pytest.raises(TooManyRequests) as refused:
        rate.hit("views", "a")
    assert 55 <= refused.value.retry_after <= 60  # the minute's window: its oldest leaves then
    for k in range(1000):
        rate.hit("views", f"passer{k}")
    assert rate.windows() == 2 * 1002
    now[0] += 61.0  # every window has emptied: the next request's sweep drops them
    rate.hit("views", "c")
    assert rate.windows() == 2


def test_a_burst_of_players_hints_is_at_the_workers_at_once() -> None:
    """16 players' hints asked at once are all handed to the workers while their round trips are
    under way. Before, 4 were and the other 12 waited in the lane for a round trip each: on a
    loaded server a round trip through the event loop took 100-300 ms for a few ms of work, the
    workers idled and the lane's queue of 64 filled (503s; the throughput is measured by
    benchmarks/web_load.py --abuse, docs/research/web-abuse.md)."""
    limits = ServeLimits()

    async def scenario() -> tuple[int, int]:
        service = Service(limits=limits)
        lane = service.quick
        back = asyncio.Event()
        in_flight = 0

        async def round_trip(fn: object, *args: object, in_thread: bool) -> str:
            nonlocal in_flight
            in_flight += 1
            await back.wait()  # the answer is on its way back through the event loop
            return "hints"

        lane._call = round_trip  # type: ignore[method-assign]
        calls = []
        for k in range(16):
            CLIENT.set(f"player{k}")
            calls.append(asyncio.create_task(lane.run(print)))
        await asyncio.sleep(0.01)
        seen, waiting = in_flight, len(lane._waiters)
        back.set()
        assert await asyncio.gather(*calls) == ["hints"] * 16
        service.close()
        return seen, waiting

    assert asyncio.run(scenario()) == (16, 0)


def test_a_client_is_paced_after_its_burst_and_quiet_clients_leave_nothing() -> None:
    now = [1000.0]
    gate = ClientGate(2, pace=10.0, burst=3, clock=lambda: now[0])
    waits = [gate.wait("a") for _ in range(6)]
    assert waits == pytest.approx([0, 0, 0, 0.1, 0.2, 0.3])  # three at once, then 10 a second
    assert gate.wait("b") == 0  # another client has its own time
    now[0] += 0.25
    assert gate.wait("a") == pytest.approx(0.15)  # a's next time is 0.4 s after the start
    now[0] += 0.5  # past a's time: its burst is whole again
    assert [gate.wait("a") for _ in range(3)] == [0, 0, 0]
    now[0] += 2.0  # the next request's sweep drops the due times that have passed
    gate.wait("c")
    assert gate.paced() == 1
    assert ClientGate(2).wait("a") == 0 and ClientGate(2).paced() == 0  # not paced: nothing kept


def test_a_flood_is_spread_by_its_pace_and_the_other_clients_are_not() -> None:
    async def scenario() -> tuple[list[float], list[float]]:
        gate = ClientGate(2, pace=50.0, burst=5)
        t0 = time.monotonic()
        started: dict[str, list[float]] = {"a": [], "b": []}

        async def request(who: str) -> None:
            async with gate.turn(who):
                started[who].append(time.monotonic() - t0)

        await asyncio.gather(*(request("a") for _ in range(10)), *(request("b") for _ in range(2)))
        return started["a"], started["b"]

    a, b = asyncio.run(scenario())
    # (only lower bounds on real sleeps: a loaded machine can stretch them, never shorten them;
    # the schedule itself is checked on a fake clock above)
    assert a[9] - a[0] >= 0.095  # the burst of 5, then one each 20 ms: the tenth 100 ms after
    assert max(b) < a[5]  # the other client was not paced behind a's flood


def test_the_app_paces_each_client_by_its_setting() -> None:
    assert create_app(limits=ServeLimits(pace=30.0)).state.gate.spacing == pytest.approx(1 / 30)
    shared = ServeLimits(pace=30.0, shared_by=2)  # each process allows half
    assert create_app(limits=shared).state.gate.spacing == pytest.approx(1 / 15)
    assert create_app(limits=ServeLimits(pace=0)).state.gate.spacing == 0
    with pytest.raises(InputError, match="pace"):
        ServeLimits(pace=-1)
