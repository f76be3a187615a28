"""``best``, the strongest player, and ``fast``, a quick one, split by concern:

- :mod:`~demine.players.best.settings`: how it plays (:class:`BestSettings`) and the hooks an
  experiment passes in (:class:`Hooks`);
- :mod:`~demine.players.best.play`: the hint (:func:`best_move`: the order of its steps) and the
  players;
- :mod:`~demine.players.best.endgame`: the exact and sampled game-tree searches;
- :mod:`~demine.players.best.fifty`: forced 50/50s;
- :mod:`~demine.players.best.lookahead`: the look-ahead over candidate guesses;
- :mod:`~demine.players.best.moves`: :class:`BestMove` and the cell keys the steps share.

Users import the hint from :mod:`demine` (``from demine import best_move, BestSettings``).
"""

from demine.players.best.endgame import Endgame, endgame, sampled_endgame, search_kind
from demine.players.best.fifty import forced_fifty
from demine.players.best.lookahead import Ranked, look_ahead
from demine.players.best.moves import BestMove, MoveReason, safest_move
from demine.players.best.play import (
    DEFAULT_LIMIT,
    LOCAL_CELLS,
    BestPlayer,
    FastPlayer,
    Follower,
    best_move,
    local_decide,
)
from demine.players.best.settings import BestSettings, Hooks

__all__ = [
    "DEFAULT_LIMIT",
    "LOCAL_CELLS",
    "BestMove",
    "BestPlayer",
    "BestSettings",
    "Endgame",
    "FastPlayer",
    "Follower",
    "Hooks",
    "MoveReason",
    "Ranked",
    "best_move",
    "endgame",
    "forced_fifty",
    "local_decide",
    "look_ahead",
    "safest_move",
    "sampled_endgame",
    "search_kind",
]
