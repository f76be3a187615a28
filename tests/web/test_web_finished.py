"""A finished game's answers (replay frames, review, export) are encoded once and kept, within the
memory bound, and sent again without being made again (issue 34: the replay/export and review
abusers' answers were built, or at least encoded, by the server process at every request)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

import demine.engine.game as game_module
import demine.web.finished as finished
from demine.engine.formats import GameRecord
from demine.web.app import create_app
from demine.web.finished import Answers
from demine.web.limits import ServeLimits
from demine.web.service import Service
from demine.web.store import Store

SCRIPT = ServeLimits(games=None, moves=None, hints=None, analyses=None, views=None, exports=None, pace=0)


def _finished(service: Service, flags: int = 40) -> str:
    """A lost 30x16 game with ``flags`` flag moves on one safe cell."""
    gid = service.new_game(width=30, height=16, mines=99, seed=21)["id"]
    service._play(gid, "reveal", 8 * 30 + 15, None, None)
    g = service.session(gid).game
    mines = set(g.mine_cells())
    covered = [c for c, v in enumerate(g.position().states) if v >= 9]
    mine, safe = next(c for c in covered if c in mines), next(c for c in covered if c not in mines)
    for _ in range(flags):
        service._play(gid, "flag", safe, None, None)
    service._play(gid, "reveal", mine, None, None)
    assert service.session(gid).game.over
    return gid


def _app(limits: ServeLimits = SCRIPT) -> tuple[TestClient, Service]:
    app = create_app(limits=limits)
    return TestClient(app), app.state.service


def _count(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    calls = [0]
    real = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


def test_a_replay_frame_is_built_once_then_sent_as_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    client, service = _app()
    with client:
        gid = _finished(service)
        built = _count(monkeypatch, Service, "_replay")  # (where a frame is built)
        first = [client.get(f"/api/games/{gid}/replay?move={k}") for k in (0, 7, 41)]
        assert built[0] == 3 and all(r.status_code == 200 for r in first)
        again = [client.get(f"/api/games/{gid}/replay?move={k}") for k in (41, 0, 7)]
        assert built[0] == 3  # (before: every request built its frame and encoded it again)
        assert [r.content for r in again] == [first[2].content, first[0].content, first[1].content]
        assert json.loads(again[0].content)["move"] == 41
        # the same security headers as any API answer
        assert again[0].headers["x-content-type-options"] == "nosniff"
        assert again[0].headers["cache-control"] == "no-store"


def test_no_frame_is_kept_for_a_game_in_play_nor_for_a_bad_move_number() -> None:
    client, service = _app()
    with client:
        gid = service.new_game(width=30, height=16, mines=99, seed=21)["id"]
        service._play(gid, "reveal", 8 * 30 + 15, None, None)
        assert client.get(f"/api/games/{gid}/replay?move=0").status_code == 409
        done = _finished(service)
        assert client.get(f"/api/games/{done}/replay?move=9999").status_code == 400
        assert client.get(f"/api/games/{done}/replay?move=-1").status_code == 400
        assert len(service.answers) == 0 and service.answers.size == 0


def test_kept_frames_are_counted_in_the_memory_bound_and_leave_with_their_game() -> None:
    service = Service(limits=dataclasses.replace(SCRIPT, cache_bytes=4 << 20))
    gid = _finished(service, flags=300)
    data = service.replay_bytes(gid, 5)
    assert service.replay_bytes(gid, 5) is data
    assert service.answers.size == len(data) + Answers.OVERHEAD
    assert service.cached_bytes == service._cached_bytes + service.answers.size
    for k in range(0, 300, 3):
        service.replay_bytes(gid, k)
    assert service.answers.size <= service.answers.limit == (4 << 20) // 4
    assert service.cached_bytes <= 4 << 20
    service._forget(gid)  # (as expiry does, or the least recently used leaving memory)
    assert service.answers.size == 0 and service.kept(gid, "replay 5") is None


def test_answers_are_bounded_by_their_bytes_least_recently_used_first() -> None:
    a = Answers(limit=3 * (100 + Answers.OVERHEAD))
    for k in range(3):
        a.put(("g", f"replay {k}"), bytes(100))
    assert a.get(("g", "replay 0")) is not None  # used: now the most recent
    a.put(("h", "replay 0"), bytes(100))
    assert a.get(("g", "replay 1")) is None and a.get(("g", "replay 0")) is not None
    assert a.size == 3 * (100 + Answers.OVERHEAD)
    a.put(("h", "replay 1"), bytes(10_000))  # over the whole bound: not kept
    assert a.get(("h", "replay 1")) is None
    a.drop("g")
    assert len(a) == 1 and a.size == 100 + Answers.OVERHEAD
    a.drop("h")
    assert a.size == 0 and not a._of_game


def test_a_kept_review_is_sent_without_making_its_record_again(monkeypatch: pytest.MonkeyPatch) -> None:
    client, service = _app()
    with client:
        gid = _finished(service, flags=3)
        first = client.get(f"/api/games/{gid}/review")
        assert first.status_code == 200 and first.json()["decisions"]
        records = _count(monkeypatch, GameRecord, "from_game")
        encoded = _count(monkeypatch, finished, "encode")
        read = _count(monkeypatch, Store, "moves_count")
        for _ in range(3):
            r = client.get(f"/api/games/{gid}/review")
            assert r.status_code == 200 and r.content == first.content
        # before: each request read the store, made the record again and encoded the review
        assert (records[0], encoded[0], read[0]) == (0, 0, 0)


def test_a_kept_export_is_sent_without_reading_the_store(monkeypatch: pytest.MonkeyPatch) -> None:
    client, service = _app()
    with client:
        gid = _finished(service, flags=3)
        first = client.get(f"/api/games/{gid}/export")
        assert first.status_code == 200 and first.json()["record"]["moves"]
        read = _count(monkeypatch, Store, "moves_count")
        assert client.get(f"/api/games/{gid}/export").content == first.content
        assert read[0] == 0  # before: each export asked the store first (in a thread)


def test_replay_frames_find_the_layouts_openings_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # every frame's cleared 3BV flood-filled the layout again (8 ms a frame on 100x100): the
    # board before any move made its openings, but after its copies were taken
    service = Service(limits=SCRIPT)
    gid = _finished(service, flags=300)
    made = _count(monkeypatch, game_module, "_parts")
    for k in (0, 3, 100, 290, 5):
        service.replay(gid, k)
    assert made[0] == 1


def test_a_frames_answer_is_its_view_encoded_with_the_mine_list_encoded_once() -> None:
    # the mine list is the same in every frame of a game: encoded once and spliced into each
    # frame's answer (it was most of a frame's JSON), the same bytes as the whole view encoded.
    # The seed (a text, the only one in a frame) is the splice's own mark here: it comes before
    # the mine list, so the mark replaced is the one put there.
    service = Service(limits=SCRIPT)
    gid = service.new_game(width=30, height=16, mines=99, seed=finished._MINES_MARK)["id"]
    service._play(gid, "reveal", 8 * 30 + 15, None, None)
    g = service.session(gid).game
    mine = next(c for c in g.mine_cells() if g.position().states[c] >= 9)
    service._play(gid, "flag", mine, None, None)
    service._play(gid, "flag", mine, None, None)
    service._play(gid, "reveal", mine, None, None)
    assert g.over and service.session(gid).view()["seed"] == finished._MINES_MARK
    s = service.session(gid)
    for k in (0, 1, 3, 4, 2):
        data = service.replay_bytes(gid, k)
        assert data == finished.encode(service.replay(gid, k))
        assert json.loads(data)["mine_cells"] == [[c // 30, c % 30] for c in g.mine_cells()]
    assert s._mines_json is not None and s.mine_cells_json() is s._mines_json
    assert s._extra["mines_json"] >= len(s._mines_json)  # (counted in the game's weight)


def test_an_analysis_is_encoded_where_it_is_computed() -> None:
    from demine.web.hints import analysis_board

    client, service = _app()
    text = "5x3x3\n1HHHH\nHHHHH\nHHHHH\n"
    ran: list[Any] = []
    real = service.compute

    async def compute(fn: Any, *args: Any, **kwargs: Any) -> Any:
        ran.append(fn)
        return await real(fn, *args, **kwargs)

    service.compute = compute  # type: ignore[method-assign]
    with client:
        r = client.post("/api/analyze", json={"text": text})
        assert r.status_code == 200 and r.headers["content-type"] == "application/json"
        assert ran == [finished.analysis_json]  # (bytes from the worker: nothing to encode here)
        assert r.content == finished.encode(analysis_board(text, None, False, SCRIPT.guess_limit))
        bad = client.post("/api/analyze", json={"text": "3x1x1\n1HQ"})  # (raised in the worker)
        assert bad.status_code == 400 and "line 2, column 3" in bad.json()["error"]


def test_a_finished_games_layout_leaves_the_collector_nothing_to_walk() -> None:
    # (its mines were kept as [row, col] lists and a set while the game stayed in memory: every
    # full collection walked them, 5,000 pairs for the abuse benchmark's long game,
    # docs/research/web-abuse.md, part m)
    import gc

    service = Service(limits=SCRIPT)
    gid = _finished(service, flags=1)  # lost, with a flag left on a safe cell
    s = service.session(gid)
    g = s.game
    view = json.loads(finished.encode(s.view()))
    assert view["mine_cells"] == [[c // 30, c % 30] for c in g.mine_cells()]
    flagged = [c for c, v in enumerate(g.position().states) if v == 10]
    assert len(flagged) == 1 and view["wrong_flags"] == [[flagged[0] // 30, flagged[0] % 30]]
    assert json.loads(service.replay_bytes(gid, 1))["mine_cells"] == view["mine_cells"]
    gc.collect()
    gc.collect()
    assert s._final is not None
    todo, walked = list(s._final), 0
    while todo:
        x = todo.pop()
        walked += gc.is_tracked(x)
        if isinstance(x, (list, tuple)):
            todo.extend(x)
    assert walked == 0  # (99 pairs and a set before)
