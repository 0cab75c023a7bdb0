import numba
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from graphtier.partition.generators import grid, kronecker, urand


@pytest.mark.parametrize("make", [kronecker, urand])
def test_shape_dtype_range_and_determinism(make):
    edges = make(10, edge_factor=4, seed=3)
    assert edges.shape == (4 << 10, 2) and edges.dtype == np.int64
    assert edges.min() >= 0 and edges.max() < 1 << 10
    assert np.array_equal(edges, make(10, edge_factor=4, seed=3))
    assert not np.array_equal(edges, make(10, edge_factor=4, seed=4))


def test_kronecker_does_not_depend_on_the_thread_count():
    edges = kronecker(16, edge_factor=17, seed=1)  # more than one random stream
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        assert np.array_equal(edges, kronecker(16, edge_factor=17, seed=1))
    finally:
        numba.set_num_threads(threads)


def test_kronecker_degree_skew():
    degree = np.bincount(kronecker(14).ravel(), minlength=1 << 14)
    assert degree.max() > 50 * degree.mean()
    assert (degree == 0).sum() > 1000  # many isolated vertices, as in Graph500


def test_kronecker_quadrant_probabilities():
    # At scale 1 a self-loop is quadrant A or D whatever the label permutation: P = a + d.
    edges = kronecker(1, edge_factor=1 << 17, seed=5, a=0.5, b=0.3, c=0.1)
    loops = edges[:, 0] == edges[:, 1]
    assert loops.mean() == pytest.approx(0.6, abs=0.01)
    # The other edges go one way with probability b / (b + c), the other way c / (b + c).
    one_way = (edges[~loops, 0] == 0).mean()
    assert max(one_way, 1 - one_way) == pytest.approx(0.75, abs=0.01)


def test_urand_is_uniform():
    degree = np.bincount(urand(12, seed=1).ravel(), minlength=1 << 12)
    assert degree.max() < 2 * degree.mean()


@pytest.mark.parametrize("rows, cols", [(1, 1), (1, 7), (5, 1), (4, 6), (30, 30)])
def test_grid_edges_and_connectivity(rows, cols):
    edges = grid(rows, cols)
    assert edges.dtype == np.int64
    assert len(edges) == 2 * (rows * (cols - 1) + cols * (rows - 1))
    n = rows * cols
    a = sp.coo_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(n, n)).tocsr()
    assert (a != a.T).nnz == 0  # both directions of every edge
    assert a.max() <= 1 and a.diagonal().sum() == 0  # no duplicates, no self-loops
    assert connected_components(a, directed=True, connection="strong")[0] == 1
    # Neighbours differ by one row or one column.
    r, c = np.divmod(edges, cols)
    assert np.all(np.abs(r[:, 0] - r[:, 1]) + np.abs(c[:, 0] - c[:, 1]) == 1)


def test_grid_is_square_by_default():
    assert np.array_equal(grid(5), grid(5, 5))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: kronecker(0), "scale"),
        (lambda: kronecker(41), "scale"),
        (lambda: kronecker(2.5), "scale"),
        (lambda: kronecker(4, edge_factor=0), "edge_factor"),
        (lambda: kronecker(4, seed=-1), "seed"),
        (lambda: kronecker(4, a=0.5, b=0.3, c=0.3), "a + b + c < 1"),
        (lambda: kronecker(4, a=0.0, b=0.3, c=0.3), "a > 0"),
        (lambda: kronecker(4, a=0.5, b=-0.1, c=0.3), "b >= 0"),
        (lambda: urand(0), "scale"),
        (lambda: urand(4, edge_factor=-2), "edge_factor"),
        (lambda: grid(0), "rows"),
        (lambda: grid(3, 0), "cols"),
        (lambda: grid(3, True), "cols"),
    ],
)
def test_bad_arguments(call, message):
    with pytest.raises(ValueError, match=message.replace("+", r"\+")):
        call()
