"""``demine review``: every decision of finished games marked, with the chance to win each lost."""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from demine.analysis import Limit
from demine.cli import longrun, positive_float, positive_int
from demine.cli.needs import check_picture, need_extra, suffix_of, writable_file, write_picture
from demine.cli.tables import console, print_table
from demine.errors import DemineError, FormatError, InputError
from demine.review import MARKS, Review, ReviewSettings, review_game
from demine.review.files import ReviewedGame, game_in, games_in
from demine.review.video import VIDEO_CLASSES
from demine.text import fold, plural

#: The marks a table lists unless ``--all`` (forced moves and plain flags are the bulk of a game).
SHOWN = ("first click", "best guess", "inaccuracy", "mistake", "blunder", "needless guess", "wrong flag")


def add_review(sub: Any) -> None:
    p = sub.add_parser(
        "review",
        help="mark every decision of finished games, with the chance to win each one lost",
        description="Review games: each move judged from what the player could see (their flags "
        "checked, not trusted): forced, best guess, inaccuracy, mistake, blunder (by the chance to "
        "win lost: 2, 5, 10 points), needless guess (a safe cell was known), wrong flag. Chances "
        "are exact in the endgame (marked =), the engine's estimate elsewhere (marked ~).",
    )
    p.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="game records (demine new, the web's export), bench record files written with "
        "--record-moves, videos (.avf, .rmv, .evf, .mvf: the video extra), or folders of them",
    )
    p.add_argument(
        "--game",
        type=positive_int,
        metavar="N",
        help="review only game N of the file (numbered from 1 in the file's order, as the table of "
        "many games names them FILE:N; replay --game counts the same way)",
    )
    p.add_argument("--json", action="store_true", help="the reviews as JSON (one object per game)")
    p.add_argument("--all", action="store_true", help="list every move, forced moves and flags too")
    p.add_argument("--jobs", type=positive_int, default=1, help="processes to review in (default 1)")
    p.add_argument(
        "--seconds", type=positive_float, default=0.5, help="budget of each decision's analysis (default 0.5)"
    )
    p.add_argument(
        "--graph", metavar="FILE", help="one game: the graph of its chances and marks (.svg or .png)"
    )
    p.add_argument(
        "--board",
        nargs=2,
        metavar=("MOVE", "FILE"),
        help="one game: the board before move MOVE (numbered from 1, as in the table) as FILE.svg "
        "or FILE.png, the "
        "move played framed in red and the better one in green",
    )
    p.set_defaults(func=cmd_review)


def _review_one(job: tuple[ReviewedGame, ReviewSettings]) -> tuple[str, Review | str]:
    game, settings = job
    try:
        return game.name, review_game(
            game.record, settings, game.times, clicks=game.clicks, seconds=game.seconds
        )
    except DemineError as e:
        return game.name, str(e)


def cmd_review(ns: argparse.Namespace) -> int:
    if not ns.seconds > 0:
        raise InputError(f"--seconds must be positive, got {ns.seconds}")
    settings = ReviewSettings(limit=Limit(seconds=ns.seconds))
    _check_needs(ns)
    unread: list[FormatError] = []  # files of a folder that could not be read: the rest go on
    if ns.game is not None:
        if len(ns.paths) != 1:
            raise InputError("--game N picks a game of one file: name one file")
        games = [game_in(ns.paths[0], ns.game)]
    else:
        games = [g for path in ns.paths for g in games_in(path, unread.append)]
    if (ns.graph or ns.board) and len(games) != 1:
        where = ns.paths[0] if len(ns.paths) == 1 else "these paths"
        raise InputError(
            f"--graph and --board draw one game, and {where} hold{'s' if len(ns.paths) == 1 else ''} "
            f"{len(games)}: add --game N (1 to {len(games)}) or name one file of one game"
        )
    if ns.board and not int(ns.board[0]) <= len(games[0].record.moves):
        total = len(games[0].record.moves)
        raise InputError(
            f"--board {ns.board[0]}: {games[0].name} has {total} move{'' if total == 1 else 's'}"
        )
    jobs = [(g, settings) for g in games]
    results: list[tuple[str, Review | str]] = []
    tick, stop = longrun.progress(len(jobs), "review")  # a bar on a terminal, as bench has
    try:
        if ns.jobs > 1 and len(jobs) > 1:
            with ProcessPoolExecutor(min(ns.jobs, len(jobs))) as pool:
                for result in pool.map(_review_one, jobs, chunksize=4):
                    results.append(result)
                    tick(result)
        else:
            for job in jobs:
                results.append(_review_one(job))
                tick(results[-1])
    finally:
        stop()
    failed = [(name, r) for name, r in results if isinstance(r, str)]
    done = [(name, r) for name, r in results if not isinstance(r, str)]
    if ns.json:
        for name, r in results:
            out = {"game": name, "error": r} if isinstance(r, str) else {"game": name, **r.to_json()}
            print(json.dumps(out))
    elif len(done) == 1 and not failed:
        _print_game(*done[0], show_all=ns.all)
    else:
        _print_many(done)
    if ns.graph or ns.board:
        _pictures(ns, games, done)
    for name, why in failed:
        print(f"demine review: {name}: {why}", file=sys.stderr)
    for e in unread:
        print(f"demine review: {e}", file=sys.stderr)
    return 1 if failed or unread else 0


def _check_needs(ns: argparse.Namespace) -> None:
    """Everything the pictures and the videos need, before any game is read or reviewed."""
    if ns.graph:
        need_extra("plot", "--graph")
        suffix_of(ns.graph, (".png", ".svg"), "--graph")
        writable_file(ns.graph, "--graph")
    if ns.board:
        move, path = ns.board
        if not move.isdigit() or int(move) < 1:
            raise InputError(f"--board MOVE FILE: MOVE must be a move number (from 1), got {move!r}")
        check_picture(path, "--board")
    videos = [p for p in ns.paths if Path(p).suffix.lower() in VIDEO_CLASSES]
    if videos:
        need_extra("video", f"reading videos ({videos[0]})")


def _pictures(ns: argparse.Namespace, games: list[ReviewedGame], done: list[tuple[str, Review]]) -> None:
    from demine.review.picture import board_at, plot_review

    if len(done) != 1:  # its review failed: said on stderr
        return
    name, r = done[0]
    if ns.graph:
        plot_review(r, ns.graph, title=Path(name).name)
        print(f"graph written to {ns.graph}", file=sys.stderr)
    if ns.board:
        move, path = ns.board
        write_picture(path, board_at(games[0].record, r, int(move)))
        print(f"board before move {move} written to {path}", file=sys.stderr)


def _pct(x: float | None) -> str:
    return "" if x is None else f"{100 * x:.1f}%"


def _win(r: Any, exact: bool) -> str:
    return "" if r is None else f"{'=' if exact else '~'}{100 * r:.1f}%"


def _print_game(name: str, r: Review, show_all: bool) -> None:
    rows = [d for d in r.decisions if show_all or d.mark in SHOWN or d.hit_mine]
    header = [
        "move",
        "action",
        "cell",
        "mark",
        "P(mine)",
        "safe known",
        "best",
        "P(best)",
        "win",
        "best win",
        "lost",
    ]
    body = []
    for d in rows:
        mark = d.mark + (" (hit a mine)" if d.hit_mine else "")
        body.append(
            [
                str(d.index + 1),
                d.kind,
                f"{d.row},{d.col}",
                mark,
                _pct(d.mine_probability),
                "" if d.safe_known is None else str(d.safe_known),
                "" if d.best is None else f"{d.best[0]},{d.best[1]}",
                _pct(d.best_mine_probability),
                _win(d.win_played, d.exact),
                _win(d.win_best, d.exact),
                f"{'=' if d.exact else '~'}{100 * d.lost:.1f}" if d.lost else "",
            ]
        )
    _table(f"{name}: {r.width}x{r.height}/{r.mines}, {r.rule} rule, {r.outcome}", header, body)
    s = r.summary()
    marks = ", ".join(f"{n} {m}".replace(" ", "\xa0") for m, n in s["marks"].items() if n)  # (each whole)
    print(fold(f"marks: {marks}", "  "))
    print(
        fold(
            f"share of the chance to win given away: {_pct(s['chance_lost'])} "
            f"({_pct(s['chance_lost_exact'])} by the exact endgame); luck (chance of surviving the "
            f"guesses taken): {_pct(s['luck'])}; accuracy {_pct(s['accuracy'])}"
        )
    )
    speed = f", 3BV/s {s['bbbv_per_second']:.2f}" if s["bbbv_per_second"] else ""
    ioe = f"{s['ioe']:.2f}" if s["ioe"] is not None else "-"
    print(fold(f"3BV {s['solved_bbbv']}/{s['bbbv']}, clicks {s['clicks']}, IOE {ioe}{speed}"))
    if s["seconds_before_guess"] is not None or s["seconds_before_forced"] is not None:
        g, f = s["seconds_before_guess"], s["seconds_before_forced"]
        times = ", ".join(f"{n} {v:.2f} s" for n, v in (("guess", g), ("forced", f)) if v is not None)
        print(fold(f"median time before a move: {times}"))


def _print_many(done: list[tuple[str, Review]]) -> None:
    header = [
        "game",
        "outcome",
        "guesses",
        "needless",
        "inacc.",
        "mistakes",
        "blunders",
        "lost",
        "luck",
        "3BV",
        "IOE",
    ]
    body = []
    for name, r in done:
        c = r.counts()
        body.append(
            [
                name,
                r.outcome,
                str(len(r.guesses)),
                str(c["needless guess"]),
                str(c["inaccuracy"]),
                str(c["mistake"]),
                str(c["blunder"]),
                _pct(r.lost),
                _pct(r.luck),
                f"{r.solved_bbbv}/{r.bbbv}",
                "-" if r.ioe is None else f"{r.ioe:.2f}",
            ]
        )
    _table("games", header, body)
    n = len(done)
    if not n:
        return
    won = sum(r.outcome == "won" for _, r in done)
    per = {m: sum(r.counts()[m] for _, r in done) / n for m in MARKS}
    lost = sum(r.lost for _, r in done) / n
    luck = sum(r.luck for _, r in done) / n
    print(
        fold(
            f"{plural(n, 'game')}, {won} won. Per game: {per['needless guess']:.2f} needless guesses, "
            f"{per['inaccuracy']:.2f} inaccuracies, {per['mistake']:.2f} mistakes, "
            f"{per['blunder']:.2f} blunders, {per['wrong flag']:.2f} wrong flags; {_pct(lost)} of "
            f"the chance to win given away; luck {_pct(luck)} on average"
        )
    )


#: Two-line forms of the review tables' one-word headers, for narrow terminals.
STACKED = {
    "outcome": "out-\ncome",
    "guesses": "guess-\nes",
    "needless": "need-\nless",
    "inacc.": "in-\nacc.",
    "mistakes": "mis-\ntakes",
    "blunders": "blun-\nders",
    "action": "ac-\ntion",
}


def _table(title: str, header: list[str], body: list[list[str]]) -> None:
    out = console()
    if out is not None:
        print_table(
            out, title, header, body, text=["game", "mark"], left=["action", "outcome"], stacked=STACKED
        )
        return
    print(title)
    print("\t".join(header))
    for row in body:
        print("\t".join(row))
