"""The cycle collector held off through a player's decision.

A decision's count and look-ahead make tens of thousands of objects, many of which live through
the search (its frames, counts and memos). Python's cyclic collector runs after every 700 net
allocations and walks every young object each time, promoting the search's to older generations
that it then walks again: in ``best``'s median expert game that was about a tenth of the CPU, for
almost no garbage (the compiled build's closures leave a few cycles a decision; everything else
is freed by reference counting). So ``best`` and ``fast`` hold the collector off while they
decide; the collection that came due runs at the first allocation after, outside the search.

Only a collector that is on is held, and only it is turned back on: a program that turned it off
keeps it off. With threads, the collector is process-wide: a decision in one thread holds it for
all of them until it ends, and one that started while another held it runs with it as it finds
it (it may come back on before the end). Either way no garbage is lost, only collected later.
"""

from __future__ import annotations

import gc
from types import TracebackType


class collector_held:
    """Hold the cyclic garbage collector off inside the block when ``hold`` and it is on.

    (A class, not :func:`contextlib.contextmanager`: every decision enters it, and a generator's
    context manager makes a generator and a wrapper and steps through both each time.)"""

    __slots__ = ("held", "hold")

    def __init__(self, hold: bool = True) -> None:
        self.hold = hold
        self.held = False
        """Whether it turned the collector off (and so turns it back on)."""

    def __enter__(self) -> None:
        if self.hold and gc.isenabled():
            gc.disable()
            self.held = True

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.held:
            self.held = False
            gc.enable()
