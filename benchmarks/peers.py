"""What the peer benchmarks (``peer_minesolve.py``, ``peer_jsminesweeper.py``) share: rounds of
boards that alternate between the players, records that resume, each board's fastest of N runs,
the summary of a player and the pairing of two.

A player of a run has a ``label`` (its record file's name and the report's) and ``games`` (how
many of the boards it plays, the first ones); a game played is a :class:`~demine.GameResult` and
the extra keys its record line keeps beside it (``cpu_ms``, ``wall_ms``, ...).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

from demine.bench import GameResult, GameSpec, paired, play_game, wilson
from demine.bench.records import RecordLine, append_result, read_records
from demine.errors import DemineError
from demine.players import PlayerSpec

Played = tuple[GameResult, dict[str, Any]]
"""A game played: its result and the extra keys of its record line."""


class Entrant(Protocol):
    """A player of a run."""

    @property
    def label(self) -> str: ...

    @property
    def games(self) -> int: ...


E = TypeVar("E", bound=Entrant)


def add_run_options(ap: argparse.ArgumentParser) -> None:
    """--round, --repeat and --record, as :func:`run_rounds` takes them (check them with
    :func:`check_run_options`)."""
    ap.add_argument("--round", type=int, default=50, help="boards a round, alternating players (default 50)")
    ap.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="play the whole run N times; each of a game's times (ms, decisions, CPU) is its least over "
        "the runs, its outcome the first run's (default 1)",
    )
    ap.add_argument("--record", type=Path, help="keep per-player record files in DIR (resumable)")


def check_run_options(ns: argparse.Namespace) -> None:
    """End the script with a message if --round or --repeat is below 1."""
    if ns.repeat < 1:
        raise SystemExit(f"--repeat: at least 1 run, got {ns.repeat}")
    if ns.round < 1:
        raise SystemExit(f"--round: at least 1 board a round, got {ns.round}")


def file_name(label: str) -> str:
    """The record file of the player ``label``."""
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in label) + ".jsonl"


def play_demine(spec: GameSpec, player: PlayerSpec, extra: dict[str, Any]) -> Played:
    """One game of a demine player as ``demine bench`` plays it, with the process's CPU time."""
    c0 = time.process_time()
    r = play_game(spec, player)
    return r, extra | {"cpu_ms": round((time.process_time() - c0) * 1000.0, 3)}


def run_rounds(
    specs: Sequence[GameSpec],
    players: Sequence[E],
    play: Callable[[E, GameSpec], Played],
    round_size: int,
    record: Path | None,
    accept: Callable[[E, Path, RecordLine], None],
    progress: bool,
    repeat: int = 1,
) -> dict[str, list[list[Played]]]:
    """Every player on its boards, in rounds that alternate between them, the whole of it
    ``repeat`` times over; results by label, one list a repeat (a record's line of a later repeat
    carries its number, ``repeat``). With ``record``, each player's games already in its file
    there are not played again; ``accept(player, path, line)`` raises SystemExit for a line of
    another run, and a game recorded twice is refused."""
    done: dict[str, list[dict[int, Played]]] = {c.label: [{} for _ in range(repeat)] for c in players}
    files = {}
    if record is not None:
        record.mkdir(parents=True, exist_ok=True)
        for c in players:
            path = record / file_name(c.label)
            try:
                lines = read_records(path, missing_ok=True)
            except DemineError as e:
                raise SystemExit(str(e)) from None
            first: dict[tuple[int, int], int] = {}  # (repeat, game): its line
            for line in lines:
                accept(c, path, line)
                k, i = line.extra.get("repeat", 0), line.result.index
                if not isinstance(k, int) or isinstance(k, bool) or k < 0:
                    raise SystemExit(f"{path}: game {i}: repeat {k!r} is not a run's number")
                seen = first.setdefault((k, i), line.line)
                if seen != line.line:
                    raise SystemExit(
                        f"{path}: line {line.line}: game {i}"
                        + (f" of run {k + 1}" if k else "")
                        + f" again (first at line {seen}): two runs wrote to this record"
                    )
                if k < repeat:
                    done[c.label][k][i] = (line.result, line.extra)
            files[c.label] = path.open("a", encoding="utf-8")
    try:
        for k in range(repeat):
            for lo in range(0, max(c.games for c in players), round_size):
                for c in players:
                    for sp in specs[lo : min(lo + round_size, c.games)]:
                        if sp.index in done[c.label][k]:
                            continue
                        r, extra = play(c, sp)
                        if k:
                            extra["repeat"] = k
                        done[c.label][k][r.index] = (r, extra)
                        if c.label in files:
                            append_result(files[c.label], c.label, r, **extra)
                if progress:
                    what = f"run {k + 1}, " if repeat > 1 else ""
                    print(
                        f"  {what}round {lo // round_size + 1}: boards {lo}-{lo + round_size - 1}",
                        file=sys.stderr,
                    )
    finally:
        for f in files.values():
            f.close()
    return {c.label: [[got[sp.index] for sp in specs[: c.games]] for got in done[c.label]] for c in players}


#: The times of a game that :func:`fastest` takes the least of, over the runs: the result's own,
#: and those its record line keeps beside it.
_TIMES = ("ms", "decide_ms")
_EXTRA_TIMES = ("cpu_ms", "wall_ms")


def fastest(runs: list[list[Played]]) -> tuple[list[Played], int]:
    """Each board's game of the first run with each of its times the least over the runs that
    played that game (what is left of a time once a shared machine's slow minutes are taken
    out, the way ``timeit`` takes the least of its repeats; each time is its own least, so two
    of a game's times may come from different runs), and how many boards a later run played
    otherwise (another outcome, number of moves or of guesses: a player whose budget ran out in
    one run and not in another). The outcomes are the first run's."""
    out = []
    differ = 0
    for i, (r, extra) in enumerate(runs[0]):
        games = [run[i] for run in runs]
        same = [(g, e) for g, e in games if (g.won, g.moves, g.guesses) == (r.won, r.moves, r.guesses)]
        if len(same) < len(games):
            differ += 1
        games = same
        least: dict[str, Any] = {}
        for name in _TIMES:
            values = [getattr(g, name) for g, _ in games]
            if all(v is not None for v in values):
                least[name] = min(values)
        kept = dict(extra)
        for name in _EXTRA_TIMES:
            values = [e[name] for _, e in games if name in e]
            if len(values) == len(games):
                kept[name] = min(values)
        kept.pop("repeat", None)
        out.append((replace(r, **least), kept))
    return out, differ


# ---------------------------------------------------------------------------------------- report
def fastest_rows(
    labels: Sequence[str],
    runs: dict[str, list[list[Played]]],
    summarise: Callable[[str, Sequence[Played]], dict[str, Any]],
) -> tuple[dict[str, list[Played]], list[dict[str, Any]]]:
    """Each player's games with their fastest times (:func:`fastest`) and its summary row; over
    several runs the row also says how many, and how many boards a later run played otherwise
    (printed too)."""
    results, rows = {}, []
    for label in labels:
        results[label], differ = fastest(runs[label])
        rows.append(summarise(label, results[label]))
        if len(runs[label]) > 1:
            rows[-1] |= {"runs": len(runs[label]), "boards_played_otherwise": differ}
            if differ:
                print(
                    f"{label}: {differ} board(s) played otherwise in a later run: their outcomes "
                    "are the first run's, their times from the runs that played the same game"
                )
    return results, rows


def quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (nearest rank).

    >>> quantile([1.0, 2.0, 3.0, 4.0], 0.5), quantile([1.0, 2.0, 3.0, 4.0], 0.99)
    (2.0, 4.0)
    """
    s = sorted(values)
    return s[max(0, math.ceil(q * len(s)) - 1)]


def summary(label: str, games: Sequence[Played]) -> dict[str, Any]:
    """A player's wins (with the Wilson 95% interval) and ms a game (mean, median, p95, p99, max;
    the CPU time, its decisions' median and the wall time where the games kept them)."""
    results = [r for r, _ in games]
    n, wins = len(results), sum(r.won for r in results)
    ms = [r.ms for r in results]
    lo, hi = wilson(wins, n)
    out = {
        "player": label,
        "games": n,
        "wins": wins,
        "win_rate": wins / n,
        "ci95": [lo, hi],
        "ms_mean": sum(ms) / n,
        "ms_median": quantile(ms, 0.5),
        "ms_p95": quantile(ms, 0.95),
        "ms_p99": quantile(ms, 0.99),
        "ms_max": max(ms),
    }
    cpu = [e["cpu_ms"] for _, e in games if "cpu_ms" in e]
    if cpu:
        out["cpu_ms_mean"] = sum(cpu) / len(cpu)
        out["cpu_ms_median"] = quantile(cpu, 0.5)
        out["cpu_games"] = len(cpu)
    own = [r.decide_ms for r in results if r.decide_ms is not None]
    if len(own) == n:
        out["decide_ms_median"] = quantile(own, 0.5)
    walls = [e["wall_ms"] for _, e in games if "wall_ms" in e]
    if walls:
        out["wall_ms_mean"] = sum(walls) / len(walls)
    return out


def pair(
    a: str,
    ga: Sequence[Played],
    b: str,
    gb: Sequence[Played],
    runs_a: Sequence[Sequence[Played]] = (),
    runs_b: Sequence[Sequence[Played]] = (),
) -> dict[str, Any]:
    """``a`` against ``b`` on the boards both played: the paired wins and sign test, the ratios
    of their mean and median ms (and of the median decisions, of the mean CPU time, where both
    kept them); with ``runs_a``/``runs_b`` (more than one run), also each run's own ratio of the
    median games (ms and decisions)."""
    n = min(len(ga), len(gb))
    ga, gb = ga[:n], gb[:n]
    ra, rb = [r for r, _ in ga], [r for r, _ in gb]
    pr = paired(a, ra, b, rb)
    ma, mb = sum(r.ms for r in ra) / n, sum(r.ms for r in rb) / n
    row = {**pr.to_json(), "mean_ms_ratio": ma / mb, "median_ms_ratio": median_ratio(ga, gb, "ms")}
    # (records made before decide_ms was kept have none)
    names = [("ms", "run_median_ms_ratios")]  # (a time, and the key of its runs' ratios)
    if all(r.decide_ms is not None for r in ra + rb):
        row["median_decide_ratio"] = median_ratio(ga, gb, "decide_ms")
        names.append(("decide_ms", "run_median_decide_ratios"))
    both = [
        (ea["cpu_ms"], eb["cpu_ms"])
        for (_, ea), (_, eb) in zip(ga, gb, strict=True)
        if "cpu_ms" in ea and "cpu_ms" in eb
    ]
    if both:  # (on the boards where both times were kept)
        row["mean_cpu_ratio"] = sum(x for x, _ in both) / sum(y for _, y in both)
        row["cpu_games"] = len(both)
    if len(runs_a) > 1:
        row["runs"] = len(runs_a)
        for name, key in names:
            row[key] = [median_ratio(x[:n], y[:n], name) for x, y in zip(runs_a, runs_b, strict=True)]
    return row


def median_ratio(a: Sequence[Played], b: Sequence[Played], name: str) -> float:
    """The median game's ``name`` (``ms`` or ``decide_ms``) of ``a`` over ``b``'s."""
    return quantile([getattr(r, name) for r, _ in a], 0.5) / quantile([getattr(r, name) for r, _ in b], 0.5)


def print_table(rows: Sequence[dict[str, Any]]) -> None:
    """Each player's line: games, win %, its 95% interval, ms a game and CPU time."""
    print(
        f"{'player':<26}{'games':>7}{'win %':>8}{'95% CI':>16}"
        f"{'ms mean':>10}{'median':>9}{'p95':>9}{'p99':>9}{'max':>10}{'CPU mean':>10}"
    )
    for r in rows:
        lo, hi = r["ci95"]
        ci = f"{100 * lo:.2f}-{100 * hi:.2f}"
        print(
            f"{r['player']:<26}{r['games']:>7}{100 * r['win_rate']:>8.2f}{ci:>16}"
            f"{r['ms_mean']:>10.2f}{r['ms_median']:>9.2f}{r['ms_p95']:>9.1f}{r['ms_p99']:>9.1f}"
            f"{r['ms_max']:>10.1f}{r.get('cpu_ms_mean', float('nan')):>10.2f}"
        )


def print_pairs(prs: Sequence[dict[str, Any]]) -> None:
    """Each pair's line: paired wins, boards won by one side only, the sign test, the ratios."""
    for p in prs:
        print(
            f"{p['a']} vs {p['b']} on {p['games']} boards: wins {p['wins_a']} - {p['wins_b']}, "
            f"only {p['a']} {p['only_a']}, only {p['b']} {p['only_b']}, sign test p = {p['p_value']:.3g}; "
            f"ms ratio mean {p['mean_ms_ratio']:.2f}, median {p['median_ms_ratio']:.2f}"
            + (
                f", CPU time ratio {p['mean_cpu_ratio']:.2f} ({p['cpu_games']} boards)"
                if "mean_cpu_ratio" in p
                else ""
            )
            + (
                f"; decisions only: median ratio {p['median_decide_ratio']:.2f}"
                if "median_decide_ratio" in p
                else ""
            )
        )
        if "runs" in p:
            alone = " ".join(f"{x:.2f}" for x in p["run_median_ms_ratios"])
            own = " ".join(f"{x:.2f}" for x in p.get("run_median_decide_ratios", []))
            print(
                f"  (above: each board's fastest of {p['runs']} runs) each run alone, median ratio: {alone}"
                + (f"; decisions only: {own}" if own else "")
            )
