"""A click-through overlay on another program's board: the hints drawn as coloured frames.

An override-redirect window (no window manager places or decorates it) over the board, shaped
to the frames it draws (its bounding shape: the program shows through everywhere else, with no
compositor needed) and with an empty input shape, so every click and key goes to the program
below. It never takes the focus.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from demine.screen.x11 import Connection

#: Colours of the marks (RGB), as the web game's hints: safe green, mine blue, the best guess
#: amber, a flag proven wrong red.
COLOURS = {
    "safe": (0x1B, 0x9E, 0x3E),
    "mine": (0x1F, 0x5F, 0xD6),
    "guess": (0xF5, 0x9E, 0x0B),
    "wrong": (0xD3, 0x2F, 0x2F),
}


@dataclass(frozen=True, slots=True)
class Mark:
    """A cell to frame: its box in screen pixels and its kind (a key of :data:`COLOURS`)."""

    left: int
    top: int
    width: int
    height: int
    kind: str


def frame(mark: Mark, thickness: int) -> list[tuple[int, int, int, int]]:
    """The four rectangles (x, y, w, h) of a frame just inside the mark's box.

    >>> frame(Mark(0, 0, 10, 10, "safe"), 2)
    [(0, 0, 10, 2), (0, 8, 10, 2), (0, 2, 2, 6), (8, 2, 2, 6)]
    """
    x, y, w, h, t = mark.left, mark.top, mark.width, mark.height, thickness
    return [(x, y, w, t), (x, y + h - t, w, t), (x, y + t, t, h - 2 * t), (x + w - t, y + t, t, h - 2 * t)]


class Overlay:
    """The overlay window on ``conn``'s display; :meth:`show` draws marks, :meth:`close` ends it."""

    def __init__(self, conn: Connection) -> None:
        from Xlib import X
        from Xlib.ext import shape

        if not conn.x.has_extension("SHAPE"):
            from demine.screen.x11 import ScreenError

            raise ScreenError(f"the display {conn.name} has no SHAPE extension: no overlay can pass clicks")
        self.conn = conn
        screen = conn.x.screen()
        self.window = conn.root.create_window(
            0,
            0,
            1,
            1,
            0,
            screen.root_depth,
            X.InputOutput,
            X.CopyFromParent,
            override_redirect=True,
            background_pixel=screen.black_pixel,
            event_mask=X.ExposureMask,
        )
        self.window.set_wm_name("demine hints")
        self.window.set_wm_class("demine-hints", "Demine-hints")
        self.window.shape_rectangles(shape.SO.Set, shape.SK.Input, X.Unsorted, 0, 0, [])
        self.gc = self.window.create_gc()
        self.marks: list[Mark] = []
        self.origin = (0, 0)
        self.thickness = 3
        self.mapped = False

    def _pixel(self, kind: str) -> int:
        r, g, b = COLOURS[kind]
        colour = self.conn.x.screen().default_colormap.alloc_color(r * 257, g * 257, b * 257)
        return int(colour.pixel)

    def show(self, marks: list[Mark], thickness: int = 3) -> None:
        """Draw ``marks`` (and nothing else); with none, hide the overlay."""
        from Xlib import X
        from Xlib.ext import shape

        self.marks, self.thickness = marks, thickness
        if not marks:
            if self.mapped:
                self.window.unmap()
                self.mapped = False
            self.conn.x.sync()
            return
        left = min(m.left for m in marks)
        top = min(m.top for m in marks)
        right = max(m.left + m.width for m in marks)
        bottom = max(m.top + m.height for m in marks)
        self.origin = (left, top)
        self.window.configure(x=left, y=top, width=right - left, height=bottom - top, stack_mode=X.Above)
        rects = [r for m in marks for r in frame(self._local(m), thickness)]
        self.window.shape_rectangles(shape.SO.Set, shape.SK.Bounding, X.Unsorted, 0, 0, rects)
        if not self.mapped:
            self.window.map()
            self.mapped = True
        self._draw()

    def _local(self, m: Mark) -> Mark:
        return Mark(m.left - self.origin[0], m.top - self.origin[1], m.width, m.height, m.kind)

    def _draw(self) -> None:
        by_kind: dict[str, list[tuple[int, int, int, int]]] = {}
        for m in self.marks:
            by_kind.setdefault(m.kind, []).extend(frame(self._local(m), self.thickness))
        for kind, rects in by_kind.items():
            self.gc.change(foreground=self._pixel(kind))
            self.window.poly_fill_rectangle(self.gc, rects)
        self.conn.x.sync()

    def pump(self) -> None:
        """Redraw after the server says the window was uncovered (Expose)."""
        from Xlib import X

        exposed = False
        while self.conn.x.pending_events():
            event: Any = self.conn.x.next_event()
            exposed = exposed or event.type == X.Expose
        if exposed and self.mapped:
            self._draw()

    def close(self) -> None:
        """End the overlay window."""
        from contextlib import suppress

        with suppress(Exception):
            self.window.destroy()
            self.conn.x.sync()
