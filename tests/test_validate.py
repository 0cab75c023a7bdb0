import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order, shortest_path

from graphtier.engine.validate import BFSValidationError, validate_bfs_tree
from graphtier.partition.generators import grid, kronecker


def csr(edges, n, symmetrize=False):
    """Deduplicated CSR with the self-loops kept: the validator must cope with both."""
    if symmetrize:
        edges = np.concatenate([edges, edges[:, ::-1]])
    a = sp.csr_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(n, n))
    a.sum_duplicates()
    a.data[:] = 1
    return a


def reference_bfs(a, source):
    """Distances and parents from scipy, in the dtypes and conventions graphtier uses."""
    _, pred = breadth_first_order(a, source, directed=True, return_predecessors=True)
    dist = shortest_path(a, directed=True, unweighted=True, indices=source)
    parents = np.where(pred < 0, -1, pred).astype(np.int64)
    parents[source] = source
    return np.where(np.isinf(dist), -1, dist).astype(np.int32), parents


def random_directed(n=300, density=0.006, seed=0):
    a = sp.random(n, n, density=density, format="csr", random_state=seed)
    a.data[:] = 1
    return a


GRAPHS = {
    "scipy-random-directed": lambda: random_directed(),
    "kronecker-symmetrized": lambda: csr(kronecker(10, seed=7), 1 << 10, symmetrize=True),
    "grid": lambda: csr(grid(17, 23), 17 * 23),
    # Two strongly connected parts joined one way, plus an isolated tail: unreachable parts.
    "directed-with-unreachable": lambda: csr(np.array([[0, 1], [1, 2], [2, 0], [2, 3], [3, 4], [4, 3], [5, 6], [6, 0], [4, 4]]), 8),
}


def bfs_case(name, source=None):
    a = GRAPHS[name]()
    if source is None:
        source = int(np.argmax(np.diff(a.indptr)))  # a high-degree vertex reaches much
    dist, parents = reference_bfs(a, source)
    return a, source, dist, parents


def check(a, source, dist, parents, **kw):
    validate_bfs_tree(a.indptr, a.indices, source, dist, parents, **kw)


@pytest.mark.parametrize("name", GRAPHS)
def test_correct_bfs_passes(name):
    a, source, dist, parents = bfs_case(name)
    assert (dist >= 0).sum() > 1
    check(a, source, dist, parents)
    check(a, source, dist, parents, chunk_edges=7)  # rows split across chunk boundaries


@pytest.mark.parametrize("source", [0, 5, 7])
def test_unreachable_parts_pass(source):
    a, source, dist, parents = bfs_case("directed-with-unreachable", source)
    assert (dist < 0).any()
    check(a, source, dist, parents)


def test_other_integer_dtypes_and_a_star_split_over_chunks():
    star = np.stack([np.zeros(50, np.int64), np.arange(1, 51)], axis=1)
    a = csr(star, 51)
    dist, parents = reference_bfs(a, 0)
    indptr, indices = a.indptr.astype(np.uint64), a.indices.astype(np.uint32)
    validate_bfs_tree(indptr, indices, np.int64(0), dist, parents, chunk_edges=3)


def leaf(dist, parents, source):
    """A reached vertex, not the source, that is nobody's parent, as deep as possible."""
    leaves = np.flatnonzero(dist > 0)
    leaves = leaves[~np.isin(leaves, parents)]
    return int(leaves[np.argmax(dist[leaves])])


def corrupt_cycle(a, source, dist, parents):
    x, y = np.flatnonzero(dist > 0)[:2]
    parents[x], parents[y] = y, x


def corrupt_self_parent(a, source, dist, parents):
    parents[leaf(dist, parents, source)] = leaf(dist, parents, source)


def corrupt_source(a, source, dist, parents):
    parents[source] = parents[leaf(dist, parents, source)]


def corrupt_unreached_parent(a, source, dist, parents):
    unreached = np.flatnonzero(dist < 0)
    parents[leaf(dist, parents, source)] = unreached[0]


def corrupt_distance(a, source, dist, parents):
    dist[leaf(dist, parents, source)] += 1


def corrupt_parent_without_edge(a, source, dist, parents):
    # Re-hang v under another vertex one level up that has no edge to v: rules 1-4 still hold.
    for v in np.flatnonzero(dist > 1):
        candidates = np.flatnonzero(dist == dist[v] - 1)
        no_edge = candidates[np.asarray(a[candidates, v].todense()).ravel() == 0]
        if no_edge.size:
            parents[v] = no_edge[0]
            return
    raise AssertionError("no candidate in this graph")


def corrupt_missed_vertex(a, source, dist, parents):
    v = leaf(dist, parents, source)
    dist[v], parents[v] = -1, -1


def corrupt_mismatch(a, source, dist, parents):
    parents[leaf(dist, parents, source)] = -1


CORRUPTIONS = [
    (corrupt_cycle, 1),
    (corrupt_self_parent, 1),
    (corrupt_source, 1),
    (corrupt_unreached_parent, 1),
    (corrupt_distance, 2),
    (corrupt_missed_vertex, 3),
    (corrupt_mismatch, 4),
    (corrupt_parent_without_edge, 5),
]


@pytest.mark.parametrize("name", ["scipy-random-directed", "kronecker-symmetrized", "grid"])
@pytest.mark.parametrize("corrupt, rule", CORRUPTIONS, ids=[c.__name__ for c, _ in CORRUPTIONS])
def test_each_corruption_breaks_its_rule(name, corrupt, rule):
    if corrupt is corrupt_unreached_parent and name != "scipy-random-directed":
        pytest.skip("every vertex is reached")
    a, source, dist, parents = bfs_case(name)
    corrupt(a, source, dist, parents)
    with pytest.raises(BFSValidationError, match=f"^rule {rule} ") as info:
        check(a, source, dist, parents, chunk_edges=64)
    assert info.value.rule == rule and "e.g. vertex" in str(info.value)


def test_distance_too_far_below_an_edge_breaks_rule_3():
    # 0 -> 1 -> 2 and 0 -> 2: a tree through 1 is consistent, but 2 is really at distance 1.
    a = csr(np.array([[0, 1], [1, 2], [0, 2]]), 3)
    dist = np.array([0, 1, 2], np.int32)
    parents = np.array([0, 0, 1], np.int64)
    with pytest.raises(BFSValidationError, match=r"^rule 3 .*edge 0 -> 2 .* distance 0 to 2"):
        check(a, 0, dist, parents)


@pytest.mark.parametrize(
    "change",
    [
        lambda a, d, p: (a.indptr, a.indices, d.astype(np.int64), p),
        lambda a, d, p: (a.indptr, a.indices, d, p.astype(np.int32)),
        lambda a, d, p: (a.indptr, a.indices, d, p[:-1]),
        lambda a, d, p: (a.indptr[:-1], a.indices, d, p),
        lambda a, d, p: (a.indptr, a.indices.astype(np.float64), d, p),
        lambda a, d, p: (a.indptr, a.indices[:-1], d, p),
        lambda a, d, p: (a.indptr, np.full_like(a.indices, len(d)), d, p),
        lambda a, d, p: (a.indptr, a.indices, np.where(d < 0, -2, d).astype(np.int32), p),
        lambda a, d, p: (a.indptr, a.indices, d, np.where(p < 0, len(p), p)),
    ],
)
def test_bad_inputs_break_rule_0(change):
    a, source, dist, parents = bfs_case("scipy-random-directed")
    indptr, indices, dist, parents = change(a, dist, parents)
    with pytest.raises(BFSValidationError, match="^rule 0 "):
        validate_bfs_tree(indptr, indices, source, dist, parents)


def test_bad_source_breaks_rule_0():
    a, _source, dist, parents = bfs_case("grid")
    with pytest.raises(BFSValidationError, match="^rule 0 .*source"):
        check(a, len(dist), dist, parents)
