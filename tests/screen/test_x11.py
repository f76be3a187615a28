"""Live windows under Xvfb (demine.screen.x11 and programs): finding each program's window,
capturing it, clicking inside it and never outside, new games by key, and ending what was
started. Tatham's Mines runs a known layout (its game id), so a click's effect is checked
against the truth without any reader."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from demine.engine.game import Game
from demine.engine.position import COVERED
from tests.screen.conftest import need_program

np = pytest.importorskip("numpy")

from demine.screen.live import LiveWindow  # noqa: E402
from demine.screen.programs import PROGRAMS, launch, tatham_game_id  # noqa: E402
from demine.screen.x11 import OutsideWindow, ScreenError, WindowGone, connect  # noqa: E402

OUTLINE = 153  # the grey of Tatham's grid outline (its default colours)


def _grid(img: object, tile: int) -> tuple[float, float, float, float]:
    """Tatham's grid box from its outline (thick at the top and the left): left, top, cell
    width, cell height."""
    a = np.asarray(img)
    dark = (a == OUTLINE).all(axis=2)

    def after_first_run(counts: object) -> int:
        lines = np.flatnonzero(np.asarray(counts) > 4 * tile)
        end = lines[0]
        while end + 1 in lines:
            end += 1
        return int(end) + 1

    return after_first_run(dark.sum(axis=0)), after_first_run(dark.sum(axis=1)), tile, tile


def _cell_box(grid: tuple[float, float, float, float], row: int, col: int) -> tuple[slice, slice]:
    left, top, cw, ch = grid
    return (
        slice(int(top + row * ch + 3), int(top + (row + 1) * ch - 3)),
        slice(int(left + col * cw + 3), int(left + (col + 1) * cw - 3)),
    )


def _settled(conn: object, box: tuple[int, int, int, int], before: object) -> object:
    for _ in range(100):
        time.sleep(0.02)
        now = conn.grab(box)  # type: ignore[attr-defined]
        if not (now == before).all():
            time.sleep(0.05)
            return conn.grab(box)  # type: ignore[attr-defined]
    return now


def test_a_click_opens_the_cell_it_aims_at_and_nothing_else(xdisplay: str) -> None:
    need_program("tatham")
    game = Game(9, 9, 10, rule="zero", seed=5)
    start = game.geometry.cell(4, 4)
    game.reveal(start)
    mines = set(game.mine_cells())
    target = next(c for c in range(81) if c not in mines and game.visible[c] > 8)
    with (
        launch(
            PROGRAMS["tatham"],
            xdisplay,
            9,
            9,
            10,
            tile=20,
            game_id=tatham_game_id(9, 9, sorted(mines), start),
        ) as run,
        connect(xdisplay) as conn,
    ):
        # the window by its name, not the hidden 10x10 one of the same class
        found = conn.find(name="Mines", wm_class="sgt-mines")
        assert [w.id for w in found] == [run.window.id] and run.window.width > 100
        before = conn.grab(run.window.box)
        grid = _grid(before, 20)
        row, col = divmod(target, 9)
        ys, xs = _cell_box(grid, row, col)
        x = run.window.box[0] + int(grid[0] + (col + 0.5) * grid[2])
        y = run.window.box[1] + int(grid[1] + (row + 0.5) * grid[3])
        conn.click(run.window.id, x, y)
        after = _settled(conn, run.window.box, before)
        changed = (np.asarray(before) != np.asarray(after)).any(axis=2)
        assert changed[ys, xs].any(), "the cell clicked did not change"
        # the rest of the grid is as it was unless the click flooded (the target is a number)
        others = changed.copy()
        left, top, cw, ch = grid
        others[
            int(top + row * ch) - 2 : int(top + (row + 1) * ch) + 2,
            int(left + col * cw) - 2 : int(left + (col + 1) * cw) + 2,
        ] = False
        assert not others[int(top) : int(top + 9 * ch), int(left) : int(left + 9 * cw)].any()
        # a point outside the window is refused and nothing moves
        pointer = conn.pointer()
        with pytest.raises(OutsideWindow, match="outside window"):
            conn.click(run.window.id, run.window.box[2] + 5, run.window.box[1] + 5)
        assert conn.pointer() == pointer
        # n starts a new game: the board is covered again
        conn.key(run.window.id, "n")
        fresh = _settled(conn, run.window.box, after)
        assert not (np.asarray(fresh)[ys, xs] == np.asarray(after)[ys, xs]).all()
        pid = run.process.pid
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)  # the program's whole process group is gone


def test_xdemineur_is_found_by_its_latin1_class_and_a_closed_window_is_gone(xdisplay: str) -> None:
    need_program("xdemineur")
    with launch(PROGRAMS["xdemineur"], xdisplay, 12, 9, 12) as run, connect(xdisplay) as conn:
        info = conn.window(run.window.id)
        assert info.wm_class[1] == "XDémineur" and info.name == "xdémineur"
        assert conn.find(wm_class="xdémineur")[0].id == info.id
        img = conn.grab(info.box)
        assert img.shape == (info.height, info.width, 3) and img.dtype == np.uint8
        wid = info.id
    with connect(xdisplay) as conn, pytest.raises(WindowGone):
        conn.window(wid)


def test_a_program_at_a_size_it_cannot_play_is_refused_before_it_starts(xdisplay: str) -> None:
    with (
        pytest.raises(ScreenError, match="12 columns or more"),
        launch(PROGRAMS["xdemineur"], xdisplay, 9, 9, 10),
    ):
        pass
    with (
        pytest.raises(ScreenError, match="plays 8x8x10, 16x16x40, 30x16x99 only"),
        launch(PROGRAMS["gnome"], xdisplay, 9, 9, 10),
    ):
        pass


def test_a_display_that_is_not_there_is_a_clear_error() -> None:
    pytest.importorskip("Xlib")
    with pytest.raises(ScreenError, match="cannot open the X display :987654"):
        connect(":987654")


def _tatham_known(seed: int) -> tuple[Game, int, str]:
    from demine.analysis.noguess import no_guess_game

    game = no_guess_game(9, 9, 10, rule="zero", seed=seed)
    start = game.geometry.cell(2, 2)
    game.reveal(start)
    return game, start, tatham_game_id(9, 9, game.mine_cells(), start)


def test_the_overlay_draws_over_the_board_lets_clicks_through_and_is_never_read(xdisplay: str) -> None:
    need_program("tatham")
    from demine.screen.overlay import COLOURS, Mark, Overlay

    game, _, game_id = _tatham_known(21)
    target = next(c for c in range(81) if not game.is_mine(c) and game.visible[c] > 8)
    with (
        launch(PROGRAMS["tatham"], xdisplay, 9, 9, 10, tile=24, game_id=game_id) as run,
        connect(xdisplay) as conn,
    ):
        box = run.window.box
        before = conn.grab(box)
        grid = _grid(before, 24)
        row, col = divmod(target, 9)
        left, top = box[0] + grid[0] + col * 24, box[1] + grid[1] + row * 24
        window = LiveWindow(conn, run.window.id, unobscured=True)  # as screen watch: before the overlay
        overlay = Overlay(conn)
        try:
            overlay.show([Mark(left, top, 24, 24, "safe")], thickness=3)
            time.sleep(0.2)
            shown = conn.grab(box)
            edge = shown[top - box[1] + 1, left - box[0] + 12]
            assert tuple(edge) == COLOURS["safe"], "the overlay's frame is not drawn"
            assert tuple(shown[top - box[1] + 12, left - box[0] + 12]) == tuple(
                before[top - box[1] + 12, left - box[0] + 12]
            )
            own = window.grab()
            board = (slice(int(grid[1]), int(grid[1] + 9 * 24)), slice(int(grid[0]), int(grid[0] + 9 * 24)))
            # (the board only: the status line's clock may have moved on)
            assert (own[board] == before[board]).all(), "the window's own pixels hold the overlay"
            # a click on the frame itself goes through to the program: the cell opens
            conn.click(run.window.id, left + 1, top + 12)
            after = _settled(conn, box, shown)
            ys, xs = _cell_box(grid, row, col)
            assert not (np.asarray(after)[ys, xs] == np.asarray(before)[ys, xs]).all()
        finally:
            overlay.close()


def test_kmines_is_found_by_its_net_wm_name_and_ctrl_n_starts_a_new_game(xdisplay: str) -> None:
    need_program("kmines")
    with launch(PROGRAMS["kmines"], xdisplay, 9, 9, 10) as run, connect(xdisplay) as conn:
        info = conn.window(run.window.id)
        assert info.name == "KMines" and PROGRAMS["kmines"].matches(info)
        time.sleep(0.5)
        fresh = conn.grab(info.box)
        centre = ((info.box[0] + info.box[2]) // 2, (info.box[1] + info.box[3]) // 2)
        conn.click(info.id, *centre)  # the board is in the middle; the first click is safe
        played = _settled(conn, info.box, fresh)
        assert not (played == fresh).all()
        conn.move(info.id, info.box[0] + 5, info.box[3] - 5)  # off the board (no hover light)
        conn.key(info.id, "ctrl+n")
        time.sleep(1.0)
        again = conn.grab(info.box)
        board = (slice(info.height // 4, 3 * info.height // 4), slice(info.width // 3, 2 * info.width // 3))
        assert (again[board] == fresh[board]).all(), "ctrl+n did not bring back a fresh board"


@pytest.mark.parametrize(("size", "tile"), [((16, 16, 40), 24), ((12, 8, 30), 30)])
def test_kmines_opens_at_the_size_asked_with_the_cells_asked(
    xdisplay: str, size: tuple[int, int, int], tile: int
) -> None:
    """A standard level (KMines reads it from the group KgDifficulty: under General it played
    Easy whatever was asked) and a custom board, read by the reader at about the cell size asked."""
    need_program("kmines")
    from demine.screen.read import read_board

    width, height, mines = size
    with (
        launch(PROGRAMS["kmines"], xdisplay, width, height, mines, tile=tile) as run,
        connect(xdisplay) as conn,
    ):
        time.sleep(1.0)
        read = read_board(conn.grab(conn.window(run.window.id).box), skin="kmines")
        assert (read.width, read.height) == (width, height)
        assert abs(read.cell_w - tile) <= 3
        assert set(read.position.states) == {COVERED}


def test_kmines_refuses_a_board_it_cannot_play() -> None:
    kmines = PROGRAMS["kmines"]
    with pytest.raises(ScreenError, match="at least 5 and at most 50 cells each way, not 60x10"):
        kmines.check_size(60, 10, 20)
    with pytest.raises(ScreenError, match="10 cells free of mines: 9x9 takes at most 71 mines, not 75"):
        kmines.check_size(9, 9, 75)


def test_gnome_mines_opens_at_its_size_sized_for_the_tile_asked(xdisplay: str) -> None:
    need_program("gnome")
    with launch(PROGRAMS["gnome"], xdisplay, 8, 8, 10, tile=40) as run, connect(xdisplay) as conn:
        info = conn.window(run.window.id)
        assert info.name == "Mines" and info.wm_class[1] == "Gnome-mines"
        assert info.width >= 8 * 40 and info.height >= 8 * 40


JSM_PAGE = Path(__file__).resolve().parents[3] / "shared" / "peers" / "jsminesweeper" / "index.html"


def _cell_centre(page: object, origin: tuple[int, int], selector: str) -> tuple[int, int]:
    """A page element's centre in screen pixels (the app window shows the page from its corner)."""
    rect = page.evaluate(  # type: ignore[attr-defined]
        f"(() => {{ const r = document.querySelector('{selector}').getBoundingClientRect();"
        " return [r.left + r.width / 2, r.top + r.height / 2, window.devicePixelRatio]; })()"
    )
    x, y, ratio = rect
    return origin[0] + round(x * ratio), origin[1] + round(y * ratio)


def test_demines_page_is_set_up_found_and_clicked_through_xtest_and_n_is_its_new_game(xdisplay: str) -> None:
    pytest.importorskip("fastapi")
    need_program("demine-web")
    with launch(PROGRAMS["demine-web"], xdisplay, 9, 9, 10, tile=28) as run, connect(xdisplay) as conn:
        page = run.page
        assert page is not None and run.server is not None
        assert PROGRAMS["demine-web"].windows(conn)[0].id == run.window.id
        assert page.evaluate("document.getElementById('preset').value") == "beginner"
        assert page.evaluate("document.getElementById('hints-toggle').checked") is False
        before = page.evaluate(
            "document.querySelector('[data-r=\"4\"][data-c=\"4\"]').getAttribute('aria-label')"
        )
        conn.click(run.window.id, *_cell_centre(page, run.window.box[:2], '[data-r="4"][data-c="4"]'))
        assert page.wait_for(
            "document.querySelector('[data-r=\"4\"][data-c=\"4\"]').getAttribute('aria-label') !== "
            + repr(before),
            5,
        ), "the click did not open the cell"
        conn.key(run.window.id, "n")
        assert page.wait_for(
            "document.querySelector('[data-r=\"4\"][data-c=\"4\"]').getAttribute('aria-label') === "
            + repr(before),
            5,
        ), "n did not start a new game"


def test_jsminesweepers_page_plays_by_itself_no_more_and_is_found_by_its_class(xdisplay: str) -> None:
    need_program("jsm")
    if not JSM_PAGE.is_file():
        pytest.skip(f"JSMinesweeper's page is not at {JSM_PAGE}")
    with (
        launch(PROGRAMS["jsm"], xdisplay, 9, 9, 10, tile=28, page_url=str(JSM_PAGE)) as run,
        connect(xdisplay) as conn,
    ):
        page = run.page
        assert page is not None
        assert conn.window(run.window.id).name == "Minesweeper player"
        off = "['autoplay', 'showhints'].every(id => !document.getElementById(id).checked)"
        assert page.evaluate(off) is True
        assert page.evaluate("document.getElementById('beginner').checked") is True
        assert page.evaluate("document.getElementById('overlay').value") == "none"


def test_a_new_window_with_the_id_of_one_just_closed_is_still_found(tmp_path: Path) -> None:
    """The X server gives an ended client's ids to the next client, so a program started just
    after another ended can show its window under the very id the ended one had, seen among the
    windows there before: that window is found, not waited on until the time runs out."""
    import subprocess

    from demine.screen.programs import _wait_window
    from demine.screen.x11 import WindowInfo

    old = WindowInfo(0x400006, "KMines", ("kmines", "kmines"), (0, 0, 600, 400))
    new = WindowInfo(0x400006, "KMines", ("kmines", "kmines"), (0, 0, 480, 400))
    shown = iter([[old], [], [], [new]])

    class Display:
        name = ":9"

        def __init__(self) -> None:
            self.last: list[WindowInfo] = []

        def windows(self) -> list[WindowInfo]:
            self.last = next(shown, self.last)
            return self.last

        def find(self, exclude: object = None, **_: object) -> list[WindowInfo]:
            return [w for w in self.windows() if not exclude(w)]  # type: ignore[operator]

        def window(self, window_id: int) -> WindowInfo:
            return next(w for w in self.last if w.id == window_id)

    process = subprocess.Popen(["sleep", "10"])
    try:
        found = _wait_window(Display(), PROGRAMS["kmines"], process, {old.id}, 3.0, tmp_path / "log")  # type: ignore[arg-type]
    finally:
        process.kill()
        process.wait()
    assert found == new
