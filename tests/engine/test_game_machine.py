"""Random reveal / flag / chord sequences keep every invariant of :class:`Game` and of the
incremental engine that follows it (:class:`LocalEngine`), whose deductions stay sound."""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from demine import Game, IllegalMove
from demine.analysis.local import LocalEngine

SIZES = [(5, 5, 4), (8, 6, 10), (9, 9, 10), (4, 3, 1), (7, 7, 20)]


class Play(RuleBasedStateMachine):
    game: Game
    engine: LocalEngine

    @initialize(
        size=st.sampled_from(SIZES),
        rule=st.sampled_from(["safe", "zero", "none"]),
        seed=st.integers(0, 99),
        lives=st.sampled_from([0, 0, 2]),
    )
    def start(self, size: tuple[int, int, int], rule: str, seed: int, lives: int) -> None:
        w, h, m = size
        if rule == "zero" and m > w * h - 9:
            rule = "safe"
        self.game = Game(w, h, m, rule=rule, seed=seed, lives=lives)
        self.engine = LocalEngine(w, h, m)

    @precondition(lambda self: self.game.over)
    @rule(seed=st.integers(0, 99))
    def play_again(self, seed: int) -> None:
        g = self.game
        self.game = Game(g.width, g.height, g.mines, rule=g.rule, seed=seed, lives=g.lives)
        self.engine = LocalEngine(g.width, g.height, g.mines)

    def _cell(self, data: st.DataObject) -> int:
        return data.draw(st.integers(0, self.game.width * self.game.height - 1))

    @precondition(lambda self: not self.game.over)
    @rule(data=st.data())
    def reveal(self, data: st.DataObject) -> None:
        self.game.reveal(self._cell(data))

    @precondition(lambda self: not self.game.over and self.game.placed)
    @rule(data=st.data())
    def flag(self, data: st.DataObject) -> None:
        cell = self._cell(data)
        if self.game.position().states[cell] < 9:
            try:
                self.game.flag(cell)
            except IllegalMove:
                return  # an open cell cannot be flagged: refused, nothing changed
            raise AssertionError("an open cell was flagged")
        self.game.flag(cell)

    @precondition(lambda self: not self.game.over and self.game.placed)
    @rule(data=st.data())
    def chord(self, data: st.DataObject) -> None:
        self.game.chord(self._cell(data))

    @precondition(lambda self: not self.game.over and self.game.placed)
    @rule()
    def open_what_the_engine_proves(self) -> None:
        if self.engine.safe:
            self.game.reveal(min(self.engine.safe))

    @invariant()
    def game_is_consistent(self) -> None:
        self.game._check()

    @invariant()
    def engine_follows_and_is_sound(self) -> None:
        if self.game.outcome == "lost" or not self.game.placed:
            return
        # the player's flags may be wrong: the engine sees the numbers only (with lives, hit
        # mines are flags the game placed, and true)
        position = self.game.position().without_flags()
        self.engine.update(position)
        self.engine._check()
        assert all(not self.game.is_mine(c) for c in self.engine.safe)
        assert all(self.game.is_mine(c) for c in self.engine.mines)


Play.TestCase.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)
TestPlay = Play.TestCase
