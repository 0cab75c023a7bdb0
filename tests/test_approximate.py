"""Graffix's approximations (``gt.approximate``, ``gt.inaccuracy``): the divergence transform adds
exactly the 2-hop edges its rule names, each weighing the path it stands for, leaves the original
store alone and says what it did; results compare vertex for vertex with the original's."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import graphtier as gt
from graphtier.partition.graffix import divergence_edges


def test_divergence_tops_up_the_vertices_a_little_short():
    # warps of 2 in decreasing degree: (0: 4, 1: 3) and (2: 2, 3: 1); 4..6 have no out-edges
    lists = {0: [1, 2, 3, 4], 1: [0, 5, 6], 2: [0, 5], 3: [2]}
    indptr = np.cumsum([0] + [len(lists.get(v, [])) for v in range(7)])
    indices = np.concatenate([lists[v] for v in range(4)])
    weights = np.arange(1, len(indices) + 1, dtype=np.float64)  # edge j weighs j + 1
    src, dst, w = divergence_edges(indptr, indices, weights, threshold=0.3, share=1.0, warp=2)
    # 1 is short of 4 by 1/4 < 0.3: one edge, its first 2-hop neighbour not already one (0 -> 1 -> 0
    # is itself, 0 -> 2 the first: 5 + 2); 3 is short of 2 by a half: none
    assert (src.tolist(), dst.tolist(), w.tolist()) == ([1], [2], [5.0 + 2.0])
    src, dst, w = divergence_edges(indptr, indices, weights, threshold=0.6, share=1.0, warp=2)
    assert (src.tolist(), dst.tolist(), w.tolist()) == ([1, 3], [2, 0], [7.0, 10.0 + 8.0])  # now 3 too: 3 -> 2 -> 0
    with pytest.raises(ValueError, match="threshold"):
        divergence_edges(indptr, indices, weights, threshold=1.5, share=1.0, warp=2)


@pytest.fixture(scope="module")
def weighted_kron(tmp_path_factory):
    d = tmp_path_factory.mktemp("graffix")
    edges = gt.generators.kronecker(11, edge_factor=8, seed=3)
    w = np.random.default_rng(2).integers(1, 64, len(edges)).astype(np.float64)
    g = gt.build(np.column_stack([edges, w]), d / "g.gt", symmetrize=True, drop_self_loops=True, chunk_edges=2048, format="ef")
    return g, gt.approximate(g, d / "a.gt", threshold=0.5)


def matrix(g: gt.Graph) -> sp.csr_matrix:
    """The store's edges in the input's ids, weighted."""
    e = g.edges().astype(np.int64)
    ids = g.perm.astype(np.int64) if g.perm is not None else np.arange(g.n_vertices)
    return sp.csr_matrix((g.group["weights"][:].astype(np.float64), (ids[e[:, 0]], ids[e[:, 1]])), shape=(g.n_vertices,) * 2)


def test_the_approximation_adds_weighted_shortcuts_and_says_so(weighted_kron):
    g, a = weighted_kron
    before = g.attrs["build_id"]
    info = a.info()["approximation"]
    assert info["transform"] == "divergence" and info["knobs"] == {"threshold": 0.5, "share": 0.85, "warp": 32}
    assert info["source"] == g.location and info["source_build_id"] == before and info["added_edges"] > 0
    assert gt.open(g.location).attrs["build_id"] == before and a.format == g.format and a.attrs["vertex_order"] == "degree"
    m, am = matrix(g), matrix(a)
    added = (am - am.multiply(m != 0)).tocoo()  # the edges the original lacks
    assert added.nnz >= info["added_edges"] and (m != 0).multiply(am != 0).nnz == m.nnz  # none lost
    for v, x, w in zip(added.row, added.col, added.data):
        hops = m[v].toarray().ravel()
        through = np.flatnonzero(hops)
        paths = hops[through] + m[through, x].toarray().ravel()
        assert np.any((m[through, x].toarray().ravel() > 0) & (paths == w)), f"{v} -> {x} weighs {w}, no 2-hop path does"


def test_results_compare_vertex_for_vertex(weighted_kron):
    g, a = weighted_kron
    source = int(np.argmax(np.diff(g.indptr())))
    exact, approx = gt.sssp(g, source, device="cpu"), gt.sssp(a, source, device="cpu")
    np.testing.assert_array_equal(approx.distances, exact.distances)  # a shortcut weighs a real path
    assert gt.inaccuracy(exact, approx) == 0.0
    assert gt.inaccuracy(gt.minimum_spanning_tree(g, device="cpu"), gt.minimum_spanning_tree(a, device="cpu")) == 0.0  # the heaviest edge of its triangle
    ranks = gt.inaccuracy(gt.pagerank(g, device="cpu"), gt.pagerank(a, device="cpu"))
    assert 0 < ranks < 0.25
    hops = gt.inaccuracy(gt.bfs(g, source, device="cpu"), gt.bfs(a, source, device="cpu"))
    assert hops < 0.1  # unweighted, a shortcut is one hop for two (it may shorten a few distances)


def test_inaccuracy_by_hand():
    e = gt.SSSPResult(source=0, distances=np.array([0.0, 2.0, 4.0, np.inf]), parents=None)
    a = gt.SSSPResult(source=0, distances=np.array([0.0, 2.0, 3.0, 5.0]), parents=None)
    # finite in both: 0, 2, 4 against 0, 2, 3: |diff| mean 1/3 over a mean of 2 -> 1/6; vertex 3
    # reached in one only counts 1: (1/6 * 3 + 1) / 4
    assert gt.inaccuracy(e, a) == pytest.approx((1 / 6 * 3 + 1) / 4)
    assert gt.inaccuracy(gt.ComponentsResult(labels=np.zeros(3, np.int64), n_components=4), gt.ComponentsResult(labels=np.zeros(3, np.int64), n_components=3)) == 0.25
    with pytest.raises(TypeError, match="one algorithm"):
        gt.inaccuracy(e, gt.ComponentsResult(labels=np.zeros(3, np.int64), n_components=3))


def test_transforms_and_knobs_are_checked(weighted_kron, tmp_path):
    g, _ = weighted_kron
    with pytest.raises(ValueError, match="'coalesce' is not built yet"):
        gt.approximate(g, tmp_path / "c.gt", "coalesce")
    with pytest.raises(ValueError, match="unknown transform 'blur'"):
        gt.approximate(g, tmp_path / "b.gt", "blur")
    with pytest.raises(TypeError, match="not k"):
        gt.approximate(g, tmp_path / "k.gt", k=16)
    assert not (tmp_path / "k.gt").exists()


def test_a_directed_relabelled_store_keeps_its_ids_and_reverse(tmp_path):
    edges = gt.generators.urand(9, edge_factor=6, seed=1).astype(np.int64) * 7 + 1000
    g = gt.build(edges, tmp_path / "d.gt", relabel=True, reverse=True, chunk_edges=512)
    a = gt.approximate(g, tmp_path / "da.gt", threshold=0.6)
    assert a.directed and a.has_reverse and np.array_equal(a.ids, g.ids) and a.n_edges > g.n_edges
    source = int(g.ids[0])
    assert gt.inaccuracy(gt.bfs(g, source, device="cpu"), gt.bfs(a, source, device="cpu")) < 0.5
