"""Per-client limits: 429 with Retry-After past a rate, 503 when the heavy queue is full, a cap on a
game's moves; each client counted apart."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import threading
import time
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from demine import InputError
from demine.analysis import Limit
from demine.web.app import create_app
from demine.web.limits import Busy, RateLimiter, ServeLimits, TooManyRequests
from demine.web.service import Service
from demine.web.workers import ANALYSIS, CLIENT, GAME, PLACE, REVIEW, Lane


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
        slow = service.slow.pids()
        assert len(slow) == service.limits.slow_running  # a process for each call it runs at once
        base = os.getpriority(os.PRIO_PROCESS, quick)
        assert all(os.getpriority(os.PRIO_PROCESS, p) == min(19, base + 10) for p in slow)
    finally:
        service.close()


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="no SCHED_IDLE on this system")
@pytest.mark.parametrize("idle", [True, False])
def test_the_slow_lanes_and_reviews_workers_run_only_when_the_cpu_is_idle(idle: bool) -> None:
    # at nice 10 and 19 they still took a core from the server processes for milliseconds at a
    # time: under the abuse benchmark the server waited for a core 5 ms a player's turn (1.6 alone)
    service = Service(workers=1, limits=ServeLimits(idle_background=idle))
    try:
        (quick,) = service.quick.pids()
        background = service.slow.pids() + service.reviews.pids()
        assert len(background) == service.limits.slow_running + 1
        policies = {os.sched_getscheduler(p) for p in background}
        assert policies == ({os.SCHED_IDLE} if idle else {os.sched_getscheduler(0)})
        assert os.sched_getscheduler(quick) == os.sched_getscheduler(0)  # the quick lane's as the server's
    finally:
        service.close()


@pytest.mark.parametrize(("options", "idle"), [([], True), (["--niced-background"], False)])
def test_serve_sets_the_background_workers_policy(
    monkeypatch: pytest.MonkeyPatch, options: list[str], idle: bool
) -> None:
    import demine.web.app
    from demine.cli import main

    got: list[ServeLimits] = []
    monkeypatch.setattr(demine.web.app, "serve", lambda *args: got.append(args[4]))
    assert main(["serve", *options]) == 0
    assert got[0].idle_background is idle


def test_serve_pace_option_states_the_settings_values(monkeypatch: pytest.MonkeyPatch) -> None:
    # the CLI does not import the web modules to build its help, so the --pace help writes the
    # burst and the default out: they must stay the settings' own
    import argparse

    import demine.web.app
    from demine.cli import build_parser, main
    from demine.web.limits import PACE_BURST

    got: list[ServeLimits] = []
    monkeypatch.setattr(demine.web.app, "serve", lambda *args: got.append(args[4]))
    assert main(["serve"]) == 0
    assert got[0].pace == ServeLimits().pace
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    pace = next(a for a in sub.choices["serve"]._actions if "--pace" in a.option_strings)
    assert pace.help is not None
    assert f"after {PACE_BURST} at once (default {ServeLimits().pace:g})" in pace.help


def _gated(gate: threading.Event) -> Callable[[str], str]:
    def work(name: str) -> str:
        gate.wait(5)
        return name

    return work


@pytest.mark.parametrize("heavy_kind", [ANALYSIS, PLACE], ids=["analyses", "guess-free boards"])
def test_analyses_reviews_and_guess_free_boards_never_hold_the_place_kept_for_players_hints(
    heavy_kind: int,
) -> None:
    lane = Lane(0, 2, 16, per_client=4, reserve=1)
    gate = threading.Event()
    work = _gated(gate)
    started: list[str] = []

    async def ask(who: str, name: str, kind: int) -> str:
        CLIENT.set(who)
        started.append(name)
        return str(await lane.run(work, name, in_thread=True, kind=kind))

    async def scenario() -> list[str]:
        heavy = [asyncio.create_task(ask(f"10.0.0.{i}", f"heavy {i}", heavy_kind)) for i in range(3)]
        heavy.append(asyncio.create_task(ask("10.0.0.9", "review", REVIEW)))
        await asyncio.sleep(0.05)
        assert lane._active == 1  # one analysis runs; the other place is the players'
        player = asyncio.create_task(ask("10.0.1.1", "hints", GAME))
        await asyncio.sleep(0.05)
        assert lane._active == 2  # the player's hints started at once
        gate.set()
        return [await player, *await asyncio.gather(*heavy)]

    assert asyncio.run(scenario())[0] == "hints"


def test_a_free_place_goes_to_the_client_with_the_fewest_calls_running() -> None:
    lane = Lane(0, 1, 16, per_client=4)
    gates = [threading.Event() for _ in range(4)]
    order: list[str] = []

    def work(name: str, k: int) -> str:
        order.append(name)
        gates[k].wait(5)
        return name

    async def ask(who: str, name: str, k: int, kind: int = ANALYSIS) -> str:
        CLIENT.set(who)
        return str(await lane.run(work, name, k, in_thread=True, kind=kind))

    async def scenario() -> None:
        tasks = [asyncio.create_task(ask("flood", "flood 1", 0))]
        await asyncio.sleep(0.05)
        tasks.append(asyncio.create_task(ask("flood", "flood 2", 1)))  # waits first...
        await asyncio.sleep(0.01)
        tasks.append(asyncio.create_task(ask("other", "other", 2)))  # ...but another client comes first
        tasks.append(asyncio.create_task(ask("late", "review", 3, REVIEW)))  # reviews after analyses
        await asyncio.sleep(0.05)
        for g in gates:
            g.set()
            await asyncio.sleep(0.05)
        await asyncio.gather(*tasks)

    asyncio.run(scenario())
    assert order == ["flood 1", "other", "flood 2", "review"]


def test_a_free_place_goes_to_the_client_that_had_the_least_of_the_lane_s_time_lately() -> None:
    now = [100.0]
    lane = Lane(0, 1, 16, per_client=4, memory=30.0, clock=lambda: now[0])
    gates = [threading.Event() for _ in range(4)]
    order: list[str] = []

    def work(name: str, k: int, seconds: float) -> str:
        order.append(name)
        gates[k].wait(5)
        now[0] += seconds  # the call took that long
        return name

    async def ask(who: str, name: str, k: int, seconds: float) -> str:
        CLIENT.set(who)
        return str(await lane.run(work, name, k, seconds, in_thread=True, kind=PLACE))

    async def scenario() -> None:
        tasks = [asyncio.create_task(ask("slow", "slow 1", 0, 5.0))]
        await asyncio.sleep(0.05)
        tasks.append(asyncio.create_task(ask("quick", "quick 1", 1, 0.05)))
        await asyncio.sleep(0.01)
        tasks.append(asyncio.create_task(ask("slow", "slow 2", 3, 5.0)))
        await asyncio.sleep(0.05)
        gates[0].set()  # slow 1 ends: quick 1 starts (it has had none of the time)
        await asyncio.sleep(0.05)
        tasks.append(asyncio.create_task(ask("quick", "quick 2", 2, 0.05)))
        await asyncio.sleep(0.05)
        # quick 1 ends: quick was served the more recently, but slow has had 5 s to its 0.05
        gates[1].set()
        await asyncio.sleep(0.05)
        for g in gates[2:]:
            g.set()
        await asyncio.gather(*tasks)

    asyncio.run(scenario())
    assert order == ["slow 1", "quick 1", "quick 2", "slow 2"]
    # slow 1's 5 s, halved for each 30 s since it ended (quick's 0.1 s, then slow 2's 5 s)
    assert now[0] == pytest.approx(110.1)
    slow = 5.0 * 2 ** (-5.1 / 30) + 5.0
    assert lane.used("slow") == pytest.approx(slow)
    now[0] += 30.0
    assert lane.used("slow") == pytest.approx(slow / 2)


def test_a_review_not_ready_in_time_goes_on_in_the_background_and_says_so() -> None:
    with TestClient(create_app(limits=ServeLimits(review_wait=0))) as client:
        gid = client.post("/api/games", json={"preset": "beginner", "rule": "zero", "seed": "7"}).json()["id"]
        client.post(f"/api/games/{gid}/moves", json={"kind": "reveal", "row": 2, "col": 2})
        (r, c) = client.get(f"/api/games/{gid}/hints").json()["mines"][0]
        assert (
            client.post(f"/api/games/{gid}/moves", json={"kind": "reveal", "row": r, "col": c}).json()[
                "outcome"
            ]
            == "lost"
        )
        first = client.get(f"/api/games/{gid}/review")
        assert first.status_code == 202
        assert first.json()["preparing"] and "being prepared" in first.json()["text"]
        deadline = time.monotonic() + 30
        while (later := client.get(f"/api/games/{gid}/review")).status_code == 202:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert later.status_code == 200
        assert [d["mark"] for d in later.json()["decisions"]] == ["first click", "needless guess"]


def test_heavy_analyses_from_many_addresses_do_not_hold_up_a_players_hints_on_a_big_board() -> None:
    # 8 addresses with their 2 allowed heaviest analyses each, then a player's hints on a 100x100
    # game: the hints once waited behind all 16 (about 8 s); now a place is kept for them
    from demine.web.service import analysis_board

    rows = ["".join("1" if r % 2 == 0 and c % 2 == 0 else "H" for c in range(100)) for r in range(100)]
    heaviest = "100x100x2500\n" + "\n".join(rows)
    service = Service(workers=1)
    try:
        gid = service.new_game(width=100, height=100, mines=1000, seed="big", client="10.0.1.1")["id"]

        async def analysis(who: str) -> object:
            CLIENT.set(who)
            return await service.compute(analysis_board, heaviest, slow=True, kind=ANALYSIS)

        async def scenario() -> tuple[float, int]:
            CLIENT.set("10.0.1.1")
            await service.move(gid, "reveal", 50, 50)
            heavy = [asyncio.create_task(analysis(f"10.0.0.{i}")) for i in range(8) for _ in range(2)]
            await asyncio.sleep(0.2)
            CLIENT.set("10.0.1.1")
            t0 = time.monotonic()
            await service.hints(gid)
            took, pending = time.monotonic() - t0, sum(not t.done() for t in heavy)
            for t in heavy:
                t.cancel()
            await asyncio.gather(*heavy, return_exceptions=True)
            return took, pending

        took, pending = asyncio.run(scenario())
    finally:
        service.close()
    assert pending >= 12, (took, pending)  # the hints came before most analyses were done
    assert took < 5.0


def test_the_settings_reach_each_server_process_whole() -> None:
    # `serve --processes N` sends them as JSON (dataclasses.asdict); the best guess's budget came
    # back a dict, and every /hint that needed a guess answered 500 on 2 processes
    limits = ServeLimits(guess_limit=Limit(seconds=0.2, states=1000), heavy_running=3, views=None)
    back = ServeLimits.from_dict(json.loads(json.dumps(dataclasses.asdict(limits))))
    assert back == limits and isinstance(back.guess_limit, Limit)


def test_processes_sharing_a_client_each_allow_their_share() -> None:
    # with --processes 2 a client's connections land on both: each counted the whole rate, so an
    # abuser got twice its share of the same CPU (the abuse benchmark's flooder: 1,042 answers in
    # 30 s on 2 processes against 489 on one)
    shared = ServeLimits(views="4/second", moves="5/second", running_per_client=2, shared_by=2)
    rate = RateLimiter(shared)
    rate.hit("views", "a")
    rate.hit("views", "a")
    with pytest.raises(TooManyRequests):
        rate.hit("views", "a")
    for _ in range(3):
        rate.hit("moves", "a")  # 5 / 2, rounded up
    with pytest.raises(TooManyRequests):
        rate.hit("moves", "a")
    assert create_app(limits=shared).state.gate.running == 1
    assert create_app(limits=ServeLimits(running_per_client=2)).state.gate.running == 2
