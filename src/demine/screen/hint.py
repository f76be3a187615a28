"""Hints drawn over a screenshot, as the web game draws them: proven safe cells green with a
check, proven mines blue with a star, a flag that logic proves wrong red with a cross, each
covered cell's chance of a mine on request (a percentage over a red shade that deepens with
the risk), and the best move outlined, with its reason in a bar under the picture.

The hints come as the web game's JSON (:func:`demine.web.hints.hints`'s ``safe``, ``mines``,
``wrong_flags``, ``probabilities``) and the move as ``{"cell": [row, col], "text": ...}``; this
module only draws. Colours are the page's light theme (``web/static/style.css``).
"""

from __future__ import annotations

from typing import Any

from PIL import Image, ImageDraw, ImageFont

from demine.screen.read import BoardRead

SAFE = (0x2E, 0x7D, 0x32)
MINE = (0x15, 0x65, 0xC0)
FLAG = (0xD3, 0x2F, 0x2F)
BEST = (0xF9, 0xA8, 0x25)
PCT_BG = (183, 28, 28)
ON_MARK = (255, 255, 255)


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for name in ("DejaVuSans-Bold.ttf", "DejaVuSans.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default()


def draw_hints(
    image: Image.Image,
    read: BoardRead,
    hints: dict[str, Any],
    move: dict[str, Any] | None = None,
    probabilities: bool = False,
) -> Image.Image:
    """A copy of ``image`` with ``hints`` drawn over the board ``read`` found in it, and the
    move outlined with its text in a bar below."""
    base = image.convert("RGB")
    over = Image.new("RGBA", base.size, (0, 0, 0, 0))
    d = ImageDraw.Draw(over)
    w = read.width
    size = max(6, round(min(read.cell_w, read.cell_h) * 0.6))
    font = _font(size)
    small = _font(max(6, round(min(read.cell_w, read.cell_h) * 0.36)))

    def box(r: int, c: int, inset: float = 0.08) -> tuple[float, float, float, float]:
        left, top, right, bottom = read.cell_box(r * w + c)
        dx, dy = (right - left) * inset, (bottom - top) * inset
        return left + dx, top + dy, right - dx, bottom - dy

    def mark(r: int, c: int, colour: tuple[int, int, int], glyph: str) -> None:
        b = box(r, c)
        d.rectangle(b, fill=(*colour, 235))
        d.text(((b[0] + b[2]) / 2, (b[1] + b[3]) / 2), glyph, fill=ON_MARK, font=font, anchor="mm")

    marked = set()
    for r, c in hints.get("safe", []):
        mark(r, c, SAFE, "✓" if _has(font, "✓") else "+")
        marked.add((r, c))
    for r, c in hints.get("mines", []):
        if read.position.state(r * w + c) == 9:
            mark(r, c, MINE, "★" if _has(font, "★") else "*")
        marked.add((r, c))
    for r, c in hints.get("wrong_flags", []):
        mark(r, c, FLAG, "✗" if _has(font, "✗") else "x")
        marked.add((r, c))
    probs = hints.get("probabilities")
    if probabilities and probs:
        for i, pm in enumerate(probs):
            r, c = divmod(i, w)
            if pm is None or (r, c) in marked or read.position.state(i) != 9:
                continue
            b = box(r, c, 0.04)
            d.rectangle(b, fill=(*PCT_BG, round(255 * (0.10 + 0.45 * pm / 1000))))
            text = f"{pm / 10:.0f}" if pm >= 10 or pm == 0 else f"{pm / 10:.1f}"
            d.text(((b[0] + b[2]) / 2, (b[1] + b[3]) / 2), text, fill=(17, 17, 17), font=small, anchor="mm")
    out = Image.alpha_composite(base.convert("RGBA"), over).convert("RGB")
    if move is None:
        return out
    r, c = move["cell"]
    b = box(r, c, 0.0)
    draw = ImageDraw.Draw(out)
    thick = max(2, round(min(read.cell_w, read.cell_h) / 8))
    draw.rectangle(b, outline=BEST, width=thick)
    # the reason in a bar under the picture
    text = move.get("text", "")
    bar_font = _font(14)
    lines = _wrap(text, bar_font, out.width - 16)
    bar = 10 + 18 * len(lines)
    canvas = Image.new("RGB", (out.width, out.height + bar), (255, 255, 255))
    canvas.paste(out, (0, 0))
    cd = ImageDraw.Draw(canvas)
    for k, line in enumerate(lines):
        cd.text((8, out.height + 5 + 18 * k), line, fill=(33, 33, 33), font=bar_font)
    return canvas


def _has(font: ImageFont.FreeTypeFont | ImageFont.ImageFont, glyph: str) -> bool:
    return isinstance(font, ImageFont.FreeTypeFont)


def _wrap(text: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont, width: int) -> list[str]:
    words = text.split()
    lines: list[str] = []
    cur = ""
    for word in words:
        trial = f"{cur} {word}".strip()
        if cur and font.getlength(trial) > width:
            lines.append(cur)
            cur = word
        else:
            cur = trial
    if cur:
        lines.append(cur)
    return lines or [""]
