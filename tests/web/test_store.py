"""The games' store on each database: SQLite (a file) and PostgreSQL (a real server the tests
start, see conftest.py). The same tests run on both: what one database keeps, the other keeps."""

from __future__ import annotations

import asyncio
import threading

import pytest

from demine.errors import DemineError
from demine.web.store import StaleGame, Store, StoredGame, open_store


def _game(gid: str, **kw: object) -> StoredGame:
    return StoredGame(gid, 30, 16, 99, "zero", kw.pop("seed", 7), False, **kw)  # type: ignore[arg-type]


def test_a_game_comes_back_as_it_was_saved(store_url: str) -> None:
    store = open_store(store_url)
    g = _game(
        "a",
        seed="12345678901234567890",  # a seed past 64 bits stays exact (JSON text)
        layout=[1, 5, 479],
        moves=[("reveal", 93), ("flag", 5), ("chord", 94)],
        outcome="won",
        created=1764050000.123456,
        started=1764050001.5,
        ended=1764050009.25,
        no_guess="complete",
        client="10.0.0.1",
    )
    store.save(g, now=1764050009.25)
    back = open_store(store_url).load("a")  # from another connection
    assert back == g
    assert store.load("missing") is None and store.moves_count("missing") is None
    assert store.count() == 1 and store.live_games("10.0.0.1") == 0


def test_moves_are_appended_in_order_and_a_stale_append_is_refused(store_url: str) -> None:
    one, two = open_store(store_url), open_store(store_url)  # two server processes, say
    one.save(_game("g", client="c"), now=0.0)
    assert two.live_games("c") == 1
    state = {"layout": [3, 4], "outcome": "playing", "started": 1.0, "ended": None}
    one.append("g", 0, ("reveal", 93), now=1.0, **state)  # type: ignore[arg-type]
    with pytest.raises(StaleGame):  # the second thinks the game has no move yet
        two.append("g", 0, ("flag", 5), now=2.0, **state)  # type: ignore[arg-type]
    two.append("g", 1, ("flag", 5), now=2.0, **state)  # type: ignore[arg-type]
    with pytest.raises(StaleGame):  # nor may a move skip a place
        one.append("g", 3, ("flag", 6), now=3.0, **state)  # type: ignore[arg-type]
    won = {**state, "outcome": "won", "ended": 4.0}
    one.append("g", 2, ("reveal", 0), now=4.0, **won)  # type: ignore[arg-type]
    back = two.load("g")
    assert back is not None
    assert back.moves == [("reveal", 93), ("flag", 5), ("reveal", 0)]
    assert back.layout == [3, 4] and back.outcome == "won" and back.ended == 4.0
    assert two.moves_count("g") == 3 and one.live_games("c") == 0


def test_a_move_appends_to_a_row_of_the_first_schema(store_url: str) -> None:
    # rows written before the moves' count existed hold their first moves as JSON and no count:
    # PostgreSQL's one-statement append cannot check those, and takes the general way
    store = open_store(store_url)
    store.save(_game("old"), now=0.0)
    with store._transaction() as db:
        db.execute("UPDATE games SET moves_count = NULL, moves = ? WHERE id = ?", ('[["reveal", 93]]', "old"))
    state = {"layout": [3, 4], "outcome": "playing", "started": 1.0, "ended": None}
    with pytest.raises(StaleGame):
        store.append("old", 0, ("flag", 5), now=2.0, **state)  # type: ignore[arg-type]
    store.append("old", 1, ("flag", 5), now=2.0, **state)  # type: ignore[arg-type]
    back = store.load("old")
    assert back is not None and back.moves == [("reveal", 93), ("flag", 5)]
    assert store.moves_count("old") == 2
    with pytest.raises(StaleGame):  # a game that does not exist
        store.append("none", 0, ("flag", 5), now=2.0, **state)  # type: ignore[arg-type]
    store.close()


def test_moves_from_many_connections_at_once_are_all_kept_once(store_url: str) -> None:
    """Eight writers, each with its own store (connections or processes on one database), append
    to one game as fast as they can, retrying on StaleGame: every move lands in one place."""
    open_store(store_url).save(_game("busy"), now=0.0)
    errors: list[BaseException] = []

    def writer(k: int) -> None:
        store = open_store(store_url)
        try:
            for i in range(25):
                while True:
                    seq = store.moves_count("busy")
                    assert seq is not None
                    try:
                        store.append(
                            "busy", seq, ("flag", 1000 * k + i), layout=None, outcome="playing",
                            started=None, ended=None, now=1.0,
                        )  # fmt: skip
                        break
                    except StaleGame:
                        continue
        except BaseException as e:
            errors.append(e)
        finally:
            store.close()

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    back = open_store(store_url).load("busy")
    assert back is not None and len(back.moves) == 200
    assert sorted(c for _, c in back.moves) == sorted(1000 * k + i for k in range(8) for i in range(25))


def test_expired_games_go_and_the_database_stays_under_its_size(store_url: str) -> None:
    store = open_store(store_url)
    store.save(_game("idle", created=0.0), now=0.0)  # unfinished, no move since 0
    store.save(_game("active", created=0.0), now=150.0)
    store.save(_game("done", outcome="won", created=0.0, ended=10.0), now=10.0)
    assert sorted(store.expire(200.0, idle=100, age=1000)) == ["idle"]
    assert sorted(store.expire(2000.0, idle=10_000, age=1000)) == ["done"]
    for i in range(300):
        store.save(
            _game(f"g{i}", created=float(i), moves=[("flag", 5)] * 200, outcome="lost", ended=float(i))
        )
    big = store.size()
    gone = store.expire(300.0, idle=10_000, age=10_000, max_bytes=big // 2)
    assert store.size() <= big // 2
    assert "g0" in gone and "g299" not in gone  # the oldest finished go first
    assert "active" not in gone and store.load("active") is not None
    assert store.count() == 301 - len(gone)


def test_two_servers_on_one_database_play_each_others_moves(store_url: str) -> None:
    from demine.web import service

    one, two = service.Service(open_store(store_url)), service.Service(open_store(store_url))
    gid = one.new_game(preset="expert", rule="zero", seed="2p")["id"]
    two.view(gid)  # the second server holds its own copy now

    async def play() -> None:
        await one.move(gid, "reveal", 3, 3)
        await two.move(gid, "flag", 15, 29, flag=True)  # its copy is stale: it must see the reveal
        await one.move(gid, "flag", 15, 28, flag=True)  # and the first must see the flag
        await two.move(gid, "flag", 15, 29, flag=False)

    asyncio.run(play())
    stored = open_store(store_url).load(gid)
    assert stored is not None
    assert stored.moves == [("reveal", 93), ("flag", 479), ("flag", 478), ("flag", 479)]
    assert one.view(gid)["moves"] == two.view(gid)["moves"] == 4


def test_a_move_that_writes_nothing_on_an_old_copy_is_played_on_the_stored_game(store_url: str) -> None:
    # a move checks the stored count when it writes; one that writes nothing on this process's old
    # copy (a flag already so, a reveal of a cell flagged there) must not be answered from it
    from demine.web import service

    one, two = service.Service(open_store(store_url)), service.Service(open_store(store_url))
    gid = one.new_game(preset="expert", rule="zero", seed="2p")["id"]

    async def play() -> None:
        await one.move(gid, "reveal", 3, 3)
        two.view(gid)  # the second server holds a copy with the reveal
        await two.move(gid, "flag", 15, 29, flag=True)
        v = await one.move(gid, "flag", 15, 29, flag=False)  # its copy has no flag there: not a no-op
        assert v["moves"] == 3 and v["flags"] == 0
        await two.move(gid, "reveal", 15, 29)  # flagged in its copy only: revealed on the stored game

    asyncio.run(play())
    stored = open_store(store_url).load(gid)
    assert stored is not None
    assert stored.moves == [("reveal", 93), ("flag", 479), ("flag", 479), ("reveal", 479)]


def test_a_database_that_cannot_be_opened_is_named(tmp_path: object) -> None:
    with pytest.raises(DemineError, match="no/such/folder"):
        open_store("/no/such/folder/games.db")


def test_an_unreachable_postgres_server_is_named(postgres_server: object) -> None:
    url = "postgresql://demine:secret@127.0.0.1:1/games?connect_timeout=2"
    with pytest.raises(DemineError, match=r"127\.0\.0\.1:1") as e:
        open_store(url)
    assert "secret" not in str(e.value)  # the password is not shown


def test_the_sqlite_store_is_the_default() -> None:
    assert type(open_store()) is Store


def test_a_games_hints_used_mark_is_kept_and_a_database_made_before_it_gets_the_column(
    store_url: str,
) -> None:
    store = open_store(store_url)
    store.save(_game("hinted"), now=0.0)
    store.save(_game("alone"), now=0.0)
    store.mark_hinted("hinted")
    other = open_store(store_url)  # another server process
    assert other.hints_used("hinted") and not other.hints_used("alone") and not other.hints_used("none")
    hinted, alone = other.load("hinted"), other.load("alone")
    assert hinted is not None and hinted.hints_used and alone is not None and not alone.hints_used
    store.save(_game("saved", hints_used=True), now=0.0)  # a whole rewrite keeps it too
    assert store.hints_used("saved")
    # a database made before the column existed: it is added when the store opens, the old games
    # read as played without hints
    with store._transaction() as db:
        db.execute("ALTER TABLE games DROP COLUMN hints_used")
    store.close()
    other.close()
    again = open_store(store_url)
    back = again.load("hinted")
    assert back is not None and not back.hints_used
    again.mark_hinted("hinted")
    assert again.hints_used("hinted")
    again.close()
