"""Out of memory on a real GPU (issue 14): a budget far beyond the GPU is refused before any work;
a query that needs more device memory than is free (held by another allocation), a pinned host
slot refused mid-query, and every CuPy allocation of a query refused in turn (the memory pool's
limit) each end as ``OutOfMemoryError`` naming the allocation, never CuPy's error; after each, a
normal query on the same Graph handle equals the CPU backend's result. Skipped without cupy and a
CUDA device (``pytest -m gpu``); ``tests/test_memory.py`` covers the same paths on the CPU."""

from __future__ import annotations

import gc
import re

import numpy as np
import pytest

import graphtier as gt
from graphtier.algorithms.bfs import BFS
from graphtier.cli import main
from graphtier.codecs.header import pad8
from graphtier.kernels.cuda.runtime import unavailable
from graphtier.runtime.run import state_of
from graphtier.tiering.memory import TABLE_RING
from graphtier.tiering.scheduler import fixed_bytes

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(unavailable() is not None, reason=f"no GPU: {unavailable()}")]

ALGORITHMS = {
    "bfs": lambda g, s, **kw: gt.bfs(g, s, **kw).distances,
    "sssp": lambda g, s, **kw: gt.sssp(g, s, **kw).distances,
    "pagerank": lambda g, s, **kw: gt.pagerank(g, **kw).ranks,
    "cc": lambda g, s, **kw: gt.connected_components(g, **kw).labels,
}


def same(name: str, a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.allclose(a, b, rtol=1e-6, atol=1e-12)) if name == "pagerank" else bool(np.array_equal(a, b))


@pytest.fixture(scope="module")
def weighted(tmp_path_factory) -> tuple[str, int, dict]:
    """A weighted symmetric kron16 store of many chunks, its best-connected vertex, and every
    algorithm's result on the CPU backend."""
    edges = gt.generators.kronecker(16, edge_factor=16, seed=5)
    weights = np.random.default_rng(0).integers(1, 100, len(edges))
    g = gt.build(np.column_stack([edges, weights]), tmp_path_factory.mktemp("gpu-oom") / "g.gt", symmetrize=True, drop_self_loops=True, chunk_edges=1 << 15, progress=False)
    source = int(np.argmax(np.diff(g.indptr())))
    return g.location, source, {name: f(g, source, device="cpu") for name, f in ALGORITHMS.items()}


def streamed(g: gt.Graph, source: int) -> dict:
    """GPU budgets under which BFS streams the graph: its vertex state, indptr and tables, and four
    chunk slots on the device; six slots of pinned host memory."""
    chunks = g.chunks()
    slot = pad8(max(h.total_bytes for h in chunks.headers(range(chunks.n_chunks))))
    state = state_of(BFS(g, source, "auto"), g, "cuda")[1]
    return {"device": "cuda", "device_memory": state + fixed_bytes(g.n_vertices, chunks.n_chunks) + 4 * slot, "host_memory": 6 * slot, "zero_copy": "never"}


def test_budgets_beyond_the_gpu_are_refused_then_the_handle_runs(weighted):
    import cupy

    location, source, expected = weighted
    g = gt.open(location)
    total = cupy.cuda.runtime.memGetInfo()[1]
    for name, f in ALGORITHMS.items():
        with pytest.raises(gt.BudgetError, match=rf"device_memory=10000000000000 \(10,000,000,000,000 bytes\) is more than the GPU \(.*\) has in all \({total:,} bytes\)"):
            f(g, source, device="cuda", device_memory=10**13)
        with pytest.raises(gt.BudgetError, match=r"host_memory=10000000000000000 .* is more than this machine has"):
            f(g, source, device="cuda", host_memory=10**16)
        assert same(name, f(g, source, device="cuda"), expected[name]), name


def test_cli_refuses_a_budget_beyond_the_gpu(weighted, capsys):
    location, source, _ = weighted
    code = main(["bfs", location, "--source", str(source), "--device", "cuda", "--device-memory", "10TB"])
    err = capsys.readouterr().err
    assert code == 2 and "device_memory=10TB (10,000,000,000,000 bytes) is more than the GPU" in err and "Traceback" not in err, err


def hog(leave: int) -> list:
    """Device memory held outside CuPy's pool, in pieces, until about ``leave`` bytes are free.
    Everything is taken first: a refused allocation makes the driver let go of what it keeps in
    reserve (memory that a later refusal would otherwise free for the query), then the smallest
    pieces go back until ``leave`` is free."""
    import cupy

    held, step = [], 1 << 30
    while step >= 2 << 20:
        try:
            held.append(cupy.cuda.Memory(step))
        except (cupy.cuda.runtime.CUDARuntimeError, cupy.cuda.memory.OutOfMemoryError):
            step //= 2
    while held and cupy.cuda.runtime.memGetInfo()[0] < leave:
        held.pop()  # the smallest
    return held


def test_a_query_needing_more_than_the_gpu_has_free(tmp_path):
    import cupy

    built = gt.build(gt.generators.grid(1000), tmp_path / "grid.gt", chunk_edges=1 << 18, progress=False)
    source = 500 * 1000 + 500
    expected = gt.bfs(built, source, device="cpu").distances
    assert same("bfs", gt.bfs(built, source, device="cuda").distances, expected)  # kernels compiled and loaded
    g = gt.open(built.location)  # a handle whose vertex state is still to be allocated
    del built
    gc.collect()  # the first handle's arrays back to CuPy's pool (not during the hog), then the pool's blocks to the GPU
    state = state_of(BFS(g, source, "auto"), g, "cuda")[1]
    cupy.get_default_memory_pool().free_all_blocks()
    within = cupy.cuda.runtime.memGetInfo()[1] // 2  # a budget the GPU has, but not free now (left out, it would be what is free)
    held = hog(leave=state // 4)
    try:
        with pytest.raises(gt.OutOfMemoryError, match=rf"out of memory in bfs on {re.escape(g.location)}: could not allocate .*GPU memory") as e:
            gt.bfs(g, source, device="cuda", device_memory=within)
    finally:
        del held
    assert e.value.where == "GPU" and "device_memory" in str(e.value)
    assert same("bfs", gt.bfs(g, source, device="cuda").distances, expected)


def test_pinned_memory_refused_mid_query(weighted, monkeypatch):
    import cupy

    location, source, expected = weighted
    g = gt.open(location)
    budgets = streamed(g, source)
    pinned, calls = cupy.cuda.PinnedMemory, []

    def refusing(*args):  # the round tables' staging buffers come first, then host slots on first use
        calls.append(1)
        if len(calls) == TABLE_RING + 2:
            raise cupy.cuda.runtime.CUDARuntimeError(2)  # cudaErrorMemoryAllocation
        return pinned(*args)

    monkeypatch.setattr(cupy.cuda, "PinnedMemory", refusing)
    with pytest.raises(gt.OutOfMemoryError, match=r"out of memory in bfs on .*: could not allocate [\d,]+ bytes of pinned host memory for host slot 1 \(device_memory="):
        gt.bfs(g, source, **budgets)
    monkeypatch.undo()
    r = gt.bfs(g, source, **budgets)
    assert same("bfs", r.distances, expected["bfs"]) and r.stats["host_misses"] > 0  # it streamed
    assert same("bfs", gt.bfs(g, source, **budgets).distances, expected["bfs"])


def test_every_device_allocation_refused_in_turn(weighted):
    """CuPy's pool limited to a share of what a query allocates, from a sliver to nearly all: the
    query ends in its result or in OutOfMemoryError (the arena shrinks first where it can), and the
    same handle, unlimited, then gives the right result."""
    import cupy

    location, source, expected = weighted
    pool = cupy.get_default_memory_pool()
    cases = [(name, {"device": "cuda"}) for name in ALGORITHMS] + [("bfs", streamed(gt.open(location), source))]
    outcomes = []
    for name, kw in cases:
        f = ALGORITHMS[name]
        pool.free_all_blocks()
        base = pool.used_bytes()
        f(gt.open(location), source, **kw)
        need = pool.total_bytes() - base
        for share in (0.05, 0.3, 0.6, 0.9):
            g = gt.open(location)
            pool.free_all_blocks()
            previous = pool.get_limit()
            pool.set_limit(size=pool.used_bytes() + int(share * need))
            try:
                assert same(name, f(g, source, **kw), expected[name]), (name, share)
                outcomes.append("completed")
            except gt.OutOfMemoryError as e:
                assert str(e).startswith("out of memory in ") and location in str(e) and e.where == "GPU", e
                outcomes.append("OutOfMemoryError")
            finally:
                pool.set_limit(size=previous)
            assert same(name, f(g, source, **kw), expected[name]), (name, share, outcomes[-1])
    assert "OutOfMemoryError" in outcomes, outcomes
