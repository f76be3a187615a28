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
