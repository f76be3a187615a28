"""A player's own record on the server (``/api/players``), on SQLite and PostgreSQL: made from the
games themselves, readable only with the player's token (stored as a hash), within the games'
limits and expiry; and the live 3BV the game's view carries."""

from __future__ import annotations

import hashlib
import random
import time
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from demine.engine.game import Game
from demine.web.app import create_app
from demine.web.limits import ServeLimits
from demine.web.records import Records
from demine.web.session import seen_bbbv
from demine.web.store import open_store

SCRIPT = ServeLimits(games=None, moves=None, hints=None, analyses=None, records=None, pace=0)


def app_client(url: str, limits: ServeLimits = SCRIPT) -> TestClient:
    return TestClient(create_app(url, limits=limits))


def records_of(client: TestClient) -> Records:
    return client.app.state.records  # type: ignore[attr-defined,no-any-return]


def player(client: TestClient) -> dict[str, str]:
    r = client.post("/api/players")
    assert r.status_code == 201, r.text
    return {"authorization": f"Bearer {r.json()['token']}"}


def play(client: TestClient, win: bool, seed: int = 7) -> dict[str, Any]:
    """A beginner game won (every safe cell opened) or lost (a mine opened); its final view."""
    gid = client.post("/api/games", json={"preset": "beginner", "rule": "safe", "seed": seed}).json()["id"]
    v = client.post(f"/api/games/{gid}/moves", json={"kind": "reveal", "row": 0, "col": 0}).json()
    game: Game = client.app.state.service.session(gid).game  # type: ignore[attr-defined]
    mines = set(game.mine_cells())
    cells = [c for c in range(81) if c not in mines] if win else sorted(mines)[:1]
    for c in cells:
        if v["outcome"] != "playing":
            break
        v = client.post(
            f"/api/games/{gid}/moves", json={"kind": "reveal", "row": c // 9, "col": c % 9}
        ).json()
    assert v["outcome"] == ("won" if win else "lost")
    return v  # type: ignore[no-any-return]


def test_a_players_record_holds_their_finished_games_as_the_server_played_them(store_url: str) -> None:
    client = app_client(store_url)
    me = player(client)
    won, lost = play(client, True), play(client, False, seed=8)
    unfinished = client.post("/api/games", json={"preset": "beginner"}).json()["id"]
    r = client.post(
        "/api/players/me/games", json={"games": [won["id"], lost["id"], unfinished, "nope"]}, headers=me
    )
    assert r.status_code == 200, r.text
    assert r.json()["missing"] == [unfinished, "nope"]
    games = client.get("/api/players/me/games", headers=me).json()["games"]
    assert [g["id"] for g in games] == [won["id"], lost["id"]]  # oldest first
    w, lo = games
    assert (w["outcome"], w["width"], w["height"], w["mines"], w["rule"]) == ("won", 9, 9, 10, "safe")
    assert w["bbbv"] == won["bbbv"] == w["solved_bbbv"] and w["elapsed"] == won["elapsed"]
    assert w["moves"] == won["total_moves"] and w["seed"] == "7"
    assert lo["outcome"] == "lost" and lo["solved_bbbv"] < lo["bbbv"] == lost["bbbv"]
    # a game added again is kept once
    client.post("/api/players/me/games", json={"games": [won["id"]]}, headers=me)
    assert client.get("/api/players/me", headers=me).json()["games"] == 2


def test_a_players_list_is_never_readable_without_their_token(store_url: str) -> None:
    client = app_client(store_url)
    alice, bob = player(client), player(client)
    g = play(client, True)
    client.post("/api/players/me/games", json={"games": [g["id"]]}, headers=alice)
    assert client.get("/api/players/me/games", headers=bob).json()["games"] == []
    token = alice["authorization"].split()[1]
    for headers in (
        {},
        {"authorization": "Bearer "},
        {"authorization": f"Bearer {token[:-1]}"},
        {"authorization": f"Bearer {token}x"},
        {"authorization": f"Basic {token}"},
        {"authorization": "Bearer " + "a" * 5000},
        {"authorization": f"Bearer {hashlib.sha256(token.encode()).hexdigest()}"},  # the stored hash
    ):
        for method, path in (
            ("GET", "/api/players/me/games"),
            ("GET", "/api/players/me"),
            ("DELETE", "/api/players/me"),
            ("DELETE", f"/api/players/me/games/{g['id']}"),
        ):
            r = client.request(method, path, headers=headers)
            assert r.status_code == 401 and set(r.json()) == {"error"}, (headers, path)
    # nor by putting the token where logs keep it
    assert client.get(f"/api/players/me/games?token={token}").status_code == 401
    assert len(client.get("/api/players/me/games", headers=alice).json()["games"]) == 1


def test_the_server_keeps_only_a_hash_of_the_token(store_url: str) -> None:
    client = app_client(store_url)
    token = client.post("/api/players").json()["token"]
    assert len(token) >= 43  # 256 random bits
    store = open_store(store_url)
    with store._connection() as db:
        rows = db.execute("SELECT id, created, updated, client FROM players").fetchall()
    assert [r[0] for r in rows] == [hashlib.sha256(token.encode()).hexdigest()]
    assert all(token not in str(v) for r in rows for v in r)


def test_a_player_deleted_takes_their_record_along(store_url: str) -> None:
    client = app_client(store_url)
    me = player(client)
    g = play(client, False)
    client.post("/api/players/me/games", json={"games": [g["id"]]}, headers=me)
    assert client.delete(f"/api/players/me/games/{g['id']}", headers=me).status_code == 200
    assert client.delete(f"/api/players/me/games/{g['id']}", headers=me).status_code == 404
    client.post("/api/players/me/games", json={"games": [g["id"]]}, headers=me)
    r = client.delete("/api/players/me", headers=me)
    assert r.status_code == 200 and r.json() == {"deleted_games": 1}
    assert client.get("/api/players/me/games", headers=me).status_code == 401
    assert records_of(client).size() == 0


def test_records_expire_with_their_games_and_unused_players_go(store_url: str) -> None:
    limits = ServeLimits(
        games=None, moves=None, hints=None, analyses=None, records=None,
        idle_expiry=100.0, finished_expiry=1000.0,
    )  # fmt: skip
    client = app_client(store_url, limits)
    rec = records_of(client)
    keeper, idle = player(client), player(client)
    g = play(client, True)
    client.post("/api/players/me/games", json={"games": [g["id"]]}, headers=keeper)
    now = time.time()
    rec.expire(now + 500, every=0)  # the empty player idle past idle_expiry goes; the other stays
    assert client.get("/api/players/me", headers=idle).status_code == 401
    assert client.get("/api/players/me", headers=keeper).json()["games"] == 1
    rec.expire(now + 1500, every=0)  # past finished_expiry: the record, and the unused player
    assert client.get("/api/players/me", headers=keeper).status_code == 401
    # a player in use stays while its games expire
    user = player(client)
    client.post("/api/players/me/games", json={"games": [g["id"]]}, headers=user)
    rec.player(user["authorization"].split()[1], now=now + 1450)  # a request at that time
    rec.expire(now + 1500, every=0)
    assert client.get("/api/players/me", headers=user).json()["games"] == 0


def test_a_record_holds_at_most_max_records_games_the_oldest_leaving_first(store_url: str) -> None:
    limits = ServeLimits(games=None, moves=None, hints=None, analyses=None, records=None, max_records=2)
    client = app_client(store_url, limits)
    me = player(client)
    ids = [play(client, False, seed=s)["id"] for s in (1, 2, 3)]
    for gid in ids:
        client.post("/api/players/me/games", json={"games": [gid]}, headers=me)
    assert [g["id"] for g in client.get("/api/players/me/games", headers=me).json()["games"]] == ids[1:]
    r = client.post("/api/players/me/games", json={"games": ["x"] * 101}, headers=me)
    assert r.status_code == 422 and "games" in r.json()["error"]


def test_players_and_their_requests_have_the_games_limits() -> None:
    client = TestClient(create_app(limits=ServeLimits(records="4/minute", games_per_client=2)))
    me = player(client)
    player(client)
    r = client.post("/api/players")  # a third player from this address
    assert r.status_code == 429 and "players" in r.json()["error"]
    codes = [client.get("/api/players/me", headers=me).status_code for _ in range(3)]
    assert codes[:1] == [200] and codes[-1] == 429  # 4 a minute, players made included


def test_the_records_survive_a_restart_of_the_server(tmp_path: Any) -> None:
    url = str(tmp_path / "games.db")
    client = app_client(url)
    me = player(client)
    g = play(client, True)
    client.post("/api/players/me/games", json={"games": [g["id"]]}, headers=me)
    client.app.state.service.close()  # type: ignore[attr-defined]
    again = app_client(url)
    assert [x["id"] for x in again.get("/api/players/me/games", headers=me).json()["games"]] == [g["id"]]


# ------------------------------------------------------------------ live 3BV in the game's view
def test_seen_bbbv_never_undercounts_and_is_the_3bv_once_won() -> None:
    """On random games and random moves, the 3BV the player can see cleared is at least the
    layout's count (it may count a number whose opening is still covered), equals it whenever no
    opened number touches a covered zero, and is the board's 3BV once won."""
    rng = random.Random(33)
    for k in range(150):
        w, h = rng.randint(3, 16), rng.randint(3, 16)
        g = Game(w, h, rng.randint(1, w * h // 4), rule="safe", seed=k)
        g.reveal(rng.randrange(w * h))
        while not g.over:
            p = g.position()
            assert seen_bbbv(p) >= g.solved_bbbv()
            count = g._count
            assert count is not None
            hidden_zero_beside_number = any(
                0 < v < 9
                and any(
                    p.states[d] >= 9 and count[d] == 0 and not g._mine[d] for d in p.geometry.neighbours(c)
                )  # type: ignore[index]
                for c, v in enumerate(p.states)
            )
            if not hidden_zero_beside_number:
                assert seen_bbbv(p) == g.solved_bbbv()
            safe = [c for c in p.covered_cells() if not g._mine[c]]  # type: ignore[index]
            g.reveal(rng.choice(safe if rng.random() < 0.97 else p.covered_cells()))
        if g.won:
            assert seen_bbbv(g.position()) == g.bbbv()


def test_the_view_carries_the_3bv_cleared_but_not_the_boards_3bv_during_play() -> None:
    client = TestClient(create_app(limits=SCRIPT))
    gid = client.post("/api/games", json={"preset": "beginner", "seed": 7}).json()["id"]
    v = client.get(f"/api/games/{gid}").json()
    assert v["solved_bbbv"] == 0 and v["moves"] == 0 and "bbbv" not in v
    v = client.post(f"/api/games/{gid}/moves", json={"kind": "reveal", "row": 0, "col": 0}).json()
    game: Game = client.app.state.service.session(gid).game  # type: ignore[attr-defined]
    assert v["solved_bbbv"] == seen_bbbv(game.position()) >= 1 and "bbbv" not in v
    final = play(client, True)
    assert final["solved_bbbv"] == final["bbbv"]
    lost = play(client, False, seed=9)
    lost_game: Game = client.app.state.service.session(lost["id"]).game  # type: ignore[attr-defined]
    assert lost["solved_bbbv"] == lost_game.solved_bbbv()  # once over, the layout's own count


def test_a_game_played_with_hints_says_so_in_its_view_its_record_and_its_export(store_url: str) -> None:
    """Hints (or the probabilities) shown while a game was played mark it, once, in the file: its
    view, the player's record of it and its export carry ``hints_used``, whichever server process
    on the file showed them; a game played alone carries false."""
    client = app_client(store_url)
    me = player(client)
    alone = play(client, True)
    asked = client.post("/api/games", json={"preset": "beginner", "rule": "safe", "seed": 9}).json()["id"]
    assert client.get(f"/api/games/{asked}").json()["hints_used"] is False
    client.get(f"/api/games/{asked}/hints?probabilities=1")  # before the first click, even
    assert client.get(f"/api/games/{asked}").json()["hints_used"] is True
    with_move = client.post("/api/games", json={"preset": "beginner", "rule": "safe", "seed": 10}).json()
    v = client.post(
        f"/api/games/{with_move['id']}/moves?hints=1", json={"kind": "reveal", "row": 0, "col": 0}
    ).json()
    assert v["hints_used"] is True and v["hints"] is not None
    # a second server process on the same file finishes a game the first one hinted
    two = app_client(store_url)
    for gid in (asked, with_move["id"]):
        game: Game = two.app.state.service.session(gid).game  # type: ignore[attr-defined]
        if not game.placed:
            two.post(f"/api/games/{gid}/moves", json={"kind": "reveal", "row": 0, "col": 0})
        mine = sorted(two.app.state.service.session(gid).game.mine_cells())[0]  # type: ignore[attr-defined]
        end = two.post(f"/api/games/{gid}/moves", json={"kind": "reveal", "row": mine // 9, "col": mine % 9})
        assert end.json()["outcome"] == "lost" and end.json()["hints_used"] is True
    out = client.post(
        "/api/players/me/games", json={"games": [alone["id"], asked, with_move["id"]]}, headers=me
    )
    assert [r["hints_used"] for r in out.json()["added"]] == [False, True, True]
    assert client.get(f"/api/games/{alone['id']}/export").json()["record"]["hints_used"] is False
    record = two.get(f"/api/games/{asked}/export").json()["record"]
    assert record["hints_used"] is True
    # the record still reads as a game record (the field is the web's own)
    from demine.engine.formats import GameRecord

    assert GameRecord.from_json(record).replay().outcome == "lost"
