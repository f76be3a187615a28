"""What a player sees: :class:`Position`, and its text format.

Text format (compatible with JSMinesweeper's ``.mine`` files)::

    3x2x1        width x height x mines (mines may be left out or written '?': unknown)
    1FH          one line per row: H covered, F flag, 0-8 revealed number
    11H

Read leniently: ``.`` and ``?`` are covered cells, ``*`` a flag, a ``mines=N`` line gives the mine
count, blank lines and ``#`` comments are skipped, and the size line may be left out (the rows give
the size). Written strictly, as above.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from demine.engine.grid import Geometry, check_dimensions, geometry
from demine.engine.lanes import cell_numbers
from demine.engine.pickling import by_fields
from demine.errors import PositionSyntaxError, SizeError

#: Cell states in a :class:`Position`: 0-8 are revealed numbers.
COVERED: Final = 9
FLAG: Final = 10

_READ = {"H": COVERED, ".": COVERED, "?": COVERED, "F": FLAG, "*": FLAG}
_READ.update({str(d): d for d in range(9)})
_WRITE = "012345678HF"
_VALID: Final = bytes(range(FLAG + 1))

# Byte tables for ``states.translate(...)``: 1 where a state is of the kind, else 0. With
# ``itertools.compress`` or ``itemgetter`` they pick or count cells at C speed.
COVERED_MASK: Final = bytes(1 if v == COVERED else 0 for v in range(256))
FLAG_MASK: Final = bytes(1 if v == FLAG else 0 for v in range(256))
_UNFLAG: Final = bytes.maketrans(bytes([FLAG]), bytes([COVERED]))
HIDDEN_MASK: Final = bytes(1 if v in (COVERED, FLAG) else 0 for v in range(256))
_SHOW = "012345678.F"


#: Whether this module runs compiled (mypyc, an extension module): a loop over bytes then runs at
#: C speed.
_COMPILED: Final = not __file__.endswith(".py")


def changed_cells(old: bytes, new: bytes, start: int = 0) -> list[int]:
    """The indices (plus ``start``) where two byte strings of one length differ, in order. Players
    follow a game by the cells that changed since the last position (a few of hundreds). Compiled,
    up to 4096 bytes, the two are compared byte by byte (1.1 us on 480 cells, where the XOR below
    takes 3-6 us: its integers are made and freed). Else one XOR of the two read as integers (C
    speed) finds the stretch between the first and the last difference, and only that stretch is
    looked at byte by byte.

    >>> changed_cells(bytes([9, 9, 9, 9]), bytes([9, 1, 9, 10]))
    [1, 3]
    >>> changed_cells(b"ab", b"ab", 100), changed_cells(b"abc", b"abd", 100)
    ([], [102])
    """
    if _COMPILED and len(old) <= 4096:
        found: list[Any] = []
        if start:
            for i in range(len(old)):
                if old[i] != new[i]:
                    found.append(start + i)
            return found
        # the cells' number objects from the board's kept tuple (typed Any: a number made from
        # the loop's integer would be a new object for each cell past 256)
        nums: Sequence[Any] = cell_numbers(len(old))
        for i in range(len(old)):
            if old[i] != new[i]:
                found.append(nums[i])
        return found
    x = int.from_bytes(old, "little") ^ int.from_bytes(new, "little")
    if not x:
        return []
    lo = ((x & -x).bit_length() - 1) >> 3  # the first byte that differs
    hi = (x.bit_length() + 7) >> 3  # past the last one
    diff = (x >> (lo << 3)).to_bytes(hi - lo, "little")
    base = start + lo
    out = []
    for i in range(hi - lo):
        if diff[i]:
            out.append(base + i)
    return out


@dataclass(frozen=True, slots=True, eq=True)
class Position:
    """What a player sees of a board. Immutable; cheap to copy.

    >>> p = Position.from_text("3x2x1\\n1FH\\n11H")
    >>> p.mines, p.state(1) == FLAG, p.number(0)
    (1, True, 1)
    >>> print(p)
    1F.
    11.
    """

    width: int
    """Columns."""
    height: int
    """Rows."""
    states: bytes
    """One byte per cell, row-major: 0-8 a revealed number, ``COVERED`` (9) or ``FLAG`` (10)."""
    mines: int | None = None
    """The total number of mines on the board, when known."""

    def __post_init__(self) -> None:
        check_dimensions(self.width, self.height)
        if len(self.states) != self.width * self.height:
            raise SizeError(
                f"a {self.width}x{self.height} position needs {self.width * self.height} cell "
                f"states, got {len(self.states)}"
            )
        if self.states.translate(None, _VALID):  # C speed: a 1000x1000 board in under a millisecond
            bad = next(i for i, s in enumerate(self.states) if s > FLAG)
            raise SizeError(f"cell {bad} has state {self.states[bad]}, not one of 0-10")
        if self.mines is not None and not (0 <= self.mines <= self.width * self.height):
            raise SizeError(f"{self.mines} mines do not fit a {self.width}x{self.height} board")

    # ----------------------------------------------------------------- construction
    @classmethod
    def covered(cls, width: int, height: int, mines: int | None = None) -> Position:
        """A board with every cell covered."""
        check_dimensions(width, height)
        return cls(width, height, bytes([COVERED]) * (width * height), mines)

    @classmethod
    def from_rows(cls, rows: list[str], mines: int | None = None) -> Position:
        """A position from rows of text characters (``H . ?`` covered, ``F *`` flag, ``0-8``)."""
        return cls.from_text("\n".join(rows) + (f"\nmines={mines}" if mines is not None else ""))

    @classmethod
    def from_text(cls, text: str) -> Position:
        """Parse the text format (see the module docstring).

        Raises :class:`PositionSyntaxError` naming the line and column of the first problem.
        """
        header: tuple[int, int, int | None] | None = None
        header_line = 0
        mines_line: tuple[int, int] | None = None
        rows: list[tuple[int, str]] = []
        for lineno, raw in enumerate(text.splitlines(), start=1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            low = line.lower()
            if low.startswith("mines"):
                _, sep, value = low.partition("=")
                value = value.strip()
                if not sep or not value.isdigit():
                    raise PositionSyntaxError(f"expected mines=N, got {line!r}", lineno, 1)
                if mines_line is not None:
                    raise PositionSyntaxError("a second mines= line", lineno, 1)
                mines_line = (int(value), lineno)
                continue
            if "x" in low and header is None and not rows:
                header = _parse_header(line, lineno)
                header_line = lineno
                continue
            for col, ch in enumerate(line, start=1):
                if ch not in _READ:
                    raise PositionSyntaxError(
                        f"unexpected character {ch!r} in row {line!r} "
                        "(expected H . ? covered, F * flag, 0-8 revealed)",
                        lineno,
                        col,
                    )
            rows.append((lineno, line))
        if not rows:
            raise PositionSyntaxError("no rows of cells found")
        width = len(rows[0][1])
        for lineno, row in rows:
            if len(row) != width:
                raise PositionSyntaxError(
                    f"row has {len(row)} cells, the first row has {width}",
                    lineno,
                    min(len(row), width) + 1,
                )
        height = len(rows)
        mines: int | None = None
        if header is not None:
            hw, hh, hm = header
            if (hw, hh) != (width, height):
                raise PositionSyntaxError(
                    f"the header says {hw}x{hh} but the rows make {width}x{height}", header_line, 1
                )
            mines = hm
        if mines_line is not None:
            count, count_line = mines_line
            if mines is not None and mines != count:
                raise PositionSyntaxError(
                    f"mines={count} disagrees with the header's {mines} mines", count_line, 1
                )
            mines = count
        if mines is not None and mines > width * height:
            raise PositionSyntaxError(
                f"{mines} mines do not fit {width}x{height} = {width * height} cells",
                mines_line[1] if mines_line else header_line,
                1,
            )
        states = bytes(_READ[ch] for _, row in rows for ch in row)
        return cls(width, height, states, mines)

    # ----------------------------------------------------------------- output
    def to_text(self) -> str:
        """The strict text format: ``WxHxM`` (``WxH`` when the count is unknown), then rows."""
        head = f"{self.width}x{self.height}" + (f"x{self.mines}" if self.mines is not None else "")
        return head + "\n" + "\n".join(self._rows(_WRITE)) + "\n"

    def _rows(self, alphabet: str) -> Iterator[str]:
        w = self.width
        s = self.states
        for r in range(self.height):
            yield "".join(alphabet[v] for v in s[r * w : (r + 1) * w])

    def __str__(self) -> str:
        return "\n".join(self._rows(_SHOW))

    def __repr__(self) -> str:
        return f"Position.from_text({self.to_text()!r})"

    def _repr_svg_(self) -> str:
        """The position as a picture (Jupyter shows it)."""
        from demine.render import render_svg

        return render_svg(self)

    # ----------------------------------------------------------------- queries
    @property
    def geometry(self) -> Geometry:
        """Cell numbering and neighbours for this size."""
        return geometry(self.width, self.height)

    @property
    def cells(self) -> int:
        """Number of cells."""
        return self.width * self.height

    def state(self, cell: int) -> int:
        """0-8, ``COVERED`` or ``FLAG``."""
        return self.states[cell]

    def number(self, cell: int) -> int | None:
        """The revealed number at ``cell``, or None when covered or flagged."""
        v = self.states[cell]
        return v if v < COVERED else None

    def is_revealed(self, cell: int) -> bool:
        """Whether ``cell`` shows a number."""
        return self.states[cell] < COVERED

    def covered_cells(self) -> list[int]:
        """Covered, unflagged cells."""
        return [i for i, v in enumerate(self.states) if v == COVERED]

    def flagged_cells(self) -> list[int]:
        """Flagged cells."""
        return [i for i, v in enumerate(self.states) if v == FLAG]

    def unrevealed_count(self) -> int:
        """Covered plus flagged cells."""
        return self.states.count(COVERED) + self.states.count(FLAG)

    def with_mines(self, mines: int | None) -> Position:
        """A copy with another total mine count."""
        return Position(self.width, self.height, self.states, mines)

    def with_state(self, cell: int, state: int) -> Position:
        """A copy with one cell changed. Only the new state is checked (the rest was checked when
        this position was made): a search makes many such copies, and the full check of the
        dataclass's constructor was most of their cost."""
        b = bytearray(self.states)
        b[cell] = state
        if not 0 <= state <= FLAG:
            raise SizeError(f"cell {cell % len(b)} has state {state}, not one of 0-10")
        return Position.unchecked(self.width, self.height, bytes(b), self.mines)

    @staticmethod
    def unchecked(width: int, height: int, states: bytes, mines: int | None) -> Position:
        """A position from fields its caller knows to be valid (a game's own view of its board,
        a copy of a checked position), without the constructor's checks: a game makes one at
        every turn of its player, and the dataclass's constructor and checks were most of their
        cost."""
        out = Position.__new__(Position)
        setattr_ = object.__setattr__  # (the fields of a frozen dataclass)
        setattr_(out, "width", width)
        setattr_(out, "height", height)
        setattr_(out, "states", states)
        setattr_(out, "mines", mines)
        return out

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its constructor's arguments (see :mod:`demine.engine.pickling`)."""
        return by_fields(self)

    def without_flags(self) -> Position:
        """A copy with every flag taken back to covered (for when flags are only the player's
        claims)."""
        return Position(self.width, self.height, self.states.translate(_UNFLAG), self.mines)


def _parse_header(line: str, lineno: int) -> tuple[int, int, int | None]:
    parts = [p.strip() for p in line.lower().split("x")]
    if len(parts) not in (2, 3) or not all(parts[:2]) or not all(p.isdigit() for p in parts[:2]):
        raise PositionSyntaxError(f"expected a size line WxHxM like 30x16x99, got {line!r}", lineno, 1)
    width, height = int(parts[0]), int(parts[1])
    try:
        check_dimensions(width, height)
    except SizeError as e:
        raise PositionSyntaxError(str(e), lineno, 1) from None
    mines: int | None = None
    if len(parts) == 3 and parts[2] not in ("", "?"):
        if not parts[2].isdigit():
            raise PositionSyntaxError(f"the mine count {parts[2]!r} is not a number", lineno, 1)
        mines = int(parts[2])
    return width, height, mines
