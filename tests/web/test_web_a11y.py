"""Accessibility in a real browser: axe-core (vendored in tests/data/axe, MPL-2.0) on the game, the
analysis board and the review, on a desktop and a phone, light and dark; the keyboard on buttons.
Each test skips when Chromium or Playwright is missing (see conftest.py)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.web.conftest import open_page, phone
from tests.web.pw import cell, expect

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


@pytest.mark.parametrize("kind", ["desktop light", "phone dark"])
def test_axe_finds_no_serious_violation_on_the_game_the_analysis_and_the_review(
    browser: Any, server: str, kind: str
) -> None:
    if kind == "phone dark":
        options = phone(browser, "Pixel 7", color_scheme="dark", bypass_csp=True)
    else:
        options = {"viewport": {"width": 1280, "height": 800}, "bypass_csp": True}
    for page in open_page(browser, **options):
        page.goto(server + "/")
        expect(page.locator("#board .cell")).to_have_count(480)
        page.select_option("#preset", "beginner")
        page.select_option("#rule", "zero")
        page.fill("#seed", "7")
        page.get_by_role("button", name="New game").click()
        expect(page.locator("#board .cell")).to_have_count(81)
        dark = page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(18, 18, 18)"
        assert dark == (kind == "phone dark")  # the theme follows prefers-color-scheme
        cell(page, "board", 2, 2).click()
        page.check("#hints-toggle")
        page.check("#prob-toggle")
        expect(page.locator("#board .cell.hint-mine").first).to_be_visible()
        expect(page.locator("#board .cell:not(.hint-safe):not(.hint-mine) .pct").first).to_be_visible()
        cell(page, "board", 0, 0).hover()
        expect(page.get_by_role("status")).to_contain_text("safe")
        problems = {"game": axe_problems(page)}
        # the review of a lost game, a mark chosen
        page.locator("#board .cell.hint-mine").first.click()
        expect(page.locator("#face")).to_have_text("lost")
        page.get_by_role("button", name="Review").click()
        mark = page.locator("#review-marks button").first
        expect(mark).to_be_visible()
        mark.click()
        expect(page.locator("#board .cell.rv-played")).to_have_count(1)
        problems["review"] = axe_problems(page)
        # the analysis board with a result
        page.get_by_role("tab", name="Analysis board").click()
        page.fill("#an-text", "5x3x3\n1HHHH\nHHHHH\nHHHHH\n")
        page.get_by_role("button", name="Load text").click()
        expect(page.locator("#an-result")).to_contain_text("165 layouts")
        problems["analysis"] = axe_problems(page)
        assert problems == {"game": [], "review": [], "analysis": []}


def test_the_grid_has_rows_and_cells_and_the_cursor_is_its_active_descendant(page: Page, server: str) -> None:
    page.goto(server + "/")
    expect(page.locator("#board .cell")).to_have_count(480)
    grid = page.get_by_role("grid", name="minefield")
    expect(grid.get_by_role("row")).to_have_count(16)
    expect(grid.get_by_role("row").first.get_by_role("gridcell")).to_have_count(30)
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
