"""The endgame: an exact game-tree search over the layouts still consistent, when few remain, and
the same search over a uniform sample of them when a few thousand remain."""

from __future__ import annotations

import random
import time
import zlib

from demine.analysis import Analysis
from demine.analysis.enumerate import enumerate_layouts, sample_layouts
from demine.engine.game import Move
from demine.engine.position import COVERED, FLAG, Position
from demine.players.best.moves import BestMove
from demine.players.best.settings import DEFAULT_SETTINGS, NO_HOOKS, BestSettings, Hooks


class Endgame:
    """Exact game-tree search over a small set of layouts.

    A set of layouts still consistent is a bitset (bit ``i``: layout ``i``); for each covered
    cell, one bitset per thing it can show (-1 for a mine) splits any set at once. A move's value
    is at most its chance to be safe, so moves are tried safest first and the search stops as
    soon as none left can beat the best found."""

    def __init__(
        self, observations: dict[int, list[int]], nodes: int = DEFAULT_SETTINGS.endgame_nodes
    ) -> None:
        """``observations``: per covered cell, what it shows in each layout (-1 for a mine);
        ``nodes``: the positions the search may visit before it raises ``TimeoutError``."""
        self.max_nodes = nodes
        self.cells = list(observations)
        self.size = len(next(iter(observations.values()), []))
        # per covered cell: {what it shows: bitset of the layouts where it shows that}
        self.shows: dict[int, dict[int, int]] = {}
        for c, row in observations.items():
            masks: dict[int, int] = {}
            for i, v in enumerate(row):
                masks[v] = masks.get(v, 0) | (1 << i)
            self.shows[c] = masks
        self.mine = {c: m.get(-1, 0) for c, m in self.shows.items()}
        # per covered cell, in order: the cell, its mine bitset, its bitsets per thing it shows
        self._rows = [(c, self.mine[c], list(self.shows[c].values())) for c in self.cells]
        self.memo: dict[int, float] = {}
        self.nodes = 0

    @classmethod
    def of(
        cls, position: Position, layouts: list[frozenset[int]], nodes: int = DEFAULT_SETTINGS.endgame_nodes
    ) -> Endgame:
        """The search over ``layouts`` of ``position`` (flags count as mines), of at most ``nodes``
        search nodes."""
        st = position.states
        geo = position.geometry
        flagged = {c for c in range(position.cells) if st[c] == FLAG}
        obs = {}
        for c in range(position.cells):
            if st[c] == COVERED:
                nb = geo.neighbours(c)
                obs[c] = [
                    -1 if c in lay else sum(1 for d in nb if d in lay or d in flagged) for lay in layouts
                ]
        return cls(obs, nodes)

    def value(self, c: int, S: int, n: int) -> float:
        """The chance to win by opening ``c`` when the layouts ``S`` (``n`` of them) remain."""
        total = 0.0
        for v, m in self.shows[c].items():
            if v == -1:
                continue
            part = S & m
            if part:
                total += part.bit_count() * self.win(part)
        return total / n

    def win(self, S: int) -> float:
        """The best chance to win when the layouts in bitset ``S`` remain."""
        n = S.bit_count()
        if n == 1:
            return 1.0
        got = self.memo.get(S)
        if got is not None:
            return got
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise TimeoutError
        best = self._free_information(S)
        if best is None:
            best = 0.0
            ranked = []
            for c, mine, masks in self._rows:
                safe = n - (S & mine).bit_count()
                if safe == n and sum(1 for m in masks if S & m) == 1:
                    continue  # safe everywhere with the same number: no information
                if safe:
                    ranked.append((safe, c))
            ranked.sort(reverse=True)
            for safe, c in ranked:
                if safe <= best * n:
                    break  # even a certain win after it could not beat the best
                value = self.value(c, S, n)
                if value > best:
                    best = value
        self.memo[S] = best
        return best

    def _free_information(self, S: int) -> float | None:
        """Open every cell safe in all layouts of S at once; the value if that splits S."""
        groups = [S]
        informative = False
        for _, mine, masks in self._rows:
            if S & mine:
                continue
            parts = [x for m in masks if (x := S & m)]
            if len(parts) == 1:
                continue
            informative = True
            groups = [x for g in groups for p in parts if (x := g & p)]
        if not informative:
            return None
        n = S.bit_count()
        return sum(g.bit_count() * self.win(g) for g in groups) / n

    def best_move(self) -> tuple[int, float] | None:
        """The cell with the highest chance to win; on equal chances a live cell (one whose
        number is not yet certain), then the lower chance of a mine, then row-major order."""
        n = self.size
        S = (1 << n) - 1
        best: tuple[float, int, int, int] | None = None  # value, live, -mines, cell
        for c in self.cells:
            mines = self.mine[c].bit_count()
            if mines == n:
                continue
            value = self.value(c, S, n)
            live = 1 if len(self.shows[c]) - (1 if mines else 0) > 1 else 0
            if (
                best is None
                or value > best[0] + 1e-12
                or (value > best[0] - 1e-12 and (live, -mines) > (best[1], best[2]))
            ):
                best = (value, live, -mines, c)
        return None if best is None else (best[3], best[0])


def search_kind(layouts: int | None, settings: BestSettings = DEFAULT_SETTINGS) -> str | None:
    """Which endgame search takes a position with this many layouts: ``"exact"`` (2 to
    ``endgame_layouts``), ``"sampled"`` (up to ``sampled_layouts``) or neither (None)."""
    if layouts is None or layouts < 2:
        return None
    if layouts <= settings.endgame_layouts:
        return "exact"
    return "sampled" if layouts <= settings.sampled_layouts else None


def endgame(
    position: Position, a: Analysis, settings: BestSettings = DEFAULT_SETTINGS, hooks: Hooks = NO_HOOKS
) -> BestMove | None:
    """The exact best move when few layouts remain (None when there are too many or the search
    runs past its budget)."""
    if search_kind(a.solutions, settings) != "exact":
        return None
    t0 = time.perf_counter()
    found = _search(position, a, enumerate_layouts(position, settings.endgame_layouts), False, settings)
    if hooks.on_search is not None:
        hooks.on_search("exact", time.perf_counter() - t0, found)
    return found


def sampled_endgame(
    position: Position, a: Analysis, settings: BestSettings = DEFAULT_SETTINGS, hooks: Hooks = NO_HOOKS
) -> BestMove | None:
    """With more layouts than the exact search takes, up to ``sampled_layouts``: the best move
    over a uniform sample of them (drawn with a generator seeded by the position, so a position
    always gets the same move). None outside that range, with too many frontier assignments to
    draw from, or when the search runs past its budget."""
    if search_kind(a.solutions, settings) != "sampled":
        return None
    t0 = time.perf_counter()
    rng = random.Random(zlib.crc32(position.states))
    drawn = sample_layouts(position, settings.endgame_sample, rng, settings.sample_assignments)
    # the search needs distinct layouts (identical ones could never be told apart)
    found = _search(position, a, list(dict.fromkeys(drawn)) if drawn else None, True, settings)
    if hooks.on_search is not None:
        hooks.on_search("sampled", time.perf_counter() - t0, found)
    return found


def _search(
    position: Position,
    a: Analysis,
    layouts: list[frozenset[int]] | None,
    sampled: bool,
    settings: BestSettings,
) -> BestMove | None:
    if not layouts:
        return None
    try:
        found = Endgame.of(position, layouts, settings.endgame_nodes).best_move()
    except TimeoutError:
        return None
    if found is None:
        return None
    cell, win = found
    if sampled:
        return BestMove(Move("reveal", cell), "sampled endgame", a.p(cell))
    return BestMove(Move("reveal", cell), "endgame", a.p(cell), win_probability=win)
