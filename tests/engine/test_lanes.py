from hypothesis import given
from hypothesis import strategies as st

from demine.engine.grid import geometry
from demine.engine.lanes import NONZERO, neighbour_sums


@given(st.integers(1, 12), st.integers(1, 12), st.data())
def test_neighbour_sums_count_each_cells_marked_neighbours(
    width: int, height: int, data: st.DataObject
) -> None:
    n = width * height
    marks = bytes(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    nb = geometry(width, height).neighbours
    got = neighbour_sums(width, height, marks)
    assert list(got) == [sum(marks[d] for d in nb(c)) for c in range(n)]
    assert list(got.translate(NONZERO)) == [1 if any(marks[d] for d in nb(c)) else 0 for c in range(n)]


def test_a_full_board_counts_every_neighbour() -> None:
    # the largest counts (8 inside): no lane carries into the next
    got = neighbour_sums(30, 16, b"\x01" * 480)
    nb = geometry(30, 16).neighbours
    assert list(got) == [len(nb(c)) for c in range(480)]
