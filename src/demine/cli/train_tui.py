"""``demine puzzle`` on the terminal game's board (:class:`~demine.cli.tui.BoardWidget`, Textual,
the ``tui`` extra): a puzzle shown as a board, answered with the cursor and keys or the mouse,
judged at once with its proof drawn on the board, then the next one.

Keys: arrows or hjkl move, space or enter opens a cell (once a puzzle is over: the next puzzle),
f flags (judged in an "all" puzzle, a note of your own in the others), y / n answer a coin
puzzle's call (a true 50/50, or not yet; or press its buttons), s skips to the next puzzle,
q quits. The mouse: left click opens, right click flags.

After a verdict: the numbers of the proof are drawn orange and underlined, the cell explained is
``@`` (green), the cell you played wrong ``x`` (red), proven safe cells ``+`` and mines ``*``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Footer, Static

from demine.cli.train import score
from demine.cli.tui import BoardWidget
from demine.engine.position import COVERED, FLAG, Position
from demine.puzzles import Puzzle
from demine.puzzles.judge import AllAttempt, Verdict, _col, judge, letter_name

#: What the marks on a judged board mean (shown under the verdict).
LEGEND = "orange underlined: the numbers of the proof · @ the cell explained · x yours · + safe · * mine"


#: A cell as the verdicts name it: column letter and row from 1 (``c3``).
cell_name = letter_name


class PuzzleApp(App[int]):
    """Training puzzles one after another on the board (see the module's note for the keys)."""

    TITLE = "demine puzzle"
    CSS = """
    Screen { align: center middle; }
    #meta, #question, #verdict, #stats { width: 100%; height: auto; padding: 0 1; }
    #meta { color: $text-muted; }
    #verdict { min-height: 2; }
    #coin { height: auto; width: auto; }
    #boardrow, #boardcol { height: auto; width: auto; }
    #rows { width: auto; color: $text-muted; text-align: right; }
    #cols { width: auto; padding: 0 1; color: $text-muted; }
    #coin Button { margin: 0 1; height: 1; border: none; min-width: 18; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "call(True)", "true 50/50"),
        Binding("n", "call(False)", "not yet"),
        Binding("s", "next", "next / skip"),
        Binding("q", "quit_training", "quit"),
    ]

    def __init__(self, puzzles: list[Puzzle], profile: dict[str, Any], path: Path | None) -> None:
        super().__init__()
        if not puzzles:
            raise ValueError("no puzzles to train on")
        self.puzzles = puzzles
        self.profile = profile
        self.path = path
        self.index = 0
        self.puzzle = puzzles[0]
        self.verdict: Verdict | None = None
        self.fifty: bool | None = None
        self.attempt_all: AllAttempt | None = None
        self.notes: set[int] = set()
        self.message = ""
        self.answered = 0
        self.last: int | None = None
        """The cell of the last answer (marked when it was wrong)."""

    def compose(self) -> ComposeResult:
        yield Static(id="meta")
        yield Static(id="question")
        yield Static(id="stats")
        with Horizontal(id="coin"):
            yield Button("True 50/50 (y)", id="yes")
            yield Button("Not yet (n)", id="no")
        yield Static(id="verdict")
        with Horizontal(id="boardrow"):
            yield Static(id="rows")
            with Vertical(id="boardcol"):
                yield Static(id="cols")
                yield BoardWidget(self.puzzle.position, id="board")
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The call keys (y, n) only in a coin puzzle not yet judged."""
        if action == "call":
            return self.puzzle.kind == "coin" and not self.done
        return True

    def on_mount(self) -> None:
        self.start(self.puzzles[0])

    @property
    def board(self) -> BoardWidget:
        return self.query_one(BoardWidget)

    @property
    def done(self) -> bool:
        """Whether the puzzle shown has its verdict."""
        return self.verdict is not None and self.verdict.done

    # ------------------------------------------------------------------ a puzzle
    def start(self, p: Puzzle) -> None:
        """Show ``p``, unanswered (a board taller than wide is shown with rows and columns
        swapped, to fit the terminal: the same puzzle)."""
        if p.position.height > p.position.width:
            p = p.transformed(4)
        self.puzzle = p
        self.verdict = None
        self.fifty = None
        self.attempt_all = AllAttempt(p) if p.kind == "all" else None
        self.notes = set()
        mines = p.position.mines
        self.query_one("#meta", Static).update(
            f"Puzzle {p.id} · {p.kind} · {p.difficulty} ({p.rating:.0f}) · themes: {', '.join(p.themes)}"
            f" · from {p.source}"
        )
        self.query_one("#question", Static).update(
            p.question + (f" The board holds {mines} mines." if mines is not None else "")
        )
        self.query_one("#coin").display = p.kind == "coin"
        w, h = p.position.width, p.position.height
        names = [_col(c) for c in range(w)]
        head = "".join(f"{n[-1]:<2}" for n in names)
        if w > 26:  # two lines: aa, ab... have their first letter above
            head = "".join(f"{n[:-1]:<2}" for n in names).rstrip() + "\n" + head
        self.query_one("#cols", Static).update(head)
        self.query_one("#rows", Static).update(
            "\n" * (head.count("\n") + 1) + "\n".join(str(r + 1) for r in range(h))
        )
        self.refresh_bindings()
        for b in ("#yes", "#no"):
            self.query_one(b, Button).variant = "default"
        if p.kind == "coin":
            self.message = "First your call: y, a true 50/50 (guess it now), or n, not yet. Then the cell."
        elif p.kind == "all":
            self.message = "Open every proven safe cell (space) and flag every proven mine (f)."
        else:
            self.message = "Move the cursor to a cell and open it (space), or click it."
        board = self.board
        board.cursor = min(board.cursor, p.position.cells - 1)
        board.focus()
        self.show()

    def shown_position(self) -> Position:
        """The puzzle's position with the player's flags (notes, or judged flags in "all")."""
        pos = self.puzzle.position
        flags = set(self.notes)
        if self.attempt_all is not None:
            flags |= self.attempt_all.flagged
        for c in flags:
            pos = pos.with_state(c, FLAG)
        return pos

    def marks(self) -> dict[int, str]:
        """What the board marks: cells decided so far, and once judged the proof."""
        p, v = self.puzzle, self.verdict
        marks: dict[int, str] = {}
        if p.kind == "coin" and not self.done:
            marks |= dict.fromkeys(p.pair, "pair")
        if self.attempt_all is not None:
            marks |= dict.fromkeys(self.attempt_all.opened, "safe")
        if v is None:
            return marks
        if self.done and p.kind in ("safe", "all"):
            flagged = self.attempt_all.flagged if self.attempt_all is not None else set()
            for c in p.answer:
                if c in p.mines:
                    if c not in flagged:
                        marks[c] = "mine"
                else:
                    marks[c] = "safe"
        marks |= dict.fromkeys(v.proof, "because")
        if v.cell is not None:
            marks[v.cell] = "pick"
        if self.done and not v.right and self.last is not None:
            marks[self.last] = "played"
        return marks

    def show(self) -> None:
        """Draw the board, the verdict and the player's rating and streak."""
        self.board.update(self.shown_position(), self.marks())
        lines = [self.message]
        if self.verdict is not None and (self.done or not self.verdict.right or self.verdict.proof):
            lines.append(LEGEND)
        if self.done:
            last = self.index + 1 >= len(self.puzzles)
            lines.append("q to quit." if last else "Enter or s: the next puzzle, q to quit.")
        self.query_one("#verdict", Static).update("\n".join(x for x in lines if x))
        self.show_stats()

    def show_stats(self) -> None:
        prof = self.profile
        cursor = cell_name(self.puzzle, self.board.cursor)
        call = ""
        if self.puzzle.kind == "coin" and not self.done:
            call = " · your call: " + {None: "not made", True: "true 50/50", False: "not yet"}[self.fifty]
        self.query_one("#stats", Static).update(
            f"Rating {prof['rating']:.0f} · streak {prof['streak']} (best {prof['best_streak']}) · "
            f"solved {prof['solved']} of {prof['attempted']} · cursor {cursor}{call}"
        )

    # ------------------------------------------------------------------ answers
    def on_board_widget_cursor_moved(self, event: BoardWidget.CursorMoved) -> None:
        self.show_stats()

    def on_board_widget_cell_action(self, event: BoardWidget.CellAction) -> None:
        if self.done:
            if event.action == "reveal":
                self.action_next()
            return
        self.answer(event.cell, event.action == "flag")

    def answer(self, cell: int, flag: bool) -> None:
        """Open (or flag) ``cell`` in the puzzle shown, and judge it."""
        p = self.puzzle
        where = cell_name(p, cell)
        if p.position.states[cell] < COVERED:
            self.message = f"{where} is open already: choose a covered cell."
            return self.show()
        if self.attempt_all is None:
            if flag:  # a note of the player's own, not judged
                self.notes ^= {cell}
                self.message = f"{where}: " + (
                    "flagged (a note for you; this puzzle asks for a cell to open)"
                    if cell in self.notes
                    else "flag taken back"
                )
                return self.show()
            if cell in self.notes:
                self.message = f"{where} is flagged: f takes the flag back."
                return self.show()
            if p.kind == "coin" and self.fifty is None:
                self.message = "First your call: y (a true 50/50) or n (not yet), or press a button."
                return self.show()
            v = judge(p, cell, self.fifty)
        else:
            if cell in self.attempt_all.opened or cell in self.attempt_all.flagged:
                self.message = f"{where} is done already."
                return self.show()
            v = self.attempt_all.move(cell, flag)
        self.last = cell
        self.verdict = v
        self.message = v.message
        if v.done:
            self.refresh_bindings()
            before, after = score(self.profile, p, v, self.path)
            self.answered += 1
            self.message += (
                f" Rating {after.rating:.0f} ({after.rating - before.rating:+.0f}), "
                f"streak {self.profile['streak']}."
            )
        self.show()

    def action_call(self, fifty: bool) -> None:
        if self.puzzle.kind != "coin" or self.done:
            return
        self.fifty = fifty
        self.query_one("#yes", Button).variant = "primary" if fifty else "default"
        self.query_one("#no", Button).variant = "default" if fifty else "primary"
        self.message = (
            "Your call: a true 50/50. Now open one of the pair (?)."
            if fifty
            else "Your call: not yet. Now open the cell that tells you more first."
        )
        self.board.focus()
        self.show()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_call(event.button.id == "yes")

    def action_next(self) -> None:
        if self.index + 1 >= len(self.puzzles):
            self.message = "That was the last puzzle: q to quit."
            if not self.done:
                self.message = "No other puzzle to skip to: answer this one, or q to quit."
            self.show()
            return
        self.index += 1
        self.last = None
        self.start(self.puzzles[self.index])

    def action_quit_training(self) -> None:
        self.exit(0)
