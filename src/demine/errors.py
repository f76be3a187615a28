"""Errors raised by demine.

The tree::

    DemineError
     ├── InputError (also ValueError)        bad input that could not be read
     │    ├── SizeError                       a board size or mine count out of range
     │    ├── PositionSyntaxError             a text position that does not parse (line, column)
     │    └── FormatError                     a board file, MBF or game record that does not parse
     ├── IllegalMove (also ValueError)        a move that the rules do not allow now
     └── InconsistentPosition (also ValueError)
                                              a well-formed position that no mine layout explains

Every message names what is wrong: the line and column, the cell, the numbers involved.
"""

from __future__ import annotations


class DemineError(Exception):
    """Base class of every error demine raises on purpose."""


class InputError(DemineError, ValueError):
    """Input that could not be read."""


class SizeError(InputError):
    """A board size or mine count out of range."""


class PositionSyntaxError(InputError):
    """A text position that does not parse; the message gives the line and column."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        where = ""
        if line is not None:
            where = f"line {line}"
            if column is not None:
                where += f", column {column}"
            where += ": "
        super().__init__(where + message)
        self.line = line
        self.column = column


class FormatError(InputError):
    """A board file, MBF file or game record that does not parse."""

    def __init__(self, message: str, line: int | None = None, source: str | None = None) -> None:
        where = ""
        if source:
            where = f"{source}: "
        if line is not None:
            where += f"line {line}: "
        super().__init__(where + message)
        self.line = line
        self.source = source


class IllegalMove(DemineError, ValueError):
    """A move that the rules do not allow in the current state."""


class InconsistentPosition(DemineError, ValueError):
    """A position that no mine layout explains.

    ``cells`` holds the revealed numbers (and flags) in conflict; ``mine_count`` is True when the
    conflict is with the total number of mines.
    """

    def __init__(self, message: str, cells: tuple[int, ...] = (), *, mine_count: bool = False) -> None:
        super().__init__(message)
        self.cells = cells
        self.mine_count = mine_count
