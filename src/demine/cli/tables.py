"""Tables on the terminal, drawn by Rich (the ``cli`` extra): numbers are never cut, whatever the
width; text (names, marks) wraps.

Each number column is exactly as wide as its widest cell, so Rich takes the room a table lacks from
its text columns alone. A table too wide for the console is drawn more compactly, step by step
(:data:`STYLES`): headers on two lines, then lighter borders, then tighter gaps; where even that
cannot fit, each row is written as a wrapped line of ``header value`` pairs. A text column keeps at
least :data:`TEXT_FLOOR` characters (its longest word, where shorter), so a name does not wrap a
few characters a line.

The width is the terminal's; ``COLUMNS`` when set (a terminal or not); otherwise, where output
is not a terminal (a pipe, a file, a CI log), :data:`PIPE_WIDTH`.
"""

from __future__ import annotations

import textwrap
from collections.abc import Collection, Mapping, Sequence
from typing import Any

#: The width of output that is not a terminal, when ``COLUMNS`` is not set.
PIPE_WIDTH = 120

#: The fewest characters a text column is given (its longest word, where shorter).
TEXT_FLOOR = 16

#: The ways a table is drawn, from the roomiest: whether headers go on two lines, then the
#: ``rich.table.Table`` options (its box by name, from ``rich.box``).
STYLES: tuple[tuple[bool, dict[str, Any]], ...] = (
    (False, {"box": "HEAVY_HEAD"}),
    (True, {"box": "HEAVY_HEAD"}),
    (True, {"box": "SIMPLE_HEAD", "show_edge": False, "pad_edge": False, "collapse_padding": True}),
    (True, {"box": "SIMPLE_HEAD", "show_edge": False, "padding": (0, 0)}),
)


def console() -> Any | None:
    """A Rich console as wide as the output (see the module's docstring), or None without Rich."""
    try:
        from rich.console import Console
    except ImportError:
        return None
    from demine.text import output_width

    return Console(width=output_width() or PIPE_WIDTH)


def two_lines(header: str) -> str:
    """A header on two lines: before its last ``/``, else at its middle space, else as it is.

    >>> two_lines("guesses/game"), two_lines("95% CI"), two_lines("mines hit/game"), two_lines("wins")
    ('guesses\\n/game', '95%\\nCI', 'mines hit\\n/game', 'wins')
    """
    if "/" in header[1:]:
        at = header.rindex("/")
        return header[:at] + "\n" + header[at:]
    spaces = [i for i, ch in enumerate(header) if ch == " "]
    if not spaces:
        return header
    at = min(spaces, key=lambda i: abs(len(header) - 2 * i))
    return header[:at] + "\n" + header[at + 1 :]


def print_table(
    out: Any,
    title: str,
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    text: Collection[str] = (),
    left: Collection[str] = (),
    stacked: Mapping[str, str] | None = None,
) -> None:
    """Draw ``rows`` under ``header`` on the Rich console ``out``, in the roomiest of
    :data:`STYLES` that fits its width, else as wrapped lines. Columns named in ``text`` wrap (the
    others hold numbers and short words, never cut); those in ``left`` (and ``text``) are
    left-aligned. ``stacked`` gives a header's two-line form where :func:`two_lines` would not
    (``"need-\\nless"``)."""
    from rich import box
    from rich.cells import cell_len
    from rich.measure import Measurement
    from rich.table import Table

    def build(heads: Sequence[str], options: dict[str, Any], floor: int | None) -> Table:
        """The table; with ``floor``, a probe whose text columns are at most that wide (their
        longest word, where shorter), to measure the least width the table needs."""
        table = Table(title=title, **{**options, "box": getattr(box, options["box"])})
        for i, (name, head) in enumerate(zip(header, heads, strict=True)):
            lines = [cell_len(x) for x in head.split("\n")] + [cell_len(row[i]) for row in rows]
            if name in text:
                words = [cell_len(w) for row in rows for w in row[i].split()] + lines[:1]
                table.add_column(
                    head, overflow="fold", max_width=None if floor is None else min(floor, max(words))
                )
            else:
                table.add_column(
                    head, justify="left" if name in left else "right", width=max(lines), no_wrap=True
                )
        for row in rows:
            table.add_row(*row)
        return table

    def heads(on_two: bool) -> list[str]:
        """The headers, those wider than their column's cells on two lines with ``on_two``."""
        chosen = []
        for i, h in enumerate(header):
            widest = max((cell_len(row[i]) for row in rows), default=0)
            two = (stacked or {}).get(h) or two_lines(h)
            chosen.append(two if on_two and h not in text and cell_len(h) > widest else h)
        return chosen

    width = out.width
    roomy = out.options.update_width(10 * width)  # (a measure is capped at the width it is given)
    # names whole where a style allows it, else folded to TEXT_FLOOR
    for floor in (10 * width, TEXT_FLOOR):
        for on_two, options in STYLES:
            probe = build(heads(on_two), options, floor)
            if Measurement.get(out, roomy, probe).minimum <= width:
                out.print(build(heads(on_two), options, None))
                return
    # narrower than the tightest table: a line a row, wrapped between its pairs (each kept whole)
    out.print(title, style="bold", highlight=False)
    for row in rows:
        first = f"{row[0]}:" if header[0] in text else f"{header[0]} {row[0]}:"
        pairs = [f"{h} {v}".replace(" ", "\xa0") for h, v in zip(header[1:], row[1:], strict=True) if v]
        line = textwrap.fill(
            " ".join([first.replace(" ", "\xa0"), ", ".join(pairs)]),
            width=width,
            subsequent_indent="  ",
            break_on_hyphens=False,
        )
        out.print(line.replace("\xa0", " "), highlight=False, markup=False, soft_wrap=True)
