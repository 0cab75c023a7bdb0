"""Minimum spanning forests on the CPU backend against scipy.sparse.csgraph's and networkx's: every
format, Kronecker, urand and grid graphs with isolated vertices and self-loops; the exact edges of
scipy's forest where weights are distinct; with many ties, the same edges under every format,
budget and vertex order; negative weights; refusals; the command line."""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
import zarr
from scipy.sparse.csgraph import connected_components
from scipy.sparse.csgraph import minimum_spanning_tree as scipy_mst

import graphtier as gt
from graphtier.algorithms.mst import edge_order
from graphtier.cli import main
from graphtier.tiering.scheduler import fixed_bytes

from .conftest import recoded
from .test_algorithms import slot_bytes, stored_matrix

FORMATS = ["csr", "log", "ef", "cgr"]
CHUNK_EDGES = 600


def with_extras(edges: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted edges plus self-loops on a few vertices and, past the largest id, isolated vertices
    (the last one has only a self-loop)."""
    n = int(edges.max()) + 1
    loops = np.array([[0, 0], [5, 5], [n + 4, n + 4]])
    return np.column_stack([np.concatenate([edges, loops]), np.concatenate([weights, [3.0, 1.0, 2.0]])])


def random_weights(edges: np.ndarray, seed: int, high: int = 64) -> np.ndarray:
    return np.random.default_rng(seed).integers(1, high, len(edges)).astype(np.float64)


def edge_set(r: gt.MSTResult) -> set[tuple[int, int]]:
    return set(zip(r.sources.tolist(), r.destinations.tolist()))


def check_forest(m: sp.csr_matrix, r: gt.MSTResult) -> None:
    """A spanning forest of m (one tree per component, so acyclic) made of m's edges with their
    weights, as light as scipy's and networkx's."""
    n = m.shape[0]
    k, _ = connected_components(m, directed=False)
    assert r.n_trees == k and len(r.sources) == n - k
    assert (r.sources < r.destinations).all() and np.all(np.diff(r.sources) >= 0)
    np.testing.assert_array_equal(np.asarray(m[r.sources, r.destinations]).ravel(), r.weights)
    forest = sp.coo_matrix((np.ones(len(r.sources)), (r.sources, r.destinations)), shape=(n, n))
    assert connected_components(forest, directed=False)[0] == k
    assert r.total_weight == r.weights.sum() == scipy_mst(m).sum()
    tree = nx.minimum_spanning_tree(nx.from_scipy_sparse_array(m))
    assert r.total_weight == tree.size(weight="weight")


@pytest.fixture(scope="module")
def kron(tmp_path_factory) -> dict[str, gt.Graph]:
    edges = gt.generators.kronecker(10, edge_factor=8, seed=3)
    d = tmp_path_factory.mktemp("kron")
    csr = gt.build(with_extras(edges, random_weights(edges, 1)), d / "csr.gt", symmetrize=True, chunk_edges=CHUNK_EDGES, progress=False)
    assert csr.chunks().n_chunks >= 4
    return recoded(csr, d, FORMATS)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_against_scipy_and_networkx(kron, fmt):
    g = kron[fmt]
    r = gt.minimum_spanning_tree(g, device="cpu")
    check_forest(stored_matrix(g), r)
    assert r.stats["device"] == "cpu" and r.stats["n_trees"] == r.n_trees
    expected = gt.minimum_spanning_tree(kron["csr"], device="cpu")
    for column in ("sources", "destinations", "weights"):
        np.testing.assert_array_equal(getattr(r, column), getattr(expected, column))


@pytest.mark.parametrize("name", ["urand", "grid"])
def test_urand_and_grid(tmp_path, name):
    edges = gt.generators.urand(10, edge_factor=4, seed=4) if name == "urand" else gt.generators.grid(20, 31)
    g = gt.build(with_extras(edges, random_weights(edges, 2)), tmp_path / "g.gt", symmetrize=True, chunk_edges=CHUNK_EDGES, format="ef", progress=False)
    check_forest(stored_matrix(g), gt.minimum_spanning_tree(g, device="cpu"))


@pytest.mark.parametrize("n", [1, 2, 300, 70_000, 2**32])
def test_edge_order_sorts_as_lexsort(n):
    """The forest's edges are put in (lo, hi) order by a radix sort whose passes depend on the id
    width: numpy's lexsort is the oracle, ties (equal pairs) and one lo holding many edges included."""
    rng = np.random.default_rng(n)
    lo = rng.integers(0, n, 5000)
    hi = rng.integers(0, n, 5000)
    lo[:400], hi[400:450] = lo[0], hi[450]
    order = edge_order(lo, hi, n)
    expected = np.lexsort((hi, lo))
    np.testing.assert_array_equal(lo[order], lo[expected])
    np.testing.assert_array_equal(hi[order], hi[expected])
    assert np.array_equal(np.sort(order), np.arange(len(lo)))


def test_distinct_weights_give_scipys_edges(tmp_path):
    pairs = np.sort(gt.generators.kronecker(10, edge_factor=8, seed=5), axis=1)
    pairs = np.unique(pairs[pairs[:, 0] != pairs[:, 1]], axis=0)
    weights = np.random.default_rng(6).permutation(len(pairs)) + 1.0
    g = gt.build(np.column_stack([pairs, weights]), tmp_path / "g.gt", symmetrize=True, chunk_edges=CHUNK_EDGES, format="cgr", progress=False)
    m = stored_matrix(g)
    r = gt.minimum_spanning_tree(g, device="cpu")
    check_forest(m, r)
    expected = sp.triu(scipy_mst(m) + scipy_mst(m).T).tocoo()
    assert edge_set(r) == set(zip(expected.row.tolist(), expected.col.tolist()))


@pytest.fixture(scope="module")
def ties(tmp_path_factory) -> dict[str, gt.Graph]:
    """Weights 1 and 2 only: many minimum forests, one chosen. The same input stored in natural and
    degree order, and relabelled from sparse ids."""
    edges = gt.generators.kronecker(10, edge_factor=8, seed=7)
    weighted = with_extras(edges, random_weights(edges, 8, high=3))
    d = tmp_path_factory.mktemp("ties")
    build = lambda name, source, **kw: gt.build(source, d / f"{name}.gt", symmetrize=True, chunk_edges=CHUNK_EDGES, progress=False, **kw)
    sparse = weighted.copy()
    sparse[:, :2] = sparse[:, :2] * 1000 + 7
    return {"csr": build("csr", weighted), "degree": build("degree", weighted, order="degree", format="ef"), "relabelled": build("relabelled", sparse, relabel=True)}


def test_ties_break_alike_under_every_budget_and_order(ties):
    g = ties["csr"]
    resident = gt.minimum_spanning_tree(g, device="cpu")
    check_forest(stored_matrix(g), resident)
    expected = resident.columns()
    n = g.chunks().n_chunks
    fixed = fixed_bytes(g.n_vertices, n) + sum(h.payload_start + 8 for h in g.chunks().headers(range(n)))
    for k, zero_copy in ((1, "never"), (2, "auto"), (n // 2, "auto"), (0, "always")):
        budget = {"device_memory": resident.stats["state_bytes"] + fixed + k * slot_bytes(g), "host_memory": max(1, k) * slot_bytes(g), "zero_copy": zero_copy}
        r = gt.minimum_spanning_tree(g, device="cpu", **budget)
        assert r.stats["device_peak_bytes"] <= budget["device_memory"] and r.stats["bytes_store_read"] > 0
        for column, values in expected.items():
            np.testing.assert_array_equal(r.columns()[column], values, err_msg=f"{column} under {budget}")
    reordered = gt.minimum_spanning_tree(ties["degree"], device="cpu")  # endpoints ranked by the input's ids
    assert ties["degree"].perm is not None and edge_set(reordered) == edge_set(resident)
    relabelled = gt.minimum_spanning_tree(ties["relabelled"], device="cpu").to_pandas()
    np.testing.assert_array_equal(relabelled["source"], expected["source"] * 1000 + 7)
    np.testing.assert_array_equal(relabelled["destination"], expected["destination"] * 1000 + 7)
    np.testing.assert_array_equal(relabelled["weight"], expected["weight"])


def test_unweighted(ties, tmp_path):
    g = ties["csr"]
    r = gt.minimum_spanning_tree(g, weight=False, device="cpu")
    assert (r.weights == 1).all() and r.total_weight == g.n_vertices - r.n_trees
    check_forest(stored_matrix(g).astype(bool).astype(np.float64), r)
    bare = gt.build(g.edges(), tmp_path / "bare.gt", symmetrize=True, progress=False)  # no weights stored
    assert not bare.weighted and edge_set(gt.minimum_spanning_tree(bare, device="cpu")) == edge_set(r)


def test_negative_weights(tmp_path):
    """Builds refuse negative weights; a store written by another tool may hold them, and they
    order as numbers (scipy's forest is then lighter than any of positive weights)."""
    edges = gt.generators.grid(12, 9)
    g = gt.build(np.column_stack([edges, np.ones(len(edges))]), tmp_path / "g.gt", symmetrize=True, chunk_edges=64, progress=False)
    e = g.edges().astype(np.int64)
    lo, hi = e.min(axis=1), e.max(axis=1)
    w = ((lo * 7 + hi * 3) % 11 - 6.5).astype(np.float32)  # symmetric, never 0 (scipy's no edge)
    group = zarr.open_group(tmp_path / "g.gt", mode="r+")
    group["weights"][:] = w
    group.attrs.update(weights={"min": float(w.min()), "max": float(w.max()), "mean": float(w.mean())})
    g = gt.open(tmp_path / "g.gt")
    r = gt.minimum_spanning_tree(g, device="cpu")
    assert r.weights.min() < 0
    check_forest(stored_matrix(g), r)


def test_zero_weights_are_edges(tmp_path):
    """scipy reads a zero entry as no edge; here an edge of weight 0 is an edge."""
    g = gt.build(np.array([[0, 1, 0.0], [1, 2, 5.0], [0, 2, 7.0]]), tmp_path / "z.gt", symmetrize=True, progress=False)
    r = gt.minimum_spanning_tree(g, device="cpu")
    assert edge_set(r) == {(0, 1), (1, 2)} and r.weights.tolist() == [0.0, 5.0] and r.n_trees == 1


def test_refusals(tmp_path):
    directed = gt.build(np.array([[0, 1, 1.0], [1, 2, 2.0]]), tmp_path / "d.gt", progress=False)
    with pytest.raises(ValueError, match=r"undirected graph; .* is directed \(build it with symmetrize=True, or graphtier convert --symmetrize\)"):
        gt.minimum_spanning_tree(directed, device="cpu")
    gt.build(np.array([[0, 1, 1.0], [1, 2, 2.0]]), tmp_path / "nan.gt", symmetrize=True, progress=False)
    zarr.open_group(tmp_path / "nan.gt", mode="r+")["weights"][1] = np.nan  # written by another tool
    with pytest.raises(gt.CorruptChunkError, match="weights chunk 0: weight of edge 1 is nan"):
        gt.minimum_spanning_tree(gt.open(tmp_path / "nan.gt"), device="cpu")
    assert gt.minimum_spanning_tree(gt.open(tmp_path / "nan.gt"), weight=False, device="cpu").n_trees == 1


def test_tables_and_a_graph_of_self_loops(kron, tmp_path):
    r = gt.minimum_spanning_tree(kron["csr"], device="cpu")
    assert list(r.to_pandas().columns) == ["source", "destination", "weight"] and len(r.to_pandas()) == len(r.sources)
    assert r.to_arrow().num_rows == len(r.sources)
    loops = gt.build(np.array([[0, 0, 1.0], [3, 3, 2.0]]), tmp_path / "loops.gt", symmetrize=True, progress=False)
    r = gt.minimum_spanning_tree(loops, device="cpu")
    assert r.n_trees == 4 and len(r.sources) == 0 and r.total_weight == 0


def test_cli(kron, tmp_path, capsys):
    store = kron["ef"].location
    expected = gt.minimum_spanning_tree(kron["ef"], device="cpu")
    code = main(["mst", store, "--device", "cpu", "--json", "--out", str(tmp_path / "f.parquet")])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["total_weight"] == expected.total_weight and out["n_trees"] == expected.n_trees and out["edges"] == len(expected.sources)
    import pandas as pd

    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "f.parquet"), expected.to_pandas())
    assert main(["mst", store, "--device", "cpu", "--unweighted", "--out", str(tmp_path / "f.csv")]) == 0
    assert "spanning forest" in capsys.readouterr().out and pd.read_csv(tmp_path / "f.csv")["weight"].eq(1).all()
    assert main(["mst", store, "--device", "cpu", "--out", str(tmp_path / "f.npy")]) == 0
    saved = np.load(tmp_path / "f.npy")
    assert saved.dtype.names == ("source", "destination", "weight") and (saved["weight"] == expected.weights).all()
    directed = gt.build(np.array([[0, 1]]), tmp_path / "d.gt", progress=False)
    code = main(["mst", directed.location, "--device", "cpu"])
    assert code == 2 and "symmetrize=True" in capsys.readouterr().err
