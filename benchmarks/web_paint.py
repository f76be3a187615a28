"""The web page's speed as a player feels it: from a tap on the board to the board painted, and
the page's weight.

Run: python benchmarks/web_paint.py [--taps 100] [--big-taps 40] [--hints]

Starts ``demine serve`` in a child process on a free loopback port (a fresh SQLite file in a
temporary folder), then drives Debian's Chromium with Playwright as a "Pixel 7" (touch on) in flag
mode: each tap flags or unflags a covered cell, one move sent to the server and the board redrawn.
A tap's time runs from its ``pointerup`` event (its timeStamp: the moment the browser knows the
touch was a tap) to the end of the first frame after the board's cells changed (a task queued from
that frame's requestAnimationFrame callback runs once its style, layout and paint are done),
measured in the page. Boards: expert (30x16/99) and 100x100/1500 (zero
rule, one opening click first). Reported: p50, p95 and max over the taps. With ``--hints`` the
Hints switch is on (each move then also brings the new position's hints).

The page's weight: every file the page loads (HTML, CSS, the ES modules, the icon), from the
browser's own resource timing, and their total gzip-compressed (the server sends them as they are).
"""

from __future__ import annotations

import argparse
import gzip
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from typing import Any

from playwright.sync_api import sync_playwright

CHROMIUM = os.environ.get("DEMINE_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]

# In the page: time each tap from its pointerup to the end of the first frame after the board changed.
PROBE = """() => {
  const board = document.getElementById('board');
  performance.setResourceTimingBufferSize(10000);
  window.tapTimes = [];
  window.pageTimes = [];
  let t0 = null;
  board.addEventListener('pointerup', (e) => { t0 = e.timeStamp; }, true);
  new MutationObserver(() => {
    if (t0 === null) return;
    const start = t0;
    t0 = null;
    // the frame's callbacks run before its style, layout and paint; a task queued there runs after
    requestAnimationFrame(() => setTimeout(() => {
      const ts = performance.now();
      window.tapTimes.push(ts - start);
      const moves = performance.getEntriesByType('resource').filter((e) => e.name.includes('/moves'));
      const last = moves[moves.length - 1];
      window.pageTimes.push(last && last.responseEnd > start ? ts - last.responseEnd : NaN);
    }, 0));
  }).observe(board, {subtree: true, attributes: true, childList: true, characterData: true});
}"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(folder: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    cmd = [sys.executable, "-m", "demine", "serve", "--port", str(port), "--db", f"{folder}/games.db"]
    cmd += ["--rate", "moves=off", "--rate", "hints=off", "--rate", "games=off"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url + "/", timeout=1).read()
            return proc, url
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise RuntimeError("demine serve did not start") from None
            time.sleep(0.1)


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def measure(page: Any, url: str, custom: tuple[int, int, int] | None, taps: int, hints: bool) -> list[float]:
    page.goto(url + "/")
    page.wait_for_selector("#board .cell >> nth=479")
    if custom:
        w, h, m = custom
        page.select_option("#preset", "custom")
        page.fill("#cw", str(w))
        page.fill("#ch", str(h))
        page.fill("#cm", str(m))
        page.select_option("#rule", "zero")
        page.fill("#seed", "paint")
        page.click("#new")
        page.wait_for_selector(f"#board .cell >> nth={w * h - 1}")
        page.locator(f'#board .cell[data-r="{h // 2}"][data-c="{w // 2}"]').tap()  # an opening
        page.wait_for_selector("#board .cell.open")
    if hints:
        page.check("#hints-toggle")
        page.wait_for_timeout(500)
    page.evaluate("document.getElementById('flag-mode').click()")
    page.evaluate("window.scrollTo(0, document.getElementById('board-wrap').offsetTop - 200)")
    covered = page.evaluate(
        """() => [...document.querySelectorAll('#board .cell.covered')].filter((e) => {
             const r = e.getBoundingClientRect();
             return r.top > 250 && r.bottom < innerHeight - 10 && r.left > 5 && r.right < innerWidth - 5;
           }).slice(0, 20).map((e) => { const r = e.getBoundingClientRect();
             return [r.left + r.width / 2, r.top + r.height / 2]; })"""
    )
    page.evaluate(PROBE)
    for i in range(taps):
        x, y = covered[i % len(covered)]
        n = page.evaluate("window.tapTimes.length")
        page.touchscreen.tap(x, y)
        page.wait_for_function("n => window.tapTimes.length > n", arg=n)
        page.wait_for_timeout(30)  # the next tap as a fast player's, not back to back
    server = page.evaluate(
        "performance.getEntriesByType('resource').filter(e => e.name.includes('/moves'))"
        f".slice(-{taps}).map(e => e.responseEnd - e.startTime)"
    )
    after = [x for x in page.evaluate("window.pageTimes") if x == x]
    med, p95 = statistics.median, pct
    print(
        f"  (the move's request: p50 {med(server):.1f} ms, p95 {p95(server, 0.95):.1f} ms;"
        f" from its answer to the frame: p50 {med(after):.1f} ms, p95 {p95(after, 0.95):.1f} ms)"
    )
    return list(page.evaluate("window.tapTimes"))


def page_weight(page: Any, url: str) -> tuple[int, int, int]:
    page.goto(url + "/")
    page.wait_for_selector("#board .cell >> nth=479")
    names = page.evaluate(
        "[location.href.split('?')[0], ...performance.getEntriesByType('resource')"
        ".map(e => e.name).filter(n => !n.includes('/api/'))]"
    )
    raw = packed = 0
    for n in sorted(set(names)):
        body = urllib.request.urlopen(n, timeout=5).read()
        raw += len(body)
        packed += len(gzip.compress(body, 9))
    return len(set(names)), raw, packed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--taps", type=int, default=100, help="taps on expert")
    ap.add_argument("--big-taps", type=int, default=40, help="taps on 100x100")
    ap.add_argument("--hints", action="store_true", help="with the Hints switch on")
    ap.add_argument("--device", default="Pixel 7", help="a Playwright device with touch (default: Pixel 7)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        proc, url = start_server(folder)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                device = dict(p.devices[a.device])
                device.pop("default_browser_type", None)
                ctx = browser.new_context(**device)
                page = ctx.new_page()
                files, raw, packed = page_weight(page, url)
                print(f"page weight: {files} files, {raw / 1024:.1f} KiB ({packed / 1024:.1f} KiB gzipped)")
                boards = [("expert", None, a.taps), ("100x100/1500", (100, 100, 1500), a.big_taps)]
                for name, custom, taps in boards:
                    t = measure(page, url, custom, taps, a.hints)
                    line = f"{name}: tap to painted board, {len(t)} taps: p50 {statistics.median(t):.1f} ms"
                    line += f", p95 {pct(t, 0.95):.1f} ms, max {max(t):.1f} ms"
                    print(line + (" (hints on)" if a.hints else ""))
                browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=10)


if __name__ == "__main__":
    main()
