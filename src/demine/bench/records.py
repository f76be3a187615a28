"""Bench record files: one JSON line per game (``demine bench --record FILE``), read and written
here and nowhere else.

A line is ``{"player": NAME, "run": {...}, "index": ..., "won": ..., "moves": ..., "guesses": ...,
"ms": ...}`` with optional keys (``forced_found``, ``forced_exact``, ``hits``, ``variant``,
``decide_ms``: the player's own time within ``ms``, and ``game``: the whole game record with
``--record-moves``).

``run`` names what, beside the player and the index, decides the game and what the line
measured (:func:`run_of`): the board (``30x16/99``), the rule, the start, the run's seed, and
where they apply the layout's digest (a board file's game), the lives, the guess-free
certificate and mode, and ``forced`` (the forced-found share was measured). A resumed run
(``demine bench --resume``) checks each line's against its own (:func:`check_line`). Lines
written before it was kept have no ``run``: they are read as before, but cannot be resumed. A
last line cut off mid-write (a run stopped while writing it) is set aside by
:func:`read_resumable` and dropped by :func:`append_to`, so its game is played again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from demine.bench.play import GameResult, GameSpec
from demine.engine.formats import GameRecord, decode_text, read_text
from demine.errors import FormatError, InputError


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
        text = read_text(path, "a bench record")
    except FileNotFoundError:
        if missing_ok:
            return []
        raise FormatError("no such file", source=str(path)) from None
    except OSError as e:
        raise FormatError(f"cannot read it ({e.strerror or e})", source=str(path)) from None
    return list(parse_lines(text, str(path)))


@dataclass(frozen=True, slots=True)
class Resumable:
    """A record file read to be resumed (:func:`read_resumable`): its games, and how to append."""

    lines: list[RecordLine]
    """Its games."""
    size: int
    """The bytes of its whole lines: a line cut off after them is dropped when appending."""
    torn: int | None = None
    """The number of a last line cut off mid-write (a run stopped while writing it; not a game,
    so dropped and played again), or None."""
    newline: bool = False
    """The last line is whole but lacks its newline (one is written before appending)."""


def read_resumable(path: Path | str) -> Resumable:
    """A record file to resume (a missing file is an empty one), as :func:`read_records` reads
    it, except that a last line cut off mid-write (no newline, not JSON) is set aside, not an
    error: a run stopped by a full disk or a lost machine may leave one."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return Resumable([], 0)
    except OSError as e:
        raise FormatError(f"cannot read it ({e.strerror or e})", source=str(path)) from None
    head, torn, newline = data, None, False
    if data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        try:
            json.loads(data[cut:].decode("utf-8"))
            newline = True
        except ValueError:  # (JSON's errors and UTF-8's are both ValueErrors)
            head, torn = data[:cut], data[:cut].count(b"\n") + 1
    text = decode_text(head, str(path), "a bench record")
    return Resumable(list(parse_lines(text, str(path))), len(head), torn, newline)


def append_to(path: Path | str, record: Resumable) -> IO[str]:
    """``path`` opened to append games after ``record``'s whole lines (a line cut off is dropped,
    a missing newline written)."""
    p = Path(path)
    if p.exists() and (record.torn is not None or record.newline):
        with p.open("r+b") as f:
            f.truncate(record.size)
            if record.newline:
                f.seek(0, 2)
                f.write(b"\n")
    return p.open("a", encoding="utf-8")


#: The keys of a line's ``run``, as an error names them, with the value a missing key stands for.
RUN_KEYS: dict[str, tuple[str, Any]] = {
    "board": ("board", None),
    "layout": ("layout", None),
    "rule": ("rule", None),
    "start": ("start", None),
    "seed": ("seed", None),
    "lives": ("lives", 0),
    "no_guess": ("no-guess certificate", None),
    "no_guess_mode": ("no-guess mode", None),
    "forced": ("forced found measured (--forced-share, implied by --compare)", False),
}


def layout_digest(width: int, height: int, mines: Iterable[int]) -> str:
    """A short digest of a whole layout (16 hex digits of its SHA-256), to tell boards apart.

    >>> layout_digest(2, 2, [3])
    '4277976210120d79'
    """
    text = f"{width}x{height}:" + ",".join(str(c) for c in sorted(mines))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def run_of(spec: GameSpec, *, forced: bool = False) -> dict[str, Any]:
    """A record line's ``run`` for a game of ``spec``: what decides the game beside the player and
    the index (keys at their default are left out), and ``forced`` when the forced-found share is
    measured.

    >>> from demine.bench import generated_specs
    >>> run_of(generated_specs(9, 9, 10, "safe", None, 5, "s")[3])
    {'board': '9x9/10', 'rule': 'safe', 'start': '0,0', 'seed': 's'}
    """
    r, c = divmod(spec.start, spec.width)
    run: dict[str, Any] = {
        "board": f"{spec.width}x{spec.height}/{spec.mines}",
        "rule": spec.rule,
        "start": f"{r},{c}",
        "seed": spec.seed.removesuffix(f"/{spec.index}"),  # the run's (a game's is SEED/INDEX)
    }
    if spec.layout is not None:
        run["layout"] = layout_digest(spec.width, spec.height, spec.layout)
    if spec.lives:
        run["lives"] = spec.lives
    if spec.no_guess is not None:
        run["no_guess"] = spec.no_guess
        if spec.layout is None:  # (a given layout is not drawn)
            run["no_guess_mode"] = spec.no_guess_mode
    if forced:
        run["forced"] = True
    return run


def run_differences(recorded: Mapping[str, Any], expected: Mapping[str, Any]) -> list[str]:
    """What differs between a line's ``run`` and this run's, each as ``NAME: X (this run: Y)``.

    >>> run_differences({"board": "9x9/10", "seed": "a"}, {"board": "30x16/99", "seed": "a"})
    ['board: 9x9/10 (this run: 30x16/99)']
    """
    out = []
    others = sorted((recorded.keys() | expected.keys()) - RUN_KEYS.keys())
    for key in [*RUN_KEYS, *others]:
        name, default = RUN_KEYS.get(key, (key, None))
        a, b = recorded.get(key, default), expected.get(key, default)
        if a != b:
            out.append(f"{name}: {_shown(key, a)} (this run: {_shown(key, b)})")
    return out


def _shown(key: str, value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if key in ("board", "start", "layout"):  # (their own notation; a seed or a rule is quoted)
        return str(value)
    return repr(value)


def check_line(
    line: RecordLine,
    specs: Mapping[int, GameSpec],
    players: Sequence[str],
    source: str,
    *,
    forced: bool = False,
    unchecked_ok: bool = False,
) -> bool:
    """Raise :class:`InputError` unless ``line`` records a game of the run that plays ``specs``
    (by index) with ``players``: the message names the line and each thing that differs (its
    player, its ``run``: :func:`run_of`), or says that the line is older than the ``run`` key and
    cannot be checked (unless ``unchecked_ok``). Returns whether the line's game is one of
    ``specs``; a line beyond them is checked as far as it can be (a generated run's games differ
    only by their index; a board file's beyond those played cannot be)."""
    where = f"{source}: line {line.line}"
    if line.player not in players:
        who = "no player" if line.player is None else f"a game of {line.player}"
        raise InputError(
            f"{where}: {who}, which this run does not play ({', '.join(players)}); resume with the "
            "players that made the record (--player, --compare, --set), or record this run to a new file"
        )
    spec = specs.get(line.result.index)
    mine = spec is not None
    if spec is None and specs:
        first = next(iter(specs.values()))
        spec = first if first.layout is None else None
    run = line.extra.get("run")
    if run is None:
        if unchecked_ok:
            return mine
        raise InputError(
            f"{where}: written before record lines named their run (board, rule, start, seed, ...), "
            "so it cannot be checked against this one; record this run to a new file"
        )
    if not isinstance(run, dict):
        raise InputError(f"{where}: 'run' is {run!r}, not an object")
    diff = [] if spec is None else run_differences(run, run_of(spec, forced=forced))
    if diff:
        raise InputError(
            f"{where}: a game of another run: {'; '.join(diff)}. Resume with the options that made "
            "the record, or record this run to a new file"
        )
    return mine


def resumed_games(
    lines: Iterable[RecordLine],
    specs: Sequence[GameSpec],
    players: Sequence[str],
    source: str,
    *,
    forced: bool = False,
    moves: bool = False,
) -> tuple[dict[str, list[GameResult]], int]:
    """The games a record already holds of the run that plays ``specs`` with ``players`` (its
    forced-found share measured with ``forced``, its moves kept with ``moves``), by player, and
    the number of lines of games beyond ``specs`` (not played by this run, so not counted).

    Raises :class:`InputError` naming the line when one is not of this run (:func:`check_line`),
    repeats a game, or lacks the moves this run keeps (or keeps moves this run does not):
    resuming it would mix runs."""
    by_index = {sp.index: sp for sp in specs}
    done: dict[str, list[GameResult]] = {}
    seen: dict[tuple[str | None, int], int] = {}
    beyond = 0
    for line in lines:
        mine = check_line(line, by_index, players, source, forced=forced)
        where, index = f"{source}: line {line.line}", line.result.index
        first = seen.setdefault((line.player, index), line.line)
        if first != line.line:
            raise InputError(f"{where}: game {index} of {line.player} again (first at line {first})")
        if moves and line.result.game is None:
            raise InputError(
                f"{where}: no moves, and this run records them (--record-moves); resume without "
                "--record-moves, or record this run to a new file"
            )
        if not moves and line.result.game is not None:
            raise InputError(f"{where}: the game's moves are recorded: give --record-moves to resume it")
        if mine and line.player is not None:
            done.setdefault(line.player, []).append(line.result)
        else:
            beyond += 1
    return done, beyond
