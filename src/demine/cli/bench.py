"""``demine bench``: many games played, their win rate and times; records, resumes and sweeps."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from demine.bench import (
    GameResult,
    GameSpec,
    Summary,
    bench,
    board_specs,
    generated_specs,
    paired,
    parse_sweep,
)
from demine.bench.cluster import Cluster
from demine.bench.records import read_resumable, resumed_games, run_of
from demine.bench.stats import FORCED_NOTE
from demine.cli import _add_no_guess, longrun, non_negative_int, positive_int
from demine.cli.longrun import RecordOut, stops_on_signals
from demine.cli.needs import bench_outputs, need_extra
from demine.cli.tables import console, print_table
from demine.engine.formats import read_boards
from demine.engine.grid import PRESETS, RULES, check_mines, parse_cell, parse_size
from demine.errors import DemineError
from demine.players import DEFAULT_PLAYER, PlayerSpec, settings_type, split_players
from demine.text import fold


def add_bench(sub: Any) -> None:
    """The ``bench`` subcommand and its options."""
    p = sub.add_parser(
        "bench",
        help="play many games and report the win rate",
        description="Play many games with a player (or several on the same boards, --compare) and "
        "report games, wins, the win rate with its Wilson 95%% interval, guesses and time per game, "
        "under the first-click rule and start cell they were played with. Each game is seeded from "
        "--seed and its index: the same command gives the same games, in any number of processes "
        "(--jobs). --record keeps a JSON line per game; --resume plays only the games a record "
        "lacks.",
    )
    g = p.add_mutually_exclusive_group()
    g.add_argument("--preset", choices=list(PRESETS), help="board preset (default: expert)")
    g.add_argument("--size", help="custom board WxHxM")
    p.add_argument("--rule", choices=RULES, default="safe", help="first-click rule (default: safe)")
    p.add_argument(
        "--start",
        help="first click as ROW,COL (default: 0,0 for safe and none; for zero 3,3 on expert, 2,2 otherwise)",
    )
    p.add_argument(
        "--games",
        type=positive_int,
        default=None,
        help="number of games (default: 100; with --boards, all)",
    )
    p.add_argument("--seed", default="1", help="seed of the run (default: 1)")
    p.add_argument(
        "--skip",
        type=non_negative_int,
        default=0,
        metavar="N",
        help="leave out the run's first N games (the rest keep their seeds and indices): to split "
        "one run across machines, or to finish one whose record was lost; the records of the parts "
        "join into the whole run's (default: 0)",
    )
    p.add_argument("--player", default=DEFAULT_PLAYER, help=f"player name (default: {DEFAULT_PLAYER})")
    p.add_argument(
        "--compare",
        help="comma-separated players to run on the same boards (two: with a paired sign test); "
        "a player may carry settings: best,best(depth=2)",
    )
    p.add_argument(
        "--set",
        action="append",
        metavar="FIELD=VALUE",
        help="a setting of the player (best's: depth, endgame_layouts, far_off, ...; "
        "see `demine players`); repeat for several",
    )
    p.add_argument(
        "--forced-share",
        action="store_true",
        help="also measure the share of provable cells the player finds (implied by --compare)",
    )
    p.add_argument("--boards", help="replay the layouts of a board file instead of generating")
    p.add_argument("--record", help="write one JSON line per game to FILE")
    p.add_argument(
        "--record-moves",
        action="store_true",
        help="with --record: each line also holds the whole game (every move, reason, risk) for replay",
    )
    p.add_argument("--jobs", type=positive_int, default=1, help="processes to play in (default: 1)")
    p.add_argument(
        "--executor",
        help="play on an existing Dask cluster: dask://HOST:PORT (port 8786 if left out; the "
        "dask extra; docs/big-runs.md)",
    )
    p.add_argument(
        "--resume",
        metavar="FILE",
        help="skip the games already in record FILE and append the rest to it (a record of another "
        "run, other board, seed, player or settings, is refused)",
    )
    p.add_argument(
        "--sweep",
        help="one bench per value: mines=60:140:10 (start:stop:step) or mines=60,80,100; also width, height",
    )
    p.add_argument(
        "--plot", help="with --sweep: draw win rate (95%% CI) against the value to FILE.png or .svg"
    )
    p.add_argument(
        "--lives",
        type=int,
        default=0,
        help="mines a player may hit and play on (each is marked and counted; default 0: a hit loses)",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    _add_no_guess(p)
    p.set_defaults(func=cmd_bench)


def _size_arg(ns: argparse.Namespace) -> tuple[int, int, int]:
    return parse_size(ns.size or ns.preset or "expert", ns.rule)  # argparse keeps them exclusive


def _start_arg(ns: argparse.Namespace, width: int, height: int, mines: int) -> int | None:
    """The --start cell (None for the rule's default), with the mines checked against it."""
    check_mines(width, height, mines, ns.rule)
    if not ns.start:
        return None
    start = parse_cell(ns.start, width, height)
    check_mines(width, height, mines, ns.rule, start)
    return start


def _specs(ns: argparse.Namespace) -> list[GameSpec]:
    specs = _all_specs(ns)
    if ns.skip >= len(specs):
        raise DemineError(f"--skip {ns.skip} leaves none of the run's {len(specs)} games to play")
    return specs[ns.skip :]


def _all_specs(ns: argparse.Namespace) -> list[GameSpec]:
    if ns.boards:
        if ns.preset or ns.size:
            raise DemineError("--boards replays the file's boards; leave out --preset and --size")
        boards = read_boards(ns.boards)
        if not boards:
            raise DemineError(f"{ns.boards}: no boards in the file")
        start = None
        if ns.start:
            b0 = boards[0]
            start = parse_cell(ns.start, b0.width, b0.height)
        games = boards[: ns.games] if ns.games else boards
        return board_specs(games, ns.seed, start, ns.lives)
    width, height, mines = _size_arg(ns)
    start = _start_arg(ns, width, height, mines)
    return generated_specs(
        width,
        height,
        mines,
        ns.rule,
        start,
        ns.games or 100,
        ns.seed,
        ns.lives,
        ns.no_guess,
        ns.no_guess_mode,
    )


def _play_all(
    specs: list[GameSpec],
    players: list[PlayerSpec],
    ns: argparse.Namespace,
    record: RecordOut | None,
    measure: bool,
    done: dict[str, list[GameResult]] | None = None,
) -> tuple[list[Summary], dict[str, list[GameResult]]]:
    """Every player on the same specs; results stream to ``record`` as they arrive; games in
    ``done`` (a resumed run) are not played again."""
    summaries = []
    per_player: dict[str, list[GameResult]] = {}
    by_index = {sp.index: sp for sp in specs}
    for spec in players:
        p = str(spec)
        before = (done or {}).get(p, ())
        tick, stop = longrun.progress(len(specs), p, len(before))

        def on_result(r: GameResult, p: str = p, tick: Callable[[object], None] = tick) -> None:
            tick(r)
            if record is not None:
                record.add(p, r, run=run_of(by_index[r.index], forced=measure))

        try:
            summary, results = bench(
                spec,
                specs,
                jobs=ns.jobs,
                on_result=on_result,
                measure_forced=measure,
                keep_record=ns.record_moves,
                executor=ns.executor,
                done=before,
                on_notice=lambda text: print(f"demine bench: {text}", file=sys.stderr, flush=True),
            )
        finally:
            stop()
        summaries.append(summary)
        per_player[p] = results
    return summaries, per_player


def _players(ns: argparse.Namespace) -> list[PlayerSpec]:
    """The players of a bench: --player or --compare, each with the --set changes when it takes
    settings."""
    texts = split_players(ns.compare) if ns.compare else [ns.player]
    specs = [PlayerSpec.parse(t) for t in texts]
    if ns.set:
        takes = [settings_type(s.name) is not None for s in specs]
        if not any(takes):
            raise DemineError(f"--set: none of {', '.join(texts)} takes settings (best and fast do)")
        specs = [PlayerSpec.parse(str(s), ns.set) if t else s for s, t in zip(specs, takes, strict=True)]
    labels = [str(s) for s in specs]
    if len(set(labels)) < len(labels):
        raise DemineError(f"--compare names one player twice: {', '.join(labels)}")
    return specs


def _print_summaries(title: str, summaries: list[Summary], measure: bool) -> None:
    out = console()
    if out is not None:
        header = ["player", "games", "wins", "win rate", "95% CI", "guesses/game", "ms/game"]
        if measure:
            header.append("forced found")
        lives = any(s.lives for s in summaries)
        if lives:
            header += ["lives", "mines hit/game"]
        rows = []
        for s in summaries:
            lo, hi = s.ci95
            row = [
                s.player,
                str(s.games),
                str(s.wins),
                f"{100 * s.win_rate:.2f}%",
                f"{100 * lo:.1f}-{100 * hi:.1f}%",
                f"{s.guesses_per_game:.2f}",
                f"{s.ms_per_game:.1f}",
            ]
            if measure:
                row.append("-" if s.forced_share is None else f"{100 * s.forced_share:.1f}%")
            if lives:
                row += [str(s.lives), f"{s.hits_per_game:.1f}"]
            rows.append(row)
        print_table(out, title, header, rows, text=["player"])
        if measure:
            out.print(FORCED_NOTE, style="dim")
        return
    if measure:
        print(fold(FORCED_NOTE))
    for s in summaries:  # (without Rich: a line each, folded between words)
        lo, hi = s.ci95
        print(
            fold(
                f"{s.player}: {s.wins}/{s.games} won = {100 * s.win_rate:.2f}% "
                f"(95% CI {100 * lo:.2f}-{100 * hi:.2f}%) on {title}, "
                f"{s.guesses_per_game:.2f} guesses/game, {s.ms_per_game:.1f} ms/game"
                + ("" if s.forced_share is None else f", forced cells found {100 * s.forced_share:.1f}%")
                + (
                    f", {s.lives} lives: {s.hits_per_game:.1f} mines hit/game, "
                    f"{s.moves_per_game:.0f} moves/game"
                    if s.lives
                    else ""
                ),
                "  ",
            )
        )


def cmd_bench(ns: argparse.Namespace) -> int:
    if ns.lives < 0:
        raise DemineError(f"--lives must be 0 or more, got {ns.lives}")
    if ns.record_moves and not (ns.record or ns.resume):
        raise DemineError("--record-moves needs --record FILE (or --resume FILE)")
    if ns.plot and not ns.sweep:
        raise DemineError("--plot draws a sweep: give --sweep too")
    bench_outputs(ns.plot, ns.record, ns.resume)
    if ns.executor:
        if ns.jobs > 1:
            raise DemineError("--jobs plays here and --executor on a Dask cluster: give one of them")
        need_extra("dask", "--executor")
        ns.executor = Cluster.parse(ns.executor)
    players = _players(ns)
    if ns.sweep:
        if ns.resume or ns.skip:
            name = "--resume" if ns.resume else "--skip"
            raise DemineError(f"{name} works with one bench, not with --sweep")
        return _sweep(ns, players)
    specs = _specs(ns)
    measure = bool(ns.compare) or ns.forced_share
    names = [str(p) for p in players]
    done: dict[str, list[GameResult]] = {}
    beyond = 0
    resumed = None
    if ns.resume:
        if ns.record and ns.record != ns.resume:
            raise DemineError("--resume FILE appends to FILE: leave out --record or give the same file")
        resumed = read_resumable(ns.resume)
        done, beyond = resumed_games(
            resumed.lines, specs, names, ns.resume, forced=measure, moves=ns.record_moves
        )
    if isinstance(ns.executor, Cluster) and any(len(done.get(n, ())) < len(specs) for n in names):
        ns.executor.probe()  # (before the record is opened: a --record FILE is kept as it was)
    if resumed is not None and resumed.torn is not None:
        print(
            f"demine bench: {ns.resume}: line {resumed.torn} was cut off (the run stopped while "
            "writing it): it is dropped, and its game played again",
            file=sys.stderr,
        )
    path = ns.resume or ns.record
    record = RecordOut(path, resumed) if path else None
    try:
        with stops_on_signals():
            summaries, per_player = _play_all(specs, players, ns, record, measure, done)
    except (KeyboardInterrupt, DemineError) as e:
        if record is not None and (kept := record.kept()):
            e.add_note(kept)
        raise
    finally:
        if record is not None:
            record.close()
    pairs = (
        [paired(names[0], per_player[names[0]], names[1], per_player[names[1]])] if len(names) == 2 else []
    )
    if ns.json:
        out = [s.to_json() for s in summaries]
        if ns.resume:
            for obj, s in zip(out, summaries, strict=True):
                read = len(done.get(s.player, ()))
                obj["resumed"] = {
                    "record": ns.resume,
                    "read": read,
                    "played": s.games - read,
                    "beyond": beyond,
                }
        for pr in pairs:  # two players: each object also carries the paired comparison
            for obj in out:
                obj["paired"] = pr.to_json()
        print(json.dumps(out[0] if len(out) == 1 else out))
        return 0
    s0 = specs[0]
    board = f"{s0.width}x{s0.height}/{s0.mines}" if not ns.boards else f"boards from {ns.boards}"
    ng = f", no guess ({summaries[0].no_guess})" if summaries[0].no_guess else ""
    _print_summaries(f"{board}, rule {summaries[0].rule}, start {summaries[0].start}{ng}", summaries, measure)
    if ns.resume:
        print(fold(_resumed_note(ns.resume, summaries, done, beyond)))
    for pr in pairs:
        print(
            fold(
                f"paired on {pr.games} boards: {pr.a} won {pr.wins_a}, {pr.b} won {pr.wins_b}; "
                f"only {pr.a}: {pr.only_a}, only {pr.b}: {pr.only_b}; sign test p = {pr.p_value:.4g}"
            )
        )
    return 0


def _resumed_note(path: str, summaries: list[Summary], done: dict[str, list[GameResult]], beyond: int) -> str:
    """What a resumed run took from its record and what it played now."""
    counts = []
    for s in summaries:
        read = len(done.get(s.player, ()))
        counts.append(f"{s.games - read} played now, {read} read from the record")
    if len(summaries) == 1:
        text = f"resumed {path}: {counts[0]}"
    else:
        text = f"resumed {path}: " + "; ".join(
            f"{s.player}: {c}" for s, c in zip(summaries, counts, strict=True)
        )
    if beyond:
        text += f" ({beyond} more games in it, beyond this run's --games, are left out)"
    return text


def _sweep(ns: argparse.Namespace, players: list[PlayerSpec]) -> int:
    """``bench --sweep NAME=...``: one bench per value, every player on the same boards."""
    if ns.boards:
        raise DemineError("--sweep generates its boards; leave out --boards")
    param, values = parse_sweep(ns.sweep)
    width, height, mines = _size_arg(ns)
    games = ns.games or 100
    measure = bool(ns.compare) or ns.forced_share
    points: list[tuple[int, list[Summary]]] = []
    runs = []
    for v in values:  # check every value before playing any game
        w = v if param == "width" else width
        h = v if param == "height" else height
        m = v if param == "mines" else mines
        try:
            start = _start_arg(ns, w, h, m)
        except DemineError as e:
            raise DemineError(f"--sweep {param}={v}: {e}") from None
        runs.append((v, w, h, m, start))
    record = RecordOut(ns.record) if ns.record else None
    try:
        for v, w, h, m, start in runs:
            specs = generated_specs(w, h, m, ns.rule, start, games, f"{ns.seed}/{param}={v}", ns.lives)
            summaries, _ = _play_all(specs, players, ns, record, measure)
            points.append((v, summaries))
            if not ns.json:
                _print_summaries(
                    f"{w}x{h}/{m}, rule {summaries[0].rule}, start {summaries[0].start}", summaries, measure
                )
    finally:
        if record is not None:
            record.close()
    if ns.plot:
        from demine.render.plot import plot_sweep

        first = points[0][1][0]
        size = {"mines": f"{width}x{height}", "width": f"Wx{height}/{mines}", "height": f"{width}xH/{mines}"}[
            param
        ]
        title = f"{size}, {param} swept; rule {first.rule}, start {first.start}, {games} games per point"
        plot_sweep(param, points, ns.plot, title)
        if not ns.json:
            print(f"plot written to {ns.plot}")
    if ns.json:
        print(
            json.dumps(
                [{"param": param, "value": v, "players": [s.to_json() for s in row]} for v, row in points]
            )
        )
    return 0
