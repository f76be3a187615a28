"""Batch play: boards, seeds, executors and statistics.

Every game is seeded from the bench seed and its index alone (``"{seed}/{index}"`` for the layout,
``"{seed}/{index}/player"`` for the player's random choices), so

- two players given the same seed play the same boards (a paired comparison), and
- the results do not depend on how many processes play them (``jobs``).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

from demine.engine.formats import Board, GameRecord, MoveNote, start_for
from demine.engine.game import Game
from demine.engine.grid import default_start
from demine.errors import DemineError, IllegalMove, InputError
from demine.players import find_solver


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

    def game(self) -> Game:
        """A fresh game for this spec."""
        if self.layout is not None:
            return Game.from_layout(self.width, self.height, self.layout, rule=self.rule, lives=self.lives)
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

    def to_json(self) -> dict[str, Any]:
        """The record line for this game."""
        d = asdict(self)
        if d["game"] is None:
            del d["game"]
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
) -> list[GameSpec]:
    """Specs for ``games`` fresh games drawn from ``seed``."""
    s = default_start(width, height, rule) if start is None else start
    return [GameSpec(i, width, height, mines, rule, s, f"{seed}/{i}", None, lives) for i in range(games)]


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
        )
        for i, b in enumerate(boards)
    ]


def play_game(
    spec: GameSpec, player_name: str, measure_forced: bool = False, keep_record: bool = False
) -> GameResult:
    """Play one game to the end with a new player of that name.

    With ``measure_forced`` the exact engine also analyses each decision point (outside the
    timing) and counts the cells it proves, for the share the player found. With ``keep_record``
    the result carries the whole game, each move noted with the player's reason and risk."""
    player = find_solver(player_name)
    rng = random.Random(f"{spec.seed}/player")
    t0 = time.perf_counter()
    game = spec.game()
    game.reveal(spec.start)
    notes: list[MoveNote | None] = [("start", None)]
    moves, guesses, forced, exact_forced = 1, 0, 0, 0
    excluded = 0.0
    limit = 4 * game.width * game.height + 16
    while not game.over:
        position = game.position()
        if measure_forced:
            from demine.analysis import analyze

            t1 = time.perf_counter()
            a = analyze(position)
            exact_forced += len(a.safe) + len(a.mines)
            excluded += time.perf_counter() - t1
        decision = player.decide(position, rng)
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
            raise IllegalMove(f"player {player_name!r} chose moves that change nothing: {decision.moves}")
        moves += made
        guesses += decision.guess
        forced += decision.forced or 0
        if moves > limit:
            raise IllegalMove(f"player {player_name!r} made over {limit} moves without ending the game")
    ms = (time.perf_counter() - t0 - excluded) * 1000.0
    record = GameRecord.from_game(game, notes).to_json() if keep_record else None
    return GameResult(spec.index, game.won, moves, guesses, ms, forced, exact_forced, record, game.hits)


def _play_chunk(args: tuple[list[GameSpec], str, bool, bool]) -> list[GameResult]:
    specs, name, measure, keep = args
    return [play_game(s, name, measure, keep) for s in specs]


def run_games(
    specs: Sequence[GameSpec],
    player_name: str,
    *,
    jobs: int = 1,
    chunk: int = 16,
    measure_forced: bool = False,
    keep_record: bool = False,
    executor: str | None = None,
) -> Iterator[GameResult]:
    """Play every spec. With ``jobs > 1`` games are played in a process pool, in chunks; with
    ``executor="dask://HOST:PORT"`` the chunks go to an existing Dask cluster and results come back
    as chunks finish (a chunk lost with a worker is run again by Dask). Each game depends only on
    its own seed, so the results are the same whichever way they are played; locally they come in
    index order."""
    find_solver(player_name)  # fail early on a bad name
    if executor is not None:
        chunks = [list(specs[i : i + chunk]) for i in range(0, len(specs), chunk)]
        yield from _run_dask(executor, [(c, player_name, measure_forced, keep_record) for c in chunks])
        return
    if jobs <= 1:
        for s in specs:
            yield play_game(s, player_name, measure_forced, keep_record)
        return
    chunks = [list(specs[i : i + chunk]) for i in range(0, len(specs), chunk)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for results in pool.map(_play_chunk, [(c, player_name, measure_forced, keep_record) for c in chunks]):
            yield from results


def _run_dask(executor: str, tasks: list[tuple[list[GameSpec], str, bool, bool]]) -> Iterator[GameResult]:
    """Play chunks on a Dask cluster; yields each chunk's results as it finishes."""
    if not executor.startswith("dask://") or len(executor) <= len("dask://"):
        raise InputError(f"--executor takes dask://HOST:PORT, got {executor!r}")
    try:
        from dask.distributed import Client, as_completed
    except ImportError:
        raise DemineError("the dask executor needs Dask: pip install 'demine[dask]'") from None
    address = "tcp://" + executor[len("dask://") :]
    try:
        client = Client(address, timeout="5s")  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError) as e:
        raise DemineError(f"cannot reach the Dask scheduler at {address}: {e}") from None
    with client:
        futures = client.map(_play_chunk, tasks, pure=False)
        for future in as_completed(futures):  # type: ignore[no-untyped-call]
            yield from future.result()


def wilson(wins: int, games: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval for a proportion (95% by default).

    >>> lo, hi = wilson(50, 100)
    >>> round(lo, 4), round(hi, 4)
    (0.4038, 0.5962)
    """
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    lo = 0.0 if wins == 0 else max(0.0, centre - half)
    hi = 1.0 if wins == games else min(1.0, centre + half)
    return (lo, hi)


@dataclass(frozen=True, slots=True)
class Summary:
    """The outcome of a bench run for one player."""

    player: str
    """The player's name."""
    games: int
    """Games played."""
    wins: int
    """Games won."""
    rule: str
    """First-click rule."""
    start: str
    """The start cell as ``R,C`` (or ``per board``)."""
    ms_per_game: float
    """Mean wall time per game."""
    guesses_per_game: float
    """Mean number of guesses per game."""
    forced_share: float | None = None
    """Cells the player proved over cells the exact engine proved, at the player's decision
    points (when measured)."""
    lives: int = 0
    """Lives per game (0: the first mine hit loses)."""
    hits_per_game: float = 0.0
    """Mean mines hit and played on per game (with lives)."""
    moves_per_game: float = 0.0
    """Mean moves per game."""

    @property
    def win_rate(self) -> float:
        """wins / games."""
        return self.wins / self.games if self.games else 0.0

    @property
    def ci95(self) -> tuple[float, float]:
        """Wilson 95% interval of the win rate."""
        return wilson(self.wins, self.games)

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` object."""
        lo, hi = self.ci95
        return {
            "player": self.player,
            "games": self.games,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "ci95": [lo, hi],
            "rule": self.rule,
            "start": self.start,
            "ms_per_game": self.ms_per_game,
            "guesses_per_game": self.guesses_per_game,
            **({"forced_share": self.forced_share} if self.forced_share is not None else {}),
            **({"lives": self.lives, "hits_per_game": self.hits_per_game} if self.lives else {}),
            "moves_per_game": self.moves_per_game,
        }


def summarise(player: str, specs: Sequence[GameSpec], results: Iterable[GameResult]) -> Summary:
    """Sum results up."""
    res = list(results)
    n = len(res)
    starts = {(s.width, s.start) for s in specs}
    if len(starts) == 1:
        w, st = next(iter(starts))
        r, c = divmod(st, w)
        start = f"{r},{c}"
    else:
        start = "per board"
    rules = {s.rule for s in specs}
    exact = sum(r.forced_exact for r in res)
    return Summary(
        player=player,
        games=n,
        wins=sum(r.won for r in res),
        rule=rules.pop() if len(rules) == 1 else "mixed",
        start=start,
        ms_per_game=sum(r.ms for r in res) / n if n else 0.0,
        guesses_per_game=sum(r.guesses for r in res) / n if n else 0.0,
        forced_share=(sum(r.forced_found for r in res) / exact) if exact else None,
        lives=max((s.lives for s in specs), default=0),
        hits_per_game=sum(r.hits for r in res) / n if n else 0.0,
        moves_per_game=sum(r.moves for r in res) / n if n else 0.0,
    )


def bench(
    player: str,
    specs: Sequence[GameSpec],
    *,
    jobs: int = 1,
    on_result: Callable[[GameResult], None] | None = None,
    measure_forced: bool = False,
    keep_record: bool = False,
    executor: str | None = None,
    done: Sequence[GameResult] = (),
) -> tuple[Summary, list[GameResult]]:
    """Play ``specs`` with ``player``; returns the summary and the per-game results by index.

    ``done`` holds results already known (a resumed run): their games are not played again and
    they count in the summary."""
    have = {r.index for r in done}
    todo = [sp for sp in specs if sp.index not in have]
    results = [r for r in done if r.index in {sp.index for sp in specs}]
    for r in run_games(
        todo, player, jobs=jobs, measure_forced=measure_forced, keep_record=keep_record, executor=executor
    ):
        results.append(r)
        if on_result is not None:
            on_result(r)
    results.sort(key=lambda r: r.index)
    return summarise(player, specs, results), results


@dataclass(frozen=True, slots=True)
class Paired:
    """A paired comparison of two players on the same boards."""

    a: str
    """The first player."""
    b: str
    """The second player."""
    games: int
    """Boards both played."""
    wins_a: int
    """Boards the first player won."""
    wins_b: int
    """Boards the second player won."""
    only_a: int
    """Boards only the first player won."""
    only_b: int
    """Boards only the second player won."""

    @property
    def p_value(self) -> float:
        """Two-sided exact sign test on the boards only one player won."""
        return sign_test(self.only_a, self.only_b)

    def to_json(self) -> dict[str, Any]:
        """As a JSON object."""
        return {**asdict(self), "p_value": self.p_value}


def sign_test(x: int, y: int) -> float:
    """Two-sided exact binomial sign test of ``x`` successes against ``y`` (p = 1/2).

    >>> round(sign_test(10, 0), 5)
    0.00195
    >>> sign_test(3, 3)
    1.0
    """
    n = x + y
    if n == 0:
        return 1.0
    k = min(x, y)
    tail = sum(math.comb(n, i) for i in range(k + 1))
    return min(1.0, 2 * tail / (1 << n))


def paired(a: str, ra: Sequence[GameResult], b: str, rb: Sequence[GameResult]) -> Paired:
    """Compare two players' results on the same boards (matched by index)."""
    wa = {r.index: r.won for r in ra}
    wb = {r.index: r.won for r in rb}
    common = sorted(wa.keys() & wb.keys())
    return Paired(
        a,
        b,
        len(common),
        sum(wa[i] for i in common),
        sum(wb[i] for i in common),
        sum(wa[i] and not wb[i] for i in common),
        sum(wb[i] and not wa[i] for i in common),
    )


SWEEP_PARAMS = ("mines", "width", "height")


def parse_sweep(text: str) -> tuple[str, list[int]]:
    """``mines=60:140:10`` (start:stop:step, stop included) or ``mines=60,80,100``.

    >>> parse_sweep("mines=60:100:20")
    ('mines', [60, 80, 100])
    """
    name, sep, spec = text.partition("=")
    name = name.strip()
    if not sep or name not in SWEEP_PARAMS:
        raise InputError(
            f"--sweep takes NAME=START:STOP:STEP or NAME=A,B,C with NAME one of {SWEEP_PARAMS}, got {text!r}"
        )
    try:
        if ":" in spec:
            parts = [int(x) for x in spec.split(":")]
            if len(parts) != 3 or parts[2] <= 0 or parts[1] < parts[0]:
                raise ValueError
            values = list(range(parts[0], parts[1] + 1, parts[2]))
        else:
            values = [int(x) for x in spec.split(",")]
    except ValueError:
        raise InputError(
            f"--sweep {text!r}: expected START:STOP:STEP with STEP > 0 and STOP >= START, or A,B,C"
        ) from None
    if not values or len(values) > 200:
        raise InputError(f"--sweep {text!r} gives {len(values)} values; 1 to 200 are allowed")
    return name, values
