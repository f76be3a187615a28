"""Puzzles from real positions, with exact answers: find a proven safe cell (``safe``), decide
every proven cell (``all``), choose the best guess (``guess``), or tell a true 50/50 from one
that can still be avoided (``coin``); each with its proof, themes and a Glicko-2 rating.

A 1-2-1 along a wall (puzzles are found in the board's canonical orientation, which this one is
in; cells are row-major numbers):

>>> from demine.puzzles import puzzles_in
>>> from demine import Position
>>> p = Position.from_text("2x5\\nHH\\n1H\\n2H\\n1H\\nHH")
>>> [(z.kind, z.answer, z.mines, z.themes) for z in puzzles_in(p)]
[('all', (0, 1, 3, 5, 7, 8, 9), (3, 7), ('1-2-1', 'pair')), ('safe', (0, 1, 5, 8, 9), (), ('1-2-1', 'pair'))]
"""

from demine.puzzles.find import DEFAULT_MAKE, MakeSettings, number_rule_safe, proofs, puzzles_in
from demine.puzzles.model import (
    BANDS,
    KINDS,
    QUESTIONS,
    SHIPPED,
    Kind,
    Puzzle,
    band,
    daily,
    read_puzzles,
    write_puzzles,
)
from demine.puzzles.rating import Rating, attempt, expected, update
from demine.puzzles.symmetry import canonical, position_key, transform, transform_cell

__all__ = [
    "BANDS",
    "DEFAULT_MAKE",
    "KINDS",
    "QUESTIONS",
    "SHIPPED",
    "Kind",
    "MakeSettings",
    "Puzzle",
    "Rating",
    "attempt",
    "band",
    "canonical",
    "daily",
    "expected",
    "number_rule_safe",
    "position_key",
    "proofs",
    "puzzles_in",
    "read_puzzles",
    "transform",
    "transform_cell",
    "update",
    "write_puzzles",
]
