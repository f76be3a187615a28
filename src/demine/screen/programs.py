"""The programs demine plays and watches, and what each needs.

Each :class:`Program` says how to start it on a display at a board size and a tile size, how to
find its window, how to start a new game its own way (a key, or a click on its face), and its
rules: what its first click does and how it chords. :func:`launch` starts one in a process group
of its own, with its settings in a temporary folder (nothing is written to the user's own
configuration), waits for its window, and ends it (the whole group) when done.

The programs, from Debian's packages, all run under Xvfb with no window manager and no GPU:

- ``tatham``: Simon Tatham's Mines (``sgt-puzzles``): ``MINES_TILESIZE`` sets the tile size, the
  size is a game parameter (``30x16n99``); every board is guess-free, the first click an opening.
- ``xdemineur``: 12 columns or more; each game starts with an opening already shown; its title
  is Latin-1 (``Xdémineur``), so it is found by class; a new game is a click on its face.
- ``gnome``: GNOME Mines (its three sizes; settings through GLib's keyfile backend in the
  temporary folder: the window's size, and so its tile size, is set there). A new game at the
  same size is ctrl+r once a game is over (ctrl+n shows the size chooser); it lightens the
  cell under the pointer and shows every mine at a loss.
- ``kmines``: KMines, under a D-Bus session of its own (no services started on demand); its
  window sets only ``_NET_WM_NAME``; ctrl+n is a new game at once; a click on a lost board asks
  whether to reset it (so nothing is clicked there after a loss).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from demine.screen.pages import (
    CHROMIUM,
    READY,
    DevTools,
    demine_page_setup,
    jsm_page_setup,
    start_browser,
)
from demine.screen.x11 import Connection, ScreenError, WindowInfo

#: A D-Bus session bus that starts nothing on demand: the portals and accessibility services a
#: GTK or KDE program would otherwise start on its bus are not wanted under Xvfb, and must not
#: outlive the program.
BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>unix:tmpdir={tmp}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""


@dataclass(frozen=True, slots=True)
class Program:
    """One Minesweeper program: how to run it, find it, and play it."""

    name: str
    """Its name on the command line (``--program NAME``)."""
    title: str
    """Its name for people."""
    binary: str
    """The program file (Debian's path)."""
    package: str
    """The Debian package that has it."""
    skin: str
    """The reader's skin for it (:func:`demine.screen.read.read_board`)."""
    window_name: str | None
    """Its window's name, when it is found by name."""
    window_class: str | None
    """Its window's class (either part of ``WM_CLASS``), when it is found by class."""
    new_game: str
    """How a new game starts: ``key:COMBO`` (``key:n``, ``key:ctrl+n``) or ``face`` (a click on
    the face the reader finds)."""
    first_click: str
    """What the first click does: ``opening`` (it opens an area: no mine on or next to it),
    ``safe`` (never a mine), ``opened`` (the program shows an opening before any click)."""
    chord: str | None
    """The button that chords on a number (``left``, ``middle``), or None."""
    sizes: tuple[tuple[int, int, int], ...] = ()
    """The only sizes it can be started at (empty: any size, within ``min_width`` and
    ``max_side``)."""
    min_width: int = 1
    """The fewest columns it plays."""
    max_side: int | None = None
    """The most columns and rows it plays (None: no limit but the screen's)."""
    min_side: int = 1
    """The fewest rows (and columns) it plays."""
    free_cells: int = 1
    """The fewest cells without a mine it allows."""
    bus: bool = False
    """Whether it needs a D-Bus session of its own."""
    tile_sizes: tuple[int, int] = (10, 80)
    """The tile sizes (px) :func:`launch` can ask of it."""
    extra_env: dict[str, str] = field(default_factory=dict)
    """Environment it is always started with."""
    face: tuple[float, int] | None = None
    """Where its face is when the reader finds none: across (a share of the window's width) and
    down (px from the window's top)."""
    pointer_away: bool = False
    """Whether the pointer must leave the board after a click: the program draws something
    under a resting pointer (JSMinesweeper's page: the cell's coordinates in a box over the
    board). It is moved to the window's top left corner."""
    dialogs: str | None = None
    """The end of the names of windows it opens over the board when a game ends (KMines: its
    high scores at a win, "... — KMines"), or None. Its board is then grabbed from its own
    window's pixels (Composite), and such windows are closed (Escape) before a new game."""
    page: str | None = None
    """For a web page shown in Chromium: ``demine`` (demine's own page, served by ``demine
    serve``) or ``jsm`` (JSMinesweeper's page, a file: :func:`launch`'s ``url``)."""

    @property
    def rule(self) -> str:
        """demine's first-click rule for its boards (``zero`` for an opening, ``safe``; ``none``
        once the program has opened the board itself)."""
        return {"opening": "zero", "safe": "safe"}.get(self.first_click, "none")

    def installed(self) -> bool:
        """Whether its program file is there (Chromium, for a page)."""
        if self.page is not None:
            return any(os.access(path, os.X_OK) for path in CHROMIUM)
        return Path(self.binary).is_file() and os.access(self.binary, os.X_OK)

    def matches(self, info: WindowInfo) -> bool:
        """Whether ``info`` is one of its windows (a class ending in ``*`` is a prefix:
        Chromium's is ``Chromium`` or ``Chromium-browser`` as it was started)."""
        if self.window_name is not None and info.name != self.window_name:
            return False
        if self.window_class is None:
            return True
        want = self.window_class.lower()
        parts = [p.lower() for p in info.wm_class]
        if want.endswith("*"):
            return any(p.startswith(want[:-1]) for p in parts)
        return want in parts

    def windows(self, conn: Connection) -> list[WindowInfo]:
        """Its windows shown on ``conn``'s display, largest first (none smaller than 60x60:
        Tatham's Mines keeps a hidden 10x10 one)."""
        return conn.find(exclude=lambda info: not self.matches(info))

    def check_size(self, width: int, height: int, mines: int) -> None:
        """:class:`ScreenError` unless it can be started at that size."""
        if self.sizes and (width, height, mines) not in self.sizes:
            shown = ", ".join(f"{w}x{h}x{m}" for w, h, m in self.sizes)
            raise ScreenError(f"{self.title} plays {shown} only, not {width}x{height}x{mines}")
        if width < self.min_width:
            raise ScreenError(f"{self.title} needs {self.min_width} columns or more, not {width}")
        if min(width, height) < self.min_side or (
            self.max_side is not None and max(width, height) > self.max_side
        ):
            most = "" if self.max_side is None else f" and at most {self.max_side}"
            raise ScreenError(
                f"{self.title} plays boards of at least {self.min_side}{most} cells each way, "
                f"not {width}x{height}"
            )
        if width * height - mines < self.free_cells:
            raise ScreenError(
                f"{self.title} leaves at least {self.free_cells} cells free of mines: "
                f"{width}x{height} takes at most {width * height - self.free_cells} mines, not {mines}"
            )


PROGRAMS: dict[str, Program] = {
    p.name: p
    for p in (
        Program(
            "tatham",
            "Simon Tatham's Mines",
            "/usr/games/sgt-mines",
            "sgt-puzzles",
            "tatham",
            window_name="Mines",
            window_class="sgt-mines",
            new_game="key:n",
            first_click="opening",
            chord="left",
        ),
        Program(
            "xdemineur",
            "xdemineur",
            "/usr/games/xdemineur",
            "xdemineur",
            "xdemineur",
            window_name=None,
            window_class="XDémineur",
            new_game="face",
            first_click="opened",
            chord="middle",
            min_width=12,
            tile_sizes=(21, 21),
            face=(0.5, 40),  # its bitmaps are fixed: the face is centred above the board
        ),
        Program(
            "gnome",
            "GNOME Mines",
            "/usr/games/gnome-mines",
            "gnome-mines",
            "gnome",
            window_name="Mines",
            window_class="gnome-mines",
            new_game="key:ctrl+r",
            first_click="opening",
            chord="left",
            sizes=((8, 8, 10), (16, 16, 40), (30, 16, 99)),
            dialogs="Congratulations!",  # its scores, over the board at a win that makes the top ten
            bus=True,
            extra_env={"GSETTINGS_BACKEND": "keyfile", "NO_AT_BRIDGE": "1", "GTK_USE_PORTAL": "0"},
        ),
        Program(
            "kmines",
            "KMines",
            "/usr/games/kmines",
            "kmines",
            "kmines",
            window_name="KMines",
            window_class=None,
            new_game="key:ctrl+n",
            first_click="opening",  # no mine on the first cell clicked nor around it
            chord="middle",
            max_side=50,
            min_side=5,
            free_cells=10,
            dialogs=" — KMines",
            bus=True,
            extra_env={"NO_AT_BRIDGE": "1", "QT_ACCESSIBILITY": "0"},
        ),
        Program(
            "demine-web",
            "demine's web page",
            "/usr/bin/chromium",
            "chromium",
            "demine-web",
            window_name=None,
            window_class="chromium*",
            new_game="key:n",
            first_click="safe",
            chord="left",
            tile_sizes=(12, 56),
            page="demine",
        ),
        Program(
            "jsm",
            "JSMinesweeper's page",
            "/usr/bin/chromium",
            "chromium",
            "jsm-web",
            window_name=None,
            window_class="chromium*",
            new_game="face",
            first_click="safe",
            chord="left",
            tile_sizes=(8, 56),
            pointer_away=True,
            page="jsm",
        ),
    )
}


def find_program(name: str) -> Program:
    """The program called ``name``; :class:`ScreenError` listing them otherwise."""
    try:
        return PROGRAMS[name]
    except KeyError:
        raise ScreenError(f"no program {name!r}; choose one of {', '.join(PROGRAMS)}") from None


def program_window(conn: Connection, program: Program) -> WindowInfo:
    """The program's window on ``conn``'s display (the largest shown); :class:`ScreenError` when
    there is none."""
    found = program.windows(conn)
    if not found:
        raise ScreenError(f"no {program.title} window on the display {conn.name}; start it, or pass --launch")
    return found[0]


@dataclass
class Launched:
    """A program started by :func:`launch`: its process and its window."""

    program: Program
    process: subprocess.Popen[bytes]
    window: WindowInfo
    folder: Path
    """Its temporary settings folder (removed when it ends)."""
    log: Path
    """What it printed (inside ``folder``)."""
    page: DevTools | None = None
    """For a web page: the browser's DevTools pipe (to read or set the page up)."""
    server: subprocess.Popen[bytes] | None = None
    """For demine's page: the ``demine serve`` that serves it."""

    def alive(self) -> bool:
        """Whether its process still runs."""
        return self.process.poll() is None


def _settings(program: Program, folder: Path, width: int, height: int, mines: int, tile: int | None) -> None:
    """Write the program's settings into its temporary folder."""
    config = folder / "config"
    config.mkdir(exist_ok=True)
    if program.name == "gnome":
        side = tile or 30
        # the board's tiles are as large as the window allows: size the window for the tile asked
        keyfile = config / "glib-2.0" / "settings" / "keyfile"
        keyfile.parent.mkdir(parents=True, exist_ok=True)
        keyfile.write_text(
            "[org/gnome/Mines]\n"
            f"window-width={width * side + 220}\nwindow-height={height * side + 80}\n"
            "use-animations=false\nuse-question-marks=false\n"
        )
    elif program.name == "kmines":
        (config / "kminesrc").write_text(kmines_config(width, height, mines))


def kmines_config(width: int, height: int, mines: int) -> str:
    """KMines' settings file (``kminesrc``) for a board of that size: its level, which it keeps
    in the group ``KgDifficulty`` (a standard one, or ``Custom`` with the size in ``Options``),
    and no offer to replay a lost game's board (``kmines_reset``: a window "Reset? — KMines"
    over the board at every loss)."""
    levels = {(9, 9, 10): "Easy", (16, 16, 40): "Medium", (30, 16, 99): "Hard"}
    level = levels.get((width, height, mines), "Custom")
    return (
        f"[KgDifficulty]\nLevel={level}\n\n[General]\nkmines_reset=false\n\n"
        f"[Options]\ncustom width={width}\ncustom height={height}\ncustom mines={mines}\n"
    )


def kmines_window(width: int, height: int, tile: int | None) -> tuple[int, int]:
    """The size of KMines' window for cells of about ``tile`` px (30 when not asked): it sizes
    its cells to fill the window less the menu, tool bar and status bar."""
    side = tile or 30
    return width * side + 120, height * side + 160


def tatham_game_id(width: int, height: int, mine_cells: list[int], start: int) -> str:
    """A game id for Tatham's Mines that plays a given layout, ``start`` shown opened (it must
    hold no mine): the program's own layout description, one bit a cell in row-major order as
    hexadecimal digits, unobfuscated (``u``). A truth that needs no reading of the screen.

    >>> tatham_game_id(4, 2, [3, 4], 0)
    '4x2n2:0,0,u18'
    """
    if start in mine_cells:
        raise ScreenError(f"the opened cell {start} holds a mine")
    mines = set(mine_cells)
    bits = "".join("1" if c in mines else "0" for c in range(width * height))
    bits += "0" * (-len(bits) % 4)
    digits = "".join(f"{int(bits[i : i + 4], 2):x}" for i in range(0, len(bits), 4))
    row, col = divmod(start, width)
    return f"{width}x{height}n{len(mines)}:{col},{row},u{digits}"


def command(
    program: Program, width: int, height: int, mines: int, folder: Path, game_id: str | None = None
) -> list[str]:
    """The command line that starts ``program`` at that size (settings in ``folder``);
    ``game_id``, for Tatham's Mines, a given game (:func:`tatham_game_id`)."""
    if program.name == "tatham":
        argv = [program.binary, game_id or f"{width}x{height}n{mines}"]
    elif program.name == "xdemineur":
        argv = [program.binary, "-geometry", f"{width}x{height}+0+0", "-m", str(mines)]
    elif program.name == "gnome":
        flag = {8: "--small", 16: "--medium", 30: "--big"}[width]
        argv = [program.binary, flag]
    else:
        argv = [program.binary]
    if program.bus:
        bus = folder / "bus.conf"
        bus.write_text(BUS_CONFIG.format(tmp=folder))
        argv = ["dbus-run-session", f"--config-file={bus}", "--", *argv]
    return argv


@contextmanager
def launch(
    program: Program,
    display: str,
    width: int,
    height: int,
    mines: int,
    *,
    tile: int | None = None,
    game_id: str | None = None,
    page_url: str | None = None,
    timeout: float = 20.0,
) -> Iterator[Launched]:
    """Start ``program`` on ``display`` at that size (``tile`` px cells where it can be told),
    wait for its window, and end it (its whole process group) on leaving the block.

    :class:`ScreenError` when it is not installed, cannot be started at that size, or shows no
    window within ``timeout`` seconds (with the end of what it printed). ``game_id`` starts
    Tatham's Mines on a given game (:func:`tatham_game_id`); ``page_url`` is JSMinesweeper's page
    (its ``index.html``, a path or a URL). A page is shown in Chromium (demine's served by a
    ``demine serve`` of its own on a free port) and set up for the board through its DevTools
    pipe (:mod:`demine.screen.pages`)."""
    if not program.installed():
        raise ScreenError(
            f"{program.title} is not installed ({program.binary}): apt-get install {program.package}"
        )
    if program.bus and shutil.which("dbus-run-session") is None:
        raise ScreenError(f"{program.title} needs dbus-run-session: apt-get install dbus-daemon")
    program.check_size(width, height, mines)
    if game_id is not None and program.name != "tatham":
        raise ScreenError(f"a game id is for Tatham's Mines, not {program.title}")
    lo, hi = program.tile_sizes
    if tile is not None and not lo <= tile <= hi:
        raise ScreenError(f"{program.title} draws tiles of {lo}-{hi} px, not {tile}")
    folder = Path(tempfile.mkdtemp(prefix=f"demine-{program.name}-"))
    log = folder / "log.txt"
    process: subprocess.Popen[bytes] | None = None
    server: tuple[subprocess.Popen[bytes], int] | None = None
    page: DevTools | None = None
    try:
        _settings(program, folder, width, height, mines, tile)
        env = dict(os.environ)
        # no session bus unless its own: a GTK program would start one (and an accessibility
        # bus) that outlives it, outside its process group
        env.update(DBUS_SESSION_BUS_ADDRESS="disabled:", NO_AT_BRIDGE="1")
        env.update(program.extra_env)
        env.update(
            DISPLAY=display,
            XDG_CONFIG_HOME=str(folder / "config"),
            XDG_DATA_HOME=str(folder / "data"),
            XDG_CACHE_HOME=str(folder / "cache"),
        )
        if tile is not None:
            env["MINES_TILESIZE"] = str(tile)
        with Connection(display) as conn:
            before = {w.id for w in conn.windows()}
            with log.open("wb") as out:
                if program.page is not None:
                    if program.page == "demine":
                        server = _serve(folder, out)
                        address = f"http://127.0.0.1:{server[1]}/"
                        url, setup = address, demine_page_setup(width, height, mines, tile)
                    else:
                        url, setup = _jsm_url(page_url), jsm_page_setup(width, height, mines, tile)
                    size = (max(900, width * (tile or 24) + 400), max(700, height * (tile or 24) + 360))
                    process, page = start_browser(url, READY[program.page], folder, env, size, out)
                    page.evaluate(setup)
                else:
                    process = subprocess.Popen(
                        command(program, width, height, mines, folder, game_id),
                        env=env,
                        stdin=subprocess.DEVNULL,
                        stdout=out,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                        cwd=folder,
                    )
            window = _wait_window(conn, program, process, before, timeout, log)
            size = (window.width, window.height)
            if program.name == "kmines":
                size = kmines_window(width, height, tile)
            if window.box[:2] != (0, 0) or size != (window.width, window.height):
                # wholly on the screen, at the top left (and KMines at the size of its cells)
                conn.move_resize(window.id, 0, 0, *size)
                time.sleep(0.5 if program.name == "kmines" else 0)
                window = conn.window(window.id)
        yield Launched(program, process, window, folder, log, page, server[0] if server else None)
    finally:
        if page is not None:
            page.close()
        if process is not None:
            _end(process)
        if server is not None:
            _end(server[0])
        shutil.rmtree(folder, ignore_errors=True)


def _serve(folder: Path, out: IO[bytes]) -> tuple[subprocess.Popen[bytes], int]:
    """``demine serve`` on a free port of this machine, its games in ``folder``: the process
    and the port, once it answers."""
    import socket
    import sys

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    server = subprocess.Popen(
        [sys.executable, "-m", "demine", "serve", "--port", str(port), "--db", str(folder / "games.db")],
        stdin=subprocess.DEVNULL,
        stdout=out,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        cwd=folder,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise ScreenError(
                f"demine serve exited with {server.returncode} (the web extra: pip install 'demine[web]')"
            )
        with socket.socket() as s, suppress(OSError):
            s.settimeout(0.5)
            s.connect(("127.0.0.1", port))
            return server, port
        time.sleep(0.2)
    _end(server)
    raise ScreenError("demine serve did not answer within 20 s")


def _jsm_url(url: str | None) -> str:
    """JSMinesweeper's page: ``url``, else ``$DEMINE_JSM_PAGE`` (a path or a URL)."""
    chosen = url or os.environ.get("DEMINE_JSM_PAGE")
    if not chosen:
        raise ScreenError("JSMinesweeper's page: pass its index.html (--url PATH) or set DEMINE_JSM_PAGE")
    if "://" in chosen:
        return chosen
    path = Path(chosen).resolve()
    if not path.is_file():
        raise ScreenError(f"JSMinesweeper's page: no file {path}")
    return path.as_uri()


def _wait_window(
    conn: Connection,
    program: Program,
    process: subprocess.Popen[bytes],
    before: set[int],
    timeout: float,
    log: Path,
) -> WindowInfo:
    deadline = time.monotonic() + timeout
    before = set(before)
    while time.monotonic() < deadline:
        shown = program.windows(conn)
        # a window of the program's that was there before and is gone now frees its id: the X
        # server hands a client's id range to the next client, so the program started now can
        # get the very id of the window a program just ended had (KMines did, in a full test run)
        before &= {w.id for w in shown}
        found = [w for w in shown if w.id not in before]
        if found:
            time.sleep(0.3)  # its first drawing
            return conn.window(found[0].id)
        if process.poll() is not None:
            break
        time.sleep(0.1)
    said = log.read_text(errors="replace")[-500:].strip() if log.exists() else ""
    state = f"it exited with {process.returncode}" if process.poll() is not None else f"none in {timeout:g} s"
    said = f": {said}" if said else ""
    raise ScreenError(f"{program.title} showed no window on {conn.name} ({state}){said}")


def _end(process: subprocess.Popen[bytes]) -> None:
    """End the program's process group: SIGTERM, then SIGKILL after 3 s."""
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=3)
    except subprocess.TimeoutExpired:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=3)
    # what it left in its group (a bus daemon) goes too
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
