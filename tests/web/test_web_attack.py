"""The server under attack, in process (issue 34): a write the store refuses leaks nothing and
leaves the game as it was; unknown ids leave nothing behind; every read has a rate; any string
seed plays; replays and exports are bounded. The real-process cases are in test_web_attack_process.py."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import sqlite3
import string
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from demine.engine.formats import GameRecord
from demine.engine.game import Game, Move, seeded_random
from demine.engine.grid import mine_cells_allowed
from demine.web.app import create_app
from demine.web.hints import quick_hints
from demine.web.limits import ServeLimits
from demine.web.service import Conflict, NotFound, Service
from demine.web.session import REPLAY_FRAMES, REPLAY_STEP
from demine.web.store import Store, StoreUnavailable, open_store

SCRIPT = ServeLimits(games=None, moves=None, hints=None, analyses=None, views=None, exports=None, pace=0)


def _store(url: str, wait: float) -> Store:
    if url.startswith("postgresql://"):
        from demine.web.store_pg import PostgresStore

        return PostgresStore(url, wait=wait)
    return Store(url, wait=wait)


@contextmanager
def _held(url: str, game_id: str) -> Iterator[None]:
    """Another program holds the lock a write of this game needs: SQLite's write lock (an
    operator's ``sqlite3`` shell in a transaction), PostgreSQL's lock on the game's row."""
    if url.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(url) as conn:
            conn.execute("SELECT id FROM games WHERE id = %s FOR UPDATE", (game_id,))
            yield
            conn.rollback()
        return
    other = sqlite3.connect(url, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        yield
        other.execute("ROLLBACK")
    finally:
        other.close()


def _still(view: dict[str, Any]) -> dict[str, Any]:
    """A view without its clock."""
    return {k: v for k, v in view.items() if k != "elapsed"}


def _a_mine_and_a_safe_cell(service: Service, gid: str) -> tuple[int, int]:
    g = service.session(gid).game
    mines = set(g.mine_cells())
    covered = [c for c, v in enumerate(g.position().states) if v >= 9]
    return next(c for c in covered if c in mines), next(c for c in covered if c not in mines)


# ---------------------------------------------------------------------- 1. failed writes
def test_a_move_the_store_refuses_is_not_played_and_the_layout_stays_hidden(store_url: str) -> None:
    asyncio.run(_refused_moves(store_url))


async def _refused_moves(store_url: str) -> None:
    service = Service(_store(store_url, wait=0.3), limits=SCRIPT)
    try:
        gid = service.new_game(preset="expert", seed=11)["id"]
        await service.move(gid, "reveal", 8, 15)
        mine, safe = _a_mine_and_a_safe_cell(service, gid)
        before = service.view(gid)
        with _held(store_url, gid):
            for kind, cell in (("reveal", mine), ("flag", safe), ("reveal", safe)):
                with pytest.raises(StoreUnavailable):
                    await service.move(gid, kind, cell // 30, cell % 30)
                # the game is as the store holds it: nothing of the move, no layout
                assert _still(service.view(gid)) == _still(before)
                assert service.session(gid).game.outcome == "playing"
                for read in (lambda: service.replay(gid, 0), lambda: service.export(gid)):
                    with pytest.raises(Conflict):
                        read()
        # once the lock is gone the same move is played, once
        lost = await service.move(gid, "reveal", mine // 30, mine % 30)
        assert lost["outcome"] == "lost"
        assert lost["moves"] == before["moves"] + 1
        assert service.store.moves_count(gid) == before["moves"] + 1
    finally:
        service.close()


def test_a_refused_write_answers_503_with_retry_after_in_the_error_shape(tmp_path: Path) -> None:
    path = str(tmp_path / "games.db")
    client = TestClient(create_app(Store(path, wait=0.2), limits=SCRIPT))
    gid = client.post("/api/games", json={"preset": "beginner", "seed": 3}).json()["id"]
    assert (
        client.post(f"/api/games/{gid}/moves", json={"kind": "reveal", "row": 4, "col": 4}).status_code == 200
    )
    before = client.get(f"/api/games/{gid}").json()
    with _held(path, gid):
        r = client.post(f"/api/games/{gid}/moves", json={"kind": "flag", "row": 0, "col": 0})
        assert r.status_code == 503, r.text
        assert int(r.headers["retry-after"]) >= 1
        assert set(r.json()) == {"error"} and "try again" in r.json()["error"]
        assert r.headers["x-content-type-options"] == "nosniff"
        made = client.post("/api/games", json={"preset": "beginner"})
        assert made.status_code == 503 and "retry-after" in made.headers
    assert _still(client.get(f"/api/games/{gid}").json()) == _still(before)


def test_reads_go_on_while_a_write_waits_for_a_lock_held_elsewhere(tmp_path: Path) -> None:
    import threading

    path = str(tmp_path / "games.db")
    service = Service(Store(path, wait=3.0), limits=SCRIPT)
    try:
        waiting, other = (service.new_game(preset="beginner", seed=i)["id"] for i in (1, 2))
        events: list[str] = []

        def move() -> None:
            try:
                service._play(waiting, "flag", 0, None, None)
            except StoreUnavailable:
                events.append("move refused")

        with _held(path, waiting):
            t = threading.Thread(target=move)
            t.start()
            time.sleep(0.3)  # the move is waiting for the file's lock, holding the store's writer
            assert service.view(other)["moves"] == 0
            assert service.store.load(other) is not None
            events.append("reads answered")
            t.join()
        assert events == ["reads answered", "move refused"]
    finally:
        service.close()


# ---------------------------------------------------------------------- 2. unknown ids
def test_unknown_ids_leave_nothing_in_memory() -> None:
    service = Service(limits=SCRIPT)
    rng = random.Random(2)
    alphabet = string.ascii_letters + string.digits + "_-"
    for i in range(2000):
        gid = "".join(rng.choice(alphabet) for _ in range(22 if i % 2 else 64))
        for call in (service.view, lambda g: service.replay(g, 0), service.export):
            with pytest.raises(NotFound):
                call(gid)
    assert service._game_locks == {}
    assert len(service._cache) == 0 and service.cached_bytes == 0


BAD_IDS = ["%00", "abc%00def", "a" * 65, "a" * 8000, "%C3%A9t%C3%A9", "a%20b", "%FF", "a.b", "~x"]


def test_ids_of_another_shape_get_404_without_a_lookup(store_url: str, monkeypatch: Any) -> None:
    client = TestClient(create_app(store_url, limits=SCRIPT))
    with client:
        service = client.app.state.service  # type: ignore[attr-defined]

        def no_lookup(game_id: str) -> None:
            raise AssertionError(f"looked up {game_id!r}")

        monkeypatch.setattr(service.store, "load", no_lookup)
        monkeypatch.setattr(service.store, "moves_count", no_lookup)
        for bad in BAD_IDS:
            for path in ("", "/hints", "/hint", "/replay?move=0", "/review", "/export"):
                r = client.get(f"/api/games/{bad}{path}")
                assert r.status_code == 404, (bad, path, r.text)
                assert set(r.json()) == {"error"}
            r = client.post(f"/api/games/{bad}/moves", json={"kind": "reveal", "row": 0, "col": 0})
            assert r.status_code == 404, (bad, r.text)
        assert service._game_locks == {}


def test_every_read_endpoint_has_a_per_client_rate() -> None:
    limits = ServeLimits(
        games=None, moves=None, hints="2/minute", analyses="1/minute", views="3/minute", exports="1/minute",
        penalty=0,
    )  # fmt: skip
    client = TestClient(create_app(limits=limits))
    gid = client.post("/api/games", json={"preset": "beginner", "seed": 5}).json()["id"]
    # views and replay frames share one rate
    assert client.get(f"/api/games/{gid}").status_code == 200
    assert client.get(f"/api/games/{gid}/replay?move=0").status_code == 409
    assert client.get(f"/api/games/{gid}").status_code == 200
    for path, kind in (("", "views"), ("/replay?move=0", "views")):
        r = client.get(f"/api/games/{gid}{path}")
        assert r.status_code == 429 and kind in r.json()["error"] and "retry-after" in r.headers
    assert client.get(f"/api/games/{gid}/export").status_code == 409
    assert client.get(f"/api/games/{gid}/export").status_code == 429
    assert client.get(f"/api/games/{gid}/review").status_code == 409
    assert client.get(f"/api/games/{gid}/review").status_code == 429
    assert client.get(f"/api/games/{gid}/hints").status_code == 200
    assert client.get(f"/api/games/{gid}/hint").status_code == 200
    assert client.get(f"/api/games/{gid}/hints").status_code == 429
    # unknown ids count too: a flood of them is refused like any other read
    assert client.get("/api/games/nosuchgame0000000000000").status_code == 429


# ---------------------------------------------------------------------- 6. seeds
ODD_SEEDS = ["\ud800", "a\udfffb", "\udc80\ud800", "\x00", "\U0001f4a3 mine"]


@pytest.mark.parametrize("no_guess", [None, "local"])
def test_any_string_seed_makes_a_game_that_plays_to_its_end(store_url: str, no_guess: str | None) -> None:
    client = TestClient(create_app(store_url, limits=SCRIPT))
    with client:
        for seed in ODD_SEEDS:
            # as a browser's JSON.stringify sends a lone surrogate: escaped, "\ud800"
            body = json.dumps({"preset": "beginner", "seed": seed, "no_guess": no_guess})
            r = client.post("/api/games", content=body, headers={"content-type": "application/json"})
            assert r.status_code == 200, r.text
            gid = r.json()["id"]
            for _ in range(100):
                h = client.get(f"/api/games/{gid}/hint").json()
                r = client.post(
                    f"/api/games/{gid}/moves",
                    json={"kind": "reveal", "row": h["cell"][0], "col": h["cell"][1]},
                )
                assert r.status_code == 200, (seed, r.text)
                if r.json()["outcome"] != "playing":
                    break
            assert r.json()["outcome"] in ("won", "lost")
            assert r.json()["seed"] == seed
            assert client.get(f"/api/games/{gid}/export").status_code == 200
        # and the same seed gives the same board after a restart (restored from the store)
        service = client.app.state.service  # type: ignore[attr-defined]
        layout = service.session(gid).game.mine_cells()
        service._forget(gid)
        assert service.session(gid).game.mine_cells() == layout


SEEDS: list[int | str] = [
    *range(-3, 40),
    2**64 - 1,
    *("", "a", "seed", "zéro", "日本語", "\U0001f4a3", "12a", " 7 ", "x" * 64),
    *(f"s{i}" for i in range(60)),
]


@pytest.mark.parametrize("rule", ["safe", "zero", "none"])
def test_every_seed_that_worked_keeps_its_board(rule: str) -> None:
    for seed in SEEDS:
        g = Game(30, 16, 99, rule=rule, seed=seed)
        g.play(Move("reveal", 37))
        allowed = mine_cells_allowed(g.geometry, rule, 37)
        assert g.mine_cells() == sorted(random.Random(seed).sample(allowed, 99)), seed


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(exclude_categories=["Cs"])) | st.integers())
def test_seeded_random_is_random_random_for_every_seed_it_took(seed: str | int) -> None:
    assert seeded_random(seed).getstate() == random.Random(seed).getstate()


# ---------------------------------------------------------------------- 7. replays and exports
def _finished_long_game(service: Service, flags: int) -> str:
    gid = service.new_game(width=30, height=16, mines=99, seed=21)["id"]
    service._play(gid, "reveal", 8 * 30 + 15, None, None)
    mine, safe = _a_mine_and_a_safe_cell(service, gid)
    for _ in range(flags):
        service._play(gid, "flag", safe, None, None)
    service._play(gid, "reveal", mine, None, None)
    return gid


def test_a_replay_frame_is_the_board_after_its_moves_and_replays_a_bounded_part(monkeypatch: Any) -> None:
    service = Service(limits=SCRIPT)
    gid = _finished_long_game(service, 6000)
    g = service.session(gid).game
    n = len(g.moves)
    record = GameRecord.from_game(g)
    step = max(REPLAY_STEP, -(-n // REPLAY_FRAMES))
    service.replay(gid, n)  # the first look passes every move once
    played = 0
    real = Game.play

    def counted(self: Game, move: Move) -> list[int]:
        nonlocal played
        played += 1
        return real(self, move)

    monkeypatch.setattr(Game, "play", counted)
    for k in [0, 1, 2, 255, 256, 257, n - 1, n, *random.Random(4).sample(range(n), 30)]:
        played = 0
        frame = service.replay(gid, k)
        assert played < step, (k, played, step)
        monkeypatch.setattr(Game, "play", real)
        want = service.session(gid).view(record.replay(k), final=True)
        monkeypatch.setattr(Game, "play", counted)
        assert frame["rows"] == want["rows"] and frame["flags"] == want["flags"], k
        assert frame["outcome"] == want["outcome"] and frame["move"] == frame["moves"] == k
    assert len(service.session(gid).frames) <= REPLAY_FRAMES + 1  # (+ the board before any move)


def test_replay_frames_make_the_board_before_any_move_once(monkeypatch: Any) -> None:
    # issue 34: every frame before the first kept copy made the board from its layout again
    # (~10 ms on a 100x100 board with 5,000 mines, the replay abuser's frames' main cost)
    service = Service(limits=SCRIPT)
    gid = _finished_long_game(service, 400)
    n = len(service.session(gid).game.moves)
    assert REPLAY_STEP < n < 2 * REPLAY_STEP
    made = 0
    real = Game.from_layout.__func__  # type: ignore[attr-defined]

    def counted(cls: type[Game], *args: Any, **kwargs: Any) -> Game:
        nonlocal made
        made += 1
        return real(cls, *args, **kwargs)  # type: ignore[no-any-return]

    monkeypatch.setattr(Game, "from_layout", classmethod(counted))
    record = GameRecord.from_game(service.session(gid).game)
    made = 0
    frames = {k: service.replay(gid, k) for k in [0, 5, 1, 200, 0, REPLAY_STEP - 1, n, 3]}
    assert made == 1
    for k, frame in frames.items():
        want = service.session(gid).view(record.replay(k), final=True)
        assert frame["rows"] == want["rows"] and frame["move"] == k, k


def test_an_export_is_made_once_and_counted_in_the_memory_held() -> None:
    service = Service(limits=SCRIPT)
    gid = _finished_long_game(service, 3000)
    held = service.cached_bytes
    first = service.export(gid)
    assert service.cached_bytes >= held + len(first)
    assert service.export(gid) is first


def test_an_odd_seed_is_stored_and_read_back(store_url: str) -> None:
    store = open_store(store_url)
    try:
        service = Service(store, limits=SCRIPT)
        gid = service.new_game(preset="beginner", seed="\ud800x")["id"]
        service._play(gid, "reveal", 40, None, None)
        service._forget(gid)
        assert service.session(gid).game.seed == "\ud800x"
    finally:
        store.close()


# ---------------------------------------------------------------------- 8. the memory bound
def test_a_big_games_weight_is_what_it_holds_its_hints_included() -> None:
    import tracemalloc

    from demine.web.service import quick_hints
    from demine.web.session import Session

    service = Service(limits=SCRIPT)
    gid = service.new_game(width=100, height=100, mines=2000, seed=3)["id"]
    asyncio.run(service.move(gid, "reveal", 50, 50, with_hints=True))
    row = service.store.load(gid)
    assert row is not None
    tracemalloc.start()
    try:
        s = Session.restore(row)
        s.keep_hints(len(s.game.moves), quick_hints(s.game.position()))
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert s.hints_cache is not None and len(s.hints_cache[1]["probabilities"]) == 10_000
    # measured: about 130 KB, two thirds of it the hints; the weight says within a quarter of it
    assert 0.75 * held <= s.weight() <= 1.25 * held, (s.weight(), held)


def test_hints_made_in_a_worker_come_weighed_as_they_would_be_here() -> None:
    from demine.web.hints import approx_bytes

    service = Service(workers=1, limits=SCRIPT)
    try:
        gid = service.new_game(preset="expert", rule="safe", seed=5)["id"]
        v = asyncio.run(service.move(gid, "reveal", 8, 8, with_hints=True))
        s = service.session(gid)
        assert s.hints_cache is not None and s.hints_cache[1] is v["hints"] and v["hints"]["moves"] == 1
        assert s._extra["hints"] == approx_bytes(v["hints"]) > 1000
    finally:
        service.close()


def test_the_hints_kept_with_a_game_leave_the_collector_nothing_to_walk() -> None:
    # (a full collection walked every list of the hints kept with each game in memory: 35 ms of
    # the event loop's CPU with 500 games, docs/research/web-abuse.md, part l)
    import gc

    from demine.web.finished import encode

    service = Service(limits=SCRIPT)
    gid = service.new_game(preset="expert", rule="safe", seed=5)["id"]
    v = asyncio.run(service.move(gid, "reveal", 8, 15, with_hints=True))
    for _ in range(3):  # on to a position with safe cells and their reasons
        row, col = v["hints"]["safe"][0]
        v = asyncio.run(service.move(gid, "reveal", row, col, with_hints=True))
    s = service.session(gid)
    assert s.hints_cache is not None and s.hints_cache[1] is v["hints"]
    kept = s.hints_cache[1]
    assert kept["safe"] and kept["reasons"] and len(kept["probabilities"]) == 480
    fresh = quick_hints(s.game.position())  # (as made: lists)
    fresh["moves"] = kept["moves"]
    assert encode(kept) == encode(fresh)  # the same answer
    gc.collect()
    gc.collect()  # (a dict is let go only in a full collection that finds its values let go)
    todo, walked = [kept], 0
    while todo:
        x = todo.pop()
        if gc.is_tracked(x):
            walked += 1
        if isinstance(x, (list, tuple, dict)):
            todo.extend(x.values() if isinstance(x, dict) else x)
    assert walked <= 2  # the hints' dict and its reasons' (made as lists: 100 and more)


def test_the_memory_bound_holds_with_the_hints_of_big_boards() -> None:
    limit = 2 << 20
    service = Service(limits=dataclasses.replace(SCRIPT, cache_bytes=limit))

    async def play() -> None:
        for i in range(30):
            gid = service.new_game(width=100, height=100, mines=2000, seed=i)["id"]
            await service.move(gid, "reveal", 50, 50, with_hints=True)

    asyncio.run(play())
    kept = list(service._cache.values())
    assert service.cached_bytes == sum(s.weight() for s in kept) <= limit
    assert sum(s.hints_cache is not None for s in kept) >= 10
    assert len(kept) < 30  # the hints count: 30 such games are over 2 MB


def test_the_lock_timeout_keeps_the_options_the_address_gives(postgres_url: str) -> None:
    from demine.web.store_pg import PostgresStore

    sep = "&" if "?" in postgres_url else "?"
    store = PostgresStore(postgres_url + sep + "options=-c%20application_name%3Ddemine34", wait=1.5)
    try:
        with store._connection() as db:
            assert db.execute("SHOW lock_timeout").fetchone()[0] == "1500ms"
            assert db.execute("SHOW application_name").fetchone()[0] == "demine34"
    finally:
        store.close()
