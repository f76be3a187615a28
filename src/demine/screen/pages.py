"""Web pages as programs: Chromium showing a Minesweeper page in an app window of its own.

The page is played like any other program, through its window (captured, clicked through
XTest). The browser is started with ``--remote-debugging-pipe`` so that demine can set the page
up the way a person would before playing (board size, cell size, the page's own hints and auto
play off) and read what it shows: the DevTools protocol's ``Runtime.evaluate``, over the pipe
(fd 3 to the browser, fd 4 from it; messages are JSON ended by a NUL byte). Nothing else is
asked of the page; its board is read from the screen.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import time
from contextlib import suppress
from pathlib import Path
from typing import Any

from demine.screen.x11 import ScreenError

#: Debian's Chromium: the binary (the ``/usr/bin/chromium`` wrapper starts it without passing
#: extra file descriptors on, so the browser itself is started).
CHROMIUM = ("/usr/lib/chromium/chromium", "/usr/bin/chromium")


def chromium() -> str:
    """The Chromium binary; :class:`ScreenError` when there is none."""
    for path in CHROMIUM:
        if os.access(path, os.X_OK):
            return path
    found = shutil.which("chromium")
    if found is None:
        raise ScreenError("a web page is shown in Chromium, which is not installed: apt-get install chromium")
    return found


class DevTools:
    """The browser's DevTools protocol over its pipe: :meth:`evaluate` runs JavaScript in the page."""

    def __init__(self, to_browser: int, from_browser: int) -> None:
        self.to_browser = to_browser
        self.from_browser = from_browser
        self.buffer = b""
        self.next_id = 0
        self.session: str | None = None

    def call(
        self, method: str, params: dict[str, Any] | None = None, timeout: float = 10.0
    ) -> dict[str, Any]:
        """Send one command and wait for its answer (``result``); :class:`ScreenError` on an
        error or past ``timeout`` seconds."""
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if self.session is not None and not method.startswith("Target."):
            message["sessionId"] = self.session
        try:
            os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        except OSError as e:
            raise ScreenError(f"the browser is gone ({e})") from None
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self.buffer:
                line, self.buffer = self.buffer.split(b"\0", 1)
                answer = json.loads(line)
                if answer.get("id") == self.next_id:
                    if "error" in answer:
                        raise ScreenError(f"the browser refused {method}: {answer['error'].get('message')}")
                    result: dict[str, Any] = answer.get("result", {})
                    return result
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.from_browser], [], [], left)[0]:
                raise ScreenError(f"the browser did not answer {method} within {timeout:g} s")
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise ScreenError("the browser closed its pipe")
            self.buffer += chunk

    def attach(self, ready: str, timeout: float = 20.0) -> None:
        """Attach to the page (the first one the browser shows), waiting until the JavaScript
        expression ``ready`` is true in it (its scripts loaded)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            targets = self.call("Target.getTargets")["targetInfos"]
            pages = [t for t in targets if t["type"] == "page"]
            if pages:
                got = self.call("Target.attachToTarget", {"targetId": pages[0]["targetId"], "flatten": True})
                self.session = got["sessionId"]
                with suppress(ScreenError):  # (a page still loading has no such names yet)
                    if self.wait_for(ready, deadline - time.monotonic()):
                        return
            time.sleep(0.2)
        raise ScreenError(f"the browser showed no page within {timeout:g} s")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (awaited when it is a promise)."""
        got = self.call(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}
        )
        if "exceptionDetails" in got:
            detail = got["exceptionDetails"]
            text = detail.get("exception", {}).get("description") or detail.get("text")
            raise ScreenError(f"the page's script failed: {text}")
        return got.get("result", {}).get("value")

    def wait_for(self, expression: str, timeout: float) -> bool:
        """Whether ``expression`` becomes true in the page within ``timeout`` seconds."""
        deadline = time.monotonic() + max(0.0, timeout)
        while True:
            if self.evaluate(expression):
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)

    def close(self) -> None:
        """Close the pipe (the browser is ended with its process group)."""
        for fd in (self.to_browser, self.from_browser):
            with suppress(OSError):
                os.close(fd)


def start_browser(
    url: str, ready: str, folder: Path, env: dict[str, str], size: tuple[int, int], log: Any
) -> tuple[subprocess.Popen[bytes], DevTools]:
    """Chromium showing ``url`` in an app window of ``size`` px at the screen's top left, its
    profile in ``folder``, in a process group of its own; and its DevTools pipe, once the
    JavaScript expression ``ready`` is true in the page."""
    to_read, to_write = os.pipe()  # demine writes, the browser reads on its fd 3
    from_read, from_write = os.pipe()  # the browser writes on its fd 4

    def pipes() -> None:  # in the child, before the browser starts
        os.dup2(to_read, 3)
        os.dup2(from_write, 4)

    argv = [
        chromium(),
        f"--user-data-dir={folder / 'profile'}",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-gpu",
        "--disable-extensions",
        "--disable-features=Translate",
        "--password-store=basic",
        "--test-type",  # no warning bar over the page
        "--window-position=0,0",
        f"--window-size={size[0]},{size[1]}",
        "--remote-debugging-pipe",
        f"--app={url}",
    ]
    if os.geteuid() == 0:
        argv.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
    process = subprocess.Popen(
        argv,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=pipes,
        pass_fds=(3, 4),
        cwd=folder,
    )
    os.close(to_read)
    os.close(from_write)
    tools = DevTools(to_write, from_read)
    try:
        tools.attach(ready)
    except ScreenError:
        tools.close()
        process.kill()
        process.wait()
        raise
    return process, tools


#: When each page is ready to be set up: its scripts have run.
READY = {
    "demine": "document.readyState === 'complete' && !!document.getElementById('new')",
    "jsm": "document.readyState === 'complete' && typeof apply === 'function'",
}


def demine_page_setup(width: int, height: int, mines: int, tile: int | None) -> str:
    """JavaScript that sets demine's page to the board asked (a preset, or custom), its cell
    size, hints off, and starts a game."""
    presets = {(9, 9, 10): "beginner", (16, 16, 40): "intermediate", (30, 16, 99): "expert"}
    preset = presets.get((width, height, mines), "custom")
    cell = "" if tile is None else f"set('cell-size', {tile}, 'input');"
    return f"""(() => {{
      const set = (id, value, kind) => {{
        const el = document.getElementById(id);
        el.value = String(value);
        el.dispatchEvent(new Event(kind || 'change', {{bubbles: true}}));
      }};
      set('preset', '{preset}');
      if ('{preset}' === 'custom') {{ set('cw', {width}); set('ch', {height}); set('cm', {mines}); }}
      const hints = document.getElementById('hints-toggle');
      if (hints && hints.checked) hints.click();
      {cell}
      document.getElementById('new').click();
      return true;
    }})()"""


def jsm_page_setup(width: int, height: int, mines: int, tile: int | None) -> str:
    """JavaScript that sets JSMinesweeper's page to the board asked, its tile size, its own
    hints, auto play (it would play for itself) and mine-% overlay off, and starts a game."""
    presets = {(9, 9, 10): "beginner", (16, 16, 40): "intermediate", (30, 16, 99): "expert"}
    preset = presets.get((width, height, mines), "custom")
    tile_js = "" if tile is None else f"ts.value = '{tile}'; changeTileSize(true);"
    return f"""(() => {{
      const off = ['autoplay', 'showhints', 'acceptguesses', 'fastPlay', 'gameTypeZero', 'noGuessMode'];
      for (const id of off) {{
        const el = document.getElementById(id);
        if (el) el.checked = false;
      }}
      document.getElementById('overlay').value = 'none';  // no mine % over the cells
      updateHints(true);
      document.getElementById('{preset}').checked = true;
      if ('{preset}' === 'custom') {{
        document.getElementById('width').value = '{width}';
        document.getElementById('height').value = '{height}';
        document.getElementById('mines').value = '{mines}';
      }}
      const ts = document.getElementById('tilesize');
      {tile_js}
      apply();
      return true;
    }})()"""
