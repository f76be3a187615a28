"""``window-sat``: each revealed number's 3x3 window as a SAT problem (PySAT).

For every revealed number with covered neighbours, its window is the 3x3 block around it (2x3 on
an edge, 2x2 in a corner). The window's constraints are the revealed numbers inside it, each saying
how many mines lie among its covered neighbours (which may reach outside the window: a number's
constraint is kept whole, so each window is a sound relaxation of the position). The constraints
are encoded with PySAT's cardinality encodings and every model is enumerated. A cell of the window
is decided when all the window's models agree on it. A cell's mine probability is the share of
models with a mine there, averaged over the windows that contain it, as in the original method;
the player guesses the lowest. Its weakness is the local view: that is the point of comparing it.

Needs the ``sat`` extra (``pip install 'demine[sat]'``).
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from demine.engine.game import Move
from demine.engine.position import COVERED, FLAG, Position
from demine.errors import DemineError
from demine.players.base import Decision
from demine.players.common import lowest, proven_moves, remaining_density

#: Windows with more models than this stop enumerating (their cells then stay undecided).
MAX_MODELS = 4096


def _pysat() -> tuple[Any, Any, Any, Any]:
    try:
        from pysat.card import CardEnc, EncType
        from pysat.formula import IDPool
        from pysat.solvers import Solver
    except ImportError:
        raise DemineError(
            "the window-sat player needs PySAT: pip install 'demine[sat]' (the python-sat package)"
        ) from None
    return CardEnc, EncType, IDPool, Solver


def window_analysis(position: Position) -> tuple[set[int], set[int], dict[int, Fraction]]:
    """Per-window SAT: the decided cells and the averaged model probabilities."""
    CardEnc, EncType, IDPool, Solver = _pysat()
    geo = position.geometry
    st = position.states
    w, h = position.width, position.height

    def constraint(cell: int) -> tuple[list[int], int] | None:
        cov = [d for d in geo.neighbours(cell) if st[d] == COVERED]
        if not cov:
            return None
        flags = sum(1 for d in geo.neighbours(cell) if st[d] == FLAG)
        return cov, st[cell] - flags

    safe: set[int] = set()
    mines: set[int] = set()
    sums: dict[int, Fraction] = {}
    seen: dict[int, int] = {}
    for center in range(w * h):
        if st[center] >= COVERED or constraint(center) is None:
            continue
        r0, c0 = divmod(center, w)
        window = [
            rr * w + cc
            for rr in range(max(0, r0 - 1), min(h, r0 + 2))
            for cc in range(max(0, c0 - 1), min(w, c0 + 2))
        ]
        cons = [x for x in (constraint(c) for c in window if st[c] < COVERED) if x is not None]
        variables = sorted({c for cov, _ in cons for c in cov})
        pool = IDPool(start_from=len(variables) + 1)
        lit = {c: i + 1 for i, c in enumerate(variables)}
        clauses: list[list[int]] = []
        for cov, need in cons:
            if need < 0 or need > len(cov):
                raise DemineError(f"window at {geo.name(center)}: a number cannot be satisfied")
            enc = CardEnc.equals(
                lits=[lit[c] for c in cov], bound=need, vpool=pool, encoding=EncType.seqcounter
            )
            clauses.extend(enc.clauses)
        models = 0
        counts = dict.fromkeys(variables, 0)
        with Solver(name="m22", bootstrap_with=clauses) as solver:
            while models < MAX_MODELS and solver.solve():
                model = solver.get_model()
                models += 1
                block = []
                for c in variables:
                    v = model[lit[c] - 1] > 0
                    if v:
                        counts[c] += 1
                    block.append(-lit[c] if v else lit[c])
                solver.add_clause(block)
        if models == 0:
            raise DemineError(f"window at {geo.name(center)} has no model: the position is inconsistent")
        complete = models < MAX_MODELS
        for c in window:
            if c not in counts:
                continue
            if complete and counts[c] == 0:
                safe.add(c)
            elif complete and counts[c] == models:
                mines.add(c)
            sums[c] = sums.get(c, Fraction(0)) + Fraction(counts[c], models)
            seen[c] = seen.get(c, 0) + 1
    prob = {c: sums[c] / seen[c] for c in sums}
    return safe, mines, prob


class WindowSatPlayer:
    """Local SAT windows; guesses the lowest averaged window probability."""

    name = "window-sat"

    def __init__(self) -> None:
        _pysat()  # fail early with the install hint

    def decide(self, position: Position, rng: random.Random) -> Decision:
        """Act on what some window proves, or open the cell with the lowest averaged probability."""
        safe, mines, prob = window_analysis(position)
        found = proven_moves(position, safe, mines, "window")
        if found is not None:
            return found
        default = remaining_density(position)
        cell = lowest(position, prob, default)
        return Decision(
            [Move("reveal", cell)],
            guess=True,
            reason="window-probability",
            mine_probability=float(prob.get(cell, default)),
        )
