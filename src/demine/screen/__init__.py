"""Other programs' boards: a screenshot in, the position it shows out (:func:`read_board`),
with the pieces it is made of: the grid finder (:mod:`.grid`), cells as tiles and the skins'
templates (:mod:`.tiles`), and the truth kept beside test screenshots (:mod:`.truth`). Live
windows: :mod:`.x11` finds, captures and clicks them, :mod:`.programs` knows each program (how to
start it, find its window, start a new game, its rules), :mod:`.live` plays games through them
and :mod:`.watch` (with :mod:`.overlay`) shows hints on them.

Needs the ``screen`` extra (Pillow, numpy; mss and python-xlib for live windows):
``pip install 'demine[screen]'``.
"""

from __future__ import annotations

from demine.screen.read import BoardRead, UnreadableScreen, read_board

__all__ = ["BoardRead", "UnreadableScreen", "read_board"]
