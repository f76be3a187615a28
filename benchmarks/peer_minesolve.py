"""minesolve (C, MIT, Tobias Olsson) as a benchmark peer: its library plays demine's boards, paired
with demine's players on the same boards, in the same minutes.

Run: python benchmarks/peer_minesolve.py --games 2000 --depths 1,2 --players fast,best
     python benchmarks/peer_minesolve.py --games 400 --depths 3 --players best --round 100 --repeat 8
     python benchmarks/peer_minesolve.py --boards held-out.jsonl --depths 3 --cap 3=500
     python benchmarks/peer_minesolve.py --check-rules 200

The library is built with CMake from the peer's source (``--source``, default
``../shared/peers/minesolve`` beside the repository) into a cache folder outside the repository
(``--build``, default ``$XDG_CACHE_HOME/demine/minesolve-HASH``); without cmake or a C compiler the
script says so and stops. Its API (``include/minesolve.h``) is driven through ctypes: one
``MsBoard`` kept up to date with the cells demine's :class:`~demine.Game` opens, ``ms_solve`` at
each turn. The turn is that of its own ``--simulate``: when the move it returns has probability 0,
every cell of probability 0 is opened, else the move is a guess. demine's engine applies the moves,
so both sides play exactly the same layouts under the same rule from the same first click (the
boards of a ``--boards`` file, or ``--seed``/``--games`` drawn as ``demine bench`` draws them).

Rounds of ``--round`` boards alternate between the players, so their times come from the same
minutes of a shared machine. ``--repeat N`` plays the whole run N times over and takes, for each
of a game's times, its least over the runs (as ``timeit`` takes the least of its repeats): the
host's slow minutes slow a Python player more than the C peer (docs/research/minesolve.md), and this takes
them out of both. Outcomes are the first run's; a board a later run played otherwise is counted
(``boards_played_otherwise`` in the JSON), and its times come from the runs that played the same
game. Each run's own median ratio is printed beside the result (``run_median_ms_ratios`` and
``run_median_decide_ratios``); the median of the least times can lie outside their range. A
record file holds a line per board and run (a later run's lines carry ``repeat``, 1 for the
second), and a larger ``--repeat`` on the same folder plays only the runs it is missing.

``ms`` of a minesolve game is the time spent in ``ms_solve`` (pure C, called through ctypes); its
``wall_ms`` adds the Python that applies its moves. A demine game's ``ms`` is ``demine bench``'s
(the whole game: engine and player), and its ``decide_ms`` the player's decisions alone: the like
of minesolve's ``ms`` (each player's own time, without the engine both share), compared as well
("decisions only").

``--check-rules N`` checks on N boards that the peer plays under our rules: its first click on an
empty expert board is (0,0) like ours; at every decision point of its games its probabilities are
demine's exact ones (to 1e-9: the same total mine count and uniform layouts); and where demine's
``fast`` and minesolve depth 1 make the same guesses on a board, the outcome is the same.

``--record DIR`` keeps one record file per player (``demine bench --record`` lines, resumable: a
second run plays only the games missing); ``--plot FILE`` draws win rate against ms a game.
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
import os
import random
import shutil
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import peers
from demine.bench import GameResult, GameSpec, board_specs, generated_specs
from demine.bench.records import RecordLine, check_line, run_of
from demine.engine.formats import read_boards
from demine.engine.game import Game
from demine.engine.grid import PRESETS, default_start
from demine.errors import DemineError
from demine.players import PlayerSpec, find_solver
from peers import Played, pair, play_demine, print_pairs, print_table, run_rounds

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = ROOT.parent / "shared" / "peers" / "minesolve"
MAX_SQUARES = 1024  # MS_MAX_SQUARES in minesolve.h
MAX_DEPTH = 8
# MsStatus
MS_OK, MS_OK_FALLBACK, MS_ERR_COMPUTATIONAL_LIMIT = 0, 1, 2
STATUS_NAMES = (
    "OK",
    "OK_FALLBACK",
    "COMPUTATIONAL_LIMIT",
    "INTERNAL_LIMIT",
    "INVALID_BOARD",
    "INVALID_PARAM",
)


class PeerError(DemineError):
    """The peer cannot be built, loaded or played."""


class MsBoard(ctypes.Structure):
    """``MsBoard`` of minesolve.h (row-major cells, index = y * w + x)."""

    _fields_ = (
        ("w", ctypes.c_int32),
        ("h", ctypes.c_int32),
        ("mine_count", ctypes.c_int32),
        ("unrevealed_c", ctypes.c_int32),
        ("hint", ctypes.c_int32 * MAX_SQUARES),
        ("revealed", ctypes.c_bool * MAX_SQUARES),
        ("mines", ctypes.c_bool * MAX_SQUARES),
        ("wrapping", ctypes.c_bool),
    )


class MsResult(ctypes.Structure):
    """``MsResult`` of minesolve.h."""

    _fields_ = (("status", ctypes.c_int), ("move", ctypes.c_int32), ("p_loss", ctypes.c_double))


# ---------------------------------------------------------------------------------------- build
def tools_missing() -> list[str]:
    """The build tools that are not on PATH (cmake, make and a C compiler)."""
    missing = [t for t in ("cmake", "make") if shutil.which(t) is None]
    if not any(shutil.which(c) for c in ("cc", "gcc", "clang")):
        missing.append("a C compiler (gcc or clang)")
    return missing


def source_digest(source: Path) -> str:
    """A short hash of the peer's build inputs (its C sources, headers and CMakeLists.txt)."""
    h = hashlib.sha256()
    files = sorted([source / "CMakeLists.txt", *source.glob("include/*.h"), *source.glob("src/lib/*.[ch]")])
    for f in files:
        h.update(f.relative_to(source).as_posix().encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:12]


def default_build_dir(source: Path) -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "demine" / f"minesolve-{source_digest(source)}"


def build(source: Path, build_dir: Path | None = None, quiet: bool = True) -> Path:
    """``libminesolve.so`` built from ``source`` (reused when already built from the same sources)."""
    if not (source / "include" / "minesolve.h").is_file():
        raise PeerError(
            f"no minesolve source at {source} (its include/minesolve.h is missing); pass --source"
        )
    if build_dir is None:
        build_dir = default_build_dir(source)
    if build_dir.resolve().is_relative_to(ROOT):
        raise PeerError(f"build the peer outside the repository, not in {build_dir}")
    lib = build_dir / "libminesolve.so"
    if lib.is_file():
        return lib
    missing = tools_missing()
    if missing:
        raise PeerError(f"cannot build minesolve: {', '.join(missing)} not found")
    build_dir.mkdir(parents=True, exist_ok=True)
    out = subprocess.DEVNULL if quiet else None
    steps = [
        ["cmake", "-S", str(source), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release"],
        ["make", "-C", str(build_dir), "minesolve_shared"],
    ]
    for cmd in steps:
        done = subprocess.run(cmd, stdout=out, stderr=subprocess.PIPE, text=True, check=False)
        if done.returncode != 0:
            raise PeerError(f"{' '.join(cmd[:2])} failed:\n{done.stderr[-2000:]}")
    if not lib.is_file():
        raise PeerError(f"the build made no {lib}")
    return lib


# ---------------------------------------------------------------------------------------- play
class MineSolve:
    """The peer's library, loaded (one per process: it keeps its tables in globals)."""

    def __init__(self, lib_path: Path) -> None:
        lib = ctypes.CDLL(str(lib_path))
        lib.ms_board_init.argtypes = (
            ctypes.POINTER(MsBoard),
            ctypes.c_int32,
            ctypes.c_int32,
            ctypes.c_int32,
            ctypes.c_bool,
        )
        lib.ms_board_init.restype = None
        lib.ms_solve.argtypes = (
            ctypes.POINTER(MsBoard),
            ctypes.c_int32,
            ctypes.POINTER(MsResult),
            ctypes.POINTER(ctypes.c_double),
        )
        lib.ms_solve.restype = ctypes.c_int
        lib.ms_probabilities.argtypes = (ctypes.POINTER(MsBoard), ctypes.POINTER(ctypes.c_double))
        lib.ms_probabilities.restype = ctypes.c_int
        self.lib = lib
        self.board = MsBoard()
        self.result = MsResult()
        self.p = (ctypes.c_double * MAX_SQUARES)()

    def new_board(self, width: int, height: int, mines: int) -> None:
        """An empty board (every cell covered)."""
        if width * height > MAX_SQUARES:
            raise PeerError(f"minesolve plays boards of up to {MAX_SQUARES} cells, not {width}x{height}")
        self.lib.ms_board_init(ctypes.byref(self.board), width, height, mines, False)

    def opened(self, game: Game, cells: Sequence[int]) -> None:
        """Show the board the cells ``game`` just opened."""
        b, vis = self.board, game.visible
        for c in cells:
            b.revealed[c] = True
            b.hint[c] = vis[c]
        b.unrevealed_c -= len(cells)

    def solve(self, depth: int) -> tuple[int, int]:
        """``ms_solve`` at ``depth``: (status, move); the probabilities are in ``self.p``."""
        status = self.lib.ms_solve(ctypes.byref(self.board), depth, ctypes.byref(self.result), self.p)
        return int(status), int(self.result.move)

    def probabilities(self) -> list[float]:
        """``ms_probabilities`` of the current board."""
        status = self.lib.ms_probabilities(ctypes.byref(self.board), self.p)
        if status not in (MS_OK, MS_OK_FALLBACK):
            raise PeerError(f"ms_probabilities returned {STATUS_NAMES[status]}")
        n = self.board.w * self.board.h
        return list(self.p[:n])


@dataclass(slots=True)
class PeerGame:
    """One game of the peer."""

    result: GameResult
    """As demine's bench reports a game (``ms``: the time inside ``ms_solve``)."""
    wall_ms: float
    """The game's wall time, the Python that applies the moves included."""
    cpu_ms: float
    """The process's CPU time inside ``ms_solve`` (less disturbed by other processes than wall
    time on a shared machine)."""
    fallbacks: int
    """Turns where its search hit its budget and it fell back to the safest cell."""
    guesses: list[int]
    """The cells it guessed, in order."""


def play_peer(ms: MineSolve, spec: GameSpec, depth: int, on_turn: Any = None) -> PeerGame:
    """Play ``spec`` with minesolve at ``depth``, turn by turn as its ``--simulate`` does.
    ``on_turn(game)`` is called before each turn (for the rules check)."""
    t0 = time.perf_counter()
    game = spec.game()
    ms.new_board(spec.width, spec.height, spec.mines)
    ms.opened(game, game.reveal(spec.start))
    solve_s, cpu_s, moves, fallbacks = 0.0, 0.0, 1, 0
    guesses: list[int] = []
    n = spec.width * spec.height
    while not game.over:
        if on_turn is not None:
            on_turn(game)
        t1, c1 = time.perf_counter(), time.process_time()
        status, move = ms.solve(depth)
        solve_s += time.perf_counter() - t1
        cpu_s += time.process_time() - c1
        if status not in (MS_OK, MS_OK_FALLBACK):
            raise PeerError(f"game {spec.index}: ms_solve returned {STATUS_NAMES[status]}")
        fallbacks += status == MS_OK_FALLBACK
        if not 0 <= move < n or ms.board.revealed[move]:
            raise PeerError(f"game {spec.index}: ms_solve chose cell {move}, which is not covered")
        p = ms.p
        if p[move] == 0.0:
            for c in [c for c in range(n) if p[c] == 0.0 and not ms.board.revealed[c]]:
                opened = game.reveal(c)
                if game.outcome == "lost":
                    raise PeerError(
                        f"game {spec.index}: a mine at cell {c}, which minesolve gave probability 0"
                    )
                ms.opened(game, opened)
                moves += 1
                if game.over:
                    break
        else:
            guesses.append(move)
            ms.opened(game, game.reveal(move))
            moves += 1
    ms_ = solve_s * 1000.0
    wall = (time.perf_counter() - t0) * 1000.0
    result = GameResult(spec.index, game.won, moves, len(guesses), ms_, decide_ms=ms_)
    return PeerGame(result, wall, cpu_s * 1000.0, fallbacks, guesses)


# ---------------------------------------------------------------------------------------- players
@dataclass(frozen=True, slots=True)
class Contestant:
    """A player of the run: a minesolve depth or a demine player."""

    label: str
    """``minesolve-d2`` or the demine player's text (``fast``, ``best(depth=2)``)."""
    depth: int | None
    """The peer's search depth (None: a demine player)."""
    spec: PlayerSpec | None
    """The demine player (None: the peer)."""
    games: int
    """How many of the boards it plays (the first ones)."""


def contestants(
    depths: Sequence[int], players: Sequence[str], games: int, caps: dict[str, int]
) -> list[Contestant]:
    out = []
    for d in depths:
        label = f"minesolve-d{d}"
        out.append(Contestant(label, d, None, min(games, caps.get(str(d), caps.get(label, games)))))
    for text in players:
        spec = PlayerSpec.parse(text)
        label = str(spec)
        out.append(Contestant(label, None, spec, min(games, caps.get(label, games))))
    return out


def parse_caps(items: Sequence[str]) -> dict[str, int]:
    """``--cap 3=500 --cap best=2000``: a depth or a player, and its number of boards."""
    caps = {}
    for item in items:
        key, sep, value = item.rpartition("=")
        if not sep or not value.isdigit() or int(value) <= 0:
            raise SystemExit(f"--cap {item!r}: expected DEPTH=N or PLAYER=N with N > 0")
        caps[key.strip()] = int(value)
    return caps


def run(
    specs: Sequence[GameSpec],
    players: Sequence[Contestant],
    ms: MineSolve | None,
    round_size: int,
    record: Path | None,
    source_label: str,
    progress: bool,
    repeat: int = 1,
) -> dict[str, list[list[Played]]]:
    """Every contestant on its boards, in rounds that alternate between them, the whole of it
    ``repeat`` times over (:func:`peers.run_rounds`); a record of another run is refused."""
    by_index = {sp.index: sp for sp in specs}
    generated = source_label.startswith("seed:")

    def accept(c: Contestant, path: Path, line: RecordLine) -> None:
        if line.extra.get("boards") != source_label:
            raise SystemExit(f"{path}: its games are of {line.extra.get('boards')!r}, not {source_label!r}")
        try:
            # a line from before lines named their run is still checked by its boards
            # label where that says it all (a seed: expert, safe, the usual start)
            check_line(line, by_index, [c.label], str(path), unchecked_ok=generated)
        except DemineError as e:
            raise SystemExit(str(e)) from None

    def play(c: Contestant, sp: GameSpec) -> Played:
        return _play_one(ms, c, sp, source_label)

    return run_rounds(specs, players, play, round_size, record, accept, progress, repeat)


def _play_one(ms: MineSolve | None, c: Contestant, sp: GameSpec, source_label: str) -> Played:
    """One game of one contestant, with what its record line keeps beside the result."""
    extra: dict[str, Any] = {"boards": source_label, "run": run_of(sp)}
    if c.depth is not None:
        assert ms is not None
        g = play_peer(ms, sp, c.depth)
        extra |= {"wall_ms": round(g.wall_ms, 3), "fallbacks": g.fallbacks}
        extra["cpu_ms"] = round(g.cpu_ms, 3)
        return g.result, extra
    assert c.spec is not None
    return play_demine(sp, c.spec, extra)


# ---------------------------------------------------------------------------------------- report
def summary(label: str, games: Sequence[Played]) -> dict[str, Any]:
    out = peers.summary(label, games)
    if "wall_ms_mean" in out:
        out["fallback_games"] = sum(1 for _, e in games if e.get("fallbacks"))
    return out


def pairs(
    results: dict[str, list[Played]],
    players: Sequence[Contestant],
    runs: dict[str, list[list[Played]]] | None = None,
) -> list[dict[str, Any]]:
    """Each demine player against each minesolve depth, on the boards both played. With
    ``runs`` (more than one), also each run's own ratio of the median games (ms and decisions)."""
    out = []
    for a in (c for c in players if c.depth is None):
        for b in (c for c in players if c.depth is not None):
            each = (runs[a.label], runs[b.label]) if runs is not None else ((), ())
            out.append(pair(a.label, results[a.label], b.label, results[b.label], *each))
    return out


def print_report(rows: list[dict[str, Any]], prs: list[dict[str, Any]], rule: str, start: str) -> None:
    runs = max((r.get("runs", 1) for r in rows), default=1)
    print(
        f"rule {rule}, first click {start}; ms: a minesolve game's time in ms_solve, "
        "a demine game's whole time" + (f"; each board's fastest of {runs} runs" if runs > 1 else "")
    )
    print_table(rows)
    print_pairs(prs)


def plot(rows: list[dict[str, Any]], path: Path, title: str) -> None:
    """Win rate (95% CI) against mean ms a game, log scale; p99 as a faint marker."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit("--plot needs matplotlib: pip install 'demine[plot]'") from None
    fig, ax = plt.subplots(figsize=(8, 4.8), dpi=110)
    placed: list[Any] = []  # the labels' boxes so far, in display units
    for r in rows:
        peer = r["player"].startswith("minesolve")
        rate, (lo, hi) = 100 * r["win_rate"], r["ci95"]
        colour = "tab:orange" if peer else "tab:blue"
        ax.errorbar(
            r["ms_mean"],
            rate,
            yerr=[[rate - 100 * lo], [100 * hi - rate]],
            fmt="s" if peer else "o",
            color=colour,
            capsize=3,
        )
        ax.plot([r["ms_median"], r["ms_p99"]], [rate, rate], color=colour, alpha=0.3, lw=4)
    ax.set_xscale("log")
    ax.set_xlabel("ms a game (marker: mean; band: median to p99)")
    ax.set_ylabel("win rate, % (95% CI)")
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.set_xlim(*ax.get_xlim())  # the scale and layout are final: labels are placed on them
    ax.set_ylim(*ax.get_ylim())
    fig.tight_layout()
    for r in rows:
        at = (r["ms_mean"], 100 * r["win_rate"])
        text = f"{r['player']} ({r['games']:,})"
        placed.append(_label(fig, ax, text, at, r["player"].startswith("minesolve"), placed))
    fig.savefig(path)
    plt.close(fig)


def _label(fig: Any, ax: Any, text: str, at: tuple[float, float], peer: bool, placed: list[Any]) -> Any:
    """Write ``text`` beside the point ``at``, inside the axes, where it overlaps no label placed
    before (the peer's labels first below the point, demine's above); its box, for ``placed``."""
    east, west = "left", "right"  # (the text's alignment: it starts, or ends, at the point)
    tries = [(5, -11, east), (5, 5, east), (-5, -11, west), (-5, 5, west), (5, -22, east), (5, 16, east)]
    if not peer:
        tries[0], tries[1] = tries[1], tries[0]
    for dx, dy, align in tries:
        note = ax.annotate(text, at, xytext=(dx, dy), textcoords="offset points", fontsize=8, ha=align)
        box = note.get_window_extent(renderer=fig.canvas.get_renderer())
        inside = (
            ax.bbox.x0 <= box.x0 and box.x1 <= ax.bbox.x1 and ax.bbox.y0 <= box.y0 and box.y1 <= ax.bbox.y1
        )
        if inside and not any(box.overlaps(other) for other in placed):
            return box
        note.remove()
    dx, dy, align = tries[0]  # (no free place: the first, overlapping)
    note = ax.annotate(text, at, xytext=(dx, dy), textcoords="offset points", fontsize=8, ha=align)
    return note.get_window_extent(renderer=fig.canvas.get_renderer())


# ---------------------------------------------------------------------------------------- rules
def check_rules(ms: MineSolve, specs: Sequence[GameSpec]) -> dict[str, Any]:
    """The peer plays under our rules: its first click, its probabilities, its outcomes."""
    from demine.analysis import analyze

    sp0 = specs[0]
    ms.new_board(sp0.width, sp0.height, sp0.mines)
    _, first = ms.solve(1)
    worst, positions = 0.0, 0

    def compare(game: Game) -> None:
        nonlocal worst, positions
        a = analyze(game.position())
        if a.approximate:
            return
        theirs = ms.probabilities()
        for c, v in enumerate(game.visible):
            if v == 9:  # covered
                worst = max(worst, abs(float(a.p(c)) - theirs[c]))
        positions += 1

    same, differ, agree = 0, 0, 0
    for sp in specs:
        g = play_peer(ms, sp, 1, compare)
        ours, our_guesses = _play_guesses(sp, "fast")
        if our_guesses == g.guesses:
            same += 1
            agree += ours == g.result.won
        else:
            differ += 1
    return {
        "boards": len(specs),
        "first_click": first,
        "start": sp0.start,
        "positions_compared": positions,
        "max_probability_difference": worst,
        "boards_same_guesses": same,
        "same_outcome_there": agree,
        "boards_other_guesses": differ,
    }


def _play_guesses(spec: GameSpec, name: str) -> tuple[bool, list[int]]:
    """A demine player's game on ``spec``: won, and the cells it guessed."""
    player = find_solver(name)
    rng = random.Random(f"{spec.seed}/player")
    game = spec.game()
    game.reveal(spec.start)
    guesses = []
    while not game.over:
        d = player.decide(game.position(), rng)
        if d.guess:
            guesses.append(d.moves[0].cell)
        for mv in d.moves:
            game.play(mv)
            if game.over:
                break
    return game.won, guesses


# ---------------------------------------------------------------------------------------- main
def board_set(ns: argparse.Namespace) -> tuple[list[GameSpec], str]:
    if ns.boards:
        try:
            boards = read_boards(ns.boards)
        except (OSError, DemineError) as e:
            raise SystemExit(f"--boards {ns.boards}: {e}") from None
        if not boards:
            raise SystemExit(f"--boards {ns.boards}: no boards in the file")
        return board_specs(
            boards[: ns.games] if ns.games else boards, ns.seed
        ), f"file:{Path(ns.boards).name}"
    p = PRESETS["expert"]
    start = default_start(p.width, p.height, "safe")
    return generated_specs(
        p.width, p.height, p.mines, "safe", start, ns.games or 1000, ns.seed
    ), f"seed:{ns.seed}"


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--boards", help="a board file to play (default: expert, safe, (0,0), drawn from --seed)")
    ap.add_argument(
        "--games", type=int, default=None, help="boards to play (default 1000; with --boards all)"
    )
    ap.add_argument("--seed", default="peer", help="the run's seed (default: peer)")
    ap.add_argument(
        "--depths", default="1,2", help="minesolve search depths, 1-8 (default: 1,2; '' for none)"
    )
    ap.add_argument("--players", default="fast,best", help="demine players (default: fast,best; '' for none)")
    ap.add_argument(
        "--cap", action="append", default=[], metavar="WHO=N", help="play only the first N boards (3=500)"
    )
    peers.add_run_options(ap)
    ap.add_argument("--json", type=Path, help="write the summaries and pairs to FILE")
    ap.add_argument("--plot", type=Path, help="draw win rate against ms a game to FILE (.png or .svg)")
    ap.add_argument(
        "--check-rules", type=int, default=0, metavar="N", help="check the peer's rules on N boards"
    )
    ap.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="minesolve's source folder")
    ap.add_argument("--build", type=Path, help="where to build it (default: a cache folder)")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    ns = ap.parse_args(argv)
    peers.check_run_options(ns)
    depths = [int(d) for d in ns.depths.split(",") if d.strip()]
    if any(not 1 <= d <= MAX_DEPTH for d in depths):
        raise SystemExit(f"--depths: each depth lies in 1-{MAX_DEPTH}, got {ns.depths!r}")
    from demine.players import split_players

    try:
        players = contestants(depths, split_players(ns.players), 10**9, parse_caps(ns.cap))
    except DemineError as e:
        raise SystemExit(f"--players: {e}") from None
    specs, source_label = board_set(ns)
    players = [Contestant(c.label, c.depth, c.spec, min(c.games, len(specs))) for c in players]
    try:
        ms = MineSolve(build(ns.source, ns.build)) if depths or ns.check_rules else None
    except (PeerError, OSError) as e:
        raise SystemExit(str(e)) from None
    load = os.getloadavg()
    print(f"{len(specs)} boards ({source_label}); load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    out: dict[str, Any] = {"boards": source_label, "load_before": load}
    if ns.check_rules:
        assert ms is not None
        rules = check_rules(ms, specs[: ns.check_rules])
        out["rules"] = rules
        print(
            f"rules check on {rules['boards']} boards: first click {rules['first_click']} "
            f"(ours {rules['start']}); "
            f"{rules['positions_compared']} positions, largest probability difference "
            f"{rules['max_probability_difference']:.2g}; "
            f"same guesses on {rules['boards_same_guesses']} boards, "
            f"same outcome on {rules['same_outcome_there']} of them"
        )
    if players:
        runs = run(specs, players, ms, ns.round, ns.record, source_label, not ns.quiet, ns.repeat)
        results, rows = peers.fastest_rows([c.label for c in players], runs, summary)
        prs = pairs(results, players, runs)
        sp0 = specs[0]
        r0, c0 = divmod(sp0.start, sp0.width)
        print_report(rows, prs, sp0.rule, f"({r0},{c0})")
        load = os.getloadavg()
        print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
        out |= {"players": rows, "pairs": prs, "load_after": load}
        if ns.plot:
            plot(rows, ns.plot, f"expert 30x16/99, rule {sp0.rule}, first click ({r0},{c0}); {source_label}")
    if ns.json:
        ns.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
