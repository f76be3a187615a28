"""Helpers for the browser tests that need no browser to import (the tests skip one by one when
Chromium or Playwright is missing: see conftest.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Page


def expect(target: Any, **kw: Any) -> Any:
    """Playwright's ``expect``, imported when first used."""
    from playwright.sync_api import expect as _expect

    return _expect(target, **kw)


def cell(page: Page, board: str, r: int, c: int) -> Any:
    return page.locator(f'#{board} .cell[data-r="{r}"][data-c="{c}"]')


def bg(loc: Any) -> str:
    return str(loc.evaluate("e => getComputedStyle(e).backgroundColor"))


def unfold(page: Page, panel: str) -> None:
    """Open a panel a phone folds away behind its button (``prefs``: Settings, ``options``: the
    new game's board and rules, ``tr-options``: which puzzles), as a player would; on a wider
    screen the panel is always open and nothing is done."""
    toggle = page.locator(f'button.disclose[aria-controls="{panel}"]')
    if toggle.is_visible() and toggle.get_attribute("aria-expanded") != "true":
        toggle.click()
        expect(toggle).to_have_attribute("aria-expanded", "true")


def choose_board(page: Page, preset: str, rule: str, seed: str = "") -> None:
    """Choose the new game's board, rule and seed (unfolding them on a phone)."""
    unfold(page, "options")
    page.select_option("#preset", preset)
    page.select_option("#rule", rule)
    page.fill("#seed", seed)
