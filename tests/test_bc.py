"""Betweenness centrality on the CPU backend against networkx.betweenness_centrality: every format,
symmetric (undirected) and directed stores with isolated vertices and self-loops, normalised and
not, with endpoints, k sources sampled as networkx samples them (same seed, same sources) or
given; the same results under budgets from two chunk slots to all-resident; the CLI."""

from __future__ import annotations

import json
import random

import networkx as nx
import numpy as np
import pytest

import graphtier as gt
from graphtier.cli import main
from graphtier.tiering.scheduler import fixed_bytes

from .conftest import recoded
from .test_algorithms import slot_bytes

FORMATS = ["csr", "log", "ef", "cgr"]
CHUNK_EDGES = 32
RTOL = 1e-9  # dependencies are float sums added in another order than networkx's


def with_extras(edges: np.ndarray) -> np.ndarray:
    """Edges plus a self-loop on a vertex of the graph, and above the largest id a vertex with only
    a self-loop and, below it, one without any edge."""
    top = int(edges.max())
    return np.concatenate([edges, [[1, 1], [top + 2, top + 2]]]).astype(np.int64)


GRAPHS = {  # name: (edges, symmetric)
    "kron-sym": lambda: (with_extras(gt.generators.kronecker(6, edge_factor=4, seed=3)), True),
    "urand-dir": lambda: (with_extras(gt.generators.urand(6, edge_factor=3, seed=4)), False),
    "grid-sym": lambda: (gt.generators.grid(5, 7), True),
}


def networkx_graph(g: gt.Graph) -> nx.Graph:
    """The store as networkx sees it, nodes added 0..n-1 first (so sampling draws the same ones)."""
    G = nx.DiGraph() if g.directed else nx.Graph()
    G.add_nodes_from(range(g.n_vertices))
    G.add_edges_from(g.edges().tolist())
    return G


def oracle(G: nx.Graph, **kw) -> np.ndarray:
    ref = nx.betweenness_centrality(G, **kw)
    return np.array([ref[v] for v in range(len(G))])


@pytest.fixture(scope="module", params=sorted(GRAPHS))
def graphs(request, tmp_path_factory) -> dict[str, gt.Graph]:
    edges, symmetric = GRAPHS[request.param]()
    d = tmp_path_factory.mktemp(request.param)
    csr = gt.build(edges, d / "csr.gt", symmetrize=symmetric, reverse=not symmetric, chunk_edges=CHUNK_EDGES, progress=False)
    assert csr.chunks().n_chunks >= 4
    return recoded(csr, d, FORMATS)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_against_networkx(graphs, fmt):
    """Every format, k sources sampled: networkx's very sources, and its values (every vertex as a
    source on csr, below: the runs are as long as the sources are many)."""
    g = graphs[fmt]
    G = networkx_graph(g)
    sampled = gt.betweenness_centrality(g, k=6, seed=11, device="cpu")
    assert sampled.sources.tolist() == random.Random(11).sample(list(G), 6)
    assert sampled.stats["batch"] == (1 if g.directed else 6)  # the CPU's default: batches where levels pull
    np.testing.assert_allclose(sampled.centrality, oracle(G, k=6, seed=11), rtol=RTOL, atol=0)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"endpoints": True, "normalized": False},
        {"k": 5, "seed": 2, "normalized": False},
        {"k": 5, "seed": 2, "endpoints": True},
        {"k": 1, "seed": 3},  # a lone sampled source: networkx's NaN for it
    ],
)
def test_normalisation_and_endpoints(graphs, options):
    g = graphs["csr"]
    r = gt.betweenness_centrality(g, device="cpu", **options)
    np.testing.assert_allclose(r.centrality, oracle(networkx_graph(g), **options), rtol=RTOL, atol=0, equal_nan=True)


def test_given_sources_and_every_vertex(graphs):
    """``sources`` scale as networkx scales the same sources sampled; all of them in any order are
    every vertex (networkx's k == n), and k == n is k=None."""
    g = graphs["csr"]
    n = g.n_vertices
    picked = random.Random(5).sample(range(n), 6)
    given = gt.betweenness_centrality(g, sources=picked, device="cpu")
    np.testing.assert_array_equal(given.centrality, gt.betweenness_centrality(g, k=6, seed=5, device="cpu").centrality)
    everyone = gt.betweenness_centrality(g, sources=list(range(n))[::-1], device="cpu").centrality
    np.testing.assert_allclose(everyone, oracle(networkx_graph(g)), rtol=RTOL, atol=0)
    np.testing.assert_allclose(gt.betweenness_centrality(g, k=n, seed=1, device="cpu").centrality, everyone, rtol=RTOL, atol=0)


def test_every_batch_width_gives_the_same_bits(graphs):
    """A batch's sources each sum in lanes of their own, and add up in source order: one source
    per pass, a few, or every vertex at once give the same bits (with endpoints, so the sources'
    own counts add in too), whichever levels push or pull; the width is what the stats say."""
    g = graphs["ef"]
    widths, directions = {}, set()
    for batch in (1, 3, 64):
        r = gt.betweenness_centrality(g, endpoints=True, batch=batch, device="cpu")
        assert r.stats["batch"] == min(batch, g.n_vertices)
        widths[batch] = r.centrality
        directions |= {it["direction"] for it in r.stats["iterations"] if it["phase"] == "forward"}
    assert directions == ({"push"} if g.directed else {"push", "pull"})  # pulls only where in-edges are the out-edges
    np.testing.assert_array_equal(widths[1], widths[3])
    np.testing.assert_array_equal(widths[1], widths[64])
    with pytest.raises(ValueError, match="batch"):
        gt.betweenness_centrality(g, batch=65, device="cpu")


def test_refusals(graphs):
    g = graphs["csr"]
    for bad in ({"k": 0}, {"k": g.n_vertices + 1}, {"k": 2, "sources": [0, 1]}, {"sources": [3, 3]}, {"sources": [g.n_vertices]}):
        with pytest.raises(ValueError):
            gt.betweenness_centrality(g, device="cpu", **bad)


@pytest.fixture(scope="module", params=sorted(GRAPHS))
def weighted(request, tmp_path_factory) -> dict[str, gt.Graph]:
    """The graphs with seeded integer weights in [1, 5) (many ties of equal-length paths)."""
    edges, symmetric = GRAPHS[request.param]()
    d = tmp_path_factory.mktemp(f"w-{request.param}")
    w = np.random.default_rng(5).integers(1, 5, len(edges)).astype(np.float64)
    csr = gt.build(np.column_stack([edges, w]), d / "csr.gt", symmetrize=symmetric, reverse=not symmetric, chunk_edges=CHUNK_EDGES, progress=False)
    return recoded(csr, d, FORMATS)


def weighted_networkx(g: gt.Graph) -> nx.Graph:
    G = networkx_graph(g)
    for (a, b), w in zip(g.edges().tolist(), g.group["weights"][:].tolist(), strict=True):
        G[a][b]["weight"] = w
    return G


@pytest.mark.parametrize("fmt", FORMATS)
def test_weighted_against_networkx(weighted, fmt):
    """Weighted shortest paths (networkx's ``weight="weight"``), sampled and every source, with
    endpoints and unnormalised; under two chunk slots and in place the same values."""
    g = weighted[fmt]
    G = weighted_networkx(g)
    for kw in ({}, {"k": 7, "seed": 2, "endpoints": True}, {"normalized": False}):
        r = gt.betweenness_centrality(g, weight=True, device="cpu", **kw)
        assert r.stats["weighted"]
        np.testing.assert_allclose(r.centrality, oracle(G, weight="weight", **kw), rtol=RTOL, atol=1e-15, err_msg=str(kw))
    resident = gt.betweenness_centrality(g, k=7, seed=2, weight="weight", device="cpu")
    n = g.chunks().n_chunks
    fixed = fixed_bytes(g.n_vertices, n) + sum(h.payload_start + 8 for h in g.chunks().headers(range(n)))
    for slots, zero_copy in ((2, "never"), (0, "always")):
        budget = {"device_memory": resident.stats["state_bytes"] + fixed + slots * slot_bytes(g), "zero_copy": zero_copy}
        r = gt.betweenness_centrality(g, k=7, seed=2, weight=True, device="cpu", **budget)
        np.testing.assert_allclose(r.centrality, resident.centrality, rtol=1e-12, atol=0, err_msg=f"under {budget}")
        assert r.stats["device_peak_bytes"] <= budget["device_memory"]
    assert budget["device_memory"] < resident.stats["device_peak_bytes"], "the graph fits every budget, nothing is read in place"


def test_weights_refused_and_absent(tmp_path, graphs):
    """A zero weight is refused, naming the edge; a store without weights weighs 1 an edge."""
    g = gt.build(np.array([[0, 1, 2.0], [1, 2, 0.0], [2, 3, 1.0]]), tmp_path / "zero.gt", progress=False)
    with pytest.raises(ValueError, match=r"needs positive weights; edge 1 -> 2 \(edge 1 of .*zero\.gt\) weighs 0"):
        gt.betweenness_centrality(g, weight=True, device="cpu")
    assert main(["bc", g.location, "--weighted", "--device", "cpu"]) == 2
    out = tmp_path / "bc.npy"
    assert main(["bc", g.location, "--device", "cpu", "--out", str(out)]) == 0  # unit weights: the zero is not read
    np.testing.assert_array_equal(np.load(out), gt.betweenness_centrality(g, device="cpu").centrality)
    plain = graphs["csr"]
    np.testing.assert_array_equal(gt.betweenness_centrality(plain, weight=True, device="cpu").centrality, gt.betweenness_centrality(plain, device="cpu").centrality)


def test_directed_without_reverse_and_reordered(tmp_path):
    """Backward sweeps gather over out-edges: a directed store needs no reverse graph. A
    degree-ordered store samples the same sources (the input's ids) and gives the same values."""
    edges, _ = GRAPHS["urand-dir"]()
    plain = gt.build(edges, tmp_path / "plain.gt", chunk_edges=CHUNK_EDGES, progress=False)
    ordered = gt.build(edges, tmp_path / "ordered.gt", order="degree", chunk_edges=CHUNK_EDGES, progress=False)
    assert not plain.has_reverse and ordered.perm is not None
    G = networkx_graph(plain)
    for kw in ({}, {"k": 9, "seed": 7, "endpoints": True}):
        expected = oracle(G, **kw)
        for g in (plain, ordered):
            np.testing.assert_allclose(gt.betweenness_centrality(g, device="cpu", **kw).centrality, expected, rtol=RTOL, atol=0)


def test_relabelled_ids(tmp_path):
    """Arbitrary ids: sources sampled from the ids ascending, as networkx samples a graph whose
    nodes were added in that order; rows follow the ids."""
    edges = GRAPHS["kron-sym"]()[0] * 1000 + 7
    g = gt.build(edges, tmp_path / "ids.gt", relabel=True, symmetrize=True, chunk_edges=CHUNK_EDGES, progress=False)
    G = nx.Graph()
    G.add_nodes_from(sorted(set(edges.ravel().tolist())))
    G.add_edges_from(edges.tolist())
    r = gt.betweenness_centrality(g, k=5, seed=1, endpoints=True, device="cpu")
    ref = nx.betweenness_centrality(G, k=5, seed=1, endpoints=True)
    assert r.sources.tolist() == random.Random(1).sample(list(G), 5)
    np.testing.assert_allclose(r.centrality, [ref[int(v)] for v in r.ids], rtol=RTOL, atol=0)
    assert r.to_pandas()["vertex"].tolist() == r.ids.tolist()


@pytest.mark.parametrize("fmt", ["csr", "cgr"])
def test_same_results_under_every_budget(graphs, fmt):
    """From two chunk slots to all-resident, under every zero-copy policy: the same values (a list's
    chunk shares are added in the order its chunks arrive, which only changes the last bits of
    lists over three chunks or more), and the device budget kept."""
    g = graphs[fmt]
    resident = gt.betweenness_centrality(g, k=6, seed=1, batch=3, device="cpu")  # two batches, their lanes read out of core below
    n = g.chunks().n_chunks
    fixed = fixed_bytes(g.n_vertices, n) + sum(h.payload_start + 8 for h in g.chunks().headers(range(n)))
    slot = slot_bytes(g)
    for k, zero_copy in ((2, "never"), (2, "auto"), (n // 2, "auto"), (0, "always")):
        budget = {"device_memory": resident.stats["state_bytes"] + fixed + k * slot, "host_memory": 2 * max(1, k) * slot, "zero_copy": zero_copy}
        r = gt.betweenness_centrality(g, k=6, seed=1, batch=3, device="cpu", **budget)
        np.testing.assert_allclose(r.centrality, resident.centrality, rtol=1e-12, atol=0, err_msg=f"under {budget}")
        assert r.stats["device_peak_bytes"] <= budget["device_memory"]


def test_tables_and_cli(graphs, tmp_path, capsys):
    g = graphs["csr"]
    r = gt.betweenness_centrality(g, k=4, seed=9, normalized=False, endpoints=True, device="cpu")
    assert list(r.to_pandas().columns) == ["vertex", "centrality"] and r.to_arrow().num_rows == g.n_vertices
    out = tmp_path / "bc.npy"
    assert main(["bc", g.location, "-k", "4", "--seed", "9", "--no-normalized", "--endpoints", "--device", "cpu", "--json", "--out", str(out)]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["sources"] == 4 and payload["top_vertex"] == int(np.argmax(r.centrality))
    np.testing.assert_array_equal(np.load(out), r.centrality)
    assert main(["bc", g.location, "-k", "0", "--device", "cpu"]) == 2
    assert "k must be" in capsys.readouterr().err
