"""The look-ahead's orders in integers (``survive.by_chance``, ``survive.rank_cmp``) are those of
the tuples of Fractions they stand for."""

from __future__ import annotations

from fractions import Fraction
from functools import cmp_to_key

from hypothesis import given
from hypothesis import strategies as st

from demine.players.best.survive import by_chance, rank_cmp

ROWS = st.lists(st.tuples(st.integers(0, 6), st.integers(1, 6), st.integers(0, 3)), min_size=1, max_size=12)


@given(ROWS)
def test_candidates_go_safest_then_by_zero_key_then_cell(rows: list[tuple[int, int, int]]) -> None:
    # (numerator, denominator not in lowest terms, zero key, cell)
    chances = [(n, d + n, z, c) for c, (n, d, z) in enumerate(rows)]
    got = [t[3] for t in sorted(chances, key=cmp_to_key(by_chance))]
    assert got == [t[3] for t in sorted(chances, key=lambda t: (Fraction(t[0], t[1]), t[2], t[3]))]


@given(ROWS)
def test_ranks_order_as_the_keys_the_hook_shows(rows: list[tuple[int, int, int]]) -> None:
    ranks = [(n + 1, d + n + 1, z % 2, n, d + n, z, c) for c, (n, d, z) in enumerate(rows)]
    shown = [(Fraction(r[0], r[1]), r[2], -Fraction(r[3], r[4]), -r[5], -r[6]) for r in ranks]
    got = sorted(range(len(ranks)), key=cmp_to_key(lambda i, j: rank_cmp(ranks[i], ranks[j])))
    assert got == sorted(range(len(ranks)), key=lambda i: shown[i])
