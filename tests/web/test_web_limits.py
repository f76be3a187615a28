"""Per-client limits: 429 with Retry-After past a rate, 503 when the heavy queue is full, a cap on a
game's moves; each client counted apart."""

from __future__ import annotations

import asyncio
import os
import threading
import time

import pytest
from fastapi.testclient import TestClient

from demine import InputError
from demine.web.app import create_app
from demine.web.limits import Busy, ServeLimits, TooManyRequests
from demine.web.service import Service
from demine.web.workers import CLIENT


def test_a_client_past_its_rate_gets_429_with_retry_after_and_others_do_not() -> None:
    client = TestClient(create_app(limits=ServeLimits(games="3/minute", trust_proxy=True)))
    me, other = {"x-forwarded-for": "10.0.0.1"}, {"x-forwarded-for": "10.0.0.2, 10.9.9.9"}
    for _ in range(3):
        assert client.post("/api/games", json={"preset": "beginner"}, headers=me).status_code == 200
    r = client.post("/api/games", json={"preset": "beginner"}, headers=me)
    assert r.status_code == 429 and set(r.json()) == {"error"} and "games" in r.json()["error"]
    assert 1 <= int(r.headers["retry-after"]) <= 60
    assert "content-security-policy" in r.headers
    assert client.post("/api/games", json={"preset": "beginner"}, headers=other).status_code == 200


def test_without_a_trusted_proxy_the_forwarded_header_is_ignored() -> None:
    client = TestClient(create_app(limits=ServeLimits(moves="2/minute")))
    gid = client.post("/api/games", json={"preset": "beginner"}).json()["id"]
    codes = [
        client.post(
            f"/api/games/{gid}/moves",
            json={"kind": "flag", "row": 0, "col": i},
            headers={"x-forwarded-for": f"10.0.0.{i}"},  # a client cannot pick a fresh address
        ).status_code
        for i in range(3)
    ]
    assert codes[2] == 429


def test_a_game_holds_at_most_its_moves() -> None:
    client = TestClient(create_app(limits=ServeLimits(max_moves=5)))
    gid = client.post("/api/games", json={"preset": "expert", "rule": "zero"}).json()["id"]
    client.post(f"/api/games/{gid}/moves", json={"kind": "reveal", "row": 3, "col": 3})
    codes = [
        client.post(f"/api/games/{gid}/moves", json={"kind": "flag", "row": 15, "col": 29}).status_code
        for _ in range(6)
    ]
    assert codes[:4] == [200] * 4 and codes[4] == 409


def test_heavy_work_past_the_queue_is_refused_at_once() -> None:
    service = Service(limits=ServeLimits(heavy_running=1, heavy_queue=1))
    gate = threading.Event()

    def slow() -> str:
        gate.wait(5)
        return "done"

    async def scenario() -> list[object]:
        first = asyncio.create_task(service.compute(slow, off_loop=True))
        await asyncio.sleep(0.05)
        second = asyncio.create_task(service.compute(slow, off_loop=True))  # waits: the queue holds 1
        await asyncio.sleep(0.05)
        with pytest.raises(Busy):
            await service.compute(slow, off_loop=True)  # a third: refused, not queued
        gate.set()
        return [await first, await second]

    assert asyncio.run(scenario()) == ["done", "done"]


def test_bad_limits_are_named() -> None:
    with pytest.raises(InputError, match="rate for moves"):
        ServeLimits(moves="often")


def test_a_burst_past_the_per_second_rate_is_refused_after_a_pause() -> None:
    client = TestClient(create_app(limits=ServeLimits(games="2/second;100/minute", penalty=0.3)))
    codes = [client.post("/api/games", json={"preset": "beginner"}).status_code for _ in range(2)]
    t0 = time.monotonic()
    r = client.post("/api/games", json={"preset": "beginner"})
    assert codes == [200, 200] and r.status_code == 429 and "1 second" in r.json()["error"]
    assert time.monotonic() - t0 >= 0.3  # the refusal waited: a flood gets one answer a pause


def test_one_client_holds_at_most_its_share_of_the_slow_lane() -> None:
    service = Service(limits=ServeLimits(heavy_per_client=2, slow_running=4))
    gate = threading.Event()

    def slow() -> str:
        gate.wait(5)
        return "done"

    async def ask(who: str) -> object:
        CLIENT.set(who)
        return await service.compute(slow, slow=True)

    async def scenario() -> list[object]:
        mine = [asyncio.create_task(ask("10.0.0.1")) for _ in range(2)]
        await asyncio.sleep(0.05)
        with pytest.raises(TooManyRequests, match="heavy requests"):
            await ask("10.0.0.1")  # a third of the same client: refused
        other = asyncio.create_task(ask("10.0.0.2"))  # another client still gets in
        await asyncio.sleep(0.05)
        gate.set()
        return [*(await asyncio.gather(*mine)), await other]

    assert asyncio.run(scenario()) == ["done"] * 3
    assert service.slow.waiting_clients() == 0  # every client's count went back to nothing


def test_big_boards_hints_go_to_the_slow_lane_whose_worker_runs_at_a_lower_priority() -> None:
    from demine.engine.position import Position

    service = Service(workers=1)
    try:
        assert not service._slow(Position.from_text("30x16x99\n" + "\n".join(["H" * 30] * 16)))
        assert service._slow(Position.from_text("40x40x300\n" + "\n".join(["H" * 40] * 40)))
        (quick,) = service.quick.pids()
        (slow,) = service.slow.pids()
        assert os.getpriority(os.PRIO_PROCESS, slow) == os.getpriority(os.PRIO_PROCESS, quick) + 10
    finally:
        service.close()
