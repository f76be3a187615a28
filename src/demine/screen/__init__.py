"""Other programs' boards: read a Minesweeper window or screenshot, hint it, and play it.

``read`` turns an image into a :class:`~demine.engine.position.Position`; ``x11`` finds, captures
and clicks a live window; ``programs`` knows each program (how to start it, find its window,
start a new game, its rules); ``live`` plays and watches games through them.
"""
