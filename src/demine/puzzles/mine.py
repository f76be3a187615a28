"""Mining puzzles from played games: the positions of game records (players' games, bench files
written with ``--record-moves``, the community's videos, the web's exports), deduplicated up to
the board's symmetries, and a balanced selection over kinds and difficulties."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from demine.bench.play import generated_specs, play_game
from demine.engine.formats import GameRecord
from demine.engine.game import Move
from demine.engine.grid import PRESETS
from demine.engine.position import Position
from demine.errors import FormatError, InputError
from demine.puzzles.find import DEFAULT_MAKE, MakeSettings, puzzles_in
from demine.puzzles.model import BANDS, KINDS, Kind, Puzzle
from demine.review.files import games_in


def positions_of(record: GameRecord) -> Iterator[tuple[int, Position, Move, list[int]]]:
    """Each position a player faced in a game (after the first click, while playing), with the
    move number (1-based), the move made there and the game's mines."""
    g = record.board.game(record.lives)
    for k, mv in enumerate(record.moves, start=1):
        if g.placed and g.outcome == "playing":
            yield k, g.position(), mv, g.mine_cells()
        g.play(mv)


@dataclass
class Collector:
    """Puzzles found so far, one per kind and position up to symmetry (the first met is kept)."""

    settings: MakeSettings = DEFAULT_MAKE
    found: dict[str, Puzzle] = field(default_factory=dict)
    """By id."""
    positions: int = 0
    """Positions looked at."""
    games: int = 0
    """Games read."""
    seconds: float = 0.0
    """Time spent finding puzzles."""
    enough: int | None = None
    """How many puzzles of a kind and difficulty are enough: more are not kept, and a kind is no
    longer searched for once each of its difficulties has that many."""
    _seen: set[bytes] = field(default_factory=set)
    _have: Counter[tuple[str, str]] = field(default_factory=Counter)

    only: tuple[Kind, ...] = KINDS
    """The kinds looked for."""

    def kinds(self) -> list[Kind]:
        """The kinds still wanted."""
        if self.enough is None:
            return list(self.only)
        return [k for k in self.only if any(self._have[k, b] < self.enough for b, _ in BANDS)]

    def keep(self, p: Puzzle) -> bool:
        """Keep ``p`` unless it is there already or its kind and difficulty have enough."""
        if p.id in self.found or (
            self.enough is not None and self._have[p.kind, p.difficulty] >= self.enough
        ):
            return False
        self.found[p.id] = p
        self._have[p.kind, p.difficulty] += 1
        return True

    def add_position(self, position: Position, played: int | None, source: str) -> list[Puzzle]:
        """The new puzzles ``position`` makes (kept)."""
        key = position.states + bytes([position.width % 256, (position.mines or 0) % 256])
        if key in self._seen:
            return []
        self._seen.add(key)
        self.positions += 1
        t0 = time.perf_counter()
        new = []
        for p in puzzles_in(position, played, source, self.settings, self.kinds(), self.found):
            if self.keep(p):
                new.append(p)
        self.seconds += time.perf_counter() - t0
        return new

    def add_record(self, record: GameRecord, source: str) -> int:
        """Every position of a game; returns how many new puzzles it made."""
        self.games += 1
        n = 0
        guesses_only = not {"safe", "all"} & set(self.kinds())
        for k, position, mv, _layout in positions_of(record):
            note = record.note(k - 1)
            if guesses_only and (
                mv.kind != "reveal" or (note is not None and (note[0] == "safe" or note[1] == 0.0))
            ):
                continue  # the player saw a proven safe cell here (or flagged): no guess to find
            played = mv.cell if mv.kind == "reveal" else None
            n += len(self.add_position(position, played, f"{source} move {k}"))
        return n

    def add_files(self, path: str | Path, on_error: Callable[[FormatError], None] | None = None) -> int:
        """Every game in a record file, bench file, video or folder of them."""
        n = 0
        for game in games_in(path, on_error):
            who = f" ({game.player})" if game.player else ""
            n += self.add_record(game.record, f"{Path(game.name).name}{who}")
        return n

    def add_played(self, player: str, preset: str, games: int, seed: int | str, rule: str = "safe") -> int:
        """Games played here by ``player`` on a preset (seeded: the same games every time)."""
        if preset not in PRESETS:
            raise InputError(f"unknown preset {preset!r}: one of {', '.join(PRESETS)}")
        pr = PRESETS[preset]
        n = 0
        for spec in generated_specs(pr.width, pr.height, pr.mines, rule, None, games, seed):
            result = play_game(spec, player, keep_record=True)
            assert isinstance(result.game, dict)
            record = GameRecord.from_json(result.game)
            n += self.add_record(record, f"{player} {preset} {rule} seed {spec.seed}")
        return n

    def counts(self) -> dict[str, Counter[str]]:
        """Puzzles found per kind, by difficulty."""
        out: dict[str, Counter[str]] = {k: Counter() for k in KINDS}
        for p in self.found.values():
            out[p.kind][p.difficulty] += 1
        return out


def select(puzzles: Iterable[Puzzle], per_kind: int) -> list[Puzzle]:
    """At most ``per_kind`` puzzles of each kind, spread over the difficulties as evenly as the
    supply allows (the first found of each band first), in a stable order (kind, rating, id)."""
    by: dict[tuple[str, str], list[Puzzle]] = {}
    for p in puzzles:
        by.setdefault((p.kind, p.difficulty), []).append(p)
    out: list[Puzzle] = []
    for kind in KINDS:
        pools = [by.get((kind, b), []) for b, _ in BANDS]
        quota = [0] * len(pools)
        left = per_kind
        # water-filling: equal shares, what a band cannot use goes to the others
        while left > 0:
            open_ = [i for i, pool in enumerate(pools) if quota[i] < len(pool)]
            if not open_:
                break
            share = max(1, left // len(open_))
            for i in open_:
                take = min(share, len(pools[i]) - quota[i], left)
                quota[i] += take
                left -= take
                if left == 0:
                    break
        for i, pool in enumerate(pools):
            out.extend(pool[: quota[i]])
    out.sort(key=lambda p: (KINDS.index(p.kind), p.rating, p.id))
    return out
