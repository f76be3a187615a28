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
