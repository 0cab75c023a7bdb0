"""Maximal independent set and greedy colouring on the CPU backend against independent oracles:
independence, maximality and proper colourings checked on the adjacency (scipy), and the exact
greedy results in the documented priority order (a loop here, networkx's greedy_color); every
format, symmetric and directed-with-reverse graphs with isolated vertices and self-loops, a clique
wider than one 64-colour window, the same results under budgets from a few chunk slots to
all-resident, and for a store in another vertex order."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import graphtier as gt
from graphtier.algorithms import coloring, mis
from graphtier.algorithms.priority import priorities_of
from graphtier.tiering.resident import unit_bytes
from graphtier.tiering.scheduler import fixed_bytes

from .conftest import recoded

FORMATS = ["csr", "log", "ef", "cgr"]
CHUNK_EDGES = 512


def loners(edges: np.ndarray) -> np.ndarray:
    """``edges`` and, above its largest id, isolated vertices and one with a self-loop alone."""
    top = int(edges.max()) + 4
    return np.concatenate([edges, [[top, top]]])


def clique(k: int) -> np.ndarray:
    a, b = np.triu_indices(k, 1)
    return np.column_stack([a, b])


GRAPHS = {  # name: (edges, symmetric)
    "kron-sym": lambda: (loners(gt.generators.kronecker(10, edge_factor=8, seed=3)), True),
    "urand-dir": lambda: (loners(gt.generators.urand(10, edge_factor=4, seed=4)), False),
    "grid-sym": lambda: (gt.generators.grid(20, 25), True),
}


@pytest.fixture(scope="module", params=sorted(GRAPHS))
def graphs(request, tmp_path_factory) -> dict[str, gt.Graph]:
    edges, symmetric = GRAPHS[request.param]()
    d = tmp_path_factory.mktemp(request.param)
    csr = gt.build(edges, d / "csr.gt", symmetrize=symmetric, reverse=not symmetric, chunk_edges=CHUNK_EDGES, progress=False)
    assert csr.chunks().n_chunks >= 4
    return recoded(csr, d, FORMATS)


def neighbours(g: gt.Graph) -> sp.csr_matrix:
    """The graph read as undirected, self-loops dropped (store ids), from its edges alone."""
    e = g.edges().astype(np.int64)
    e = e[e[:, 0] != e[:, 1]]
    m = sp.csr_matrix((np.ones(len(e)), (e[:, 0], e[:, 1])), shape=(g.n_vertices,) * 2)
    m = ((m + m.T) > 0).astype(np.int8)
    return sp.csr_matrix(m)


def stored_degrees(g: gt.Graph) -> np.ndarray:
    """The degrees coloring orders by: out- plus in-lists as stored (a symmetric graph's once)."""
    d = np.diff(g.indptr()).astype(np.int64)
    return d + np.diff(g.indptr(True)) if g.directed else d


def check_mis(m: sp.csr_matrix, r: gt.IndependentSetResult) -> None:
    """Independent (no edge inside the set) and maximal (every vertex outside has a neighbour in it)."""
    s = r.in_set
    assert s.dtype == bool and r.size == int(s.sum())
    assert m[s][:, s].nnz == 0, "two vertices of the set are neighbours"
    assert ((m @ s.astype(np.int64)) > 0)[~s].all(), "a vertex outside the set has no neighbour in it"


def greedy_mis_of(g: gt.Graph, m: sp.csr_matrix, ids: np.ndarray, seed: int) -> np.ndarray:
    """The sequential greedy set in the documented order, which the rule must equal: fewer stored
    neighbours first (degrees from mis.MAX_DEGREE up alike), then the priority of the input's
    ``ids``, highest first."""
    taken = np.zeros(m.shape[0], bool)
    degree = np.minimum(stored_degrees(g), mis.MAX_DEGREE)
    for v in np.lexsort((priorities_of(ids, seed), -degree))[::-1]:
        taken[v] = not taken[m.indices[m.indptr[v] : m.indptr[v + 1]]].any()
    return taken


def check_coloring(m: sp.csr_matrix, r: gt.ColoringResult) -> None:
    """Proper (no edge joins two of one colour) and within max degree + 1 colours."""
    c = r.colors
    rows, cols = m.nonzero()
    assert c.dtype == np.int64 and (c[rows] != c[cols]).all()
    assert c.min(initial=0) >= 0 and r.n_colors == c.max() + 1 <= np.diff(m.indptr).max(initial=0) + 1


def greedy_colors(g: gt.Graph, m: sp.csr_matrix, seed: int) -> np.ndarray:
    """networkx's greedy colouring in the documented order: degree, then priority, highest first."""
    import networkx as nx

    order = np.lexsort((priorities_of(np.arange(g.n_vertices), seed), stored_degrees(g)))[::-1]
    colors = nx.greedy_color(nx.from_scipy_sparse_array(m), strategy=lambda G, c: (int(v) for v in order))
    return np.array([colors[v] for v in range(g.n_vertices)])


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_against_the_oracles(graphs, fmt, monkeypatch):
    g = graphs[fmt]
    monkeypatch.setitem(coloring.SHORTCUT, "cpu", fmt in ("csr", "ef"))  # the GPU's rounds too, on half the formats
    m = neighbours(g)
    mis = gt.maximal_independent_set(g, seed=7, device="cpu")
    check_mis(m, mis)
    np.testing.assert_array_equal(mis.in_set, greedy_mis_of(g, m, np.arange(g.n_vertices), 7))
    loners = np.diff(m.indptr) == 0
    assert mis.in_set[loners].all()
    col = gt.greedy_color(g, seed=7, device="cpu")
    check_coloring(m, col)
    np.testing.assert_array_equal(col.colors, greedy_colors(g, m, 7))
    assert (col.colors[loners] == 0).all()


def test_seeds_repeat_and_differ(graphs):
    g = graphs["ef"]
    runs = {seed: (gt.maximal_independent_set(g, seed=seed, device="cpu"), gt.greedy_color(g, seed=seed, device="cpu")) for seed in (1, 2)}
    again = gt.maximal_independent_set(g, seed=1, device="cpu"), gt.greedy_color(g, seed=1, device="cpu")
    np.testing.assert_array_equal(again[0].in_set, runs[1][0].in_set)
    np.testing.assert_array_equal(again[1].colors, runs[1][1].colors)
    assert not np.array_equal(runs[1][0].in_set, runs[2][0].in_set)
    if np.unique(stored_degrees(g)[stored_degrees(g) > 0], return_counts=True)[1].max() > 1:  # ties for the seed to break
        assert not np.array_equal(runs[1][1].colors, runs[2][1].colors)
    drawn = gt.maximal_independent_set(g, device="cpu")  # seed=None: drawn, and reported
    np.testing.assert_array_equal(gt.maximal_independent_set(g, seed=drawn.seed, device="cpu").in_set, drawn.in_set)
    assert drawn.stats["seed"] == drawn.seed and runs[1][1].stats["n_colors"] == runs[1][1].n_colors


def slot_bytes(g: gt.Graph, reverse: bool = False) -> int:
    """The largest chunk, unweighted: every slot of these algorithms' schedulers is this large."""
    chunks = g.chunks(reverse)
    return max(unit_bytes(h.total_bytes, h.payload_start, h.n_edges, False) for h in chunks.headers(range(chunks.n_chunks)))


def slots_budget(g: gt.Graph, resident, k: int, zero_copy: str) -> dict:
    """Budgets that hold the state of ``resident`` (a run of the graph) and ``k`` chunk slots per graph read."""
    slot = max(slot_bytes(g), slot_bytes(g, True) if g.has_reverse else 0)
    n = g.chunks().n_chunks
    fixed = fixed_bytes(g.n_vertices, n) + sum(h.payload_start + 8 for h in g.chunks().headers(range(n)))
    share = 2 if g.directed else 1  # graphs read: a directed one's out- and in-lists share the budget
    return {"device_memory": resident.stats["state_bytes"] + share * (fixed + k * slot), "host_memory": share * max(1, k) * slot, "zero_copy": zero_copy}


def test_same_results_under_every_budget(graphs, monkeypatch):
    """From two chunk slots per graph read (and as many host slots) to all-resident, under every
    zero-copy policy: identical results, the device budget kept, and the smallest budgets below
    what the resident graph takes (cgr, whose walks differ most from the others'; colouring's
    rounds as the GPU's, with the shortcut's pulls)."""
    g = graphs["cgr"]
    monkeypatch.setitem(coloring.SHORTCUT, "cpu", True)
    runs = {"mis": lambda **b: gt.maximal_independent_set(g, seed=3, device="cpu", **b), "color": lambda **b: gt.greedy_color(g, seed=3, device="cpu", **b)}
    n = g.chunks().n_chunks
    for name, f in runs.items():
        resident = f()
        budgets = []
        for k, zero_copy in ((2, "never"), (2, "auto"), (n // 2, "auto"), (0, "always")):
            budget = slots_budget(g, resident, k, zero_copy)
            r = f(**budget)
            for column, expected in resident.columns().items():
                np.testing.assert_array_equal(r.columns()[column], expected, err_msg=f"{name}: {column} under {budget}")
            assert r.stats["device_peak_bytes"] <= budget["device_memory"]
            budgets.append(budget["device_memory"])
        assert min(budgets) < resident.stats["device_peak_bytes"], f"{name}: the graph fits every budget, nothing streams"


def test_results_follow_the_input_ids_whatever_the_store_order(tmp_path):
    """Priorities hash the input's ids: a store renumbered by degree, or relabelled from sparse
    ids, gives the natural store's set and colours, in the input's ids."""
    edges = loners(gt.generators.kronecker(9, edge_factor=8, seed=5))
    natural = gt.build(edges, tmp_path / "n.gt", symmetrize=True, chunk_edges=CHUNK_EDGES, progress=False)
    ordered = gt.build(edges, tmp_path / "o.gt", symmetrize=True, order="degree", chunk_edges=CHUNK_EDGES, progress=False)
    assert ordered.perm is not None
    for f in (lambda g: gt.maximal_independent_set(g, seed=5, device="cpu").in_set, lambda g: gt.greedy_color(g, seed=5, device="cpu").colors):
        np.testing.assert_array_equal(f(ordered), f(natural))
    sparse = gt.build(edges * 1000 + 17, tmp_path / "r.gt", symmetrize=True, relabel=True, progress=False)  # relabelled in id order
    r = gt.maximal_independent_set(sparse, seed=5, device="cpu")
    np.testing.assert_array_equal(r.ids, np.unique(edges * 1000 + 17))
    check_mis(neighbours(sparse), r)
    np.testing.assert_array_equal(r.in_set, greedy_mis_of(sparse, neighbours(sparse), r.ids, 5))


@pytest.mark.parametrize("fmt", ["csr", "cgr"])
def test_more_colours_than_a_window(tmp_path, fmt, monkeypatch):
    """A clique of 80 needs 80 colours: vertices past the first 64 move their window and read their
    neighbours' colours again (with the shortcut's tests on csr)."""
    monkeypatch.setitem(coloring.SHORTCUT, "cpu", fmt == "csr")
    g = gt.build(clique(80), tmp_path / "k.gt", symmetrize=True, format=fmt, chunk_edges=CHUNK_EDGES, progress=False)
    m = neighbours(g)
    r = gt.greedy_color(g, seed=4, device="cpu")
    check_coloring(m, r)
    assert r.n_colors == 80
    np.testing.assert_array_equal(r.colors, greedy_colors(g, m, 4))
    assert gt.maximal_independent_set(g, seed=4, device="cpu").size == 1


@pytest.mark.parametrize("symmetric", [True, False])
def test_long_lists_are_kept(tmp_path, symmetric, monkeypatch):
    """Hubs with more than KEEP_FROM neighbours, joined to each other and to a sparser graph, read
    their lists once for their uncoloured higher neighbours and test those rows after (the
    shortcut's rounds): the greedy colours, in memory and streamed through two chunk slots."""
    monkeypatch.setitem(coloring.SHORTCUT, "cpu", True)
    rng = np.random.default_rng(8)
    hubs = 6
    base = gt.generators.kronecker(10, seed=8) if symmetric else gt.generators.urand(10, edge_factor=8, seed=8)
    spokes = [np.column_stack([np.full(k, h), hubs + rng.choice(1 << 10, k, replace=False)]) for h, k in enumerate(range(540, 540 + 60 * hubs, 60))]
    edges = np.concatenate([base + hubs, clique(hubs), *spokes, *(s[:, ::-1] for s in spokes[::2])])  # half the hubs' spokes both ways
    g = gt.build(edges, tmp_path / "h.gt", symmetrize=symmetric, reverse=not symmetric, chunk_edges=CHUNK_EDGES, progress=False)
    assert (stored_degrees(g) > coloring.KEEP_FROM).sum() >= hubs
    m = neighbours(g)
    resident = gt.greedy_color(g, seed=9, device="cpu")
    check_coloring(m, resident)
    np.testing.assert_array_equal(resident.colors, greedy_colors(g, m, 9))
    streamed = gt.greedy_color(g, seed=9, device="cpu", **slots_budget(g, resident, 2, "never"))
    np.testing.assert_array_equal(streamed.colors, resident.colors)


def test_results_to_tables(graphs):
    g = graphs["csr"]
    for r, column in ((gt.maximal_independent_set(g, seed=1, device="cpu"), "in_set"), (gt.greedy_color(g, seed=1, device="cpu"), "color")):
        df = r.to_pandas()
        assert list(df.columns) == ["vertex", column] and len(df) == g.n_vertices
        assert r.to_arrow().num_rows == g.n_vertices


def test_refusals(tmp_path):
    directed = gt.build(np.array([[0, 1], [1, 2]]), tmp_path / "d.gt", progress=False)
    for f in (gt.maximal_independent_set, gt.greedy_color):
        with pytest.raises(ValueError, match=r"d\.gt is directed without its reverse graph .*symmetrize=True.*reverse=True"):
            f(directed, device="cpu")
    g = gt.build(np.array([[0, 1]]), tmp_path / "s.gt", symmetrize=True, progress=False)
    with pytest.raises(ValueError, match=r"seed must be in \[0, 2\*\*64\)"):
        gt.greedy_color(g, seed=-1, device="cpu")
    with pytest.raises(TypeError, match="seed must be an integer"):
        gt.maximal_independent_set(g, seed=1.5, device="cpu")
    assert gt.maximal_independent_set(g, seed=2**64 - 1, device="cpu").size == 1
    with pytest.raises(TypeError, match="unknown option 'devcie'"):
        gt.greedy_color(g, devcie="cpu")


def test_empty_graph(tmp_path):
    g = gt.build(np.zeros((0, 2), np.int64), tmp_path / "e.gt", symmetrize=True, allow_empty=True, progress=False)
    assert gt.maximal_independent_set(g, device="cpu").size == 0 and gt.greedy_color(g, device="cpu").n_colors == 0
