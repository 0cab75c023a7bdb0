"""Breadth-first search: functors and one direction-optimizing level loop per backend.

Push levels expand the frontier through out-edges; when the frontier's edges outweigh what is left
unexplored, pull levels let each unvisited vertex look for a parent among its in-neighbours instead,
until the frontier shrinks again (Beamer et al.'s heuristic with GAP's constants). The CPU functors
are below; the GPU's are in ``kernels/cuda/bfs.cu``, applied by the same operators there.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from ..kernels.cpu import operators as ops
from ..kernels.cpu.formats import NEIGHBORS
from ..kernels.cuda.runtime import DECODERS
from .backend import resolve_device
from .graph import Graph
from .results import BFSResult

ALPHA, BETA = 14, 24
KERNELS = ("bfs_push", "bfs_push_hubs", "bfs_pull")  # the kernel templates of kernels/cuda/bfs.cu
BLOCK, BLOCKS_PER_SM = 256, 8  # threads per block; blocks per SM of the (grid-stride) grids
HUB_EDGES = 2048  # as operators.cuh: a hub queue of E / HUB_EDGES + 1 entries always suffices
BATCH = 8  # levels launched per readback of frontier sizes when no direction decision needs them


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


def bfs(graph: Graph, source: int, *, device: str = "auto", direction: str = "auto", decoder: str | None = None) -> BFSResult:
    """Distances and BFS-tree parents from ``source`` (an id as the input gave it).

    ``device``: "cpu", "cuda" or "auto" (the GPU when cupy finds one). ``direction``: "push",
    "pull" or "auto": switch by frontier size on a symmetric graph; push on a directed one, where
    pulling rarely stops early (on cnr-2000 it made BFS 8x slower). Pulling reads in-edges: the
    graph itself when symmetric, else the reverse graph, which must then be stored.
    ``decoder``: on the GPU, one of the format's decoders in ``kernels.cuda.runtime.DECODERS``
    (the default is the fastest; the others switch one technique off, for measurements).
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
    if backend == "cuda":
        dist, parent, stats = _cuda_levels(graph, s, policy, pulls, decoder)
    else:
        dist, parent, stats = _cpu_levels(graph, s, policy, pulls)
    stats = {"device": backend, "format": graph.format, **stats, "levels": len(stats["per_level"])}
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


def _cpu_levels(graph: Graph, s: int, policy: Direction, pulls: bool) -> tuple[np.ndarray, np.ndarray, dict]:
    fwd = graph.resident()
    rev = graph.resident(reverse=graph.directed) if pulls else None
    neighbors, word = NEIGHBORS[graph.format]
    scratch = ops.scratch_for(graph.chunk_edges, graph.id_dtype)
    n = graph.n_vertices

    t0 = time.perf_counter()
    dist = np.full(n, -1, np.int32)
    parent = np.full(n, -1, np.int64)
    dist[s], parent[s] = 0, s
    queue = np.empty(n, np.int64)
    queue[0] = s
    a, b = 0, 1
    in_frontier = np.zeros(n if pulls else 0, np.bool_)
    all_vertices = np.arange(n if pulls else 0, dtype=np.int64)
    candidates = np.empty_like(all_vertices)
    levels = []
    while a < b:
        started = time.perf_counter()
        frontier = queue[a:b]
        edges = int(ops.degree_sum(frontier, fwd.indptr)) if policy.optimize else 0
        pulling = policy.next(len(frontier), edges)
        if pulling:
            in_frontier[frontier] = True
            todo = candidates[: ops.filter(all_vertices, unvisited, (dist,), candidates)]
            done = np.zeros(len(todo), np.bool_)
            ops.advance_pull(todo, rev.indptr, rev.words(word), rev.table, rev.chunk_edges, neighbors, adopt, (dist, parent, in_frontier), done, scratch)
            found = todo[done]
            queue[b : b + len(found)] = found
            in_frontier[frontier] = False
            n_next = len(found)
        else:
            n_next = ops.advance(frontier, fwd.indptr, fwd.words(word), fwd.table, fwd.chunk_edges, neighbors, visit, (dist, parent, in_frontier), queue[b:], scratch)
        levels.append({"frontier": len(frontier), "edges": edges, "direction": "pull" if pulling else "push", "seconds": time.perf_counter() - started})
        a, b = b, b + n_next
    seconds = time.perf_counter() - t0
    stats = {
        "seconds": seconds,
        "reached": int(b),
        "edges_traversed": int(ops.degree_sum(queue[:b], fwd.indptr)),
        "per_level": levels,
        "resident_bytes": fwd.nbytes + (rev.nbytes if rev is not None and rev is not fwd else 0),
    }
    return dist, parent, stats


def _cuda_levels(graph: Graph, s: int, policy: Direction, pulls: bool, decoder: str | None) -> tuple[np.ndarray, np.ndarray, dict]:
    """The same level loop on the GPU. Frontier sizes stay on the device: kernels read theirs
    from ``sizes`` and write the next, so levels that need no direction decision are launched
    ``BATCH`` at a time, and the host reads the sizes back once per batch (32 bytes a level).
    Vertex state lives in buffers kept with the device graph, set by one init kernel."""
    import cupy

    from ..kernels.cuda.runtime import function

    fwd = graph.on_device()
    rev = graph.on_device(reverse=graph.directed) if pulls else None
    kernel = {k: function("bfs.cu", KERNELS, k, graph.format, decoder) for k in KERNELS}
    init, to_bitmap = (function("bfs.cu", KERNELS, k) for k in ("bfs_init", "queue_to_bitmap"))
    n = graph.n_vertices
    grid, block = (cupy.cuda.Device().attributes["MultiProcessorCount"] * BLOCKS_PER_SM,), (BLOCK,)
    dist, parent = fwd.buffer("dist", n, cupy.int32)[:n], fwd.buffer("parent", n, cupy.int64)[:n]
    queues = fwd.buffer("queues", (2, n), cupy.uint32)[:2]
    bitmap = fwd.buffer("bitmap", (n + 31) // 32, cupy.uint32)
    hubs = fwd.buffer("hubs", graph.n_edges // HUB_EDGES + 1, cupy.uint32)
    device_sizes = fwd.buffer("sizes", (64, 4), cupy.uint64)
    source_edges = np.uint64(graph.indptr()[s + 1] - graph.indptr()[s])

    start = cupy.cuda.Event()
    start.record()
    init(grid, block, (dist, parent, np.int64(n), np.int64(s), source_edges, queues[0], device_sizes, np.int64(len(device_sizes)), bitmap, np.int64(bitmap.size)))
    sizes = np.array([[1, source_edges, 0, 0]], np.uint64)  # per level: LevelSizes (frontier, edges, hubs, spare)
    levels, ends = [], []
    while sizes[-1, 0]:
        first = len(sizes) - 1
        pulling = policy.next(*(int(x) for x in sizes[first, :2]))
        batch = BATCH if policy.pushes_on else 1
        if first + batch + 1 > len(device_sizes):  # a long BFS: more level rows, kept for next time
            grown = fwd.buffer("sizes", (2 * len(device_sizes), 4), cupy.uint64)
            grown[: len(device_sizes)], grown[len(device_sizes) :] = device_sizes, 0
            device_sizes = grown
        for level in range(first, first + batch):
            queue, next_queue = queues[level % 2], queues[(level + 1) % 2]
            state = (device_sizes, dist, parent, np.int32(level))
            if pulling:
                to_bitmap(grid, block, (queue, device_sizes[level], bitmap))
                kernel["bfs_pull"](grid, block, (*rev.params, bitmap, next_queue, *state))
                bitmap.fill(0)
            else:
                push = (*fwd.params, queue, hubs, next_queue, *state)
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
        "per_level": levels,
        "resident_bytes": fwd.nbytes + (rev.nbytes if rev is not None and rev is not fwd else 0),
    }
    return dist.get(), parent.get(), stats
