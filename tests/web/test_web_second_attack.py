"""What the second red-team pass on the server found (issue 57), each test failing on the code
before its fix: a restart that told a game's layout, puzzle ratings thrown from one address,
records evicted and claimed by other clients, a games file other users could read, and framing
h11 let through. The tests whose answer depends on uvicorn or the operating system run a real
``demine serve`` process; every loop is bounded."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import secrets
import stat
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient

from demine.web.app import create_app
from demine.web.limits import ServeLimits
from tests.helpers import benchmark_script
from tests.serving import free_port, raw, running

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


# ------------------------------------------------------ 3. no-guess boards at any density
def test_a_no_guess_board_denser_than_the_budget_can_find_is_refused_at_once(client: TestClient) -> None:
    from demine.analysis.noguess import no_guess_reach

    reach = no_guess_reach(100, 100, "safe")
    assert reach is not None and reach.refused <= 2000 <= reach.refused_to  # the 100x100/2000
    for mines in (2000, reach.refused, reach.refused_to):
        r = client.post(
            "/api/games",
            json={"width": 100, "height": 100, "mines": mines, "rule": "safe", "no_guess": "complete"},
        )
        assert r.status_code == 400, r.text
        message = r.json()["error"]
        # what can be found there, once, and nothing the player cannot do (a longer time limit)
        assert f"up to about {reach.found} mines" in message and f"at most {reach.found} mines" in message
        assert "time limit" not in message and "bigger board" not in message
    # the same board is played without no guess, and a no-guess one within reach is made
    assert _new(client, width=100, height=100, mines=2000, rule="safe")["outcome"] == "playing"
    assert _new(client, width=100, height=100, mines=reach.found, rule="safe", no_guess="complete")[
        "no_guess"
    ]


def test_placing_a_guess_free_board_is_heavy_work_outside_the_players_reserved_place(
    client: TestClient,
) -> None:
    from demine.web.workers import PLACE

    service = client.app.state.service  # type: ignore[attr-defined]
    kinds: list[int] = []
    run = service.slow.run

    async def watched(fn: Any, *args: Any, in_thread: bool = False, kind: int = 0) -> Any:
        kinds.append(kind)
        return await run(fn, *args, in_thread=in_thread, kind=kind)

    service.slow.run = watched
    gid = _new(client, preset="expert", rule="safe", no_guess="complete")["id"]
    _move(client, gid, 3, 3)
    assert kinds == [PLACE]


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


# ---------------------------------------------------------------------- 4, 5. records
def _player(client: TestClient, **headers: str) -> dict[str, str]:
    r = client.post("/api/players", headers=headers)
    assert r.status_code == 201, r.text
    return {"authorization": f"Bearer {r.json()['token']}"}


def _hash(player: dict[str, str]) -> str:
    """The stored form of a player's token (its SHA-256)."""
    return hashlib.sha256(player["authorization"].split()[1].encode()).hexdigest()


def _browser() -> dict[str, str]:
    """The page's key for its browser, as the page sends it."""
    return {"x-demine-owner": secrets.token_urlsafe(32)}


def _finished(client: TestClient, headers: dict[str, str], seed: int = 7) -> str:
    """A beginner game made with ``headers`` and lost at once; its id."""
    body = {"preset": "beginner", "rule": "safe", "seed": seed}
    gid = client.post("/api/games", json=body, headers=headers).json()["id"]
    v = _move(client, gid, 0, 0)
    while v["outcome"] == "playing":  # (the seed is known: its mines are not, to the test either)
        r, c = next((r, c) for r, row in enumerate(v["rows"]) for c, ch in enumerate(row) if ch == "H")
        v = _move(client, gid, r, c)
    return gid  # type: ignore[no-any-return]


def _add(client: TestClient, games: list[str], *headers: dict[str, str]) -> dict[str, Any]:
    merged = {k: v for h in headers for k, v in h.items()}
    r = client.post("/api/players/me/games", json={"games": games}, headers=merged)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def test_a_finished_game_joins_only_the_record_of_whoever_made_it_and_once(store_url: str) -> None:
    client = TestClient(create_app(store_url, limits=SCRIPT))
    alice_browser, bob = _browser(), _player(client)
    alices = _finished(client, alice_browser)
    # before the fix Bob's record took Alice's game (and with the restart, a won copy of it)
    got = _add(client, [alices], bob)
    assert got["added"] == [] and got["refused"] == [alices]
    assert client.get("/api/players/me", headers=bob).json()["games"] == 0
    # Alice's record takes it, sent from her browser; again: kept once, still hers
    alice = _player(client)
    assert [r["id"] for r in _add(client, [alices], alice, alice_browser)["added"]] == [alices]
    assert [r["id"] for r in _add(client, [alices], alice, alice_browser)["added"]] == [alices]
    # a second player of the same browser cannot hold it too: one record a game
    again = _player(client)
    assert _add(client, [alices], again, alice_browser)["refused"] == [alices]
    # a game made with a player's token is that player's; one made by nobody is nobody's
    bobs = _finished(client, bob, seed=8)
    nobodys = _finished(client, {}, seed=9)
    got = _add(client, [bobs, nobodys], bob)
    assert [r["id"] for r in got["added"]] == [bobs] and got["refused"] == [nobodys]
    # the restart of a finished game is the restarter's
    copy = client.post(f"/api/games/{bobs}/restart", headers=alice_browser).json()["id"]
    v = _move(client, copy, 0, 0)
    while v["outcome"] == "playing":
        r, c = next((r, c) for r, row in enumerate(v["rows"]) for c, ch in enumerate(row) if ch == "H")
        v = _move(client, copy, r, c)
    assert _add(client, [copy], bob)["refused"] == [copy]
    assert [r["id"] for r in _add(client, [copy], alice, alice_browser)["added"]] == [copy]
    # a key too short to be secret is refused with a reason
    r = client.post("/api/games", json={"preset": "beginner"}, headers={"x-demine-owner": "abc"})
    assert r.status_code == 400 and "x-demine-owner" in r.json()["error"]


def test_copies_of_a_game_in_many_records_are_kept_in_the_first_players_only(store_url: str) -> None:
    from demine.web.records import Records

    client = TestClient(create_app(store_url, limits=SCRIPT))
    records: Records = client.app.state.records  # type: ignore[attr-defined]
    browser = _browser()
    first = _player(client)
    gid = _finished(client, browser)
    _add(client, [gid], first, browser)
    later = [_player(client) for _ in range(3)]
    hashes = [_hash(p) for p in later]
    with records.store._transaction() as db:  # a database from before the rule: many copies
        db.execute("DROP INDEX records_game")
        (data,) = db.execute("SELECT data FROM records WHERE game_id = ?", (gid,)).fetchone()
        db.executemany(
            "INSERT INTO records (player, game_id, ended, data) VALUES (?, ?, 0, ?)",
            [(h, gid, data) for h in hashes],
        )
    records.open()  # the next start
    assert client.get("/api/players/me", headers=first).json()["games"] == 1
    assert all(client.get("/api/players/me", headers=p).json()["games"] == 0 for p in later)


def test_one_address_filling_the_records_space_evicts_its_own_records_not_others(store_url: str) -> None:
    # before the fix every record shared the space, oldest first: at --max-db-size 4M a victim's
    # 5 records went to 0 after 4,500 of an attacker's
    limits = dataclasses.replace(SCRIPT, trust_proxy=True, max_db_bytes=4 << 20)
    client = TestClient(create_app(store_url, limits=limits))
    records = client.app.state.records  # type: ignore[attr-defined]
    victim_at, attacker_at = {"x-forwarded-for": "192.0.2.1"}, {"x-forwarded-for": "192.0.2.66"}
    victim, browser = _player(client, **victim_at), _browser()
    mine = [_finished(client, browser, seed=s) for s in range(5)]
    assert len(_add(client, mine, victim, browser)["added"]) == 5
    # the attacker's 4,500 records, each of a game of its own (written straight to the database:
    # playing them would take minutes), all newer than the victim's
    attacker = _player(client, **attacker_at)
    hashed = _hash(attacker)
    record = json.dumps(records.games(_hash(victim))[0])
    now = time.time()
    with records.store._transaction() as db:
        db.executemany(
            "INSERT INTO records (player, game_id, ended, data) VALUES (?, ?, ?, ?)",
            [(hashed, f"attack{i:05d}", now + i, record) for i in range(4500)],
        )
    assert records.size() > (4 << 20) // 4
    records.expire(now + 5000, every=0)
    assert records.size() <= (4 << 20) // 4
    assert client.get("/api/players/me", headers=victim).json()["games"] == 5
    left = client.get("/api/players/me", headers=attacker).json()["games"]
    assert 0 < left < 4500
    # what went was the attacker's oldest
    with records.store._connection() as db:
        (oldest,) = db.execute("SELECT MIN(ended) FROM records WHERE player = ?", (hashed,)).fetchone()
    assert oldest == pytest.approx(now + 4500 - left)


# ---------------------------------------------------------------------- 2. puzzle ratings
def test_one_address_moves_a_puzzles_rating_by_a_hundred_points_at_most(store_url: str) -> None:
    # before the fix each of 150 tokens from one address counted, each claiming 2500: the daily
    # puzzle went from 1160 (easy) to 3198 (expert) for everyone
    from demine.puzzles import daily, read_puzzles

    p = daily(read_puzzles())
    client = TestClient(create_app(store_url, limits=SCRIPT))
    start = client.get("/api/puzzles/daily").json()["rating"]
    boast = {"rating": 2500, "rd": 30, "volatility": 0.06}
    wrong = next(c for c in range(p.position.cells) if p.position.states[c] == 9 and c not in p.answer)
    body = {"cell": list(divmod(wrong, p.position.width)), "fifty": not p.fifty, "player": boast}
    counted = 0
    for _ in range(150):
        r = client.post(f"/api/puzzles/{p.id}/answer", json=body, headers=_player(client))
        assert r.status_code == 200, r.text
        counted += r.json()["counted"]
    assert counted == 1
    now = client.get("/api/puzzles/daily").json()
    assert now["attempts"] == 1 and abs(now["rating"] - start) <= 100
    # nor does a rating the server saw earned, however high: one attempt moves at most 100
    stats = client.app.state.puzzle_stats  # type: ignore[attr-defined]
    with stats.store._transaction() as db:
        db.execute(
            "INSERT INTO puzzle_players (who, rating, rd, volatility, updated) "
            "VALUES ('c:strong', 3000, 30, 0.06, ?)",
            (time.time(),),
        )
    before = stats.get(p.id).rating
    assert stats.count(p, "c:elsewhere", "c:strong", 0.0)[0]
    assert 0 < stats.get(p.id).rating - before <= 100


def test_a_wrong_answer_keeps_the_answer_hidden_until_given_up(client: TestClient) -> None:
    # before the fix a wrong answer's reply held the answer, the mines and a right cell's proof
    from demine.puzzles import read_puzzles

    tried = set()
    for kind in ("safe", "all", "guess", "coin"):

        def wrong_cells(z: Any) -> list[int]:
            return [c for c in range(z.position.cells) if z.position.states[c] == 9 and c not in z.answer]

        p = next(z for z in read_puzzles() if z.kind == kind and wrong_cells(z))
        w, wrong = p.position.width, wrong_cells(p)[0]
        tried.add(p.id)
        body = {"cell": list(divmod(wrong, w)), "fifty": p.fifty if kind == "coin" else None}
        v = client.post(f"/api/puzzles/{p.id}/answer", json=body).json()
        assert not v["right"] and v["done"] and not v["revealed"], (kind, v)
        assert not {"answer", "mines", "fifty"} & set(v) and v["proof"] == [], (kind, v)
        assert v["cell"] == list(divmod(wrong, w)), kind
        named = {f"({c // w},{c % w})" for c in p.answer}  # (the API names cells so)
        assert not any(n in v["message"] for n in named), v
        # trying again is judged, not counted; giving up shows it
        right = {"cell": list(divmod(p.answer[0], w)), "fifty": p.fifty, "flag": p.answer[0] in p.mines}
        again = client.post(f"/api/puzzles/{p.id}/answer", json=right).json()
        assert again["right"] and again.get("counted", False) is False, (kind, again)
        given = client.post(f"/api/puzzles/{p.id}/give-up").json()
        assert given["revealed"] and given["answer"] == [list(divmod(c, w)) for c in p.answer], kind
        assert given["counted"] is False and given["message"].startswith("The answer"), kind
    # giving up first counts as a failed attempt
    q = next(z for z in read_puzzles() if z.kind == "safe" and z.id not in tried)
    given = client.post(f"/api/puzzles/{q.id}/give-up", json={"player": {"rating": 1500}}).json()
    assert given["counted"] and given["puzzle"]["attempts"] == 1 and given["puzzle"]["solved"] == 0
    assert given["player"]["rating"] < 1500


# ---------------------------------------------------------------------- 6. the games file
def _call(url: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())  # type: ignore[no-any-return]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("umask", [0o022, 0o000], ids=["umask022", "umask000"])
def test_the_games_file_and_its_folder_are_made_private_whatever_the_umask(
    tmp_path: Path, umask: int
) -> None:
    # before the fix the default ~/.local/share/demine was made 0755 and games.db 0644: another
    # local user read the layout of a game in play
    data = tmp_path / "data"  # $XDG_DATA_HOME, made by serve as any folder
    port = free_port()
    cmd = [sys.executable, "-m", "demine", "serve", "--port", str(port), "--workers", "0", "--pace", "0"]
    env = {**os.environ, "XDG_DATA_HOME": str(data)}
    with running(cmd, port, env=env, preexec_fn=lambda: os.umask(umask)) as (url, _):
        gid = _call(url + "/api/games", {"preset": "beginner"})["id"]
        _call(f"{url}/api/games/{gid}/moves", {"kind": "reveal", "row": 4, "col": 4})
        folder = data / "demine"
        assert _mode(folder) == 0o700
        made = sorted(p.name for p in folder.iterdir())
        assert made == ["games.db", "games.db-shm", "games.db-wal"]
        assert all(_mode(folder / name) == 0o600 for name in made), [oct(_mode(folder / n)) for n in made]
    assert _mode(data) == 0o777 & ~umask  # (the folders above it: as any program makes them)
    # the user's own outputs still follow the umask (tests/engine/test_umask.py)
    mine = tmp_path / "game.json"
    subprocess.run(
        [sys.executable, "-m", "demine", "new", "beginner", "--record", str(mine)],
        check=True, capture_output=True, preexec_fn=lambda: os.umask(umask), timeout=60,
    )  # fmt: skip
    assert _mode(mine) == 0o666 & ~umask


def test_a_games_file_other_users_can_read_is_named_at_start(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    db.touch(mode=0o644)
    os.chmod(db, 0o644)  # (made by an older demine)
    port = free_port()
    cmd = [sys.executable, "-m", "demine", "serve", "--port", str(port), "--db", str(db), "--workers", "0"]
    with running(cmd, port) as (_, proc):
        proc.terminate()
        err = proc.communicate(timeout=20)[1].decode()
    assert f"the games file {db} can be read by other users (mode 0644)" in err and f"chmod 600 {db}" in err


# ---------------------------------------------------------------------- 7. framing on h11
def _ambiguous() -> dict[str, bytes]:
    """The three framings (benchmarks/web_attack.py's): a proxy in front that frames by the other
    header, or reads the fold or the bare LF otherwise, sees another request than the server
    (request smuggling)."""
    with benchmark_script("web_attack") as script:
        return dict(script.FRAMINGS)


_GAME = b'{"preset":"beginner"}'


@pytest.mark.parametrize("http", ["h11", "httptools"])
def test_ambiguous_framing_is_refused_on_either_parser(tmp_path: Path, http: str) -> None:
    # before the fix h11 served all three (httptools answered 400), and --help said the guards
    # were the same on both
    pytest.importorskip(http)
    port = free_port()
    cmd = [sys.executable, "-m", "demine", "serve", "--port", str(port), "--db", str(tmp_path / "g.db")]
    with running([*cmd, "--workers", "0", "--http", http], port) as (url, _):
        for what, request in _ambiguous().items():
            head, _, body = raw(port, request).partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 400"), (what, head[:300])
            assert b"x-content-type-options: nosniff" in head, what
            assert "not valid HTTP/1.1" in json.loads(body)["error"], (what, body)
        # the same requests framed plainly are served, and so are two in a row on one connection
        plain = b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        plain += b"Content-Length: %d\r\n\r\n%s" % (len(_GAME), _GAME)
        chunked = b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        chunked += b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n%x\r\n%s\r\n0\r\n\r\n" % (
            len(_GAME),
            _GAME,
        )
        both = raw(port, plain + chunked)
        assert both.count(b"HTTP/1.1 200") == 2, both[:400]
        # a pipelined second request whose lines end in a bare LF is refused (httptools refuses the
        # whole read; h11 serves the first, then refuses the second)
        late = raw(port, plain + b"GET /api/puzzles/themes HTTP/1.1\nHost: x\n\n")
        assert b"HTTP/1.1 400" in late and late.count(b"HTTP/1.1 200") <= 1, late[:400]
        assert b'"themes"' not in late
        assert _call(url + "/api/games", {"preset": "beginner"})["width"] == 9
