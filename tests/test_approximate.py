"""Graffix's approximations (``gt.approximate``, ``gt.inaccuracy``): the divergence transform adds
exactly the 2-hop edges its rule names, each weighing the path it stands for, leaves the original
store alone and says what it did; coalescing lays out the digest's worked example exactly, and its
replicas merge with their originals so that SSSP and BFS keep every distance and PageRank is the
graph's with the added edges; the latency transform adds the sibling edges of a worked example by
hand and records the clusters the store's own edges make, and the runtime's rounds iterate them (SSSP staying
exact); results compare vertex for vertex with the original's."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
import zarr
from scipy.sparse import csgraph

import graphtier as gt
from graphtier import store as schema
from graphtier.algorithms.sssp import SSSP
from graphtier.errors import CorruptChunkError
from graphtier.kernels.formats import FORMATS
from graphtier.partition.graffix import coalesce_layout, divergence_edges, latency_edges
from graphtier.runtime import Advance, Algorithm, Config, Run
from graphtier.runtime.functors import cpu


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
    with pytest.raises(ValueError, match="slack is how far"):
        gt.approximate(g, tmp_path / "c.gt", "latency", threshold=0.5, slack=0.6)
    with pytest.raises(ValueError, match="k is the slots"):
        gt.approximate(g, tmp_path / "c.gt", "coalesce", k=64)
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


def test_coalescing_lays_out_the_digests_example():
    # ../shared/papers/003-graffix.md, 1.5: k = 4, connectedness threshold 0.6
    lists = {0: [3, 4, 5, 6, 7], 1: [6, 8, 9], 2: [10], 3: [8, 9, 10], 4: [9, 11]}
    indptr = np.cumsum([0] + [len(lists.get(v, [])) for v in range(12)])
    c = coalesce_layout(indptr, np.concatenate(list(lists.values())), None, k=4, threshold=0.6, symmetric=False)
    slots = [0, 1, 2, None, 3, 6, 10, 4, 8, 5, 9, 7, 11]  # the digest's new -> original (its trailing holes 13-15 trimmed)
    assert [slots.index(v) for v in range(12)] == c.slot.tolist()
    assert c.copies.tolist() == [0, 1, 2, 0, *range(4, 13)] and c.levels == 3 and c.added == 1  # node 0 replicated into hole 3
    rows = sorted(zip(c.src.tolist(), c.dst.tolist(), c.weight.tolist()))
    lists = {s: sorted(d for s2, d, _ in rows if s2 == s) for s in {s for s, _, _ in rows}}
    assert lists == {0: [9, 11], 1: [5, 8, 10], 2: [6], 3: [4, 5, 6, 7], 4: [6, 8, 10], 7: [10, 12]}
    assert (3, 6, 2.0) in rows  # 0 -> 3 -> 10 as replica 3 -> new 6, weighing its path


@pytest.fixture(scope="module", params=["symmetric", "directed"])
def coalesced(request, tmp_path_factory):
    d = tmp_path_factory.mktemp("coalesce")
    symmetric = request.param == "symmetric"
    edges = gt.generators.kronecker(11, edge_factor=8, seed=3)
    w = np.random.default_rng(2).integers(1, 64, len(edges)).astype(np.float64)
    g = gt.build(np.column_stack([edges, w]), d / "g.gt", symmetrize=symmetric, reverse=not symmetric, drop_self_loops=True, chunk_edges=2048, format="ef")
    a = gt.approximate(g, d / "a.gt", "coalesce", threshold=0.2)
    assert a.attrs["coalesced"]["replicas"] > 0
    return g, a


def merged(a: gt.Graph) -> sp.csr_matrix:
    """The approximate store's edges in the input's ids, a replica's end its original's."""
    e = a.refs_to_original(a.edges().astype(np.int64))
    return sp.csr_matrix((a.group["weights"][:].astype(np.float64), (e[:, 0], e[:, 1])), shape=(a.n_original,) * 2)


def test_a_coalesced_store_says_what_it_is(coalesced):
    g, a = coalesced
    facts, info = a.attrs["coalesced"], a.info()["approximation"]
    assert info["transform"] == "coalesce" and info["knobs"] == {"k": 16, "threshold": 0.2} and info["replicas"] == facts["replicas"]
    assert a.n_original == g.n_vertices == facts["originals"] and a.n_vertices == facts["originals"] + facts["replicas"] + facts["holes"]
    copies = a.copies
    replicas = np.flatnonzero((copies < a.n_vertices) & (copies != np.arange(a.n_vertices)))
    assert len(replicas) == facts["replicas"] and np.all(copies[copies[replicas]] == copies[replicas])  # each copies a vertex
    assert np.all(np.diff(a.indptr())[copies == a.n_vertices] == 0)  # holes hold no edges
    m, am = matrix(g), merged(a)
    assert (m != 0).multiply(am != 0).nnz == m.nnz and am.nnz == m.nnz + info["added_edges"] * (1 if g.directed else 2)  # none lost
    assert gt.verify(a).ok


def test_copies_merge_so_distances_stay_exact(coalesced):
    """SSSP's distances are the original's (a 2-hop edge weighs its path); BFS's are the graph's
    with the added edges (one hop for two); parents are tight edges of it; under every budget."""
    g, a = coalesced
    source = int(np.argmax(np.diff(g.indptr())))
    am = merged(a)
    hops = csgraph.shortest_path(am, unweighted=True, indices=source)
    for f, expected in ((gt.sssp, gt.sssp(g, source, device="cpu").distances), (gt.bfs, np.where(np.isinf(hops), -1, hops))):
        approx = f(a, source, device="cpu")
        np.testing.assert_array_equal(approx.distances, expected)
        reached = np.flatnonzero((approx.parents >= 0) & (np.arange(a.n_original) != source))
        assert len(reached) == np.count_nonzero(np.isfinite(hops)) - 1
        p = approx.parents[reached]
        step = am[p, reached].A1 if f is gt.sssp else np.ones(len(p))
        assert np.all(am[p, reached].A1 > 0) and np.array_equal(approx.distances[p] + step, approx.distances[reached])
        state = approx.stats["state_bytes"]
        for budget in ({"device_memory": state + (1 << 20), "zero_copy": "never"}, {"device_memory": state + (1 << 20), "zero_copy": "always"}):
            np.testing.assert_array_equal(f(a, source, device="cpu", **budget).distances, expected)
    many = gt.bfs(a, sources=[source, 0], device="cpu")  # one source at a time, each merging
    np.testing.assert_array_equal(many[0].distances, gt.bfs(a, source, device="cpu").distances)


def test_pagerank_on_a_coalesced_store_is_the_graphs_with_the_added_edges(coalesced, tmp_path):
    g, a = coalesced
    am = merged(a)
    plain = gt.build(sp.csr_matrix((np.ones(am.nnz), am.indices, am.indptr), shape=am.shape), tmp_path / "m.gt", symmetrize=not g.directed, reverse=g.directed)
    expected = gt.pagerank(plain, device="cpu").ranks
    np.testing.assert_allclose(gt.pagerank(a, device="cpu").ranks, expected, rtol=0, atol=1e-9)
    state = gt.pagerank(a, device="cpu").stats["state_bytes"]
    streamed = gt.pagerank(a, device="cpu", device_memory=state + (1 << 20), zero_copy="never")
    np.testing.assert_allclose(streamed.ranks, expected, rtol=0, atol=1e-9)
    assert 0 < gt.inaccuracy(gt.pagerank(g, device="cpu"), gt.pagerank(a, device="cpu")) < 0.1


def test_the_other_algorithms_see_replicas_as_vertices_and_report_the_originals(coalesced):
    g, a = coalesced
    am = merged(a)
    cc = gt.connected_components(a, device="cpu")
    assert len(cc.labels) == a.n_original and cc.n_components == len(np.unique(cc.labels))
    assert gt.inaccuracy(gt.connected_components(g, device="cpu"), cc) < 0.05
    bc = gt.betweenness_centrality(a, k=8, seed=1, device="cpu")
    np.testing.assert_array_equal(bc.sources, gt.betweenness_centrality(g, k=8, seed=1, device="cpu").sources)
    assert len(bc.centrality) == a.n_original
    if g.directed:
        scc = gt.strongly_connected_components(a, device="cpu")
        assert len(scc.labels) == a.n_original and scc.n_components >= gt.strongly_connected_components(g, device="cpu").n_components - a.attrs["coalesced"]["replicas"]
        return
    exact, forest = gt.minimum_spanning_tree(g, device="cpu"), gt.minimum_spanning_tree(a, device="cpu")
    assert np.all(forest.sources <= forest.destinations) and np.all(am[forest.sources, forest.destinations].A1 > 0)
    assert forest.total_weight >= exact.total_weight and gt.inaccuracy(exact, forest) < 0.05
    colors = gt.greedy_color(a, seed=1, device="cpu").colors
    assert len(colors) == a.n_original


def test_a_coalesced_store_recodes_and_is_approximated_no_further(coalesced, tmp_path):
    g, a = coalesced
    r = gt.recode(a, tmp_path / "r.gt", format="csr")
    np.testing.assert_array_equal(r.copies, a.copies)
    source = int(np.argmax(np.diff(g.indptr())))
    np.testing.assert_array_equal(gt.sssp(r, source, device="cpu").distances, gt.sssp(a, source, device="cpu").distances)
    assert gt.verify(r).ok
    with pytest.raises(ValueError, match="is approximate already .coalesce of"):
        gt.approximate(a, tmp_path / "again.gt", "divergence")
    assert not (tmp_path / "again.gt").exists()


def test_a_coalesced_store_runs_on_one_device(coalesced):
    _, a = coalesced
    with pytest.raises(ValueError, match="coalesced store .* does not run split"):
        gt.bfs(a, 0, device="cpu", devices=2)


def test_damaged_copies_are_named(coalesced, tmp_path):
    import shutil

    _, a = coalesced
    bad = tmp_path / "bad.gt"
    shutil.copytree(a.location, bad)
    copies = a.copies.astype(np.uint64)
    hole = np.flatnonzero(a.copies == a.n_vertices)[0]
    replica = np.flatnonzero((a.copies < a.n_vertices) & (a.copies != np.arange(a.n_vertices)))[0]
    copies[replica] = hole  # a replica of a hole
    group = zarr.open_group(bad, mode="r+")
    del group[schema.COPIES]
    schema.write_vector(group, schema.COPIES, copies)
    with pytest.raises(CorruptChunkError, match="copies"):
        gt.sssp(gt.open(bad), 0, device="cpu")
    report = gt.verify(bad)
    assert not report.ok and any("copies" in p.array for p in report.problems)


def test_latency_lifts_and_tightens_the_worked_example():
    # 0 has neighbours 1..4 joined in a ring (1-2-3-4-1): 4 of their 6 pairs, C(0) = 8/12 = 2/3, as
    # C(1) = C(3) = 2/3 (of 0, 2, 4 only 0-2 and 0-4 are joined); C(2) = C(4) = 4/12; 5 (joined
    # to 2 and 4) 0. Edge (u, v) weighs as listed.
    und = [(0, 1, 1), (0, 2, 2), (0, 3, 3), (0, 4, 4), (1, 2, 5), (2, 3, 6), (3, 4, 7), (4, 1, 8), (5, 2, 9), (5, 4, 10)]
    r = np.array(und, np.float64)
    m = sp.csr_matrix((np.r_[r[:, 2], r[:, 2]], (np.r_[r[:, 0], r[:, 1]], np.r_[r[:, 1], r[:, 0]])), shape=(6, 6))
    m.sort_indices()

    def made(**knobs):
        c = latency_edges(m.indptr, m.indices, m.data, **knobs)
        return c.src.tolist(), c.dst.tolist(), c.weight.tolist(), c.pairs, c.centres.tolist()

    # threshold 0.7, slack 0.1: 0, 1 and 3 (2/3) are near, 0 first (ties by id); 0 needs one pair of
    # the two it lacks: 2-4 share 1, 3 and 5 (besides 0), 1-3 only 2 and 4; 2-4 weighs 2 + 4. Then
    # 1's and 3's neighbours 0, 2, 4 are all joined: nothing more. After: C(0) = 10/12, C(1) =
    # C(3) = C(5) = 1, C(2) = C(4) = 6/10.
    assert made(threshold=0.7, slack=0.1, limit=0.5, size=32) == ([2, 4], [4, 2], [6.0, 6.0], 1, [0, 1, 3, 5])
    # threshold 0.6, no slack: 0, 1, 3 are above it. Around 0 each neighbour has 2 edges to the
    # others (the fewest): 1 takes the least joined it lacks, 3 (1 + 3); 3 has one now, 2 still 2:
    # 2-4 (2 + 4); 1 and 3 are then cliques. Every vertex reaches 0.6 (2 and 4: 7/10).
    assert made(threshold=0.6, slack=0.0, limit=0.5, size=32) == ([1, 2, 3, 4], [3, 4, 1, 2], [4.0, 6.0, 4.0, 6.0], 2, list(range(6)))
    # at most 3 neighbours: 0 takes no part; around 1, 2 and 4 have no edge to the others: 2-4
    # through 1 (5 + 8)
    assert made(threshold=0.6, slack=0.0, limit=0.5, size=3) == ([2, 4], [4, 2], [13.0, 13.0], 1, [1, 3, 5])
    # a limit of 5% of 20 edges allows no pair: nothing added, and no vertex reaches 0.7
    assert made(threshold=0.7, slack=0.1, limit=0.05, size=32) == ([], [], [], 0, [])
    with pytest.raises(ValueError, match="threshold is a clustering coefficient"):
        latency_edges(m.indptr, m.indices, m.data, threshold=0.0, slack=0.0, limit=0.5, size=32)


@pytest.fixture(scope="module")
def clustered(weighted_kron, tmp_path_factory):
    g, _ = weighted_kron
    a = gt.approximate(g, tmp_path_factory.mktemp("latency") / "l.gt", "latency", threshold=0.6, slack=0.2)
    return g, a


def test_a_latency_store_says_what_it_is(clustered):
    g, a = clustered
    info = a.info()["approximation"]
    assert info["transform"] == "latency" and info["knobs"] == {"threshold": 0.6, "slack": 0.2, "limit": 0.05, "size": 32}
    assert info["source"] == g.location and 0 < info["added_edges"] <= 0.05 * g.n_edges / 2 and info["clusters"] == len(a.centres) > 0
    assert a.n_vertices == g.n_vertices and np.array_equal(a.perm, g.perm) and a.format == g.format
    m, am = matrix(g), matrix(a)
    assert (m != 0).multiply(am != 0).nnz == m.nnz and am.nnz == m.nnz + 2 * info["added_edges"] and (am != am.T).nnz == 0
    added = sp.triu(am - am.multiply(m != 0)).tocoo()
    for x, y, w in zip(added.row, added.col, added.data):  # a sibling edge weighs a path through a common neighbour
        assert np.any(((m[x] != 0).multiply(m[y] != 0)).toarray() & np.isclose(m[x].toarray() + m[y].toarray(), w)), f"{x} - {y} weighs {w}"
    # the clusters are the store's own: vertices with 2 to 32 neighbours and a coefficient of at least 0.6
    store = nx.from_scipy_sparse_array(sp.csr_matrix((np.ones(a.n_edges), (a.edges()[:, 0].astype(np.int64), a.edges()[:, 1].astype(np.int64))), shape=am.shape))
    coefficient, degree = nx.clustering(store), dict(store.degree())
    assert a.centres.tolist() == [v for v in range(a.n_vertices) if 2 <= degree[v] <= 32 and coefficient[v] >= 0.6]
    before = nx.clustering(nx.from_scipy_sparse_array(sp.csr_matrix((np.ones(g.n_edges), (g.edges()[:, 0].astype(np.int64), g.edges()[:, 1].astype(np.int64))), shape=am.shape)))
    assert len(a.centres) > sum(1 for v in range(g.n_vertices) if 2 <= degree[v] <= 32 and before[v] >= 0.6)  # the edges made more
    assert gt.verify(a).ok


def test_a_latency_store_answers_as_its_own_edges_do(clustered):
    g, a = clustered
    am = matrix(a)
    source = int(np.argmax(np.diff(g.indptr())))
    exact, approx = gt.sssp(g, source, device="cpu"), gt.sssp(a, source, device="cpu")
    np.testing.assert_allclose(approx.distances, csgraph.dijkstra(am, indices=source), rtol=1e-6)
    np.testing.assert_array_equal(approx.distances, exact.distances)  # a sibling edge weighs a real path
    ranks = gt.pagerank(a, device="cpu", weight=True).ranks
    ref = nx.pagerank(nx.from_scipy_sparse_array(am, create_using=nx.DiGraph), weight="weight")
    np.testing.assert_allclose(ranks, [ref[v] for v in range(a.n_vertices)], atol=1e-6)
    assert 0 < gt.inaccuracy(gt.pagerank(g, device="cpu"), gt.pagerank(a, device="cpu")) < 0.1
    assert gt.inaccuracy(gt.minimum_spanning_tree(g, device="cpu"), gt.minimum_spanning_tree(a, device="cpu")) == 0.0


def test_a_latency_store_recodes_and_damage_is_named(clustered, tmp_path):
    import shutil

    _, a = clustered
    r = gt.recode(a, tmp_path / "r.gt", format="csr")
    np.testing.assert_array_equal(r.centres, a.centres)
    assert gt.verify(r).ok and r.info()["approximation"] == a.info()["approximation"]
    bad = tmp_path / "bad.gt"
    shutil.copytree(a.location, bad)
    centres = a.centres.astype(np.uint64)
    centres[0] = np.argmax(np.diff(a.indptr()))  # the largest degree: more than 32 neighbours, out of order
    group = zarr.open_group(bad, mode="r+")
    del group[schema.CENTRES]
    schema.write_vector(group, schema.CENTRES, centres)
    with pytest.raises(CorruptChunkError, match="centres"):
        _ = gt.open(bad).centres
    report = gt.verify(bad)
    assert not report.ok and any("centres" in p.array for p in report.problems)


def test_a_directed_store_takes_its_clusters_as_undirected(tmp_path):
    edges = gt.generators.kronecker(9, edge_factor=8, seed=5)
    g = gt.build(edges, tmp_path / "d.gt", drop_self_loops=True, reverse=True, chunk_edges=512)
    a = gt.approximate(g, tmp_path / "da.gt", "latency", threshold=0.5, slack=0.3)
    added = a.info()["approximation"]["added_edges"]
    assert a.directed and a.has_reverse and added > 0 and a.n_edges == g.n_edges + 2 * added and gt.verify(a).ok
    und = nx.Graph(list(map(tuple, a.edges().astype(np.int64).tolist())))
    und.add_nodes_from(range(a.n_vertices))
    coefficient = nx.clustering(und)
    assert a.centres.tolist() == [v for v in range(a.n_vertices) if 2 <= und.degree(v) <= 32 and coefficient[v] >= 0.5]


def test_clusters_are_the_edges_among_each_centre_and_its_neighbours(clustered):
    _, a = clustered
    e, w = a.edges().astype(np.int64), a.group["weights"][:]
    c = a.clusters
    assert len(c.ptr) == len(a.centres) + 1 and c.ptr[-1] == len(c.src) == len(c.dst) == len(c.weight) > 0
    for k, centre in enumerate(a.centres.tolist()):
        cluster = np.unique(np.r_[centre, e[e[:, 0] == centre, 1], e[e[:, 1] == centre, 0]])
        assert len(cluster) <= 33
        inside = np.isin(e[:, 0], cluster) & np.isin(e[:, 1], cluster) & (e[:, 0] != e[:, 1])
        expected = dict(zip(map(tuple, e[inside].tolist()), w[inside].tolist()))
        lo, hi = c.ptr[k], c.ptr[k + 1]
        got = dict(zip(zip(c.src[lo:hi].tolist(), c.dst[lo:hi].tolist()), c.weight[lo:hi].tolist()))
        assert got == expected and hi - lo == len(expected)  # each edge once
    assert gt.open(a.location).clusters.ptr.tolist() == c.ptr.tolist()


@cpu
def hop(v, u, e, w, s):
    """``s``: (dist,). A shorter path to u queues it."""
    dist = s[0]
    nd = dist[v] + np.float64(w)
    if nd >= dist[u]:
        return False
    dist[u] = nd
    return True


HOP = Advance("Relax", hop, rounds=True)


class Hops(Algorithm):
    """One iteration from vertex 9: an advance (or none), then the clusters' rounds."""

    cuda = SSSP.cuda
    functors = (HOP,)
    dedup = True

    def __init__(self, rounds: int, advance: bool):
        self.rounds, self.advance = rounds, advance

    def edges(self, graph):
        return {"out": gt.runtime.Edges(weights=True)}

    def state(self, graph):
        return {"dist": (graph.n_vertices, np.float64)}

    def start(self, run):
        run.state["dist"][:] = np.inf
        run.state["dist"][9] = 0.0
        run.frontier.start(np.array([9]), 1)

    def step(self, run):
        if self.advance:
            run.advance(HOP, run.state["dist"], dedup=True)
        run.rounds(HOP, run.state["dist"], rounds=self.rounds)

    def done(self, run, sizes):
        return True


@pytest.fixture(scope="module")
def one_cluster(tmp_path_factory):
    # centre 0 joined to 1..4 by edges of 100, the path 4 - 3 - 2 - 1 by edges of 1, and 9 (outside
    # the cluster) to 4: the cluster's edges in (src, dst) order visit the path against its way
    r = [(0, 1, 100), (0, 2, 100), (0, 3, 100), (0, 4, 100), (4, 3, 1), (3, 2, 1), (2, 1, 1), (9, 4, 1)]
    facts, centres = {"clustered": {"centres": 1, "threshold": 0.5, "size": 32}}, {schema.CENTRES: np.array([0], np.uint64)}
    g = gt.build(np.array(r, np.float64), tmp_path_factory.mktemp("one") / "c.gt", symmetrize=True, order="natural", attributes=facts, vectors=centres)
    assert g.centres.tolist() == [0] and g.clusters.ptr.tolist() == [0, 14]
    return g


@pytest.mark.parametrize(
    ("rounds", "dist", "queued"),
    [
        (1, {9: 0, 4: 1, 0: 101, 3: 2}, [4, 0, 3]),  # (4, 0) and (4, 3) only: (3, 2) came before (4, 3)
        (2, {9: 0, 4: 1, 0: 101, 3: 2, 2: 3, 1: 201}, [4, 0, 3, 1, 2]),  # 1 through 0, (2, 1) before (3, 2)
        (4, {9: 0, 4: 1, 0: 101, 3: 2, 2: 3, 1: 4}, [4, 0, 3, 1, 2]),  # 1 again, queued once
    ],
)
def test_rounds_iterate_a_touched_cluster(one_cluster, rounds, dist, queued):
    run = Run(Hops(rounds, True), one_cluster, Config.of(None, device="cpu")).execute()
    expected = np.full(one_cluster.n_vertices, np.inf)
    expected[list(dist)] = list(dist.values())
    np.testing.assert_array_equal(run.state["dist"], expected)
    q = run.frontier.current
    assert q.ids[: int(q.row[0])].tolist() == queued and run.sizes[-1, 0] == len(queued)
    assert run.iterations[0]["round_clusters"] == 1 and run.iterations[0]["round_edges"] == 14 * rounds


def test_rounds_leave_an_untouched_cluster_alone(one_cluster):
    run = Run(Hops(4, False), one_cluster, Config.of(None, device="cpu")).execute()  # the output is empty: no cluster touched
    assert np.isinf(run.state["dist"]).sum() == one_cluster.n_vertices - 1 and run.sizes[-1, 0] == 0
    assert run.iterations[0]["round_clusters"] == run.iterations[0]["round_edges"] == 0


def test_sssp_on_a_latency_store_relaxes_in_rounds_and_stays_exact(clustered, tmp_path):
    g, a = clustered
    source = int(np.argmax(np.diff(g.indptr())))
    expected = csgraph.dijkstra(matrix(a), indices=source)
    for fmt in sorted(FORMATS):
        s = a if fmt == a.format else gt.recode(a, tmp_path / f"{fmt}.gt", format=fmt)
        r = gt.sssp(s, source, device="cpu")
        assert sum(it["round_edges"] for it in r.stats["iterations"]) > 0 and sum(it["round_clusters"] for it in r.stats["iterations"]) > 0
        np.testing.assert_array_equal(r.distances, expected)
        state = r.stats["state_bytes"]
        for budget in ({"device_memory": state + (1 << 20), "zero_copy": "never"}, {"device_memory": state + (1 << 20), "zero_copy": "always"}):
            streamed = gt.sssp(s, source, device="cpu", **budget)
            assert streamed.stats["bytes_store_read"] > 0
            np.testing.assert_array_equal(streamed.distances, expected)
            np.testing.assert_array_equal(streamed.parents, r.parents)
        hops = csgraph.dijkstra(matrix(a) != 0, unweighted=True, indices=source)
        np.testing.assert_array_equal(gt.sssp(s, source, weight=False, device="cpu").distances, hops)  # the clusters' edges weigh 1 too
    plain = gt.sssp(g, source, device="cpu").stats["iterations"]
    assert "round_edges" not in plain[0]  # a store without clusters runs no rounds
