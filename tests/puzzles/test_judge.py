"""The words of a verdict over the whole shipped set: a wrong answer's words that keep the answer
hidden never name an answer cell, and the answer told names a right one with its proof."""

from __future__ import annotations

import re

import pytest

from demine.puzzles import Puzzle, read_puzzles
from demine.puzzles.judge import CellNamer, letter_name, solution, unrevealed


def api_name(p: Puzzle, cell: int) -> str:
    return p.position.geometry.name(cell)


@pytest.mark.parametrize("name", [letter_name, api_name], ids=["terminal", "api"])
def test_hidden_words_never_name_the_answer_and_the_answer_told_is_right(name: CellNamer) -> None:
    shape = re.compile(r"\b[a-z]+\d+\b" if name is letter_name else r"\(\d+,\d+\)")
    for p in read_puzzles():
        answer = {name(p, c) for c in p.answer}
        wrong = [c for c in range(p.position.cells) if p.position.states[c] >= 9 and c not in p.answer]
        for cell in wrong[:3]:
            for flag in (False, True) if p.kind == "all" else (False,):
                words = unrevealed(p, cell, flag, p.share(cell), name)
                named = set(shape.findall(words))
                assert named <= {name(p, cell)} and not named & answer, (p.id, words)
                assert words.startswith("Wrong")
        told = solution(p, name)
        assert told.cell in p.answer and told.done and told.message.startswith("The answer"), p.id
        assert told.proof == p.proof.get(told.cell, ("", ()))[1], p.id
        assert name(p, told.cell) in told.message, p.id
