"""Make the README's screenshots: python docs/screenshots.py (needs the web and test extras and
Debian's Chromium at /usr/bin/chromium).

Plays intermediate, zero rule, seed 31 with the hint button (a game the hints win), taking a picture
with hints and a flag on the way, one of the won game and one of its review (a guess picked from
the marks); then the analysis board with the probability overlay on a pasted position.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import uvicorn
from playwright.sync_api import sync_playwright

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


def main() -> None:
    server = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=8791, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    url = "http://127.0.0.1:8791/"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = browser.new_page(viewport={"width": 760, "height": 760})
        page.goto(url)
        page.select_option("#preset", "intermediate")
        page.select_option("#rule", "zero")
        page.fill("#seed", "31")
        page.click("#new")
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
                page.screenshot(path=str(HERE / "game-hints.png"))
                shot = True
                pick = page.locator("#board .cell.pick")
            pick.click()
            page.wait_for_timeout(50)
        page.screenshot(path=str(HERE / "game-won.png"))
        page.click("#review-btn")
        page.wait_for_selector("#review-marks button")
        page.locator("#review-marks button").first.click()
        page.wait_for_selector("#board .cell.rv-played")
        page.set_viewport_size({"width": 760, "height": 1100})
        page.screenshot(path=str(HERE / "game-review.png"), full_page=True)
        page.set_viewport_size({"width": 760, "height": 760})
        page.click("#tab-analyse")
        page.fill("#an-text", POSITION)
        page.click("#an-load")
        page.wait_for_selector("#an-board .pct")
        page.locator('#an-board .cell[data-r="4"][data-c="2"]').hover()
        page.wait_for_timeout(200)
        page.screenshot(path=str(HERE / "analysis-probabilities.png"))
        browser.close()
    server.should_exit = True


if __name__ == "__main__":
    main()
