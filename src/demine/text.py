"""Words for numbers in messages: plurals, and counts too long to read.

>>> plural(1, "layout"), plural(3, "layout"), plural(2, "mine is", "mines are")
('1 layout', '3 layouts', '2 mines are')
>>> big_count(165), big_count(10**98)
('165', '1.0e98')
"""

from __future__ import annotations

import ast
import inspect
import itertools
import os
import re
import sys
import textwrap

#: Counts with more digits than this are shown as a mantissa and an exponent.
BIG_DIGITS = 12


def plural(n: int, one: str, many: str | None = None) -> str:
    """``n`` and the word for it: ``one`` when ``n`` is 1, else ``many`` (default: ``one`` + s)."""
    return f"{n} {one if n == 1 else (many if many is not None else one + 's')}"


def big_count(n: int) -> str:
    """An exact count as people read it: in full up to :data:`BIG_DIGITS` digits, else like
    ``1.2e98`` (two significant figures, computed from the integer, so exact to that rounding
    however large ``n`` is; machine-readable output keeps the exact integer)."""
    digits = str(abs(n))
    if len(digits) <= BIG_DIGITS:
        return str(n)
    exponent = len(digits) - 1
    head = (int(digits[:3]) + 5) // 10  # two significant figures, rounded half up on the third
    if head == 100:  # 9.96e.. rounds up to 1.0e(..+1)
        head, exponent = 10, exponent + 1
    sign = "-" if n < 0 else ""
    return f"{sign}{head // 10}.{head % 10}e{exponent}"


def terminal_width(default: int = 100) -> int:
    """The width output is read at (:func:`output_width`), or ``default`` where it is not known."""
    return output_width() or default


def output_width() -> int:
    """The width to fold output to: ``COLUMNS`` when set; else the width of the terminal on
    standard output, or where that is a pipe or a file, of the one on standard error or input
    (``demine ... | less`` is read there); 0 where there is none (a script, a CI log)."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    for stream in (sys.stdout, sys.stderr, sys.stdin):
        try:
            return os.get_terminal_size(stream.fileno()).columns
        except (AttributeError, OSError, ValueError):  # not a terminal, or no file behind it
            continue
    return 0


def fold(text: str, indent: str = "") -> str:
    """``text`` folded to the output's width (:func:`output_width`: one line where output is not
    a terminal and ``COLUMNS`` is not set), the lines after the first after ``indent``."""
    return wrap(text, indent=indent, width=output_width())


def wrap(text: str, first: str = "", indent: str = "", width: int | None = None) -> str:
    """``text`` folded to ``width`` (default: the terminal's; 0: one line), the first line after
    ``first``, the others after ``indent``; a no-break space (``\\xa0``) keeps two words on one
    line and is written as a space.

    >>> print(wrap("a bb\xa0cc dd", width=40).replace(" ", "_"))
    a_bb_cc_dd
    """
    if width == 0:
        return (first + text).replace("\xa0", " ")
    return textwrap.fill(
        text,
        width=max(40, terminal_width() if width is None else width),
        initial_indent=first,
        subsequent_indent=indent or first,
        break_long_words=False,
        break_on_hyphens=False,
    ).replace("\xa0", " ")


def field_docs(cls: type) -> dict[str, str]:
    """Each field's docstring (the string literal under it in the class body), in one line.

    >>> from demine.players.best import BestSettings
    >>> field_docs(BestSettings)["depth"].split(":")[0]
    'Reveals the look-ahead scores'
    """
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError):  # no source (a frozen or compiled module)
        return {}
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    docs = {}
    for node, after in itertools.pairwise(body):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            plain = re.sub(r":\w+:`~?([^`]+)`", r"\1", after.value.value).replace("``", "")
            docs[node.target.id] = " ".join(plain.split())
    return docs
