"""SVG pictures of positions, written with the standard library.

``render_svg(position)`` draws the board as a player sees it, with the classic number colours.
Overlays:

- ``probabilities``: each covered cell's chance of a mine, as a percentage over a shade that deepens
  with the risk;
- ``hints``: the cells the exact engine proves, green with a check mark when safe and blue with a
  star when a mine; flags are red. Glyphs and colours together, so the picture does not rely on
  colour alone.

``Position._repr_svg_`` uses it, so positions show as pictures in Jupyter.
"""

from __future__ import annotations

from typing import Literal
from xml.sax.saxutils import escape

from demine.engine.position import COVERED, FLAG, Position
from demine.errors import InconsistentPosition

Overlay = Literal["none", "probabilities", "hints"]

#: The classic colours of the numbers 1-8.
NUMBER_COLOURS = {
    1: "#0000ff",
    2: "#008000",
    3: "#ff0000",
    4: "#000080",
    5: "#800000",
    6: "#008080",
    7: "#000000",
    8: "#808080",
}
#: Hint colours, shared with the web game: flag red, proven safe green, proven mine blue.
FLAG_COLOUR = "#d32f2f"
SAFE_COLOUR = "#2e7d32"
MINE_COLOUR = "#1565c0"

#: Boards larger than this many cells are refused (an SVG of a huge board is unusable).
MAX_RENDER_CELLS = 250_000


def _rect(x: float, y: float, size: float, fill: str, extra: str = "") -> str:
    return f'<rect x="{x}" y="{y}" width="{size}" height="{size}" fill="{fill}"{extra}/>'


def _text(x: float, y: float, size: int, colour: str, body: str, extra: str = "") -> str:
    return (
        f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="middle" fill="{colour}"{extra}>{body}</text>'
    )


def render_svg(
    position: Position,
    overlay: Overlay = "none",
    cell: int = 24,
    trust_flags: bool = True,
    outlines: dict[int, str] | None = None,
) -> str:
    """The position as an SVG document; ``outlines`` draws a thick frame of the given colour
    around cells (a review's move played and the better move).

    >>> svg = render_svg(Position.from_text("3x1x1\\n1HH"), overlay="hints")
    >>> svg.startswith("<svg") and "#0000ff" in svg and "#2e7d32" in svg and "#1565c0" in svg
    True
    """
    if position.cells > MAX_RENDER_CELLS:
        raise ValueError(
            f"{position.width}x{position.height} is too large to draw (at most {MAX_RENDER_CELLS} cells)"
        )
    w, h = position.width, position.height
    st = position.states
    safe: frozenset[int] = frozenset()
    mines: frozenset[int] = frozenset()
    prob: dict[int, float] = {}
    note = ""
    if overlay != "none":
        from demine.analysis import Limit, analyze

        try:
            a = analyze(position, limit=Limit(seconds=5.0), trust_flags=trust_flags)
        except InconsistentPosition as e:
            note = f"inconsistent: {e}"
        else:
            safe, mines = a.safe, a.mines
            prob = a.float_probabilities()
            if a.approximate:
                note = "approximate probabilities (the exact count ran past its budget)"
    font = round(cell * 0.62)
    head = 16 if note else 0
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w * cell}" height="{h * cell + head}" '
        f'viewBox="0 0 {w * cell} {h * cell + head}" font-family="Verdana, sans-serif">',
        f'<rect width="{w * cell}" height="{h * cell + head}" fill="#bdbdbd"/>',
    ]
    if note:
        out.append(f'<text x="4" y="12" font-size="11" fill="#b00020">{escape(note)}</text>')
    for i, v in enumerate(st):
        r, c = divmod(i, w)
        x, y = c * cell, r * cell + head
        mid_x, mid_y = x + cell / 2, y + cell / 2 + font * 0.35
        label = f"<title>({r},{c})</title>"
        if v < COVERED:
            out.append(
                '<g class="open">' + _rect(x, y, cell, "#e0e0e0", ' stroke="#9e9e9e" stroke-width="0.5"')
            )
            out.append(label)
            if v:
                out.append(_text(mid_x, mid_y, font, NUMBER_COLOURS[v], str(v), ' font-weight="bold"'))
            out.append("</g>")
            continue
        fill, glyph, cls = "#c0c0c0", "", "covered"
        if v == FLAG:
            fill, glyph, cls = FLAG_COLOUR, "\u2691", "flag"
        elif i in safe:
            fill, glyph, cls = SAFE_COLOUR, "\u2713", "safe"
        elif i in mines:
            fill, glyph, cls = MINE_COLOUR, "\u2739", "mine"
        out.append(
            f'<g class="{cls}">' + _rect(x + 1, y + 1, cell - 2, fill, ' stroke="#fff" stroke-width="1"')
        )
        out.append(label)
        if glyph:
            out.append(_text(mid_x, mid_y, font, "#fff", glyph))
        elif overlay == "probabilities" and i in prob:
            p = prob[i]
            out.append(_rect(x + 1, y + 1, cell - 2, "#b71c1c", f' fill-opacity="{0.05 + 0.6 * p:.3f}"'))
            pct = "<1" if 0 < p < 0.01 else f"{round(100 * p)}"
            out.append(_text(mid_x, mid_y, round(font * 0.6), "#212121", pct))
        out.append("</g>")
    for i, colour in (outlines or {}).items():
        r, c = divmod(i, w)
        out.append(
            f'<rect class="outline" x="{c * cell + 2}" y="{r * cell + head + 2}" width="{cell - 4}" '
            f'height="{cell - 4}" fill="none" stroke="{escape(colour)}" stroke-width="3"/>'
        )
    out.append("</svg>")
    return "\n".join(out)
