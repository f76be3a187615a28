"""Why a cell is forced, in words: shared by ``demine analyze --why`` and the web game's hints."""

from __future__ import annotations

from demine.analysis.result import Analysis
from demine.engine.position import Position


def describe_reason(position: Position, cell: int, a: Analysis) -> str:
    """``(r,c) safe (the 1 at (0,2))`` and the like.

    >>> from demine.analysis import analyze
    >>> p = Position.from_text("3x1\\n1HH")
    >>> describe_reason(p, 1, analyze(p))
    '(0,1) mine (the 1 at (0,0))'
    """
    g = position.geometry
    r = a.reasons.get(cell)
    what = "safe" if cell in a.safe else "mine"
    if r is None:
        return f"{g.name(cell)} {what}"
    if r.kind == "mine-count":
        why = "the mine count"
    else:
        nums = ", ".join(f"{position.states[n]} at {g.name(n)}" for n in r.numbers)
        label = {"number": "the", "pair": "the pair", "component": "together"}[r.kind]
        why = f"{label} {nums}" if r.kind != "component" else f"the numbers {nums} together"
    return f"{g.name(cell)} {what} ({why})"
