"""``demine screen play`` and ``demine screen watch``: another program's live window.

``play`` reads the window, decides with ``best`` and clicks once per read, game after game,
starting new games the program's own way; ``watch`` shows live hints for a game a person plays
(a terminal panel, and optionally a click-through overlay on the board) and never clicks. Both
stop on ``q`` (or Ctrl-C) in their terminal, or when the window closes.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import select
import sys
import termios
import tty
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import IO, TYPE_CHECKING, Any

from demine.cli.needs import writable_file
from demine.engine.grid import parse_size
from demine.errors import InputError

if TYPE_CHECKING:
    from demine.screen.watch import Hints


def add_live(screen: Any) -> None:
    """Add ``play`` and ``watch`` to the ``demine screen`` subcommands."""
    from demine.cli import positive_int

    names = "tatham, xdemineur, gnome, kmines, demine-web, jsm"
    p = screen.add_parser(
        "play",
        help="play whole games in another program's window: read it, decide with best, click",
        description="Plays games in another Minesweeper program on an X display: reads its window, "
        "decides with best, makes one click per read, and starts new games the program's own way. "
        "Never clicks outside the window. Stops after --games games, on q or Ctrl-C, or when the "
        "window closes. With --launch the program is started (and ended) by demine.",
    )
    p.add_argument("--program", required=True, help=f"the program: {names}")
    p.add_argument("--display", help="the X display (default: $DISPLAY)")
    p.add_argument("--games", type=positive_int, default=1, help="games to play (default: 1)")
    p.add_argument(
        "--record", metavar="FILE", help="append each game (moves, reasons, outcome) as a JSON line"
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    _add_window_options(p)
    p.add_argument("--seconds", type=float, default=2.0, help="best's budget for one decision (default: 2)")
    p.set_defaults(func=cmd_play)

    p = screen.add_parser(
        "watch",
        help="live hints for a game played in another window (terminal panel, overlay); never clicks",
        description="Shows live hints for a game a person plays in another program's window on this "
        "display, refreshed when the board changes: proven safe cells, proven mines and the best "
        "move with its reason, in a terminal panel and, with --overlay, drawn over the board in a "
        "window that lets every click through. Never clicks. Stops on q or Ctrl-C, or when the "
        "window closes.",
    )
    p.add_argument("--program", required=True, help=f"the program: {names}")
    p.add_argument("--display", help="the X display (default: $DISPLAY)")
    p.add_argument("--overlay", action="store_true", help="also draw the hints over the board")
    p.add_argument(
        "--interval",
        type=float,
        default=0.2,
        help="how often to look at the window, in seconds (default: 0.2)",
    )
    p.add_argument("--updates", type=positive_int, help="stop after this many hint updates")
    p.add_argument(
        "--json", action="store_true", help="print each update as a JSON line instead of the panel"
    )
    _add_window_options(p)
    p.set_defaults(func=cmd_watch)


def _add_window_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--window", help="the window's id (0x...) when the program has several")
    p.add_argument("--mines", type=int, help="the mine total, when the program's counter cannot be read")
    p.add_argument("--launch", action="store_true", help="start the program (and end it afterwards)")
    p.add_argument(
        "--size", help="with --launch: a preset (beginner, intermediate, expert) or WxHxM (default: expert)"
    )
    p.add_argument("--tile", type=int, help="with --launch: the cell size in px, where the program takes one")
    p.add_argument(
        "--url", help="with --launch --program jsm: JSMinesweeper's index.html (default: $DEMINE_JSM_PAGE)"
    )


def _reader() -> Callable[..., Any]:
    """The screen reader, or a clear error when it (or its libraries) is missing."""
    try:
        module = importlib.import_module("demine.screen.read")
    except ImportError as e:
        if e.name == "demine.screen.read":
            raise InputError("this demine has no screen reader (demine.screen.read)") from None
        raise InputError(f"the screen reader needs {e.name}: pip install 'demine[screen]'") from None
    reader: Callable[..., Any] = module.read_board
    return reader


def _mines(ns: argparse.Namespace) -> int | None:
    """The mine total to read boards with: --mines, else with --launch the size's."""
    if ns.mines is not None:
        if ns.mines < 0:
            raise InputError(f"--mines must be 0 or more, got {ns.mines}")
        return int(ns.mines)
    if ns.launch:
        return parse_size(ns.size or "expert", "safe")[2]
    return None


@contextmanager
def _window(ns: argparse.Namespace) -> Iterator[tuple[Any, Any, Any]]:
    """The connection, the program and its window (launched with --launch)."""
    from demine.screen.programs import find_program, launch, program_window
    from demine.screen.x11 import connect, display_name

    program = find_program(ns.program)
    if not ns.launch and (ns.size or ns.tile or ns.url):
        raise InputError("--size, --tile and --url start a program: add --launch")
    with connect(ns.display) as conn:
        if ns.launch:
            width, height, mines = parse_size(ns.size or "expert", "safe")
            display = display_name(ns.display)
            with launch(program, display, width, height, mines, tile=ns.tile, page_url=ns.url) as run:
                yield conn, program, run.window
            return
        if ns.window:
            try:
                wid = int(ns.window, 0)
            except ValueError:
                raise InputError(f"--window {ns.window}: not a window id (0x...)") from None
            yield conn, program, conn.window(wid)
            return
        yield conn, program, program_window(conn, program)


@contextmanager
def _ended_cleanly() -> Iterator[None]:
    """SIGTERM ends the command as Ctrl-C would (a SystemExit): a program it launched, its
    display's overlay and the terminal's mode are put back, not left behind."""
    import signal

    def stop(signum: int, frame: Any) -> None:
        raise SystemExit(128 + signum)

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def key_pressed(stream: IO[str] | None = None) -> Iterator[Callable[[], bool]]:
    """A function that says whether q was pressed in the terminal since the last call (the
    terminal in cbreak mode meanwhile); always False without a terminal."""
    stream = stream or sys.stdin
    try:
        fd = stream.fileno()
        interactive = os.isatty(fd)
    except (AttributeError, ValueError, OSError):
        interactive = False
    if not interactive:
        yield lambda: False
        return
    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd)

    def pressed() -> bool:
        while select.select([fd], [], [], 0)[0]:
            if os.read(fd, 1) in (b"q", b"Q", b"\x1b"):
                return True
        return False

    try:
        yield pressed
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def cmd_play(ns: argparse.Namespace) -> int:
    from demine.screen.live import LiveWindow, PlaySettings, new_game, play_game, summary
    from demine.screen.x11 import WindowGone

    if ns.record:
        writable_file(ns.record, "--record")
    if ns.seconds <= 0:
        raise InputError(f"--seconds must be more than 0, got {ns.seconds:g}")
    reader = _reader()
    mines = _mines(ns)
    settings = PlaySettings(seconds=ns.seconds)
    logs = []
    ended = ""
    out = open(ns.record, "a", encoding="utf-8") if ns.record else None  # noqa: SIM115
    try:
        with _ended_cleanly(), _window(ns) as (conn, program, info), key_pressed() as pressed:
            window = LiveWindow(conn, info.id, unobscured=program.dialogs is not None)
            try:
                shown = _first_read(window, reader, mines, program)
                for index in range(ns.games):
                    if index > 0 or (shown is not None and shown.state != "playing"):
                        new_game(window, program, shown, settings)
                    log = play_game(window, program, reader, mines=mines, settings=settings, stop=pressed)
                    logs.append(log)
                    shown = log.final
                    line = {"game": index + 1, "program": program.name, **log.to_json()}
                    if out is not None:
                        out.write(json.dumps(line) + "\n")
                        out.flush()
                    print(_game_line(index + 1, log), file=sys.stderr)
                    if log.outcome == "stopped":
                        ended = "stopped by a key"
                        break
            except WindowGone:
                ended = "the window closed"
            except KeyboardInterrupt:
                ended = "interrupted"
            except SystemExit:
                ended = "terminated (SIGTERM)"
            result = summary(logs, program)
    finally:
        if out is not None:
            out.close()
    if ended:
        result["ended"] = ended
    if ns.json:
        print(json.dumps(result))
    else:
        print(_summary_text(result))
    return 143 if ended.startswith("terminated") else 0


def _first_read(window: Any, reader: Callable[..., Any], mines: int | None, program: Any) -> Any:
    """The board shown before play starts (a game in progress is played on, a finished one
    replaced), or None when it cannot be read (the first game's reads will say why)."""
    from demine.errors import DemineError

    try:
        return reader(window.grab(), mines=mines, skin=program.skin)
    except DemineError:
        return None


def _game_line(n: int, log: Any) -> str:
    misreads = f", {len(log.misreads)} misread{'s' * (len(log.misreads) != 1)}" if log.misreads else ""
    if log.unreadable:
        misreads += f", {len(log.unreadable)} unreadable"
    proven = " ON A PROVEN-SAFE CELL" if log.lost_on_proven_safe else ""
    return f"game {n}: {log.outcome}{proven} after {len(log.turns)} clicks{misreads}"


def _summary_text(s: dict[str, Any]) -> str:
    lines = [
        f"{s['program']}: {s['games']} games, {s['won']} won, {s['lost']} lost"
        + (f", {s['unreadable']} unreadable" if s["unreadable"] else "")
        + (f", {s['stopped']} stopped" if s["stopped"] else ""),
    ]
    if s["win_rate"] is not None:
        low, high = s["win_rate_95"]
        lines.append(
            f"win rate {100 * s['win_rate']:.1f}% (95% CI {100 * low:.1f}-{100 * high:.1f}), rule {s['rule']}"
        )
    proven, misreads, reads = s["lost_on_proven_safe"], s["misreads"], s["reads"]
    unread = s["unreadable_reads"]
    lines.append(
        f"lost on a proven-safe cell: {proven}; misreads: {misreads} of {reads} reads ({unread} unreadable)"
    )
    ms = s["ms_per_move"]
    if ms["p50"] is not None:
        lines.append(f"one turn (grab, read, decide, click): p50 {ms['p50']:.1f} ms, p95 {ms['p95']:.1f} ms")
    if s.get("ended"):
        lines.append(f"ended: {s['ended']}")
    return "\n".join(lines)


def cmd_watch(ns: argparse.Namespace) -> int:
    from demine.screen.watch import watch

    if ns.interval <= 0:
        raise InputError(f"--interval must be more than 0, got {ns.interval:g}")
    reader = _reader()
    ended = "interrupted"
    with (
        _ended_cleanly(),
        _window(ns) as (conn, program, info),
        key_pressed() as pressed,
        _shower(ns.json) as show,
        suppress(KeyboardInterrupt),
    ):
        ended = watch(
            conn,
            program,
            info.id,
            reader,
            show=show,
            mines=_mines(ns),
            overlay=ns.overlay,
            interval=ns.interval,
            updates=ns.updates,
            stop=pressed,
        )
    print(f"watch: {ended}", file=sys.stderr)
    return 0


@contextmanager
def _shower(as_json: bool) -> Iterator[Callable[[Any], None]]:
    """Where each update goes: JSON lines, a live Rich panel on a terminal, or plain text."""
    if as_json:

        def line(h: Any) -> None:
            print(json.dumps(h if isinstance(h, str) else h.to_json()), flush=True)

        yield line
        return
    console = None
    if sys.stdout.isatty():
        with suppress(ImportError):
            from rich.console import Console
            from rich.live import Live

            console = Console()
    if console is None:
        yield lambda h: print(h if isinstance(h, str) else panel_text(h), flush=True)
        return
    with Live(console=console, auto_refresh=False) as live:

        def draw(h: Any) -> None:
            live.update(_rich_panel(h), refresh=True)

        yield draw


#: How the panel shows each cell: covered, flag, and the hints' marks.
_CELL = {"covered": ".", "flag": "F", "safe": "+", "mine": "*", "guess": "?", "wrong": "x"}
_STYLE = {
    "safe": "bold white on green",
    "mine": "bold white on blue",
    "guess": "bold black on yellow",
    "wrong": "bold white on red",
}


def _marks(h: Hints) -> dict[int, str]:
    kinds = {c: "safe" for c in h.safe}
    kinds.update({c: "mine" for c in h.mines})
    kinds.update({c: "wrong" for c in h.wrong_flags})
    if h.best is not None:
        kinds[h.best] = "guess"
    return kinds


def _status(h: Hints) -> str:
    if h.problem:
        return h.problem
    w = h.read.position.width
    mines = f"{len(h.mines)} mine{'s' * (len(h.mines) != 1)} proven"
    if h.safe:
        return f"{len(h.safe)} safe, {mines}; {h.reason}".rstrip("; ")
    assert h.best is not None
    r, c = divmod(h.best, w)
    risk = "" if h.mine_probability is None else f", {100 * h.mine_probability:.1f}% a mine"
    return f"no safe cell: best guess ({r}, {c}){risk} ({h.reason}); {mines}"


def panel_text(h: Hints) -> str:
    """The hints as plain text: the board (+ safe, * mine, ? best guess, x wrong flag) and a
    line saying what they are."""
    p = h.read.position
    kinds = _marks(h)
    rows = []
    for r in range(p.height):
        row = []
        for c in range(p.width):
            cell = r * p.width + c
            s = p.states[cell]
            row.append(_CELL[kinds[cell]] if cell in kinds else "012345678.F"[s])
        rows.append("".join(row))
    return "\n".join([*rows, _status(h)])


def _rich_panel(h: Hints | str) -> Any:
    from rich.panel import Panel
    from rich.text import Text

    if isinstance(h, str):
        return Panel(Text(h), title="demine watch")
    p = h.read.position
    kinds = _marks(h)
    text = Text()
    for r in range(p.height):
        for c in range(p.width):
            cell = r * p.width + c
            if cell in kinds:
                text.append(_CELL[kinds[cell]] + " ", style=_STYLE[kinds[cell]])
            else:
                text.append("012345678.F"[p.states[cell]] + " ")
        text.append("\n")
    text.append(_status(h))
    return Panel(text, title="demine watch (q quits)")
