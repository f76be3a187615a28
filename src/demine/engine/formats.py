"""File formats: board files (JSON lines), MBF, and game records.

- **Board file**: one layout per line, JSON::

      {"width": 30, "height": 16, "mines": 99, "rule": "safe", "start": [0, 0],
       "mine_cells": [[r, c], ...]}

  ``demine bench --boards FILE`` replays exactly these games.
- **MBF** (binary): width byte, height byte, mine count (2 bytes, big-endian), then one ``x, y``
  byte pair per mine.
- **Game record** (JSON): the layout, rule, start and every move; written atomically.

Text files are read as UTF-8 (a byte-order mark is dropped): :func:`read_text` names the file
and the first byte that is not UTF-8, where a binary file or another encoding is given.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from demine.engine.game import MOVE_KINDS, Game, Move
from demine.engine.grid import RULES, check_mines, default_start, geometry
from demine.errors import DemineError, FormatError


@dataclass(frozen=True, slots=True)
class Board:
    """A whole mine layout to replay, with the rule and start cell it is played under."""

    width: int
    """Columns."""
    height: int
    """Rows."""
    mine_cells: tuple[int, ...]
    """The mines, as sorted cells."""
    rule: str = "safe"
    """The first-click rule the layout was drawn under."""
    start: int | None = None
    """The first click (a cell), if fixed."""
    no_guess: str | None = None
    """``complete`` or ``local`` when the layout was certified guess-free from ``start`` (see
    :mod:`demine.analysis.noguess`), else None."""

    @property
    def mines(self) -> int:
        """Number of mines."""
        return len(self.mine_cells)

    def game(self, lives: int = 0) -> Game:
        """A fresh :class:`Game` on this layout (``lives``: see :attr:`Game.lives`)."""
        g = Game.from_layout(self.width, self.height, self.mine_cells, rule=self.rule, lives=lives)
        g.no_guess = self.no_guess
        return g

    def to_json(self) -> dict[str, Any]:
        """The board-file object for this board."""
        g = geometry(self.width, self.height)
        d: dict[str, Any] = {
            "width": self.width,
            "height": self.height,
            "mines": self.mines,
            "rule": self.rule,
        }
        if self.start is not None:
            d["start"] = list(g.rowcol(self.start))
        d["mine_cells"] = [list(g.rowcol(c)) for c in self.mine_cells]
        if self.no_guess is not None:
            d["no_guess"] = self.no_guess
        return d

    @classmethod
    def from_game(cls, game: Game) -> Board:
        """The layout of a game whose mines are placed."""
        return cls(game.width, game.height, tuple(game.mine_cells()), game.rule, game.start, game.no_guess)


def _cell_pair(value: Any, width: int, height: int, what: str) -> int:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise FormatError(f"{what} must be a [row, col] pair of whole numbers, got {value!r}")
    r, c = value
    if not (0 <= r < height and 0 <= c < width):
        raise FormatError(f"{what} [{r}, {c}] is off the {width}x{height} board")
    return int(r * width + c)


def _int_field(obj: dict[str, Any], key: str) -> int:
    v = obj.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise FormatError(f"{key!r} must be a whole number, got {v!r}")
    return v


def board_from_json(obj: Any) -> Board:
    """Check and convert one board-file object. Raises :class:`FormatError`."""
    if not isinstance(obj, dict):
        raise FormatError(f"expected a JSON object, got {type(obj).__name__}")
    missing = [k for k in ("width", "height", "mine_cells") if k not in obj]
    if missing:
        raise FormatError(f"missing key(s): {', '.join(missing)}")
    width, height = _int_field(obj, "width"), _int_field(obj, "height")
    try:
        check_mines(width, height, 0)
    except DemineError as e:
        raise FormatError(str(e)) from None
    cells_raw = obj["mine_cells"]
    if not isinstance(cells_raw, list):
        raise FormatError("'mine_cells' must be a list of [row, col] pairs")
    cells = [_cell_pair(v, width, height, "mine cell") for v in cells_raw]
    if len(set(cells)) != len(cells):
        raise FormatError("'mine_cells' names a cell twice")
    if "mines" in obj and _int_field(obj, "mines") != len(cells):
        raise FormatError(f"'mines' is {obj['mines']} but 'mine_cells' lists {len(cells)} cells")
    rule = obj.get("rule", "safe")
    if rule not in RULES:
        raise FormatError(f"unknown rule {rule!r}; choose one of {', '.join(RULES)}")
    start = None
    if obj.get("start") is not None:
        start = _cell_pair(obj["start"], width, height, "start")
    if len(cells) >= width * height and rule != "none":
        raise FormatError("every cell is a mine")
    no_guess = obj.get("no_guess")
    if no_guess is not None and no_guess not in ("complete", "local"):
        raise FormatError(f'\'no_guess\' must be "complete" or "local", got {no_guess!r}')
    return Board(width, height, tuple(sorted(cells)), rule, start, no_guess)


def read_boards(path: str | Path) -> list[Board]:
    """Read a board file; errors name the file and line."""
    return list(iter_boards(read_text(path, "a board file").splitlines(), source=str(path)))


def decode_text(data: bytes, source: str, what: str = "the file") -> str:
    """UTF-8 text from ``data`` (a byte-order mark dropped); :class:`FormatError` naming
    ``source`` and the first byte that is not UTF-8 where it is not (``what`` names what it
    should have been, in the message).

    >>> decode_text(b"\\xef\\xbb\\xbf9x9x10", "p.mine")
    '9x9x10'
    >>> decode_text(b"\\x89PNG", "p.mine", "a position file")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    demine.errors.FormatError: p.mine: not UTF-8 text: byte 0x89 at offset 0 (a binary file, ...
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise FormatError(
            f"not UTF-8 text: byte {data[e.start]:#04x} at offset {e.start} (a binary file, or another "
            f"encoding); {what} is UTF-8 text",
            source=source,
        ) from None


def read_text(path: str | Path, what: str = "the file") -> str:
    """A text file's text, as :func:`decode_text` reads it (:class:`OSError` where it cannot
    be read)."""
    return decode_text(Path(path).read_bytes(), str(path), what)


def iter_boards(lines: Iterable[str], source: str | None = None) -> Iterator[Board]:
    """Parse board-file lines (blank lines and ``#`` comments are skipped)."""
    for lineno, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as e:
            raise FormatError(f"not valid JSON ({e.msg} at column {e.colno})", lineno, source) from None
        try:
            yield board_from_json(obj)
        except FormatError as e:
            raise FormatError(str(e), lineno, source) from None


def write_boards(path: str | Path, boards: Iterable[Board]) -> None:
    """Write a board file atomically."""
    atomic_write(path, "".join(json.dumps(b.to_json()) + "\n" for b in boards))


# ---------------------------------------------------------------------------- MBF
def board_to_mbf(board: Board) -> bytes:
    """Encode a layout as MBF. Sides and coordinates must fit a byte (at most 255)."""
    if board.width > 255 or board.height > 255 or board.mines > 0xFFFF:
        raise FormatError(
            f"MBF holds boards up to 255x255 with 65535 mines; this one is "
            f"{board.width}x{board.height} with {board.mines}"
        )
    out = bytearray([board.width, board.height, board.mines >> 8, board.mines & 0xFF])
    for c in board.mine_cells:
        y, x = divmod(c, board.width)
        out += bytes([x, y])
    return bytes(out)


def board_from_mbf(data: bytes, source: str | None = None) -> Board:
    """Decode MBF. Raises :class:`FormatError` naming the byte offset of a problem."""
    if len(data) < 4:
        raise FormatError(f"an MBF file has at least 4 bytes, this one has {len(data)}", source=source)
    width, height = data[0], data[1]
    mines = (data[2] << 8) | data[3]
    if width == 0 or height == 0:
        raise FormatError(f"the board size {width}x{height} has a zero side", source=source)
    if len(data) != 4 + 2 * mines:
        raise FormatError(
            f"{mines} mines need {4 + 2 * mines} bytes, the file has {len(data)}", source=source
        )
    cells: list[int] = []
    seen: set[int] = set()
    for i in range(mines):
        x, y = data[4 + 2 * i], data[5 + 2 * i]
        if x >= width or y >= height:
            raise FormatError(
                f"mine {i + 1} at byte {4 + 2 * i}: (x={x}, y={y}) is off the {width}x{height} board",
                source=source,
            )
        c = y * width + x
        if c in seen:
            raise FormatError(f"mine {i + 1} at byte {4 + 2 * i}: (x={x}, y={y}) listed twice", source=source)
        seen.add(c)
        cells.append(c)
    return Board(width, height, tuple(sorted(cells)), "none", None)


# ---------------------------------------------------------------------------- records
RECORD_FORMAT = "demine-game"


MoveNote = tuple[str, float | None]
"""Why a player made a move, and the move's chance of hitting a mine (None: not known)."""


@dataclass(slots=True)
class GameRecord:
    """A whole game: its layout, rule, start, and every move, replayable."""

    board: Board
    """The layout, rule and start cell."""
    moves: list[Move] = field(default_factory=list)
    """Every move, in order."""
    seed: int | str | None = None
    """The seed the layout was drawn with, if any."""
    notes: list[MoveNote | None] = field(default_factory=list)
    """Per move (when a player made it): its reason and its chance of a mine, if known."""
    lives: int = 0
    """Mines the game let the player hit and play on."""

    @classmethod
    def from_game(cls, game: Game, notes: list[MoveNote | None] | None = None) -> GameRecord:
        """Record a game whose layout is placed (with the player's notes per move, if any)."""
        return cls(Board.from_game(game), list(game.moves), game.seed, list(notes or []), game.lives)

    def note(self, k: int) -> MoveNote | None:
        """The note of move ``k`` (0-based), if there is one."""
        return self.notes[k] if k < len(self.notes) else None

    def replay(self, upto: int | None = None) -> Game:
        """A game on the layout with the first ``upto`` moves (all by default) played."""
        g = self.board.game(self.lives)
        for mv in self.moves[:upto]:
            g.play(mv)
        return g

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON object."""
        geo = geometry(self.board.width, self.board.height)
        d = {"format": RECORD_FORMAT, "version": 1, **self.board.to_json(), "seed": self.seed}
        moves: list[list[Any]] = []
        for k, m in enumerate(self.moves):
            entry: list[Any] = [m.kind, *geo.rowcol(m.cell)]
            note = self.note(k)
            if note is not None:
                entry += [note[0], note[1]]
            moves.append(entry)
        d["moves"] = moves
        if self.lives:
            d["lives"] = self.lives
        return d

    @classmethod
    def from_json(cls, obj: Any, source: str | None = None) -> GameRecord:
        """Check and convert a record object; errors name what is wrong."""
        if not isinstance(obj, dict) or obj.get("format") != RECORD_FORMAT:
            raise FormatError(f'not a demine game record (no "format": "{RECORD_FORMAT}")', source=source)
        try:
            board = board_from_json(obj)
        except FormatError as e:
            raise FormatError(str(e), source=source) from None
        raw = obj.get("moves", [])
        if not isinstance(raw, list):
            raise FormatError("'moves' must be a list", source=source)
        moves = []
        notes: list[MoveNote | None] = []
        for i, m in enumerate(raw, start=1):
            if not (isinstance(m, list) and len(m) in (3, 5) and m[0] in MOVE_KINDS):
                raise FormatError(
                    f"move {i} must be [kind, row, col] or [kind, row, col, reason, p] with kind one of "
                    f"{MOVE_KINDS}, got {m!r}",
                    source=source,
                )
            if len(m) == 5:
                if not isinstance(m[3], str) or not (m[4] is None or isinstance(m[4], int | float)):
                    raise FormatError(
                        f"move {i}: a note is a reason and a probability, got {m[3:]!r}", source=source
                    )
                notes.append((m[3], None if m[4] is None else float(m[4])))
            else:
                notes.append(None)
            try:
                cell = _cell_pair(m[1:3], board.width, board.height, f"move {i}")
            except FormatError as e:
                raise FormatError(str(e), source=source) from None
            moves.append(Move(m[0], cell))
        seed = obj.get("seed")
        if seed is not None and not isinstance(seed, int | str):
            raise FormatError(f"'seed' must be a number or text, got {seed!r}", source=source)
        lives = obj.get("lives", 0)
        if not isinstance(lives, int) or lives < 0:
            raise FormatError(f"'lives' must be a whole number >= 0, got {lives!r}", source=source)
        rec = cls(board, moves, seed, notes if any(n is not None for n in notes) else [], lives)
        try:
            rec.replay()
        except DemineError as e:
            raise FormatError(f"the moves do not replay on the layout: {e}", source=source) from None
        return rec

    def save(self, path: str | Path) -> None:
        """Write the record atomically (a crash never leaves half a file)."""
        atomic_write(path, json.dumps(self.to_json()) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        """Read a record written by :meth:`save`."""
        text = read_text(path, "a game record")
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as e:
            raise FormatError(
                f"not valid JSON ({e.msg} at line {e.lineno}, column {e.colno})", source=str(path)
            ) from None
        return cls.from_json(obj, source=str(path))


def current_umask() -> int:
    """The process's umask (read without changing it where the system says it: Linux's
    ``/proc/self/status``; elsewhere set and restored at once)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename.

    The file gets the mode a plain ``open(path, "w")`` would give it: an existing file keeps its
    own, a new one is readable as the umask allows (``0o666 & ~umask``), not the temporary
    file's private 0o600."""
    path = Path(path)
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o666 & ~current_umask()
    fd, tmp = tempfile.mkstemp(dir=path.parent or ".", prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def start_for(board: Board) -> int:
    """The first click to play a board: its own start, or the usual one for its rule."""
    if board.start is not None:
        return board.start
    return default_start(board.width, board.height, board.rule)
