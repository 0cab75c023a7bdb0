"""BFS from many sources at once (``gt.bfs(g, sources=[...])``, algorithms/msbfs.py): each source's
distances equal scipy's, on symmetric and directed graphs with isolated vertices, repeated
sources and more sources than one pass holds, pushing, pulling and switching, in memory and under
budgets that stream the graph; what it does not do, it says."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

import graphtier as gt
from graphtier.algorithms.msbfs import ManySources
from graphtier.runtime.run import state_of

from .conftest import reference_csr


@pytest.fixture(scope="module")
def graphs(tmp_path_factory) -> dict[str, tuple[gt.Graph, sp.csr_matrix]]:
    d = tmp_path_factory.mktemp("msbfs")
    sym = gt.generators.kronecker(11, edge_factor=8, seed=5)  # Kronecker leaves vertices isolated
    directed = gt.generators.urand(11, edge_factor=3, seed=6)
    built = {"kron-sym-ef": (sym, True, "ef", 2048), "urand-dir-csr": (directed, False, "csr", 1024)}
    graphs = {name: gt.build(e, d / f"{name}.gt", format=fmt, symmetrize=symmetric, chunk_edges=ce) for name, (e, symmetric, fmt, ce) in built.items()}
    return {name: (g, reference_csr(built[name][0], g.n_vertices, symmetrize=built[name][1])) for name, g in graphs.items()}


def scipy_distances(m: sp.csr_matrix, sources) -> np.ndarray:
    d = shortest_path(m, unweighted=True, indices=sources)
    return np.where(np.isinf(d), -1, d).astype(np.int32)


def sources_of(g: gt.Graph, count: int) -> list[int]:
    """``count`` seeded sources, an isolated vertex and a repeat among them."""
    rng = np.random.default_rng(7)
    isolated = int(np.flatnonzero(np.diff(g.indptr()) == 0)[0])
    picked = [int(v) for v in rng.integers(0, g.n_vertices, count - 2)]
    return [picked[0], isolated, *picked]


@pytest.mark.parametrize("name, direction", [("kron-sym-ef", "auto"), ("kron-sym-ef", "push"), ("kron-sym-ef", "pull"), ("urand-dir-csr", "auto")])
def test_every_source_equals_scipy(graphs, name, direction):
    g, m = graphs[name]
    sources = sources_of(g, 64 + 9)  # two passes
    results = gt.bfs(g, sources=sources, direction=direction, device="cpu")
    assert [r.source for r in results] == sources and all(r.parents is None for r in results)
    np.testing.assert_array_equal(np.stack([r.distances for r in results]), scipy_distances(m, sources))
    assert [r.stats["sources"] for r in (results[0], results[-1])] == [64, 9]
    assert [r.stats["reached"] for r in (results[0], results[-1])] == [sum(int((r.distances >= 0).sum()) for r in part) for part in (results[:64], results[64:])]
    directions = {it["direction"] for it in results[0].stats["iterations"]}
    assert directions == ({"push", "pull"} if direction == "auto" and not g.directed else {"push"} if direction != "pull" else {"pull"})


@pytest.mark.parametrize("name", ["kron-sym-ef", "urand-dir-csr"])
def test_streamed_passes_read_each_chunk_once(graphs, name):
    """Under a device budget that streams the chunks and a host budget half of them, the results
    are the same, and a pass reads no chunk from the store more than once a level; where 64-bit
    words would take most of the chunks' room, passes hold 32 sources, else 64."""
    g, m = graphs[name]
    sources = sources_of(g, 72)
    wide, narrow = (state_of(ManySources(g, np.array(sources[:1]), w), g, "cpu")[1] for w in (np.uint64, np.uint32))
    chunks = sum(g.chunk_sizes())
    for room, per_pass in ((3 * (wide - narrow) // 2, 32), (6 * (wide - narrow), 64)):
        results = gt.bfs(g, sources=sources, device="cpu", device_memory=narrow + room, host_memory=chunks // 2)
        stats = results[0].stats
        assert [r.stats["sources"] for r in (results[0], results[-1])] == [per_pass, 72 % per_pass]
        assert ("pull" in {it["direction"] for it in stats["iterations"]}) == (not g.directed)
        assert stats["rounds"] > 0 and 0 < stats["bytes_store_read"] <= stats["levels"] * (chunks + 4 * len(g.chunk_sizes()))
        np.testing.assert_array_equal(np.stack([r.distances for r in results]), scipy_distances(m, sources))


def test_deep_levels_in_a_reordered_store(tmp_path):
    """Levels past 255 (the host's bytes per level widen) and a store whose build renumbered the
    vertices (rows come back in the input's order of ids)."""
    edges = gt.generators.grid(2, 300)
    g = gt.build(edges, tmp_path / "grid.gt", format="csr", order="degree", chunk_edges=256, progress=False)
    assert g.original_order is not None
    sources = [0, 599, 300, 0]
    results = gt.bfs(g, sources=sources, device="cpu")
    assert max(int(r.distances.max()) for r in results) > 255
    np.testing.assert_array_equal(np.stack([r.distances for r in results]), scipy_distances(reference_csr(edges, g.n_vertices), sources))


def test_what_it_does_not_do(graphs):
    g, _ = graphs["kron-sym-ef"]
    with pytest.raises(TypeError, match="not both"):
        gt.bfs(g, 0, sources=[1])
    with pytest.raises(TypeError, match="needs a source"):
        gt.bfs(g)
    with pytest.raises(ValueError, match="needs the reverse graph"):
        gt.bfs(graphs["urand-dir-csr"][0], sources=[0], direction="pull", device="cpu")
    with pytest.raises(ValueError, match="split over several devices"):
        gt.bfs(g, sources=[0], device="cpu", devices=2)
    with pytest.raises(ValueError, match="not in the graph"):
        gt.bfs(g, sources=[0, g.n_vertices], device="cpu")
    assert gt.bfs(g, sources=[], device="cpu") == []
