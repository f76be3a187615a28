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

#: One covered cell in the search: the cell, its mine bitset, its bitsets per thing it shows.
Row = tuple[int, int, list[int]]


class Endgame:
    """Exact game-tree search over a small set of layouts.

    A set of layouts still consistent is a bitset (bit ``i``: layout ``i``); for each covered
    cell, one bitset per thing it can show (-1 for a mine) splits any set at once. A move's value
    is at most its chance to be safe, so moves are tried safest first and the search stops as
    soon as none left can beat the best found.

    A cell that is a mine in every layout of a set, or safe in all of them with the same number,
    is so in every smaller set too: it can neither be opened nor tell anything there. The search
    passes each set's remaining (*live*) cells down to the sets it splits into, so deeper
    positions look at fewer cells (the same values, searched in the same order)."""

    def __init__(
        self,
        observations: dict[int, list[int]],
        nodes: int = DEFAULT_SETTINGS.endgame_nodes,
        *,
        shows: dict[int, dict[int, int]] | None = None,
        size: int = 0,
    ) -> None:
        """``observations``: per covered cell, what it shows in each layout (-1 for a mine);
        ``nodes``: the positions the search may visit before it raises ``TimeoutError``.
        ``shows`` and ``size`` (from :meth:`of`) give the bitsets per thing shown directly, in
        the order of their first layout, and the count of layouts (``observations`` is then
        not read)."""
        self.max_nodes = nodes
        if shows is None:
            self.size = len(next(iter(observations.values()), []))
            # per covered cell: {what it shows: bitset of the layouts where it shows that}
            shows = {}
            for c, row in observations.items():
                masks: dict[int, int] = {}
                for i, v in enumerate(row):
                    masks[v] = masks.get(v, 0) | (1 << i)
                shows[c] = masks
        else:
            self.size = size
        self.shows: dict[int, dict[int, int]] = shows
        self.cells = list(shows)
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
        shows = _shows(position, layouts)
        return cls({}, nodes, shows=shows, size=len(layouts) if shows else 0)

    def value(self, c: int, S: int, n: int) -> float:
        """The chance to win by opening ``c`` when the layouts ``S`` (``n`` of them) remain."""
        return self._value(c, S, n, self._rows)

    def _value(self, c: int, S: int, n: int, rows: list[Row]) -> float:
        """:meth:`value`, the cells of ``rows`` the only ones that can still be live."""
        total = 0.0
        for v, m in self.shows[c].items():
            if v == -1:
                continue
            part = S & m
            if part:
                total += part.bit_count() * self._win(part, rows)
        return total / n

    def win(self, S: int) -> float:
        """The best chance to win when the layouts in bitset ``S`` remain."""
        return self._win(S, self._rows)

    def _win(self, S: int, rows: list[Row]) -> float:
        """:meth:`win`, the cells of ``rows`` the only ones that can still be live in ``S``."""
        n = S.bit_count()
        if n == 1:
            return 1.0
        got = self.memo.get(S)
        if got is not None:
            return got
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise TimeoutError
        # the cells live in S; with them, every cell safe in all of S opened at once: the value
        # if that splits S (free information)
        live: list[Row] = []
        groups = [S]
        informative = False
        for row in rows:
            x = S & row[1]
            if x:
                if x != S:
                    live.append(row)
                continue
            parts = [y for m in row[2] if (y := S & m)]
            if len(parts) == 1:
                continue
            live.append(row)
            informative = True
            groups = [y for g in groups for p in parts if (y := g & p)]
        if informative:
            best = sum(g.bit_count() * self._win(g, live) for g in groups) / n
        else:
            best = 0.0
            ranked = []
            for c, mine, _ in live:
                ranked.append((n - (S & mine).bit_count(), c))
            ranked.sort(reverse=True)
            for safe, c in ranked:
                if safe <= best * n:
                    break  # even a certain win after it could not beat the best
                value = self._value(c, S, n, live)
                if value > best:
                    best = value
        self.memo[S] = best
        return best

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


def _shows(position: Position, layouts: list[frozenset[int]]) -> dict[int, dict[int, int]]:
    """Per covered cell of ``position`` (in cell order), what it shows over ``layouts`` (-1 for
    a mine, else its number; flags count as mines): {thing shown: bitset of the layouts}, in the
    order of each thing's first layout. Made from the bitsets of the layouts where each cell is
    a mine: a cell's number in a layout is its flags plus how many of its neighbours' bitsets
    hold that layout, split neighbour by neighbour (the same table as a count per layout)."""
    st = position.states
    geo = position.geometry
    everything = (1 << len(layouts)) - 1
    mined: dict[int, int] = {}
    for i, lay in enumerate(layouts):
        bit = 1 << i
        for c in lay:
            mined[c] = mined.get(c, 0) | bit
    out: dict[int, dict[int, int]] = {}
    for c in range(position.cells):
        if st[c] != COVERED:
            continue
        flags = 0
        exactly = [everything]  # exactly[k]: the layouts with k mines among the neighbours so far
        for d in geo.neighbours(c):
            if st[d] == FLAG:
                flags += 1
                continue
            m = mined.get(d, 0)
            if not m:
                continue
            more = [0] * (len(exactly) + 1)
            for k, e in enumerate(exactly):
                if e:
                    more[k] |= e & ~m
                    more[k + 1] |= e & m
            exactly = more
        mine = mined.get(c, 0)
        found = [(mine, -1)] if mine else []
        safe = everything & ~mine
        for k, e in enumerate(exactly):
            if e & safe:
                found.append((e & safe, flags + k))
        found.sort(key=lambda t: t[0] & -t[0])  # by the first layout that shows it
        out[c] = {v: m for m, v in found}
    return out


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
