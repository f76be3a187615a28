"""The play loop (demine.screen.live) through fakes of a window and a reader: a demine Game
stands in for the other program, so every click and every read can be checked."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from demine.analysis.noguess import no_guess_game  # noqa: E402
from demine.engine.game import Game  # noqa: E402
from demine.engine.position import COVERED, Position  # noqa: E402
from demine.errors import DemineError  # noqa: E402
from demine.screen.live import (  # noqa: E402
    GameLog,
    PlaySettings,
    contradiction,
    new_game,
    play_game,
    summary,
)
from demine.screen.programs import PROGRAMS  # noqa: E402

CELL = 10  # the fake's cell size in pixels
FAST = PlaySettings(poll=0.0, settle=0.05, end_wait=0.0)


class Unreadable(DemineError):
    pass


@dataclass(frozen=True)
class FakeRead:
    position: Position
    box: tuple[int, int, int, int]
    state: str
    face: tuple[int, int] | None = None
    exploded: int | None = None
    mines_shown: frozenset[int] = frozenset()
    cell_w: float = CELL
    cell_h: float = CELL

    def centre(self, cell: int) -> tuple[int, int]:
        r, c = divmod(cell, self.position.width)
        return c * CELL + CELL // 2, r * CELL + CELL // 2


@dataclass
class FakeWindow:
    """A window showing ``game``: its picture is the visible states, one pixel row per row."""

    game: Game
    clicks: list[tuple[int, int, str]] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    on_key: Any = None

    def grab(self) -> Any:
        g = self.game
        pic = np.zeros((g.height, g.width + 1, 3), dtype=np.uint8)
        pic[:, : g.width, 0] = np.frombuffer(g.visible, dtype=np.uint8).reshape(g.height, g.width)
        pic[0, g.width, 0] = {"playing": 0, "won": 1, "lost": 2}[g.outcome]
        return pic

    def click(self, x: int, y: int, button: str = "left") -> None:
        g = self.game
        assert 0 <= x < g.width * CELL and 0 <= y < g.height * CELL, "a click outside the board"
        self.clicks.append((x, y, button))
        g.reveal((y // CELL) * g.width + x // CELL)

    def key(self, combo: str) -> None:
        self.keys.append(combo)
        if self.on_key is not None:
            self.game = self.on_key()


def fake_reader(mines: int, lies: dict[int, tuple[int, int]] | None = None, game: Any = None) -> Any:
    """A reader of FakeWindow pictures; ``lies`` maps a read's number (from 1) to (cell, state)
    shown wrongly in it."""
    count = {"n": 0}

    def read(
        picture: Any, *, mines: int | None = mines, skin: str | None = None, hint_box: Any = None
    ) -> FakeRead:
        count["n"] += 1
        h, w = picture.shape[0], picture.shape[1] - 1
        states = bytearray(picture[:, :w, 0].tobytes())
        state = {0: "playing", 1: "won", 2: "lost"}[int(picture[0, w, 0])]
        if lies and count["n"] in lies:
            cell, value = lies[count["n"]]
            states[cell] = value
        shown: frozenset[int] = frozenset()
        exploded = None
        if state == "lost" and game is not None:
            exploded = game().exploded
            shown = frozenset(game().mine_cells()) - {exploded}
        return FakeRead(
            Position(w, h, bytes(states), mines), (0, 0, w * CELL, h * CELL), state, None, exploded, shown
        )

    return read


def _guess_free(seed: int) -> Game:
    return no_guess_game(9, 9, 10, rule="zero", seed=seed)


def test_a_guess_free_game_is_won_with_one_click_per_read_and_its_layout_is_the_covered_cells() -> None:
    game = _guess_free(3)
    window = FakeWindow(game)
    log = play_game(window, PROGRAMS["tatham"], fake_reader(10), settings=FAST)
    assert log.outcome == "won" and not log.misreads and not log.lost_on_proven_safe
    assert len(window.clicks) == len(log.turns) == log.reads - 1  # the last read shows the win
    assert log.turns[0].reason == "start" and (log.turns[0].row, log.turns[0].col) == (2, 2)
    assert all(t.reason == "safe" for t in log.turns[1:])
    assert log.layout == game.mine_cells()
    assert log.to_json()["mine_cells"] == [list(divmod(c, 9)) for c in game.mine_cells()]


def test_a_read_that_contradicts_the_last_is_a_misread_and_nothing_is_clicked_on_it() -> None:
    game = _guess_free(4)
    game.reveal(game.geometry.cell(2, 2))  # the board is shown opened (the layout is drawn)
    opened = next(c for c, s in enumerate(game.visible) if s < COVERED)
    window = FakeWindow(game)
    # read 2 shows a cell that read 1 showed revealed as covered
    log = play_game(window, PROGRAMS["tatham"], fake_reader(10, {2: (opened, COVERED)}), settings=FAST)
    assert log.outcome == "won"
    assert len(log.misreads) == 1 and "now H" in log.misreads[0]
    assert len(window.clicks) == len(log.turns) == log.reads - 2


def test_the_same_contradicting_read_twice_is_taken_as_the_board() -> None:
    before = Position.from_text("3x1\n1HH")
    assert contradiction(before, Position.from_text("3x1\n2HH")) == "cell (0, 0) showed 1, now 2"
    assert contradiction(before, Position.from_text("4x1\n1HHH")) == "the board was 3x1, now 4x1"
    assert contradiction(before, Position.from_text("3x1\n1F2")) is None


def test_a_lying_read_that_hides_a_mine_loses_on_a_proven_safe_cell_and_says_so() -> None:
    # mines at (0, 2) and (2, 1): after the corner opens, its 1 at (0, 1) is read as 0, so the
    # mine at (0, 2) looks safe (xdemineur's rule: the first click anywhere, here the corner)
    game = Game.from_layout(4, 3, [2, 9])
    window = FakeWindow(game)
    reader = fake_reader(2, {2: (1, 0), 3: (1, 0)}, game=lambda: window.game)
    log = play_game(window, PROGRAMS["xdemineur"], reader, settings=FAST)
    assert log.outcome == "lost" and log.lost_on_proven_safe and log.turns[-1].reason == "safe"
    assert log.exploded == 2 and log.layout == [2, 9]


def test_a_reader_that_always_fails_gives_the_game_up_as_unreadable() -> None:
    def never(picture: Any, **kw: Any) -> Any:
        raise Unreadable("no grid found")

    window = FakeWindow(_guess_free(5))
    log = play_game(window, PROGRAMS["tatham"], never, settings=PlaySettings(poll=0.0, max_misreads=3))
    assert log.outcome == "unreadable" and log.unreadable == ["no grid found"] * 3 and not log.misreads
    assert window.clicks == []


def test_stop_ends_the_game_before_the_next_click() -> None:
    window = FakeWindow(_guess_free(6))
    asked = iter([False, False, True])
    log = play_game(window, PROGRAMS["tatham"], fake_reader(10), settings=FAST, stop=lambda: next(asked))
    assert log.outcome == "stopped" and len(window.clicks) == 2


def test_new_game_uses_the_programs_key_or_its_face() -> None:
    window = FakeWindow(_guess_free(7), on_key=lambda: _guess_free(8))
    new_game(window, PROGRAMS["tatham"], None, FAST)
    assert window.keys == ["n"]
    face_read = FakeRead(Position.covered(9, 9, 10), (0, 0, 90, 90), "lost", face=(45, 5))
    new_game(window, PROGRAMS["xdemineur"], face_read, FAST)
    assert window.clicks == [(45, 5, "left")]
    # no face read: xdemineur's is where its fixed layout puts it, the jsm page's is not known
    new_game(window, PROGRAMS["xdemineur"], None, FAST)
    assert window.clicks[-1] == (int(0.5 * window.grab().shape[1]), 40, "left")
    with pytest.raises(DemineError, match="face"):
        new_game(window, PROGRAMS["jsm"], None, FAST)


def test_summary_counts_games_and_times_the_turns() -> None:
    logs = []
    for seed in (10, 11):
        logs.append(
            play_game(FakeWindow(_guess_free(seed)), PROGRAMS["tatham"], fake_reader(10), settings=FAST)
        )
    logs.append(GameLog(outcome="unreadable", misreads=["x", "y"]))
    s = summary(logs, PROGRAMS["tatham"])
    assert (s["games"], s["won"], s["lost"], s["unreadable"], s["misreads"]) == (3, 2, 0, 1, 2)
    assert s["win_rate"] == 1.0 and s["win_rate_95"][1] == 1.0 and s["rule"] == "zero"
    assert s["moves"] == sum(len(g.turns) for g in logs)
    assert 0 < s["ms_per_move"]["p50"] <= s["ms_per_move"]["p95"]
    assert set(s["ms_parts"]) == {"grab", "read", "decide", "click"}


def test_watch_hints_take_flags_as_claims_and_guess_when_nothing_is_safe() -> None:
    from demine.screen.watch import hints_for

    # the 0 proves the flag beside it wrong; the mine is the last cell
    flagged = Position.from_text("3x1x1\n0FH")
    h = hints_for(FakeRead(flagged, (0, 0, 30, 10), "playing"))
    assert (h.wrong_flags, h.mines, h.safe, h.best) == ({1}, {2}, frozenset(), None)
    assert h.problem == "a flag proven wrong is the only safe cell"
    assert [m.kind for m in h.marks((0, 0))] == ["wrong", "mine"]
    coin = Position.from_text("2x2x1\n1H\nHH")
    g = hints_for(FakeRead(coin, (0, 0, 20, 20), "playing"))
    assert g.safe == frozenset() and g.best in (1, 2, 3) and g.mine_probability is not None
    assert g.to_json()["best"] == list(divmod(g.best, 2))
    assert hints_for(FakeRead(coin, (0, 0, 20, 20), "won")).problem == "the game is won"
    assert (
        hints_for(FakeRead(Position.covered(2, 2, 1), (0, 0, 20, 20), "playing")).problem
        == "no cell opened yet"
    )
    bad = hints_for(FakeRead(Position.from_text("2x1x0\n1H"), (0, 0, 20, 10), "playing"))
    assert bad.problem is not None and bad.problem.startswith("no layout explains the board")
    marks = g.marks((100, 50))
    assert [(m.kind, m.width) for m in marks] == [("guess", CELL)] and marks[0].left >= 100


def test_a_contradiction_read_twice_alike_is_taken_as_the_board() -> None:
    game = _guess_free(9)
    game.reveal(game.geometry.cell(2, 2))
    opened = next(c for c, s in enumerate(game.visible) if s < COVERED)
    window = FakeWindow(game)
    # reads 2 and 3 both show a revealed cell covered: the second is believed (one misread)
    log = play_game(
        window,
        PROGRAMS["tatham"],
        fake_reader(10, {2: (opened, COVERED), 3: (opened, COVERED)}),
        settings=FAST,
    )
    assert log.outcome == "won" and len(log.misreads) == 1
    assert len(window.clicks) == len(log.turns) == log.reads - 2


def test_watch_reads_a_total_once_and_again_for_a_board_of_another_size() -> None:
    from demine.screen.watch import KnownTotal

    shown = [(9, 9, 10)]  # the board on the screen: its size, and the count written beside it
    calls: list[int | None] = []

    def reader(picture: object, *, mines: int | None, skin: str | None) -> FakeRead:
        calls.append(mines)
        w, h, total = shown[0]
        return FakeRead(Position.covered(w, h, total if mines is None else mines), (0, 0, 10, 10), "playing")

    known = KnownTotal(None)
    assert known.read(reader, None, None).position.mines == 10
    assert known.read(reader, None, None).position.mines == 10
    assert calls == [None, 10]  # read once (an OCR pass), then passed in
    shown[0] = (16, 16, 40)  # another game, of another size
    assert known.read(reader, None, None).position.mines == 40
    assert calls == [None, 10, 10, None]
    assert KnownTotal(7).read(reader, None, None).position.mines == 7 and calls[-1] == 7
