"""Per-client limits: 429 with Retry-After past a rate, 503 when the heavy queue is full, a cap on a
game's moves; each client counted apart."""

from __future__ import annotations

import asyncio
import threading

import pytest
from fastapi.testclient import TestClient

from demine import InputError
from demine.web.app import create_app
from demine.web.limits import Busy, ServeLimits
from demine.web.service import Service


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
