"""What the second red-team pass on the server found (issue 57), each test failing on the code
before its fix: a restart that told a game's layout, puzzle ratings thrown from one address,
records evicted and claimed by other clients, a games file other users could read, and framing
h11 let through. The tests whose answer depends on uvicorn or the operating system run a real
``demine serve`` process; every loop is bounded."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient

from demine.web.app import create_app
from demine.web.limits import ServeLimits

#: A script's speed: the rates are tested in test_web_limits.py.
SCRIPT = ServeLimits(
    games=None, moves=None, hints=None, analyses=None, records=None, views=None, exports=None, pace=0
)


@pytest.fixture
def client() -> TestClient:
    return TestClient(create_app(limits=SCRIPT))


def _new(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def _move(client: TestClient, gid: str, row: int, col: int, kind: str = "reveal") -> dict[str, Any]:
    r = client.post(f"/api/games/{gid}/moves", json={"kind": kind, "row": row, "col": col})
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def _play_out(client: TestClient, gid: str, first: tuple[int, int]) -> set[tuple[int, int]]:
    """Open ``first``, then every covered cell in order until the game is over, as an attacker
    who wants the layout would; the mines the finished game's view and export show."""
    v = _move(client, gid, *first)
    while v["outcome"] == "playing":
        r, c = next((r, c) for r, row in enumerate(v["rows"]) for c, ch in enumerate(row) if ch == "H")
        v = _move(client, gid, r, c)
    shown = {(r, c) for r, c in v["mine_cells"]}
    record = client.get(f"/api/games/{gid}/export").json()["record"]
    assert {(r, c) for r, c in record["mine_cells"]} == shown
    return shown


# ---------------------------------------------------------------------- 1. restart
@pytest.mark.parametrize("no_guess", [None, "complete"])
@pytest.mark.parametrize("clicked", [True, False])
def test_a_restart_of_a_game_in_play_tells_nothing_of_its_layout(
    client: TestClient, no_guess: str | None, clicked: bool
) -> None:
    # before the fix the copy had the original's seed: the same first click, lost at once, showed
    # the original's mines, and the original was then won without a mine hit
    first = (4, 4)
    original = _new(client, preset="beginner", rule="safe", no_guess=no_guess)["id"]
    if clicked:
        _move(client, original, *first)
    r = client.post(f"/api/games/{original}/restart")  # from anyone with the link
    assert r.status_code == 200, r.text
    copy = r.json()
    assert copy["seed"] is None and copy["no_guess"] == no_guess
    assert (copy["width"], copy["height"], copy["mines"], copy["rule"]) == (9, 9, 10, "safe")
    copied = _play_out(client, copy["id"], first)
    # the original, played out the same way afterwards: another layout (two random beginner
    # layouts agree about once in 10^12)
    assert _play_out(client, original, first) != copied
    assert copy["same_board"] is False  # (the page says so)


def test_a_finished_game_or_a_chosen_seed_restarts_on_the_same_board(client: TestClient) -> None:
    first = (4, 4)
    done = _new(client, preset="beginner", rule="safe")["id"]
    mines = _play_out(client, done, first)
    copy = client.post(f"/api/games/{done}/restart").json()
    assert copy["same_board"] is True and copy["seed"] is None  # (hidden while the copy is played)
    assert _play_out(client, copy["id"], first) == mines
    # a seed the player chose is theirs already: the board is kept while it is played
    chosen = _new(client, preset="beginner", rule="safe", seed="mine")["id"]
    _move(client, chosen, *first)
    copy = client.post(f"/api/games/{chosen}/restart").json()
    assert copy["same_board"] is True and copy["seed"] == "mine"
    assert _play_out(client, copy["id"], first) == _play_out(client, chosen, first)
