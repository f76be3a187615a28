"""``demine play``: a game in the terminal, with hints, mouse and keys (Textual, the ``tui``
extra), that writes a game record for ``demine review`` at the end.

:class:`BoardWidget` is the reusable piece: it draws a :class:`~demine.engine.position.Position`
(with optional marks per cell), keeps a cursor, and reports what the user did to a cell as a
:class:`BoardWidget.CellAction` message (a click with its button, or a key); it knows nothing of
games. :class:`PlayApp` is the game around it.

Mouse: left click opens a cell (on a number it chords), right click flags, middle click chords.
Keys: arrows or hjkl move the cursor, space or enter opens (or chords), f flags, c chords,
t turns hints on and off, ? shows one hint (a safe cell, else the best guess), n starts a new
game, q quits.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Footer, Static

from demine.analysis import Limit, analyze
from demine.engine.formats import GameRecord
from demine.engine.game import Game, Move, MoveKind
from demine.engine.grid import default_start
from demine.engine.position import COVERED, FLAG, Position
from demine.errors import DemineError

#: Columns a cell takes on the screen (its glyph and a space).
CELL_WIDTH = 2
#: The classic colours of the numbers 1-8 (as the SVG pictures and the web game use).
NUMBER_COLOURS = ("", "blue", "green", "red", "navy_blue", "dark_red", "dark_cyan", "black", "grey50")
#: What a mark looks like: proven safe green, proven mine blue, the suggested guess yellow, a flag
#: that logic proves wrong red, the mine that was hit and the layout's mines at the end.
MARK_STYLES = {
    "safe": Style(bgcolor="green4", color="white"),
    "mine": Style(bgcolor="blue3", color="white"),
    "guess": Style(bgcolor="yellow3", color="black"),
    "wrong-flag": Style(bgcolor="red3", color="white"),
    "hit": Style(bgcolor="red", color="white", bold=True),
    "shown-mine": Style(color="red", bold=True),
    # training puzzles: the numbers of the proof, the cell explained, the cell played wrong, a pair
    "because": Style(bgcolor="dark_orange3", color="white", bold=True, underline=True),
    "pick": Style(bgcolor="green4", color="white", bold=True, underline=True),
    "played": Style(bgcolor="red3", color="white", bold=True),
    "pair": Style(bgcolor="purple4", color="white", underline=True),
}
MARK_GLYPHS = {
    "safe": "+",
    "mine": "*",
    "hit": "*",
    "shown-mine": "*",
    "pick": "@",
    "played": "x",
    "pair": "?",
}
MOUSE = {1: "reveal", 2: "chord", 3: "flag"}


class BoardWidget(Widget, can_focus=True):
    """A board on the screen: a position, marks on some cells, and a cursor.

    ``update(position, marks)`` changes what it shows; a click or a key on a cell posts a
    :class:`CellAction` with the cell and what to do (``reveal``, ``flag`` or ``chord``)."""

    DEFAULT_CSS = """
    BoardWidget { width: auto; height: auto; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1, 0)", "up", show=False),
        Binding("down,j", "move(1, 0)", "down", show=False),
        Binding("left,h", "move(0, -1)", "left", show=False),
        Binding("right,l", "move(0, 1)", "right", show=False),
        Binding("space,enter", "act('reveal')", "open"),
        Binding("f", "act('flag')", "flag"),
        Binding("c", "act('chord')", "chord", show=False),
    ]

    @dataclass
    class CellAction(Message):
        """The user acted on a cell: ``action`` is ``reveal``, ``flag`` or ``chord``."""

        board: BoardWidget
        cell: int
        action: str

    @dataclass
    class CursorMoved(Message):
        """The cursor moved to ``cell`` (by a key)."""

        board: BoardWidget
        cell: int

    def __init__(self, position: Position, marks: dict[int, str] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.position = position
        self.marks: dict[int, str] = dict(marks or {})
        self.cursor = 0

    def update(self, position: Position, marks: dict[int, str] | None = None) -> None:
        """Show another position (the same size or not) with these marks."""
        self.position = position
        self.marks = dict(marks or {})
        self.cursor = min(self.cursor, position.width * position.height - 1)
        self.refresh(layout=True)

    def get_content_width(self, container: Any, viewport: Any) -> int:
        return CELL_WIDTH * self.position.width

    def get_content_height(self, container: Any, viewport: Any, width: int) -> int:
        return self.position.height

    def glyph(self, cell: int) -> tuple[str, Style]:
        """How one cell is drawn."""
        v = self.position.states[cell]
        mark = self.marks.get(cell)
        style = MARK_STYLES.get(mark or "", Style())
        if v == FLAG:
            return "F", style if mark == "wrong-flag" else Style(color="red", bold=True) + style
        if v == COVERED:
            return MARK_GLYPHS.get(mark or "", "#"), style if mark else Style(color="grey50")
        if v == 0:
            return ".", Style(color="grey35")
        return str(v), Style(color=NUMBER_COLOURS[v], bold=True) + style

    def render(self) -> Text:
        w = self.position.width
        text = Text(no_wrap=True, overflow="crop")
        for r in range(self.position.height):
            for c in range(w):
                cell = r * w + c
                ch, style = self.glyph(cell)
                if cell == self.cursor and self.has_focus:
                    style = style + Style(reverse=True)
                text.append(ch, style)
                text.append(" ")
            if r < self.position.height - 1:
                text.append("\n")
        return text

    def cell_at(self, x: int, y: int) -> int | None:
        """The cell at a content offset, or None off the board."""
        c, r = x // CELL_WIDTH, y
        if 0 <= r < self.position.height and 0 <= c < self.position.width:
            return r * self.position.width + c
        return None

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        cell = None if offset is None else self.cell_at(offset.x, offset.y)
        if cell is None or event.button not in MOUSE:
            return
        self.cursor = cell
        self.focus()
        self.post_message(self.CellAction(self, cell, MOUSE[event.button]))
        self.refresh()

    def action_move(self, dr: int, dc: int) -> None:
        w, h = self.position.width, self.position.height
        r, c = divmod(self.cursor, w)
        self.cursor = min(h - 1, max(0, r + dr)) * w + min(w - 1, max(0, c + dc))
        self.post_message(self.CursorMoved(self, self.cursor))
        self.refresh()

    def action_act(self, action: str) -> None:
        self.post_message(self.CellAction(self, self.cursor, action))


def hint_marks(position: Position, seconds: float = 0.5) -> tuple[dict[int, str], str]:
    """What logic proves in ``position``, as marks (flags as the player's claims, never facts),
    and a line saying it."""
    plain = position.without_flags()
    try:
        a = analyze(plain, limit=Limit(seconds=seconds))
    except DemineError as e:
        return {}, f"no hints: {e}"
    marks = {c: "safe" for c in a.safe} | {c: "mine" for c in a.mines}
    for c in position.flagged_cells():
        if c in a.safe:
            marks[c] = "wrong-flag"
    line = f"{len(a.safe)} proven safe (+), {len(a.mines)} proven mines (*)"
    if any(m == "wrong-flag" for m in marks.values()):
        line += "; a flag on a safe cell (red)"
    return marks, line


class PlayApp(App[int]):
    """A game of Minesweeper in the terminal (see the module's note for the mouse and keys)."""

    TITLE = "demine play"
    CSS = """
    Screen { align: center middle; }
    #status { width: 100%; content-align: center middle; height: auto; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t", "toggle_hints", "hints"),
        Binding("question_mark", "hint", "one hint"),
        Binding("n", "new_game", "new game"),
        Binding("q", "quit_game", "quit"),
    ]

    def __init__(
        self,
        width: int,
        height: int,
        mines: int,
        rule: str = "safe",
        seed: Any = None,
        record: str | Path | None = None,
        no_guess: str | None = None,
        hints: bool = False,
    ) -> None:
        super().__init__()
        self.shape = (width, height, mines)
        self.rule, self.seed, self.no_guess = rule, seed, no_guess
        self.record_path = Path(record) if record is not None else None
        self.hints = hints
        self.games = 0
        self.saved: Path | None = None
        self.game = self._new_game()
        self.message = ""

    def _new_game(self) -> Game:
        w, h, m = self.shape
        seed = self.seed if self.games == 0 or self.seed is None else f"{self.seed}/{self.games}"
        self.games += 1
        if self.no_guess:
            from demine.analysis.noguess import no_guess_game

            certificate: Literal["complete", "local"] = "local" if self.no_guess == "local" else "complete"
            return no_guess_game(w, h, m, rule=self.rule, seed=seed, certificate=certificate)
        return Game(w, h, m, rule=self.rule, seed=seed)

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        yield BoardWidget(self.game.position(), id="board")
        yield Footer()

    def on_mount(self) -> None:
        board = self.query_one(BoardWidget)
        board.cursor = default_start(*self.shape[:2], self.rule)
        board.focus()
        self.show()

    @property
    def board(self) -> BoardWidget:
        return self.query_one(BoardWidget)

    def show(self) -> None:
        """Draw the position, its marks and the status line."""
        g = self.game
        position = g.position()
        marks: dict[int, str] = {}
        hint_line = ""
        if g.over:
            marks = {c: "shown-mine" for c in g.mine_cells() if position.states[c] == COVERED}
            if g.exploded is not None:
                marks[g.exploded] = "hit"
        elif self.hints and g.moves:
            marks, hint_line = hint_marks(position)
        self.board.update(position, marks)
        w, h, m = self.shape
        state = {"won": "won!", "lost": "lost: a mine (red)", "playing": "playing"}[g.outcome]
        parts = [
            f"{w}x{h}/{m}, rule {self.rule}",
            f"mines left {m - g.flags}",
            f"moves {len(g.moves)}",
            state,
        ]
        if self.saved is not None:
            parts.append(f"record written to {self.saved}")
        line = " | ".join(parts)
        extra = [x for x in (hint_line, self.message) if x]
        self.query_one("#status", Static).update(line + ("\n" + "; ".join(extra) if extra else ""))

    def on_board_widget_cell_action(self, event: BoardWidget.CellAction) -> None:
        g = self.game
        self.message = ""
        if g.over:
            self.message = "the game is over: n for a new one, q to quit"
            self.show()
            return
        v = g.visible[event.cell]
        kind: MoveKind = (
            "flag" if event.action == "flag" else "chord" if event.action == "chord" else "reveal"
        )
        if kind == "reveal" and 0 <= v <= 8 and g.moves:
            kind = "chord"  # a click on a number chords, as in the web game
        try:
            g.play(Move(kind, event.cell))
        except DemineError as e:
            self.message = str(e)
        if g.over:
            self.save()
        self.show()

    def save(self) -> None:
        """Write the game's record (once it has a move), atomically."""
        if self.record_path is None or not self.game.moves:
            return
        GameRecord.from_game(self.game).save(self.record_path)
        self.saved = self.record_path

    def action_toggle_hints(self) -> None:
        self.hints = not self.hints
        self.message = "hints on" if self.hints else "hints off"
        self.show()

    def action_hint(self) -> None:
        from demine import best_move
        from demine.players.best.settings import HINT_SETTINGS

        g = self.game
        if g.over or not g.moves:
            self.message = "open a cell first" if not g.over else "the game is over"
            self.show()
            return
        bm = best_move(g.position().without_flags(), Limit(seconds=0.5), settings=HINT_SETTINGS)
        cell = bm.move.cell
        self.board.cursor = cell
        where = g.geometry.name(cell)
        if bm.reason == "safe":
            self.message = f"hint: {where} is safe (the cursor is on it)"
        else:
            self.message = f"hint: {where}, {100 * bm.mine_probability:.1f}% chance of a mine ({bm.reason})"
        self.show()
        marks = dict(self.board.marks)
        marks[cell] = "safe" if bm.reason == "safe" else "guess"
        self.board.update(self.board.position, marks)

    def action_new_game(self) -> None:
        if not self.game.over and self.game.moves:
            self.save()
        self.saved = None
        self.game = self._new_game()
        self.message = "a new game"
        self.show()

    def action_quit_game(self) -> None:
        self.save()
        self.exit(0)
