"""The page on phones (Playwright's "iPhone 13" and "Pixel 7", touch on), on boards of any size,
and across reloads and history: what a player without a mouse, or with a 100x100 board, needs.
Each test skips when Chromium or Playwright is missing (see conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from tests.web.conftest import LiveServer, open_page, phone
from tests.web.pw import cell, choose_board, expect, unfold

if TYPE_CHECKING:
    from playwright.sync_api import Page

NEIGHBOURS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]


@pytest.fixture(params=["iPhone 13", "Pixel 7"])
def phone_page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Page]:
    yield from open_page(browser, **phone(browser, request.param))


def new_game(page: Page, server: str, preset: str, rule: str, seed: str = "", cells: int = 81) -> str:
    page.goto(server + "/")
    expect(page.locator("#board .cell")).to_have_count(480)  # the default expert game
    first = game_id(page)
    choose_board(page, preset, rule, seed)
    page.locator("#new").click()
    # the new game's own id: an expert board has the first game's 480 cells already
    page.wait_for_function("id => new URL(location.href).searchParams.get('game') !== id", arg=first)
    expect(page.locator("#board .cell")).to_have_count(cells)
    return game_id(page)


def game_id(page: Page) -> str:
    return str(page.evaluate("new URL(location.href).searchParams.get('game')"))


def long_press(page: Page, loc: Any, hold_ms: int) -> None:
    """A finger held on ``loc`` (Playwright has taps only: the touch goes through CDP)."""
    loc.evaluate("e => e.scrollIntoView({block: 'center', inline: 'center'})")  # clear of the sticky bar
    box = loc.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    page.wait_for_timeout(hold_ms)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def test_a_phone_wins_beginner_by_touch_with_flag_mode_a_long_press_and_a_chord(
    phone_page: Page, live_server: LiveServer
) -> None:
    page = phone_page
    gid = new_game(page, live_server.url, "beginner", "zero", "4")
    unfold(page, "prefs")
    page.fill("#long-press", "300")  # the long press's delay is a setting
    cell(page, "board", 4, 4).tap()
    expect(cell(page, "board", 4, 4)).to_contain_class("open")
    # the layout, known to the test only (the server never sends it to the page while playing)
    game = live_server.service.session(gid).game
    mines = {(c // 9, c % 9) for c in game.mine_cells()}

    def rows() -> list[str]:
        return list(live_server.service.view(gid)["rows"])

    def near(r: int, c: int) -> list[tuple[int, int]]:
        return [(r + a, c + b) for a, b in NEIGHBOURS if 0 <= r + a < 9 and 0 <= c + b < 9]

    # a number whose mines can all be flagged, with a covered safe cell for its chord to open
    now = rows()
    target = next(
        (r, c)
        for r in range(9)
        for c in range(9)
        if now[r][c] in "12" and any(now[a][b] == "H" and (a, b) not in mines for a, b in near(r, c))
    )
    its_mines = [m for m in near(*target) if m in mines]
    # the first mine by a long press; a short touch would have opened it
    long_press(page, cell(page, "board", *its_mines[0]), 700)
    expect(cell(page, "board", *its_mines[0])).to_contain_class("flag")
    expect(page.locator("#mines-left")).to_have_text("9")
    # the next by a tap in flag mode (a mine elsewhere if this number has only one)
    other = its_mines[1] if len(its_mines) > 1 else next(m for m in sorted(mines) if m != its_mines[0])
    mode = page.get_by_role("button", name="Flag")
    mode.tap()
    expect(mode).to_have_attribute("aria-pressed", "true")
    cell(page, "board", *other).tap()
    expect(cell(page, "board", *other)).to_contain_class("flag")
    mode.tap()
    expect(mode).to_have_attribute("aria-pressed", "false")
    # a tap on the satisfied number chords: its covered safe neighbours open
    safe_near = [m for m in near(*target) if now[m[0]][m[1]] == "H" and m not in mines]
    cell(page, "board", *target).tap()
    for m in safe_near:
        expect(cell(page, "board", *m)).to_contain_class("open")
    assert live_server.service.view(gid)["outcome"] == "playing"
    # then every other safe cell by a tap
    for _ in range(81):
        now = rows()
        todo = [(r, c) for r in range(9) for c in range(9) if now[r][c] == "H" and (r, c) not in mines]
        if not todo:
            break
        cell(page, "board", *todo[0]).tap()
        expect(cell(page, "board", *todo[0])).to_contain_class("open")
    expect(page.locator("#face")).to_have_text("won!")
    assert live_server.service.view(gid)["outcome"] == "won"


def test_reading_a_hints_reason_on_a_phone_never_opens_the_cell_and_a_mine_tapped_twice_is_flagged(
    phone_page: Page, live_server: LiveServer
) -> None:
    """With Hints on, the first tap on a hinted cell reads why; the second plays it: a safe cell
    opens, a proven mine is flagged (what the player means, having read that it is a mine: as in
    Flag mode), never opened."""
    page = phone_page
    gid = new_game(page, live_server.url, "beginner", "zero", "7")
    cell(page, "board", 2, 2).tap()
    expect(cell(page, "board", 2, 2)).to_contain_class("open")
    page.locator("#hints-toggle").tap()
    mine = page.locator("#board .cell.hint-mine").first
    expect(mine).to_be_visible()
    r, c = int(mine.get_attribute("data-r") or 0), int(mine.get_attribute("data-c") or 0)
    cell(page, "board", r, c).tap()  # a proven mine: the tap reads why
    expect(page.get_by_role("status")).to_contain_text("mine")
    expect(page.locator("#board .cell.because").first).to_be_visible()
    expect(page.locator("#face")).to_have_text("playing")
    expect(cell(page, "board", r, c)).not_to_contain_class("open")
    # a safe cell: the first tap reads, the second opens; the reason stays in the panel
    cell(page, "board", 0, 0).tap()
    expect(page.get_by_role("status")).to_contain_text("row 1 column 1 safe")
    expect(cell(page, "board", 0, 0)).not_to_contain_class("open")
    reason = page.get_by_role("status").inner_text()
    cell(page, "board", 0, 0).tap()
    expect(cell(page, "board", 0, 0)).to_contain_class("open")
    expect(page.get_by_role("status")).to_have_text(reason)
    expect(page.locator("#said")).to_contain_text("row 1 column 1")  # the live region
    # the mine: read again, then the second tap flags it
    cell(page, "board", r, c).tap()
    expect(page.get_by_role("status")).to_contain_text(f"row {r + 1} column {c + 1} mine")
    cell(page, "board", r, c).tap()
    expect(cell(page, "board", r, c)).to_contain_class("flag")
    expect(page.get_by_role("status")).to_contain_text("logic proves it a mine, so it is not opened")
    view = live_server.service.view(gid)
    assert view["outcome"] == "playing" and view["rows"][r][c] == "F"
    # a tap on the flag does nothing (a flag comes off by a long press or in Flag mode)
    cell(page, "board", r, c).tap()
    page.wait_for_timeout(300)
    assert live_server.service.view(gid)["rows"][r][c] == "F"


# every cell of the board: scrolled to, its size, and whether a tap at its centre reaches it
REACH = """() => {
  const out = {small: [], hidden: [], n: 0, minSize: 1e9};
  for (const el of document.querySelectorAll('#board .cell')) {
    el.scrollIntoView({block: 'center', inline: 'center'});
    const r = el.getBoundingClientRect();
    out.n++;
    out.minSize = Math.min(out.minSize, r.width, r.height);
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const hit = document.elementFromPoint(x, y);
    if (!hit || hit.closest('.cell') !== el) out.hidden.push(el.id);
  }
  out.pageWidth = document.documentElement.scrollWidth;
  return out;
}"""


def test_expert_on_a_phone_every_cell_can_be_reached_and_tapped(browser: Any, server: str) -> None:
    for page in open_page(browser, **phone(browser, "iPhone 13")):
        page.goto(server + "/")
        expect(page.locator("#board .cell")).to_have_count(480)  # expert is the default board
        reach = page.evaluate(REACH)
        assert reach["n"] == 480 and reach["hidden"] == []
        assert reach["minSize"] >= 32  # touch targets at the default zoom
        # the board pans in its own box; the page is no wider than the phone (else it zooms out)
        assert reach["pageWidth"] <= page.viewport_size["width"]
        # real taps at the far corners, in flag mode (nothing opens)
        page.get_by_role("button", name="Flag").tap()
        for r, c in [(15, 29), (0, 29), (15, 0)]:
            cell(page, "board", r, c).tap()
            expect(cell(page, "board", r, c)).to_contain_class("flag")


def test_a_100x100_hint_brings_its_cell_and_message_into_view(page: Page, server: str) -> None:
    page.goto(server + "/")
    expect(page.locator("#board .cell")).to_have_count(480)
    page.select_option("#preset", "custom")
    page.fill("#cw", "100")
    page.fill("#ch", "100")
    page.fill("#cm", "1200")
    page.select_option("#rule", "zero")
    page.fill("#seed", "far")
    page.get_by_role("button", name="New game").click()
    expect(page.locator("#board .cell")).to_have_count(10_000)
    cell(page, "board", 97, 97).click()  # opens an area near the far corner
    expect(cell(page, "board", 97, 97)).to_contain_class("open")
    page.evaluate("document.getElementById('board-wrap').scrollTo(0, 0); window.scrollTo(0, 0)")
    page.get_by_role("button", name="Hint").click()
    pick = page.locator("#board .cell.pick")
    expect(pick).to_have_count(1)
    assert int(pick.get_attribute("data-r") or 0) > 40  # 40 rows of 27 px: below the 900 px screen
    expect(pick).to_be_in_viewport()
    expect(page.get_by_role("status")).to_contain_text("Safe")
    expect(page.get_by_role("status")).to_be_in_viewport()


def test_a_reload_keeps_the_switches_and_back_returns_to_the_previous_game(page: Page, server: str) -> None:
    first = new_game(page, server, "intermediate", "zero", "", cells=256)
    page.select_option("#no-guess", "local")
    page.check("#hints-toggle")
    page.check("#prob-toggle")
    page.select_option("#theme", "dark")
    page.select_option("#palette", "cb")  # colour-blind safe: safe cells blue, not green
    page.get_by_role("button", name="New game").click()
    expect(page.locator("#no-guess-badge")).to_be_visible()
    second = game_id(page)
    assert second != first
    page.reload()
    expect(page.locator("#board .cell")).to_have_count(256)
    assert game_id(page) == second
    expect(page.locator("#preset")).to_have_value("intermediate")
    expect(page.locator("#rule")).to_have_value("zero")
    expect(page.locator("#no-guess")).to_have_value("local")
    expect(page.locator("#hints-toggle")).to_be_checked()
    expect(page.locator("#prob-toggle")).to_be_checked()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    expect(page.locator("html")).to_have_attribute("data-palette", "cb")
    safe = page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--safe')")
    assert safe.strip() == "#0060a0"
    # Back: the game before, its menus with it (it had no no-guess)
    page.go_back()
    expect(page.locator("#link")).to_contain_text(first)
    expect(page.locator("#no-guess-badge")).to_be_hidden()
    expect(page.locator("#no-guess")).to_have_value("")
    page.go_forward()
    expect(page.locator("#link")).to_contain_text(second)
    # Restart: a new game (its own entry) on the same board; Share says the link
    page.get_by_role("button", name="Restart").click()
    expect(page.locator("#link")).not_to_contain_text(second)
    third = game_id(page)
    page.get_by_role("button", name="Share").click()
    expect(page.get_by_role("status")).to_contain_text(third)
    # a seed is used once: the next New game draws a new board
    page.fill("#seed", "123")
    page.get_by_role("button", name="New game").click()
    expect(page.locator("#link")).not_to_contain_text(third)
    expect(page.locator("#seed")).to_have_value("")
    # an unknown (or expired) link says so, and starts a new game
    page.goto(server + "/?game=no-such-game")
    expect(page.get_by_role("status")).to_contain_text("unknown or has expired")
    expect(page.locator("#board .cell")).to_have_count(256)
    assert game_id(page) != "no-such-game"


def test_at_200_percent_zoom_the_game_is_usable(browser: Any, server: str) -> None:
    # 1280x800 at 200%: a 640x400 CSS viewport
    for page in open_page(browser, viewport={"width": 640, "height": 400}, device_scale_factor=2):
        page.goto(server + "/")
        expect(page.locator("#board .cell")).to_have_count(480)
        assert page.evaluate("document.documentElement.scrollWidth") <= 640
        page.select_option("#preset", "beginner")
        page.get_by_role("button", name="New game").click()
        expect(page.locator("#board .cell")).to_have_count(81)
        cell(page, "board", 8, 8).click()
        expect(cell(page, "board", 8, 8)).to_contain_class("open")
        expect(page.get_by_role("button", name="Hint")).to_be_in_viewport()  # the bar stays in view


def test_on_a_phone_the_board_starts_on_the_first_screen(phone_page: Page, server: str) -> None:
    """The settings and the new game's options fold away behind their buttons: the board's first
    rows, the New game and Hint buttons and the Hints switch are all on the first screen."""
    page = phone_page
    page.goto(server + "/")
    expect(page.locator("#board .cell")).to_have_count(480)
    height = page.viewport_size["height"]
    first = cell(page, "board", 0, 0).bounding_box()
    assert first["y"] + 2 * first["height"] < 0.6 * height, (first, height)  # two rows by 60% down
    for name in ["New game", "Hint"]:
        expect(page.get_by_role("button", name=name)).to_be_in_viewport()
    expect(page.get_by_label("Hints")).to_be_in_viewport()
    # the options are a tap away; choosing them starts the game and folds them again
    expect(page.locator("#preset")).to_be_hidden()
    new_game(page, server, "intermediate", "zero", cells=256)
    expect(page.locator("#preset")).to_be_hidden()
    assert cell(page, "board", 0, 0).bounding_box()["y"] < 0.5 * height


def test_fit_to_screen_on_a_phone_never_makes_cells_too_small_to_tap(phone_page: Page, server: str) -> None:
    page = phone_page
    page.goto(server + "/")
    expect(page.locator("#board .cell")).to_have_count(480)  # expert: 30 columns
    unfold(page, "prefs")
    page.get_by_role("button", name="Fit to screen").tap()
    expect(page.get_by_role("status")).to_contain_text("30 columns do not fit this screen at 32 px")
    assert cell(page, "board", 0, 0).bounding_box()["width"] >= 32
    # a board that fits: its whole width shown, in cells bigger than that
    new_game(page, server, "beginner", "zero", cells=81)
    unfold(page, "prefs")
    page.get_by_role("button", name="Fit to screen").tap()
    box = page.locator("#board").bounding_box()
    wrap = page.locator("#board-wrap").bounding_box()
    assert cell(page, "board", 0, 0).bounding_box()["width"] > 32
    assert box["x"] + box["width"] <= wrap["x"] + wrap["width"] + 1


STICKY = """() => document.querySelector('#play .hud').getBoundingClientRect().bottom"""


def _below_the_bar(page: Page, loc: Any) -> None:
    top, bottom = loc.evaluate("e => [e.getBoundingClientRect().top, e.getBoundingClientRect().bottom]")
    bar = page.evaluate(STICKY)
    assert bar <= top + 0.5 and bottom <= page.viewport_size["height"], (top, bottom, bar)


def test_the_cursor_and_a_reviewed_move_are_never_left_under_the_sticky_bar(
    browser: Any, live_server: LiveServer
) -> None:
    for page in open_page(browser, viewport={"width": 1000, "height": 560}):
        gid = new_game(page, live_server.url, "expert", "safe", "sticky", cells=480)
        # the keyboard down the board, the page scrolling after it, then back up to row 1
        page.locator("#board").focus()
        for _ in range(15):
            page.keyboard.press("ArrowDown")
        _below_the_bar(page, cell(page, "board", 15, 0))
        for _ in range(15):
            page.keyboard.press("ArrowUp")
        _below_the_bar(page, cell(page, "board", 0, 0))
        # a game lost on row 1; its review's mark shows the move on the board, not under the bar
        cell(page, "board", 0, 0).click()
        expect(cell(page, "board", 0, 0)).to_contain_class("open")
        game = live_server.service.session(gid).game
        mine = next(c for c in game.mine_cells() if c < 30 and game.visible[c] >= 9)
        cell(page, "board", 0, mine).click()
        expect(page.locator("#face")).to_have_text("lost")
        page.get_by_role("button", name="Review").click()
        mark = page.locator("#review-marks button", has_text="hit a mine")
        expect(mark).to_have_count(1)
        expect(mark).to_contain_text(f"reveal row 1 column {mine + 1}")
        mark.click()
        played = page.locator("#board .cell.rv-played")
        expect(played).to_have_count(1)
        _below_the_bar(page, played)
        # the frame before the move reviewed: its last move was the first click, at row 1 column 1
        expect(page.locator("#rp-label")).to_have_text("move 1 / 2 (reveal row 1 column 1)")
