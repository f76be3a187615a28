"""``demine puzzle`` on the terminal game's board, driven by Textual's Pilot: a puzzle solved and
one failed with the proof drawn, a coin call, an "all" puzzle move by move, the rating and streak
kept; and the plain prompt when there is no terminal or no Textual."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from demine.cli import main
from demine.puzzles import Puzzle, read_puzzles

pytest.importorskip("textual", reason="the tui extra (Textual) is not installed")

from demine.cli.train import load_profile
from demine.cli.train_tui import LEGEND, PuzzleApp
from demine.cli.tui import BoardWidget


def text(app: PuzzleApp, which: str) -> str:
    return str(app.query_one(which).render())


def fits(p: Puzzle) -> bool:
    return p.position.height <= p.position.width <= 30


async def click(pilot: object, p: Puzzle, cell: int, button: int = 1) -> None:
    r, c = divmod(cell, p.position.width)
    await pilot.click(BoardWidget, offset=(1 + 2 * c, r), button=button)  # type: ignore[attr-defined]


def covered_not_answer(p: Puzzle) -> int:
    return next(c for c in range(p.position.cells) if p.position.states[c] == 9 and c not in p.answer)


def test_a_safe_puzzle_solved_by_keys_then_one_failed_by_mouse_shows_the_proof(tmp_path: Path) -> None:
    safe = [p for p in read_puzzles() if p.kind == "safe" and fits(p)]
    solved, failed = safe[0], safe[1]
    path = tmp_path / "me.json"
    prof = load_profile(path)

    async def go() -> None:
        app = PuzzleApp([solved, failed], prof, path)
        async with app.run_test(size=(100, 34)) as pilot:
            board = app.query_one(BoardWidget)
            assert board.has_focus and board.position == solved.position
            assert "Find a cell that is proven safe" in text(app, "#question")
            # walk the cursor to an answer cell with the arrow keys, then open it with space
            target = solved.answer[0]
            r, c = divmod(target, solved.position.width)
            board.cursor = 0
            await pilot.press(*(["down"] * r + ["right"] * c))
            assert board.cursor == target
            assert f"cursor {'abcdefghijklmnopqrstuvwxyz'[c] if c < 26 else ''}" in text(app, "#stats")
            await pilot.press("space")
            verdict = text(app, "#verdict")
            assert verdict.startswith("Right") and LEGEND in verdict
            proof = set(solved.proof[target][1])
            assert proof and {x for x, m in board.marks.items() if m == "because"} == proof
            assert board.marks[target] == "pick"
            assert all(board.marks.get(x) in ("safe", "pick") for x in solved.answer)
            assert "streak 1 (best 1)" in text(app, "#stats")
            saved = json.loads(path.read_text())
            assert saved["streak"] == 1 and saved["rating"] > 1500 and saved["seen"] == [solved.id]
            drawn = str(board.render())
            assert "@" in drawn
            await pilot.press("enter")  # the puzzle is over: enter is the next puzzle
            assert app.puzzle is failed and board.position == failed.position and not board.marks
            wrong = covered_not_answer(failed)
            await click(pilot, failed, wrong)
            verdict = text(app, "#verdict")
            assert verdict.startswith("Wrong") and LEGEND in verdict
            assert board.marks[wrong] == "played" and "x" in str(board.render())
            shown = app.verdict.cell if app.verdict else None
            assert shown in failed.answer and board.marks[shown] == "pick"
            assert {x for x, m in board.marks.items() if m == "because"} == set(failed.proof[shown][1])
            assert "streak 0 (best 1)" in text(app, "#stats")
            await pilot.press("q")

    asyncio.run(go())
    saved = json.loads(path.read_text())
    assert saved["attempted"] == 2 and saved["solved"] == 1 and saved["best_streak"] == 1
    assert saved["seen"] == [solved.id, failed.id]


def test_a_coin_puzzle_asks_the_call_first_by_key_or_button() -> None:
    coins = [p for p in read_puzzles() if p.kind == "coin" and fits(p)]
    true_one = next(p for p in coins if p.fifty)
    not_yet = next(p for p in coins if p.fifty is False)
    prof = load_profile(Path("/nonexistent/demine-profile.json"))

    async def go() -> None:
        app = PuzzleApp([true_one, not_yet], prof, None)
        async with app.run_test(size=(100, 34)) as pilot:
            board = app.query_one(BoardWidget)
            assert app.query_one("#coin").display
            assert {x for x, m in board.marks.items() if m == "pair"} == set(true_one.pair)
            await click(pilot, true_one, true_one.answer[0])
            assert "First your call" in text(app, "#verdict") and app.verdict is None
            await pilot.press("y")
            assert "your call: true 50/50" in text(app, "#stats")
            await click(pilot, true_one, true_one.answer[0])
            assert text(app, "#verdict").startswith("Right")
            await pilot.press("s")
            assert app.puzzle is not_yet
            await pilot.click("#yes")  # the wrong call, by its button
            await click(pilot, not_yet, not_yet.answer[0])
            assert text(app, "#verdict").startswith("Wrong: it is not a true 50/50")
            assert board.marks[not_yet.answer[0]] == "played"

    asyncio.run(go())
    assert prof["attempted"] == 2 and prof["solved"] == 1


def test_an_all_puzzle_is_answered_move_by_move_and_fails_on_a_wrong_flag() -> None:
    alls = [p for p in read_puzzles() if p.kind == "all" and p.mines and len(p.safe) >= 1 and fits(p)]
    p = alls[0]
    prof = load_profile(Path("/nonexistent/demine-profile.json"))

    async def go() -> None:
        app = PuzzleApp([p, p], prof, None)
        async with app.run_test(size=(100, 34)) as pilot:
            board = app.query_one(BoardWidget)
            for cell in p.answer:
                await click(pilot, p, cell, button=3 if cell in p.mines else 1)
            assert text(app, "#verdict").startswith("Right") and "All found" in text(app, "#verdict")
            assert all(board.position.states[m] == 10 for m in p.mines)  # flagged
            assert all(board.marks.get(c) in ("safe", "pick") for c in p.safe)
            await pilot.press("s")
            assert not board.marks and board.position == p.position
            await click(pilot, p, p.safe[0], button=3)  # a flag on a safe cell
            assert text(app, "#verdict").startswith("Wrong") and board.marks[p.safe[0]] == "played"

    asyncio.run(go())
    assert prof["attempted"] == 2 and prof["streak"] == 0 and prof["best_streak"] == 1


def test_a_tall_board_is_shown_turned_and_answered_there() -> None:
    """A puzzle taller than wide is drawn with rows and columns swapped (to fit a terminal): the
    same puzzle, its answer and proof moved with the cells."""
    from demine.puzzles.symmetry import transform_cell

    p = next(z for z in read_puzzles() if z.kind == "guess" and z.position.height > z.position.width)
    w, h = p.position.width, p.position.height
    prof = load_profile(Path("/nonexistent/demine-profile.json"))

    async def go() -> None:
        app = PuzzleApp([p], prof, None)
        async with app.run_test(size=(100, 40)) as pilot:
            board = app.query_one(BoardWidget)
            assert (board.position.width, board.position.height) == (h, w)
            best = transform_cell(w, h, p.answer[0], 4)
            assert board.position.states[best] == 9 and app.puzzle.id == p.id
            await click(pilot, app.puzzle, best)
            assert text(app, "#verdict").startswith("Right")
            assert board.marks[best] == "pick"

    asyncio.run(go())
    assert prof["solved"] == 1 and prof["seen"] == [p.id]


def test_without_a_terminal_or_with_plain_the_prompt_is_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    p = next(z for z in read_puzzles() if z.kind == "safe" and z.position.width <= 26)
    r, c = divmod(p.answer[0], p.position.width)
    answers = iter([f"{r + 1} {c + 1}"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    # a terminal, but Textual missing: the install hint, then the plain prompt
    monkeypatch.setattr("demine.cli.puzzles.interactive", lambda: True)
    monkeypatch.setitem(sys.modules, "textual", None)
    assert main(["puzzle", "--id", p.id, "--profile", str(tmp_path / "me.json")]) == 0
    out = capsys.readouterr()
    assert "pip install 'demine[tui]'" in out.err and "Right" in out.out
    answers = iter([f"{r + 1} {c + 1}"])
    monkeypatch.delitem(sys.modules, "textual")
    assert main(["puzzle", "--plain", "--id", p.id, "--profile", str(tmp_path / "me.json")]) == 0
    out = capsys.readouterr()
    assert "Right" in out.out and "pip install" not in out.err
