"""Batch play: boards, seeds, executors and statistics.

Every game is seeded from the bench seed and its index alone (``"{seed}/{index}"`` for the layout,
``"{seed}/{index}/player"`` for the player's random choices), so

- two players given the same seed play the same boards (a paired comparison), and
- the results do not depend on how many processes play them (``jobs``).
"""

from demine.bench.play import (
    GameResult,
    GameSpec,
    bench,
    board_specs,
    generated_specs,
    play_game,
    run_games,
)
from demine.bench.stats import (
    SWEEP_PARAMS,
    Paired,
    Summary,
    paired,
    parse_sweep,
    sign_test,
    summarise,
    wilson,
)

__all__ = [
    "SWEEP_PARAMS",
    "GameResult",
    "GameSpec",
    "Paired",
    "Summary",
    "bench",
    "board_specs",
    "generated_specs",
    "paired",
    "parse_sweep",
    "play_game",
    "run_games",
    "sign_test",
    "summarise",
    "wilson",
]
