"""Accessibility in a real browser: axe-core (vendored in tests/data/axe, MPL-2.0) on every view
(the game, the review, the statistics, the Train tab, the analysis board), on a desktop and a
phone, light and dark; the keyboard on the board and on buttons. Each test skips when Chromium or
Playwright is missing (see conftest.py)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.web.conftest import open_page, phone
from tests.web.pw import cell, choose_board, expect

if TYPE_CHECKING:
    from playwright.sync_api import Page

AXE = Path(__file__).resolve().parents[1] / "data" / "axe" / "axe.min.js"


def axe_problems(page: Page) -> list[str]:
    """The serious and critical violations axe-core finds on the page as it is."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))  # the test's context bypasses the page's CSP for this
    result = page.evaluate(
        "async () => { const r = await axe.run(document);"
        " return {violations: r.violations, passed: r.passes.map(p => p.id)}; }"
    )
    assert "color-contrast" in result["passed"] and "aria-required-parent" in result["passed"]
    found = result["violations"]
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes'][:3]]}"
        for v in found
        if v["impact"] in ("serious", "critical")
    ]


KINDS = ["desktop light", "desktop dark", "phone light", "phone dark"]


def _options(browser: Any, kind: str) -> dict[str, Any]:
    scheme = kind.split()[1]
    if kind.startswith("phone"):
        return phone(browser, "Pixel 7", color_scheme=scheme, bypass_csp=True)
    return {"viewport": {"width": 1280, "height": 800}, "color_scheme": scheme, "bypass_csp": True}


def _win_by_logic(page: Page, server: str) -> None:
    """Play the page's game (guess-free, first click made) to a win, each move a cell the hints
    prove safe: through the API (all of them at each look: a few hint requests, within the rate)
    but the last, which the page plays (so it records the game): its review has no guess to list."""
    gid = page.evaluate("new URL(location.href).searchParams.get('game')")
    v = page.request.get(f"{server}/api/games/{gid}").json()
    last = None
    while last is None:
        h = page.request.get(f"{server}/api/games/{gid}/hints?probabilities=0").json()
        todo = [rc for rc in h["safe"] if v["rows"][rc[0]][rc[1]] == "H"]
        assert todo, h
        covered = sum(row.count("H") for row in v["rows"])
        if covered - len(todo) == v["mines"]:  # these are the last safe cells
            last = todo.pop()
        for r, c in todo:
            if v["rows"][r][c] == "H":
                url = f"{server}/api/games/{gid}/moves"
                v = page.request.post(url, data={"kind": "reveal", "row": r, "col": c}).json()
    page.reload()
    expect(page.locator("#face")).to_have_text("playing")
    cell(page, "board", *last).click()
    expect(page.locator("#face")).to_have_text("won!")


@pytest.mark.parametrize("kind", KINDS)
def test_axe_finds_no_serious_violation_on_any_view_light_and_dark_desktop_and_phone(
    browser: Any, server: str, kind: str
) -> None:
    """Every view: the game (expert, hints and probabilities on: 20.6% shown as "21"), the review
    of a game won without a guess, the player's statistics, the Train tab and the analysis board."""
    for page in open_page(browser, **_options(browser, kind)):
        page.goto(server + "/")
        expect(page.locator("#board .cell")).to_have_count(480)
        dark = page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(18, 18, 18)"
        assert dark == kind.endswith("dark")  # the theme follows prefers-color-scheme
        page.check("#hints-toggle")
        page.check("#prob-toggle")
        expect(page.locator("#board .cell .pct").first).to_have_text("21")
        problems = {"game": axe_problems(page)}
        # a guess-free beginner game won by logic alone: its review lists no guess
        choose_board(page, "beginner", "zero", "ng1")
        page.select_option("#no-guess", "complete")
        page.get_by_role("button", name="New game").click()
        expect(page.locator("#board .cell")).to_have_count(81)
        cell(page, "board", 2, 2).click()
        expect(cell(page, "board", 2, 2)).to_contain_class("open")
        _win_by_logic(page, server)
        page.get_by_role("button", name="Review").click()
        expect(page.locator("#review-marks")).to_contain_text("No guesses")
        problems["review"] = axe_problems(page)
        page.locator("#stats-panel").scroll_into_view_if_needed()
        expect(page.locator("#games-table tbody tr")).to_have_count(1)
        problems["stats"] = axe_problems(page)
        page.get_by_role("tab", name="Train").click()
        expect(page.locator("#tr-board .cell").first).to_be_visible(timeout=60_000)
        problems["train"] = axe_problems(page)
        # the analysis board with a result
        page.get_by_role("tab", name="Analysis board").click()
        page.fill("#an-text", "5x3x3\n1HHHH\nHHHHH\nHHHHH\n")
        page.get_by_role("button", name="Load text").click()
        expect(page.locator("#an-result")).to_contain_text("165 layouts")
        problems["analysis"] = axe_problems(page)
        assert problems == {"game": [], "review": [], "stats": [], "train": [], "analysis": []}


def test_the_grid_has_rows_and_cells_and_the_cursor_is_its_active_descendant(page: Page, server: str) -> None:
    page.goto(server + "/")
    expect(page.locator("#board .cell")).to_have_count(480)
    grid = page.get_by_role("grid", name="minefield")
    # a row of the columns' numbers, then 16 rows each led by its number, as the page names cells
    expect(grid.get_by_role("row")).to_have_count(17)
    expect(grid.get_by_role("columnheader")).to_have_count(30)
    expect(grid.get_by_role("rowheader")).to_have_count(16)
    expect(grid.get_by_role("columnheader", name="column 30")).to_have_text("30")
    expect(grid.get_by_role("rowheader", name="row 16")).to_have_text("16")
    expect(grid.get_by_role("row").nth(1).get_by_role("gridcell")).to_have_count(30)
    expect(grid.get_by_role("gridcell", name="covered, row 1 column 1", exact=True)).to_have_count(1)
    grid.focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    expect(grid).to_have_attribute("aria-activedescendant", "board-1-1")
    # the timer is no live region; the move's words are
    assert page.locator("#timer").get_attribute("aria-live") is None
    assert page.locator("#timer").evaluate("e => e.closest('[aria-live], [role=status]')") is None
    page.keyboard.press("f")
    expect(grid.get_by_role("gridcell", name="flagged, row 2 column 2", exact=True)).to_have_count(1)
    expect(page.locator("#said")).to_have_text("Flagged row 2 column 2.")


def test_space_and_enter_on_a_button_do_what_the_button_does(page: Page, server: str) -> None:
    page.goto(server + "/")
    expect(page.locator("#board .cell")).to_have_count(480)
    first = page.locator("#link").inner_text()
    page.select_option("#preset", "beginner")
    page.locator("#new").focus()
    page.keyboard.press(" ")  # Space on New game: a new game, and the board's cursor cell stays shut
    expect(page.locator("#board .cell")).to_have_count(81)
    expect(page.locator("#link")).not_to_have_text(first)
    assert page.locator("#board .cell.open").count() == 0
    second = page.locator("#link").inner_text()
    page.locator("#flag-mode").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#flag-mode")).to_have_attribute("aria-pressed", "true")
    page.keyboard.press(" ")
    expect(page.locator("#flag-mode")).to_have_attribute("aria-pressed", "false")
    assert page.locator("#board .cell.open, #board .cell.flag").count() == 0
    assert page.locator("#link").inner_text() == second


def _outline(loc: Any) -> str:
    return str(loc.evaluate("e => getComputedStyle(e).outlineStyle"))


def test_the_keyboard_sees_its_focus_reads_reasons_chords_and_has_keys_for_hint_restart_and_new(
    page: Page, server: str
) -> None:
    page.goto(server + "/")
    expect(page.locator("#board .cell")).to_have_count(480)
    choose_board(page, "beginner", "zero", "7")
    page.get_by_role("button", name="New game").click()
    expect(page.locator("#board .cell")).to_have_count(81)
    board = page.locator("#board")
    cursor = page.locator("#board .cell.cursor")
    # not focused: no frame on the board, none on the cursor's cell
    assert _outline(board) == "none" and _outline(cursor) == "none"
    page.locator("#prob-toggle").focus()
    page.keyboard.press("Tab")  # the keyboard's way onto the board: both framed
    expect(board).to_be_focused()
    assert _outline(board) == "solid" and _outline(cursor) == "solid"
    for key in ["j", "j", "l", "l", " "]:
        page.keyboard.press(key)
    expect(cell(page, "board", 2, 2)).to_contain_class("open")
    # with Hints on, the cursor on a hinted cell shows why, as a hover does
    page.check("#hints-toggle")
    expect(page.locator("#board .cell.hint-safe").first).to_be_visible()
    board.focus()
    for key in ["k", "k", "h", "h"]:
        page.keyboard.press(key)
    expect(page.locator("#why")).to_contain_text("row 1 column 1 safe (")
    expect(page.locator("#board .cell.because").first).to_be_visible()
    # a chord that opens one cell says that cell and its number, not the number chorded: flag the
    # mine at (0,2), chord the 1 at (1,2); it opens (0,1)
    for key in ["l", "l", "f"]:
        page.keyboard.press(key)
    expect(cell(page, "board", 0, 2)).to_contain_class("flag")
    page.keyboard.press("j")
    page.keyboard.press(" ")
    expect(cell(page, "board", 0, 1)).to_contain_class("open")
    shown = cell(page, "board", 0, 1).inner_text() or "empty"
    expect(page.locator("#said")).to_have_text(f"Chord opened row 1 column 2: {shown}.")
    # ? shows a hint, r restarts the board, n starts a new game
    page.keyboard.press("?")
    expect(page.locator("#board .cell.pick")).to_have_count(1)
    expect(page.locator("#why")).to_contain_text("Safe: row ")
    first = page.locator("#link").inner_text()
    page.keyboard.press("r")
    expect(page.locator("#link")).not_to_have_text(first)
    expect(page.locator("#board .cell.open")).to_have_count(0)
    second = page.locator("#link").inner_text()
    page.keyboard.press("n")
    expect(page.locator("#link")).not_to_have_text(second)
    expect(page.locator("#board .cell")).to_have_count(81)
    expect(page.get_by_role("button", name="Hint")).to_have_attribute("aria-keyshortcuts", "?")
