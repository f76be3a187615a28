"""What a long run of the command line needs around it: its progress on a terminal or in a log,
a stop by a signal that lets its workers go as Ctrl-C does, and the bench record it writes to,
which says after a stop how to go on (docs/big-runs.md)."""

from __future__ import annotations

import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

from demine.bench import GameResult
from demine.bench.records import Resumable, append_result, append_to, read_resumable
from demine.errors import FormatError

#: How often a run whose progress goes to a log, not a terminal, writes a line of it (seconds).
LOG_EVERY = 300.0


def clock_time(seconds: float) -> str:
    """A duration as H:MM:SS.

    >>> clock_time(3725.4)
    '1:02:05'
    """
    s = round(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


class LogProgress:
    """Progress as a line on stderr every ``every`` seconds (a run into a log file, or with no
    Rich): how many are done of how many, the time so far and the time left at this run's pace
    (items read from a record, ``done``, are counted as done but not in the pace)."""

    def __init__(
        self,
        total: int,
        label: str,
        done: int = 0,
        every: float = LOG_EVERY,
        clock: Callable[[], float] = time.monotonic,
        out: IO[str] | None = None,
    ) -> None:
        self.total, self.label, self.done, self.every, self.clock = total, label, done, every, clock
        self.out = out
        self.start = self.last = clock()
        self.played = 0

    def tick(self, item: object = None) -> None:
        self.done += 1
        self.played += 1
        now = self.clock()
        if now - self.last < self.every or self.done >= self.total:
            return
        self.last = now
        spent = now - self.start
        left = spent / self.played * (self.total - self.done)
        print(
            f"progress: {self.label}: {self.done:,} of {self.total:,} ({100 * self.done / self.total:.1f}%), "
            f"{clock_time(spent)} so far, about {clock_time(left)} left",
            file=self.out or sys.stderr,
            flush=True,
        )


def progress(
    total: int, label: str, done: int = 0, every: float = LOG_EVERY
) -> tuple[Callable[[object], None], Callable[[], None]]:
    """Progress of ``total`` items of which ``done`` are done already: a call per item done, and one
    to stop it. A bar on a terminal (Rich), else a line every ``every`` seconds on stderr
    (:class:`LogProgress`)."""
    if sys.stderr.isatty():
        try:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
        except ImportError:
            pass
        else:
            bar = Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                transient=True,
            )
            bar.start()
            task = bar.add_task(label, total=total, completed=done)
            return (lambda r: bar.advance(task)), bar.stop
    log = LogProgress(total, label, done, every)
    return log.tick, (lambda: None)


class Stopped(KeyboardInterrupt):
    """A run stopped by a signal (SIGTERM, SIGHUP), handled as Ctrl-C is."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum
        """The signal's number."""

    @property
    def name(self) -> str:
        """The signal's name (``SIGTERM``)."""
        return signal.Signals(self.signum).name


@contextmanager
def stops_on_signals() -> Iterator[None]:
    """Within: SIGTERM and SIGHUP stop the run as Ctrl-C does (:class:`Stopped`), so a pool's
    workers are let go and the record is closed whole; by default they end this process alone.
    A signal that is ignored (``nohup``) or handled already is left as it is, and so is every
    signal outside the main thread."""

    def stop(signum: int, frame: Any) -> None:
        raise Stopped(signum)

    old: dict[int, Any] = {}
    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is None or signal.getsignal(sig) is not signal.SIG_DFL:
            continue
        try:
            old[sig] = signal.signal(sig, stop)
        except ValueError:  # (not the main thread)
            break
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


class RecordOut:
    """The record file a bench writes its games to as they come (``--record``, or ``--resume``
    appending), counting the games it holds, so that a stopped run can say what it kept."""

    def __init__(self, path: str, resumed: Resumable | None = None) -> None:
        self.path = path
        """The file."""
        self.resumed = resumed is not None
        """Whether it is appended to (``--resume``)."""
        self.out: IO[str] = (
            append_to(path, resumed) if resumed is not None else Path(path).open("w", encoding="utf-8")  # noqa: SIM115 (closed by close())
        )
        self.games = len(resumed.lines) if resumed is not None else 0
        """The games in it now."""

    def add(self, player: str, result: GameResult, **extra: Any) -> None:
        """Write one game's line (flushed: a run can be resumed from it)."""
        append_result(self.out, player, result, **extra)
        self.games += 1

    def close(self) -> None:
        self.out.close()

    def held(self) -> int:
        """The games the file holds now, as ``--resume`` will read them: its whole lines. A stop
        can come between a line's write and :meth:`add`'s count (the count was one short in a
        test run), or in the middle of a write (that line is cut off, and played again)."""
        with suppress(OSError, ValueError):
            self.out.flush()
        try:
            return len(read_resumable(self.path).lines)
        except FormatError:
            return self.games

    def kept(self) -> str | None:
        """What a stopped run says of its record, and how to go on; None when it holds no game."""
        held = self.held()
        if not held:
            return None
        how = (
            "the same command plays the rest"
            if self.resumed
            else (f"the same command with --resume {self.path} in place of --record plays the rest")
        )
        games = "1 game" if held == 1 else f"{held:,} games"
        return f"{self.path} keeps {games}; {how}"
