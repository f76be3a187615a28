"""The seven-segment mine counter: read where every segment is sure, else not at all."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")

from demine.screen.counter import SEGMENTS, read_counter, total_from_counter  # noqa: E402

RED = (255, 0, 0)
BOX = (0, 70, 220, 90)  # the board's box: the counter sits in the band over it
CELL = 20.0


def _draw(text: str, lit: tuple[int, int, int] = RED, back: int = 0) -> np.ndarray:
    """A counter of ``text`` drawn as seven-segment digits, 14x24 px each, on a black box."""
    img = np.full((90, 220, 3), 190, dtype=np.uint8)
    img[8:44, 6 : 12 + 22 * len(text)] = back
    shapes = {d: p for p, d in SEGMENTS.items()}
    for k, ch in enumerate(text):
        x, y = 10 + 22 * k, 12
        a, b, c, d, e, f, g = shapes[ch]
        if ch == "1":  # drawn narrow, at the digit's right, as the programs draw it
            img[y : y + 24, x + 11 : x + 14] = lit
            continue
        bars = [
            (a, (slice(y, y + 3), slice(x, x + 14))),
            (b, (slice(y, y + 12), slice(x + 11, x + 14))),
            (c, (slice(y + 12, y + 24), slice(x + 11, x + 14))),
            (d, (slice(y + 21, y + 24), slice(x, x + 14))),
            (e, (slice(y + 12, y + 24), slice(x, x + 3))),
            (f, (slice(y, y + 12), slice(x, x + 3))),
            (g, (slice(y + 11, y + 14), slice(x, x + 14))),
        ]
        for on, where in bars:
            if on:
                img[where] = lit
    return img


@pytest.mark.parametrize("text", ["0129", "099", "8", "-12", "4567", "0300"])
def test_each_digit_and_a_minus_sign_read(text: str) -> None:
    assert read_counter(_draw(text), BOX, CELL) == int(text)


def test_a_counter_not_sure_is_no_counter() -> None:
    img = _draw("88")
    img[12:15, 10:17] = (190, 190, 190)  # half of the first digit's top bar gone
    assert read_counter(img, BOX, CELL) is None
    assert read_counter(_draw("99", back=190), BOX, CELL) is None  # red on grey: not a counter
    assert read_counter(_draw("9-"), BOX, CELL) is None  # a minus inside a number
    assert read_counter(np.full((90, 220, 3), 190, dtype=np.uint8), BOX, CELL) is None


def test_the_total_is_the_counter_and_the_flags() -> None:
    assert total_from_counter(99, 0, 480) == 99
    assert total_from_counter(-2, 12, 81) == 10  # more flags than mines
    assert total_from_counter(-3, 2, 81) is None and total_from_counter(81, 0, 81) is None
