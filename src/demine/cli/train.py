"""``demine puzzle``: training in the terminal, one puzzle at a time, answered by cell (``c3``:
column c, row 3; or ``3 3``: row and column, counted from 1, as the board is labelled)."""

from __future__ import annotations

import argparse
import json
import os
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from demine.engine.formats import atomic_write, read_text
from demine.engine.position import COVERED
from demine.errors import DemineError, FormatError
from demine.puzzles import Puzzle, Rating, attempt, daily, read_puzzles
from demine.puzzles.judge import AllAttempt, Verdict, _col, judge

HELP = (
    "Answer with a cell: c3 (column c, row 3) or 3 3 (row, column). In an 'all' puzzle, "
    "f c3 flags a mine. q quits, s skips."
)


def profile_path(given: str | None) -> Path:
    """Where the player's rating and streak are kept."""
    if given:
        return Path(given)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "demine" / "training.json"


def load_profile(path: Path) -> dict[str, Any]:
    """The player's rating, streak and the puzzles seen (a fresh one if there is none)."""
    fresh: dict[str, Any] = {"rating": 1500.0, "rd": 350.0, "volatility": 0.06, "streak": 0,
                             "best_streak": 0, "solved": 0, "attempted": 0, "seen": []}  # fmt: skip
    try:
        data = json.loads(read_text(path, "a training profile"))
    except FileNotFoundError:
        return fresh
    except FormatError as e:  # (it names the file)
        raise DemineError(f"{e}; move it away to start afresh") from None
    except (OSError, ValueError) as e:
        raise DemineError(
            f"{path}: cannot read the training profile ({e}); move it away to start afresh"
        ) from None
    if not isinstance(data, dict):
        raise DemineError(f"{path}: not a training profile")
    return {**fresh, **data}


def parse_cell(text: str, width: int, height: int) -> int:
    """``c3`` or ``3 3`` (row, column from 1) as a cell; ValueError saying what is wrong."""
    t = text.strip().lower()
    m = re.fullmatch(r"([a-z]+)\s*(\d+)", t)
    if m:
        col = 0
        for ch in m.group(1):
            col = col * 26 + (ord(ch) - 96)
        col -= 1
        row = int(m.group(2)) - 1
    else:
        m = re.fullmatch(r"(\d+)[\s,]+(\d+)", t)
        if not m:
            raise ValueError(f"{text.strip()!r} is not a cell: write c3 (column, row) or 3 3 (row, column)")
        row, col = int(m.group(1)) - 1, int(m.group(2)) - 1
    if not (0 <= row < height and 0 <= col < width):
        raise ValueError(f"{text.strip()!r} is off the board ({width} columns, {height} rows)")
    return row * width + col


def board_text(p: Puzzle, marks: dict[int, str] | None = None, outline: tuple[int, ...] = ()) -> str:
    """The board with its labels; ``marks`` replace cells, numbers in ``outline`` are bracketed."""
    pos = p.position
    marks = marks or {}
    head = "     " + "".join(f"{_col(c):^3}" for c in range(pos.width))
    lines = [head]
    for r in range(pos.height):
        row = []
        for c in range(pos.width):
            cell = r * pos.width + c
            v = pos.states[cell]
            ch = marks.get(cell, "." if v >= COVERED else str(v))
            row.append(f"[{ch}]" if cell in outline else f" {ch} ")
        lines.append(f"{r + 1:>4} " + "".join(row))
    return "\n".join(lines)


def _choose(
    puzzles: list[Puzzle], ns: argparse.Namespace, prof: dict[str, Any], rng: random.Random
) -> list[Puzzle]:
    if ns.id:
        found = [p for p in puzzles if p.id == ns.id]
        if not found:
            raise DemineError(f"no puzzle {ns.id!r} in the set")
        return found
    pool = puzzles
    if ns.kind:
        pool = [p for p in pool if p.kind == ns.kind]
    if ns.theme:
        pool = [p for p in pool if ns.theme.lower() in p.themes]
    if ns.difficulty:
        pool = [p for p in pool if p.difficulty == ns.difficulty]
    if not pool:
        raise DemineError("no puzzle matches: try another --kind, --theme or --difficulty")
    if ns.daily:
        return [daily(pool)]
    seen = set(prof["seen"])
    fresh = [p for p in pool if p.id not in seen] or pool
    r = float(prof["rating"])
    fresh.sort(key=lambda p: (abs(p.rating - r), rng.random()))
    near = fresh[: max(20, len(fresh) // 10)]
    rng.shuffle(near)
    return near + fresh[len(near) :]


def score(prof: dict[str, Any], p: Puzzle, verdict: Verdict, path: Path | None) -> tuple[Rating, Rating]:
    """Count a finished attempt in the profile (rating, streak, solved, seen) and write it to
    ``path`` atomically; returns the player's rating before and after."""
    before = Rating(prof["rating"], prof["rd"], prof["volatility"])
    credit = (
        verdict.share
        if (p.kind == "guess" and verdict.share is not None and not verdict.right)
        else float(verdict.right)
    )
    after = attempt(before, Rating(p.rating, p.rd), credit)[0]
    prof.update(rating=after.rating, rd=after.rd, volatility=after.volatility)
    prof["attempted"] += 1
    if verdict.right:
        prof["solved"] += 1
        prof["streak"] += 1
        prof["best_streak"] = max(prof["best_streak"], prof["streak"])
    else:
        prof["streak"] = 0
    prof["seen"] = [*prof["seen"][-4999:], p.id]
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(prof) + "\n")
    return before, after


def choose(puzzles: list[Puzzle], ns: argparse.Namespace, prof: dict[str, Any]) -> list[Puzzle]:
    """The puzzles to offer, in order: ``--id``, ``--daily``, else those matching ``--kind``,
    ``--theme`` and ``--difficulty``, unseen first, nearest the player's rating first."""
    return _choose(puzzles, ns, prof, random.Random(ns.seed))


def train(ns: argparse.Namespace, read: Callable[[str], str] | None = None) -> int:
    """Puzzles one after another, answered through ``read`` (``input`` by default)."""
    read = read or input
    puzzles = read_puzzles(ns.file)
    path = profile_path(ns.profile)
    prof = load_profile(path)
    rng = random.Random(ns.seed)
    for p in _choose(puzzles, ns, prof, rng):
        try:
            verdict = _one(p, read)
        except EOFError:
            print()
            break
        if verdict is None:
            continue  # skipped
        before, after = score(prof, p, verdict, path)
        delta = after.rating - before.rating
        print(
            f"Rating {after.rating:.0f} ({delta:+.0f}), streak {prof['streak']} (best {prof['best_streak']})."
        )
        if ns.id or ns.daily:
            break
        try:
            if read("Next puzzle? [Enter, or q to quit] ").strip().lower() in ("q", "quit"):
                break
        except EOFError:
            print()
            break
    return 0


def _one(p: Puzzle, read: Callable[[str], str]) -> Verdict | None:
    print()
    print(f"Puzzle {p.id} ({p.kind}, {p.difficulty}, rating {p.rating:.0f}); themes: {', '.join(p.themes)}")
    mines = p.position.mines
    print(p.question + (f" The board holds {mines} mines." if mines is not None else ""))
    print(board_text(p))
    fifty: bool | None = None
    if p.kind == "coin":
        while fifty is None:
            a = read("A true 50/50? (y/n) ").strip().lower()
            if a in ("q", "quit"):
                raise EOFError
            if a in ("s", "skip"):
                return None
            fifty = True if a in ("y", "yes") else False if a in ("n", "no") else None
            if fifty is None:
                print("Answer y or n.")
        print("Now the cell to open" + (" (either of the pair)." if fifty else " first."))
    attempt_all = AllAttempt(p) if p.kind == "all" else None
    marks: dict[int, str] = {}
    while True:
        text = read("Your cell: ").strip()
        low = text.lower()
        if low in ("q", "quit"):
            raise EOFError
        if low in ("s", "skip"):
            return None
        if low in ("?", "h", "help") or not low:
            print(HELP)
            continue
        flag = False
        if attempt_all is not None and (m := re.fullmatch(r"(?:f\s+(.+))|(?:(.+?)\s+f)", low)):
            flag, low = True, (m.group(1) or m.group(2))
        try:
            cell = parse_cell(low, p.position.width, p.position.height)
        except ValueError as e:
            print(e)
            continue
        if p.position.states[cell] < COVERED:
            print("That cell is open already: choose a covered one.")
            continue
        if attempt_all is None:
            v = judge(p, cell, fifty)
        else:
            v = attempt_all.move(cell, flag)
            if v.right:
                marks[cell] = "F" if flag else "o"
        print(v.message)
        if v.done or not v.right:
            shown = dict(marks)
            if v.cell is not None:
                shown[v.cell] = "@"
            if not v.right and p.kind != "all":
                shown[cell] = "x"
            print(board_text(p, shown, v.proof))
            print("@: the cell explained; [n]: the numbers that prove it.")
            return v
