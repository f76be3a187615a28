"""Brute force, position and board-file makers and the benchmark scripts' loader, shared by the tests."""

from __future__ import annotations

import importlib
import random
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from itertools import combinations
from pathlib import Path
from types import ModuleType

from demine.analysis import Analysis, analyze
from demine.analysis.constraints import System
from demine.bench import GameSpec
from demine.engine.formats import Board, write_boards
from demine.engine.game import Game
from demine.engine.position import COVERED, FLAG, Position
from demine.players.base import Player


def brute_force(
    position: Position, trust_flags: bool = True, density: Fraction = Fraction(1, 5)
) -> tuple[dict[int, Fraction], int, Fraction]:
    """Every unknown cell's mine probability by enumerating all layouts.

    Returns (probabilities, number of layouts, total weight). With a known mine count, layouts
    are those with exactly the right total; otherwise each layout with m mines among the n unknown
    cells weighs density^m (1 - density)^(n - m).
    """
    geo = position.geometry
    st = position.states
    unknown_states = (COVERED,) if trust_flags else (COVERED, FLAG)
    unknown = [c for c in range(position.cells) if st[c] in unknown_states]
    known = {c for c in range(position.cells) if st[c] == FLAG} if trust_flags else set()
    numbers = [(c, st[c]) for c in range(position.cells) if st[c] < COVERED]
    n = len(unknown)
    totals = [position.mines - len(known)] if position.mines is not None else list(range(n + 1))
    hits = {c: Fraction(0) for c in unknown}
    total_w = Fraction(0)
    count = 0
    for m in totals:
        if m < 0 or m > n:
            continue
        w = Fraction(1) if position.mines is not None else density**m * (1 - density) ** (n - m)
        for combo in combinations(unknown, m):
            mines = known | set(combo)
            if all(sum(d in mines for d in geo.neighbours(c)) == v for c, v in numbers):
                count += 1
                total_w += w
                for c in combo:
                    hits[c] += w
    if count == 0:
        return {}, 0, Fraction(0)
    return {c: hits[c] / total_w for c in unknown}, count, total_w


def random_position(
    rng: random.Random,
    width: int,
    height: int,
    mines: int,
    max_covered: int,
    flag_share: float = 0.0,
    wrong_flags: int = 0,
    known_total: bool = True,
) -> tuple[Position, set[int]]:
    """A position from a real random layout: open random safe cells until at most
    ``max_covered`` cells stay covered; flag a share of the mines (and some wrong cells)."""
    cells = list(range(width * height))
    layout = set(rng.sample(cells, mines))
    game = Game.from_layout(width, height, sorted(layout))
    safe = [c for c in cells if c not in layout]
    rng.shuffle(safe)
    vis = bytearray([COVERED]) * (width * height)
    for c in safe:
        if sum(v == COVERED for v in vis) <= max_covered:
            break
        vis[c] = game._count[c] if game._count is not None else 0
    for c in layout:
        if rng.random() < flag_share:
            vis[c] = FLAG
    covered_safe = [c for c in safe if vis[c] == COVERED]
    for c in rng.sample(covered_safe, min(wrong_flags, len(covered_safe))):
        vis[c] = FLAG
    return Position(width, height, bytes(vis), mines if known_total else None), layout


BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def board_file(path: Path, width: int, height: int, mines: int, seeds: Iterable[str]) -> Path:
    """A board file at ``path`` (its folder made) of a game opened at (0,0) for each seed."""
    boards = []
    for seed in seeds:
        g = Game(width, height, mines, seed=seed)
        g.reveal(0)
        boards.append(Board.from_game(g))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_boards(path, boards)
    return path


@contextmanager
def benchmark_script(name: str) -> Iterator[ModuleType]:
    """``benchmarks/NAME.py`` imported as a module. The scripts set the players' module constants,
    so every constant of ``best`` and ``longterm`` is put back afterwards."""
    import demine.players.best as best
    import demine.players.longterm as longterm

    saved = [(m, k, getattr(m, k)) for m in (best, longterm) for k in dir(m) if k.isupper()]
    sys.path.insert(0, str(BENCHMARKS))
    try:
        yield importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCHMARKS))
        for m, k, v in saved:
            setattr(m, k, v)


def small_consistent_position(rng: random.Random) -> tuple[Position, System] | None:
    """A position of at most 9x8 cells from a real layout, half its mines flagged, with its
    constraint system; ``None`` when its numbers (with those flags) admit no layout."""
    from demine.analysis import analyze
    from demine.analysis.constraints import position_system
    from demine.errors import InconsistentPosition

    w, h = rng.randint(3, 9), rng.randint(3, 8)
    p, _ = random_position(rng, w, h, rng.randint(1, w * h // 4), rng.randint(4, 24), flag_share=0.5)
    try:
        system = position_system(p)
        analyze(p)
    except InconsistentPosition:
        return None
    return p, system


def guess_points(
    specs: Iterable[GameSpec], make_player: Callable[[], Player], rng: random.Random
) -> Iterator[tuple[Position, Analysis]]:
    """The positions where a player (``make_player``'s, a new one each game) guesses in the games
    of ``specs``, with their analyses; each is yielded before the player moves on from it."""
    for spec in specs:
        game = spec.game()
        game.reveal(spec.start)
        player = make_player()
        while not game.over:
            position = game.position()
            decision = player.decide(position, rng)
            if decision.guess:
                yield position, analyze(position)
            for move in decision.moves:
                if game.over:
                    break
                game.play(move)
