"""The Train tab in a real browser, desktop and phone: a puzzle solved, one failed, the proof
outlined, the rating and streak kept in the browser across a reload."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from demine.puzzles import read_puzzles
from tests.web.conftest import open_page, phone
from tests.web.pw import expect, unfold
from tests.web.test_web_a11y import axe_problems

PUZZLES = {p.id: p for p in read_puzzles()}


@pytest.fixture(params=["desktop", "phone"])
def page(request: pytest.FixtureRequest, browser: Any) -> Iterator[Any]:
    if request.param == "desktop":
        options: dict[str, Any] = {"viewport": {"width": 1280, "height": 800}, "bypass_csp": True}
    else:
        options = phone(browser, "iPhone 13", bypass_csp=True)
    for pg in open_page(browser, **options):
        pg.touch = request.param == "phone"
        yield pg


def _press(page: Any, loc: Any) -> None:
    if getattr(page, "touch", False):
        loc.tap()
    else:
        loc.click()


def _open_train(page: Any, server: str, kind: str) -> Any:
    page.goto(server + "/")
    _press(page, page.locator("#tab-train"))
    expect(page.locator("#train")).to_be_visible()
    # the first request reads the set (2,000+ puzzles): allow for a loaded machine
    expect(page.locator("#tr-board .cell").first).to_be_visible(timeout=60_000)
    # the first puzzle (any kind) may already be of this kind: wait for the one this choice asks for
    unfold(page, "tr-options")
    with page.expect_response(lambda r: "/api/puzzles/next" in r.url and f"kind={kind}" in r.url) as asked:
        page.select_option("#tr-kind", kind)
    pid = asked.value.json()["id"]
    page.wait_for_function("id => document.getElementById('tr-board').dataset.puzzle === id", arg=pid)
    return _current(page, kind)


def _current(page: Any, kind: str) -> Any:
    expect(page.locator("#tr-meta")).to_contain_text(
        {"safe": "Find a safe cell", "guess": "Best guess", "all": "Decide", "coin": "50/50"}[kind],
        timeout=20_000,
    )
    pid = page.locator("#tr-board").get_attribute("data-puzzle")
    assert pid in PUZZLES
    return PUZZLES[pid]


def _cell(page: Any, p: Any, cell: int) -> Any:
    r, c = divmod(cell, p.position.width)
    return page.locator(f'#tr-board .cell[data-r="{r}"][data-c="{c}"]')


def test_a_puzzle_solved_then_one_failed_with_the_proof_shown(page: Any, server: str) -> None:
    p = _open_train(page, server, "safe")
    _press(page, _cell(page, p, p.answer[0]))
    expect(page.locator("#tr-msg")).to_contain_text("Right")
    # the proof: the numbers that force it are outlined, the cell explained is marked
    expect(page.locator("#tr-board .cell.because")).to_have_count(len(p.proof[p.answer[0]][1]))
    expect(page.locator("#tr-board .cell.pick")).to_have_count(1)
    expect(page.locator("#tr-streak")).to_have_text("1")
    # the puzzle's box is as tall as its board (when that fits the screen): no row cut off
    board_h, box_h, screen_h = page.evaluate(
        "() => { const b = document.getElementById('tr-board');"
        " return [b.offsetHeight, b.parentElement.clientHeight, window.innerHeight]; }"
    )
    if board_h < 0.8 * screen_h:
        assert box_h >= board_h, (box_h, board_h)
    assert axe_problems(page) == []
    rating = int(page.locator("#tr-rating").inner_text())
    assert rating > 1500
    _shot(page, "train-right")
    # the next puzzle, failed: a covered cell that is not proven safe
    _press(page, page.locator("#tr-next"))
    expect(page.locator("#tr-msg")).to_contain_text("Your move")
    q = _current(page, "safe")
    wrong = next(c for c in range(q.position.cells) if q.position.states[c] == 9 and c not in q.answer)
    _press(page, _cell(page, q, wrong))
    expect(page.locator("#tr-msg")).to_contain_text("Wrong")
    expect(page.locator("#tr-streak")).to_have_text("0")
    expect(page.locator("#tr-best")).to_have_text("1")
    shown = page.locator("#tr-board .cell.pick")
    expect(shown).to_have_count(1)
    r, c = int(shown.get_attribute("data-r") or -1), int(shown.get_attribute("data-c") or -1)
    proof = q.proof[r * q.position.width + c][1]  # the numbers of the safe cell shown instead
    expect(page.locator("#tr-board .cell.because")).to_have_count(len(proof))
    assert int(page.locator("#tr-rating").inner_text()) < rating
    _shot(page, "train-wrong")
    # kept in the browser: after a reload the rating and best streak are back
    kept = page.locator("#tr-rating").inner_text()
    page.reload()
    _press(page, page.locator("#tab-train"))
    expect(page.locator("#tr-rating")).to_have_text(kept)
    expect(page.locator("#tr-best")).to_have_text("1")


def test_a_guess_and_an_all_puzzle_by_click_and_flag_mode(page: Any, server: str) -> None:
    p = _open_train(page, server, "guess")
    _press(page, _cell(page, p, p.answer[0]))
    expect(page.locator("#tr-msg")).to_contain_text("Right")
    expect(page.locator("#tr-board .cell.best")).to_have_count(1)
    unfold(page, "tr-options")
    page.select_option("#tr-kind", "all")
    q = _current(page, "all")
    mines = set(q.mines)
    # a slow server: each answer takes 400 ms to come back, so the clicks below are made while
    # the last answer is still being judged; each must count, in order (a click made while busy
    # used to be dropped: "1 to go" was left after every answer cell was clicked)
    page.evaluate(
        """() => { const f = window.fetch; window.fetch = (u, o) => String(u).includes('/answer')
            ? new Promise((ok) => setTimeout(ok, 400)).then(() => f(u, o)) : f(u, o); }"""
    )
    for cell in q.answer:
        want_flag = cell in mines
        pressed = page.locator("#tr-flag").get_attribute("aria-pressed") == "true"
        if want_flag != pressed:
            _press(page, page.locator("#tr-flag"))
        _press(page, _cell(page, q, cell))
    expect(page.locator("#tr-msg")).to_contain_text("All found")
    _shot(page, "train-all")


def test_an_answer_counts_for_the_player_whose_record_is_on_the_server(page: Any, server: str) -> None:
    """With the record kept on the server, the page sends the player's token with its answers:
    the puzzle's attempt is counted for the player (the same token again is not counted)."""
    made = page.request.post(server + "/api/players")
    token = made.json()["token"]
    page.goto(server + "/")
    page.evaluate(
        "t => { localStorage.setItem('demine.record.where', 'server');"
        " localStorage.setItem('demine.record.token', t); }",
        token,
    )
    p = _open_train(page, server, "safe")
    with page.expect_response(lambda r: "/answer" in r.url) as sent:
        _press(page, _cell(page, p, p.answer[0]))
    assert sent.value.request.headers.get("authorization") == f"Bearer {token}"
    assert sent.value.json()["counted"] is True
    expect(page.locator("#tr-msg")).to_contain_text("Right")
    rc = list(divmod(p.answer[0], p.position.width))
    again = page.request.post(
        f"{server}/api/puzzles/{p.id}/answer",
        data={"cell": rc},
        headers={"authorization": f"Bearer {token}"},
    )
    assert again.ok and again.json()["counted"] is False  # this player's attempt is counted already
    assert page.request.get(f"{server}/api/puzzles/{p.id}").json()["attempts"] >= 1
    # a token the server no longer knows: the answer is still judged (counted for the address)
    page.evaluate("() => localStorage.setItem('demine.record.token', 'expired-token')")
    _press(page, page.locator("#tr-next"))
    expect(page.locator("#tr-msg")).to_contain_text("Your move")
    q = _current(page, "safe")
    _press(page, _cell(page, q, q.answer[0]))
    expect(page.locator("#tr-msg")).to_contain_text("Right")


# a tall puzzle: 16 columns, 30 rows (1,241 of the set's puzzles are of this size)
TALL = next(
    p for p in PUZZLES.values() if p.kind == "safe" and (p.position.width, p.position.height) == (16, 30)
)


def test_a_tall_puzzle_keeps_its_verdict_in_view_and_its_cells_big_enough_to_tap(
    page: Any, server: str
) -> None:
    """The question and the verdict stay in a sticky bar above the board, whatever its height; on a
    phone its cells are 32 px or more (a finger's target), the board panning in its own box, and
    the verdict names the cell by the labels beside the board (row and column, from 1)."""
    served = page.request.get(f"{server}/api/puzzles/{TALL.id}").json()
    page.route("**/api/puzzles/next?**", lambda route: route.fulfill(json=served))
    page.goto(server + "/")
    _press(page, page.locator("#tab-train"))
    page.wait_for_function("id => document.getElementById('tr-board').dataset.puzzle === id", arg=TALL.id)
    size = _cell(page, TALL, 0).bounding_box()
    assert size["width"] >= (32 if page.touch else 24)
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")  # the page never pans
    # the answer: the lowest of the safe cells, far down the board
    target = max(TALL.answer)
    loc = _cell(page, TALL, target)
    loc.scroll_into_view_if_needed()
    _press(page, loc)
    msg = page.locator("#tr-msg")
    expect(msg).to_contain_text("Right")
    expect(msg).to_be_in_viewport()
    expect(page.locator("#tr-question")).to_be_in_viewport()
    # its cells named by the labels beside the board
    board = page.get_by_role("grid", name="puzzle board")
    expect(board.get_by_role("rowheader")).to_have_count(30)
    expect(board.get_by_role("columnheader")).to_have_count(16)
    r, c = divmod(target, TALL.position.width)
    expect(msg).to_contain_text(f"row {r + 1} column {c + 1} is safe")
    # the bar is on top of the board, not over the cell answered
    bar = page.evaluate("document.querySelector('#train .hud').getBoundingClientRect().bottom")
    assert loc.bounding_box()["y"] >= bar - 0.5


def _shot(page: Any, name: str) -> str:
    import tempfile
    from pathlib import Path

    folder = Path(tempfile.gettempdir()) / "demine-train-shots"
    folder.mkdir(exist_ok=True)
    vw = page.viewport_size or {"width": 0}
    path = folder / f"{name}-{vw['width']}.png"
    page.screenshot(path=str(path), full_page=True)
    return str(path)
