"""Mine counts written as text beside the board (Tatham's, GNOME's, KMines', demine's page):
the forms read, a count never guessed, and Tesseract's reads of the real screenshots (the
screenshots' totals are checked in test_read.py, scaled and as JPEG too)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("numpy")
Image = pytest.importorskip("PIL.Image")

from demine.screen.read import read_board  # noqa: E402
from demine.screen.text import ATTEMPTS, CountText, count_from_lines, ocr_missing, read_count, text_lines  # noqa: E402
from tests.screen.conftest import missing  # noqa: E402

DATA = Path(__file__).resolve().parent.parent / "data" / "screen"


@pytest.mark.parametrize(
    ("lines", "flags", "total"),
    [
        (["[0:05] Marked: 3 / 99"], 3, 99),  # Tatham's status line
        (["0/40", "00:03"], 0, 40),  # GNOME's label, the clock under it
        (["Mines: 5/40 Time: 00:28 | Medium ~"], 5, 40),  # KMines' status bar
        (["Mines left 7", "lost"], 3, 10),  # demine's page: the total less the flags
        (["Mines left -2"], 12, 10),  # more flags than mines
        (["Board Beginner 9x9/10", "Mines left 8"], 2, 10),  # its board's size and total agree
    ],
)
def test_each_programs_form_gives_the_total(lines: list[str], flags: int, total: int) -> None:
    assert count_from_lines(lines, 9 if "9x9" in lines[0] else 30, 9 if "9x9" in lines[0] else 16, flags) == (
        CountText(total, next(line for line in lines if re.search(r"\d", line)))
    )


def test_a_count_not_sure_is_no_count() -> None:
    assert count_from_lines(["Mines: 5/40"], 16, 16, 4) is None  # 5 flags said, 4 on the board
    assert count_from_lines(["Board Expert 30x16/99", "Mines left 90"], 30, 16, 4) is None  # 99 or 94
    assert count_from_lines(["Board Expert 30x16/99"], 9, 9, 0) is None  # another board's size
    assert count_from_lines(["0/81"], 9, 9, 0) is None  # every cell a mine: no board to play
    assert count_from_lines(["[0:06] DEAD! Deaths: 1", "3BV/s 4.28", "Time 00:28"], 9, 9, 0) is None


def _ocr() -> None:
    why = ocr_missing()
    if why is not None:
        missing(why)


def test_ocr_reads_each_programs_count_line() -> None:
    _ocr()
    want = {
        "tatham-30x16-t12": "Marked: 3 / 99",
        "gnome-16x16-mid": "0/40",
        "kmines-16x16-t24-mid": "Mines: 5/40",
        "demine-web-9x9-t44-lost": "9x9/10",  # its board's menu, over "Mines left 7"
    }
    for name, words in want.items():
        with Image.open(DATA / f"{name}.png") as im:
            img = im.convert("RGB")
        read = read_board(img)
        assert read.count_text is not None and words in read.count_text, (name, read.count_text)
        assert read.to_json()["count_text"] == read.count_text


def test_a_count_cut_by_the_margin_is_never_read_as_another_total() -> None:
    """GNOME's "0/40" sits about 85-115 px right of its board: a margin ending inside it must
    not read "0/4" (a board of 4 mines). Without the rule that drops a line near the margin's
    edge, sparse words at twice the size read 4 at 106 px."""
    _ocr()
    with Image.open(DATA / "gnome-16x16-mid.png") as im:
        img = im.convert("RGB")
    read = read_board(img, mines=40)
    totals = set()
    for margin in range(100, 113):
        for layout, scale in ATTEMPTS:  # each of its reads, not only the first to give a count
            lines = text_lines(img, read.box, read.cell_w, margin=margin, layout=layout, scale=scale)
            found = count_from_lines(lines, 16, 16, 0)
            totals.add(None if found is None else found.total)
    assert totals == {None}, totals
    found = read_count(img, read.box, read.cell_w, 16, 16, 0, margin=160)
    assert found is not None and found.total == 40


def test_without_ocr_or_with_mines_given_nothing_is_read_as_text() -> None:
    with Image.open(DATA / "tatham-9x9-t24.png") as im:
        img = im.convert("RGB")
    assert read_board(img, text=False).position.mines is None
    given = read_board(img, mines=12)  # the total given wins: no OCR
    assert given.position.mines == 12 and given.count_text is None
