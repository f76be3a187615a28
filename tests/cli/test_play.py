"""``demine play``, the terminal game, driven by Textual's Pilot: keys and mouse, hints, and the
record it writes, which ``demine review`` reads."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from demine import GameRecord, analyze, best_move
from demine.cli import main
from demine.engine.grid import default_start

pytest.importorskip("textual", reason="the tui extra (Textual) is not installed")

from demine.cli.tui import BoardWidget, PlayApp


def status(app: PlayApp) -> str:
    return str(app.query_one("#status").render())


def test_a_game_played_with_keys_and_mouse_writes_a_record_review_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.json"

    async def play() -> PlayApp:
        app = PlayApp(9, 9, 10, rule="zero", seed="tui-1", record=path)
        async with app.run_test(size=(60, 20)) as pilot:
            board = app.query_one(BoardWidget)
            assert board.cursor == default_start(9, 9, "zero") and board.has_focus
            await pilot.press("space")  # the first click, at the cursor
            assert app.game.moves and app.game.visible[board.cursor] == 0  # an opening
            await pilot.press("l", "l", "j")
            assert board.cursor == default_start(9, 9, "zero") + 2 + 9
            covered = next(c for c in range(81) if app.game.visible[c] == 9)
            r, c = divmod(covered, 9)
            await pilot.click(BoardWidget, offset=(1 + 2 * c, r), button=3)  # right click: a flag
            assert app.game.flags == 1 and board.cursor == covered
            await pilot.press("f")  # f on the same cell takes it back
            assert app.game.flags == 0
            await pilot.press("t")  # hints: what logic proves is marked
            proven = analyze(app.game.position())
            assert {cell for cell, m in board.marks.items() if m == "safe"} == proven.safe
            assert "proven safe" in status(app)
            while not app.game.over:  # the rest by mouse: proven cells, else the hint's guess
                position = app.game.position()
                safe = sorted(analyze(position).safe)
                if not safe:
                    await pilot.press("question_mark")
                    assert board.cursor == best_move(position).move.cell and "hint:" in status(app)
                cell = safe[0] if safe else board.cursor
                r, c = divmod(cell, 9)
                await pilot.click(BoardWidget, offset=(1 + 2 * c, r))
            assert ("won" in status(app)) == app.game.won and f"record written to {path}" in status(app)
            await pilot.press("q")
        return app

    app = asyncio.run(play())
    record = GameRecord.load(path)
    assert record.moves == app.game.moves and record.replay().outcome == app.game.outcome
    assert main(["review", str(path)]) == 0
    assert f"{path}: 9x9/10, zero rule, {app.game.outcome}" in capsys.readouterr().out


def test_the_board_widget_reports_clicked_cells_and_shows_marks() -> None:
    """The widget on its own, as another screen would use it: a position in, cells out."""
    from textual.app import App, ComposeResult

    from demine import Position

    seen: list[tuple[int, str]] = []

    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield BoardWidget(Position.from_text("4x2x1\n1HHH\n1HHH"), marks={1: "mine"})

        def on_board_widget_cell_action(self, event: BoardWidget.CellAction) -> None:
            seen.append((event.cell, event.action))

    async def go() -> str:
        app = One()
        async with app.run_test(size=(30, 6)) as pilot:
            await pilot.click(BoardWidget, offset=(1 + 2 * 3, 1))  # (1,3)
            await pilot.click(BoardWidget, offset=(1 + 2 * 2, 0), button=2)
            await pilot.press("f")
            return str(app.query_one(BoardWidget).render())

    shown = asyncio.run(go())
    assert seen == [(7, "reveal"), (2, "chord"), (2, "flag")]
    assert shown.splitlines() == ["1 * # # ", "1 # # # "]  # the mark on (0,1), covered cells #


def test_play_without_textual_names_the_extra(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "textual", None)
    assert main(["play", "beginner"]) == 2
    assert "demine play needs Textual: pip install 'demine[tui]'" in capsys.readouterr().err


def test_new_writes_a_record_of_its_first_click(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "g.json"
    assert main(["new", "expert", "--seed", "7", "--record", str(path)]) == 0
    shown = capsys.readouterr().out
    record = GameRecord.load(path)
    assert len(record.moves) == 1 and record.replay().position().to_text() == shown
