"""Make the README's picture of ``demine screen watch --overlay``: python docs/screen_watch.py
(needs the screen extra, Xvfb and Tatham's Mines: Debian's xvfb and sgt-puzzles).
``python benchmarks/screen_play.py`` measures what this shows (the results page).

Starts its own Xvfb, opens Tatham's Mines (tile 28) on a guess-free intermediate layout demine
draws (seed "shot", opened at (2, 2)), watches it with the overlay until the first hints are
drawn, and saves the window as the screen shows it: proven safe cells framed green, proven mines
blue.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from PIL import Image

from demine.analysis.noguess import no_guess_game
from demine.screen.programs import PROGRAMS, launch, tatham_game_id
from demine.screen.read import read_board
from demine.screen.watch import watch
from demine.screen.x11 import connect, xvfb

OUT = Path(__file__).resolve().parent / "screen-watch.png"


def main() -> None:
    with xvfb("1280x800x24") as display:
        game = no_guess_game(16, 16, 40, rule="zero", seed="shot")
        start = game.geometry.cell(2, 2)
        game.reveal(start)
        game_id = tatham_game_id(16, 16, game.mine_cells(), start)
        with (
            launch(PROGRAMS["tatham"], display, 16, 16, 40, tile=28, game_id=game_id) as run,
            connect(display) as conn,
        ):

            def keep(hints: Any) -> None:
                time.sleep(0.2)
                Image.fromarray(conn.grab(run.window.box)).save(OUT)

            watch(
                conn,
                PROGRAMS["tatham"],
                run.window.id,
                read_board,
                show=keep,
                mines=40,
                overlay=True,
                updates=1,
            )
        print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
