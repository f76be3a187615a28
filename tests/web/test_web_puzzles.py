"""The puzzles' API: a puzzle is served without its answer, an answer is judged at once with the
proof, the rating moves, and bad requests say what is wrong."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient

from demine.puzzles import read_puzzles
from demine.web.app import create_app

PUZZLES = {p.id: p for p in read_puzzles()}


@pytest.fixture
def client() -> TestClient:
    return TestClient(create_app(":memory:"))


def _first(kind: str) -> Any:
    return next(p for p in PUZZLES.values() if p.kind == kind)


def test_a_puzzle_is_served_without_its_answer(client: TestClient) -> None:
    got = client.get("/api/puzzles/next", params={"kind": "safe", "rating": 1200}).json()
    assert got["kind"] == "safe" and "answer" not in got and "proof" not in got
    p = PUZZLES[got["id"]]
    assert got["rows"] == [row.replace(".", "H") for row in str(p.position).splitlines()]
    themes = client.get("/api/puzzles/themes").json()
    assert themes["count"] == len(PUZZLES) and set(themes["kinds"]) == {"safe", "all", "guess", "coin"}
    assert client.get("/api/puzzles/daily").json()["id"] == client.get("/api/puzzles/daily").json()["id"]


def test_a_right_and_a_wrong_answer_with_the_proof_and_the_rating(client: TestClient) -> None:
    p = _first("safe")
    w = p.position.width
    cell = p.answer[0]
    me = {"rating": 1500, "rd": 200, "volatility": 0.06}
    v = client.post(f"/api/puzzles/{p.id}/answer", json={"cell": list(divmod(cell, w)), "player": me}).json()
    assert v["right"] and v["done"] and v["proof"] == [list(divmod(n, w)) for n in p.proof[cell][1]]
    assert v["player"]["rating"] > 1500
    # the message names cells as the API does, (row,col) from 0 (the page shows them its own way)
    r, c = divmod(cell, w)
    assert f"Right: ({r},{c}) is safe: the " in v["message"], v["message"]
    wrong = next(c for c in range(p.position.cells) if p.position.states[c] == 9 and c not in p.answer)
    v = client.post(f"/api/puzzles/{p.id}/answer", json={"cell": list(divmod(wrong, w)), "player": me}).json()
    assert not v["right"] and v["done"] and v["cell"] is not None and v["player"]["rating"] < 1500


def test_an_all_puzzle_is_answered_move_by_move(client: TestClient) -> None:
    p = next(z for z in PUZZLES.values() if z.kind == "all" and z.mines and len(z.answer) > 2)
    w = p.position.width
    marked: list[list[int]] = []
    for cell in p.answer:
        rc = list(divmod(cell, w))
        v = client.post(
            f"/api/puzzles/{p.id}/answer", json={"cell": rc, "flag": cell in p.mines, "marked": marked}
        ).json()
        assert v["right"], v
        marked.append(rc)
    assert v["done"] and v["left"] == 0
    # a mine opened fails at once
    mine = p.mines[0]
    v = client.post(f"/api/puzzles/{p.id}/answer", json={"cell": list(divmod(mine, w))}).json()
    assert not v["right"] and v["done"]


def test_a_coin_needs_the_call_and_bad_cells_are_named(client: TestClient) -> None:
    p = _first("coin")
    w = p.position.width
    r = client.post(f"/api/puzzles/{p.id}/answer", json={"cell": list(divmod(p.answer[0], w))})
    assert r.status_code == 400 and "call" in r.json()["error"]
    v = client.post(
        f"/api/puzzles/{p.id}/answer", json={"cell": list(divmod(p.answer[0], w)), "fifty": p.fifty}
    ).json()
    assert v["right"]
    r = client.post(f"/api/puzzles/{p.id}/answer", json={"cell": [999, 0], "fifty": True})
    assert r.status_code == 400 and "off the" in r.json()["error"]
    assert client.get("/api/puzzles/nope").status_code == 404
    assert client.get("/api/puzzles/next", params={"theme": "no such theme"}).status_code == 404


# ---------------------------------------------------------------- ratings learned from attempts


def _answer(
    client: TestClient, p: Any, cell: int, headers: dict[str, str] | None = None, **extra: Any
) -> Any:
    body = {"cell": list(divmod(cell, p.position.width)), **extra}
    r = client.post(f"/api/puzzles/{p.id}/answer", json=body, headers=headers or {})
    assert r.status_code == 200, r.text
    return r.json()


def _wrong(p: Any) -> int:
    return next(c for c in range(p.position.cells) if p.position.states[c] == 9 and c not in p.answer)


def _token(client: TestClient) -> dict[str, str]:
    return {"authorization": f"Bearer {client.post('/api/players').json()['token']}"}


def test_attempts_move_the_puzzles_rating_once_per_player_and_it_is_served(store_url: str) -> None:
    from demine.puzzles import Rating, attempt

    p, q = [z for z in PUZZLES.values() if z.kind == "safe"][:2]
    with TestClient(create_app(store_url)) as client:
        me = {"rating": 1500, "rd": 200, "volatility": 0.06}
        v = _answer(client, p, p.answer[0], player=me)
        # solved: the puzzle lost its game against the player, by Glicko-2's own update
        expect = attempt(Rating(1500, 200, 0.06), Rating(p.rating, p.rd), 1.0)[1]
        assert v["counted"] and v["puzzle"]["attempts"] == 1 and v["puzzle"]["solved"] == 1
        assert v["puzzle"]["rating"] == round(expect.rating) < round(p.rating)
        served = client.get(f"/api/puzzles/{p.id}").json()
        assert served["rating"] == round(expect.rating) and served["attempts"] == 1 and served["solved"] == 1
        # the same client again (solving or failing it) is not counted a second time
        v = _answer(client, p, _wrong(p), player=me)
        assert not v["counted"] and v["puzzle"]["attempts"] == 1
        assert client.get(f"/api/puzzles/{p.id}").json()["rating"] == round(expect.rating)
        # another player (by its token) counts: a failure raises the puzzle again
        v = _answer(client, p, _wrong(p), headers=_token(client), player=me)
        assert v["counted"] and v["puzzle"]["attempts"] == 2 and v["puzzle"]["solved"] == 1
        assert v["puzzle"]["rating"] > round(expect.rating)
        # a puzzle nobody tried keeps its shipped rating; a wrong token is refused
        assert client.get(f"/api/puzzles/{q.id}").json()["rating"] == round(q.rating)
        r = client.post(
            f"/api/puzzles/{q.id}/answer",
            json={"cell": list(divmod(q.answer[0], q.position.width))},
            headers={"authorization": "Bearer nope"},
        )
        assert r.status_code == 401
    # the ratings outlive a restart of the server (the same database)
    with TestClient(create_app(store_url)) as client:
        got = client.get(f"/api/puzzles/{p.id}").json()
        assert got["attempts"] == 2 and got["rating"] == v["puzzle"]["rating"]


def test_an_all_puzzle_counts_once_done_and_a_claimed_rating_is_bounded() -> None:
    from demine.puzzles import Rating, attempt

    p = next(z for z in PUZZLES.values() if z.kind == "all" and z.mines and z.safe)
    w = p.position.width
    with TestClient(create_app(":memory:")) as client:
        first = p.safe[0]
        v = _answer(client, p, first)
        assert not v["done"] and "counted" not in v
        assert client.get(f"/api/puzzles/{p.id}").json()["attempts"] == 0
        # a player claiming 4000 with no doubt who fails: counted as 2500 with a deviation of 100
        boast = {"rating": 4000, "rd": 1, "volatility": 0.06}
        v = _answer(client, p, p.mines[0], marked=[list(divmod(first, w))], player=boast)
        assert v["done"] and not v["right"] and v["counted"]
        expect = attempt(Rating(2500, 100, 0.06), Rating(p.rating, p.rd), 0.0)[1]
        assert v["puzzle"]["rating"] == round(expect.rating)
        unbounded = attempt(Rating(4000, 1, 0.06), Rating(p.rating, p.rd), 0.0)[1]
        assert unbounded.rating - p.rating > expect.rating - p.rating  # the bound took effect


def test_attempt_marks_expire_and_are_capped_but_the_ratings_stay(tmp_path: Any) -> None:
    from demine.puzzles import Rating
    from demine.web.limits import ServeLimits
    from demine.web.puzzles import PuzzleStats
    from demine.web.store import open_store

    store = open_store(str(tmp_path / "games.db"))
    stats = PuzzleStats(store, ServeLimits(), max_attempts=3)
    ps = [z for z in PUZZLES.values() if z.kind == "safe"][:5]
    day = 86400.0
    for i, p in enumerate(ps):
        assert stats.count(p, "c:x", Rating(), 1.0, now=1000 * day + i)[0]
    assert not stats.count(ps[0], "c:x", Rating(), 1.0, now=1000 * day + 10)[0]
    with store._connection() as db:
        (n,) = db.execute("SELECT COUNT(*) FROM puzzle_attempts").fetchone()
    assert n == 5
    assert stats.expire(1000 * day + 100) == 2  # the oldest two past max_attempts
    assert stats.count(ps[0], "c:x", Rating(), 1.0, now=1000 * day + 101)[0]  # its mark was gone
    assert stats.expire(1031 * day + 200) == 4  # 30 days later every mark (3 + the new one) has expired
    assert all(stats.get(p.id) is not None for p in ps) and stats.get(ps[0].id).attempts == 2  # type: ignore[union-attr]
    store.close()


def test_a_puzzle_whose_learned_rating_left_its_band_is_served_in_the_new_one() -> None:
    """Many strong players fail an easy puzzle: its learned rating climbs out of "easy", and
    /next serves it under the difficulty it has now (the one it is shown with)."""
    from demine.puzzles import Rating, band

    p = next(z for z in PUZZLES.values() if z.kind == "safe" and z.difficulty == "easy")
    with TestClient(create_app(":memory:")) as client:
        stats = client.app.state.puzzle_stats  # type: ignore[attr-defined]
        k = 0
        while band(stats.get(p.id).rating if stats.get(p.id) else p.rating) == "easy":
            assert stats.count(p, f"c:strong{k}", Rating(2500, 100), 0.0)[0]
            k += 1
            assert k < 200
        now = band(stats.get(p.id).rating)
        assert client.get(f"/api/puzzles/{p.id}").json()["difficulty"] == now != "easy"
        stats.cache = 0.0  # (the learned ratings are read again at once)
        # with every other puzzle of its old band seen, asking for that band no longer finds it
        easy = [
            z.id for z in PUZZLES.values() if z.kind == "safe" and z.difficulty == "easy" and z.id != p.id
        ]
        got = client.get(
            "/api/puzzles/next", params={"kind": "safe", "difficulty": "easy", "seen": ",".join(easy)}
        ).json()
        assert got["id"] != p.id and got["difficulty"] == "easy"
        # and with every other puzzle of its new band seen, asking for the new band finds it
        there = [z.id for z in PUZZLES.values() if z.kind == "safe" and z.difficulty == now and z.id != p.id]
        got = client.get(
            "/api/puzzles/next", params={"kind": "safe", "difficulty": now, "seen": ",".join(there)}
        ).json()
        assert got["id"] == p.id and got["difficulty"] == now
