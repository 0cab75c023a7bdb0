"""GPU BFS against the CPU backend and the Graph500 rules: every format the GPU reads, on
cnr-2000 and generated graphs. Skipped without cupy and a CUDA device (``pytest -m gpu``)."""

from __future__ import annotations

import numpy as np
import pytest

import graphtier as gt
from graphtier.algorithms.bfs import HEADS
from graphtier.kernels.cuda.runtime import unavailable
from graphtier.kernels.formats import FORMATS
from graphtier.tiering.budget import parse_size

from .conftest import csr_to_edges, head_ids, recoded

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(unavailable() is not None, reason=f"no GPU: {unavailable()}")]
GPU_FORMATS = sorted(FORMATS)
EVERY_DECODER = [(f, d) for f in GPU_FORMATS for d in FORMATS[f].decoders]


def assert_same_bfs(g: gt.Graph, source: int, indptr: np.ndarray, indices: np.ndarray, direction: str = "auto", decoder: str | None = None) -> gt.BFSResult:
    gpu = gt.bfs(g, source, device="cuda", direction=direction, decoder=decoder)
    cpu = gt.bfs(g, source, device="cpu", direction=direction)
    assert gpu.stats["device"] == "cuda"
    np.testing.assert_array_equal(gpu.distances, cpu.distances)
    assert gpu.stats["edges_traversed"] == cpu.stats["edges_traversed"]
    gt.validate_bfs_tree(indptr, indices, source, gpu.distances, gpu.parents)
    return gpu


@pytest.fixture(scope="module")
def cnr(tmp_path_factory, cnr_csr):
    indptr, indices = cnr_csr
    csr = gt.build(csr_to_edges(indptr, indices), tmp_path_factory.mktemp("cnr") / "csr.gt", reverse=True, chunk_edges=1 << 18)
    return {f: csr if f == "csr" else gt.recode(csr, tmp_path_factory.mktemp("cnr") / f"{f}.gt", format=f) for f in GPU_FORMATS}


@pytest.mark.parametrize("fmt, decoder", EVERY_DECODER)
@pytest.mark.parametrize("direction", ["push", "pull"])
def test_cnr2000(cnr, cnr_csr, fmt, decoder, direction):
    indptr, indices = cnr_csr
    for source in (100000, 0):
        r = assert_same_bfs(cnr[fmt], source, indptr, indices, direction=direction, decoder=decoder)
        assert r.reached == (325_557 if source == 100000 else 311) and r.stats["decoder"] == decoder


GENERATED = {
    "kron18": lambda: gt.generators.kronecker(18, seed=1),
    "kron19": lambda: gt.generators.kronecker(19, seed=1),
    "kron20": lambda: gt.generators.kronecker(20, seed=1),
    "urand18": lambda: gt.generators.urand(18, seed=1),
    "grid": lambda: gt.generators.grid(700, 500),
}


@pytest.fixture(scope="module", params=sorted(GENERATED))
def generated(request, tmp_path_factory):
    d = tmp_path_factory.mktemp(request.param)
    csr = gt.build(GENERATED[request.param](), d / "csr.gt", symmetrize=True, drop_self_loops=True, chunk_edges=1 << 20)
    return request.param, recoded(csr, d, GPU_FORMATS)


@pytest.mark.parametrize("fmt", GPU_FORMATS)
def test_generated(generated, fmt):
    name, stores = generated
    g = stores[fmt]
    indptr, indices = g.indptr(), stores["csr"].edges()[:, 1]
    source = int(np.argmax(np.diff(indptr)))
    r = assert_same_bfs(g, source, indptr, indices)
    if name != "grid":  # a grid's frontier never grows enough to pull
        assert "pull" in {lvl["direction"] for lvl in r.stats["iterations"]}
    assert_same_bfs(g, source, indptr, indices, direction="push")


def test_unknown_decoder(cnr):
    with pytest.raises(ValueError, match="GPU decoders of 'csr'"):
        gt.bfs(cnr["csr"], 0, device="cuda", decoder="magic")


@pytest.fixture(scope="module")
def streamed(tmp_path_factory):
    """kron16 in chunks of 8,192 edges: about 120 chunks, so budgets of a few chunks exist."""
    d = tmp_path_factory.mktemp("streamed")
    csr = gt.build(gt.generators.kronecker(16, seed=2), d / "csr.gt", symmetrize=True, drop_self_loops=True, chunk_edges=1 << 13)
    return recoded(csr, d, GPU_FORMATS)


@pytest.mark.parametrize("fmt", GPU_FORMATS)
@pytest.mark.parametrize("share, zero_copy", [(0.01, "never"), (0.25, "auto"), (0.5, "never"), (1.5, "never"), (0.0, "always"), (0.2, "always")])
def test_out_of_core(streamed, fmt, share, zero_copy):
    """Chunks streamed through pinned host memory (copied, or read in place) under budgets from
    one or two chunk slots to everything: the same distances as the resident run and the CPU.
    At 20% and 25% of the graph, ef and cgr chunks read in place find their indexes in the
    device's index arena; the second query's rounds are static."""
    g = streamed[fmt]
    source = int(np.argmax(np.diff(g.indptr())))
    resident = gt.bfs(g, source, device="cuda")
    state = resident.stats["state_bytes"]
    slot = max(h.total_bytes for h in g.chunks().headers(range(g.chunks().n_chunks)))
    tables = g.indptr().nbytes + 200 * g.chunks().n_chunks
    budget = {"device_memory": state + tables + max(2 * slot, int(share * g.resident_size())), "host_memory": "1GiB", "zero_copy": zero_copy}
    for query in range(2):  # the second query starts from what the first left in the device cache
        r = gt.bfs(g, source, device="cuda", **budget)
        np.testing.assert_array_equal(r.distances, resident.distances)
        gt.validate_bfs_tree(*g_csr(g), source, r.distances, r.parents)
        assert r.stats["device_peak_bytes"] <= r.stats["device_memory"]
        moved = r.stats["bytes_host_to_device"] + r.stats["bytes_zero_copy"]
        assert moved > 0 if query == 0 or share < 1 else moved == 0  # all on the device: the scheduler steps aside
    g.evict_device()
    again = gt.bfs(g, source, device="cuda", **budget)
    assert again.stats["bytes_host_to_device"] + again.stats["bytes_zero_copy"] > 0
    src = g.source("cuda", chunk_budget=budget["device_memory"] - state, host_budget=parse_size("1GiB"), zero_copy=zero_copy, sidecars=(HEADS,))
    if (share, zero_copy) in ((0.25, "auto"), (0.2, "always")):  # room for the heads: pulls check them first
        np.testing.assert_array_equal(src.sidecar("heads").get(), head_ids(g))


@pytest.mark.parametrize("fmt", GPU_FORMATS)
def test_tiers_beyond_the_host_hold_different_chunks(streamed, fmt):
    """A host tier of fewer chunks than the graph and device slots that hold the rest (not every
    chunk at its own place): pinned chunks read from the store also go to free device slots, so
    each comes from the store once, later queries read nothing from it, and the distances are the
    resident run's."""
    g = gt.open(streamed[fmt].location)
    source = int(np.argmax(np.diff(g.indptr())))
    resident = gt.bfs(g, source, device="cuda")
    state, n = resident.stats["state_bytes"], g.chunks().n_chunks
    chunk_budget = g.resident_size() - 1  # a byte short of the whole graph: equal slots, fewer than the chunks
    probe = g.source("cuda", chunk_budget=chunk_budget, host_budget=parse_size("1GiB"), zero_copy="auto", sidecars=(HEADS,))
    host_slots = n - probe.device.n_slots + 1
    assert not probe.plan.homes and 1 <= host_slots < n
    budget = {"device_memory": state + chunk_budget, "host_memory": host_slots * probe.memory.slot_bytes, "zero_copy": "auto"}
    first = gt.bfs(g, source, device="cuda", **budget)
    np.testing.assert_array_equal(first.distances, resident.distances)
    assert first.stats["store_reads_max"] == 1 and 0 < first.stats["host_misses"] <= n
    again = gt.bfs(g, source, device="cuda", **budget)
    np.testing.assert_array_equal(again.distances, resident.distances)
    assert again.stats["bytes_store_read"] == again.stats["host_misses"] == 0


def g_csr(g: gt.Graph) -> tuple[np.ndarray, np.ndarray]:
    return g.indptr(), g.edges()[:, 1]


# --- SSSP, PageRank, connected components: the GPU equals the CPU ------------------------------


@pytest.fixture(scope="module")
def weighted_graphs(tmp_path_factory):
    """A symmetric kron15 and a directed urand15 (with its reverse), random weights in [1, 64), in
    chunks of 8,192 edges, every format."""
    out = {}
    for name, edges, symmetric in (("kron", gt.generators.kronecker(15, seed=5), True), ("urand", gt.generators.urand(15, seed=6), False)):
        d = tmp_path_factory.mktemp(f"w-{name}")
        w = np.random.default_rng(7).integers(1, 64, len(edges)).astype(np.float64)
        csr = gt.build(np.column_stack([edges, w]), d / "csr.gt", symmetrize=symmetric, reverse=not symmetric, chunk_edges=1 << 13)
        out[name] = recoded(csr, d, GPU_FORMATS)
    return out


def budgets_of(g: gt.Graph) -> list[dict]:
    """All-resident, a quarter of the graph with chunks copied or read in place, and everything read in place."""
    quarter = int(0.25 * g.resident_size(weights=g.weighted)) + (64 << 20)
    return [
        {},
        {"device_memory": quarter, "host_memory": "1GiB", "zero_copy": "auto"},
        {"device_memory": quarter, "host_memory": "1GiB", "zero_copy": "never"},
        {"device_memory": 64 << 20, "zero_copy": "always"},
    ]


@pytest.mark.parametrize("name", ["kron", "urand"])
@pytest.mark.parametrize("fmt", GPU_FORMATS)
def test_bfs_from_many_sources_equals_the_cpu(weighted_graphs, name, fmt):
    """70 sources (two passes, a repeat among them) under every budget: each source's distances
    equal the CPU's."""
    g = weighted_graphs[name][fmt]
    sources = [int(v) for v in np.random.default_rng(3).integers(0, g.n_vertices, 69)] + [0, 0]
    cpu = np.stack([r.distances for r in gt.bfs(g, sources=sources, device="cpu")])
    for budget in budgets_of(g):
        gpu = gt.bfs(g, sources=sources, device="cuda", **budget)
        assert gpu[0].stats["device"] == "cuda"
        np.testing.assert_array_equal(np.stack([r.distances for r in gpu]), cpu)


@pytest.mark.parametrize("name", ["kron", "urand"])
@pytest.mark.parametrize("fmt", GPU_FORMATS)
def test_sssp_cc_pagerank_equal_the_cpu(weighted_graphs, name, fmt):
    g = weighted_graphs[name][fmt]
    source = int(np.argmax(np.diff(g.indptr())))
    cpu = {"sssp": gt.sssp(g, source, device="cpu"), "cc": gt.connected_components(g, device="cpu"), "pagerank": gt.pagerank(g, weight=True, device="cpu")}
    hops = gt.sssp(g, source, weight=False, device="cpu").distances
    unweighted = gt.pagerank(g, device="cpu").ranks  # its gather splits hubs in every format (kron15 has 16 over HUB_EDGES)
    resident_ranks = gt.pagerank(g, weight=True, device="cuda").ranks
    for budget in budgets_of(g):
        gpu = gt.sssp(g, source, device="cuda", **budget)
        assert gpu.stats["device"] == "cuda"
        np.testing.assert_array_equal(gpu.distances, cpu["sssp"].distances)
        np.testing.assert_array_equal(gpu.parents, cpu["sssp"].parents)
        np.testing.assert_array_equal(gt.sssp(g, source, predecessors=False, device="cuda", **budget).distances, cpu["sssp"].distances)
        np.testing.assert_array_equal(gt.sssp(g, source, weight=False, device="cuda", **budget).distances, hops)  # no weights loaded: every edge 1
        cc = gt.connected_components(g, device="cuda", **budget)
        np.testing.assert_array_equal(cc.labels, cpu["cc"].labels)
        pr = gt.pagerank(g, weight=True, device="cuda", **budget)
        assert np.abs(pr.ranks - cpu["pagerank"].ranks).sum() < 1e-6 and pr.iterations == cpu["pagerank"].iterations
        np.testing.assert_array_equal(pr.ranks, resident_ranks)  # sums added chunk by chunk, in order
        assert np.abs(gt.pagerank(g, device="cuda", **budget).ranks - unweighted).sum() < 1e-6


@pytest.mark.parametrize("name", ["kron", "urand"])
@pytest.mark.parametrize("fmt", GPU_FORMATS)
def test_coalesced_copies_merge_as_on_the_cpu(weighted_graphs, name, fmt, tmp_path):
    """Graffix's coalesced store: the replicas' confluence functors (SSSP, BFS, PageRank) give the
    CPU's answers under every budget."""
    g = weighted_graphs[name][fmt]
    a = gt.approximate(g, tmp_path / "a.gt", "coalesce", threshold=0.2)
    assert a.attrs["coalesced"]["replicas"] > 0
    source = int(np.argmax(np.diff(g.indptr())))
    sssp, bfs, ranks = gt.sssp(a, source, device="cpu"), gt.bfs(a, source, device="cpu"), gt.pagerank(a, weight=True, device="cpu").ranks
    for budget in budgets_of(a):
        s = gt.sssp(a, source, device="cuda", **budget)
        np.testing.assert_array_equal(s.distances, sssp.distances)
        np.testing.assert_array_equal(s.parents, sssp.parents)
        np.testing.assert_array_equal(gt.bfs(a, source, device="cuda", **budget).distances, bfs.distances)
        assert np.abs(gt.pagerank(a, weight=True, device="cuda", **budget).ranks - ranks).sum() < 1e-6


@pytest.mark.parametrize("fmt", GPU_FORMATS)
def test_latency_rounds_relax_as_on_the_cpu(weighted_graphs, fmt, tmp_path):
    """Graffix's latency store: SSSP's rounds over the touched clusters (a block per cluster) give
    the CPU's distances and parents under every budget, and run."""
    g = weighted_graphs["kron"][fmt]
    a = gt.approximate(g, tmp_path / "l.gt", "latency", threshold=0.6, slack=0.2)
    assert len(a.centres) > 0
    source = int(np.argmax(np.diff(g.indptr())))
    cpu, hops = gt.sssp(a, source, device="cpu"), gt.sssp(a, source, weight=False, device="cpu").distances
    for budget in budgets_of(a):
        s = gt.sssp(a, source, device="cuda", **budget)
        assert s.stats["device"] == "cuda" and sum(it["round_edges"] for it in s.stats["iterations"]) > 0
        np.testing.assert_array_equal(s.distances, cpu.distances)
        np.testing.assert_array_equal(s.parents, cpu.parents)
        np.testing.assert_array_equal(gt.sssp(a, source, weight=False, device="cuda", **budget).distances, hops)


def input_csr(g: gt.Graph) -> tuple[np.ndarray, np.ndarray]:
    """The store's edges as a CSR in the input's ids."""
    e = g.edges().astype(np.int64)
    ids = np.arange(g.n_vertices) if g.perm is None else g.perm.astype(np.int64)
    src, dst = ids[e[:, 0]], ids[e[:, 1]]
    return np.concatenate([[0], np.cumsum(np.bincount(src, minlength=g.n_vertices))]), dst[np.lexsort((dst, src))]


@pytest.mark.parametrize("order", ["natural", "degree"])
def test_results_left_on_the_device_equal_the_hosts(weighted_graphs, order, tmp_path):
    """``output="device"``: every per-vertex result as a CuPy array of its own, in the input's order
    (a reordered store's too), equal to the host's; the tables copy them back."""
    import cupy

    g = weighted_graphs["kron"]["csr"]
    if order != "natural":
        e = g.edges().astype(np.int64)
        g = gt.build(np.column_stack([e, g.group["weights"][:]]), tmp_path / "d.gt", order=order, symmetrize=True)
    source = 1
    calls = {
        "bfs": lambda **o: gt.bfs(g, source, **o),
        "sssp": lambda **o: gt.sssp(g, source, **o),
        "pagerank": lambda **o: gt.pagerank(g, **o),
        "cc": lambda **o: gt.connected_components(g, **o),
        "mis": lambda **o: gt.maximal_independent_set(g, seed=1, **o),
        "color": lambda **o: gt.greedy_color(g, seed=1, **o),
        "bc": lambda **o: gt.betweenness_centrality(g, k=4, seed=1, **o),
    }
    for name, call in calls.items():
        host, device = call(device="cuda"), call(device="cuda", output="device")
        for column, values in host.columns().items():
            left = device.columns()[column]
            assert isinstance(left, cupy.ndarray), (name, column)
            if name == "bfs" and column == "parent":  # any parent one level up: claimed by atomics
                gt.validate_bfs_tree(*input_csr(g), source, device.distances.get(), left.get())
            else:
                np.testing.assert_allclose(left.get(), values, rtol=1e-12, err_msg=f"{name} {column}")
        table = device.to_pandas()
        assert list(table.columns) == list(host.to_pandas().columns) and len(table) == len(values)
    again = gt.bfs(g, source, device="cuda", output="device")
    gt.bfs(g, 0, device="cuda", output="device")  # the next run reuses the state's buffers, not the result
    np.testing.assert_array_equal(again.distances.get(), calls["bfs"](device="cuda").distances)
    with pytest.raises(ValueError, match="a spanning forest is a list of edges"):
        gt.minimum_spanning_tree(g, device="cuda", output="device")


# --- strongly connected components: the GPU equals the CPU -------------------------------------


@pytest.fixture(scope="module")
def directed_graphs(tmp_path_factory):
    """Directed graphs with their reverse, every format: a kron15 (a giant component and thousands
    of small ones) in chunks of 8,192 edges, and test_scc's DAG of cycles and chain (hundreds of
    components, many passes) in chunks of 256."""
    from .test_scc import chain, cycles_dag

    out = {}
    for name, edges, chunk_edges in (("kron", gt.generators.kronecker(15, seed=8), 1 << 13), ("cycles", cycles_dag(4), 256), ("chain", chain(800, 5), 256)):
        d = tmp_path_factory.mktemp(f"d-{name}")
        csr = gt.build(edges, d / "csr.gt", reverse=True, chunk_edges=chunk_edges)
        out[name] = recoded(csr, d, GPU_FORMATS)
    return out


@pytest.mark.parametrize("name", ["kron", "cycles", "chain"])
@pytest.mark.parametrize("fmt", GPU_FORMATS)
def test_scc_equals_the_cpu(directed_graphs, weighted_graphs, name, fmt):
    """Labels are the same partition numbered one way, so the GPU's equal the CPU's exactly, under
    every budget, two chunk slots a graph too (and on the weighted directed urand15, whose weights
    SCC does not read)."""
    from .test_scc import fixed, slot_bytes

    for g in (directed_graphs[name][fmt], weighted_graphs["urand"][fmt]):
        cpu = gt.strongly_connected_components(g, device="cpu")
        state = gt.strongly_connected_components(g, device="cuda").stats["state_bytes"]
        per_graph = max(fixed(g, False), fixed(g, True)) + 2 * max(slot_bytes(g, False), slot_bytes(g, True))
        for budget in [*budgets_of(g), {"device_memory": state + 2 * per_graph, "host_memory": "1GiB", "zero_copy": "never"}]:
            gpu = gt.strongly_connected_components(g, device="cuda", **budget)
            assert gpu.stats["device"] == "cuda" and gpu.n_components == cpu.n_components
            np.testing.assert_array_equal(gpu.labels, cpu.labels)


@pytest.mark.parametrize("fmt", GPU_FORMATS)
def test_scc_cnr2000(cnr, fmt):
    g = cnr[fmt]
    cpu = gt.strongly_connected_components(g, device="cpu")
    assert cpu.n_components == 100_977
    for budget in budgets_of(g):
        np.testing.assert_array_equal(gt.strongly_connected_components(g, device="cuda", **budget).labels, cpu.labels)


@pytest.mark.parametrize("fmt", GPU_FORMATS)
def test_mst_equals_the_cpu(weighted_graphs, fmt):
    """The same forest edge for edge under every budget, weighted and with every edge 1 (ties
    everywhere); a directed graph refused."""
    g = weighted_graphs["kron"][fmt]
    cpu = {weight: gt.minimum_spanning_tree(g, weight=weight, device="cpu").columns() for weight in (True, False)}
    for budget in budgets_of(g):
        for weight, expected in cpu.items():
            gpu = gt.minimum_spanning_tree(g, weight=weight, device="cuda", **budget)
            assert gpu.stats["device"] == "cuda"
            for column, values in expected.items():
                np.testing.assert_array_equal(gpu.columns()[column], values, err_msg=f"{column}, weight={weight} under {budget}")
    with pytest.raises(ValueError, match="symmetrize=True"):
        gt.minimum_spanning_tree(weighted_graphs["urand"][fmt], device="cuda")


def test_mst_ties_break_alike_in_every_vertex_order(tmp_path):
    """Weights 1 and 2: the GPU's forest is the CPU's, and a degree-ordered store's the natural one's
    (endpoints ranked by the input's ids on the device)."""
    edges = gt.generators.kronecker(14, seed=9)
    weighted = np.column_stack([edges, np.random.default_rng(10).integers(1, 3, len(edges)).astype(np.float64)])
    stores = [gt.build(weighted, tmp_path / f"{order}.gt", symmetrize=True, order=order, format="ef", chunk_edges=1 << 13) for order in ("natural", "degree")]
    results = [gt.minimum_spanning_tree(g, device=device).columns() for g in stores for device in ("cpu", "cuda")]
    for r in results[1:]:
        for column, values in results[0].items():
            np.testing.assert_array_equal(r[column], values)


# --- maximal independent set, greedy colouring: the GPU equals the CPU --------------------------


# --- betweenness centrality: the GPU equals the CPU --------------------------------------------


@pytest.mark.parametrize("name", ["kron", "urand"])
@pytest.mark.parametrize("fmt", GPU_FORMATS)
def test_mis_and_coloring_equal_the_cpu(weighted_graphs, name, fmt):
    """The same seed gives the same set and colours on both backends, under every budget (kron15's
    hubs go through the hub kernels; urand is directed, read with its reverse)."""
    g = weighted_graphs[name][fmt]
    cpu = {"mis": gt.maximal_independent_set(g, seed=11, device="cpu").in_set, "color": gt.greedy_color(g, seed=11, device="cpu").colors}
    for budget in budgets_of(g):
        mis = gt.maximal_independent_set(g, seed=11, device="cuda", **budget)
        assert mis.stats["device"] == "cuda"
        np.testing.assert_array_equal(mis.in_set, cpu["mis"])
        np.testing.assert_array_equal(gt.greedy_color(g, seed=11, device="cuda", **budget).colors, cpu["color"])


@pytest.mark.parametrize(("fmt", "decoder"), EVERY_DECODER)
def test_mis_and_coloring_with_every_decoder(tmp_path, fmt, decoder):
    """Every decoder, on a clique of 80 (colours past the first 64-colour window) beside kron12."""
    edges = np.concatenate([gt.generators.kronecker(12, seed=2), np.column_stack(np.triu_indices(80, 1)) + (1 << 12)])
    g = gt.build(edges, tmp_path / "g.gt", symmetrize=True, format=fmt, chunk_edges=1 << 12, progress=False)
    gpu = gt.greedy_color(g, seed=5, device="cuda", decoder=decoder)
    assert gpu.n_colors >= 80
    np.testing.assert_array_equal(gpu.colors, gt.greedy_color(g, seed=5, device="cpu").colors)
    np.testing.assert_array_equal(gt.maximal_independent_set(g, seed=5, device="cuda", decoder=decoder).in_set, gt.maximal_independent_set(g, seed=5, device="cpu").in_set)


@pytest.mark.parametrize("weight", [None, True])
@pytest.mark.parametrize("name", ["kron", "urand"])
@pytest.mark.parametrize("fmt", GPU_FORMATS)
def test_betweenness_equals_the_cpu(weighted_graphs, name, fmt, weight):
    """Eight sampled sources, over unit and stored weights: path counts are exact (integer-valued
    doubles) in any order, so only the dependencies' sums differ, the GPU's warps adding a list's
    terms in another order; out of core a list's chunk shares add up in the order its chunks
    arrive (the last bits, for lists over three chunks or more)."""
    g = weighted_graphs[name][fmt]
    options = {"k": 8, "seed": 3, "endpoints": name == "urand", "weight": weight}
    cpu = gt.betweenness_centrality(g, device="cpu", **options).centrality
    resident = gt.betweenness_centrality(g, device="cuda", **options)
    assert resident.stats["device"] == "cuda"
    np.testing.assert_allclose(resident.centrality, cpu, rtol=1e-9, atol=0)
    for budget in budgets_of(g)[1:]:
        gpu = gt.betweenness_centrality(g, device="cuda", **options, **budget)
        np.testing.assert_allclose(gpu.centrality, resident.centrality, rtol=1e-12, atol=0, err_msg=f"under {budget}")


# --- one graph split over GPUs: the parts equal one GPU ------------------------------------------


@pytest.mark.parametrize("name", ["kron", "urand"])
def test_parts_over_gpus_equal_one_gpu(weighted_graphs, name):
    """BFS and PageRank split over every GPU this machine has (over one GPU, in a part's process,
    where it has one), each part under a budget smaller than its share: PageRank bit for bit, BFS
    distances and a valid tree; ef, whose decoder reads indexes, and csr."""
    import cupy

    devices = tuple(range(cupy.cuda.runtime.getDeviceCount()))
    for fmt in ("ef", "csr"):
        g = weighted_graphs[name][fmt]
        source = int(np.argmax(np.diff(g.indptr())))
        budget = {"device_memory": int(0.25 * g.resident_size(weights=True)) + (8 << 20), "host_memory": "1GiB"}
        one = gt.bfs(g, source, device="cuda")
        parts = gt.bfs(g, source, device="cuda", devices=devices, **budget)
        assert parts.stats["device"] == "cuda" and len(parts.stats["parts"]) == len(devices)
        np.testing.assert_array_equal(parts.distances, one.distances)
        gt.validate_bfs_tree(*g_csr(g), source, parts.distances, parts.parents)
        ranks = gt.pagerank(g, weight=True, device="cuda", **budget)
        split = gt.pagerank(g, weight=True, device="cuda", devices=devices, **budget)
        np.testing.assert_array_equal(split.ranks, ranks.ranks)


@pytest.mark.parametrize("order", ["natural", "degree"])
def test_a_result_every_gpu_writes_a_share_of_equals_one_gpu(tmp_path, order):
    """Results of over a million bytes: the parts' second and third calls copy their shares from
    their GPUs into the slab the first call's result came back in (pinned by every part), in the
    input's order of ids (a reordered store's mapped on the GPU first)."""
    import cupy

    devices = tuple(range(cupy.cuda.runtime.getDeviceCount()))
    g = gt.build(gt.generators.kronecker(17, seed=2), tmp_path / "k.gt", symmetrize=True, format="ef", order=order, progress=False)
    source = int(np.argmax(np.diff(g.indptr())))
    one = gt.bfs(g, source, device="cuda")
    for _ in range(3):
        split = gt.bfs(g, source, device="cuda", devices=devices, device_memory=int(0.5 * g.resident_size()) + (8 << 20))
        np.testing.assert_array_equal(split.distances, one.distances)
        gt.validate_bfs_tree(*input_csr(g), source, split.distances, split.parents)
        assert split.distances.nbytes + split.parents.nbytes >= 1 << 20
        del split


# --- layered stores (WolfPath): the GPU equals the CPU ----------------------------------------


@pytest.fixture(scope="module")
def layered_graphs(tmp_path_factory):
    """A weighted 150 x 100 grid and a directed urand14, laid out in layers, chunks of 4,096 edges,
    every format."""
    out = {}
    for name, edges, symmetric in (("grid", gt.generators.grid(150, 100), True), ("urand", gt.generators.urand(14, seed=6), False)):
        d = tmp_path_factory.mktemp(f"layered-{name}")
        w = np.random.default_rng(8).integers(1, 64, len(edges)).astype(np.float64)
        csr = gt.build(np.column_stack([edges, w]), d / "csr.gt", symmetrize=symmetric, order="layered", chunk_edges=1 << 12)
        out[name] = recoded(csr, d, GPU_FORMATS)
    return out


@pytest.mark.parametrize("name", ["grid", "urand"])
@pytest.mark.parametrize("fmt", GPU_FORMATS)
def test_layered_bfs_and_sssp_equal_the_cpu(layered_graphs, name, fmt):
    from .test_layered import input_matrix, tight_budgets

    g = layered_graphs[name][fmt]
    m = input_matrix(g)
    bfs, sssp = gt.bfs(g, g.root, direction="push", device="cpu"), gt.sssp(g, g.root, device="cpu")
    state = gt.sssp(g, g.root, device="cuda").stats["state_bytes"]
    for budget in [{}, *tight_budgets(g, state)]:
        b = gt.bfs(g, g.root, direction="push", device="cuda", **budget)
        assert b.stats["traversal"] == "layers" and b.stats["device"] == "cuda"
        np.testing.assert_array_equal(b.distances, bfs.distances)
        gt.validate_bfs_tree(m.indptr, m.indices, g.root, b.distances, b.parents)
        s = gt.sssp(g, g.root, device="cuda", **budget)
        assert s.stats["traversal"] == "layers"
        np.testing.assert_array_equal(s.distances, sssp.distances)
        np.testing.assert_array_equal(s.parents, sssp.parents)
