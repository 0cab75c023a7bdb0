"""WolfPath's layered stores (``order="layered"``): the layering is exact (every edge kept, layer i
at distance i from the root), and BFS and SSSP from the root, which run a push per layer, equal the
oracles and the frontier runtime on every format, directed and symmetric, under every budget."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
import zarr
from scipy.sparse.csgraph import dijkstra

import graphtier as gt
from graphtier.errors import CorruptChunkError
from graphtier.partition.order import default_root, layers
from graphtier.tiering.scheduler import fixed_bytes

from .conftest import recoded
from .test_algorithms import FORMATS, check_sssp, slot_bytes, stored_matrix, weighted

# The digest's example A (../shared/papers/004-wolfpath.md, 1.4) and a vertex the root misses.
EXAMPLE = np.array([(0, 1), (0, 2), (1, 3), (1, 2), (2, 3), (2, 5), (3, 4), (5, 6), (4, 6), (7, 0)])


def csr(edges: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    m = sp.csr_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(n, n))
    return m.indptr.astype(np.int64), m.indices.astype(np.uint32)


def test_layers_are_the_bfs_levels_and_keep_every_vertex():
    rank, offsets = layers(*csr(EXAMPLE, 8), 0)
    assert offsets.tolist() == [0, 1, 3, 5, 7]  # 4 layers: the BFS depth, where the paper's rule makes 5
    assert sorted(rank.tolist()) == list(range(8)) and rank[7] == 7  # unreached: after the last layer
    assert [sorted(np.flatnonzero((rank >= a) & (rank < b)).tolist()) for a, b in itertools.pairwise(offsets)] == [[0], [1, 2], [3, 5], [4, 6]]


def test_default_root_is_a_source_else_the_widest():
    assert default_root(*csr(EXAMPLE, 8)) == 7  # in-degree 0 (vertex 0 has an in-edge from 7)
    sym = np.concatenate([EXAMPLE, EXAMPLE[:, ::-1]])
    assert default_root(*csr(sym, 8)) == 2  # every vertex has in-edges: most out-edges, the least id of a tie


@pytest.fixture(scope="module", params=["grid-sym", "urand-dir", "kron-sym"])
def stores(request, tmp_path_factory) -> dict[str, gt.Graph]:
    edges, symmetric = {
        "grid-sym": (weighted(gt.generators.grid(24, 31), 3), True),
        "urand-dir": (weighted(gt.generators.urand(10, edge_factor=6, seed=4), 2), False),
        "kron-sym": (weighted(gt.generators.kronecker(10, edge_factor=8, seed=3), 1), True),
    }[request.param]
    d = tmp_path_factory.mktemp(request.param)
    csr_store = gt.build(edges, d / "csr.gt", symmetrize=symmetric, order="layered", chunk_edges=600, progress=False)
    assert csr_store.chunks().n_chunks >= 4
    return recoded(csr_store, d, FORMATS)


def test_the_store_is_a_renumbering_that_drops_no_edge(stores):
    g = stores["csr"]
    e = g.edges().astype(np.int64)
    level = dijkstra(stored_matrix(g), indices=0, unweighted=True)
    reached = g.layers[-1]
    assert np.isinf(level[reached:]).all()
    for i, (a, b) in enumerate(zip(g.layers[:-1], g.layers[1:])):
        assert (level[a:b] == i).all()
    kept = {tuple(x) for x in g.perm[e].tolist()}
    assert g.n_edges == len(kept) and g.root == int(g.perm[0])
    assert g.info()["layered"] == {"root": g.root, "layers": len(g.layers) - 1, "reached": int(reached)}


def input_matrix(g: gt.Graph) -> sp.csr_matrix:
    """The graph in the input's ids (the layered order renumbers), as results give them."""
    m = stored_matrix(g).tocoo()
    perm = g.perm.astype(np.int64)
    return sp.csr_matrix((m.data, (perm[m.row], perm[m.col])), shape=m.shape)


@pytest.mark.parametrize("fmt", FORMATS)
def test_bfs_and_sssp_from_the_root_follow_the_layers(stores, fmt):
    g = stores[fmt]
    m = input_matrix(g)
    b = gt.bfs(g, g.root, direction="push", device="cpu")
    assert b.stats["traversal"] == "layers" and b.stats["levels"] == len(g.layers) - 1
    hops = dijkstra(m, indices=g.root, unweighted=True)
    np.testing.assert_array_equal(b.distances, np.where(np.isinf(hops), -1, hops))
    gt.validate_bfs_tree(m.indptr, m.indices, g.root, b.distances, b.parents)
    s = gt.sssp(g, g.root, device="cpu")
    assert s.stats["traversal"] == "layers" and s.stats["handed_on"] >= 0
    check_sssp(g, m, g.root, s)
    assert gt.sssp(g, g.root, delta=1.0, device="cpu").stats["traversal"] == "layers"  # a delta is near-far's: the root's query still follows the layers


def test_auto_keeps_the_frontier_where_it_would_pull(stores, request):
    """Direction-optimising BFS pulls on a low-diameter graph's wide layers and reads fewer edges
    than pushing every layer: "auto" keeps it there (the switch fed the layers' sizes), and pushes
    by the layers where it would push throughout (a grid, a directed graph)."""
    from graphtier.algorithms.layered import first_pull

    g = stores["csr"]
    r = gt.bfs(g, g.root, device="cpu")
    layer = first_pull(g)
    if request.node.callspec.params["stores"] != "kron-sym":
        assert layer is None and r.stats["traversal"] == "layers"
    else:
        assert layer is not None and r.stats["traversal"].startswith(f"frontier (direction='auto' pulls from layer {layer}")
        assert "pull" in {it["direction"] for it in r.stats["iterations"]}
    np.testing.assert_array_equal(r.distances, gt.bfs(g, g.root, direction="push", device="cpu").distances)


def test_other_sources_say_they_take_the_frontier_runtime(stores):
    g = stores["ef"]
    other = int(g.perm[g.layers[1]])
    r = gt.bfs(g, other, device="cpu")
    assert r.stats["traversal"] == f"frontier (source {other} is not the layered store's root {g.root})"
    assert gt.sssp(g, other, device="cpu").stats["traversal"].startswith("frontier")
    if not g.directed:
        assert gt.bfs(g, g.root, direction="pull", device="cpu").stats["traversal"] == "frontier (direction='pull' reads in-edges; the layers push)"


def tight_budgets(g: gt.Graph, state_bytes: int) -> list[dict]:
    """Two chunk slots (copied, or read in place where a layer needs little), half the chunks, and
    everything read in place from a host tier of two slots."""
    n = g.chunks().n_chunks
    fixed = fixed_bytes(g.n_vertices, n) + sum(h.payload_start + 8 for h in g.chunks().headers(range(n)))
    slot = slot_bytes(g)
    return [{"device_memory": state_bytes + 2 * (fixed + k * slot), "host_memory": 2 * max(1, k) * slot, "zero_copy": z} for k, z in ((2, "never"), (2, "auto"), (n // 2, "auto"), (0, "always"))]


@pytest.mark.parametrize("fmt", ["csr", "cgr"])
def test_same_results_under_every_budget(stores, fmt):
    g = stores[fmt]
    for f in (lambda **b: gt.sssp(g, g.root, device="cpu", **b), lambda **b: gt.bfs(g, g.root, direction="push", device="cpu", **b)):
        resident = f()
        for budget in tight_budgets(g, resident.stats["state_bytes"]):
            r = f(**budget)
            assert r.stats["traversal"] == "layers"
            if isinstance(r, gt.BFSResult):  # layers whose lists one round holds share a push
                assert len(r.stats["iterations"]) <= len(g.layers) - 1
            np.testing.assert_array_equal(r.distances, resident.distances, err_msg=str(budget))
            if isinstance(r, gt.SSSPResult):
                np.testing.assert_array_equal(r.parents, resident.parents, err_msg=str(budget))
            assert r.stats["device_peak_bytes"] <= budget["device_memory"]


def test_sssp_keeps_the_edges_the_papers_construction_drops(tmp_path):
    """The digest's example B: the literal construction drops 2 -> 3 and finds d(3) = 20."""
    edges = np.array([(0, 1, 10.0), (0, 2, 1.0), (1, 3, 10.0), (2, 3, 1.0)])
    g = gt.build(edges, tmp_path / "b.gt", order="layered", root=0)
    r = gt.sssp(g, 0, device="cpu")
    assert r.stats["traversal"] == "layers" and r.distances.tolist() == [0, 10, 1, 2] and r.parents.tolist() == [0, 0, 0, 2]
    assert r.stats["handed_on"] == 0  # every shortest path follows the layers: the sweep was the run


def test_root_options_and_a_damaged_layers_array(tmp_path):
    with pytest.raises(ValueError, match="order='layered'"):
        gt.build(EXAMPLE, tmp_path / "x.gt", root=3)
    with pytest.raises(ValueError, match="root 99 is not a vertex"):
        gt.build(EXAMPLE + 1000, tmp_path / "y.gt", relabel=True, order="layered", root=99)
    g = gt.build(EXAMPLE + 1000, tmp_path / "z.gt", relabel=True, order="layered", root=1003)
    assert g.root == 1003 and g.layers.tolist() == [0, 1, 2, 3]  # 3 -> 4 -> 6; the rest unreached
    assert gt.bfs(g, 1003, device="cpu").distances.tolist() == [-1, -1, -1, 0, 1, -1, 2, -1]
    zarr.open_group(str(tmp_path / "z.gt"))["layers"][:] = np.array([0, 2, 1, 3, 5], np.uint64)
    with pytest.raises(CorruptChunkError, match="layer offsets"):
        _ = gt.open(tmp_path / "z.gt").layers


def test_small_layers_share_a_push(stores):
    from graphtier.algorithms.layered import LayeredBFS, push_ends, round_ends
    from graphtier.runtime import Config, Run, Span, Spans

    assert push_ends(np.array([True, True, False, True, True, True])).tolist() == [2, 2, 3, 6, 6, 6]
    # streamed: lists of layers 0-1 in chunk 0, 2 in chunks 0-2, 3-5 in chunk 2; rounds of 2 chunks
    layers, indptr = np.array([0, 1, 2, 3, 4, 5, 6]), np.array([0, 4, 8, 30, 31, 32, 33])
    furthest = round_ends(layers, indptr, 10, 2)
    assert furthest.tolist() == [2, 2, 2, 6, 6, 6] and push_ends(np.array([True, True, False, True, True, True]), furthest).tolist() == [2, 2, 3, 6, 6, 6]
    assert push_ends(np.ones(6, bool), round_ends(layers, indptr, 10, 1)).tolist() == [2, 2, 3, 6, 6, 6]  # layer 2 alone spans 3 chunks
    g = stores["csr"]
    alg = LayeredBFS(g)
    run = Run(alg, g, Config(device="cpu"))
    alg.start(run)
    alg.layers = np.array([0, 1, 3, 6, 10, 11, 12])
    alg.ends = push_ends(np.array([True, True, False, True, True, True]))
    assert alg.batch(run) == 3
    pushes = [alg.next_push(run) for _ in range(3)]
    assert isinstance(pushes[0], Spans) and (pushes[0].first, pushes[0].count) == (0, 2) and pushes[1] == Span(3, 6) and (pushes[2].first, pushes[2].count) == (3, 3)
    alg.next_layer = 4  # a sweep restarting inside a group starts its push there
    assert alg.batch(run) == 1 and alg.next_push(run).first == 4


def test_spans_need_a_functor_without_a_per_span_argument(stores):
    from graphtier.algorithms.bfs import BFS, VISIT
    from graphtier.runtime import Config, Run, Spans

    g = stores["csr"]
    run = Run(BFS(g, g.root, "push"), g, Config(device="cpu"))
    with pytest.raises(ValueError, match="spans=True"):
        run.advance(VISIT, run.state["dist"], run.state["parent"], 1, input=Spans(g.layers, g.layers, 0, 2))


def test_verify_checks_the_layers_are_the_bfs_levels(tmp_path):
    g = gt.build(EXAMPLE, tmp_path / "v.gt", order="layered", root=0)
    assert gt.verify(g).ok
    zarr.open_group(str(tmp_path / "v.gt"))["layers"][:] = np.array([0, 1, 2, 5, 7], np.uint64)  # rising, but not the levels
    report = gt.verify(gt.open(tmp_path / "v.gt"))
    assert not report.ok and "vertex 2 is in layer 2, but a BFS from the root puts it in layer 1" in str(report)


def test_split_over_devices_a_layer_a_push(stores):
    g = stores["csr"]
    one = gt.bfs(g, g.root, direction="push", device="cpu")
    two = gt.bfs(g, g.root, direction="push", device="cpu", devices=2)
    assert two.stats["traversal"] == "layers" and len(two.stats["iterations"]) == len(g.layers) - 1  # no group: parts merge after each layer
    np.testing.assert_array_equal(two.distances, one.distances)
