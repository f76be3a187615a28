"""The player's own record in a real browser (Playwright driving Debian's Chromium): games played
through the page are recorded, counted and listed, survive a reload, export, and live either in
the browser (IndexedDB) or on the server under a token no other browser holds.

Each test skips when Chromium or Playwright is missing (see conftest.py).
"""

from __future__ import annotations

import csv
import io
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.web.conftest import LiveServer, open_page, phone
from tests.web.pw import choose_board, expect
from tests.web.test_web_a11y import axe_problems

if TYPE_CHECKING:
    from playwright.sync_api import Page


def new_page(browser: Any, errors: list[str], **kw: Any) -> Page:
    """A page in a context of its own (its own storage: another browser, say)."""
    ctx = browser.new_context(viewport={"width": 1200, "height": 900}, accept_downloads=True, **kw)
    pg: Page = ctx.new_page()
    pg.on("pageerror", lambda e: errors.append(str(e)))
    return pg


def cell(page: Page, r: int, c: int) -> Any:
    return page.locator(f'#board .cell[data-r="{r}"][data-c="{c}"]')


def game_id(page: Page) -> str:
    gid = page.evaluate("new URL(location.href).searchParams.get('game')")
    assert gid
    return str(gid)


def start(page: Page, server: str, seed: str) -> None:
    if not page.url.startswith(server):
        page.goto(server + "/")
        expect(page.locator("#board .cell")).to_have_count(480)
    choose_board(page, "beginner", "zero", seed)
    before = page.evaluate("new URL(location.href).searchParams.get('game')")
    page.click("#new")
    expect(page.locator("#board .cell")).to_have_count(81)
    deadline = time.monotonic() + 10  # (wait_for_function would need eval, which the CSP forbids)
    while page.evaluate("new URL(location.href).searchParams.get('game')") == before:
        assert time.monotonic() < deadline, "no new game"
        page.wait_for_timeout(50)


def finish(page: Page, app: Any, win: bool) -> dict[str, Any]:
    """Play the page's game to a win (every safe cell clicked) or a loss (a mine clicked after the
    first click), through the page; the server's final view."""
    gid = game_id(page)
    cell(page, 4, 4).click()
    expect(cell(page, 4, 4)).to_contain_class("open")
    service = app.state.service
    mines = set(service.session(gid).game.mine_cells())
    if win:
        for c in range(81):
            if c in mines or "open" in (cell(page, c // 9, c % 9).get_attribute("class") or ""):
                continue
            cell(page, c // 9, c % 9).click()
            expect(cell(page, c // 9, c % 9)).to_contain_class("open")
    else:
        m = min(mines)
        cell(page, m // 9, m % 9).click()
    expect(page.locator("#face")).to_have_text("won!" if win else "lost")
    return service.view(gid)  # type: ignore[no-any-return]


def stats_row(page: Page) -> list[str]:
    rows = page.locator("#stats-table tbody tr")
    expect(rows).to_have_count(1)
    return [t.strip() for t in rows.first.locator("td").all_inner_texts()]


def test_the_statistics_survive_a_reload_and_count_a_won_and_a_lost_game(
    page: Page, live_server: LiveServer
) -> None:
    server, app = live_server.url, live_server.app
    start(page, server, "41")
    # during play: the live 3BV/s and clicks
    won = finish(page, app, win=True)
    expect(page.locator("#games-table tbody tr")).to_have_count(1)
    start(page, server, "42")
    cell(page, 4, 4).click()
    expect(page.locator("#live-clicks")).to_have_text("1")
    view = app.state.service.view(game_id(page))
    page.wait_for_timeout(600)  # the readout ticks twice a second
    shown = float(page.locator("#live-rate").inner_text())
    assert view["solved_bbbv"] >= 1 and 0 < shown <= view["solved_bbbv"] / max(view["elapsed"], 0.001)
    lost = finish_lost(page, app)
    expect(page.locator("#games-table tbody tr")).to_have_count(2)

    page.reload()
    expect(page.locator("#games-table tbody tr")).to_have_count(2)
    board, rule, played, n_won, rate, best_time, best_rate, streak, best_streak = stats_row(page)
    assert (board, rule, played, n_won, rate) == ("Beginner", "zero", "2", "1", "50.0%")
    assert best_time == f"{won['elapsed']:.2f}" and best_rate == f"{won['bbbv'] / won['elapsed']:.2f}"
    assert (streak, best_streak) == ("0", "1")  # the loss came last
    newest, oldest = (
        [t.strip() for t in r.locator("td").all_inner_texts()]
        for r in page.locator("#games-table tbody tr").all()
    )
    assert newest[3] == "lost" and newest[5] == f"{lost['solved_bbbv']} of {lost['bbbv']}"
    assert oldest[3] == "won" and oldest[5] == str(won["bbbv"]) and oldest[7] == str(won["total_moves"])
    assert oldest[4] == f"{won['elapsed']:.2f}"
    # the links open the game: its replay, and its review
    review = page.locator("#games-table tbody tr").first.get_by_role("link", name="review", exact=False)
    review.click()
    expect(page.locator("#review-marks button", has_text="hit a mine")).to_have_count(1)
    assert "review" not in page.url and game_id(page) == lost["id"]

    # the exports hold the same games
    with page.expect_download() as dl:
        page.click("#record-json")
    data = json.loads(Path(dl.value.path()).read_text())
    assert [g["id"] for g in data["games"]] == [won["id"], lost["id"]]
    assert data["statistics"][0]["played"] == 2 and data["statistics"][0]["won"] == 1
    # ...and the JSON export brings the record back into a browser that lost it (an entry that is
    # not a game is skipped)
    data["games"].append({"id": "x", "outcome": "won"})
    exported = Path(dl.value.path())
    exported.write_text(json.dumps(data))
    errors: list[str] = []
    fresh = new_page(page.context.browser, errors)
    fresh.goto(server + "/")
    expect(fresh.locator("#stats-table tbody")).to_contain_text("No finished game yet")
    fresh.set_input_files("#record-import", str(exported))
    expect(fresh.locator("#record-msg")).to_contain_text("Imported 2 games into this browser; 1 entries")
    assert stats_row(fresh)[:5] == ["Beginner", "zero", "2", "1", "50.0%"]
    fresh.context.close()
    assert not errors, errors
    with page.expect_download() as dl:
        page.click("#record-csv")
    rows = list(csv.DictReader(io.StringIO(Path(dl.value.path()).read_text())))
    assert [(r["id"], r["outcome"], r["bbbv"]) for r in rows] == [
        (won["id"], "won", str(won["bbbv"])),
        (lost["id"], "lost", str(lost["bbbv"])),
    ]


def finish_lost(page: Page, app: Any) -> dict[str, Any]:
    """Open (4,4) if nothing is open yet, then a mine."""
    gid = game_id(page)
    if not app.state.service.session(gid).game.placed:
        cell(page, 4, 4).click()
        expect(cell(page, 4, 4)).to_contain_class("open")
    mines = sorted(app.state.service.session(gid).game.mine_cells())
    cell(page, mines[0] // 9, mines[0] % 9).click()
    expect(page.locator("#face")).to_have_text("lost")
    return app.state.service.view(gid)  # type: ignore[no-any-return]


def test_statistics_streaks_and_csv_from_the_module_itself(page: Page, live_server: LiveServer) -> None:
    """The pure functions of stats/records.js, run in the browser on made-up records."""
    server = live_server.url
    page.goto(server + "/")
    out = page.evaluate(
        """async () => {
      const m = await import("/static/stats/records.js");
      const g = (id, outcome, ended, elapsed, extra = {}) => ({id, width: 30, height: 16, mines: 99,
        rule: "safe", no_guess: null, outcome, elapsed, bbbv: 120, solved_bbbv: outcome === "won" ? 120 : 30,
        moves: 200, seed: null, ended, ...extra});
      const recs = [g("a", "won", 1, 100), g("b", "won", 2, 60), g("c", "lost", 3, 20),
                    g("d", "won", 4, 80), g("e", "won", 5, 0, {width: 9, height: 9, mines: 10}),
                    g("f", "lost", 6, 10, {no_guess: "complete", seed: '=HYPERLINK("x"), "y"'})];
      const back = m.fromJSON(m.toJSON(recs));
      const bad = m.fromJSON(JSON.stringify([recs[0], {...recs[1], rule: "evil"}, {...recs[2], elapsed: -1}, 7]));
      let thrown = null;
      try { m.fromJSON("{not json"); } catch (e) { thrown = e.message; }
      return {stats: m.computeStats(recs.reverse()), csv: m.toCSV(recs), back: back.games.length,
              bad: [bad.games.length, bad.refused], thrown};
    }"""
    )
    expert, *others = out["stats"]
    assert (expert["board"], expert["played"], expert["won"], expert["streak"], expert["bestStreak"]) == (
        "Expert",
        4,
        3,
        1,
        2,
    )
    assert expert["bestTime"] == 60 and expert["bestRate"] == 2 and expert["winRate"] == 0.75
    beginner = next(s for s in others if s["board"] == "Beginner")
    assert beginner["bestTime"] == 0 and beginner["bestRate"] is None  # no time, no rate
    ng = next(s for s in others if "no guess" in s["rule"])
    assert (ng["played"], ng["won"], ng["streak"]) == (1, 0, 0)
    rows = list(csv.DictReader(io.StringIO(out["csv"])))
    assert [r["id"] for r in rows] == list("abcdef")
    assert rows[5]["seed"] == '\'=HYPERLINK("x"), "y"'  # quoted, and not a formula in a spreadsheet
    assert rows[0]["bbbv_per_s"] == "1.200" and rows[4]["bbbv_per_s"] == ""
    assert out["back"] == 6 and out["bad"] == [1, 3] and out["thrown"].startswith("not JSON")


def test_a_record_on_the_server_is_reached_only_with_its_token(browser: Any, live_server: LiveServer) -> None:
    server, app = live_server.url, live_server.app
    errors: list[str] = []
    page = new_page(browser, errors)
    page.goto(server + "/")
    expect(page.locator("#board .cell")).to_have_count(480)
    # a game kept in the browser first, then the switch copies it to the server
    start(page, server, "43")
    first = finish(page, app, win=True)
    page.get_by_label("on the server").check()
    expect(page.locator("#record-msg")).to_contain_text("1 of this browser's 1 games copied")
    expect(page.locator("#record-note")).to_contain_text("clearing this site's data loses it")
    start(page, server, "44")
    second = finish_lost(page, app)
    expect(page.locator("#games-table tbody tr")).to_have_count(2)
    token = page.evaluate("localStorage.getItem('demine.record.token')")
    listed = app.state.records.games(app.state.records.player(token))
    assert [g["id"] for g in listed] == [first["id"], second["id"]]
    page.reload()
    expect(page.locator("#games-table tbody tr")).to_have_count(2)
    expect(page.get_by_label("on the server")).to_be_checked()

    # another browser (or this one with its data cleared) has no record, until it is given the token
    other = new_page(browser, errors)
    other.goto(server + "/")
    expect(other.locator("#stats-table tbody")).to_contain_text("No finished game yet")
    expect(other.get_by_label("in this browser")).to_be_checked()
    other.get_by_label("on the server").check()  # a new player of its own: empty
    expect(other.locator("#record-msg")).to_contain_text("Kept on the server now")
    expect(other.locator("#games-table tbody tr")).to_have_count(0)
    other.fill("#record-token-in", token + "x")
    other.click("#record-token-use")
    expect(other.locator("#record-msg")).to_contain_text("refused")
    other.fill("#record-token-in", token)
    other.click("#record-token-use")
    expect(other.locator("#record-msg")).to_contain_text("Token accepted")
    expect(other.locator("#games-table tbody tr")).to_have_count(2)
    other.context.close()

    # deleting the record on the server ends the token
    page.once("dialog", lambda d: d.accept())
    page.click("#record-delete")
    expect(page.get_by_label("in this browser")).to_be_checked()
    assert page.evaluate("localStorage.getItem('demine.record.token')") is None
    assert app.state.records.size() == 0

    # a game the server cannot take (its player expired meanwhile) is kept in the browser
    page.get_by_label("on the server").check()
    expect(page.locator("#record-msg")).to_contain_text("Kept on the server now")
    token = page.evaluate("localStorage.getItem('demine.record.token')")
    app.state.records.delete_player(app.state.records.player(token))
    start(page, server, "46")
    third = finish_lost(page, app)
    expect(page.locator("#record-msg")).to_contain_text("kept in this browser meanwhile")
    page.wait_for_timeout(500)  # and it stays said (reading the record again fails too)
    expect(page.locator("#record-msg")).to_contain_text("kept in this browser meanwhile")
    kept = page.evaluate(
        """() => new Promise((resolve, reject) => {
          const r = indexedDB.open("demine");
          r.onerror = reject;
          r.onsuccess = () => {
            const q = r.result.transaction("games").objectStore("games").getAll();
            q.onsuccess = () => resolve(q.result.map((g) => g.id));
          };
        })"""
    )
    assert sorted(kept) == sorted([first["id"], third["id"]])
    page.context.close()
    assert not errors, errors


@pytest.mark.parametrize("kind", ["desktop light", "phone dark"])
def test_the_record_is_usable_by_keyboard_and_phone_and_axe_finds_no_serious_violation(
    browser: Any, live_server: LiveServer, kind: str
) -> None:
    server, app = live_server.url, live_server.app
    if kind == "phone dark":
        options = phone(browser, "Pixel 7", color_scheme="dark", bypass_csp=True)
    else:
        options = {"viewport": {"width": 1280, "height": 800}, "bypass_csp": True}
    for page in open_page(browser, **options):
        page.goto(server + "/")
        expect(page.locator("#board .cell")).to_have_count(480)
        start(page, server, "45")
        finish_lost(page, app)
        expect(page.locator("#games-table tbody tr")).to_have_count(1)
        # the tables are real tables: a caption, column headers
        games = page.get_by_role("table", name="Your games")
        expect(games.get_by_role("columnheader")).to_have_count(9)
        expect(
            page.get_by_role("table", name="Statistics per board and rule").get_by_role("row")
        ).to_have_count(2)
        assert axe_problems(page) == []
        # nothing wider than the screen but the tables' own scrolling boxes (a phone would widen its
        # layout to the page's width, and zoom out: innerWidth past the screen's)
        assert (
            page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
            == [page.evaluate("screen.width")] * 2
            or kind == "desktop light"
        )
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
        # the keyboard: the radio group moves the record to the server, the token can be shown
        page.get_by_label("in this browser").focus()
        page.keyboard.press("ArrowRight")
        expect(page.get_by_label("on the server")).to_be_checked()
        expect(page.locator("#record-msg")).to_contain_text("1 of this browser's 1 games copied")
        page.get_by_role("button", name="Show token").focus()
        page.keyboard.press("Enter")
        expect(page.get_by_role("button", name="Show token")).to_have_attribute("aria-pressed", "true")
        expect(page.get_by_label("Your token")).to_have_attribute("type", "text")
        assert axe_problems(page) == []
        if kind == "phone dark":
            assert (
                page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
                == [page.evaluate("screen.width")] * 2
            )


def test_games_played_with_hints_are_counted_apart_and_set_no_best(
    page: Page, live_server: LiveServer
) -> None:
    """A game won with Hints on is listed apart ("with hints") and sets no best time or 3BV/s; the
    exports carry hints_used; a record exported before the field existed is read as before."""
    server, app = live_server.url, live_server.app
    start(page, server, "61")
    alone = finish(page, app, win=True)
    start(page, server, "62")
    page.check("#hints-toggle")
    expect(page.locator("#hints-badge")).to_be_visible()  # the page says this game counts apart
    helped = finish(page, app, win=True)
    assert (alone["hints_used"], helped["hints_used"]) == (False, True)
    rows = page.locator("#stats-table tbody tr")
    expect(rows).to_have_count(2)
    by_rule = {
        cells[1]: cells
        for cells in ([t.strip() for t in r.locator("td").all_inner_texts()] for r in rows.all())
    }
    assert set(by_rule) == {"zero", "zero, with hints"}
    assert by_rule["zero"][5] == f"{alone['elapsed']:.2f}"  # the best time: the game played alone
    assert by_rule["zero, with hints"][2:4] == ["1", "1"]  # played, won
    assert by_rule["zero, with hints"][5:7] == ["–", "–"]  # no best time, no best 3BV/s
    games = page.locator("#games-table tbody tr")
    expect(games.first.locator("td").nth(2)).to_have_text("zero, with hints")  # the newest
    with page.expect_download() as dl:
        page.click("#record-json")
    data = json.loads(Path(dl.value.path()).read_text())
    assert [(g["id"], g["hints_used"]) for g in data["games"]] == [(alone["id"], False), (helped["id"], True)]
    assert sorted(s["hints"] for s in data["statistics"]) == [False, True]
    with page.expect_download() as dl:
        page.click("#record-csv")
    assert [r["hints_used"] for r in csv.DictReader(io.StringIO(Path(dl.value.path()).read_text()))] == [
        "false",
        "true",
    ]
    # an export made before hints_used existed: its games are read, counted with those played alone
    old = [{k: v for k, v in g.items() if k != "hints_used"} for g in data["games"]]
    exported = Path(dl.value.path()).with_name("old-record.json")
    exported.write_text(json.dumps({"format": "demine-player-record", "version": 1, "games": old}))
    errors: list[str] = []
    fresh = new_page(page.context.browser, errors)
    fresh.goto(server + "/")
    fresh.set_input_files("#record-import", str(exported))
    expect(fresh.locator("#record-msg")).to_contain_text("Imported 2 games into this browser.")
    assert stats_row(fresh)[:4] == ["Beginner", "zero", "2", "2"]
    fresh.context.close()
    assert not errors, errors
