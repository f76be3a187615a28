"""The games a review reads: demine game records (one JSON object: ``new``, the web's export),
bench record files (one JSON line a game, written with ``--record-moves``), the community's
videos (:mod:`demine.review.video`), and folders of them.
Each game is named by its file (and line), so an error or a result says which game it is."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from demine.bench.records import RecordLine, parse_lines
from demine.engine.formats import GameRecord, read_text
from demine.errors import FormatError, InputError
from demine.review.video import VIDEO_CLASSES, video_game

#: Games in a file are numbered from 1, in the file's order, by every command (``review``'s table
#: ``FILE:N``, ``review --game N``, ``replay --game N``).
GAME_BASE = 1
#: What a folder's files are read as, by their ending.
RECORD_SUFFIXES = (".json", ".jsonl", *VIDEO_CLASSES)


@dataclass(frozen=True, slots=True)
class ReviewedGame:
    """One game to review, with where it came from."""

    name: str
    """``file`` or ``file:line``."""
    record: GameRecord
    times: list[float] | None = None
    """Each move's time in seconds from the start, when the source has them."""
    player: str | None = None
    """Who played it, when the source says."""
    figures: dict[str, Any] | None = None
    """What the video's parser (ms-toollib) reports of it: 3BV, IOE, pluck, clicks, time..."""

    @property
    def clicks(self) -> int | None:
        """The video's clicks, wasted ones included (left, right and chords as its parser counts)."""
        return None if self.figures is None else int(self.figures["cl"])

    @property
    def seconds(self) -> float | None:
        """The game's time as the video's program timed it."""
        return None if self.figures is None else float(self.figures["rtime"])


def games_in(
    path: str | Path, on_error: Callable[[FormatError], None] | None = None
) -> Iterator[ReviewedGame]:
    """Every game in ``path``: a record file, or a folder searched for record files (sorted by
    name). A file that is not a game record raises :class:`FormatError` naming it; in a folder,
    with ``on_error``, the error goes there instead and the other files are read."""
    p = Path(path)
    if p.is_dir():
        files = sorted(f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in RECORD_SUFFIXES)
        if not files:
            raise FormatError(f"no game records ({', '.join(RECORD_SUFFIXES)}) in this folder", source=str(p))
        for f in files:
            try:
                yield from list(_games_in_file(f))  # a file's games all, or its error
            except FormatError as e:
                if on_error is None:
                    raise
                on_error(e)
        return
    if not p.exists():
        raise FormatError("no such file or folder", source=str(p))
    yield from _games_in_file(p)


def _read_json_text(path: Path) -> tuple[str, object]:
    """A record file's text, and its JSON when the whole text is one value (else None: several
    lines, a bench record file)."""
    try:
        text = read_text(path, "a demine record (JSON)")
    except OSError as e:
        raise FormatError(f"cannot read it ({e.strerror})", source=str(path)) from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError:
        return text, None
    return text, obj


def _games_in_file(path: Path) -> Iterator[ReviewedGame]:
    if path.suffix.lower() in VIDEO_CLASSES:
        record, times, figures = video_game(path)
        yield ReviewedGame(str(path), record, times, figures.get("player") or None, figures)
        return
    text, obj = _read_json_text(path)
    if isinstance(obj, dict) and "format" in obj:
        yield ReviewedGame(str(path), GameRecord.from_json(obj, source=str(path)))
        return
    if isinstance(obj, dict) and "mine_cells" in obj:
        raise FormatError(
            "a board without moves (demine new --board): nothing to review; a game record has its "
            "moves (the web game's Download record, demine bench --record-moves)",
            source=str(path),
        )
    found = False
    for number, line in enumerate(parse_lines(text, str(path)), start=GAME_BASE):
        found = True
        yield ReviewedGame(f"{path}:{number}", line.game(str(path)), player=line.player)
    if not found:
        raise FormatError("no games in this file", source=str(path))


def game_in(path: str | Path, number: int) -> ReviewedGame:
    """Game ``number`` of the file, counting from :data:`GAME_BASE` (1) in the file's order, as
    the review's table names them (``FILE:NUMBER``); :class:`InputError` naming the file and the
    count when there is no such game."""
    p = Path(path)
    if p.is_dir():
        raise InputError(f"--game picks a game of one file; {p} is a folder")
    if not p.exists():
        raise FormatError("no such file", source=str(p))
    lines = _bench_lines(p)
    if lines is None:  # one game: a record or a video
        count = 1
        if number == GAME_BASE:
            return next(_games_in_file(p))
    else:
        count = len(lines)
        if GAME_BASE <= number < GAME_BASE + count:
            line = lines[number - GAME_BASE]
            return ReviewedGame(f"{p}:{number}", line.game(str(p)), player=line.player)
    raise InputError(
        f"{p} holds {count} game{'' if count == 1 else 's'}: --game takes "
        f"{GAME_BASE} to {GAME_BASE + count - 1} (counting from {GAME_BASE}), got {number}"
    )


def _bench_lines(path: Path) -> list[RecordLine] | None:
    """The lines of a bench record file, or None for a file of one game (a record, a video)."""
    if path.suffix.lower() in VIDEO_CLASSES:
        return None
    text, obj = _read_json_text(path)
    return None if isinstance(obj, dict) else list(parse_lines(text, str(path)))
