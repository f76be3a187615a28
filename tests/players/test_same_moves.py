"""Every player makes the same moves on fixed seeds as when the digests were recorded.

A change meant to keep behaviour (a refactor, a speed-up) must leave these digests alone; a change
meant to alter play updates them on purpose (``python -m tests.players.test_same_moves --update``) and says
so in its commit. Each digest covers every move of a few seeded games of one player, preset and
first-click rule. Players run without a time budget (node budgets are counts, so the moves do not
depend on the machine's speed).

The recorded digests live in ``tests/data/same_moves.json``.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

import pytest

from demine import PRESETS, Game, Limit, find_solver
from demine.engine.grid import default_start
from demine.players.base import Player

DIGESTS = Path(__file__).resolve().parent.parent / "data" / "same_moves.json"
RULES = ("safe", "zero")
#: Games per (player, preset, rule): enough to reach guesses of every kind, few enough to stay quick;
#: ``best``, whose search has the most branches, plays four times as many.
GAMES = {"beginner": 30, "intermediate": 15, "expert": 10}
BEST_TIMES = 4


def games(name: str, preset: str) -> int:
    """How many seeded games a digest covers."""
    return GAMES[preset] * (BEST_TIMES if name == "best" else 1)


PLAYERS = ("best", "fast", "exact", "twosat", "window-sat", "equations", "gauss", "random")


def make_player(name: str) -> Player:
    """A player without a time budget (its moves depend only on the position and its seed)."""
    if name == "best":
        from demine.players.best import BestPlayer

        return BestPlayer(limit=Limit())
    if name == "exact":
        from demine.players.exact_player import ExactPlayer

        return ExactPlayer(limit=Limit())
    return find_solver(name)


def digest(name: str, preset: str, rule: str) -> str:
    """The first 16 hex digits of a SHA-256 over every move of the seeded games."""
    p = PRESETS[preset]
    h = hashlib.sha256()
    for i in range(games(name, preset)):
        seed = f"same-moves/{preset}/{rule}/{i}"
        player = make_player(name)
        rng = random.Random(f"{seed}/player")
        game = Game(p.width, p.height, p.mines, rule=rule, seed=seed)
        game.reveal(default_start(p.width, p.height, rule))
        while not game.over:
            for move in player.decide(game.position(), rng).moves:
                game.play(move)
                if game.over:
                    break
        h.update(" ".join(f"{m.kind[0]}{m.cell}" for m in game.moves).encode())
        h.update(b"|won" if game.won else b"|lost")
    return h.hexdigest()[:16]


CASES = [(name, preset, rule) for name in PLAYERS for preset in GAMES for rule in RULES]


@pytest.mark.parametrize(("name", "preset", "rule"), CASES)
def test_the_same_moves_as_recorded(name: str, preset: str, rule: str) -> None:
    recorded = json.loads(DIGESTS.read_text())
    assert digest(name, preset, rule) == recorded[f"{name}/{preset}/{rule}"]


def test_every_case_has_a_recorded_digest() -> None:
    recorded = json.loads(DIGESTS.read_text())
    assert sorted(recorded) == sorted(f"{n}/{p}/{r}" for n, p, r in CASES)


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python -m tests.players.test_same_moves --update   (records the digests anew)")
    out = {f"{n}/{p}/{r}": digest(n, p, r) for n, p, r in CASES}
    DIGESTS.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(out)} digests to {DIGESTS}")
