"""JSMinesweeper (D. N. Hill's JavaScript solver, MIT) from Python: one child Node process that
serves many games and positions, and a position oracle for research.

The child runs ``benchmarks/jsm_driver.js`` (demine's harness), which reads JSMinesweeper's
scripts from its folder (``source``, default ``../shared/peers/jsminesweeper`` beside the
repository) at start; none of its code is in demine. It starts once (building JSMinesweeper's
130 MB binomial table takes about 1.2 s on an idle machine) and then answers JSON lines. A request
that passes its time limit (the child's CPU time for it, where /proc tells it: :class:`Budget`)
kills the child; the next request starts a new one.

The oracle::

    from jsm_peer import JSMOracle           # (with benchmarks/ on sys.path)
    with JSMOracle() as jsm:
        d = jsm.decide(position)             # a demine Position with its mine count
        d.move                               # JSMMove(cell=..., kind="reveal", safety=0.85) or None
        d.mine_probability                   # {covered cell: chance of a mine}, as JSM computed it

``decide`` asks JSMinesweeper's solver for its move as its page's analysis does in the no-flags
play style (flags trusted as mines unless ``trust_flags=False``, when they are left out as covered
cells). Its probabilities are its probability engine's exact counts divided to 8 decimals,
rounded down (``divideBigInt(..., 8)`` in its ``solver_probability_engine.js``): they differ from
demine's exact ones by less than 1e-8, not 1e-12.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from demine.bench import GameResult, GameSpec
from demine.engine.game import Game
from demine.engine.position import COVERED, FLAG, Position
from demine.errors import DemineError

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = ROOT.parent / "shared" / "peers" / "jsminesweeper"
DRIVER = Path(__file__).resolve().with_name("jsm_driver.js")
#: The file the driver loads first: a folder without it is not JSMinesweeper's.
SOLVER_FILE = "Minesweeper/client/solver_main.js"


class PeerError(DemineError):
    """JSMinesweeper cannot be found, started or played, or it played otherwise than our rules."""


class PeerTimeout(PeerError):
    """A request passed its time limit (the child was killed)."""

    def __init__(self, message: str, wall_seconds: float, cpu_seconds: float | None) -> None:
        super().__init__(message)
        self.wall_seconds = wall_seconds
        """The request's wall time when it was killed."""
        self.cpu_seconds = cpu_seconds
        """The child's CPU time for it by then (None where /proc does not tell it)."""


#: A request may take this many times its limit of wall time, and a second more, when the limit
#: is on CPU time (a child that waits spends none; the second lets a tiny limit be read in ticks).
WALL_BACKSTOP = 10.0


def cpu_seconds(pid: int) -> float | None:
    """A process's CPU time so far, user and system, from ``/proc/PID/stat`` (Linux); None where
    it cannot be read."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        fields = stat[stat.rindex(")") + 2 :].split()  # (after the program's name, which may hold spaces)
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


class Budget:
    """A request's time limit: ``seconds`` of the child's CPU time where ``/proc`` tells it (a
    loaded machine stretches a game's wall time, not its CPU time; read in clock ticks, 10 ms
    here), else of wall time; with a CPU limit, :data:`WALL_BACKSTOP` times as much wall time
    and a second ends a request too."""

    def __init__(self, pid: int | None, seconds: float) -> None:
        self.pid = pid
        self.seconds = seconds
        self.t0 = time.monotonic()
        self.cpu0 = None if pid is None else cpu_seconds(pid)

    def used(self) -> tuple[float, float | None]:
        """The wall time and the child's CPU time since the request (None: not known)."""
        wall = time.monotonic() - self.t0
        now = None if self.pid is None or self.cpu0 is None else cpu_seconds(self.pid)
        return wall, None if now is None or self.cpu0 is None else now - self.cpu0

    def passed(self) -> bool:
        wall, cpu = self.used()
        if cpu is None:
            return wall > self.seconds
        return cpu > self.seconds or wall > WALL_BACKSTOP * self.seconds + 1.0

    def wait(self) -> float:
        """How long to wait for the answer before looking at the time again."""
        if self.cpu0 is None:
            return max(0.0, self.seconds - (time.monotonic() - self.t0))
        return min(0.25, max(self.seconds / 4, 0.005))

    def __str__(self) -> str:
        kind = "wall" if self.cpu0 is None else "CPU"
        return f"{self.seconds:g} s of {kind} time"


def find_node() -> str | None:
    """The ``node`` program on PATH, or None."""
    return shutil.which("node")


def check_source(source: Path) -> Path:
    """``source`` if it holds JSMinesweeper's solver, else :class:`PeerError` naming the folder."""
    if not (source / SOLVER_FILE).is_file():
        raise PeerError(f"no JSMinesweeper at {source} (its {SOLVER_FILE} is missing); pass --source")
    return source


def source_digest(source: Path) -> str:
    """A short hash of JSMinesweeper's scripts (a record made with other scripts is another
    peer's)."""
    h = hashlib.sha256()
    for f in sorted(source.glob("Minesweeper/**/*.js")):
        h.update(f.relative_to(source).as_posix().encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:12]


# ---------------------------------------------------------------------------------------- child
class NodeSolver:
    """The child Node process, started at the first request and again after a kill."""

    def __init__(self, source: Path = DEFAULT_SOURCE, node: str | None = None, start_seconds: float = 120.0):
        self.source = check_source(Path(source))
        found = node or find_node()
        if found is None:
            raise PeerError("JSMinesweeper runs under Node: no `node` on PATH (apt-get install nodejs)")
        self.node = found
        self.start_seconds = start_seconds
        self.startup_ms: list[float] = []
        """Each start's own time to build its tables, as the child measured it."""
        self.kills = 0
        """Children killed for passing a time limit."""
        self.node_version = ""
        self._proc: subprocess.Popen[bytes] | None = None
        self._err: IO[bytes] | None = None
        self._buf = bytearray()
        self._finalizer: weakref.finalize[Any, Any] | None = None

    # ------------------------------------------------------------------ life
    def start(self) -> None:
        """Start the child (if none runs) and wait until it is ready."""
        if self._proc is not None:
            return
        # its stderr, read when it fails (kept open while it runs; no file is left)
        self._err = tempfile.TemporaryFile()  # noqa: SIM115
        self._proc = subprocess.Popen(
            [self.node, str(DRIVER), str(self.source)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._err,
        )
        self._finalizer = weakref.finalize(self, _end, self._proc)
        self._buf.clear()
        try:
            ready = self._read(Budget(None, self.start_seconds), "start")
        except PeerTimeout:
            raise PeerError(f"JSMinesweeper did not start within {self.start_seconds:g} s") from None
        if not ready.get("ready"):
            self.close()
            raise PeerError(f"JSMinesweeper did not start: {ready.get('error', ready)}")
        self.startup_ms.append(float(ready["startup_ms"]))
        self.node_version = str(ready.get("node", ""))

    def close(self) -> None:
        """End the child (it ends on its own when its input closes; killed after 5 s)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.stdin is not None:
            with contextlib.suppress(OSError):
                proc.stdin.close()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        if self._finalizer is not None:
            self._finalizer.detach()
        if self._err is not None:
            self._err.close()
            self._err = None

    def kill(self) -> None:
        """Kill the child now (its request passed its time)."""
        proc = self._proc
        if proc is not None:
            proc.kill()
            proc.wait()
        self.close()

    def __enter__(self) -> NodeSolver:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # ------------------------------------------------------------------ requests
    def request(self, message: dict[str, Any], seconds: float | None = None) -> dict[str, Any]:
        """Send one request and return its answer. Past ``seconds`` (the child's CPU time for
        it, see :class:`Budget`; a start is not counted), the child is killed and
        :class:`PeerTimeout` raised; an answer with ``ok`` false raises :class:`PeerError` with
        its message."""
        self.start()
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        budget = None if seconds is None else Budget(proc.pid, seconds)
        try:
            proc.stdin.write(json.dumps(message).encode() + b"\n")
            proc.stdin.flush()
        except OSError:
            raise PeerError(f"JSMinesweeper's process ended: {self._stderr_tail()}") from None
        answer = self._read(budget, str(message.get("op")))
        if not answer.get("ok"):
            raise PeerError(f"JSMinesweeper could not {message.get('op')}: {answer.get('error')}")
        return answer

    def _read(self, budget: Budget | None, what: str) -> dict[str, Any]:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        fd = proc.stdout.fileno()
        while (end := self._buf.find(b"\n")) < 0:
            if budget is not None and budget.passed():
                wall, cpu = budget.used()
                self.kill()
                self.kills += budget.pid is not None  # (a request's limit, not a start's)
                raise PeerTimeout(f"JSMinesweeper's {what} passed its limit, {budget}", wall, cpu)
            ready, _, _ = select.select([fd], [], [], None if budget is None else budget.wait())
            if not ready:
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                tail = self._stderr_tail()
                self.close()
                raise PeerError(f"JSMinesweeper's process ended during its {what}: {tail}")
            self._buf += chunk
        line = bytes(self._buf[:end])
        del self._buf[: end + 1]
        try:
            answer = json.loads(line)
        except json.JSONDecodeError:
            raise PeerError(f"JSMinesweeper's driver wrote a line that is not JSON: {line[:200]!r}") from None
        if not isinstance(answer, dict):
            raise PeerError(f"JSMinesweeper's driver wrote {line[:200]!r}, not an object")
        return answer

    def _stderr_tail(self) -> str:
        if self._err is None:
            return "(no error output)"
        self._err.seek(0)
        text = self._err.read().decode(errors="replace").strip()
        return text[-1500:] or "(no error output)"


def _end(proc: subprocess.Popen[bytes]) -> None:
    """Kill a child left running (the object that owned it was dropped without close())."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()


# ---------------------------------------------------------------------------------------- oracle
@dataclass(frozen=True, slots=True)
class JSMMove:
    """One action of JSMinesweeper's answer."""

    cell: int
    """The cell (row-major)."""
    kind: str
    """``reveal``, ``flag`` or ``chord``."""
    safety: float
    """Its chance that the cell is safe, as it gave it (1 for a proven safe cell)."""


@dataclass(frozen=True, slots=True)
class JSMDecision:
    """JSMinesweeper's answer for a position."""

    moves: tuple[JSMMove, ...]
    """Every action it returned, its chosen one first (empty: it found nothing to play)."""
    mine_probability: dict[int, float]
    """For each covered cell it set one on, its chance of a mine (1 - its safety)."""
    message: str
    """The line its page would show with the move, which says why (``Tile (15,14) is an
    unavoidable 50/50 guess, or safe.``: it takes a guess it cannot avoid before the safe cells)."""
    ms: float
    """Its time for the answer, in the child (board set-up included)."""

    @property
    def move(self) -> JSMMove | None:
        """The move it would play, or None."""
        return self.moves[0] if self.moves else None


class JSMOracle:
    """JSMinesweeper's solver as an oracle: :meth:`decide` on demine positions, one Node process
    for every call (close it, or use ``with``)."""

    def __init__(
        self, source: Path | str = DEFAULT_SOURCE, *, node: str | None = None, seconds: float | None = None
    ) -> None:
        self.solver = NodeSolver(Path(source), node)
        self.seconds = seconds
        """Each call's time limit (None: none); past it :class:`PeerTimeout`."""

    def decide(self, position: Position, *, trust_flags: bool = True, seed: str = "oracle") -> JSMDecision:
        """JSMinesweeper's move in ``position`` (it needs the total mine count). ``seed`` seeds
        the ``Math.random`` its brute-force cache hashes with, so that a call is repeatable."""
        if position.mines is None:
            raise PeerError("JSMinesweeper needs the position's total mine count")
        answer = self.solver.request(
            {
                "op": "decide",
                "width": position.width,
                "height": position.height,
                "mines": position.mines,
                "states": list(position.states),
                "trust_flags": trust_flags,
                "seed": seed,
            },
            self.seconds,
        )
        moves = tuple(JSMMove(int(c), str(k), float(s)) for c, k, s in answer["moves"])
        shown = (COVERED,) if trust_flags else (COVERED, FLAG)  # (the cells it was shown covered)
        probs = {
            c: 1.0 - float(s)
            for c, s in enumerate(answer["safety"])
            if s is not None and position.states[c] in shown
        }
        return JSMDecision(moves, probs, str(answer["message"]), float(answer["ms"]))

    def close(self) -> None:
        self.solver.close()

    def __enter__(self) -> JSMOracle:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


# ---------------------------------------------------------------------------------------- games
@dataclass(slots=True)
class JSMGame:
    """One game of JSMinesweeper on a demine board, replayed in demine's :class:`Game`."""

    result: GameResult
    """As demine's bench reports a game: ``ms`` its whole game in Node (its game and its solver,
    as a demine game's ``ms`` is engine and player), ``decide_ms`` the time in its solver alone."""
    status: str
    """``won``, ``lost``, ``stuck`` (it found no move) or ``timeout`` (killed at the limit)."""
    clicks: list[int]
    """Every cell it opened, the first click first."""
    guesses: list[int]
    """The cells it opened with a safety below 1."""
    calls: int
    """Calls of its solver."""
    cpu_ms: float | None
    """The child's CPU time for the game (at the time limit: as /proc told it, or None)."""
    wall_ms: float
    """The game's wall time seen from Python (the request, the answer and demine's replay)."""
    lost_on_safe: bool
    """It lost on a cell it gave safety 1 (a peer's bug: never seen)."""
    ignored: dict[str, int]
    """Flags and chords it asked for (in the no-flags style it asks for none; not played)."""
    warnings: list[str]
    """What it wrote to its console as warnings or errors."""


#: What the rules check watches as a traced game is replayed: ``(game before JSM's call, its
#: safeties)`` at each call, and ``(game, cell, cells demine opened, [[cell, number], ...] JSM
#: saw)`` at each click.
OnCall = Callable[[Game, Sequence[float | None]], None]
OnClick = Callable[[Game, int, list[int], list[list[int]]], None]


def play(
    solver: NodeSolver,
    spec: GameSpec,
    seconds: float | None,
    on_call: OnCall | None = None,
    on_click: OnClick | None = None,
) -> JSMGame:
    """JSMinesweeper plays ``spec``: demine draws the layout at the first click (``spec.game()``,
    as ``demine bench`` does), the child's game is given those mines and played by its solver
    as its own bulk play does, and demine's :class:`Game` replays every click it made: the
    outcome is demine's, checked against its own (:class:`PeerError` if they differ). With
    ``on_call``/``on_click``, the child also sends what its solver saw (see :data:`OnCall`).
    Past ``seconds`` (the child's CPU time: :class:`Budget`) the child is killed and the game is
    a loss (``status`` ``timeout``; its ``ms`` the wall time it had run)."""
    solver.start()  # (a start after a kill is not the game's time)
    t0 = time.perf_counter()
    game = spec.game()
    game.reveal(spec.start)
    request = {
        "op": "play",
        "width": spec.width,
        "height": spec.height,
        "mines": game.mine_cells(),
        "start": spec.start,
        "seed": spec.seed,
        "trace": on_call is not None or on_click is not None,
    }
    try:
        answer = solver.request(request, seconds)
    except PeerTimeout as e:
        ms = (time.perf_counter() - t0) * 1000.0
        cpu = None if e.cpu_seconds is None else e.cpu_seconds * 1000.0
        r = GameResult(spec.index, False, 0, 0, ms, decide_ms=ms)
        return JSMGame(r, "timeout", [], [], 0, cpu, ms, False, {}, [])
    replay = spec.game()
    steps = answer.get("trace") or [{"safety": None, "clicks": [[c, None] for c in answer["clicks"]]}]
    where = f"board {spec.index}"
    for step in steps:
        if on_call is not None and step["safety"] is not None:
            on_call(replay, step["safety"])
        for cell, seen in step["clicks"]:
            if replay.over:
                raise PeerError(f"{where}: JSMinesweeper clicked {cell} after the game had ended")
            opened = replay.reveal(cell)
            if on_click is not None and seen is not None:
                on_click(replay, cell, opened, seen)
    status = str(answer["status"])
    if (status, replay.outcome) not in (("won", "won"), ("lost", "lost"), ("stuck", "playing")):
        raise PeerError(
            f"{where}: JSMinesweeper's own game ended {status}, "
            f"demine's replay of its clicks {replay.outcome}"
        )
    clicks = [int(c) for c in answer["clicks"]]
    if clicks[:1] != [spec.start]:
        raise PeerError(f"{where}: its first click was {clicks[:1]}, not the board's start {spec.start}")
    guessed = [int(i) for i in answer["guesses"]]
    lost_on_safe = replay.outcome == "lost" and len(clicks) > 1 and len(clicks) - 1 not in guessed
    r = GameResult(
        spec.index,
        replay.won,
        len(clicks),
        len(guessed),
        float(answer["game_ms"]),
        decide_ms=float(answer["solve_ms"]),
    )
    wall = (time.perf_counter() - t0) * 1000.0
    return JSMGame(
        r,
        status,
        clicks,
        [clicks[i] for i in guessed],
        int(answer["calls"]),
        float(answer["cpu_ms"]),
        wall,
        lost_on_safe,
        dict(answer["ignored"]),
        list(answer["warnings"]),
    )
