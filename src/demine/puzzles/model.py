"""A puzzle: a position, what it asks, its exact answer and proof, themes and rating; the shipped
set's file format (gzip'd JSON lines) and the export's JSON line."""

from __future__ import annotations

import datetime as dt
import gzip
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from demine.engine.formats import decode_text
from demine.engine.position import Position
from demine.errors import FormatError
from demine.puzzles.symmetry import transform, transform_cell

Kind = Literal["safe", "all", "guess", "coin"]
KINDS: tuple[Kind, ...] = ("safe", "all", "guess", "coin")
#: What each kind asks, in words.
QUESTIONS = {
    "safe": "Find a cell that is proven safe.",
    "all": "Mark every proven mine and open every proven safe cell.",
    "guess": "No cell is safe: choose the guess with the best chance to win.",
    "coin": "Is this a true 50/50 (guess it now), or can you still learn something first?",
}
#: Difficulty bands by starting rating: (name, lowest rating).
BANDS = (("easy", 0.0), ("medium", 1250.0), ("hard", 1550.0), ("expert", 1850.0))
#: Where the shipped set lives.
SHIPPED = Path(__file__).resolve().parent / "data" / "puzzles.jsonl.gz"

Proof = tuple[str, tuple[int, ...]]
"""Why an answer cell is what it is: the rule (``number``, ``pair``, ``component``,
``mine-count``, or ``endgame`` for guesses) and the revealed numbers that force it."""


def band(rating: float) -> str:
    """The difficulty band of a rating."""
    name = BANDS[0][0]
    for n, low in BANDS:
        if rating >= low:
            name = n
    return name


@dataclass(frozen=True, slots=True)
class Puzzle:
    """One puzzle, with its exact answer."""

    id: str
    """``kind-`` and 12 hex digits shared by the position's rotated and mirrored copies."""
    position: Position
    """What the player sees (cropped to the part that matters)."""
    kind: Kind
    """``safe``, ``all``, ``guess`` or ``coin``."""
    answer: tuple[int, ...]
    """safe: every proven safe cell (any one is right); all: every proven cell (safe and mines);
    guess and coin: the cells with the best chance to win."""
    proof: dict[int, Proof]
    """Per answer cell: the rule and the numbers that force it."""
    themes: tuple[str, ...]
    """The rule used, patterns (``1-2-1``, ``1-2-2-1``), ``mine count``, ``50/50``..."""
    rating: float
    """Difficulty on the Glicko-2 scale (starts from the proof's size and kind)."""
    source: str
    """Where the position was met (a player's game, a video, a file, and the move)."""
    mines: tuple[int, ...] = ()
    """all: the answer cells that are mines (to flag)."""
    chances: dict[int, float] = field(default_factory=dict)
    """guess and coin: every cell's exact chance to win if opened now."""
    tempting: int | None = None
    """guess: a cell that looks as good but keeps at least 5 points less chance to win."""
    fifty: bool | None = None
    """coin: whether the pair is a true 50/50 (guessing it now costs nothing)."""
    pair: tuple[int, ...] = ()
    """coin: the two cells that hold one mine."""
    rd: float = 200.0
    """The rating's deviation (Glicko-2)."""
    layouts: int | None = None
    """How many mine layouts fit the position (None without a mine count)."""

    @property
    def difficulty(self) -> str:
        """easy, medium, hard or expert, from the rating."""
        return band(self.rating)

    @property
    def question(self) -> str:
        """What the puzzle asks."""
        return QUESTIONS[self.kind]

    @property
    def safe(self) -> tuple[int, ...]:
        """The answer cells to open (all but the mines)."""
        m = set(self.mines)
        return tuple(c for c in self.answer if c not in m)

    def share(self, cell: int) -> float | None:
        """guess and coin: the share of the best chance to win that opening ``cell`` keeps."""
        if not self.chances:
            return None
        best = max(self.chances.values())
        return 1.0 if best <= 0 else self.chances.get(cell, 0.0) / best

    def transformed(self, sym: int) -> Puzzle:
        """The same puzzle (same id, answer and rating) on the board turned or mirrored by
        symmetry ``sym`` (see :mod:`demine.puzzles.symmetry`; ``4`` swaps rows and columns)."""
        w, h = self.position.width, self.position.height

        def t(c: int) -> int:
            return transform_cell(w, h, c, sym)

        def ts(cells: tuple[int, ...]) -> tuple[int, ...]:
            return tuple(t(c) for c in cells)

        return replace(
            self,
            position=transform(self.position, sym),
            answer=ts(self.answer),
            proof={t(c): (rule, ts(nums)) for c, (rule, nums) in self.proof.items()},
            mines=ts(self.mines),
            chances={t(c): v for c, v in self.chances.items()},
            tempting=None if self.tempting is None else t(self.tempting),
            pair=ts(self.pair),
        )

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> dict[str, Any]:
        """The export's line: ``id``, ``position`` (.mine text), ``kind``, ``answer`` as
        ``[row, col]`` pairs, ``rating``, ``themes``, ``source``, then the rest."""
        w = self.position.width

        def rc(c: int) -> list[int]:
            return list(divmod(c, w))

        out: dict[str, Any] = {
            "id": self.id,
            "position": self.position.to_text(),
            "kind": self.kind,
            "answer": [rc(c) for c in self.answer],
            "rating": round(self.rating),
            "themes": list(self.themes),
            "source": self.source,
            "difficulty": self.difficulty,
            "rd": round(self.rd),
            "proof": [
                [*rc(c), rule, [rc(n) for n in nums]] for c, (rule, nums) in sorted(self.proof.items())
            ],
        }
        if self.mines:
            out["mines"] = [rc(c) for c in self.mines]
        if self.chances:
            out["chances"] = [[*rc(c), round(v, 6)] for c, v in sorted(self.chances.items())]
        if self.tempting is not None:
            out["tempting"] = rc(self.tempting)
        if self.fifty is not None:
            out["fifty"] = self.fifty
            out["pair"] = [rc(c) for c in self.pair]
        if self.layouts is not None:
            out["layouts"] = self.layouts
        return out

    @classmethod
    def from_json(cls, obj: Any, where: str = "") -> Puzzle:
        """A puzzle from its JSON object; :class:`FormatError` naming what is wrong."""
        try:
            position = Position.from_text(obj["position"])
            w, h = position.width, position.height

            def cell(pair: Any) -> int:
                r, c = int(pair[0]), int(pair[1])
                if not (0 <= r < h and 0 <= c < w):
                    raise ValueError(f"cell ({r},{c}) is off the {w}x{h} board")
                return r * w + c

            kind = obj["kind"]
            if kind not in KINDS:
                raise ValueError(f"kind {kind!r} is not one of {', '.join(KINDS)}")
            proof = {cell(p[:2]): (str(p[2]), tuple(cell(n) for n in p[3])) for p in obj.get("proof", [])}
            return cls(
                id=str(obj["id"]),
                position=position,
                kind=kind,
                answer=tuple(cell(p) for p in obj["answer"]),
                proof=proof,
                themes=tuple(str(t) for t in obj.get("themes", [])),
                rating=float(obj["rating"]),
                source=str(obj.get("source", "")),
                mines=tuple(cell(p) for p in obj.get("mines", [])),
                chances={cell(p[:2]): float(p[2]) for p in obj.get("chances", [])},
                tempting=cell(obj["tempting"]) if obj.get("tempting") is not None else None,
                fifty=bool(obj["fifty"]) if obj.get("fifty") is not None else None,
                pair=tuple(cell(p) for p in obj.get("pair", [])),
                rd=float(obj.get("rd", 200.0)),
                layouts=int(obj["layouts"]) if obj.get("layouts") is not None else None,
            )
        except FormatError:
            raise
        except (KeyError, TypeError, ValueError, IndexError) as e:
            raise FormatError(f"not a puzzle ({e!r})", source=where or None) from None


def daily(puzzles: list[Puzzle], day: dt.date | None = None) -> Puzzle:
    """The day's puzzle (UTC, today by default): the same for everyone all day, another the next."""
    d = day or dt.datetime.now(dt.UTC).date()
    ordered = sorted(puzzles, key=lambda p: p.id)
    return ordered[(d.toordinal() * 7919) % len(ordered)]


def write_puzzles(path: Path | str, puzzles: Iterable[Puzzle]) -> int:
    """Write puzzles as JSON lines, gzip'd when ``path`` ends in ``.gz``; returns how many."""
    lines = [json.dumps(p.to_json(), separators=(",", ":")) + "\n" for p in puzzles]
    data = "".join(lines).encode()
    p = Path(path)
    if p.suffix == ".gz":
        p.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    else:
        p.write_bytes(data)
    return len(lines)


def read_puzzles(path: Path | str | None = None) -> list[Puzzle]:
    """The puzzles of a file written by :func:`write_puzzles` (the shipped set by default)."""
    p = SHIPPED if path is None else Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise FormatError("no such file", source=str(p)) from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as e:  # (BadGzipFile is an OSError)
            raise FormatError(f"a gzip file that does not decompress ({e})", source=str(p)) from None
    return list(_parse(decode_text(raw, str(p), "a puzzle file"), str(p)))


def _parse(text: str, source: str) -> Iterator[Puzzle]:
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise FormatError(f"not valid JSON ({e.msg})", lineno, source) from None
        try:
            yield Puzzle.from_json(obj)
        except FormatError as e:
            raise FormatError(str(e), lineno, source) from None
