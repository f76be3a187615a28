"""What the web game says about a position: hints (safe cells, mines, reasons, probabilities, the
best guess) and the analysis board. Pure functions of what the player sees, so they can run in
worker processes."""

from __future__ import annotations

import base64
import json
from typing import Any

from demine.analysis import Analysis, Limit, analyze
from demine.analysis.explain import describe_reason
from demine.engine.formats import Board, board_to_mbf
from demine.engine.grid import check_mines, default_start
from demine.engine.position import COVERED, FLAG, Position
from demine.errors import InconsistentPosition, SizeError
from demine.players.best.settings import HINT_SETTINGS

MAX_SIDE = 100
"""The largest board side the web game accepts."""
MAX_PASTE = 20_000
"""The longest position text the analysis board accepts (characters)."""
HINT_LIMIT = Limit(seconds=0.5)
"""The budget of one hint's analysis; past it the probabilities are marked approximate."""
GUESS_LIMIT = Limit(seconds=0.05)
"""The budget of the best-guess search in a hint."""


def _rc(width: int, cell: int) -> list[int]:
    return list(divmod(cell, width))


def _rows(p: Position) -> list[str]:
    return p.to_text().splitlines()[1:]


def _check_side(width: int, height: int) -> None:
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise SizeError(f"the web game takes boards up to {MAX_SIDE}x{MAX_SIDE}; got {width}x{height}")


def hints(
    position: Position,
    *,
    probabilities: bool = True,
    guess: bool = True,
    trust_flags: bool = False,
    guess_limit: Limit = GUESS_LIMIT,
) -> dict[str, Any]:
    """What logic says about a position, for the page: safe cells, mines, flags proven wrong,
    the reason for each, probabilities, and the best guess when nothing is safe.

    Computed on ``position.without_flags()``, so the player's flags never change a hint, unless
    ``trust_flags`` (the analysis board's choice): then flags are mines. ``guess_limit`` is the
    best guess's budget.
    """
    w = position.width
    plain = position if trust_flags else position.without_flags()
    st = position.states
    out: dict[str, Any] = {"safe": [], "mines": [], "wrong_flags": [], "reasons": {}, "best": None}
    try:
        a = analyze(plain, limit=HINT_LIMIT)
    except InconsistentPosition as e:
        out["error"] = str(e)
        return out
    out["approximate"] = a.approximate
    out["solutions"] = None if a.solutions is None else str(a.solutions)
    out["safe"] = [_rc(w, c) for c in sorted(a.safe) if st[c] == COVERED]
    out["mines"] = [_rc(w, c) for c in sorted(a.mines)]
    out["wrong_flags"] = [_rc(w, c) for c in sorted(a.safe) if st[c] == FLAG]
    reasons = a.reasons
    for c in sorted(a.safe | a.mines):
        r = reasons.get(c)
        out["reasons"][f"{c // w},{c % w}"] = {
            "text": describe_reason(plain, c, a),
            "kind": None if r is None else r.kind,
            "numbers": [] if r is None or r.kind == "mine-count" else [_rc(w, n) for n in r.numbers],
        }
    if probabilities:
        out["probabilities"] = permille(position.cells, a)
    # a best guess only where a guess is left: a covered cell neither safe nor a proven mine (where
    # every covered cell is a proven mine nothing is to be opened, and no cell is a "guess")
    if not a.safe and any(st[c] == COVERED and c not in a.mines for c in a.unknown):
        if guess:
            out["best"] = best_guess(plain, a, guess_limit)
        else:
            out["guess_pending"] = True  # the best guess costs more: asked for separately
    return out


def quick_hints(position: Position) -> dict[str, Any]:
    """:func:`hints` without the best guess (what a click returns)."""
    return hints(position, guess=False)


def approx_bytes(obj: Any) -> int:
    """About the bytes a JSON-like ``obj`` (the hints, a review) holds in memory: 1.8 times the
    length of its JSON text. Measured with tracemalloc on the hints of boards from 30x16 to
    100x100, the bytes held are 1.58 to 2.01 times that length (2.2 on a 9x9, a few KB). O(size
    of ``obj``) at the C speed of ``json.dumps``: 1.5 ms for a 100x100 board's hints, where a walk
    of its objects with ``sys.getsizeof`` took 30 ms on the event loop."""
    return 200 + len(json.dumps(obj)) * 9 // 5


def as_tuples(obj: Any) -> Any:
    """``obj`` (JSON-like: the hints kept with a game) with each list made a tuple, its dicts
    changed in place; the same JSON. A tuple of numbers, strings and None is left out of the
    cycle collector's scans after its first one, a list never is: the hints kept with each game
    in memory (on an expert board a 480-number list of chances and ``[row, col]`` pairs for the
    safe cells, the mines and each reason's numbers: about 60 lists a game, 30,000 with 500
    games) were most of what each full collection walked, and one such collection held the
    event loop for 35 ms of CPU (90-110 ms on a busy machine) in the abuse benchmark (research
    log 12, part l). A list of lists or dicts is told by its first item (the hints' lists are
    all of one kind)."""
    if type(obj) is list:
        if obj and type(obj[0]) in (list, dict):
            return tuple(as_tuples(x) for x in obj)
        return tuple(obj)
    if type(obj) is dict:
        for k, v in obj.items():
            if type(v) in (list, dict):
                obj[k] = as_tuples(v)
    return obj


def sized_hints(position: Position, moves: int) -> tuple[dict[str, Any], int]:
    """:func:`quick_hints` of the position after ``moves`` moves (marked ``"moves"``), with their
    :func:`approx_bytes`, both made in the worker: weighed on the server, the hints were encoded
    once more on its event loop (5% of the loop's time under the abuse benchmark); their lists
    made tuples there too (:func:`as_tuples`, as the server keeps them)."""
    h = as_tuples(quick_hints(position))
    h["moves"] = moves
    return h, approx_bytes(h)


def guess_for(position: Position, guess_limit: Limit = GUESS_LIMIT) -> dict[str, Any]:
    """The best guess alone (for hints computed with ``guess=False``), within ``guess_limit``."""
    plain = position.without_flags()
    return best_guess(plain, analyze(plain, limit=HINT_LIMIT), guess_limit)


def permille(cells: int, a: Analysis) -> list[int | None]:
    """Each cell's chance of a mine in thousandths, row-major; None for a cell not analysed (open).
    (Compact on purpose: ints encode several times faster than floats, and hints go out on every
    click.)"""
    grid: list[int | None] = [None] * cells
    for c, p in a.float_probabilities().items():
        grid[c] = int(p * 1000 + 0.5)
    return grid


def best_guess(plain: Position, a: Analysis, guess_limit: Limit = GUESS_LIMIT) -> dict[str, Any]:
    """The ``best`` player's move when no cell is safe: its reason and risk; in the endgame the
    chance to win with best play, after a look-ahead the chance to survive the next reveals."""
    from demine import best_move

    bm = best_move(plain, guess_limit, analysis=a, settings=HINT_SETTINGS)
    return {
        "cell": _rc(plain.width, bm.move.cell),
        "reason": bm.reason,
        "mine_probability": round(bm.mine_probability, 4),
        "win_probability": None if bm.win_probability is None else round(bm.win_probability, 4),
        "survive": None if bm.survive is None else round(bm.survive, 4),
        "reveals": bm.reveals,
        "outlook": bm.outlook,
    }


def analysis_board(
    text: str, mines: int | None = None, trust_flags: bool = False, guess_limit: Limit = GUESS_LIMIT
) -> dict[str, Any]:
    """The analysis board: parse a ``.mine`` position, analyse it, and export it.

    ``mines`` overrides the count in the text. The MBF export is a layout, so it is offered when
    the position decides where every mine is (flags, when trusted, and proven mines). The best
    guess has ``guess_limit``.
    """
    if len(text) > MAX_PASTE:
        raise SizeError(f"a pasted position has at most {MAX_PASTE} characters, got {len(text)}")
    p = Position.from_text(text)
    _check_side(p.width, p.height)
    if mines is not None:
        check_mines(p.width, p.height, mines)
        p = p.with_mines(mines)
    w = p.width
    out: dict[str, Any] = {
        "width": p.width,
        "height": p.height,
        "mines": p.mines,
        "text": p.to_text(),
        "rows": _rows(p),
    }
    h = hints(p, trust_flags=trust_flags, guess_limit=guess_limit)
    if "error" in h:
        out["error"] = h["error"]
        return out
    out.update(
        safe=h["safe"],
        mines_found=h["mines"],
        wrong_flags=h["wrong_flags"],
        probabilities=h["probabilities"],
        approximate=h["approximate"],
        solutions=h["solutions"],
        reasons=h["reasons"],
        best=h["best"],
    )
    known = {r * w + c for r, c in h["mines"]}
    if trust_flags:
        known.update(p.flagged_cells())
    out["mbf"] = None
    if p.mines is None:
        out["mbf_note"] = "MBF holds a whole layout: give the mine count"
    elif len(known) != p.mines:
        out["mbf_note"] = (
            f"MBF holds a whole layout; this position places {len(known)} of {p.mines} mines for certain"
        )
    else:
        board = Board(p.width, p.height, tuple(sorted(known)), "none", None)
        out["mbf"] = base64.b64encode(board_to_mbf(board)).decode("ascii")
    return out


#: Each decision's analysis in a web review (an expert game takes about a tenth of a second).
REVIEW_LIMIT = Limit(seconds=0.25)


def game_review(record: dict[str, Any]) -> dict[str, Any]:
    """The review of a finished game (its record as JSON): the summary, every decision and the
    curves of the graph (:func:`demine.review.picture.curves`), for the page."""
    from demine.engine.formats import GameRecord
    from demine.review import ReviewSettings, review_game
    from demine.review.picture import curves

    r = review_game(GameRecord.from_json(record), ReviewSettings(limit=REVIEW_LIMIT))
    xs, kept, luck = curves(r)
    out = r.to_json()
    out["curves"] = {"x": xs, "kept": kept, "luck": luck}
    return out


def first_click_hint(width: int, height: int, mines: int, rule: str) -> dict[str, Any]:
    """The hints before the first click: the rule's start cell and the board's density."""
    start = default_start(width, height, rule)
    risk = 0.0 if rule != "none" else mines / (width * height)
    why = {
        "safe": "the first click is never a mine; a corner is the likeliest to open an area",
        "zero": "the first click opens an area; the usual start cell",
        "none": "no cell is safer than another before the first click",
    }[rule]
    out: dict[str, Any] = {
        "safe": [],
        "mines": [],
        "wrong_flags": [],
        "reasons": {},
        "best": {
            "cell": _rc(width, start),
            "reason": "first-click",
            "mine_probability": round(risk, 4),
            "win_probability": None,
            "survive": None,
            "reveals": None,
            "outlook": "",
            "text": why,
        },
        "approximate": False,
        "solutions": None,
    }
    # the overlay shows the density (the chance a cell holds a mine before anything is known),
    # not the first click's risk: that is the best guess's own figure above
    out["probabilities"] = [round(1000 * mines / (width * height))] * (width * height)
    return out


def one_hint(h: dict[str, Any]) -> dict[str, Any]:
    """One move to show from a game's hints ``h``: a safe cell with its simplest reason, else the
    best guess."""
    if h.get("error"):
        return {"error": h["error"]}
    if h["safe"]:
        # the simplest proof first: one number, then a pair, a set of numbers, the mine count
        rank = {"number": 0, "pair": 1, "component": 2, "mine-count": 3, None: 4}
        r, c = min(h["safe"], key=lambda rc: rank[h["reasons"][f"{rc[0]},{rc[1]}"]["kind"]])
        reason = h["reasons"][f"{r},{c}"]
        return {"cell": [r, c], "kind": "safe", "text": reason["text"], "numbers": reason["numbers"]}
    best = h["best"]
    if best is None:
        return {"cell": None, "kind": "none", "text": "nothing left to open"}
    pct = 100 * best["mine_probability"]
    text = best.get("text") or (
        f"no safe cell: the best guess ({best['reason']}), {pct:.1f}% risk of a mine"
        + (f"; {best['outlook']}" if best["outlook"] else "")
    )
    return {"cell": best["cell"], "kind": "guess", "text": text, "numbers": [], **best}
