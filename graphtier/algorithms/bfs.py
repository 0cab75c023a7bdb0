"""Breadth-first search: functors, a direction switch, and the driver (CUDA functors in bfs.cu).

Push levels expand the frontier through out-edges; when the frontier's edges outweigh what is left
unexplored, pull levels let each unvisited vertex look for a parent among its in-neighbours instead,
until the frontier shrinks again (Beamer et al.'s heuristic with GAP's constants). Out of core, a
pull first tries each vertex's *head*, one in-neighbour per vertex kept on the device (a sidecar):
the best-connected one of those in the chunk where its list starts, since hubs join the frontier
first (kron22, first pull level: a parent for 90-96% of the unvisited vertices, against 66-87% for
the first in-neighbour; ``benchmarks/pull_sectors.py``). A pull otherwise pays a 32-byte sector of
host memory per vertex, whatever the format's compression.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numba import njit, prange

from ..runtime import ALL, BATCH, Advance, Algorithm, Combine, Compute, Config, Edges, Filter, Pull, Run, Sidecar, run
from ..runtime.functors import cpu
from ..runtime.parts import spreads
from ..runtime.results import BFSResult

ALPHA, BETA = 14, 24


@cpu
def visit(v, u, e, w, s):
    """Push: claim an unvisited neighbour. ``s``: (dist, parent, level)."""
    dist, parent, level = s
    if dist[u] < 0:
        dist[u] = level
        parent[u] = v
        return True
    return False


@cpu
def unvisited(u, s):
    return s[0][u] < 0


@cpu
def in_frontier(u, v, e, w, s):
    """Pull: v is a parent when it is in the frontier. ``s``: (dist, parent, bitmap, level)."""
    return s[2][v]


@cpu
def adopt(u, v, s):
    dist, parent, _, level = s
    dist[u] = level
    parent[u] = v


@cpu
def copy_level(v, s):
    """Confluence on a coalesced store: an unvisited copy of a visited vertex takes its level and
    parent, and joins the next frontier. ``s``: (dist, parent, partner)."""
    dist, parent, partner = s
    p = partner[v]
    if dist[v] >= 0 or dist[p] < 0:
        return False
    dist[v] = dist[p]
    parent[v] = parent[p]
    return True


@cpu
def start(v, s):
    """Every vertex unvisited but the source, its own parent. ``s``: (dist, parent, source)."""
    dist, parent, source = s
    dist[v] = 0 if v == source else -1
    parent[v] = source if v == source else -1


# Split over devices: a vertex any part claimed takes the level; its parent, one of those it got,
# is settled when the run ends (nothing reads parents, and a vertex is claimed at one level).
PARENT = Combine(1, "max", at_end=True)
VISIT = Advance("Visit", visit, (Combine(0, value=2), PARENT), combine_queued=True)
FIND_PARENT = Pull("FindParent", unvisited, in_frontier, adopt, (Combine(0, value=3), PARENT), combine_queued=True)
START = Compute("Start", start)
COPY_LEVEL = Filter("CopyLevel", copy_level, per_vertex=True)


UNKNOWN_HEAD = np.iinfo(np.uint32).max


@njit(parallel=True, nogil=True, cache=True)
def best_connected(first: int, end: int, offsets: np.ndarray, dst: np.ndarray, indptr: np.ndarray) -> np.ndarray:
    """The heads of a chunk's lists ``first`` to ``end``, from their decoded sub-lists: of the ids
    a list holds there, the one with the longest list of its own, the first of those on a tie; an
    empty list's head is unknown. A list per thread: the degrees it looks up are random reads over
    the whole indptr (``heads_on_gpu`` does the same where they are fast)."""
    ids = np.full(end - first, UNKNOWN_HEAD, np.uint32)
    for i in prange(end - first):
        best, longest = -1, -1
        for j in range(offsets[first + i], offsets[first + i + 1]):
            u = dst[j]
            degree = indptr[u + 1] - indptr[u]
            if degree > longest:
                best, longest = j, degree
        if best >= 0:
            ids[i] = dst[best]
    return ids


def heads_on_gpu(offsets, dst, indptr, out: int) -> None:
    """``best_connected`` of a chunk's lists copied to the GPU (CuPy arrays), into the device
    address ``out``: an edge a thread bids for its list (``head_bids`` in bfs.cu)."""
    import cupy

    from ..kernels.cuda.runtime import module

    kernels = module(Path(__file__).with_suffix(".cu"), ("head_bids", "head_ids"))
    grid = lambda n: (max(1, min(-(-n // 256), 1 << 16)),)  # grid-stride kernels: a block per 256 items, at most 65,536
    count = len(offsets) - 1
    bids = cupy.zeros(count, cupy.uint64)
    kernels.get_function("head_bids")(grid(len(dst)), (256,), (offsets, dst, np.int64(count), indptr, bids))
    kernels.get_function("head_ids")(grid(count), (256,), (bids, dst, np.int64(count), np.uint64(out)))


HEADS = Sidecar("heads", np.uint32, best_connected, cuda=heads_on_gpu)


class Direction:
    """Beamer's switch: pull on a growing frontier whose edges exceed a fourteenth of those left
    unexplored; keep pulling while it grows or holds more than ``keep`` of the vertices (V/24)."""

    def __init__(self, graph, mode: str, keep: float = 1 / BETA):
        """``mode``: "push", "pull" or "auto" (switching on a symmetric graph only)."""
        if mode not in ("auto", "push", "pull"):
            raise ValueError(f"direction must be 'auto', 'push' or 'pull', got {mode!r}")
        if mode == "pull" and graph.directed and not graph.has_reverse:
            raise ValueError(f"direction='pull' on a directed graph needs the reverse graph, which {graph.location} does not have")
        self.optimize = mode == "auto" and not graph.directed
        self.pulls = mode == "pull" or self.optimize  # whether any level reads in-edges
        self.pulling = mode == "pull"
        self.settled = False  # back to pushing after pulling: the frontier shrinks from here on
        self.n, self.keep = graph.n_vertices, keep
        self.unexplored = graph.n_edges
        self.previous = 0

    def next(self, frontier: int, frontier_edges: int) -> bool:
        """Whether to pull this level, given the frontier's size and out-edges."""
        if self.optimize:
            self.unexplored -= frontier_edges
            if self.pulling:
                self.pulling = frontier >= self.previous or frontier > self.n * self.keep
                self.settled = not self.pulling
            else:
                self.pulling = frontier > self.previous and frontier_edges > self.unexplored / ALPHA
        self.previous = frontier
        return self.pulling

    @property
    def pushes_on(self) -> bool:
        """Whether every remaining level pushes, so levels need no decision (and can be batched)."""
        return not self.pulling and (self.settled or not self.optimize)


class BFS(Algorithm):
    cuda = Path(__file__).with_suffix(".cu")
    functors = (VISIT, FIND_PARENT, START, COPY_LEVEL)

    def __init__(self, graph, source: int, direction: str):
        self.policy = Direction(graph, direction)
        self.source = graph.vertex(source)
        self.pulls = self.bitmap = self.policy.pulls
        self.source_edges = int(graph.indptr()[self.source + 1] - graph.indptr()[self.source])

    def edges(self, graph) -> dict[str, Edges]:
        out = {"out": Edges()}
        if self.pulls:  # in-edges: the graph itself when symmetric, else its reverse
            out["in"] = Edges(reverse=True, sidecars=(HEADS,))
        return out

    def state(self, graph) -> dict[str, tuple]:
        return {"dist": (graph.n_vertices, np.int32), "parent": (graph.n_vertices, np.int64)}

    def start(self, run: Run) -> None:
        run.compute(START, run.state["dist"], run.state["parent"], self.source)
        run.frontier.start(np.array([self.source]), self.source_edges)
        self.confluence(run, run.frontier.current)

    def confluence(self, run: Run, output) -> None:
        """A coalesced store's copies of a vertex: found together, at one level."""
        if run.copies is not None:
            run.filter(COPY_LEVEL, run.state["dist"], run.state["parent"], run.copies.partner, input=run.copies.pairs, output=output)

    def batch(self, run: Run) -> int:
        frontier, edges = (int(x) for x in run.sizes[-1, :2])
        self.pulling = self.policy.next(frontier, edges)
        return BATCH if self.policy.pushes_on else 1

    def step(self, run: Run) -> None:
        dist, parent = run.state["dist"], run.state["parent"]
        level = run.frontier.it + 1
        if self.pulling:
            run.pull(FIND_PARENT, dist, parent, run.frontier.bitmap(), level, input=ALL, sidecar=HEADS.name)
        else:
            run.advance(VISIT, dist, parent, level)
        self.confluence(run, run.frontier.next)
        run.iterations[-1]["direction"] = "pull" if self.pulling else "push"


def bfs(graph, source: int | None = None, *, sources: Sequence[int] | None = None, direction: str = "auto", config: Config | None = None, **options) -> BFSResult | list[BFSResult]:
    """Distances and BFS-tree parents from ``source`` (an id as the input gave it); or, with
    ``sources=``, a list of results in their order, distances only, the sources run together up
    to 64 a pass (``msbfs``: each chunk read once a level for all of them).

    ``direction``: "push", "pull" or "auto": switch by frontier size on a symmetric graph; push on a
    directed one, where pulling rarely stops early (on cnr-2000 it made BFS 8x slower). Pulling
    reads in-edges: the graph itself when symmetric, else the reverse graph, which must then be
    stored. Execution options (``device``, ``device_memory``, ``host_memory``, ``zero_copy``,
    ``decoder``, ``progress``, or ``config=``): as every algorithm's, ``runtime.Config``.
    """
    if (source is None) == (sources is None):
        raise TypeError("bfs takes a source or sources=, not both" if source is not None else "bfs needs a source (or sources=)")
    if sources is None:
        return _bfs(graph, source, direction=direction, config=config, **options)
    if graph.copies is not None:  # a coalesced store's copies merge after every level: a source at a time
        return [_bfs(graph, s, direction=direction, config=config, **options) for s in sources]
    from .msbfs import bfs_many  # which builds on this module's Direction

    return bfs_many(graph, list(sources), direction, Config.of(config, **options))


@spreads(BFS)
def _bfs(graph, source: int, *, direction: str, config: Config | None = None, **options) -> BFSResult:
    """One source (``bfs``), split over devices where ``config`` says; from a layered store's root
    (``direction`` allowing pushes), a push per layer."""
    from .layered import LayeredBFS, path  # which builds on this module

    traversal = path(graph, source, direction)
    layered = traversal == "layers"
    done = run(LayeredBFS(graph) if layered else BFS(graph, source, direction), graph, Config.of(config, **options))
    indptr = done.sources["out"].indptr
    traversed = done.ops.reached_entries(done.state["dist"], indptr)  # where the state is (no compaction: no sync for its size)
    dist, parents = done.output(done.state["dist"]), done.output(done.state["parent"], references=True)
    for it, row in zip(done.iterations, done.sizes):
        it["edges"] = int(row[1])
    stats = done.stats(levels=len(graph.layers) - 1 if layered else len(done.iterations), reached=int(done.sizes[:, 0].sum()), edges_traversed=traversed, traversal=traversal)
    stats["teps"] = stats["edges_traversed"] / stats["seconds"] if stats["seconds"] > 0 else float("inf")
    return BFSResult(source=source, distances=dist, parents=parents, stats=stats, ids=graph.ids)
