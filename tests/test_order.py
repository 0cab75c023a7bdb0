import math

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order, connected_components, reverse_cuthill_mckee

from graphtier.partition.generators import grid, kronecker
from graphtier.partition.order import ORDERS, _symmetrize, gap_cost, vertex_order


def csr(edges: np.ndarray, n: int, dtype=np.uint32) -> tuple[np.ndarray, np.ndarray]:
    m = sp.csr_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(n, n))
    m.sum_duplicates()
    return m.indptr.astype(np.int64), m.indices.astype(dtype)


def relabelled(edges: np.ndarray, n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).permutation(n)[edges]


def symmetric(indptr: np.ndarray, indices: np.ndarray) -> sp.csr_matrix:
    n = len(indptr) - 1
    a = sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=(n, n))
    s = sp.csr_matrix((a + a.T) > 0, dtype=np.int8)
    s.setdiag(0)
    s.eliminate_zeros()
    s.sort_indices()
    return s


def bandwidth(indptr: np.ndarray, indices: np.ndarray, rank: np.ndarray) -> int:
    src = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    return int(np.abs(rank[src] - rank[indices.astype(np.int64)]).max())


@pytest.fixture(scope="module")
def mixed() -> tuple[np.ndarray, np.ndarray]:
    """One-way arcs, loops, repeats, a grid, a skewed part, a path and isolated vertices, shuffled."""
    rng = np.random.default_rng(7)
    path = np.stack([np.arange(436, 466), np.arange(437, 467)], axis=1)
    parts = [grid(12, 15), 180 + kronecker(8, edge_factor=4, seed=1), path]
    extra = [rng.integers(0, 180, (20, 2)), np.array([[500, 500], [3, 3], [3, 4]])]
    edges = np.concatenate(parts + extra)
    n = 520  # 467..519 have no edges, except the loop on 500
    return csr(relabelled(edges, n, 3), n)


@pytest.fixture(scope="module")
def hidden_grid() -> tuple[np.ndarray, np.ndarray]:
    """A 40 x 40 grid under shuffled labels: all its locality is there to be found."""
    return csr(relabelled(grid(40), 1600, 1), 1600)


@pytest.mark.parametrize("dtype", [np.uint32, np.int64])
@pytest.mark.parametrize("method", ORDERS)
def test_every_method_gives_a_permutation(mixed, method, dtype):
    indptr, indices = mixed
    rank = vertex_order(indptr, indices.astype(dtype), method)
    assert rank.dtype == np.int64 and rank.shape == (len(indptr) - 1,)
    assert np.array_equal(np.sort(rank), np.arange(len(rank)))


def test_natural_is_the_identity(mixed):
    assert np.array_equal(vertex_order(*mixed, "natural"), np.arange(520))


def test_degree_decreases_with_ties_by_id(mixed):
    indptr, indices = mixed
    degree = np.diff(indptr) + np.bincount(indices, minlength=520)
    order = np.argsort(vertex_order(indptr, indices, "degree"))
    step = np.diff(degree[order])
    assert (step <= 0).all()
    assert (np.diff(order)[step == 0] > 0).all()


def test_symmetrize_matches_scipy(mixed):
    ptr, adj = _symmetrize(*mixed, 520)
    s = symmetric(*mixed)
    assert np.array_equal(ptr, s.indptr) and np.array_equal(adj, s.indices)


@pytest.mark.parametrize("method", ["bfs", "rcm"])
def test_components_get_contiguous_ranges(mixed, method):
    rank = vertex_order(*mixed, method)
    _, component = connected_components(symmetric(*mixed), directed=False)
    for c in np.unique(component):
        r = rank[component == c]
        assert r.max() - r.min() + 1 == len(r)


def test_bfs_restarts_from_the_lowest_unvisited_id(mixed):
    s = symmetric(*mixed)
    expected, seen = [], np.zeros(520, bool)
    for root in range(520):
        if not seen[root]:
            visit = breadth_first_order(s, root, directed=True, return_predecessors=False)
            seen[visit] = True
            expected.append(visit)
    assert np.array_equal(np.argsort(vertex_order(*mixed, "bfs")), np.concatenate(expected))


@pytest.mark.parametrize("graph", ["mixed", "hidden_grid"])
def test_rcm_bandwidth_close_to_scipy(graph, request):
    indptr, indices = request.getfixturevalue(graph)
    scipy_order = reverse_cuthill_mckee(symmetric(indptr, indices), symmetric_mode=True)
    scipy_rank = np.argsort(scipy_order)
    ours = bandwidth(indptr, indices, vertex_order(indptr, indices, "rcm"))
    assert ours <= 1.25 * bandwidth(indptr, indices, scipy_rank)


def test_llp_is_deterministic_for_a_seed(mixed):
    rank = vertex_order(*mixed, "llp", seed=5)
    assert np.array_equal(rank, vertex_order(*mixed, "llp", seed=5))
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        assert np.array_equal(rank, vertex_order(*mixed, "llp", seed=5))
    finally:
        numba.set_num_threads(threads)


@pytest.mark.parametrize("method", ["bfs", "rcm", "llp"])
def test_orders_recover_hidden_locality(hidden_grid, method):
    natural = gap_cost(*hidden_grid, np.arange(1600))
    assert gap_cost(*hidden_grid, vertex_order(*hidden_grid, method)) < 0.5 * natural


def test_llp_finds_planted_communities():
    """Dense random blocks under shuffled labels: clusters, not level sets, bring them back."""
    rng = np.random.default_rng(2)
    blocks = [np.argwhere(np.triu(rng.random((25, 25)) < 0.3, 1)) + 25 * b for b in range(40)]
    edges = np.concatenate(blocks + [rng.integers(0, 1000, (400, 2))])
    indptr, indices = csr(relabelled(edges, 1000, 2), 1000)
    llp = gap_cost(indptr, indices, vertex_order(indptr, indices, "llp"))
    assert llp < 0.75 * gap_cost(indptr, indices, vertex_order(indptr, indices, "rcm"))


@pytest.mark.parametrize("method", ORDERS)
@pytest.mark.parametrize("n", [0, 1, 6])
def test_graphs_without_edges(method, n):
    rank = vertex_order(np.zeros(n + 1, np.int64), np.zeros(0, np.uint32), method)
    assert rank.dtype == np.int64 and np.array_equal(np.sort(rank), np.arange(n))


def test_gap_cost_by_hand():
    indptr, indices = np.array([0, 2, 2, 3]), np.array([2, 1, 0], np.uint32)
    assert gap_cost(indptr, indices, np.arange(3)) == pytest.approx((1 + 1 + math.log2(3)) / 3)
    # Relabelled 0, 1, 2 -> 2, 1, 0: row 2 holds {0, 1}, row 0 holds {2}.
    assert gap_cost(indptr, indices, np.array([2, 1, 0])) == pytest.approx((2 * math.log2(3) + 1) / 3)
    assert gap_cost(np.zeros(4, np.int64), np.zeros(0, np.uint32), np.arange(3)) == 0.0


def test_bad_method_names_the_choices(mixed):
    with pytest.raises(ValueError, match=", ".join(ORDERS)):
        vertex_order(*mixed, "metis")
    with pytest.raises(ValueError, match="gammas"):
        vertex_order(*mixed, "llp", gammas=())


def test_bad_csr_is_refused():
    with pytest.raises(ValueError, match="indices"):
        vertex_order(np.array([0, 1]), np.array([1]), "bfs")
    with pytest.raises(ValueError, match="indptr"):
        vertex_order(np.array([0, 2]), np.array([0]), "bfs")
