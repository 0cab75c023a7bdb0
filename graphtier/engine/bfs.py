"""Breadth-first search: functors and one direction-optimizing level loop per backend.

Push levels expand the frontier through out-edges; when the frontier's edges outweigh what is left
unexplored, pull levels let each unvisited vertex look for a parent among its in-neighbours instead,
until the frontier shrinks again (Beamer et al.'s heuristic with GAP's constants). The CPU functors
are below; the GPU's are in ``kernels/cuda/bfs.cu``, applied by the same operators there.
"""

from __future__ import annotations

import time
from functools import partial

import numpy as np
from numba import njit

from ..errors import DeviceError
from ..kernels.cpu import operators as ops
from ..kernels.cpu.formats import NEIGHBORS
from ..kernels.cuda.runtime import DECODERS
from .backend import resolve_device
from .budgets import Budgets
from .graph import Graph
from .results import BFSResult

ALPHA, BETA = 14, 24
KERNELS = ("bfs_push", "bfs_push_hubs", "bfs_pull")  # the kernel templates of kernels/cuda/bfs.cu
BLOCK, BLOCKS_PER_SM = 256, 8  # threads per block; blocks per SM of the (grid-stride) grids
HUB_EDGES = 2048  # as operators.cuh: a hub queue of E / HUB_EDGES + 1 entries always suffices
BATCH = 8  # levels launched per readback of frontier sizes when no direction decision needs them
PULL_READS = 32  # in-edges a pull is expected to read per vertex (as operators.cuh), for the demand
EVERY_EDGE = 1 << 62  # a push reads every out-edge of the frontier


@njit
def visit(v, u, state):
    """Push: claim an unvisited neighbour."""
    dist, parent, _ = state
    if dist[u] < 0:
        dist[u] = dist[v] + 1
        parent[u] = v
        return True
    return False


@njit
def adopt(u, v, state):
    """Pull: take the first in-neighbour found in the frontier as parent."""
    dist, parent, in_frontier = state
    if in_frontier[v]:
        dist[u] = dist[v] + 1
        parent[u] = v
        return True
    return False


@njit
def unvisited(v, state):
    return state[0][v] < 0


class Direction:
    """Beamer's switch: pull on a growing frontier whose edges exceed a fourteenth of those left
    unexplored; keep pulling while it grows or holds more than V/24 vertices."""

    def __init__(self, mode: str, optimize: bool, n_vertices: int, n_edges: int):
        self.pulling = mode == "pull"
        self.optimize = optimize
        self.settled = False  # back to pushing after pulling: the frontier shrinks from here on
        self.n = n_vertices
        self.unexplored = n_edges
        self.previous = 0

    def next(self, frontier: int, frontier_edges: int) -> bool:
        """Whether to pull this level, given the frontier's size and out-edges."""
        if self.optimize:
            self.unexplored -= frontier_edges
            if self.pulling:
                self.pulling = frontier >= self.previous or frontier > self.n / BETA
                self.settled = not self.pulling
            else:
                self.pulling = frontier > self.previous and frontier_edges > self.unexplored / ALPHA
        self.previous = frontier
        return self.pulling

    @property
    def pushes_on(self) -> bool:
        """Whether every remaining level pushes, so levels need no decision (and can be batched)."""
        return not self.pulling and (self.settled or not self.optimize)


def bfs(
    graph: Graph,
    source: int,
    *,
    device: str = "auto",
    direction: str = "auto",
    decoder: str | None = None,
    device_memory: int | str | None = None,
    host_memory: int | str | None = None,
    zero_copy: str = "auto",
) -> BFSResult:
    """Distances and BFS-tree parents from ``source`` (an id as the input gave it).

    ``device``: "cpu", "cuda" or "auto" (the GPU when cupy finds one). ``direction``: "push",
    "pull" or "auto": switch by frontier size on a symmetric graph; push on a directed one, where
    pulling rarely stops early (on cnr-2000 it made BFS 8x slower). Pulling reads in-edges: the
    graph itself when symmetric, else the reverse graph, which must then be stored.
    ``decoder``: on the GPU, one of the format's decoders in ``kernels.cuda.runtime.DECODERS``
    (the default is the fastest; the others switch one technique off, for measurements).
    ``device_memory``, ``host_memory``: budgets ("1GiB", bytes), by default what the machine has
    less a margin. The vertex state takes its share of ``device_memory`` first; when the graph
    does not fit what is left, the tiering scheduler streams its chunks through pinned host
    memory (on the CPU backend, a simulated device of that size). ``zero_copy``: "auto" (the
    cost model), "always" (kernels read every chunk in place from host memory) or "never".
    """
    backend = resolve_device(device)
    if decoder is not None and backend != "cuda":
        raise ValueError("decoder= chooses a GPU decoder; this BFS runs on the CPU")
    if direction not in ("auto", "push", "pull"):
        raise ValueError(f"direction must be 'auto', 'push' or 'pull', got {direction!r}")
    if direction == "pull" and graph.directed and not graph.has_reverse:
        raise ValueError(f"direction='pull' on a directed graph needs the reverse graph, which {graph.location} does not have")
    s = graph.vertex(source)
    optimize = direction == "auto" and not graph.directed
    policy = Direction(direction, optimize, graph.n_vertices, graph.n_edges)
    pulls = direction == "pull" or optimize
    budgets = Budgets.of(backend, device_memory, host_memory, zero_copy)
    levels = _cuda_levels if backend == "cuda" else _cpu_levels
    dist, parent, stats = levels(graph, s, policy, pulls, budgets, decoder)
    stats = {"device": backend, "format": graph.format, **stats, "levels": len(stats["iterations"])}
    if backend == "cuda":
        stats["decoder"] = decoder or next(iter(DECODERS[graph.format]))
    stats["teps"] = stats["edges_traversed"] / stats["seconds"] if stats["seconds"] > 0 else float("inf")
    return BFSResult(
        source=source,
        distances=graph.to_original(dist),
        parents=graph.refs_to_original(graph.to_original(parent)),
        stats=stats,
        ids=graph.ids,
    )


def _cpu_levels(graph: Graph, s: int, policy: Direction, pulls: bool, budgets: Budgets, decoder: None) -> tuple[np.ndarray, np.ndarray, dict]:
    n = graph.n_vertices
    dist = np.full(n, -1, np.int32)
    parent = np.full(n, -1, np.int64)
    queue = np.empty(n, np.int64)
    in_frontier = np.zeros(n if pulls else 0, np.bool_)
    all_vertices = np.arange(n if pulls else 0, dtype=np.int64)
    candidates = np.empty_like(all_vertices)
    scratch = ops.scratch_for(graph.chunk_edges, graph.id_dtype)
    state = (dist, parent, queue, in_frontier, all_vertices, candidates, scratch)
    fwd, rev = budgets.sources(graph, pulls, sum(a.nbytes for a in state))
    neighbors, word = NEIGHBORS[graph.format]

    t0 = time.perf_counter()
    dist[s], parent[s] = 0, s
    queue[0] = s
    a, b = 0, 1
    levels = []
    while a < b:
        started = time.perf_counter()
        frontier = queue[a:b]
        edges = int(ops.degree_sum(frontier, fwd.indptr)) if policy.optimize else 0
        pulling = policy.next(len(frontier), edges)
        if pulling:
            in_frontier[frontier] = True
            todo = candidates[: ops.filter(all_vertices, unvisited, (dist,), candidates)]
            n_next = 0

            def adopted(done: np.ndarray) -> np.ndarray:  # queues the vertices done; the rest
                nonlocal n_next
                found = todo[done]
                queue[b + n_next : b + n_next + len(found)] = found
                n_next += len(found)
                return todo[~done]

            if rev.heads is not None:  # an in-neighbour per vertex kept on the device: no list read
                done = np.zeros(len(todo), np.bool_)
                ops.pull_heads(todo, rev.heads, adopt, (dist, parent, in_frontier), done)
                todo = adopted(done)
            for table in rev.rounds(partial(_cpu_demand, rev, todo, PULL_READS)):
                done = np.zeros(len(todo), np.bool_)
                ops.advance_pull(todo, rev.indptr, rev.words(word), table, rev.chunk_edges, neighbors, adopt, (dist, parent, in_frontier), done, scratch)
                todo = adopted(done)
            in_frontier[frontier] = False
        else:
            n_next = 0
            for table in fwd.rounds(partial(_cpu_demand, fwd, frontier, EVERY_EDGE)):
                n_next += ops.advance(frontier, fwd.indptr, fwd.words(word), table, fwd.chunk_edges, neighbors, visit, (dist, parent, in_frontier), queue[b + n_next :], scratch)
        levels.append({"frontier": len(frontier), "edges": edges, "direction": "pull" if pulling else "push", "seconds": time.perf_counter() - started})
        a, b = b, b + n_next
    stats = {
        "seconds": time.perf_counter() - t0,
        "reached": int(b),
        "edges_traversed": int(ops.degree_sum(queue[:b], fwd.indptr)),
        **budgets.report(levels, fwd, rev, sum(a.nbytes for a in state)),
    }
    return dist, parent, stats


def _cpu_demand(source, vertices: np.ndarray, cap: int, out: np.ndarray) -> None:
    ops.chunk_demand(vertices, source.indptr, source.chunk_edges, cap, out)


def _cuda_levels(graph: Graph, s: int, policy: Direction, pulls: bool, budgets: Budgets, decoder: str | None) -> tuple[np.ndarray, np.ndarray, dict]:
    """The same level loop on the GPU. Frontier sizes stay on the device: kernels read theirs
    from ``sizes`` and write the next, so levels that need no direction decision are launched
    ``BATCH`` at a time when the graph is resident, and the host reads the sizes back once per
    batch (32 bytes a level). Vertex state lives in a workspace kept with the graph, set by one
    init kernel. Out of core, each level's operator runs once per round of the scheduler; levels
    are batched there too while its rounds are static (nothing to move, no demand to read back)."""
    import cupy

    from ..kernels.cuda.runtime import function

    if graph.id_dtype != np.uint32:
        raise DeviceError(f"the GPU backend reads 32-bit ids; this graph has {graph.id_dtype} ids")
    kernel = {k: function("bfs.cu", KERNELS, k, graph.format, decoder) for k in KERNELS}
    init, to_bitmap, pull_heads, push_demand, pull_demand = (function("bfs.cu", KERNELS, k) for k in ("bfs_init", "queue_to_bitmap", "bfs_pull_heads", "push_demand", "bfs_pull_demand"))
    n = graph.n_vertices
    work = graph.workspace()
    dist, parent = work.buffer("dist", n, cupy.int32)[:n], work.buffer("parent", n, cupy.int64)[:n]
    queues = work.buffer("queues", (2, n), cupy.uint32)[:2]
    bitmap = work.buffer("bitmap", (n + 31) // 32, cupy.uint32)
    hubs = work.buffer("hubs", graph.n_edges // HUB_EDGES + 1, cupy.uint32)
    device_sizes = work.buffer("sizes", (64, 4), cupy.uint64)
    fwd, rev = budgets.sources(graph, pulls, work.nbytes)
    grid, block = (cupy.cuda.Device().attributes["MultiProcessorCount"] * BLOCKS_PER_SM,), (BLOCK,)
    source_edges = np.uint64(graph.indptr()[s + 1] - graph.indptr()[s])

    def demand(source, kernel, args, out):  # counts stay on the device; the scheduler reads them back only to stream
        kernel(grid, block, (source.indptr, np.int64(source.chunk_edges), *args, out))

    start = cupy.cuda.Event()
    start.record()
    init(grid, block, (dist, parent, np.int64(n), np.int64(s), source_edges, queues[0], device_sizes, np.int64(len(device_sizes)), bitmap, np.int64(bitmap.size)))
    sizes = np.array([[1, source_edges, 0, 0]], np.uint64)  # per level: LevelSizes (frontier, edges, hubs, spare)
    levels, ends = [], []
    while sizes[-1, 0]:
        first = len(sizes) - 1
        pulling = policy.next(*(int(x) for x in sizes[first, :2]))
        batch = BATCH if policy.pushes_on and fwd.steps_aside else 1
        if first + batch + 1 > len(device_sizes):  # a long BFS: more level rows, kept for next time
            grown = work.buffer("sizes", (2 * len(device_sizes), 4), cupy.uint64)
            grown[: len(device_sizes)], grown[len(device_sizes) :] = device_sizes, 0
            device_sizes = grown
        for level in range(first, first + batch):
            queue, next_queue = queues[level % 2], queues[(level + 1) % 2]
            state = (device_sizes, dist, parent, np.int32(level))
            if pulling:
                to_bitmap(grid, block, (queue, device_sizes[level], bitmap))
                if rev.heads is not None:  # an in-neighbour per vertex kept on the device: no list read
                    pull_heads(grid, block, (rev.heads, rev.indptr, np.int64(n), bitmap, next_queue, *state))
                for table in rev.rounds(partial(demand, rev, pull_demand, (np.int64(n), dist))):
                    kernel["bfs_pull"](grid, block, (*rev.params(table), bitmap, next_queue, *state))
                bitmap.fill(0)
            else:
                for i, table in enumerate(fwd.rounds(partial(demand, fwd, push_demand, (queue, device_sizes[level])))):
                    if i:  # the previous round's hubs are done; this round queues them again
                        device_sizes[level, 2] = 0
                    push = (*fwd.params(table), queue, hubs, next_queue, *state)
                    kernel["bfs_push"](grid, block, push)
                    kernel["bfs_push_hubs"](grid, block, push)
            levels.append({"direction": "pull" if pulling else "push"})
            ends.append(cupy.cuda.Event())
            ends[-1].record()
        sizes = device_sizes[: first + batch + 1].get()
    sizes = sizes[: int(np.argmin(sizes[:, 0] > 0))]  # up to the first empty frontier
    del levels[len(sizes) :], ends[len(sizes) :]  # launched past it: they did nothing
    for level, (lvl, before, after) in enumerate(zip(levels, [start, *ends], ends)):
        lvl.update(frontier=int(sizes[level, 0]), edges=int(sizes[level, 1]), seconds=cupy.cuda.get_elapsed_time(before, after) / 1e3)
    degrees = cupy.diff(fwd.indptr)
    stats = {
        "seconds": cupy.cuda.get_elapsed_time(start, ends[-1]) / 1e3,
        "reached": int(sizes[:, 0].sum()),
        "edges_traversed": int(degrees[dist >= 0].sum()),
        **budgets.report(levels, fwd, rev, work.nbytes),
    }
    return dist.get(), parent.get(), stats
