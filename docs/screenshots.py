"""Make the README's screenshots: python docs/screenshots.py (needs the web and test extras and
Debian's Chromium at /usr/bin/chromium).

Plays intermediate, zero rule, seed 31 with the hint button (a game the hints win), taking a picture
with hints and a flag on the way, one of the won game and one of its review (a guess picked from
the marks); then the analysis board with the probability overlay on a pasted position. Then the
same game part-played on a phone ("iPhone 13", touch) in the light and the dark theme, a hinted
cell's reason read by a tap, and on a desktop in the dark theme with probabilities on.

``python docs/screenshots.py train`` makes only the Train tab's pictures: on a desktop, a "safe"
puzzle solved with its proof outlined (a medium 1-2-1 one); on a phone, an "all" puzzle failed on
its second move (a cell not proven either way: framed; the proven cells shown).
"""

from __future__ import annotations

import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn
from playwright.sync_api import Page, sync_playwright

from demine.web.app import create_app

HERE = Path(__file__).resolve().parent
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-sync",
]
POSITION = """16x16x40
HHHHHHHHHHHHHHHH
HHHHH2112HHHHHHH
HHHH21001HHHHHHH
HHH210001HHHHHHH
HHH10001HHHHHHHH
HHH1001HHHHHHHHH
HHH2112HHHHHHHHH
HHHHHHHHHHHHHHHH
HHHHHHHHHHHHHHHH
HHHHHHHHHHHHHHHH
HHHHHHHHHHHHHHHH
HHHHHHHHHHHHHHHH
HHHHHHHHHHHHHHHH
HHHHHHHHHHHHHHHH
HHHHHHHHHHHHHHHH
HHHHHHHHHHHHHHHH
"""


# the page and the board's own box scrolled back to their top left
TOP = "document.getElementById('board-wrap').scrollTo(0, 0); window.scrollTo(0, 0)"


def unfold(page: Page, panel: str) -> None:
    """Open a panel a phone folds away behind its button (as a player would), if it is folded."""
    toggle = page.locator(f'button.disclose[aria-controls="{panel}"]')
    if toggle.is_visible() and toggle.get_attribute("aria-expanded") != "true":
        toggle.click()


def new_game(page: Page, preset: str, rule: str, seed: str) -> None:
    unfold(page, "options")
    page.select_option("#preset", preset)
    page.select_option("#rule", rule)
    page.fill("#seed", seed)
    page.click("#new")


def part_played(page: Page, url: str, touch: bool) -> Page:
    """Intermediate, zero rule, seed 31, 25 moves of the hint button, hints on, a reason read."""
    page.goto(url)
    page.wait_for_selector("#board .cell >> nth=479")
    new_game(page, "intermediate", "zero", "31")
    page.wait_for_selector("#board .cell >> nth=255")
    page.check("#hints-toggle")
    for _ in range(25):
        page.click("#hint-btn")
        pick = page.locator("#board .cell.pick")
        pick.wait_for()
        pick.click()
        page.wait_for_timeout(80)
    mine = page.locator("#board .cell.hint-mine").first
    mine.evaluate("e => e.scrollIntoView({block: 'center', inline: 'center'})")
    if touch:
        mine.tap()  # reads why: the cell stays shut
    else:
        mine.hover()
    page.wait_for_timeout(300)
    page.evaluate("window.scrollTo(0, 0)")
    return page


# the puzzle's own scroll box (on a phone) and the page back to their top left
BOARD_TOP = "for (let e = document.getElementById('tr-board'); e; e = e.parentElement) e.scrollTo(0, 0)"


def train_puzzle(page: Page, url: str, kind: str, theme: str = "", difficulty: str = "") -> Any:
    """The Train tab, showing a puzzle of this kind (and theme, difficulty); the puzzle."""
    from demine.puzzles import read_puzzles

    puzzles = {z.id: z for z in read_puzzles()}
    page.goto(url)
    page.click("#tab-train")
    page.wait_for_selector("#tr-board .cell", timeout=60_000)
    pid = ""
    for sel, value in (("#tr-kind", kind), ("#tr-difficulty", difficulty), ("#tr-theme", theme)):
        if not value:
            continue
        unfold(page, "tr-options")
        with page.expect_response(lambda r: "/api/puzzles/next" in r.url) as asked:
            page.select_option(sel, value)
        pid = asked.value.json()["id"]
        page.wait_for_function("id => document.getElementById('tr-board').dataset.puzzle === id", arg=pid)
    return puzzles[pid]


def train_cell(page: Page, p: Any, cell: int) -> Any:
    r, c = divmod(cell, p.position.width)
    return page.locator(f'#tr-board .cell[data-r="{r}"][data-c="{c}"]')


def train_shots(browser: Any, p: Any, url: str) -> None:
    """The Train tab's two pictures (see the module's note)."""
    ctx = browser.new_context(viewport={"width": 1000, "height": 1000})
    page = ctx.new_page()
    z = train_puzzle(page, url, "safe", theme="1-2-1", difficulty="medium")
    train_cell(page, z, z.answer[0]).click()
    page.wait_for_selector("#tr-board .cell.because")
    page.evaluate(BOARD_TOP)
    page.screenshot(path=str(HERE / "train-desktop.png"))
    ctx.close()
    phone = dict(p.devices["iPhone 13"])
    phone.pop("default_browser_type", None)
    ctx = browser.new_context(**phone)
    page = ctx.new_page()
    z = train_puzzle(page, url, "all", difficulty="medium")
    assert z.mines and z.safe
    train_cell(page, z, z.safe[0]).tap()  # right
    page.wait_for_selector("#tr-board .cell.pick")
    wrong = next(c for c in range(z.position.cells) if z.position.states[c] == 9 and c not in z.answer)
    train_cell(page, z, wrong).tap()  # not proven either way: wrong
    page.wait_for_selector("#tr-board .cell.rv-played")
    page.evaluate(BOARD_TOP)
    page.click("#tr-options-toggle")  # folded again, as a player would leave them
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(HERE / "train-phone.png"))
    ctx.close()


def main() -> None:
    with socket.socket() as sock:  # a free port on the loopback
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    url = f"http://127.0.0.1:{port}/"
    if sys.argv[1:] == ["train"]:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            train_shots(browser, p, url)
            browser.close()
        server.should_exit = True
        return
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = browser.new_page(viewport={"width": 760, "height": 760})
        page.goto(url)
        new_game(page, "intermediate", "zero", "31")
        page.wait_for_selector("#board .cell >> nth=255")
        page.check("#hints-toggle")
        shot = False
        for k in range(200):
            if page.locator("#face").inner_text() == "won!":
                break
            page.click("#hint-btn")
            pick = page.locator("#board .cell.pick")
            pick.wait_for()
            if k == 30 and not shot:
                mine = page.locator("#board .cell.hint-mine").first
                mine.click(button="right")
                page.wait_for_timeout(300)
                page.click("#hint-btn")
                page.wait_for_timeout(300)
                page.evaluate(TOP)
                page.screenshot(path=str(HERE / "game-hints.png"))
                shot = True
                pick = page.locator("#board .cell.pick")
            pick.click()
            page.wait_for_timeout(50)
        page.evaluate(TOP)
        page.screenshot(path=str(HERE / "game-won.png"))
        page.click("#review-btn")
        page.wait_for_selector("#review-marks button")
        page.locator("#review-marks button").first.click()
        page.wait_for_selector("#board .cell.rv-played")
        page.set_viewport_size({"width": 760, "height": 1100})
        page.evaluate(TOP)
        page.screenshot(path=str(HERE / "game-review.png"))
        page.set_viewport_size({"width": 760, "height": 760})
        page.click("#tab-analyse")
        page.fill("#an-text", POSITION)
        page.click("#an-load")
        page.wait_for_selector("#an-board .pct")
        page.locator('#an-board .cell[data-r="4"][data-c="2"]').hover()
        page.wait_for_timeout(200)
        page.screenshot(path=str(HERE / "analysis-probabilities.png"))
        for scheme in ("light", "dark"):
            phone = dict(p.devices["iPhone 13"])
            phone.pop("default_browser_type", None)
            ctx = browser.new_context(**phone, color_scheme=scheme)
            part_played(ctx.new_page(), url, touch=True).screenshot(path=str(HERE / f"phone-{scheme}.png"))
            ctx.close()
        ctx = browser.new_context(viewport={"width": 1000, "height": 760}, color_scheme="dark")
        page = part_played(ctx.new_page(), url, touch=False)
        page.check("#prob-toggle")
        page.wait_for_selector("#board .cell.covered:not(.hint-safe):not(.hint-mine) .pct")
        page.screenshot(path=str(HERE / "desktop-dark.png"))
        train_shots(browser, p, url)
        browser.close()
    server.should_exit = True


if __name__ == "__main__":
    main()
