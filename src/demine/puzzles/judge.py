"""Grading an answer: right or wrong at once, with the proof to show."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from demine.puzzles.model import Puzzle

#: How a verdict names a cell of its puzzle: :func:`letter_name` (the terminal's ``c3``) by
#: default; the web passes the API's ``(row,col)`` from 0, which the page shows in its own form.
CellNamer = Callable[[Puzzle, int], str]


@dataclass(frozen=True, slots=True)
class Verdict:
    """What one answer earned."""

    right: bool
    """Whether the answer is right (for ``all``: this move)."""
    done: bool
    """Whether the puzzle is over (solved or failed)."""
    message: str
    """What to tell the player."""
    cell: int | None
    """The cell whose proof is shown (the one answered when right, else a right one)."""
    proof: tuple[int, ...] = ()
    """The numbers that force the answer, to outline."""
    share: float | None = None
    """guess and coin: the share of the best chance to win the answer kept."""


def letter_name(p: Puzzle, cell: int) -> str:
    """A cell as the terminal names it: its column's letters and its row from 1 (``c3``)."""
    r, c = divmod(cell, p.position.width)
    return f"{_col(c)}{r + 1}"


def _col(c: int) -> str:
    """Column letters: a..z, then aa, ab..."""
    s = ""
    c += 1
    while c:
        c, rem = divmod(c - 1, 26)
        s = chr(97 + rem) + s
    return s


def _why(p: Puzzle, cell: int, name: CellNamer) -> str:
    rule, nums = p.proof.get(cell, ("", ()))
    names = ", ".join(f"the {p.position.states[n]} at {name(p, n)}" for n in nums)
    if rule == "mine-count":
        return "the mine count decides it"
    if rule == "number":
        return f"{names} alone"
    if rule == "pair":
        return f"the numbers {names}, together (pair rule)"
    if rule == "component":
        return f"the numbers {names}, together"
    return names


def _easiest(p: Puzzle, cells: tuple[int, ...]) -> int:
    order = {"number": 0, "pair": 1, "component": 2, "mine-count": 3, "endgame": 4}
    return min(
        cells, key=lambda c: (order.get(p.proof.get(c, ("", ()))[0], 5), len(p.proof.get(c, ("", ()))[1]), c)
    )


def judge(p: Puzzle, cell: int, fifty: bool | None = None, name: CellNamer = letter_name) -> Verdict:
    """The verdict on opening ``cell`` in a safe, guess or coin puzzle (for coin, ``fifty`` is
    the player's call: a true 50/50 or not); its message names cells with ``name``."""
    if p.kind == "safe":
        if cell in p.answer:
            return Verdict(
                True, True, f"Right: {name(p, cell)} is safe: {_why(p, cell, name)}.", cell, p.proof[cell][1]
            )
        shown = _easiest(p, p.answer)
        why = "it may hold a mine" if cell not in p.answer else ""
        return Verdict(
            False, True, f"Wrong: {name(p, cell)} is not proven safe ({why}). {name(p, shown)} is safe: "
            f"{_why(p, shown, name)}.", shown, p.proof[shown][1],
        )  # fmt: skip
    if p.kind in ("guess", "coin"):
        share = p.share(cell)
        best = max(p.chances.values())
        got = p.chances.get(cell, 0.0)
        right_cell = cell in p.answer
        shown = cell if right_cell else p.answer[0]
        facts = f"{name(p, cell)} wins {got:.1%}, the best {best:.1%} ({name(p, p.answer[0])})"
        if p.kind == "coin":
            call_right = fifty is None or fifty == p.fifty
            truth = "a true 50/50: guess it now, nothing can tell the pair apart" if p.fifty else (
                "not a true 50/50 yet: open a cell that can tell the pair apart first")  # fmt: skip
            right = right_cell and call_right
            msg = ("Right: " if right else "Wrong: ") + f"it is {truth}. {facts}."
            return Verdict(right, True, msg, shown, p.proof.get(shown, ("", ()))[1], share)
        msg = ("Right: " if right_cell else "Wrong: ") + f"{facts}; kept {share or 0:.0%} of the best chance."
        return Verdict(right_cell, True, msg, shown, p.proof.get(shown, ("", ()))[1], share)
    raise ValueError("an 'all' puzzle is answered move by move: use AllAttempt")


class AllAttempt:
    """An "all" puzzle in progress: each move opens or flags a cell; the first wrong one fails."""

    def __init__(self, puzzle: Puzzle, name: CellNamer = letter_name) -> None:
        self.puzzle = puzzle
        self.name = name
        """How the verdicts' messages name cells."""
        self.opened: set[int] = set()
        self.flagged: set[int] = set()

    @property
    def left(self) -> int:
        """Proven cells not yet opened or flagged."""
        return len(self.puzzle.answer) - len(self.opened) - len(self.flagged)

    def move(self, cell: int, flag: bool) -> Verdict:
        """Open (or flag) ``cell``."""
        p = self.puzzle
        name = self.name
        mines = set(p.mines)
        if cell in self.opened or cell in self.flagged:
            return Verdict(True, False, f"{name(p, cell)} is done already.", None)
        if flag and cell in mines:
            self.flagged.add(cell)
        elif not flag and cell in p.answer and cell not in mines:
            self.opened.add(cell)
        else:
            what = "a mine" if cell in mines else ("safe" if cell in p.answer else "not proven either way")
            act = "flagged" if flag else "opened"
            return Verdict(False, True, f"Wrong: you {act} {name(p, cell)}, which is {what}.",
                           cell if cell in p.proof else None, p.proof.get(cell, ("", ()))[1])  # fmt: skip
        kind = "a mine" if flag else "safe"
        done = self.left == 0
        msg = f"Right: {name(p, cell)} is {kind}: {_why(p, cell, name)}." + (
            " All found!" if done else f" {self.left} to go."
        )
        return Verdict(True, done, msg, cell, p.proof[cell][1])
