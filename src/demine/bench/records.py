"""Bench record files: one JSON line per game (``demine bench --record FILE``), read and written
here and nowhere else.

A line is ``{"player": NAME, "index": ..., "won": ..., "moves": ..., "guesses": ..., "ms": ...}``
with optional keys (``forced_found``, ``forced_exact``, ``hits``, ``variant``, ``decide_ms``: the
player's own time within ``ms``, and ``game``: the whole game record with ``--record-moves``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from demine.bench.play import GameResult
from demine.engine.formats import GameRecord
from demine.errors import FormatError


@dataclass(frozen=True, slots=True)
class RecordLine:
    """One game of a bench record file."""

    player: str | None
    """The player's name as the run labelled it (``best``, ``best(depth=2)``)."""
    result: GameResult
    """How the game went."""
    line: int
    """The line it was read from (1-based)."""
    extra: dict[str, Any]
    """The line's other keys (``variant``, ...)."""

    def game(self, source: str | None = None) -> GameRecord:
        """The whole game (lines written with ``--record-moves``), or :class:`FormatError`."""
        if not isinstance(self.result.game, dict):
            raise FormatError("no moves on this line (record with --record-moves)", self.line, source)
        try:
            return GameRecord.from_json(self.result.game)
        except FormatError as e:
            raise FormatError(str(e), self.line, source) from None


def record_line(player: str, result: GameResult, **extra: Any) -> str:
    """The JSON line of one game (with its newline)."""
    return json.dumps({"player": player, **extra, **result.to_json()}) + "\n"


def append_result(out: IO[str], player: str, result: GameResult, **extra: Any) -> None:
    """Write one game's line to an open record file and flush it (a run can be resumed from it)."""
    out.write(record_line(player, result, **extra))
    out.flush()


def write_results(path: Path | str, player: str, results: Iterable[GameResult], **extra: Any) -> None:
    """A record file of these games, replacing ``path``."""
    Path(path).write_text("".join(record_line(player, r, **extra) for r in results), encoding="utf-8")


def parse_lines(text: str, source: str | None = None) -> Iterator[RecordLine]:
    """The games of a record file's text; a line that is not a game raises :class:`FormatError`
    naming the file and the line."""
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            if not isinstance(obj, dict):
                raise TypeError("not a JSON object")
            result = GameResult.from_json(obj)
        except json.JSONDecodeError as e:
            raise FormatError(f"not valid JSON ({e.msg} at column {e.colno})", lineno, source) from None
        except (KeyError, TypeError, ValueError) as e:
            raise FormatError(f"not a bench record line ({e!r})", lineno, source) from None
        player = obj.get("player")
        known = {"player", *GameResult.__dataclass_fields__}
        extra = {k: v for k, v in obj.items() if k not in known}
        yield RecordLine(player if isinstance(player, str) else None, result, lineno, extra)


def read_records(path: Path | str, missing_ok: bool = False) -> list[RecordLine]:
    """Every game of a record file (:class:`FormatError` naming the file when it cannot be read;
    with ``missing_ok`` a missing file is an empty one)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        if missing_ok:
            return []
        raise FormatError("no such file", source=str(path)) from None
    except (OSError, UnicodeDecodeError) as e:
        raise FormatError(f"cannot read it ({e})", source=str(path)) from None
    return list(parse_lines(text, str(path)))
