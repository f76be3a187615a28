"""The page in a real browser: Playwright driving Debian's Chromium against a live server (the
fixtures are in conftest.py: each test is skipped when Chromium or Playwright is missing, unless
``DEMINE_REQUIRE_BROWSER=1``)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING

from tests.web.pw import bg, cell, expect

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from tests.web.conftest import LiveServer

SAFE_GREEN = "rgb(46, 125, 50)"
MINE_BLUE = "rgb(21, 101, 192)"
FLAG_RED = "rgb(211, 47, 47)"


def start_game(page: Page, server: str, preset: str, rule: str, seed: str) -> None:
    page.goto(server + "/")
    expect(page.locator("#board .cell")).to_have_count(480)  # the default expert game is made on load
    page.select_option("#preset", preset)
    page.select_option("#rule", rule)
    page.fill("#seed", seed)
    page.click("#new")
    expect(page.locator("#board .cell")).to_have_count(81)


def test_reveal_flag_and_hint_colours(page: Page, server: str) -> None:
    start_game(page, server, "beginner", "zero", "7")
    cell(page, "board", 2, 2).click()
    expect(cell(page, "board", 2, 2)).to_contain_class("open n0")
    expect(page.locator("#board .cell.open").first).to_be_visible()
    opened = page.locator("#board .cell.open").count()
    assert opened > 9
    # hints on: safe cells green with a check, mines blue with a star; the engine agrees
    page.check("#hints-toggle")
    expect(page.locator("#board .cell.hint-safe").first).to_be_visible()
    safe = page.locator("#board .cell.hint-safe")
    mines = page.locator("#board .cell.hint-mine")
    assert safe.count() == 6 and mines.count() == 7  # seed 7's opening (see the API test)
    assert bg(safe.first) == SAFE_GREEN and safe.first.inner_text() == "✓"
    assert bg(mines.first) == MINE_BLUE and mines.first.inner_text() == "✱"
    # a right click flags: red with a flag glyph; the mine counter goes down
    m = mines.first
    r, c = int(m.get_attribute("data-r") or 0), int(m.get_attribute("data-c") or 0)
    m.click(button="right")
    flagged = cell(page, "board", r, c)
    expect(flagged).to_contain_class("flag")
    assert bg(flagged) == FLAG_RED and flagged.inner_text() == "⚑"
    expect(page.locator("#mines-left")).to_have_text("9")
    # hover a hinted cell: the reason, and the numbers that force it outlined
    cell(page, "board", 0, 0).hover()
    expect(page.locator("#why")).to_contain_text("row 1 column 1 safe")
    expect(page.locator("#board .cell.because")).to_have_count(2)
    # the probability overlay shades covered cells with a percentage
    page.check("#prob-toggle")
    shaded = page.locator("#board .cell.covered:not(.hint-safe):not(.hint-mine) .pct")
    expect(shaded.first).to_be_visible()
    assert shaded.count() == 81 - opened - 6 - 7
    assert all(t.isdigit() or t in ("<1", ">99") for t in shaded.all_inner_texts())
    # the link resumes the game after a reload
    page.reload()
    expect(cell(page, "board", r, c)).to_contain_class("flag")
    assert page.locator("#board .cell.open").count() == opened


def test_keyboard_moves_reveals_and_flags(page: Page, server: str) -> None:
    start_game(page, server, "beginner", "zero", "7")
    page.locator("#board").focus()
    for key in ["ArrowDown", "ArrowDown", "l", "l"]:
        page.keyboard.press(key)
    page.keyboard.press(" ")
    expect(cell(page, "board", 2, 2)).to_contain_class("open n0 cursor")
    page.keyboard.press("k")
    page.keyboard.press("k")
    page.keyboard.press("h")
    page.keyboard.press("h")
    page.keyboard.press("f")
    expect(cell(page, "board", 0, 0)).to_contain_class("flag cursor")


EVENT_LOG = """
window.demineEvents = [];
for (const name of ["demine:game-started", "demine:move", "demine:game-ended"]) {
  document.addEventListener(name, (e) => window.demineEvents.push(
    {name, id: e.detail.game.id, outcome: e.detail.game.outcome, preset: e.detail.preset,
     kind: e.detail.move ? e.detail.move.kind : null, bbbv: e.detail.game.bbbv ?? null}));
}
"""


def test_win_a_seeded_game_with_the_hint_button(page: Page, server: str) -> None:
    page.add_init_script(EVENT_LOG)
    start_game(page, server, "beginner", "zero", "2")
    page.check("#hints-toggle")
    kinds = set()
    stars = 0
    for _ in range(100):
        if page.locator("#face").inner_text() == "won!":
            break
        if page.locator("#board .cell.open").count() and page.locator("#board .cell.hint-safe").count() == 0:
            # nothing is safe: the best guess is starred (it arrives in a second request)
            expect(page.locator("#board .cell.best")).to_have_count(1)
            assert page.locator("#board .cell.best").inner_text() == "★"
            stars += 1
        page.click("#hint-btn")
        pick = page.locator("#board .cell.pick")
        expect(pick).to_have_count(1)
        kinds.add("safe" if page.locator("#why").inner_text().startswith("Safe") else "guess")
        moves = page.locator("#rp-slider").get_attribute("max")
        pick.click()
        expect(pick).to_have_count(0)
        assert moves is not None
    expect(page.locator("#face")).to_have_text("won!")
    expect(page.locator("#result")).to_contain_text("Won")
    expect(page.locator("#result")).to_contain_text("3BV")
    assert kinds == {"safe", "guess"} and stars >= 1
    # the events other modules (statistics) hear: a start, each move, one end with the 3BV
    events = page.evaluate("window.demineEvents")
    names = [e["name"] for e in events]
    assert names[:2] == ["demine:game-started", "demine:game-started"]  # the default game, then ours
    assert names[-1] == "demine:game-ended" and names.count("demine:game-ended") == 1
    ours = [e for e in events if e["id"] == events[1]["id"]]
    assert all(e["preset"] == "beginner" for e in ours)
    assert {e["kind"] for e in ours if e["name"] == "demine:move"} == {"reveal"}
    assert ours[-1]["outcome"] == "won" and ours[-1]["bbbv"] > 0
    # replay: back to the start, one move on
    page.click("#rp-first")
    expect(page.locator("#board .cell.open")).to_have_count(0)
    page.click("#rp-next")
    expect(page.locator("#rp-label")).to_contain_text("move 1")
    assert page.locator("#board .cell.open").count() > 0


def test_analysis_board_reads_probabilities(page: Page, server: str) -> None:
    page.goto(server + "/")
    page.click("#tab-analyse")
    page.fill("#an-text", "5x3x3\n1HHHH\nHHHHH\nHHHHH\n")
    page.click("#an-load")
    expect(page.locator("#an-result")).to_contain_text("165 layouts")
    assert cell(page, "an-board", 0, 1).locator(".pct").inner_text() == "33"
    assert cell(page, "an-board", 0, 4).locator(".pct").inner_text() == "18"
    # edit a cell by clicking and typing, then analyse again
    cell(page, "an-board", 2, 4).click()
    page.keyboard.press("0")
    page.click("#an-run")
    expect(page.locator("#an-text")).to_have_value("5x3x3\n1HHHH\nHHHHH\nHHHH0\n")
    expect(cell(page, "an-board", 1, 3)).to_contain_class("hint-safe")
    assert bg(cell(page, "an-board", 1, 3)) == SAFE_GREEN


def test_analyse_reads_a_pasted_text_and_offers_no_guess_where_every_cell_is_a_mine(
    page: Page, server: str
) -> None:
    page.goto(server + "/")
    page.click("#tab-analyse")
    expect(page.locator("#an-board .cell")).to_have_count(81)  # the blank 9x9 board
    # a text pasted, then Analyse (not Load text): the text is what is analysed
    page.fill("#an-text", "3x3x1\n111\n1H1\n111\n")
    page.click("#an-run")
    expect(page.locator("#an-board .cell")).to_have_count(9)
    expect(page.locator("#an-result")).to_contain_text("0 safe, 1 mines proven; 1 layout")
    expect(page.locator("#an-result")).to_contain_text("every covered cell is a proven mine")
    expect(page.locator("#an-result")).not_to_contain_text("guess")
    expect(cell(page, "an-board", 1, 1)).to_contain_class("hint-mine")
    assert page.locator("#an-board .cell.best").count() == 0
    cell(page, "an-board", 1, 1).hover()  # its reason, its cells named as the labels show them
    expect(page.locator("#an-why")).to_contain_text("row 2 column 2 mine (")
    # an edit on the board, then Analyse: the board is what is analysed (the text follows it)
    cell(page, "an-board", 0, 0).click()
    page.keyboard.press("h")
    page.click("#an-run")
    expect(page.locator("#an-text")).to_have_value("3x3x1\nH11\n1H1\n111\n")
    expect(page.locator("#an-result")).to_have_text("1 safe, 1 mines proven; 1 layout")
    expect(cell(page, "an-board", 0, 0)).to_contain_class("hint-safe")
    # a best guess is named the same way
    page.fill("#an-text", "5x3x3\n1HHHH\nHHHHH\nHHHHH\n")
    page.click("#an-run")
    expect(page.locator("#an-result")).to_contain_text("165 layouts; row 2 column 4: No safe cell")


def test_middle_click_chords_and_a_lost_game_shows_the_mine(page: Page, server: str) -> None:
    start_game(page, server, "beginner", "zero", "7")
    cell(page, "board", 2, 2).click()
    page.check("#hints-toggle")
    expect(page.locator("#board .cell.hint-mine").first).to_be_visible()
    # with Hints on, a chord that would open a proven mine is not sent: a wrong flag at (0,1)
    # "satisfies" the 1 at (1,2), whose chord would open the mine at (0,2)
    cell(page, "board", 0, 1).click(button="right")
    expect(cell(page, "board", 0, 1)).to_contain_class("wrong-flag")
    cell(page, "board", 1, 2).click(button="middle")
    expect(page.locator("#why")).to_contain_text("Not chorded: it would open row 1 column 3")
    expect(page.locator("#face")).to_have_text("playing")
    cell(page, "board", 0, 1).click(button="right")
    expect(cell(page, "board", 0, 1)).not_to_contain_class("flag")
    # flag the mine at (0,2), then middle-click the 1 at (1,2) it satisfies: the chord opens (0,1)
    cell(page, "board", 0, 2).click(button="right")
    expect(cell(page, "board", 0, 2)).to_contain_class("flag")
    expect(cell(page, "board", 0, 1)).not_to_contain_class("open")
    cell(page, "board", 1, 2).click(button="middle")
    expect(cell(page, "board", 0, 1)).to_contain_class("open")
    # a left click on a satisfied number chords too: flag (6,1), click the 1 at (7,1), (6,0) opens
    cell(page, "board", 6, 1).click(button="right")
    expect(cell(page, "board", 6, 1)).to_contain_class("flag")
    cell(page, "board", 7, 1).click()
    expect(cell(page, "board", 6, 0)).to_contain_class("open")
    # with Hints on, a click on a proven mine flags it: the page never opens a cell it shows as a mine
    mine = page.locator("#board .cell.hint-mine").first
    r, c = int(mine.get_attribute("data-r") or 0), int(mine.get_attribute("data-c") or 0)
    mine.click()
    expect(cell(page, "board", r, c)).to_contain_class("flag")
    expect(page.locator("#why")).to_contain_text(
        f"Flagged row {r + 1} column {c + 1}: logic proves it a mine"
    )
    expect(page.locator("#face")).to_have_text("playing")
    # with Hints off, a click opens it: the game is lost, the mine hit is shown, the layout revealed
    cell(page, "board", r, c).click(button="right")
    expect(cell(page, "board", r, c)).not_to_contain_class("flag")
    page.uncheck("#hints-toggle")
    cell(page, "board", r, c).click()
    expect(page.locator("#face")).to_have_text("lost")
    expect(cell(page, "board", r, c)).to_contain_class("exploded")
    assert page.locator("#board .cell.mine-shown").count() == 10 - 2  # the flagged mines keep their flags
    expect(page.locator("#result")).to_contain_text("Lost")
    # the review: the losing click is listed; clicking it shows the position before it, framed
    page.click("#review-btn")
    last = page.locator("#review-marks button", has_text="hit a mine")
    expect(last).to_have_count(1)
    expect(page.locator("#review-summary")).to_contain_text("Chance to win given away")
    assert page.locator("#review-graph path:not(.review-dot)").count() == 2
    last.click()
    expect(cell(page, "board", r, c)).to_contain_class("rv-played")
    expect(cell(page, "board", r, c)).not_to_contain_class("exploded")  # the board before the click


def test_a_finished_game_downloads_its_record_and_mbf(page: Page, server: str) -> None:
    start_game(page, server, "beginner", "zero", "11")
    for _ in range(60):
        if page.locator("#face").inner_text() != "playing":
            break
        page.click("#hint-btn")
        page.locator("#board .cell.pick").click()
        expect(page.locator("#board .cell.pick")).to_have_count(0)
    expect(page.locator("#end")).to_be_visible()
    with page.expect_download() as dl:
        page.click("#export-record")
    record = json.loads(Path(dl.value.path()).read_text())
    assert record["width"] == 9 and len(record["mine_cells"]) == 10 and record["moves"]
    with page.expect_download() as dl:
        page.click("#export-mbf")
    mbf = Path(dl.value.path()).read_bytes()
    assert mbf[:4] == bytes([9, 9, 0, 10]) and len(mbf) == 4 + 2 * 10


def test_analysis_board_exports_text_and_explains_mbf(page: Page, server: str) -> None:
    page.goto(server + "/")
    page.click("#tab-analyse")
    page.fill("#an-w", "3")
    page.fill("#an-h", "1")
    page.click("#an-blank")
    cell(page, "an-board", 0, 0).click()
    page.keyboard.press("1")
    page.fill("#an-mines", "1")
    page.click("#an-run")
    expect(cell(page, "an-board", 0, 1)).to_contain_class("hint-mine")  # the 1 sees only (0,1)
    expect(cell(page, "an-board", 0, 2)).to_contain_class("hint-safe")  # the mine count does the rest
    with page.expect_download() as dl:
        page.click("#an-export-text")
    assert Path(dl.value.path()).read_text() == "3x1x1\n1HH\n"
    # every mine is fixed here, so MBF exports the layout
    with page.expect_download() as dl:
        page.click("#an-export-mbf")
    assert Path(dl.value.path()).read_bytes() == bytes([3, 1, 0, 1, 1, 0])
    # with the number taken away nothing is fixed: the page says why there is no MBF
    cell(page, "an-board", 0, 0).click()
    page.keyboard.press("h")
    page.click("#an-export-mbf")
    expect(page.locator("#an-result")).to_contain_text("places 0 of 1 mines")


def test_a_no_guess_game_is_won_with_only_green_hints(page: Page, server: str) -> None:
    page.goto(server + "/")
    expect(page.locator("#board .cell")).to_have_count(480)
    page.select_option("#preset", "intermediate")
    page.select_option("#rule", "zero")
    page.select_option("#no-guess", "complete")
    page.fill("#seed", "ng7")
    page.click("#new")
    expect(page.locator("#board .cell")).to_have_count(256)
    # nothing is promised before the first click has found its board
    expect(page.locator("#no-guess-badge")).to_have_text("no guess: the board is made at the first click")
    cell(page, "board", 2, 2).click()  # the first click: the board is placed guess-free from here
    expect(cell(page, "board", 2, 2)).to_contain_class("open")
    expect(page.locator("#no-guess-badge")).to_have_text("no guess needed (counting mines)")
    page.check("#hints-toggle")
    for _ in range(300):
        if page.locator("#face").inner_text() == "won!":
            break
        green = page.locator("#board .cell.hint-safe:not(.open)").first
        expect(green).to_be_visible()  # never a position without a safe cell
        r, c = int(green.get_attribute("data-r") or 0), int(green.get_attribute("data-c") or 0)
        target = cell(page, "board", r, c)
        assert bg(target) == SAFE_GREEN
        target.click()
        expect(target).to_contain_class("open")
    expect(page.locator("#face")).to_have_text("won!")


def test_the_api_docs_render_under_the_pages_own_security_policy(page: Page, server: str) -> None:
    blocked: list[str] = []
    page.on("console", lambda m: blocked.append(m.text) if "Content Security Policy" in m.text else None)
    page.goto(server + "/api/docs")
    expect(page.locator(".opblock").first).to_be_visible(timeout=15_000)
    assert page.locator(".opblock").count() >= 8  # every endpoint listed
    assert blocked == []


def test_a_review_prepared_in_the_background_says_so_then_shows(page: Page, live_server: LiveServer) -> None:
    service = live_server.service
    kept = service.limits
    service.limits = dataclasses.replace(kept, review_wait=0)  # every review as a long game's
    try:
        start_game(page, live_server.url, "beginner", "zero", "7")
        cell(page, "board", 2, 2).click()
        page.check("#hints-toggle")
        mine = page.locator("#board .cell.hint-mine").first
        expect(mine).to_be_visible()
        r, c = int(mine.get_attribute("data-r") or 0), int(mine.get_attribute("data-c") or 0)
        page.uncheck("#hints-toggle")  # (with Hints on a click on a proven mine flags it)
        cell(page, "board", r, c).click()
        expect(page.locator("#face")).to_have_text("lost")
        page.click("#review-btn")
        expect(page.locator("#review-summary")).to_contain_text("being prepared")
        expect(page.locator("#review-summary")).to_contain_text("Chance to win given away", timeout=15_000)
        expect(page.locator("#review-marks button", has_text="hit a mine")).to_have_count(1)
    finally:
        service.limits = kept


def test_restart_deals_a_new_board_in_play_and_the_same_one_once_over(
    page: Page, live_server: LiveServer
) -> None:
    """Issue 57: a restart of a game in play would show its mines to anyone who loses the copy; the
    page's Restart then deals a new board of the same kind and says so, and replays a board once
    its game is over. By keyboard here (the button is a plain button)."""
    start_game(page, live_server.url, "beginner", "safe", "")  # a drawn seed
    service = live_server.service

    def game_id() -> str:
        return str(page.evaluate("new URL(location.href).searchParams.get('game')"))

    cell(page, "board", 4, 4).click()
    expect(cell(page, "board", 4, 4)).to_contain_class("open")
    first = game_id()
    assert "new board" in (page.locator("#restart").get_attribute("title") or "")
    page.focus("#restart")
    page.keyboard.press("Enter")
    expect(page.locator("#why")).to_contain_text("A new board of the same kind")
    expect(page.locator("#board .cell.open")).to_have_count(0)
    copy = game_id()
    assert copy != first and service.session(copy).game.seed != service.session(first).game.seed
    # lose the first game (Back returns to it), then Restart: its board again, no message
    page.go_back()
    expect(cell(page, "board", 4, 4)).to_contain_class("open")
    mine = service.session(first).game.mine_cells()[0]
    cell(page, "board", mine // 9, mine % 9).click()
    expect(page.locator("#face")).to_have_text("lost")
    expect(page.locator("#restart")).to_have_attribute("title", "the same board again (key r)")
    page.click("#restart")
    expect(page.locator("#face")).to_have_text("playing")
    expect(page.locator("#why")).not_to_contain_text("A new board")
    again = game_id()
    assert again not in (first, copy) and service.session(again).game.seed == service.session(first).game.seed


def test_a_short_pause_past_the_rate_of_new_games_is_waited_out_and_a_long_one_is_said(
    page: Page, tmp_path: Path
) -> None:
    """Past its rate of new games the server answers 429 with the pause to wait. A pause of a
    second (a burst: a game, then at once a link that starts another) the page waits out and
    sends again, and the new game comes; a pause of a minute it says, and sends nothing more."""
    from demine.web.app import create_app
    from demine.web.limits import ServeLimits
    from tests.web.conftest import serving

    posts: list[int] = []
    page.on(
        "response", lambda r: r.request.method == "POST" and "/api/games" in r.url and posts.append(r.status)
    )
    with serving(create_app(tmp_path / "games.db", limits=ServeLimits(games="1/second"))) as live:
        page.goto(live.url + "/")
        expect(page.locator("#board .cell")).to_have_count(480)
        page.goto(live.url + "/?game=no-such-game")
        expect(page.locator("#why")).to_contain_text("unknown or has expired")
        expect(page.locator("#board .cell")).to_have_count(480)
        assert page.evaluate("new URL(location.href).searchParams.get('game')") != "no-such-game"
    assert posts == [200, 429, 200]
    posts.clear()
    with serving(create_app(tmp_path / "other.db", limits=ServeLimits(games="1/minute"))) as live:
        page.goto(live.url + "/")
        expect(page.locator("#board .cell")).to_have_count(480)
        page.locator("#new").click()
        expect(page.locator("#why")).to_contain_text("too many games requests")
        page.wait_for_timeout(2500)  # past the pause a burst is given: nothing is sent again
    assert posts == [200, 429]
