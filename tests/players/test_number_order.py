"""The order in which the look-ahead's third level counts a candidate's numbers
(:func:`~demine.players.best.survive.number_order`): nearest the expected number first, so that a
candidate that cannot win is left sooner; the same numbers, the same values, the same decisions."""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import partial

from demine.analysis import Analysis, Limit
from demine.analysis.constraints import position_system
from demine.analysis.incremental import Frame
from demine.bench import generated_specs
from demine.engine.position import COVERED, FLAG, Position
from demine.players.best import BestPlayer
from demine.players.best.survive import LEAN, chance_floats, make_stop, number_order, survivals
from tests.helpers import guess_points


def _guess_points(games: int, seed: str) -> Iterator[tuple[Position, Analysis]]:
    """The positions of seeded expert games where ``best`` had to guess, with their analyses."""
    specs = generated_specs(30, 16, 99, "safe", None, games, seed)
    return guess_points(specs, partial(BestPlayer, limit=Limit()), random.Random(0))


def _worth(found: list[tuple[int, float]], safety: float) -> float:
    """A candidate's value from its numbers' counts and survivals."""
    total = sum(n for n, _ in found)
    return safety * sum(n * s for n, s in found) / total


def test_numbers_are_counted_nearest_the_expected_first_with_the_same_result() -> None:
    counted = {"by number": 0, "nearest first": 0}
    checked = stopped = 0
    for p, a in _guess_points(4, "order"):
        system = position_system(p)
        frame = Frame.root(system, p, {}, Limit())
        z, _, boxes, off = frame.chances()
        chances = chance_floats(boxes, frame.decided, off)
        st, nb = p.states, p.geometry.neighbours
        front = sorted(c for c in a.unknown if st[c] == COVERED and a.p(c) < 1)[:12]
        for c in front:
            # the expected number from the analysis's exact chances (not the frame's floats)
            flags = sum(1 for d in nb(c) if st[d] == FLAG)
            covered = [d for d in nb(c) if st[d] == COVERED]
            centre = flags + float(sum(a.probability(d) for d in covered)) + LEAN
            order = number_order(p, c, chances)
            assert sorted(order) == list(range(flags, flags + len(covered) + 1))
            assert [abs(v - centre) for v in order] == sorted(abs(v - centre) for v in order)
            # all numbers counted: the same list, in number order
            plain = survivals(p, c, frame, None)
            assert isinstance(plain, list)
            assert survivals(p, c, frame, None, None, chances) == plain
            checked += 1
            # with a stop: the same decision (beat it or not) either way; count what each counts
            nd = (a.ratios[c][0], a.ratios[c][1])
            safety = 1.0 - nd[0] / nd[1]
            value = _worth(plain, safety)
            for best in (value - 0.02, value + 0.02):
                for name, given in (("by number", None), ("nearest first", chances)):
                    stop = make_stop(z, nd, safety, best, None)
                    assert stop is not None
                    calls = [0]

                    def watched(n: int, s: float, stop=stop, calls=calls) -> float | None:  # type: ignore[no-untyped-def]
                        calls[0] += 1
                        return stop(n, s)

                    got = survivals(p, c, frame, None, watched, given)
                    counted[name] += calls[0]
                    if best < value:
                        assert got == plain  # it could win: counted to the end
                    else:
                        assert got == best or (isinstance(got, list) and _worth(got, safety) < best)
                        stopped += isinstance(got, float)
    assert checked >= 100 and stopped >= 20
    # the point of the order: fewer numbers counted before the stop
    assert counted["nearest first"] < counted["by number"]
