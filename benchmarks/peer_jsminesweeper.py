"""JSMinesweeper (JavaScript, MIT, D. N. Hill) as a benchmark peer: its solver plays demine's
boards under Node, paired with demine's players on the same boards, in the same minutes.

Run: python benchmarks/peer_jsminesweeper.py --games 200 --players best --check-rules 20
     python benchmarks/peer_jsminesweeper.py --games 20000 --seed held-out --record runs/jsm
     python benchmarks/peer_jsminesweeper.py --boards held-out.jsonl --players best,"best(depth=2)"
     python benchmarks/peer_jsminesweeper.py --preset expert --rule zero --games 2000

The boards are a ``--boards`` file or ``--games N`` drawn from ``--seed`` as ``demine bench``
draws them (``--preset``/``--size``, ``--rule``, ``--start``: default expert, safe, (0,0)). For
each board demine's :class:`~demine.Game` draws the layout at the first click; JSMinesweeper's
own game (its ``ServerGame``) is given those mines and its solver plays it from the same first
click, move by move as its bulk play (``bulkRun``) does: every clear of safety 1, else the first
action (a guess), in its no-flags style. demine's Game then replays every click it made; the
outcome is demine's, and a game whose outcome differs from JSMinesweeper's own stops the run.

JSMinesweeper runs in one child Node process (``benchmarks/jsm_driver.js``, demine's harness,
which loads its scripts from ``--source``, default ``../shared/peers/jsminesweeper`` beside the
repository, at start: none of its code is in demine), kept for every game: its start builds a
130 MB binomial table (about 1.2 s idle), once. A game whose CPU time in the child passes
``--game-seconds`` (its brute force can run for half a minute; CPU time, read from /proc, as a
loaded machine stretches wall time: where /proc is missing, wall time; and 10 times as much wall
time and a second in any case) kills the child, counts as a loss with the wall time it had run, and is
reported (``games_timeout``); the next game starts a new child.

Rounds of ``--round`` boards alternate between the players, so their times come from the same
minutes of a shared machine; ``--repeat N`` plays the whole run N times and takes each time of a
game as its least over the runs (outcomes are the first run's; see ``peer_minesolve.py``).
``ms`` of a JSMinesweeper game is its whole game in Node (its game and solver, timed there); its
``decide_ms`` the time in its solver alone; ``cpu_ms`` the child's CPU time. A demine game's
``ms`` is ``demine bench``'s (the whole game, engine and player), ``decide_ms`` its player's
decisions. Reported for each player: wins, win % with its Wilson 95% interval, ms a game (mean,
median, p95, p99, max); for each demine player against JSMinesweeper on the same boards: the
wins of each, the boards won by one side only, the sign test's p, the ratio of mean (and of
median) ms, of median decisions and of mean CPU time; and the load average before and after.
JSMinesweeper's solver breaks guess ties only when its probability engine took under 50 ms: on
a loaded machine its moves can change, so the load is printed beside the result.

``--check-rules N`` checks on the first N boards that JSMinesweeper plays under our rules: its
solver's own first click on the empty board; every game's first click is the board's start;
after each click the cells it saw opened and their numbers equal demine's for the same layout;
before each of its moves its probabilities are demine's exact ones (rounded down to 8 decimals,
as it divides its counts); and each outcome is that of demine's Game replaying its clicks.

``--record DIR`` keeps one record file a player (``demine bench --record`` lines, each naming
its run as ``demine bench`` does: board, rule, start, seed, layout; JSMinesweeper's also with its
scripts' digest): a second run plays only the missing games, and a record of another run (other
boards, seed, player or peer source) is refused, as is a game recorded twice. ``--json FILE``
writes every figure of the report.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import peers
from demine.bench import GameSpec, board_specs, generated_specs
from demine.bench.records import RecordLine, check_line, run_of
from demine.engine.formats import read_boards
from demine.engine.game import Game
from demine.engine.grid import PRESETS, RULES, check_mines, geometry, parse_cell, parse_size
from demine.engine.position import COVERED
from demine.errors import DemineError
from demine.players import PlayerSpec, split_players
from jsm_peer import DEFAULT_SOURCE, NodeSolver, PeerError, find_node, play, source_digest
from peers import Played, pair, play_demine, print_pairs, print_table, run_rounds

PEER = "jsminesweeper"
"""The peer's label (its record file is ``jsminesweeper.jsonl``)."""


@dataclass(frozen=True, slots=True)
class Contestant:
    """A player of the run: JSMinesweeper or a demine player."""

    label: str
    """``jsminesweeper`` or the demine player's text (``best``, ``best(depth=2)``)."""
    spec: PlayerSpec | None
    """The demine player (None: the peer)."""
    games: int
    """How many of the boards it plays (the first ones)."""


# ---------------------------------------------------------------------------------------- boards
def board_set(ns: argparse.Namespace) -> tuple[list[GameSpec], str]:
    """The boards the options ask for, and their label for the report; bad options end the
    script with a message naming the option."""
    if ns.boards:
        if ns.preset or ns.size:
            raise SystemExit("--boards replays the file's boards; leave out --preset and --size")
        try:
            boards = read_boards(ns.boards)
        except OSError as e:
            raise SystemExit(f"--boards {ns.boards}: {e.strerror or e}") from None
        except DemineError as e:
            raise SystemExit(str(e)) from None  # (it names the file and the line)
        if not boards:
            raise SystemExit(f"--boards {ns.boards}: no boards in the file")
        start = _start(ns, boards[0].width, boards[0].height, None)
        chosen = boards[: ns.games] if ns.games else boards
        label = f"file:{Path(ns.boards).name}" + (f" start {ns.start}" if ns.start else "")
        label += f" seed:{ns.seed}"  # (demine's players draw their random choices from it)
        return board_specs(chosen, ns.seed, start), label
    size = ns.size or ns.preset or "expert"
    try:
        width, height, mines = parse_size(size, ns.rule)
        check_mines(width, height, mines, ns.rule)
    except DemineError as e:
        raise SystemExit(f"--size {size}: {e}") from None
    start = _start(ns, width, height, mines)
    specs = generated_specs(width, height, mines, ns.rule, start, ns.games or 200, ns.seed)
    r, c = divmod(specs[0].start, width)
    return specs, f"{width}x{height}/{mines} {ns.rule} ({r},{c}) seed:{ns.seed}"


def _start(ns: argparse.Namespace, width: int, height: int, mines: int | None) -> int | None:
    """The --start cell (None: the rule's or the board's own), checked against the board."""
    if not ns.start:
        return None
    try:
        start = parse_cell(ns.start, width, height)
        if mines is not None:
            check_mines(width, height, mines, ns.rule, start)
    except DemineError as e:
        raise SystemExit(f"--start {ns.start}: {e}") from None
    return start


# ---------------------------------------------------------------------------------------- run
def run(
    specs: Sequence[GameSpec],
    players: Sequence[Contestant],
    solver: NodeSolver | None,
    ns: argparse.Namespace,
    peer_digest: str,
) -> dict[str, list[list[Played]]]:
    """Every player on the boards, in rounds that alternate between them (``ns.round``,
    ``ns.repeat``, ``ns.record``); a record line of another run stops it with a clear error."""
    by_index = {sp.index: sp for sp in specs}

    def accept(c: Contestant, path: Path, line: RecordLine) -> None:
        try:  # (its player, and its run: board, rule, start, seed, layout)
            check_line(line, by_index, [c.label], str(path))
        except DemineError as e:
            raise SystemExit(str(e)) from None
        if c.spec is None and line.extra.get("peer") != peer_digest:
            raise SystemExit(
                f"{path}: line {line.line}: played by JSMinesweeper scripts of digest "
                f"{line.extra.get('peer')!r}, not those at --source (digest {peer_digest}); "
                "record this run to a new folder"
            )

    def play_one(c: Contestant, sp: GameSpec) -> Played:
        extra: dict[str, Any] = {"run": run_of(sp)}
        if c.spec is not None:
            return play_demine(sp, c.spec, extra)
        assert solver is not None
        g = play(solver, sp, ns.game_seconds)
        extra |= {"peer": peer_digest, "wall_ms": round(g.wall_ms, 3), "calls": g.calls}
        if g.cpu_ms is not None:
            extra["cpu_ms"] = round(g.cpu_ms, 3)
        if g.status not in ("won", "lost"):
            extra["status"] = g.status
        if g.lost_on_safe:
            extra["lost_on_safe"] = True
        if g.warnings:
            extra["warnings"] = g.warnings[:5]
        return g.result, extra

    return run_rounds(specs, players, play_one, ns.round, ns.record, accept, not ns.quiet, ns.repeat)


def summary(label: str, games: Sequence[Played]) -> dict[str, Any]:
    out = peers.summary(label, games)
    if label == PEER:
        for status in ("timeout", "stuck"):
            out[f"games_{status}"] = sum(1 for _, e in games if e.get("status") == status)
        out["lost_on_safe"] = sum(1 for _, e in games if e.get("lost_on_safe"))
        out["games_with_warnings"] = sum(1 for _, e in games if e.get("warnings"))
    return out


# ---------------------------------------------------------------------------------------- rules
def check_rules(solver: NodeSolver, specs: Sequence[GameSpec], seconds: float | None) -> dict[str, Any]:
    """JSMinesweeper plays under our rules: its first click, the numbers it sees, its
    probabilities and its outcomes (see the module's docstring)."""
    from demine.analysis import analyze

    sp0 = specs[0]
    n = sp0.width * sp0.height
    empty = solver.request(
        {
            "op": "decide",
            "width": sp0.width,
            "height": sp0.height,
            "mines": sp0.mines,
            "states": [COVERED] * n,
            "trust_flags": True,
            "seed": "rules",
        },
        seconds,
    )
    first = empty["moves"][0][0] if empty["moves"] else None
    seen = {"clicks": 0, "cells": 0, "positions": 0, "probabilities": 0, "truncated_equal": 0}
    worst = 0.0
    wrong: list[str] = []  # (the first few differences, for the report)

    def on_call(game: Game, safety: Sequence[float | None]) -> None:
        nonlocal worst
        a = analyze(game.position())
        if a.approximate:
            return
        seen["positions"] += 1
        for c, v in enumerate(game.visible):
            s = safety[c]
            if v != COVERED or s is None:
                continue
            exact = a.probability(c)
            worst = max(worst, abs(float(exact) - (1.0 - s)))
            seen["probabilities"] += 1
            seen["truncated_equal"] += s == _its_safety(exact)

    def on_click(game: Game, cell: int, opened: list[int], shown: list[list[int]]) -> None:
        seen["clicks"] += 1
        seen["cells"] += len(shown)
        vis = game.visible
        theirs = {c: v for c, v in shown}
        differ = set(theirs) != set(opened) or any(vis[c] != v for c, v in theirs.items())
        if differ and len(wrong) < 5:
            wrong.append(
                f"click {cell}: demine opened {sorted(opened)[:8]}, it saw {sorted(theirs.items())[:8]}"
            )

    outcomes = {"won": 0, "lost": 0, "other": 0}
    for sp in specs:
        g = play(solver, sp, seconds, on_call, on_click)
        outcomes[g.status if g.status in outcomes else "other"] += 1
    name = geometry(sp0.width, sp0.height).name
    return {
        "boards": len(specs),
        "first_click": first,
        "start": sp0.start,
        "first_click_cell": None if first is None else name(first),
        "start_cell": name(sp0.start),
        "clicks_compared": seen["clicks"],
        "cells_compared": seen["cells"],
        "number_differences": len(wrong),
        "differences": wrong,
        "positions_compared": seen["positions"],
        "probabilities_compared": seen["probabilities"],
        "max_probability_difference": worst,
        "probabilities_equal_exact_rounded_down": seen["truncated_equal"],
        "outcomes_replayed": outcomes,
    }


def _its_safety(p: Fraction) -> float:
    """The safety JSMinesweeper gives a cell of exact mine probability ``p``: ``1 - floor(p *
    1e8) / 1e8`` in floating point, as its ``divideBigInt(..., 8)`` divides (1 and 0 exactly)."""
    if p == 0:
        return 1.0
    if p == 1:
        return 0.0
    return 1.0 - math.floor(p * 10**8) / 1e8


# ---------------------------------------------------------------------------------------- main
def print_report(rows: list[dict[str, Any]], prs: list[dict[str, Any]], spec: GameSpec, label: str) -> None:
    r0, c0 = divmod(spec.start, spec.width)
    runs = max((r.get("runs", 1) for r in rows), default=1)
    print(
        f"{spec.width}x{spec.height}/{spec.mines}, rule {spec.rule}, first click ({r0},{c0}); {label}; "
        "ms: a JSMinesweeper game's whole time in Node, a demine game's whole time"
        + (f"; each board's fastest of {runs} runs" if runs > 1 else "")
    )
    print_table(rows)
    for r in rows:
        if r["player"] == PEER:
            print(
                f"{PEER}: {r['games_timeout']} game(s) passed the time limit (counted lost), "
                f"{r['games_stuck']} stuck, {r['lost_on_safe']} lost on a cell it called safe"
            )
    print_pairs(prs)


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--boards", help="a board file to play (default: boards drawn from --seed)")
    ap.add_argument("--games", type=int, default=None, help="boards to play (default 200; with --boards all)")
    ap.add_argument("--seed", default="jsm", help="the run's seed (default: jsm)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--preset", choices=list(PRESETS), help="board preset (default: expert)")
    g.add_argument("--size", help="custom board WxHxM")
    ap.add_argument("--rule", choices=RULES, default="safe", help="first-click rule (default: safe)")
    ap.add_argument(
        "--start", help="first click as ROW,COL (default: the rule's usual cell, as in demine bench)"
    )
    ap.add_argument("--players", default="best", help="demine players (default: best; '' for none)")
    peers.add_run_options(ap)
    ap.add_argument(
        "--game-seconds",
        type=float,
        default=60.0,
        metavar="S",
        help="JSMinesweeper's CPU time for a game (wall time where /proc is missing; 10 times as much wall "
        "time and a second in any case): past it the game is lost and its process started anew (default 60)",
    )
    ap.add_argument("--json", type=Path, help="write the summaries, pairs and checks to FILE")
    ap.add_argument(
        "--check-rules", type=int, default=0, metavar="N", help="check the peer's rules on the first N boards"
    )
    ap.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="JSMinesweeper's folder")
    ap.add_argument("--node", help="the node program (default: node on PATH)")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    ns = ap.parse_args(argv)
    peers.check_run_options(ns)
    if ns.games is not None and ns.games < 1:
        raise SystemExit(f"--games: at least 1 board, got {ns.games}")
    if not ns.game_seconds > 0:
        raise SystemExit(f"--game-seconds: a time above 0, got {ns.game_seconds}")
    try:
        ours = [PlayerSpec.parse(t) for t in split_players(ns.players)]
    except DemineError as e:
        raise SystemExit(f"--players: {e}") from None
    specs, label = board_set(ns)
    players = [Contestant(PEER, None, len(specs))] + [Contestant(str(p), p, len(specs)) for p in ours]
    if len({c.label for c in players}) < len(players):
        raise SystemExit(f"--players names one player twice: {ns.players}")
    if ns.node is None and find_node() is None:
        raise SystemExit("JSMinesweeper runs under Node: no `node` on PATH (apt-get install nodejs)")
    try:
        solver = NodeSolver(ns.source, ns.node)
        digest = source_digest(ns.source)
    except (PeerError, OSError) as e:
        raise SystemExit(str(e)) from None
    load = os.getloadavg()
    print(f"{len(specs)} boards ({label}); load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    out: dict[str, Any] = {"boards": label, "load_before": load}
    t0 = time.perf_counter()
    try:
        with solver:
            if ns.check_rules:
                rules = check_rules(solver, specs[: ns.check_rules], ns.game_seconds)
                out["rules"] = rules
                _print_rules(rules)
            runs = run(specs, players, solver, ns, digest)
    except PeerError as e:
        raise SystemExit(str(e)) from None
    results, rows = peers.fastest_rows([c.label for c in players], runs, summary)
    prs = [  # (each demine player against the peer)
        pair(c.label, results[c.label], PEER, results[PEER], runs[c.label], runs[PEER])
        for c in players
        if c.spec is not None
    ]
    print_report(rows, prs, specs[0], label)
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    out |= {"players": rows, "pairs": prs, "load_after": load}
    out["peer"] = {
        "source": str(ns.source),
        "digest": digest,
        "node": solver.node_version,
        "startup_ms": solver.startup_ms,
        "killed_at_limit": solver.kills,
        "game_seconds": ns.game_seconds,
    }
    out["seconds"] = time.perf_counter() - t0
    if ns.json:
        ns.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


def _print_rules(r: dict[str, Any]) -> None:
    o = r["outcomes_replayed"]
    print(
        f"rules check on {r['boards']} boards: its solver's first click on the empty board "
        f"{r['first_click_cell']}; every game's first click the board's start {r['start_cell']} (as its "
        f"own bulk play makes it); {r['clicks_compared']} clicks, "
        f"{r['cells_compared']} cells opened, {r['number_differences']} differing from demine's; "
        f"{r['probabilities_compared']} probabilities in {r['positions_compared']} positions, largest "
        f"difference from demine's exact ones {r['max_probability_difference']:.2g}, "
        f"{r['probabilities_equal_exact_rounded_down']} equal to them rounded down to 8 decimals; "
        f"outcomes as demine's replay: {o['won']} won, {o['lost']} lost, {o['other']} other"
    )
    for line in r["differences"]:
        print(f"  {line}")


if __name__ == "__main__":
    main()
