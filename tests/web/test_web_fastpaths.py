"""The fast path (demine.web.fastpaths) answers byte for byte as FastAPI's routes do: status, headers
(in order, the security headers included) and body, for good and bad input; what is not of its
plain shape goes to FastAPI."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient

from demine.web.app import create_app
from demine.web.limits import ServeLimits
from demine.web.session import Session

SCRIPT = ServeLimits(games=None, moves=None, hints=None, analyses=None, views=None, exports=None, pace=0)
Answer = tuple[int, list[tuple[str, str]], bytes]


@pytest.fixture(autouse=True)
def no_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """A game's elapsed time is the one field of a view that differs between two requests."""
    monkeypatch.setattr(Session, "elapsed", lambda self, now=None: 0.0)


def ask(client: TestClient, fast: bool, method: str, path: str, **kw: Any) -> tuple[Answer, bool]:
    """The answer to one request with the fast path on or off, and whether the fast path served it."""
    switch = client.app.state.fast  # type: ignore[attr-defined]
    switch.enabled = fast
    before = switch.served.total()
    r = client.request(method, path, follow_redirects=False, **kw)
    return (r.status_code, r.headers.multi_items(), r.content), switch.served.total() > before


def new_game(client: TestClient, seed: str = "fast", preset: str = "beginner") -> str:
    body = {"preset": preset, "rule": "safe", "seed": seed}
    return client.post("/api/games", json=body).json()["id"]  # type: ignore[no-any-return]


def test_the_plain_requests_are_served_by_the_fast_path() -> None:
    client = TestClient(create_app(limits=SCRIPT))
    gid = new_game(client)
    served = client.app.state.fast.served  # type: ignore[attr-defined]
    assert client.get(f"/api/games/{gid}").status_code == 200
    r = client.post(
        f"/api/games/{gid}/moves?hints=1&probabilities=1", json={"kind": "reveal", "row": 4, "col": 4}
    )
    assert r.status_code == 200 and r.json()["hints"]["moves"] == 1
    assert client.get(f"/api/games/{gid}/hints?probabilities=0&guess=1").status_code == 200
    assert client.get(f"/api/games/{gid}/hint").status_code == 200
    assert served == {"view": 1, "moves": 1, "hints": 1, "hint": 1}


# each: method, path (GID: the game's id), keyword arguments, whether the fast path serves it
READS = [
    ("GET", "/api/games/GID", {}, True),
    ("GET", "/api/games/GID/hints", {}, True),
    ("GET", "/api/games/GID/hints?probabilities=0&guess=0", {}, True),
    ("GET", "/api/games/GID/hints?guess=true&probabilities=false", {}, True),
    ("GET", "/api/games/GID/hint", {}, True),
    ("GET", "/api/games/GID/hints?probabilities=yes", {}, False),  # pydantic's other spellings
    ("GET", "/api/games/GID/hints?probabilities=maybe", {}, False),  # a 422
    ("GET", "/api/games/GID/hints?guess=0&guess=1", {}, False),
    ("GET", "/api/games/GID/hints?probabilities", {}, False),
    ("GET", "/api/games/GID/hints?other=1", {}, False),
    ("GET", "/api/games/GID/hint?guess=0", {}, False),
    ("GET", "/api/games/GID/", {}, False),
    ("HEAD", "/api/games/GID", {}, False),
    ("POST", "/api/games/GID", {"json": {}}, False),
    ("GET", "/api/games/GID/moves", {}, False),
    ("GET", "/api/games/AAAAAAAAAAAAAAAAAAAAAA", {}, True),  # no such game: 404
    ("GET", "/api/games/AAAAAAAAAAAAAAAAAAAAAA/hints", {}, True),
    ("GET", "/api/games/AAAAAAAAAAAAAAAAAAAAAA/hint", {}, True),
    ("GET", "/api/games/" + "A" * 65, {}, False),  # not an id's shape
    ("GET", "/api/games/a%00b", {}, False),
    ("GET", "/api/games/%C3%A9t%C3%A9/hints", {}, False),
]
MOVES = [  # on the beginner board of seed "fast": mines at (0,4) (2,8) (4,2) (5,7) (6,2)...
    ({"json": {"kind": "reveal", "row": 4, "col": 4}}, "", True),
    ({"json": {"kind": "flag", "row": 0, "col": 4}}, "?hints=1", True),
    ({"json": {"kind": "flag", "row": 0, "col": 4, "flag": True}}, "?hints=true&probabilities=0", True),
    ({"json": {"kind": "flag", "row": 2, "col": 8, "flag": None}}, "?hints=0", True),
    ({"json": {"kind": "reveal", "row": 3, "col": 8}}, "?hints=1&probabilities=false", True),
    ({"json": {"kind": "chord", "row": 3, "col": 7}}, "?probabilities=0&hints=1", True),
    ({"json": {"kind": "explode", "row": 1, "col": 1}}, "", True),  # 400: an unknown move
    ({"json": {"kind": "reveal", "row": 9, "col": 0}}, "", True),  # 400: off the board
    ({"json": {"kind": "reveal", "row": -1, "col": 0}}, "", True),
    ({"json": {"kind": "flag", "row": 0, "col": 0}}, "", True),  # 400: an open cell
    ({"json": {"kind": "reveal", "row": 1 << 40, "col": 0}}, "", False),
    ({"json": {"kind": "flag", "row": "8", "col": 0}}, "", False),  # pydantic's lax ints
    ({"json": {"kind": "flag", "row": 8.0, "col": 1}}, "", False),
    ({"json": {"kind": "flag", "row": 8.5, "col": 2}}, "", False),  # 422
    ({"json": {"kind": "flag", "row": True, "col": 3}}, "", False),
    ({"json": {"kind": 3, "row": 8, "col": 4}}, "", False),
    ({"json": {"kind": "flag", "row": 8}}, "", False),  # 422: col missing
    ({"json": {"kind": "flag", "row": 8, "col": 5, "extra": 1}}, "", False),
    ({"json": {"kind": "flag", "row": 8, "col": 6, "flag": "yes"}}, "", False),
    ({"json": {"kind": "r\u00e9veal", "row": 8, "col": 7}}, "", False),
    ({"json": [1, 2]}, "", False),
    ({"json": None}, "", False),
    ({"content": b"{not json", "headers": {"content-type": "application/json"}}, "", False),
    ({"content": b"", "headers": {"content-type": "application/json"}}, "", False),
    ({"content": b'{"kind":"flag","row":7,"col":0}', "headers": {"content-type": "text/plain"}}, "", False),
    ({"content": b'{"kind":"flag","row":7,"col":1}'}, "", False),  # no content type
    (
        {
            "content": b'{"kind":"flag","row":7,"col":2}',
            "headers": {"content-type": "application/json; charset=utf-8"},
        },
        "",
        False,
    ),
    ({"json": {"kind": "flag", "row": 7, "col": 3}}, "?hints=on", False),
    ({"json": {"kind": "flag", "row": 7, "col": 4}}, "?hints=1&hints=1", False),
    ({"json": {"kind": "flag", "row": 7, "col": 5}}, "?hints=1&", False),
    ({"json": {"kind": "flag", "row": 7, "col": 6}}, "?guess=1", False),
    ({"json": {"kind": "flag", "row": 7, "col": 7}}, "?hints", False),
]


def test_reads_answer_as_fastapi_does() -> None:
    client = TestClient(create_app(limits=SCRIPT))
    gid = new_game(client)
    client.post(f"/api/games/{gid}/moves", json={"kind": "reveal", "row": 4, "col": 4})
    for method, path, kw, fast in READS:
        path = path.replace("GID", gid)
        slow_answer, slow_served = ask(client, False, method, path, **kw)
        fast_answer, fast_served = ask(client, True, method, path, **kw)
        assert not slow_served and fast_served == fast, (method, path)
        assert fast_answer == slow_answer, (method, path)
        assert ("x-frame-options", "DENY") in fast_answer[1], (method, path)


def test_moves_answer_as_fastapi_does() -> None:
    """Two games of the same seed, one played through FastAPI, one through the fast path, the
    same moves in the same order (errors included): the same answers, but for the game's id."""
    client = TestClient(create_app(limits=SCRIPT))
    one, two = new_game(client), new_game(client)
    assert len(one) == len(two)
    for kw, query, fast in MOVES:
        slow_answer, _ = ask(client, False, "POST", f"/api/games/{one}/moves{query}", **kw)
        fast_answer, served = ask(client, True, "POST", f"/api/games/{two}/moves{query}", **kw)
        assert served == fast, (kw, query)
        status, headers, body = fast_answer
        assert (status, headers, body.replace(two.encode(), one.encode())) == slow_answer, (kw, query)
    for cell in range(81):  # to the end of the game (a mine), then refusals alike
        move = {"kind": "reveal", "row": cell // 9, "col": cell % 9}
        slow_answer, _ = ask(client, False, "POST", f"/api/games/{one}/moves?hints=1", json=move)
        fast_answer, served = ask(client, True, "POST", f"/api/games/{two}/moves?hints=1", json=move)
        status, headers, body = fast_answer
        assert served and (status, headers, body.replace(two.encode(), one.encode())) == slow_answer
    assert slow_answer[0] in (400, 409) and b'"outcome":"lost"' in client.get(f"/api/games/{one}").content
    for path in ("hints", "hint"):
        slow_answer, _ = ask(client, False, "GET", f"/api/games/{one}/{path}")
        fast_answer, served = ask(client, True, "GET", f"/api/games/{one}/{path}")
        assert served and fast_answer == slow_answer and slow_answer[0] == 409


def test_hints_leave_the_guess_out_when_told_alike() -> None:
    client = TestClient(create_app(limits=SCRIPT))
    one, two = new_game(client, preset="intermediate"), new_game(client, preset="intermediate")
    for gid in (one, two):  # (nothing safe after this click: the best guess is pending)
        client.post(f"/api/games/{gid}/moves", json={"kind": "reveal", "row": 4, "col": 4})
    slow_answer, _ = ask(client, False, "GET", f"/api/games/{one}/hints?guess=0")
    fast_answer, served = ask(client, True, "GET", f"/api/games/{two}/hints?guess=0")
    assert served and fast_answer == slow_answer and b'"guess_pending":true' in fast_answer[2]


@pytest.mark.parametrize("fast", [False, True])
def test_rates_count_and_refuse_alike(fast: bool) -> None:
    """Past a rate the 429 (its pause, its Retry-After, its words) is the same on both paths."""
    limits = ServeLimits(views="1/second", moves="1/second", hints="1/second", penalty=0.0)
    answers = []
    for path, kw in (
        ("/api/games/{}", {}),
        ("/api/games/{}/moves", {"json": {"kind": "flag", "row": 0, "col": 0}}),
        ("/api/games/{}/hints", {}),
    ):
        client = TestClient(create_app(limits=limits))
        gid = new_game(client)
        method = "POST" if kw else "GET"
        first, _ = ask(client, fast, method, path.format(gid), **kw)
        second, served = ask(client, fast, method, path.format(gid), **kw)
        assert served == fast and first[0] == 200 and second[0] == 429
        answers.append(second)
    expected = [
        b'{"error":"too many views requests from this address (1 per 1 second); try again in 1 s"}',
        b'{"error":"too many moves requests from this address (1 per 1 second); try again in 1 s"}',
        b'{"error":"too many hints requests from this address (1 per 1 second); try again in 1 s"}',
    ]
    assert [a[2] for a in answers] == expected
    assert all(("retry-after", "1") in a[1] for a in answers)
