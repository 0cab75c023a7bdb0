"""The frontier: the vertices an iteration works on, where the kernels are.

Two queues of ids take turns (an iteration reads one and appends to the other), and each
iteration has a row of sizes (``LevelSizes`` in kernels/cuda/operators.cuh: vertices, their
out-edges, hubs, and a range's first vertex) that the kernels read and write themselves. So
iterations can be launched back to back, and the host reads the sizes once per batch. ``marks`` de-duplicate an operator's
output (a vertex is queued once however many edges reach it); ``bitmap`` is the frontier as a set,
for pulls. On the CPU the same arrays are numpy arrays (marks and bitmap as booleans).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

ALL = "all"  # a vertex set: every vertex, 0 .. n - 1


@dataclass(frozen=True)
class Span:
    """A vertex set: ``start .. stop - 1`` (a layer of a layered store). The host knows it, so it
    knows the chunks an operator over it reads: nothing is read back to schedule them."""

    start: int
    stop: int


@dataclass(frozen=True, eq=False)
class Spans:
    """Consecutive spans pushed from one after another in one call, each seeing what the ones
    before it wrote: ``bounds[first] .. bounds[first + count]``, split at every bound between (a
    group of layers). ``bounds`` is on the host, ``device`` the same where the kernels run."""

    bounds: np.ndarray
    device: object
    first: int
    count: int

    def spans(self) -> list[Span]:
        b = self.bounds[self.first : self.first + self.count + 1]
        return [Span(int(lo), int(hi)) for lo, hi in itertools.pairwise(b)]

    @property
    def whole(self) -> Span:
        return Span(int(self.bounds[self.first]), int(self.bounds[self.first + self.count]))


def span_of(s) -> tuple[int, int] | None:
    """A set's range of vertices where the host knows it (ALL: None, every vertex)."""
    s = s.whole if isinstance(s, Spans) else s
    return (s.start, s.stop) if isinstance(s, Span) else None


class Queue:
    """Vertex ids and their row of sizes (``row[0]`` the count), row ``index`` of ``sizes``, on
    the device. Kernels take the row's address, made without a device-array view (a view costs
    the host microseconds on every launch)."""

    def __init__(self, ids, sizes, index: int = 0, base: int = 0):
        self.ids, self.sizes, self.index = ids, sizes, index
        self.address = base + 32 * index  # of the row, on the GPU (base: the sizes' address)

    @property
    def row(self):
        return self.sizes[self.index]


class Frontier:
    ROWS = 64  # rows of sizes to start with (more are made as iterations need them)

    @staticmethod
    def nbytes(n: int, backend: str, dedup: bool, bitmap: bool) -> int:
        """What a frontier of ``n`` vertices takes where the kernels run."""
        gpu = backend == "cuda"
        sets = ((n + 31) // 32 * 4 if gpu else n) * (int(dedup) + int(bitmap))
        return 2 * max(n, 1) * (4 if gpu else 8) + Frontier.ROWS * 32 + sets

    def __init__(self, run, n: int, *, dedup: bool = False, bitmap: bool = False):
        self.run, self.n, self.xp = run, n, run.xp
        gpu = run.backend == "cuda"
        self.queues = run.array("frontier", (2, max(n, 1)), np.uint32 if gpu else np.int64)
        self._ids = (self.queues[0], self.queues[1])
        self.sizes = run.array("sizes", (self.ROWS, 4), np.uint64 if gpu else np.int64)
        self._base = self.sizes.data.ptr if gpu else 0
        set_shape, set_dtype = ((n + 31) // 32, np.uint32) if gpu else (n, np.bool_)
        self.marks = run.array("marks", set_shape, set_dtype) if dedup else None
        self.bits = run.array("bitmap", set_shape, set_dtype) if bitmap else None
        for a in (self.marks, self.bits):
            if a is not None:
                a.fill(0)
        self.it = 0
        self.initial = np.zeros((1, 4), np.int64)  # the first frontier's sizes, as the host set them
        self._bitmap_set = False

    def start(self, vertices: np.ndarray, edges: int) -> None:
        """The first iteration's frontier: ``vertices`` (a host array), with ``edges`` out-edges.
        Scalars are set on the device without waiting for it (an array copy would)."""
        self.it = 0
        self.initial = np.array([[len(vertices), edges, 0, 0]], np.int64)
        v0, v1 = self.run.own
        mine = vertices[(vertices >= v0) & (vertices < v1)]  # a part of a split run starts from its own
        if len(mine) < len(vertices):
            indptr = self.run.graph.indptr()
            vertices, edges = mine, int((indptr[mine + 1] - indptr[mine]).sum())
        if len(vertices) <= 1:
            self.run.ops.start_frontier(self, int(vertices[0]) if len(vertices) else -1, edges)
        else:
            self.sizes.fill(0)
            self.queues[0, : len(vertices)] = self.xp.asarray(vertices, self.queues.dtype)
            self.sizes[0, 0], self.sizes[0, 1] = len(vertices), edges

    @property
    def current(self) -> Queue:
        return Queue(self._ids[self.it % 2], self.sizes, self.it, self._base)

    @property
    def next(self) -> Queue:
        return Queue(self._ids[(self.it + 1) % 2], self.sizes, self.it + 1, self._base)

    def reserve(self, iterations: int) -> None:
        """Rows for the sizes of ``iterations`` more iterations (a larger table keeps the old rows)."""
        if self.it + iterations + 1 >= len(self.sizes):
            grown = self.run.array("sizes", (2 * (self.it + iterations + 1), 4), self.sizes.dtype)
            grown[: len(self.sizes)] = self.sizes
            grown[len(self.sizes) :] = 0
            self.sizes = grown
            self._base = grown.data.ptr if self.run.backend == "cuda" else 0

    def bitmap(self):
        """The current frontier as a set (cleared again when the iteration ends)."""
        if not self._bitmap_set:
            self.run.ops.set_bits(self.current, self.bits, True)
            if self.run.part is not None:  # the parts' queues hold their own vertices: or their sets
                self.run.part.comm.allreduce(self.bits, "or")
            self._bitmap_set = True
        return self.bits

    def step(self) -> None:
        """The iteration is done: its output becomes the frontier."""
        if self._bitmap_set:
            if self.run.part is None:
                self.run.ops.set_bits(self.current, self.bits, False)
            else:
                self.bits.fill(0)
            self._bitmap_set = False
        self.it += 1
        if self.marks is not None:
            self.run.ops.set_bits(self.current, self.marks, False)

    def read(self) -> np.ndarray:
        """The sizes of every iteration so far (and the next's frontier), on the host."""
        rows = self.sizes[: self.it + 1]
        return np.asarray(rows.get() if hasattr(rows, "get") else rows, np.int64)


class Copies:
    """A coalesced store's replicas (Graffix; ``Graph.copies``) where the kernels are: each
    vertex's ``partner`` (a replica's original, an original's replica, else itself), two vertex
    sets, ``replicas`` and ``pairs`` (the replicas, then their originals): what an algorithm's
    confluence functors run over after an iteration, so that a vertex's copies agree; and
    ``extras``, the replicas' and holes' ids (no vertex of the input's: a uniform start skips them)."""

    def __init__(self, run, graph):
        copies, (replicas, extras) = graph.copies, graph.copy_sets
        n, xp, s = len(copies), run.xp, run.state
        partner = np.arange(n)
        partner[replicas] = copies[replicas]
        partner[copies[replicas]] = replicas
        self.partner = s["copy_partner"]
        self.partner[:] = xp.asarray(partner.astype(self.partner.dtype))
        ids, rows = s["copy_ids"], s["copy_rows"]
        ids[:] = xp.asarray(np.concatenate([replicas, copies[replicas]]).astype(ids.dtype))
        rows[:] = xp.asarray(np.array([[len(replicas), 0, 0, 0], [2 * len(replicas), 0, 0, 0]], rows.dtype))
        base = rows.data.ptr if run.backend == "cuda" else 0
        self.replicas, self.pairs = Queue(ids, rows, 0, base), Queue(ids, rows, 1, base)
        self.extras = s["copy_extras"]
        self.extras[:] = xp.asarray(extras.astype(self.extras.dtype))

    @staticmethod
    def shapes(graph, backend: str) -> dict[str, tuple]:
        """The arrays it keeps, ``name -> (shape, dtype)`` (charged with the vertex state)."""
        replicas, extras = graph.copy_sets
        ids = np.uint32 if backend == "cuda" else np.int64
        return {
            "copy_partner": ((graph.n_vertices,), np.uint32),
            "copy_ids": ((2 * len(replicas),), ids),
            "copy_rows": ((2, 4), np.uint64 if backend == "cuda" else np.int64),
            "copy_extras": ((len(extras),), ids),
        }


class Clusters:
    """A latency store's clusters (``Graph.clusters``) where the kernels are, for ``Run.rounds``:
    the edge lists (``ptr``, ``src``, ``dst``, ``weight``), ``touched`` (a set of vertices, clear
    between calls: the output queue's when a call starts) and ``counts``, per iteration the
    clusters the rounds ran in and the edges they applied the functor to (rows grown as needed)."""

    def __init__(self, run, graph):
        c, s, xp = graph.clusters, run.state, run.xp
        self.xp, self.n = xp, len(c.ptr) - 1
        for name in ("ptr", "src", "dst", "weight"):
            array = s[f"cluster_{name}"]
            array[:] = xp.asarray(getattr(c, name).astype(array.dtype))
            setattr(self, name, array)
        self.touched = s["cluster_touched"]
        self.touched.fill(0)
        self.counts = xp.zeros((Frontier.ROWS, 2), np.uint64 if run.backend == "cuda" else np.int64)

    def counter(self, iteration: int):
        """The row of ``counts`` an iteration's calls add to."""
        if iteration >= len(self.counts):
            grown = self.xp.zeros((2 * (iteration + 1), 2), self.counts.dtype)
            grown[: len(self.counts)] = self.counts
            self.counts = grown
        return self.counts[iteration]

    @staticmethod
    def shapes(graph, backend: str) -> dict[str, tuple]:
        """The arrays it keeps, ``name -> (shape, dtype)`` (charged with the vertex state)."""
        c, n = graph.clusters, graph.n_vertices
        gpu = backend == "cuda"
        ids = np.uint32 if gpu else np.int64
        return {
            "cluster_ptr": ((len(c.ptr),), np.int64),
            "cluster_src": ((len(c.src),), ids),
            "cluster_dst": ((len(c.dst),), ids),
            "cluster_weight": ((len(c.weight),), np.float32),
            "cluster_touched": (((n + 31) // 32,), np.uint32) if gpu else ((n,), np.bool_),
        }
