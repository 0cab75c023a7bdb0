"""SSSP, PageRank and connected components on the CPU backend against independent oracles
(scipy.sparse.csgraph's dijkstra and connected_components, networkx's pagerank): every format,
directed and symmetric graphs with isolated vertices, self-loops and weights, cnr-2000 with seeded
random weights, and the same results under budgets from a few chunk slots to all-resident."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import zarr
from scipy.sparse.csgraph import connected_components, dijkstra

import graphtier as gt
from graphtier.tiering.resident import unit_bytes
from graphtier.tiering.scheduler import fixed_bytes

from .conftest import csr_to_edges, recoded

FORMATS = ["csr", "log", "ef", "cgr"]
CHUNK_EDGES = 600


def weighted(edges: np.ndarray, seed: int, high: int = 64) -> np.ndarray:
    """Edges with random integer weights in [1, high), plus isolated vertices above the largest id."""
    w = np.random.default_rng(seed).integers(1, high, len(edges)).astype(np.float64)
    return np.column_stack([edges, w])


GRAPHS = {  # name: (weighted edges, symmetric)
    "kron-sym": lambda: (weighted(gt.generators.kronecker(10, edge_factor=8, seed=3), 1), True),
    "urand-dir": lambda: (weighted(gt.generators.urand(10, edge_factor=6, seed=4), 2), False),
    "grid-sym": lambda: (weighted(gt.generators.grid(24, 31), 3), True),
}


def stored_matrix(g: gt.Graph) -> sp.csr_matrix:
    """The graph as stored (store ids), weights as float64: the oracles' input."""
    e = g.edges()
    w = g.group["weights"][:].astype(np.float64) if g.weighted else np.ones(len(e))
    return sp.csr_matrix((w, (e[:, 0].astype(np.int64), e[:, 1].astype(np.int64))), shape=(g.n_vertices,) * 2)


@pytest.fixture(scope="module", params=sorted(GRAPHS))
def graphs(request, tmp_path_factory) -> dict[str, gt.Graph]:
    edges, symmetric = GRAPHS[request.param]()
    d = tmp_path_factory.mktemp(request.param)
    csr = gt.build(edges, d / "csr.gt", symmetrize=symmetric, reverse=not symmetric, chunk_edges=CHUNK_EDGES, progress=False)
    assert csr.weighted and (csr.chunks().n_chunks >= 4)
    return recoded(csr, d, FORMATS)


def check_sssp(g: gt.Graph, m: sp.csr_matrix, source: int, r: gt.SSSPResult) -> None:
    """Distances equal Dijkstra's in float64; each parent is a tight edge, and parents lead to the
    source (a shortest-path tree)."""
    np.testing.assert_array_equal(r.distances, dijkstra(m, indices=source))
    reached = np.flatnonzero(np.isfinite(r.distances))
    assert r.parents[source] == source and (r.parents[np.isinf(r.distances)] == -1).all()
    others = reached[reached != source]
    p = r.parents[others]
    np.testing.assert_array_equal(r.distances[p] + np.asarray(m[p, others]).ravel(), r.distances[others])
    hops = r.parents.copy()
    for _ in range(int(np.ceil(np.log2(max(len(reached), 2)))) + 1):
        hops[reached] = hops[hops[reached]]
    assert (hops[reached] == source).all()


def check_components(m: sp.csr_matrix, r: gt.ComponentsResult) -> None:
    n, labels = connected_components(m, directed=True, connection="weak")
    assert r.n_components == n
    np.testing.assert_array_equal(r.labels, labels)


def check_pagerank(m: sp.csr_matrix, r: gt.PageRankResult, weight) -> None:
    import networkx as nx

    ref = nx.pagerank(nx.from_scipy_sparse_array(m, create_using=nx.DiGraph), weight="weight" if weight else None)
    assert np.abs(r.ranks - np.array([ref[i] for i in range(m.shape[0])])).sum() < 1e-9


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_against_the_oracles(graphs, fmt):
    g = graphs[fmt]
    m = stored_matrix(g)
    for source in (0, int(np.argmax(np.diff(g.indptr())))):
        check_sssp(g, m, source, gt.sssp(g, source, device="cpu"))
    unit = gt.sssp(g, 1, weight=False, device="cpu")
    np.testing.assert_array_equal(unit.distances, dijkstra(m, indices=1, unweighted=True))
    bare = gt.sssp(g, 1, predecessors=False, device="cpu")  # distances only: no parent pass
    assert bare.parents is None and list(bare.to_pandas().columns) == ["vertex", "distance"]
    np.testing.assert_array_equal(bare.distances, dijkstra(m, indices=1))
    check_components(m, gt.connected_components(g, device="cpu"))
    for weight in (None, True):
        check_pagerank(m, gt.pagerank(g, weight=weight, device="cpu"), weight)


def slot_bytes(g: gt.Graph, reverse: bool = False) -> int:
    """The largest chunk with its weights: every slot of a weighted scheduler is this large."""
    chunks = g.chunks(reverse)
    return max(unit_bytes(h.total_bytes, h.payload_start, h.n_edges, True) for h in chunks.headers(range(chunks.n_chunks)))


@pytest.mark.parametrize("fmt", ["csr", "cgr"])
def test_same_results_under_every_budget(graphs, fmt):
    """From two chunk slots per graph read (and as many host slots) to all-resident, under every
    zero-copy policy: identical results, and the device budget kept."""
    g = graphs[fmt]
    source = int(np.argmax(np.diff(g.indptr())))
    runs = {
        "sssp": lambda **b: gt.sssp(g, source, device="cpu", **b),
        "cc": lambda **b: gt.connected_components(g, device="cpu", **b),
        "pagerank": lambda **b: gt.pagerank(g, weight=True, device="cpu", **b),
    }
    slot = max(slot_bytes(g), slot_bytes(g, True) if g.has_reverse else 0)
    n = g.chunks().n_chunks
    # per graph read: indptr, the round tables, the index arena (at most)
    fixed = fixed_bytes(g.n_vertices, n) + sum(h.payload_start + 8 for h in g.chunks().headers(range(n)))
    for name, f in runs.items():
        resident = f()
        values = resident.columns()
        for k, zero_copy in ((2, "never"), (2, "auto"), (n // 2, "auto"), (0, "always")):
            budget = {"device_memory": resident.stats["state_bytes"] + 2 * (fixed + k * slot), "host_memory": 2 * max(1, k) * slot, "zero_copy": zero_copy}
            r = f(**budget)
            for column, expected in values.items():
                np.testing.assert_array_equal(r.columns()[column], expected, err_msg=f"{name}: {column} under {budget}")
            assert r.stats["device_peak_bytes"] <= budget["device_memory"]


def test_queries_after_a_sweep_find_the_tiers_as_they_are(graphs):
    """A sweep (PageRank's gather, SSSP's parent pass) moves chunks in and out of the device tier of
    a scheduler that later queries reuse: each query still reads the chunks it names."""
    g = graphs["csr"]
    n = g.chunks().n_chunks
    per_graph = fixed_bytes(g.n_vertices, n) + (n // 3) * slot_bytes(g)  # out- and in-edges share it
    budget = {"device_memory": gt.sssp(g, 0, device="cpu").stats["state_bytes"] + 2 * per_graph, "host_memory": "1GiB"}
    expected = {s: gt.sssp(g, s, device="cpu").distances for s in (0, 1, 2)}
    for s in (0, 1, 2, 0):
        np.testing.assert_array_equal(gt.sssp(g, s, device="cpu", **budget).distances, expected[s])


def test_components_sample_the_kept_first_ids(graphs):
    """Out of core, CC's sampling takes each list's first ids from the sidecar the scheduler keeps
    once their chunks are validated: a second query reads no list to sample, same labels."""
    g = graphs["ef"]
    if g.directed:
        pytest.skip("a directed graph hooks every edge in one sweep, no sampling")
    budget = {"device_memory": "48MiB", "host_memory": "1GiB", "zero_copy": "always"}
    first, second = (gt.connected_components(g, device="cpu", **budget) for _ in range(2))
    check_components(stored_matrix(g), second)
    np.testing.assert_array_equal(first.labels, second.labels)
    sampled = [r.stats["iterations"][0] for r in (first, second)]
    assert sampled[0]["phase"] == "sample" and sampled[0]["bytes_zero_copy"] > 0 and sampled[1]["bytes_zero_copy"] == 0


def test_results_to_tables(graphs):
    g = graphs["csr"]
    for r, column in ((gt.sssp(g, 0, device="cpu"), "distance"), (gt.pagerank(g, device="cpu"), "rank"), (gt.connected_components(g, device="cpu"), "component")):
        df = r.to_pandas()
        assert list(df.columns[:2]) == ["vertex", column] and len(df) == g.n_vertices
        assert r.to_arrow().num_rows == g.n_vertices


def test_weights_checked_where_the_store_records_no_least_weight(tmp_path):
    g = gt.build(np.array([[0, 1, 2.0], [1, 2, 3.0]]), tmp_path / "g.gt", progress=False)
    g.attrs.pop("weights")  # as a store built before the facts were recorded: the weights are read
    assert gt.sssp(g, 0, device="cpu").distances.tolist() == [0, 2, 5]
    zarr.open_group(tmp_path / "g.gt", mode="r+")["weights"][1] = -3.0  # written by another tool
    g = gt.open(tmp_path / "g.gt")
    g.attrs.pop("weights")
    with pytest.raises(ValueError, match=r"non-negative weights; edge 1 -> 2 .* weighs -3"):
        gt.sssp(g, 0, device="cpu")


def test_zero_weights_still_give_a_tree(tmp_path):
    """Zero-weight edges tie distances; parents still lead to the source, without cycles."""
    edges = np.array([[0, 1, 1.0], [1, 2, 0.0], [2, 1, 0.0], [2, 3, 0.0], [3, 2, 0.0], [0, 3, 1.0]])
    g = gt.build(edges, tmp_path / "z.gt", progress=False)
    r = gt.sssp(g, 0, device="cpu")
    check_sssp(g, stored_matrix(g), 0, r)


def test_pagerank_personalization_and_convergence(graphs):
    import networkx as nx

    g = graphs["csr"]
    m = stored_matrix(g)
    personal = {0: 1.0, 5: 3.0}
    r = gt.pagerank(g, personalization=personal, device="cpu")
    ref = nx.pagerank(nx.from_scipy_sparse_array(m, create_using=nx.DiGraph), personalization=personal, weight=None)
    assert np.abs(r.ranks - np.array([ref[i] for i in range(g.n_vertices)])).sum() < 1e-9
    with pytest.raises(gt.ConvergenceError, match="did not converge"):
        gt.pagerank(g, max_iter=2, device="cpu")


def test_directed_pagerank_needs_the_reverse_graph(tmp_path):
    g = gt.build(np.array([[0, 1], [1, 2]]), tmp_path / "d.gt", progress=False)
    with pytest.raises(ValueError, match="reverse graph"):
        gt.pagerank(g, device="cpu")


@pytest.fixture(scope="module")
def cnr(tmp_path_factory, cnr_csr) -> dict[str, gt.Graph]:
    indptr, indices = cnr_csr
    edges = weighted(csr_to_edges(indptr, indices), 2000)
    d = tmp_path_factory.mktemp("cnr-weighted")
    csr = gt.build(edges, d / "csr.gt", reverse=True, chunk_edges=1 << 18, progress=False)
    return recoded(csr, d, ("csr", "ef"))


@pytest.mark.parametrize("fmt", ["csr", "ef"])
def test_cnr2000_weighted(cnr, fmt):
    g = cnr[fmt]
    m = stored_matrix(g)
    check_sssp(g, m, 100000, gt.sssp(g, 100000, device="cpu"))
    check_components(m, gt.connected_components(g, device="cpu"))


def test_config_is_one_picklable_value_for_every_algorithm(graphs):
    import pickle

    config = gt.Config(device="cpu", device_memory="64MiB", zero_copy="never")
    assert pickle.loads(pickle.dumps(config)) == config
    g = graphs["csr"]
    np.testing.assert_array_equal(gt.sssp(g, 0, config=config).distances, gt.sssp(g, 0, device="cpu").distances)
    assert gt.connected_components(g, config=config, zero_copy="auto").stats["device"] == "cpu"
    with pytest.raises(TypeError, match="unknown option 'devcie'"):
        gt.pagerank(g, devcie="cpu")
    with pytest.raises(ValueError, match="zero_copy must be one of"):
        gt.Config(zero_copy="sometimes")
    with pytest.raises(ValueError, match="output must be one of"):
        gt.Config(output="gpu")
    with pytest.raises(ValueError, match="output='device' leaves results on one GPU"):
        gt.Config(output="device", devices=2)
    with pytest.raises(ValueError, match="this run is on the CPU"):
        gt.bfs(g, 0, device="cpu", output="device")
