"""demine: a Minesweeper engine, an exact solver, and a playing assistant.

>>> from demine import Game, Position
>>> game = Game(9, 9, 10, rule="zero", seed=42)
>>> _ = game.reveal(game.geometry.cell(2, 2))
>>> position = game.position()
>>> position.mines
10
"""

import os as _os

from demine import _build
from demine.analysis import Analysis, Limit, Reason, analyze, analyze_constraints
from demine.analysis.noguess import (
    NoGuessBoard,
    NoGuessTimeout,
    is_guess_free,
    no_guess_game,
    no_guess_layout,
)
from demine.engine.formats import (
    Board,
    GameRecord,
    board_from_mbf,
    board_to_mbf,
    read_boards,
    write_boards,
)
from demine.engine.game import Game, Move
from demine.engine.grid import PRESETS, Geometry, Preset, geometry, parse_size
from demine.engine.position import COVERED, FLAG, Position
from demine.errors import (
    DemineError,
    FormatError,
    IllegalMove,
    InconsistentPosition,
    InputError,
    PositionSyntaxError,
    SizeError,
)
from demine.players import Decision, Player, PlayerSpec, available_solvers, find_solver, register
from demine.players.best import BestMove, BestSettings, Hooks, best_move

__version__ = "0.1.0"

# an editable compiled install whose source changed since: said once a run (a worker process it
# spawns, which imports demine afresh, inherits the note and says nothing)
if not _os.environ.get("_DEMINE_STALE_SAID") and (_stale := _build.stale_modules()):
    import warnings

    _os.environ["_DEMINE_STALE_SAID"] = "1"
    _names = ", ".join(_stale)
    warnings.warn(
        f"demine: compiled modules older than their source run the old code: {_names}"
        " (reinstall with pip install -e ., or with DEMINE_PURE=1 for the pure-Python build)",
        stacklevel=2,
    )

__all__ = [
    "COVERED",
    "FLAG",
    "PRESETS",
    "Analysis",
    "BestMove",
    "BestSettings",
    "Board",
    "Decision",
    "DemineError",
    "FormatError",
    "Game",
    "GameRecord",
    "Geometry",
    "Hooks",
    "IllegalMove",
    "InconsistentPosition",
    "InputError",
    "Limit",
    "Move",
    "NoGuessBoard",
    "NoGuessTimeout",
    "Player",
    "PlayerSpec",
    "Position",
    "PositionSyntaxError",
    "Preset",
    "Reason",
    "SizeError",
    "__version__",
    "analyze",
    "analyze_constraints",
    "available_solvers",
    "best_move",
    "board_from_mbf",
    "board_to_mbf",
    "find_solver",
    "geometry",
    "is_guess_free",
    "no_guess_game",
    "no_guess_layout",
    "parse_size",
    "read_boards",
    "register",
    "write_boards",
]
