"""Other programs' boards: a screenshot in, the position it shows out (:func:`read_board`),
with the pieces it is made of: the grid finder (:mod:`.grid`), cells as tiles and the skins'
templates (:mod:`.tiles`), and the truth kept beside test screenshots (:mod:`.truth`).

Needs the ``screen`` extra (Pillow, numpy): ``pip install 'demine[screen]'``.
"""

from __future__ import annotations

from demine.screen.read import BoardRead, UnreadableScreen, read_board

__all__ = ["BoardRead", "UnreadableScreen", "read_board"]
