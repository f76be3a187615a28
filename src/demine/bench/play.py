"""Batch play: boards, seeds, executors and statistics.

Every game is seeded from the bench seed and its index alone (``"{seed}/{index}"`` for the layout,
``"{seed}/{index}/player"`` for the player's random choices), so

- two players given the same seed play the same boards (a paired comparison), and
- the results do not depend on how many processes play them (``jobs``).
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from demine.bench.stats import Summary, summarise
from demine.engine.formats import Board, GameRecord, MoveNote, start_for
from demine.engine.game import Game
from demine.engine.grid import default_start
from demine.errors import IllegalMove
from demine.players import PlayerSpec, find_solver

if TYPE_CHECKING:
    from demine.bench.cluster import Cluster


@dataclass(frozen=True, slots=True)
class GameSpec:
    """One game to play: a generated board (size, rule, seed) or a given layout."""

    index: int
    """Position in the run; also part of the seed."""
    width: int
    """Columns."""
    height: int
    """Rows."""
    mines: int
    """Number of mines."""
    rule: str
    """First-click rule."""
    start: int
    """The first click."""
    seed: str
    """The layout's seed (the player's is derived from it)."""
    layout: tuple[int, ...] | None = None
    """A fixed layout to replay instead of drawing one."""
    lives: int = 0
    """Mines the player may hit and play on (see :attr:`Game.lives`)."""
    no_guess: str | None = None
    """``complete`` or ``local``: a generated board is drawn guess-free from the start by that
    certificate (:func:`~demine.no_guess_game`); a given layout keeps what it says."""
    no_guess_mode: str = "auto"
    """How a guess-free board is drawn (``uniform``, ``dense`` or ``auto``)."""

    def game(self) -> Game:
        """A fresh game for this spec."""
        if self.layout is not None:
            g = Game.from_layout(self.width, self.height, self.layout, rule=self.rule, lives=self.lives)
            g.no_guess = self.no_guess
            return g
        if self.no_guess is not None:
            from demine.analysis.noguess import no_guess_game

            return no_guess_game(
                self.width,
                self.height,
                self.mines,
                rule=self.rule,
                seed=self.seed,
                certificate=self.no_guess,  # type: ignore[arg-type]
                mode=self.no_guess_mode,  # type: ignore[arg-type]
                lives=self.lives,
            )
        return Game(self.width, self.height, self.mines, rule=self.rule, seed=self.seed, lives=self.lives)


@dataclass(frozen=True, slots=True)
class GameResult:
    """How one game went."""

    index: int
    """The game's index in the run."""
    won: bool
    """Whether the player won."""
    moves: int
    """Moves made, the first click included."""
    guesses: int
    """Moves that were guesses (the first click not counted)."""
    ms: float
    """Wall time for the game, in milliseconds."""
    forced_found: int = 0
    """Cells the player proved at its decision points (when it reports them)."""
    forced_exact: int = 0
    """Cells the exact engine proves at the same decision points (when measured)."""
    game: dict[str, Any] | None = None
    """The whole game as a game record (layout, every move with the player's reason and risk),
    when asked for."""
    hits: int = 0
    """Mines hit and played on (games with lives)."""
    decide_ms: float | None = None
    """The player's own time in milliseconds: its decisions, without the game's (making the
    board, applying the moves); None in records made before it was kept."""

    def to_json(self) -> dict[str, Any]:
        """The record line for this game."""
        d = asdict(self)
        if d["game"] is None:
            del d["game"]
        if d["decide_ms"] is None:
            del d["decide_ms"]
        return d

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> GameResult:
        """A result from its record line (extra keys, such as the player, are ignored)."""
        return cls(
            index=int(obj["index"]),
            won=bool(obj["won"]),
            moves=int(obj["moves"]),
            guesses=int(obj["guesses"]),
            ms=float(obj["ms"]),
            forced_found=int(obj.get("forced_found", 0)),
            forced_exact=int(obj.get("forced_exact", 0)),
            game=obj.get("game"),
            hits=int(obj.get("hits", 0)),
            decide_ms=None if obj.get("decide_ms") is None else float(obj["decide_ms"]),
        )


def generated_specs(
    width: int,
    height: int,
    mines: int,
    rule: str,
    start: int | None,
    games: int,
    seed: int | str,
    lives: int = 0,
    no_guess: str | None = None,
    no_guess_mode: str = "auto",
) -> list[GameSpec]:
    """Specs for ``games`` fresh games drawn from ``seed`` (guess-free ones by the certificate
    ``no_guess``, when given)."""
    s = default_start(width, height, rule) if start is None else start
    return [
        GameSpec(i, width, height, mines, rule, s, f"{seed}/{i}", None, lives, no_guess, no_guess_mode)
        for i in range(games)
    ]


def board_specs(
    boards: Sequence[Board], seed: int | str, start: int | None = None, lives: int = 0
) -> list[GameSpec]:
    """Specs replaying ``boards`` (each board's own start unless ``start`` is given)."""
    return [
        GameSpec(
            i,
            b.width,
            b.height,
            b.mines,
            b.rule,
            start if start is not None else start_for(b),
            f"{seed}/{i}",
            b.mine_cells,
            lives,
            # guess-free only from the start it was certified from
            b.no_guess if start is None or start == start_for(b) else None,
        )
        for i, b in enumerate(boards)
    ]


def play_game(
    spec: GameSpec, player_name: str | PlayerSpec, measure_forced: bool = False, keep_record: bool = False
) -> GameResult:
    """Play one game to the end with a new player of that name (or made from that spec).

    With ``measure_forced`` the exact engine also analyses each decision point (outside the
    timing) and counts the cells it proves, for the share the player found. With ``keep_record``
    the result carries the whole game, each move noted with the player's reason and risk."""
    player = find_solver(player_name)
    label = str(player_name)
    rng = random.Random(f"{spec.seed}/player")
    t0 = time.perf_counter()
    game = spec.game()
    game.reveal(spec.start)
    notes: list[MoveNote | None] = [("start", None)]
    moves, guesses, forced, exact_forced = 1, 0, 0, 0
    excluded = 0.0
    deciding = 0.0  # (the player's own time)
    limit = 4 * game.width * game.height + 16
    while not game.over:
        position = game.position()
        if measure_forced:
            from demine.analysis import analyze

            t1 = time.perf_counter()
            a = analyze(position)
            exact_forced += len(a.safe) + len(a.mines)
            excluded += time.perf_counter() - t1
        t2 = time.perf_counter()
        decision = player.decide(position, rng)
        deciding += time.perf_counter() - t2
        before = len(game.moves)
        for i, mv in enumerate(decision.moves):
            n = len(game.moves)
            game.play(mv)
            if keep_record and len(game.moves) > n:
                if mv.kind == "flag":
                    notes.append((decision.reason, 1.0))
                elif i == 0:
                    notes.append((decision.reason, decision.mine_probability))
                else:
                    notes.append((decision.reason, 0.0 if not decision.guess else None))
            if game.over:
                break
        made = len(game.moves) - before
        if made == 0:
            raise IllegalMove(f"player {label!r} chose moves that change nothing: {decision.moves}")
        moves += made
        guesses += decision.guess
        forced += decision.forced or 0
        if moves > limit:
            raise IllegalMove(f"player {label!r} made over {limit} moves without ending the game")
    ms = (time.perf_counter() - t0 - excluded) * 1000.0
    record = GameRecord.from_game(game, notes).to_json() if keep_record else None
    return GameResult(
        spec.index, game.won, moves, guesses, ms, forced, exact_forced, record, game.hits, deciding * 1000.0
    )


def _play_chunk(args: tuple[list[GameSpec], str | PlayerSpec, bool, bool]) -> list[GameResult]:
    specs, name, measure, keep = args
    return [play_game(s, name, measure, keep) for s in specs]


def _pool_start(bench: int) -> None:
    """In a pool's worker: exit when the bench that started it is gone (a bench killed outright
    leaves no worker playing on), and ignore Ctrl-C, which a terminal sends to the whole process
    group: the bench stops its pool itself (:func:`run_games`). A worker interrupted inside the
    pool's queues could leave the bench waiting on them for ever (1 stop in 12 here)."""
    from demine._process import exit_with_parent

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent(bench)


def run_games(
    specs: Sequence[GameSpec],
    player_name: str | PlayerSpec,
    *,
    jobs: int = 1,
    chunk: int = 16,
    measure_forced: bool = False,
    keep_record: bool = False,
    executor: str | Cluster | None = None,
    start_method: str | None = None,
    on_notice: Callable[[str], None] | None = None,
) -> Iterator[GameResult]:
    """Play every spec. With ``jobs > 1`` games are played in a process pool, in chunks; with
    ``executor`` (``"dask://HOST:PORT"`` or a :class:`~demine.bench.cluster.Cluster`) the chunks
    go to an existing Dask cluster and results come back as chunks finish (a chunk lost with a
    worker is run again by Dask; :mod:`demine.bench.cluster`), and ``on_notice`` is told of
    what a person may want to fix there (a worker gone, none at all). Each game depends only on
    its own seed, so the results are the same whichever way they are played; locally they come
    in index order. ``start_method`` (``fork``, ``forkserver``, ``spawn``) is how the pool starts
    its processes (default: the platform's); a pool's workers exit when this process is gone."""
    find_solver(player_name)  # fail early on a bad name
    if not specs:
        return  # (nothing to play: no cluster is needed)
    chunks = [list(specs[i : i + chunk]) for i in range(0, len(specs), chunk)]
    tasks = [(c, player_name, measure_forced, keep_record) for c in chunks]
    if executor is not None:
        from demine.bench.cluster import Cluster, run_chunks

        cluster = Cluster.parse(executor) if isinstance(executor, str) else executor
        names = [f"games {c[0].index}-{c[-1].index}" for c in chunks]
        yield from run_chunks(cluster, _play_chunk, tasks, names, on_notice)
        return
    if jobs <= 1:
        for s in specs:
            yield play_game(s, player_name, measure_forced, keep_record)
        return
    context = multiprocessing.get_context(start_method) if start_method else None
    pool = ProcessPoolExecutor(
        max_workers=jobs, mp_context=context, initializer=_pool_start, initargs=(os.getpid(),)
    )
    try:
        for results in pool.map(_play_chunk, tasks):
            yield from results
    except BaseException:
        # stopped (Ctrl-C, a signal as Stopped, an error or a close of the caller's): the chunks
        # not begun are dropped, the few begun end, then the workers exit
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def bench(
    player: str | PlayerSpec,
    specs: Sequence[GameSpec],
    *,
    jobs: int = 1,
    on_result: Callable[[GameResult], None] | None = None,
    measure_forced: bool = False,
    keep_record: bool = False,
    executor: str | Cluster | None = None,
    done: Sequence[GameResult] = (),
    on_notice: Callable[[str], None] | None = None,
) -> tuple[Summary, list[GameResult]]:
    """Play ``specs`` with ``player``; returns the summary and the per-game results by index.

    ``done`` holds results already known (a resumed run): their games are not played again and
    they count in the summary."""
    have = {r.index for r in done}
    todo = [sp for sp in specs if sp.index not in have]
    wanted = {sp.index for sp in specs}
    results = [r for r in done if r.index in wanted]
    for r in run_games(
        todo,
        player,
        jobs=jobs,
        measure_forced=measure_forced,
        keep_record=keep_record,
        executor=executor,
        on_notice=on_notice,
    ):
        results.append(r)
        if on_result is not None:
            on_result(r)
    results.sort(key=lambda r: r.index)
    return summarise(str(player), specs, results), results
