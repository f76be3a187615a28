"""The look-ahead's inner level with the caller's test (``drops``): each candidate may be left as
soon as it can no longer be worth what keeps the caller; the answer is then either the exact
chance (some candidate is worth that much) or a bound the caller drops with, as the exact chance
would have made it drop."""

from __future__ import annotations

from demine.analysis import Limit
from demine.analysis.constraints import position_system
from demine.analysis.incremental import Frame
from demine.engine.position import COVERED, FLAG
from demine.errors import InconsistentPosition
from demine.players.best.lookahead import _survive_two
from demine.players.best.settings import DEFAULT_SETTINGS
from tests.players.test_number_order import _guess_points


def test_the_inner_level_with_a_drop_test_drops_as_the_exact_chance_would() -> None:
    inner = DEFAULT_SETTINGS.inner_candidates
    checked = dropped = kept = bounded = 0
    for p, a in _guess_points(3, "inner"):
        root = Frame.root(position_system(p), p, {}, Limit())
        st, nb = p.states, p.geometry.neighbours
        front = sorted(c for c in a.unknown if st[c] == COVERED and 0 < a.p(c) < 1)[:4]
        for c in front:
            flags = sum(1 for d in nb(c) if st[d] == FLAG)
            covered = sum(1 for d in nb(c) if st[d] == COVERED)
            for v in range(flags, flags + covered + 1):
                after = p.with_state(c, v)
                try:
                    frame = root.after(after, c)
                    exact = _survive_two(after, None, frame, {}, None, inner)
                except InconsistentPosition:
                    continue
                assert exact is not None
                checked += 1
                # the caller drops below a line; lines below, at and above the exact chance
                for line in (exact - 0.1, exact - 1e-6, exact, exact + 1e-6, exact + 0.05, exact + 0.3):

                    def drops(u: float, line: float = line) -> bool:
                        return u < line

                    got = _survive_two(after, None, root.after(after, c), {}, None, inner, drops)
                    assert got is not None
                    assert got >= exact
                    assert drops(got) == drops(exact), (exact, line, got)
                    if not drops(got):
                        assert got == exact
                        kept += 1
                    else:
                        dropped += 1
                        bounded += got > exact
    assert checked >= 30 and dropped >= 60 and kept >= 60
    assert bounded >= 30  # (left early: the bound, above the exact chance)
