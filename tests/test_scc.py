"""Strongly connected components on the CPU backend (Pearce's walk) against scipy.sparse.csgraph's
(connection "strong"), compared as partitions since scipy numbers them otherwise: every format,
graphs with many components (a DAG of cycles with self-loops and isolated vertices, a long chain, a
grid of rows), generated ones, a dense one (whose walk outgrows its stack of decoded lists), a
reordered store, cnr-2000; the same labels under budgets from one chunk slot to all-resident; the
GPU's driver (forward-backward passes) run on the CPU to the same labels; the refusal without a
reverse graph; the command line."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

import graphtier as gt
from graphtier.algorithms.scc import StrongComponents, components
from graphtier.cli import main
from graphtier.runtime import Config
from graphtier.tiering.resident import unit_bytes
from graphtier.tiering.scheduler import fixed_bytes

from .conftest import csr_to_edges, recoded

FORMATS = ["csr", "log", "ef", "cgr"]
CHUNK_EDGES = 256


def cycles_dag(seed: int) -> np.ndarray:
    """Cycles of 1 to 8 vertices joined by edges from earlier cycles to later ones only (so each
    cycle is a component), self-loops on some vertices, every id shuffled, and ids no edge names."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, 150)
    ends = np.cumsum(sizes)
    starts = ends - sizes
    vertex = np.arange(ends[-1])
    ring = np.concatenate([np.roll(np.arange(a, b), -1) for a, b in zip(starts, ends)])
    edges = [np.column_stack([vertex, ring])]
    which = np.repeat(np.arange(len(sizes)), sizes)
    src = rng.integers(0, ends[-1], 400)
    later = np.minimum(which[src] + rng.integers(1, 20, len(src)), len(sizes) - 1)
    dst = starts[later] + rng.integers(0, 8, len(src)) % sizes[later]
    edges.append(np.column_stack([src, dst])[which[src] < later])
    edges.append(np.column_stack([vertex[::7], vertex[::7]]))  # self-loops
    ids = rng.permutation(ends[-1] + 60)[: ends[-1]]  # 60 ids left isolated
    return ids[np.concatenate(edges)]


def chain(n: int, seed: int) -> np.ndarray:
    """A path through ``n`` vertices in a random order of ids: every vertex its own component."""
    order = np.random.default_rng(seed).permutation(n)
    return np.column_stack([order[:-1], order[1:]])


def grid_of_rows(rows: int, cols: int) -> np.ndarray:
    """A grid whose rows go both ways and columns down only: each row a component."""
    edges = gt.generators.grid(rows, cols)
    src, dst = edges[:, 0], edges[:, 1]
    return edges[(src // cols == dst // cols) | (dst > src)]


GRAPHS = {
    "cycles": lambda: cycles_dag(1),
    "chain": lambda: chain(800, 2),
    "grid": lambda: grid_of_rows(16, 20),
    "kron": lambda: gt.generators.kronecker(9, edge_factor=4, seed=5),
    "urand": lambda: gt.generators.urand(9, edge_factor=2, seed=6),
    "dense": lambda: np.random.default_rng(7).integers(0, 300, (6_000, 2)),
}


def oracle(g: gt.Graph) -> tuple[int, np.ndarray]:
    e = g.edges().astype(np.int64)
    m = sp.csr_matrix((np.ones(len(e)), (e[:, 0], e[:, 1])), shape=(g.n_vertices,) * 2)
    return connected_components(m, directed=True, connection="strong")


def check(r: gt.ComponentsResult, n: int, expected: np.ndarray) -> None:
    """The same partition as scipy's, numbered in the order of each component's smallest vertex."""
    assert r.n_components == n
    pairs = np.unique(np.column_stack([r.labels, expected]), axis=0)
    assert len(pairs) == n, "not the same partition"
    _, first = np.unique(r.labels, return_index=True)
    assert (np.diff(first) > 0).all() and r.labels.max() == n - 1


@pytest.fixture(scope="module")
def stores(tmp_path_factory) -> dict[str, dict[str, gt.Graph]]:
    out = {}
    for name, make in GRAPHS.items():
        d = tmp_path_factory.mktemp(name)
        csr = gt.build(make(), d / "csr.gt", reverse=True, chunk_edges=CHUNK_EDGES, progress=False)
        out[name] = recoded(csr, d, FORMATS)
    return out


@pytest.fixture(scope="module")
def expected(stores) -> dict[str, tuple[int, np.ndarray]]:
    return {name: oracle(graphs["csr"]) for name, graphs in stores.items()}


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_against_scipy(stores, expected, fmt):
    for name, graphs in stores.items():
        check(gt.strongly_connected_components(graphs[fmt], device="cpu"), *expected[name])


def forward_backward(g: gt.Graph, **options) -> gt.ComponentsResult:
    """The GPU's driver, forward-backward passes, run on the CPU."""
    return components(g, StrongComponents(g), Config(device="cpu", **options))


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_gpus_passes_on_the_cpu_give_the_same_labels(stores, fmt):
    for name, graphs in stores.items():
        r = forward_backward(graphs[fmt])
        np.testing.assert_array_equal(r.labels, gt.strongly_connected_components(graphs[fmt], device="cpu").labels, err_msg=name)
        assert r.stats["passes"] >= 1


def test_many_components_are_placed_in_few_passes(stores):
    """A chain and a DAG of cycles: the GPU's parts split them, so that a pass places many
    components (a single pair of labels for every vertex would place about one a pass)."""
    for name in ("chain", "cycles"):
        r = forward_backward(stores[name]["csr"])
        assert r.n_components > 150 and r.stats["passes"] <= r.n_components / 20, (name, r.stats["passes"])


def slot_bytes(g: gt.Graph, reverse: bool) -> int:
    chunks = g.chunks(reverse)
    return max(unit_bytes(h.total_bytes, h.payload_start, h.n_edges, False) for h in chunks.headers(range(chunks.n_chunks)))


def fixed(g: gt.Graph, reverse: bool) -> int:
    """What a scheduler holds before any slot: indptr, the round tables, the index arena (at most)."""
    chunks = g.chunks(reverse)
    n = chunks.n_chunks
    return fixed_bytes(g.n_vertices, n) + sum(h.payload_start + 8 for h in chunks.headers(range(n)))


@pytest.mark.parametrize("fmt", ["csr", "ef", "cgr"])
@pytest.mark.parametrize("name", ["cycles", "kron", "chain"])
def test_same_results_under_every_budget(stores, fmt, name):
    """From one chunk slot per graph (out- and in-edges share the device budget) to all-resident,
    under every zero-copy policy: the same labels, and the device budget kept; the GPU's passes on
    the CPU too (in-edges and out-edges streamed)."""
    g = stores[name][fmt]
    resident = gt.strongly_connected_components(g, device="cpu")
    slot = max(slot_bytes(g, False), slot_bytes(g, True))
    per_graph = max(fixed(g, False), fixed(g, True))
    n = max(g.chunks().n_chunks, g.chunks(True).n_chunks)
    for k, zero_copy in ((1, "never"), (2, "auto"), (n // 2 + 1, "auto"), (0, "always")):
        budget = {"device_memory": resident.stats["state_bytes"] + 2 * (per_graph + k * slot), "host_memory": 2 * max(1, k) * slot, "zero_copy": zero_copy}
        for r in (gt.strongly_connected_components(g, device="cpu", **budget), forward_backward(g, **budget)):
            np.testing.assert_array_equal(r.labels, resident.labels, err_msg=f"{budget}")
            assert r.stats["device_peak_bytes"] <= budget["device_memory"]
            assert k != 1 or r.stats["device_misses"] > 0  # out of core indeed


def test_reordered_and_relabelled_stores_number_by_input_ids(tmp_path):
    """With a vertex order (perm) and with arbitrary ids, labels follow the input's ids."""
    edges = cycles_dag(3)
    n = int(edges.max()) + 1
    m = sp.csr_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(n, n))
    k, expected = connected_components(m, directed=True, connection="strong")
    g = gt.build(edges, tmp_path / "o.gt", reverse=True, order="degree", chunk_edges=CHUNK_EDGES, progress=False)
    assert g.perm is not None
    check(gt.strongly_connected_components(g, device="cpu"), k, expected)
    spread = edges * 1_000_003 + 7  # arbitrary ids: rows are the ids that occur, ascending
    g = gt.build(spread, tmp_path / "r.gt", reverse=True, relabel=True, chunk_edges=CHUNK_EDGES, progress=False)
    r = gt.strongly_connected_components(g, device="cpu")
    present = np.unique(edges)
    k, expected = connected_components(m[present][:, present], directed=True, connection="strong")
    check(r, k, expected)
    table = r.to_pandas()
    assert list(table.columns) == ["vertex", "component"] and (table["vertex"].to_numpy() == present * 1_000_003 + 7).all()
    assert r.to_arrow().num_rows == len(present)


def test_symmetric_store_gives_connected_components(tmp_path):
    edges = gt.generators.kronecker(8, edge_factor=2, seed=9)
    g = gt.build(edges, tmp_path / "s.gt", symmetrize=True, progress=False)
    np.testing.assert_array_equal(gt.strongly_connected_components(g, device="cpu").labels, gt.connected_components(g, device="cpu").labels)


def test_directed_store_without_reverse_is_refused(tmp_path):
    g = gt.build(np.array([[0, 1], [1, 0]]), tmp_path / "d.gt", progress=False)
    with pytest.raises(ValueError, match=r"needs the reverse graph, which .*d\.gt does not have \(build it with reverse=True"):
        gt.strongly_connected_components(g, device="cpu")


def test_graphs_without_cycles_or_edges(tmp_path):
    g = gt.build(np.array([[0, 1], [0, 2], [3, 1]]), tmp_path / "dag.gt", reverse=True, progress=False)
    assert gt.strongly_connected_components(g, device="cpu").labels.tolist() == [0, 1, 2, 3]
    r = forward_backward(g)
    assert r.labels.tolist() == [0, 1, 2, 3] and r.stats["passes"] == 0  # every vertex trimmed
    g = gt.build(np.array([[3, 3]]), tmp_path / "loop.gt", reverse=True, progress=False)
    assert gt.strongly_connected_components(g, device="cpu").labels.tolist() == [0, 1, 2, 3]


def test_cnr2000(tmp_path, cnr_csr):
    indptr, indices = cnr_csr
    g = gt.build(csr_to_edges(indptr, indices), tmp_path / "cnr.gt", reverse=True, chunk_edges=1 << 18, progress=False)
    m = sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=(g.n_vertices,) * 2)
    n, expected = connected_components(m, directed=True, connection="strong")
    check(gt.strongly_connected_components(g, device="cpu"), n, expected)


def test_command_line(stores, tmp_path, capsys):
    g = stores["cycles"]["csr"]
    out = tmp_path / "scc.npy"
    code = main(["scc", str(g.location), "--device", "cpu", "--device-memory", "2MB", "--json", "--out", str(out)])
    result = json.loads(capsys.readouterr().out)
    labels = np.load(out)
    assert code == 0 and result["n_components"] == labels.max() + 1 == oracle(g)[0]
    assert result["largest"] == np.bincount(labels).max() and result["iterations"]
    assert main(["scc", str(g.location), "--device", "cpu"]) == 0
    assert "strongly connected components, the largest of" in capsys.readouterr().out
    bare = gt.build(np.array([[0, 1]]), tmp_path / "bare.gt", progress=False)
    assert main(["scc", str(bare.location), "--device", "cpu"]) == 2
    assert "reverse=True" in capsys.readouterr().err
